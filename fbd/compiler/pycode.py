"""Validate a network, flatten its macros, and generate one scan as Python.

The steps, each a function below:

1. ``flatten``: walk the macro hierarchy; every leaf block gets a full path
   (``cell_0_0.memory``) and slots for its outputs and state.
2. ``resolve``: follow every input through macro ports to the leaf output,
   network input or literal that drives it, unify the types at both ends of
   every wire (generic blocks take the type of what they are wired to), and
   note the forward wires the order follows. One pass: at 100k blocks each
   pass over the wires costs a tenth of a second.
3. ``_infer_types``: bind what the wires left open (from literals), check
   families, give every block its types.
4. ``_order``: a deterministic topological order of the forward wires, ties
   broken by the order blocks were added; loops without a feedback mark are
   reported with the blocks in them.
5. ``ScanProgram``: straight-line code for one scan, in chunks, over one
   flat list ``s`` that holds every signal.

Every rule broken anywhere is collected and raised together in one
:class:`~fbd.errors.ValidationError`, each naming its full path.
"""

from __future__ import annotations

import gc
import heapq
import math
import os
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from types import MappingProxyType
from typing import Any, NamedTuple

from .. import address as located
from .. import types as t
from ..block import IO, REQUIRED, Block, Extensible, literal
from ..errors import FbdError, UnknownSignal, ValidationError
from ..network import Network, Ref
from .forkmap import map_in_two
from .graph import loops

STORE_EVERY = 16  # values a chunk assigns between two stores to the table (see _chunk_source)
CHUNK = 1024  # leaves per generated function; a force recompiles one chunk


# --------------------------------------------------------------------------- data
_NOTHING = MappingProxyType({})  # shared by the many leaves with no state or no type variables


class Leaf:
    """One elementary block instance of the flattened program (a plain class with
    slots: a big program makes one per block, and a dataclass's default
    factories made that a fifth of flattening)."""
    __slots__ = ("index", "path", "block", "inst", "scope", "outputs", "state", "inputs",
                 "types")

    def __init__(self, index: int, path: str, block: Block, inst, scope: "Scope"):
        self.index = index
        self.path = path
        self.block = block
        self.inst = inst
        self.scope = scope
        self.outputs: dict = {}   # port -> slot
        self.state = _NOTHING     # name -> slot (a dict of its own if the block has state)
        self.inputs: dict = {}    # port -> Src
        self.types = _NOTHING     # type var -> DataType (set by inference)

    def __repr__(self) -> str:
        return f"<Leaf {self.index} {self.path}: {self.block!r}>"

    def port_type(self, port: str) -> t.DataType | None:
        """A port's type once inference has run (None where it could not tell)."""
        decl = self.inst._inputs.get(port) or self.inst._outputs[port]
        return self.types.get(decl.type) if isinstance(decl.type, str) else decl.type


class Src(NamedTuple):
    """What drives an input: a slot (written by ``leaf``, -1 for a PLC input) or a constant."""
    slot: int | None
    const: Any = None
    feedback: bool = False
    leaf: int = -1


@dataclass
class Scope:
    net: Network
    prefix: str           # "" at the top, "cell_0_0." inside a macro instance
    parent: "Scope | None"
    inst: Any             # the macro Instance in the parent scope
    children: dict = field(default_factory=dict)  # instance name -> Scope
    leaves: dict = field(default_factory=dict)    # instance name -> Leaf

    def where(self, name: str) -> str:
        return f"{self.prefix}{name}"


class SignalInfo(NamedTuple):
    """A path's place in the signal table. ``slot`` is None for a constant."""
    path: str
    type: t.DataType
    kind: str        # input | output | out | state | in | port
    slot: int | None
    const: Any = None
    leaf: int | None = None  # the block that writes the slot, if any


_new_src = partial(tuple.__new__, Src)  # Src((slot, const, feedback, leaf)), at half the cost


class _Template(NamedTuple):
    """One block configuration's code, ready to format with an instance's names."""
    fmt: str        # statements with {k} for each placeholder's name
    pure: bool      # see ScanProgram._leaf_lines
    chunk: str      # the same, indented for a chunk's function
    tokens: dict    # port or state name -> placeholder number
    n_inputs: int   # placeholders before the outputs'
    label: str      # ": <block name>", for the comment above each instance's code


class _Unresolved(Exception):
    pass


# ---------------------------------------------------------------------- flatten
def _output_shape(port) -> tuple:
    """(name, initial value, type variable): the declared default, else the type's
    own where the type is fixed; for a generic port without a default, its type
    variable, whose default the block's bound type or inference gives."""
    if port.default is not REQUIRED:
        return port.name, port.default, None
    if isinstance(port.type, t.DataType):
        return port.name, port.type.default, None
    return port.name, None, port.type


class _Builder:
    def __init__(self, net: Network):
        self.net = net
        self.problems: list[str] = []
        self.leaves: list[Leaf] = []
        self.broken: set[int] = set()  # leaves with an unconnected input (no type errors on top)
        self.with_literals: set[int] = set()  # leaves with an input driven by a constant
        self.with_feedback: set[int] = set()  # leaves with an input on a feedback wire
        self.n_slots = 0
        self.slot_init: list[Any] = []     # each slot's initial value (types known: all of them)
        self.fresh: list = []              # (slot, make, leaf): state whose value is made per table
        self.writer: dict[int, int] = {}   # slot -> the leaf that writes it
        self.inputs: dict[str, int] = {}   # top-level input -> slot
        self.top = Scope(net, "", None, None)
        self.scopes: list[Scope] = [self.top]
        self.types = _Types()
        self.succ: list[list[int]] = []    # leaf -> the leaves that read it in the same scan
        self.indeg: list[int] = []         # leaf -> how many forward wires it reads
        self._memo: dict = {}
        self._busy: set = set()
        self._shapes: dict = {}  # (block type, n) -> its outputs (name, initial) and state names

    def slot(self, init) -> int:
        self.slot_init.append(init)
        self.n_slots = len(self.slot_init)
        return self.n_slots - 1

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def flatten(self) -> None:
        for name, (tp, default) in self.net.inputs.items():
            # A program's input starts at its declared default, as the same
            # network placed as a macro with the input left open would see it.
            self.inputs[name] = self.slot(tp.default if default is REQUIRED else default)
        self._walk(self.top, set())
        self.succ = [[] for _ in self.leaves]
        self.indeg = [0] * len(self.leaves)

    def _walk(self, scope: Scope, stack: set) -> None:
        if id(scope.net) in stack:
            self.problem(f"{scope.prefix.rstrip('.')}: macro {scope.net.name} contains itself")
            return
        stack = stack | {id(scope.net)}
        slot_init, prefix, leaves, writer = self.slot_init, scope.prefix, scope.leaves, self.writer
        all_leaves, shapes = self.leaves, self._shapes
        for name, inst in scope.net.instances.items():
            element = inst.element
            if isinstance(element, Network):
                child = Scope(element, f"{prefix}{name}.", scope, inst)
                scope.children[name] = child
                self.scopes.append(child)
                self._walk(child, stack)
                continue
            index = len(all_leaves)
            leaf = Leaf(index, prefix + name, element, inst, scope)
            shape = shapes.get((element.__class__, element.n))
            if shape is None:
                shape = shapes[element.__class__, element.n] = (
                    tuple(_output_shape(p) for p in element.output_ports()),
                    tuple(sv.name for sv in element.state_vars()))
            outputs, state_names = shape
            for port, init, var in outputs:
                if var is not None:  # generic: its type's default if the block binds it
                    tp = element.bound_types.get(var)
                    init = tp.default if tp is not None else None  # else set by inference
                writer[len(slot_init)] = index
                leaf.outputs[port] = len(slot_init)
                slot_init.append(init)
            if state_names:
                leaf.state = {}
            for var in state_names:
                writer[len(slot_init)] = index
                leaf.state[var] = len(slot_init)
                slot_init.append(None)
            leaves[name] = leaf
            all_leaves.append(leaf)
        self.n_slots = len(slot_init)

    # ------------------------------------------------------------------ resolve
    def source(self, scope: Scope, src, feedback: bool) -> Src:
        """Follow a wire's source through macro ports down to what really drives it."""
        if not isinstance(src, Ref):
            return Src(None, src, feedback)
        if src.kind == "out":
            leaf = scope.leaves.get(src.owner.name)
            if leaf is not None:  # the common case: a block in the same network
                return Src(leaf.outputs[src.port], None, feedback, leaf.index)
        key = (id(scope), id(src.owner), src.port)
        if key in self._memo:
            got = self._memo[key]
            return Src(got.slot, got.const, got.feedback or feedback, got.leaf)
        if key in self._busy:
            raise _Unresolved(f"{scope.where(src.path)}: a loop through macro ports "
                              f"with no block in it")
        self._busy.add(key)
        try:
            got = self._source(scope, src)
        finally:
            self._busy.discard(key)
        self._memo[key] = got
        return Src(got.slot, got.const, got.feedback or feedback, got.leaf)

    def _source(self, scope: Scope, src: Ref) -> Src:
        if src.kind == "netin":
            if scope.parent is None:
                return Src(self.inputs[src.port])
            bindings = scope.inst.bindings.get(src.port, [])
            if not bindings:
                _tp, default = scope.net.inputs[src.port]
                if default is REQUIRED:
                    raise _Unresolved(f"{scope.prefix}{src.port}: input of macro "
                                      f"{scope.net.name} is not connected and has no default")
                return Src(None, default)
            b = bindings[0]
            return self.source(scope.parent, b.source, b.feedback)
        name = src.owner.name
        if name in scope.leaves:
            leaf = scope.leaves[name]
            return Src(leaf.outputs[src.port], leaf=leaf.index)
        child = scope.children[name]
        out = child.net.outputs[src.port]
        return self.source(child, out.source, out.feedback)

    def resolve(self) -> None:
        """Give every leaf input its Src, check the types at both ends of every
        wire and note the forward wires between leaves (see the module docstring)."""
        wires = _WireTypes(self.types, self.problems)
        succ, indeg, problem, new_src = self.succ, self.indeg, self.problem, _new_src
        DataType = t.DataType
        for scope in self.scopes:
            leaves = scope.leaves
            for name, inst in scope.net.instances.items():
                leaf = leaves.get(name)  # None for a macro
                all_bindings = inst.bindings
                if leaf is None:
                    for pname in inst._inputs:
                        bindings = all_bindings.get(pname)
                        if bindings is not None:
                            if len(bindings) > 1:
                                problem(_driven_twice(scope, name, pname, bindings))
                            wires.wire(scope, name, None, inst, pname, bindings[0].source)
                    continue
                inputs, index, bound = leaf.inputs, leaf.index, leaf.block.bound_types
                for pname, port in inst._inputs.items():
                    bindings = all_bindings.get(pname)
                    if bindings is None:
                        if port.default is REQUIRED:
                            self.broken.add(index)
                            problem(f"{scope.where(f'{name}.{pname}')}: input is not "
                                    f"connected and {inst.type_name} gives it no default")
                        else:
                            inputs[pname] = new_src((None, port.default, False, -1))
                            self.with_literals.add(index)
                        continue
                    if len(bindings) > 1:
                        problem(_driven_twice(scope, name, pname, bindings))
                    bind = bindings[0]
                    src = bind.source
                    if src.__class__ is Ref and src.kind == "out":
                        driver = leaves.get(src.owner.name)
                        if driver is not None:
                            # The common case, inlined: a block's output in the same network.
                            feedback = bind.feedback
                            inputs[pname] = new_src((driver.outputs[src.port], None, feedback,
                                                     driver.index))
                            if not feedback:
                                succ[driver.index].append(index)
                                indeg[index] += 1
                            else:
                                self.with_feedback.add(index)
                            # Where both ends have a fixed type (nearly every wire of a
                            # big program) the check is one comparison.
                            target = port.type
                            if target.__class__ is not DataType:
                                target = bound.get(target)
                            source = driver.inst._outputs[src.port].type
                            if source.__class__ is not DataType:
                                source = driver.block.bound_types.get(source)
                            if target is None or source is None:
                                wires.wire(scope, name, leaf, inst, pname, src)
                            elif target is not source:
                                wires.mismatch(scope, src.path, f"{name}.{pname}",
                                               (source, target))
                            continue
                    try:
                        got = self.source(scope, src, bind.feedback)
                    except _Unresolved as e:
                        self.broken.add(index)
                        problem(str(e))
                    else:
                        inputs[pname] = got
                        if got.slot is None:
                            self.with_literals.add(index)
                        elif got.feedback:
                            self.with_feedback.add(index)
                        if got.leaf >= 0 and not got.feedback:
                            succ[got.leaf].append(index)
                            indeg[index] += 1
                    wires.wire(scope, name, leaf, inst, pname, src)
                if len(bound) < len(leaf.block.types):
                    for pname in inst._outputs:
                        wires.port_node(scope, name, pname, True)
            for out in scope.net.outputs.values():
                try:
                    self.source(scope, out.source, out.feedback)
                except _Unresolved as e:
                    problem(str(e))
                wires.net_output(scope, out)


def _driven_twice(scope: Scope, name: str, port: str, bindings: list) -> str:
    drivers = " and ".join(_describe(scope, b.source) for b in bindings)
    return f"{scope.where(f'{name}.{port}')}: input driven twice (by {drivers})"


def _describe(scope: Scope, src) -> str:
    return scope.where(src.path) if isinstance(src, Ref) else repr(src)


# ------------------------------------------------------------------------ types
class _Types:
    """Union-find over type nodes: nodes joined by a wire must have one type.

    A concrete type is its own node (every INT port is the node INT), so only
    type variables of generic blocks and network ports add nodes.
    """

    def __init__(self):
        self.parent: dict = {}
        self.bound: dict = {}      # root -> DataType
        self.families: dict = {}   # root -> [(Generic, where)]
        self.literals: dict = {}   # root -> [(value, where)]

    def node(self, key, tp=None):
        if key not in self.parent:
            self.parent[key] = key
            if tp is not None:
                self.bound[key] = tp
        return key

    def find(self, key):
        parent = self.parent
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def union(self, a, b) -> tuple | None:
        """Join two nodes; on a conflict join nothing and return the two types."""
        if a == b:
            return None
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return None
        ta, tb = self.bound.get(ra), self.bound.get(rb)
        if ta is not None and tb is not None and ta is not tb:
            return ta, tb
        if tb is not None and ta is None:  # keep the bound root as the root
            ra, rb = rb, ra
        elif (ta is None) == (tb is None) and self._weight(ra) < self._weight(rb):
            ra, rb = rb, ra   # union by size: move the shorter lists (linear, not quadratic)
        self.parent[rb] = ra
        for d in (self.families, self.literals):
            if rb in d:
                d.setdefault(ra, []).extend(d.pop(rb))
        return None

    def _weight(self, root) -> int:
        return len(self.families.get(root, ())) + len(self.literals.get(root, ()))

    def literal(self, key, value, where: str) -> None:
        self.literals.setdefault(self.find(key), []).append((value, where))

    def type_of(self, key):
        return self.bound.get(self.find(key))


def _literal_type(values, families) -> t.DataType | None:
    """The type untyped literals get where no wire decides it: the first
    candidate (INT before DINT, REAL before LREAL) that every literal fits."""
    for value in values:
        for tp in _candidates(value):
            if all(tp in fam for fam, _ in families):
                try:
                    for other in values:
                        tp.coerce(other)
                except t.TypeError_:
                    continue
                return tp
    return None


def _candidates(value) -> list:
    import datetime
    if isinstance(value, bool):
        cands = [t.BOOL]
    elif isinstance(value, int):
        cands = [tp for tp in (t.INT, t.DINT, t.LINT, t.ULINT) if tp.min <= value <= tp.max]
        cands += [t.REAL, t.LREAL]
    elif isinstance(value, float):
        cands = [t.REAL, t.LREAL]
    elif isinstance(value, datetime.timedelta) or (
            isinstance(value, str) and value.upper().startswith(("T#", "TIME#"))):
        cands = [t.TIME]
    elif isinstance(value, str):
        cands = [t.STRING]
    else:
        cands = []
    return cands


class _WireTypes:
    """The type nodes of ports and the general case of a wire's types, for
    :meth:`_Builder.resolve` (which compares fixed types itself)."""

    def __init__(self, ty: _Types, problems: list):
        self.ty = ty
        self.problems = problems
        for tp in t.ELEMENTARY:
            ty.node(tp, tp)

    def port_node(self, scope: Scope, name: str, port: str, out: bool):
        """The type node of a port of instance ``name`` in ``scope``: the type itself
        where it is concrete or bound."""
        ty = self.ty
        leaf = scope.leaves.get(name)
        if leaf is None:
            return self.net_node(scope.children[name], port, out)
        decl = (leaf.inst._outputs if out else leaf.inst._inputs)[port]
        var = decl.type
        if isinstance(var, str):
            bound = leaf.block.bound_types.get(var)
            if bound is not None:  # checked against its family when the block was made
                return ty.node(bound, bound)
            key = ("tv", leaf.index, var)
            if key not in ty.parent:
                ty.node(key)
                ty.families.setdefault(ty.find(key), []).append(
                    (type(leaf.block).types[var], f"{leaf.path} ({leaf.block.name})"))
            return key
        return ty.node(var, var)

    def net_node(self, scope: Scope, port: str, out: bool):
        if out:
            return self.ty.node(("o", id(scope), port), scope.net.outputs[port].type)
        return self.ty.node(("i", id(scope), port), scope.net.inputs[port][0])

    def source_node(self, scope: Scope, src: Ref):
        if src.kind == "netin":
            return self.net_node(scope, src.port, False)
        return self.port_node(scope, src.owner.name, src.port, True)

    def mismatch(self, scope: Scope, source: str, target: str, types: tuple) -> None:
        a, b = scope.where(source), scope.where(target)
        self.problems.append(f"type mismatch: {a} is {types[0]} but {b} is {types[1]} "
                             f"(wire {a} -> {b}); convert with {types[0]}_TO_{types[1]}")

    def wire(self, scope: Scope, name: str, leaf: Leaf | None, inst, port: str, source) -> None:
        """Join the types of ``source`` and input ``port`` of instance ``name``."""
        ty = self.ty
        target = _fixed(leaf, inst._inputs, port) or self.port_node(scope, name, port, False)
        if isinstance(source, Ref):
            src_leaf = scope.leaves.get(source.owner.name) if source.kind == "out" else None
            node = (_fixed(src_leaf, src_leaf.inst._outputs, source.port)
                    if src_leaf is not None else None) or self.source_node(scope, source)
            if node is not target:
                conflict = ty.union(node, target)
                if conflict:
                    self.mismatch(scope, source.path, f"{name}.{port}", conflict)
        else:
            ty.literal(target, source, scope.where(f"{name}.{port}"))

    def net_output(self, scope: Scope, out) -> None:
        target = self.net_node(scope, out.name, True)
        if isinstance(out.source, Ref):
            conflict = self.ty.union(self.source_node(scope, out.source), target)
            if conflict:
                self.mismatch(scope, out.source.path, out.name, conflict)
        else:
            self.ty.literal(target, out.source, scope.where(out.name))


def _fixed(leaf: Leaf | None, decls: dict, port: str):
    """The port's type if it is concrete or bound, else None (see port_node)."""
    if leaf is None:
        return None
    var = decls[port].type
    return var if isinstance(var, t.DataType) else leaf.block.bound_types.get(var)


def _infer_types(b: _Builder) -> None:
    ty = b.types
    problems = b.problems

    # Bind what wires left open from literals, then check families.
    for key in list(ty.parent):
        root = ty.find(key)
        if root != key:
            continue
        fams = ty.families.get(root, [])
        if root not in ty.bound:
            lits = [v for v, _where in ty.literals.get(root, [])]
            guess = _literal_type(lits, fams) if lits else None
            if guess is not None:
                ty.bound[root] = guess
        if root in ty.bound:
            tp = ty.bound[root]
            for fam, where in fams:
                if tp not in fam:
                    problems.append(f"{where}: needs {fam}, but is wired to {tp}")
    unresolved: set = set()
    slot_init, fresh, with_literals = b.slot_init, b.fresh, b.with_literals
    views: dict = {}  # id(block) -> its bound types, one read-only view for all its leaves
    for leaf in b.leaves:
        block = leaf.block
        bound = block.bound_types
        inferred = len(bound) < len(block.types)
        if not inferred:  # built with every type it needs, or generic in none
            if bound:
                view = views.get(id(block))
                if view is None:
                    view = views[id(block)] = MappingProxyType(bound)
                leaf.types = view
        else:
            leaf.types = types = dict(bound)
            for var in block.types:
                key = ("tv", leaf.index, var)
                if var in bound or key not in ty.parent:
                    continue
                tp = ty.type_of(key)
                if tp is None:
                    unresolved.add(leaf.index)
                    if leaf.index in b.broken:
                        continue
                    problems.append(f"{leaf.path}: cannot infer type {var} of "
                                    f"{block.name}; give it, e.g. "
                                    f"{type_hint(type(block), var)}")
                else:
                    types[var] = tp
        if leaf.index in unresolved:
            continue
        if leaf.index in with_literals:
            inputs = leaf.inputs
            for port, src in inputs.items():
                if src.slot is None:
                    tp = leaf.port_type(port)
                    try:
                        inputs[port] = Src(None, tp.coerce(src.const, f"{leaf.path}.{port}"))
                    except t.TypeError_ as e:
                        problems.append(str(e))
        # Initial values, now that the types are known: an output without a
        # declared default starts at its type's (flattening gave it where the
        # block's own types tell), state at what it declares.
        if inferred:
            for decl, slot in zip(leaf.inst._outputs.values(), leaf.outputs.values()):
                if slot_init[slot] is None:
                    tp = decl.type
                    slot_init[slot] = (tp if tp.__class__ is t.DataType
                                       else leaf.types[tp]).default
        if leaf.state:
            for sv in block.state_vars():
                slot = leaf.state[sv.name]
                if callable(sv.init):  # a fresh value for every table (a LIFO's list)
                    fresh.append((slot, sv.init, leaf))
                elif sv.init is not None:
                    slot_init[slot] = sv.init
                else:
                    tp = leaf.types.get(sv.type) if isinstance(sv.type, str) else sv.type
                    slot_init[slot] = tp.default if tp is not None else None
    # Network-output and macro-port literals are checked against their declared type,
    # and located outputs whose type only inference knew against their location.
    for scope in b.scopes:
        for name, address in scope.net.addresses.items():
            if name in scope.net.outputs:
                tp = ty.type_of(("o", id(scope), name))
                if tp is not None:
                    try:
                        located.check(address, tp, "output", scope.where(name))
                    except FbdError as e:
                        problems.append(str(e))
        for out in scope.net.outputs.values():
            if not isinstance(out.source, Ref):
                tp = ty.type_of(("o", id(scope), out.name))
                if tp is not None:
                    try:
                        tp.coerce(out.source, scope.where(out.name))
                    except t.TypeError_ as e:
                        problems.append(str(e))
        for name, inst in scope.net.instances.items():
            if inst.is_macro:
                child = scope.children[name]
                for port, (tp, _d) in child.net.inputs.items():
                    for bind in inst.bindings.get(port, [])[:1]:
                        if not isinstance(bind.source, Ref):
                            try:
                                tp.coerce(bind.source, scope.where(f"{name}.{port}"))
                            except t.TypeError_ as e:
                                problems.append(str(e))


# ------------------------------------------------------------------------ order
def _order(b: _Builder) -> list[int]:
    n = len(b.leaves)
    succ, indeg = b.succ, list(b.indeg)
    ready = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(ready, j)
    if len(order) < n:
        left = {i for i in range(n) if indeg[i] > 0}
        for comp in loops(left, lambda v: [w for w in succ[v] if w in left]):
            names = " -> ".join(b.leaves[i].path for i in comp)
            b.problem(f"loop without a feedback mark through {len(comp)} block"
                      f"{'s' if len(comp) > 1 else ''}: {names} -> {b.leaves[comp[0]].path}; "
                      f"mark one of its wires with feedback=True")
    return order


# ---------------------------------------------------------------------- program
class ScanProgram:
    """A compiled network: the signal table's layout and the code of one scan.

    Holds no run-time values either: :meth:`new_table` makes the table a
    :class:`~fbd.runtime.Plc` owns. ``dump`` (or ``FBD_DUMP=path``) writes the
    generated source for reading.
    """

    def __init__(self, b: _Builder, order: list[int], dump: str | None = None):
        self.network = b.net
        self.name = b.net.name
        self.leaves = b.leaves
        self.order = order
        self.position = {leaf_index: pos for pos, leaf_index in enumerate(order)}
        self._slot_init = b.slot_init
        self._fresh = b.fresh  # (slot, make, leaf): state made anew for every table
        self._b = b
        self.inputs: dict[str, int] = dict(b.inputs)
        self.input_types = {n: tp for n, (tp, _d) in b.net.inputs.items()}
        self.writer: dict[int, int] = b.writer
        self._snapshots: dict[int, int] = {}  # source slot -> its previous-scan copy
        # What each block reads; most read plain wires only, their slots in port order.
        special, slot_of = b.with_literals | b.with_feedback, itemgetter(0)
        self._reads: list[tuple] = [
            self._input_reads(leaf) if leaf.index in special
            else (tuple(map(slot_of, leaf.inputs.values())), ()) for leaf in b.leaves]
        # Top-level outputs get their own slots: the output image, published at scan end.
        self.outputs: dict[str, int] = {}
        self._publish: list[tuple[int, Src]] = []
        for name, out in b.net.outputs.items():
            src = b.source(b.top, out.source, out.feedback)
            tp = b.types.type_of(("o", id(b.top), name))
            if src.slot is None:
                slot = self._new_slot(tp.coerce(src.const, name))
            else:
                init = self._slot_init[src.slot]
                slot = self._new_slot(tp.default if init is None else init)
                self._publish.append((slot, src))
            self.outputs[name] = slot
        self.output_types = {n: b.types.type_of(("o", id(b.top), n)) for n in b.net.outputs}
        self._signals: dict[str, SignalInfo] | None = None
        self._templates: dict = {}
        self._block_templates: dict = {}  # (id(block), consts) -> template, see _template
        self.forced: set[int] = set()
        self._chunk_src: list[str] = []
        self._chunks: list = []
        self._leaf_fns: dict = {}  # leaf index -> its function (leaf_function), until a force
        self.dump_path = dump if dump is not None else os.environ.get("FBD_DUMP")
        self._generate()

    # -- slots -----------------------------------------------------------------
    def _new_slot(self, init) -> int:
        self._slot_init.append(init)
        return len(self._slot_init) - 1

    @property
    def n_slots(self) -> int:
        return len(self._slot_init)

    def new_table(self) -> list:
        """A fresh signal table holding every initial value (a cold start)."""
        table = list(self._slot_init)
        for slot, make, leaf in self._fresh:
            table[slot] = make(leaf.block, leaf.types)
        for src_slot, prev in self._snapshots.items():
            table[prev] = table[src_slot]
        return table

    # -- paths -----------------------------------------------------------------
    @property
    def signals(self) -> dict[str, SignalInfo]:
        """Every path of the program and its place in the table, built on first use."""
        if self._signals is None:
            self._signals = {}
            self._build_paths()
        return self._signals

    def _build_paths(self) -> None:
        b = self._b
        sig = self._signals
        for name, slot in self.inputs.items():
            sig[name] = SignalInfo(name, self.input_types[name], "input", slot)
        for name, slot in self.outputs.items():
            sig[name] = SignalInfo(name, self.output_types[name], "output", slot)
        for leaf in self.leaves:
            for port, slot in leaf.outputs.items():
                sig[f"{leaf.path}.{port}"] = SignalInfo(f"{leaf.path}.{port}",
                                                        leaf.port_type(port), "out", slot,
                                                        leaf=leaf.index)
            for sv in leaf.block.state_vars():
                tp = leaf.types.get(sv.type) if isinstance(sv.type, str) else sv.type
                sig[f"{leaf.path}.{sv.name}"] = SignalInfo(f"{leaf.path}.{sv.name}", tp,
                                                           "state", leaf.state[sv.name],
                                                           leaf=leaf.index)
            for port, src in leaf.inputs.items():
                sig[f"{leaf.path}.{port}"] = self._alias(f"{leaf.path}.{port}",
                                                         leaf.port_type(port), "in", src)
        for scope in b.scopes[1:]:
            for port in scope.net.inputs:
                tp = scope.net.inputs[port][0]
                try:
                    src = b.source(scope, Ref(scope.net, port, "netin"), False)
                except _Unresolved:
                    continue
                sig[scope.where(port)] = self._alias(scope.where(port), tp, "port", src)
            for port, out in scope.net.outputs.items():
                tp = b.types.type_of(("o", id(scope), port))
                src = b.source(scope, out.source, out.feedback)
                sig[scope.where(port)] = self._alias(scope.where(port), tp, "port", src)

    def _alias(self, path, tp, kind, src: Src) -> SignalInfo:
        if src.slot is None:
            return SignalInfo(path, tp, kind, None, src.const)
        return SignalInfo(path, tp, kind, src.slot, leaf=self.writer.get(src.slot))

    def signal(self, path: str) -> SignalInfo:
        try:
            return self.signals[path]
        except KeyError:
            raise UnknownSignal(path, self.signals) from None

    # -- code ------------------------------------------------------------------
    def _input_reads(self, leaf: Leaf) -> tuple:
        """What the block's inputs read: the slots of the wired ones in port order,
        and ``(port, Python source)`` for each literal one."""
        ins = []
        consts = []
        for port, src in leaf.inputs.items():
            slot = src.slot
            if slot is None:
                consts.append((port, literal(src.const)))
                continue
            if src.feedback and src.leaf >= 0 and (
                    src.leaf != leaf.index and self.position[src.leaf] < self.position[leaf.index]):
                # The source has already run this scan: read the copy taken at scan start.
                if slot not in self._snapshots:
                    self._snapshots[slot] = self._new_slot(None)
                slot = self._snapshots[slot]
            ins.append(slot)
        return tuple(ins), tuple(consts)

    def leaf_code(self, index: int) -> list[str]:
        """The statements of one block over the signal table, as a debugger
        stepping into a scan runs them (the scan itself runs the same text
        over local variables, see :meth:`_chunk_source`)."""
        return self._leaf_lines(index, _table_name)[0]

    def _leaf_lines(self, index: int, name) -> tuple[list[str], bool]:
        """The block's statements with ``name(slot)`` for every slot it touches,
        and whether it is *pure*: it assigns every output from its inputs alone,
        so its outputs need no value from before the block runs."""
        leaf = self.leaves[index]
        ins, consts = self._reads[index]
        values = [name(slot) for slot in ins]   # what each placeholder stands for, in order
        pre = []
        written = set()
        for names in (leaf.outputs, leaf.state):
            for slot in names.values():
                values.append(name(self._place(slot)))
                written.add(slot)
        tpl = self._template(leaf, consts)
        for port, src in leaf.inputs.items():
            if src.slot in written:  # wired to itself: read last scan's value first
                tmp = f"_i{index}_{port}"
                pre.append(f"{tmp} = {values[tpl.tokens[port]]}")
                values[tpl.tokens[port]] = tmp
        return pre + tpl.fmt.format(*values).split("\n"), tpl.pure

    def _template(self, leaf: Leaf, consts: tuple) -> "_Template":
        """The block's code with placeholders for slots, generated once per
        block configuration and reused for every instance (most of a big
        program's compile time would otherwise go to calling ``code`` again).
        Placeholders are numbered: the wired inputs in port order, then the
        outputs, then the state variables, so the literal inputs (``consts``)
        and the configuration decide the rest."""
        block = leaf.block
        # Where the block's own types are all its leaf's (a read-only view, see
        # _infer_types), the block object and the literals decide the template:
        # many leaves share one block (a macro placed many times), and this key
        # costs a fraction of the full one.
        by_block = None
        if leaf.types.__class__ is MappingProxyType:
            by_block = (id(block), consts)
            cached = self._block_templates.get(by_block)
            if cached is not None:
                return cached
        try:
            key = (type(block), block.n, tuple(block.p.items()), tuple(leaf.types.items()),
                   consts)
            cached = self._templates.get(key)
        except TypeError:  # an unhashable parameter: no caching for this block
            key = cached = by_block = None
        if cached is not None:
            if by_block is not None:
                self._block_templates[by_block] = cached
            return cached
        literal_ports = {port for port, _src in consts}
        tokens = {}
        for port in leaf.inputs:
            if port not in literal_ports:
                tokens[port] = len(tokens)
        for var in (*leaf.outputs, *leaf.state):
            tokens[var] = len(tokens)
        names = {name: f"\x00{k}\x00" for name, k in tokens.items()}
        names.update(consts)
        counter = iter(range(1 << 30))
        io = IO(names, leaf.types, block.p, block.n, lambda: f"_t{next(counter)}",
                _groups(block))
        code = block.code(io)
        if isinstance(code, str):
            code = code.split("\n")
        template = []
        for line in code:
            if not line.strip():
                continue
            parts = line.split("\x00")
            template.append([(part.replace("{", "{{").replace("}", "}}"), -1) if i % 2 == 0
                             else ("", int(part))
                             for i, part in enumerate(parts) if part or i % 2])
        pure = _is_pure(template, leaf, tokens)
        # The whole block as one format string: one C-level call per instance.
        fmt = "\n".join("".join(text if k < 0 else f"{{{k}}}" for text, k in line)
                        for line in template)
        result = _Template(fmt, pure, "    " + fmt.replace("\n", "\n    "), tokens,
                           len(tokens) - len(leaf.outputs) - len(leaf.state), f": {block.name}")
        if key is not None:
            self._templates[key] = result
            if by_block is not None:
                self._block_templates[by_block] = result
        return result

    def _place(self, slot: int) -> int:
        """Where a block writes ``slot``: a scratch slot while the slot is forced."""
        if slot in self.forced:
            if slot not in self._scratch:
                self._scratch[slot] = self._new_slot(None)
            return self._scratch[slot]
        return slot

    def _chunk_source(self, c: int) -> str:
        """One chunk of the scan as a function over local variables.

        Values come in from the table where the chunk reads them before it
        writes them, loaded just before the first block that needs them; a
        value read once and never written here is read from the table in place
        (``s[12]``). Locals make the code about a quarter of the size of table
        indexing, which is what a big program's scan time is made of
        (instruction and data caches). What the blocks assign goes to the table
        once ``STORE_EVERY`` values are waiting, one slice assignment per run of
        consecutive slots (``s[40:56] = v3, v7, ...,``): a slot number is a
        constant, an int object the store must read, and a store per value
        cost a quarter more instructions and half again the cache misses.

        Locals are names ``v0, v1, ...`` handed out like registers: a value's
        name is free again once it is stored and no later block reads it.
        CPython numbers a function's locals in order, and every access to one
        numbered 256 or more costs an extra instruction (EXTENDED_ARG, about
        2 ns); a chunk of 1,024 blocks has more than a thousand values but
        under two hundred alive at once.
        """
        leaves, reads, forced, place = self.leaves, self._reads, self.forced, self._place
        with_feedback = self._b.with_feedback  # the only leaves that can read their own output
        blocks = []
        first: dict[int, int] = {}      # slot -> the block where its name is first needed
        last: dict[int, int] = {}       # slot -> the last block that needs it
        defined: set[int] = set()       # slots written in this chunk so far
        load: set[int] = set()          # slots whose value comes from the table
        named: set[int] = set()         # ... and need a name: read twice, or kept by their block
        for pos, index in enumerate(self.order[c * CHUNK:(c + 1) * CHUNK]):
            leaf = leaves[index]
            ins, consts = reads[index]
            slots = ([*leaf.outputs.values()] if leaf.state is _NOTHING
                     else [*leaf.outputs.values(), *leaf.state.values()])
            places = [place(slot) for slot in slots] if forced else slots
            tpl = self._template(leaf, consts)
            for slot in ins:
                if slot not in defined:
                    if slot in load:
                        named.add(slot)
                    else:
                        load.add(slot)
                if slot not in first:
                    first[slot] = pos
                last[slot] = pos
            for slot in places:
                if slot not in first:
                    first[slot] = pos
                last[slot] = pos
            if not tpl.pure:  # it may keep (not assign) a value, or read last scan's
                load.update(places)
                named.update(places)
            defined.update(places)
            blocks.append((index, leaf, ins, places, tpl,
                           index in with_feedback and not set(slots).isdisjoint(ins)))
        in_place = load - named - defined
        starts: dict[int, list] = {}
        frees: dict[int, list] = {}
        for slot, pos in first.items():
            if slot not in in_place:
                starts.setdefault(pos, []).append(slot)
                frees.setdefault(last[slot], []).append(slot)
        names: dict[int, str] = {slot: f"s[{slot}]" for slot in in_place}
        name = names.__getitem__
        free: list[str] = []
        made = 0
        pending: list[int] = []   # slots assigned since the last store to the table
        dead: list[str] = []      # their names, free once they are stored
        body = [f"def _chunk_{c}(s, now):"]
        for pos, (index, leaf, ins, places, tpl, self_wired) in enumerate(blocks):
            body.append(f"    # {leaf.path}{tpl.label}")
            for slot in starts.get(pos, ()):
                if free:
                    names[slot] = local = free.pop()
                else:
                    names[slot] = local = f"v{made}"
                    made += 1
                if slot in load:
                    body.append(f"    {local} = s[{slot}]")
            if self_wired:  # the general path: it reads its own output's last value first
                body += [f"    {line}" for line in self._leaf_lines(index, name)[0]]
            else:
                body.append(tpl.chunk.format(*map(name, ins), *map(name, places)))
            pending += places
            if pos in frees:
                dead += map(name, frees[pos])
            if len(pending) >= STORE_EVERY or pos == len(blocks) - 1:
                for lo, hi in _runs(sorted(pending)):
                    if hi == lo + 1:
                        body.append(f"    s[{lo}] = {names[lo]}")
                    else:
                        body.append(f"    s[{lo}:{hi}] = {', '.join(map(name, range(lo, hi)))},")
                free += dead
                pending, dead = [], []
        if len(body) == 1:
            body.append("    pass")
        return "\n".join(body) + "\n"

    def _scan_source(self) -> str:
        lines = ["def scan(s, now):"]
        for src_slot, prev in self._snapshots.items():
            lines.append(f"    s[{prev}] = s[{src_slot}]")
        for c in range(len(self._chunk_src)):
            lines.append(f"    _chunk_{c}(s, now)")
        for slot, src in self._publish:
            if slot not in self.forced:
                lines.append(f"    s[{slot}] = s[{src.slot}]")
        lines.append("    return None")
        return "\n".join(lines) + "\n"

    def _generate(self) -> None:
        self._scratch: dict[int, int] = {}
        n_chunks = max(1, -(-len(self.order) // CHUNK))
        built = map_in_two(self._chunk_code, list(range(n_chunks)))
        self._chunk_src = [src for src, _code in built]
        self._namespace = _namespace(self.leaves)
        for _src, code in built:
            exec(code, self._namespace)
        self._link()

    def _chunk_code(self, c: int) -> tuple:
        src = self._chunk_source(c)
        return src, compile(src, f"<fbd {self.name}>", "exec")

    def _link(self) -> None:
        scan_src = self._scan_source()
        exec(compile(scan_src, f"<fbd {self.name} scan>", "exec"), self._namespace)
        self.scan = self._namespace["scan"]
        if self.dump_path:
            with open(self.dump_path, "w") as f:
                f.write(self.source())

    def source(self) -> str:
        """The whole generated program, as executed."""
        header = (f"# generated by fbd for network {self.name}: {len(self.leaves)} blocks, "
                  f"{self.n_slots} slots\n")
        return header + "\n".join(self._chunk_src) + "\n" + self._scan_source()

    def set_forced(self, slots: set[int]) -> list[int]:
        """Make the blocks that write ``slots`` write elsewhere (the runtime holds
        the forced value in the real slot). Recompiles only the chunks concerned.
        Returns scratch slots created, which the table must grow by."""
        before = self.n_slots
        changed = set(slots) ^ self.forced
        self.forced = set(slots)
        self._leaf_fns.clear()
        chunks = {self.position[self.writer[s]] // CHUNK for s in changed if s in self.writer}
        for c in sorted(chunks):
            self._chunk_src[c] = self._chunk_source(c)
            exec(compile(self._chunk_src[c], f"<fbd {self.name}>", "exec"), self._namespace)
        self._link()
        return list(range(before, self.n_slots))

    def leaf_function(self, index: int):
        """One block's code alone, as a function ``f(s, now)`` (stepping into a scan);
        made on first use and kept until the forced set changes."""
        fn = self._leaf_fns.get(index)
        if fn is None:
            src = "def _one(s, now):\n" + "".join(f"    {ln}\n" for ln in self.leaf_code(index))
            ns = _namespace([self.leaves[index]])
            exec(compile(src, f"<fbd {self.leaves[index].path}>", "exec"), ns)
            fn = self._leaf_fns[index] = ns["_one"]
        return fn

    def snapshot(self, s: list) -> None:
        """Take the previous-scan copies of feedback wires (the scan's first step)."""
        for src_slot, prev in self._snapshots.items():
            s[prev] = s[src_slot]

    def publish(self, s: list) -> None:
        """Copy outputs to the output image (the scan's last step)."""
        for slot, src in self._publish:
            if slot not in self.forced:
                s[slot] = s[src.slot]

    # -- description -------------------------------------------------------------
    def info(self) -> dict:
        """Block counts by type, macros, execution order (``fbd info``)."""
        counts: dict[str, int] = {}
        for leaf in self.leaves:
            counts[leaf.block.name] = counts.get(leaf.block.name, 0) + 1
        macros: dict[str, int] = {}
        for scope in self._b.scopes[1:]:
            macros[scope.net.name] = macros.get(scope.net.name, 0) + 1
        return {
            "network": self.name,
            "blocks": len(self.leaves),
            "slots": self.n_slots,
            "inputs": {n: str(tp) for n, tp in self.input_types.items()},
            "outputs": {n: str(tp) for n, tp in self.output_types.items()},
            "block_types": dict(sorted(counts.items())),
            "macros": dict(sorted(macros.items())),
            "order": [self.leaves[i].path for i in self.order],
            "feedback_copies": len(self._snapshots),
        }


def _table_name(slot: int) -> str:
    return f"s[{slot}]"


def _is_pure(template: list, leaf: Leaf, tokens: dict) -> bool:
    """Every output is first assigned from inputs alone, by a statement of the
    block's top level (``<output> = <expression of inputs>``), before any line
    mentions it, and there is no state: the block never reads or keeps an old
    value. Lines after the assignment may change the output (a wrap-around)."""
    if leaf.state:
        return False
    outs = {tokens[p] for p in leaf.outputs}
    assigned = set()
    for line in template:
        (head, target), rest = line[0], line[1:]
        if (not head and target in outs and target not in assigned and rest
                and rest[0][0].startswith(" = ")):
            if any(k in outs and k not in assigned for _part, k in rest):
                return False
            assigned.add(target)
        elif any(k in outs and k not in assigned for _part, k in line):
            return False
    return assigned == outs


def type_hint(cls, var: str) -> str:
    """How to write a block with type variable ``var`` bound, for error messages."""
    example = sorted(cls.types[var].members, key=str)[0]
    if var == next(iter(cls.types)):
        return f"{cls.type_name}({example})"
    return f"{cls.type_name}(types={{{var!r}: {example}}})"


def _groups(block: Block) -> dict:
    return {p.prefix: p for p in type(block).inputs if isinstance(p, Extensible)}


def _namespace(leaves) -> dict:
    """Globals of the generated code: ``math`` and the helpers block types declare."""
    ns: dict = {"math": math}
    seen: set = set()
    for leaf in leaves:
        cls = type(leaf.block)
        if cls in seen:
            continue
        seen.add(cls)
        for name, obj in cls.helpers.items():
            if ns.setdefault(name, obj) is not obj:
                raise ValueError(f"block helper {name!r} of {cls.type_name} clashes with "
                                 f"another block type's helper of the same name")
    return ns


def compile_network(net: Network, dump: str | None = None) -> ScanProgram:
    """Validate ``net`` and compile it; raise ValidationError listing every problem."""
    if not isinstance(net, Network):
        raise TypeError(f"expected a Network, got {type(net).__name__}")
    # A big program is millions of small objects; the cyclic collector would
    # walk all of them again and again while they are made (a full pass is ~1 s
    # at 100k blocks). Nothing here makes garbage cycles, so it rests until the
    # end. What survives goes straight to the oldest generation (freeze, then
    # unfreeze: two list splices, no walk), so the young collections a running
    # PLC triggers do not walk the program again and again. Staying frozen would
    # spare even the full collections but leak: every program and network ever
    # compiled has reference cycles, and a frozen cycle is never freed (2 MB a
    # new 2048 game).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        program = _compile(net, dump)
    finally:
        if was_enabled:
            gc.enable()
    gc.freeze()
    gc.unfreeze()
    return program


def _compile(net: Network, dump: str | None) -> ScanProgram:
    b = _Builder(net)
    b.flatten()
    if not b.problems:
        b.resolve()
        _infer_types(b)
    order = _order(b) if b.leaves else []
    if b.problems:
        raise ValidationError(net.name, b.problems)
    return ScanProgram(b, order, dump)


def _runs(slots: list[int]):
    """Consecutive runs ``(lo, hi)`` of a sorted list of ints."""
    start = prev = None
    for k in slots:
        if start is None:
            start = prev = k
        elif k == prev + 1:
            prev = k
        else:
            yield start, prev + 1
            start = prev = k
    if start is not None:
        yield start, prev + 1
