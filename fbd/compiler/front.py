"""The compiler's front half: from a Network to a :class:`~.flat.FlatProgram`.

:func:`flatten` runs the steps in turn, each over the whole program:

1. *flatten* (:meth:`_Builder.flatten`): walk the macro hierarchy; every leaf
   block gets a full path (``cell_0_0.memory``) and slots for its outputs and
   state; an input kept in a block (``Network.store``) is that block's slot
   (in a macro, when the input is left open);
2. *resolve* (:meth:`_Builder.resolve`): follow every input through macro
   ports to the leaf output, network input or literal that drives it (an
   unwired one of ``Block.kept_inputs`` reads the block's own state), unify
   the types at both ends of every wire (generic blocks take the type of what
   they are wired to) and note the forward wires the order follows. One pass:
   at 100k blocks each pass over the wires costs a tenth of a second;
3. *infer* (:func:`.infer.infer_types`): bind what the wires left open (from
   literals), check families, give every block its types and initial values;
4. *order* (:func:`.order.execution_order`): a deterministic topological order
   of the forward wires, ties broken by the order blocks were added; loops
   without a feedback mark are reported with the blocks in them;
5. the scan's fixed slots: the output image and the copies feedback wires read.

Every rule broken anywhere is collected and raised together in one
:class:`~fbd.errors.ValidationError`, each naming its full path.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any

from .. import types as t
from ..block import REQUIRED
from ..errors import ValidationError
from ..network import Network, Ref
from .flat import FlatProgram, Leaf, MacroPort, Src
from .infer import Types, WireTypes, infer_types
from .order import execution_order

#: programs with at least this many block instances compile with the cyclic
#: garbage collector paused (see :func:`quiet_gc`)
QUIET_GC_OVER = 5_000
#: the deepest nesting of macros a program may have (flattening and the resolution
#: of macro ports recurse once a level)
MAX_MACRO_DEPTH = 100


@dataclass
class Scope:
    net: Network
    prefix: str           # "" at the top, "cell_0_0." inside a macro instance
    parent: "Scope | None"
    inst: Any             # the macro Instance in the parent scope
    children: dict = field(default_factory=dict)  # instance name -> Scope
    leaves: dict = field(default_factory=dict)    # instance name -> Leaf
    kept: dict = field(default_factory=dict)      # input name -> the slot it is kept in

    def where(self, name: str) -> str:
        return f"{self.prefix}{name}"


_new_src = partial(tuple.__new__, Src)  # Src((slot, const, feedback, leaf)), at half the cost


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


def _held(block) -> int:
    """How many elementary values a block's outputs and state hold (a generic port
    counts one: its type is known after inference)."""
    ports = [p.type for p in block.output_ports()] + [sv.type for sv in block.state_vars()]
    return sum(tp.elements if isinstance(tp, t.DataType) else 1 for tp in ports)


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
        self.types = Types()
        self.succ: list[list[int]] = []    # leaf -> the leaves that read it in the same scan
        self.indeg: list[int] = []         # leaf -> how many forward wires it reads
        self._memo: dict = {}
        self._busy: set = set()
        self._shapes: dict = {}  # (block type, n) -> outputs (name, initial), state names, values held
        self.elements = 0        # the elementary values the blocks hold so far (fbd.types.DATA_MAX)

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
        self._store_inputs()
        self.succ = [[] for _ in self.leaves]
        self.indeg = [0] * len(self.leaves)

    def _walk(self, scope: Scope, stack: set) -> None:
        if id(scope.net) in stack:
            self.problem(f"{scope.prefix.rstrip('.')}: macro {scope.net.name} contains itself")
            return
        if len(stack) >= MAX_MACRO_DEPTH:
            self.problem(f"{scope.prefix.rstrip('.')}: macros nested more than "
                         f"{MAX_MACRO_DEPTH} deep (the path has {len(stack)} levels)")
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
                    tuple(sv.name for sv in element.state_vars()), _held(element))
            outputs, state_names, held = shape
            self.elements += held
            if self.elements > t.DATA_MAX:     # before any of its values is copied
                self.problem(f"{prefix}{name}: the blocks hold {self.elements:,} elementary "
                             f"values in all (arrays and structures counted whole), more than "
                             f"the {t.DATA_MAX:,} a program may hold")
                self.elements = -(1 << 62)     # said once
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

    def _store_inputs(self) -> None:
        """An input kept in a block's output or state (Network.store) is that slot:
        at the top the PLC latches into it, the block writes it, every reader reads
        it; in a macro, an open input reads what the block last wrote."""
        self.stored: dict[int, tuple] = {}   # slot -> (scope, input name, the leaf writing it)
        for scope in self.scopes:
            for name, (inst, var) in scope.net.stores.items():
                leaf = scope.leaves[inst]
                slot = leaf.outputs[var] if var in leaf.outputs else leaf.state[var]
                self.stored[slot] = (scope, name, leaf)
                scope.kept[name] = slot
                if scope is self.top:
                    self.inputs[name] = slot
                port = leaf.inst.output_decls.get(var)
                if port is not None and isinstance(port.type, str):  # generic: the input's type
                    self.types.union(("tv", leaf.index, port.type), scope.net.inputs[name][0])

    def start_stored_inputs(self) -> None:
        """After inference: a stored input's slot starts at the input's initial value,
        and the block writing it reads it as a wire to itself."""
        for slot, (scope, name, leaf) in self.stored.items():
            tp, default = scope.net.inputs[name]
            self.slot_init[slot] = tp.copy(tp.default if default is REQUIRED else default)
            if any(src.slot == slot for src in leaf.inputs.values()):
                self.with_feedback.add(leaf.index)

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
            if not bindings and src.port in scope.kept:   # open: what its block last wrote
                slot = scope.kept[src.port]
                return Src(slot, None, True, self.writer[slot])
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
        wires = WireTypes(self.types, self.problems)
        succ, indeg, problem, new_src = self.succ, self.indeg, self.problem, _new_src
        for scope in self.scopes:
            leaves = scope.leaves
            for name, inst in scope.net.instances.items():
                leaf = leaves.get(name)  # None for a macro
                all_bindings = inst.bindings
                if leaf is None:
                    for pname in inst.input_decls:
                        bindings = all_bindings.get(pname)
                        if bindings is not None:
                            if len(bindings) > 1:
                                problem(_driven_twice(scope, name, pname, bindings))
                            wires.wire(scope, name, None, inst, pname, bindings[0].source)
                    continue
                inputs, index, bound = leaf.inputs, leaf.index, leaf.block.bound_types
                for pname, port in inst.input_decls.items():
                    bindings = all_bindings.get(pname)
                    if bindings is None:
                        kept = leaf.block.kept_inputs.get(pname)
                        if kept is not None:    # the instance's own value (Block.kept_inputs)
                            inputs[pname] = new_src((leaf.state[kept], None, False, index))
                            self.with_feedback.add(index)
                        elif port.default is REQUIRED:
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
                            if target.__class__ is str:
                                target = bound.get(target)
                            source = driver.inst.output_decls[src.port].type
                            if source.__class__ is str:
                                source = driver.block.bound_types.get(source)
                            if target is None or source is None:
                                wires.wire(scope, name, leaf, inst, pname, src)
                            elif target is not source and target.canonical is not source.canonical:
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
                    for pname in inst.output_decls:
                        wires.port_node(scope, name, pname, True)
            for out in scope.net.outputs.values():
                try:
                    self.source(scope, out.source, out.feedback)
                except _Unresolved as e:
                    problem(str(e))
                wires.net_output(scope, out)

    # ---------------------------------------------------------------- the form
    def program(self, order: list[int]) -> FlatProgram:
        """The flat program, once every step has run without a problem: adds the
        output image and the copies that feedback wires read (see :mod:`.flat`)."""
        net, types = self.net, self.types
        slot = self.slot
        position = {leaf: pos for pos, leaf in enumerate(order)}
        snapshots: dict[int, int] = {}
        for index in sorted(self.with_feedback):
            for src in self.leaves[index].inputs.values():
                if (src.feedback and src.leaf >= 0 and src.leaf != index
                        and position[src.leaf] < position[index] and src.slot not in snapshots):
                    snapshots[src.slot] = slot(None)  # new_table copies the source's value
        outputs: dict[str, int] = {}
        output_types: dict[str, t.DataType] = {}
        publish: list[tuple[int, int]] = []
        for name, out in net.outputs.items():
            src = self.source(self.top, out.source, out.feedback)
            tp = output_types[name] = types.type_of(("o", id(self.top), name))
            if src.slot is None:
                outputs[name] = slot(tp.coerce(src.const, name))
            else:
                init = self.slot_init[src.slot]
                outputs[name] = slot(tp.default if init is None else init)
                publish.append((outputs[name], src.slot))
        return FlatProgram(
            name=net.name, network=net, leaves=tuple(self.leaves), order=tuple(order),
            slot_init=tuple(self.slot_init), fresh=tuple(self.fresh),
            inputs=MappingProxyType(dict(self.inputs)),
            input_types=MappingProxyType({n: tp for n, (tp, _d) in net.inputs.items()}),
            outputs=MappingProxyType(outputs), output_types=MappingProxyType(output_types),
            publish=tuple(publish), snapshots=MappingProxyType(snapshots),
            writer=MappingProxyType(self.writer), macro_ports=tuple(self._macro_ports()),
            macros=tuple((scope.prefix, scope.net) for scope in self.scopes[1:]),
            with_literals=frozenset(self.with_literals),
            with_feedback=frozenset(self.with_feedback),
            mutable_slots=tuple(k for k, init in enumerate(self.slot_init) if init.__class__ is list))

    def _macro_ports(self):
        """Every placed macro's inputs and outputs, as aliases of what drives them."""
        for scope in self.scopes[1:]:
            for port, (tp, _default) in scope.net.inputs.items():
                try:
                    src = self.source(scope, Ref(scope.net, port, "netin"), False)
                except _Unresolved:  # an open input with no default: reported already
                    continue
                yield MacroPort(scope.where(port), tp, src)
            for port, out in scope.net.outputs.items():
                tp = self.types.type_of(("o", id(scope), port))
                yield MacroPort(scope.where(port), tp, self.source(scope, out.source, out.feedback))


def _driven_twice(scope: Scope, name: str, port: str, bindings: list) -> str:
    drivers = " and ".join(_describe(scope, b.source) for b in bindings)
    return f"{scope.where(f'{name}.{port}')}: input driven twice (by {drivers})"


def _describe(scope: Scope, src) -> str:
    return scope.where(src.path) if isinstance(src, Ref) else repr(src)


@contextmanager
def quiet_gc(size: int):
    """Keep the cyclic garbage collector off a big program while it is built.

    A program of ``size`` >= :data:`QUIET_GC_OVER` blocks is millions of small
    objects; the collector would walk them again and again while they are made
    (a full pass is ~1 s at 100k blocks). Nothing here makes garbage cycles, so
    it rests until the end and is switched back on exactly as it was. What
    survives then goes straight to the oldest generation (``freeze`` then
    ``unfreeze``: two list splices, no walk), so the young collections of the
    first scans do not walk the new program two more times (at 10k blocks that
    was 3 % of the compile's instructions). The host's own young objects take
    the same step; the next full collection frees them as before. Nothing
    stays frozen (a frozen cycle is never freed), and small programs leave the
    collector alone entirely.
    """
    if size < QUIET_GC_OVER:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.freeze()
        gc.unfreeze()


def count_instances(net: Network) -> int:
    """Block instances in ``net`` with its macros expanded, each distinct macro
    network walked once however often it is placed."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Network, list | None]] = [(net, None)]
    busy: set[int] = set()
    while stack:
        current, macros = stack.pop()
        key = id(current)
        if macros is None:
            if key in sizes:
                continue
            if key in busy:  # a macro that contains itself: flattening reports it
                sizes[key] = 0
                continue
            busy.add(key)
            macros = [i.element for i in current.instances.values()
                      if isinstance(i.element, Network)]
            stack.append((current, macros))
            stack.extend((m, None) for m in macros if id(m) not in sizes)
            continue
        busy.discard(key)
        sizes[key] = (len(current.instances) - len(macros)
                      + sum(sizes.get(id(m), 0) for m in macros))
    return sizes[id(net)]


def flatten(net: Network) -> FlatProgram:
    """Validate ``net`` and turn it into its :class:`~.flat.FlatProgram`; raise
    :class:`~fbd.errors.ValidationError` listing every problem."""
    if not isinstance(net, Network):
        raise TypeError(f"expected a Network, got {type(net).__name__}")
    with quiet_gc(count_instances(net)):
        return _flatten(net)


def _flatten(net: Network) -> FlatProgram:
    b = _Builder(net)
    b.flatten()
    if not b.problems:
        b.resolve()
        infer_types(b)
        b.start_stored_inputs()
    order = execution_order(b) if b.leaves else []
    if b.problems:
        raise ValidationError(net.name, b.problems)
    return b.program(order)
