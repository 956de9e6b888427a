"""Types across wires: union-find over type nodes, literal typing, inference.

The front half (:mod:`.front`) joins the type nodes at both ends of every
wire while it resolves; :func:`infer_types` then binds what the wires left
open from the literals wired there (the first candidate every literal fits:
INT before DINT, REAL before LREAL), checks every generic block's families,
and gives every leaf its types, coerced literals and initial values.
"""

from __future__ import annotations

import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

from .. import address as located
from .. import types as t
from ..errors import FbdError
from ..network import Ref
from .flat import Leaf, Src

if TYPE_CHECKING:
    from .front import Scope


class Types:
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
        if key not in parent:  # a declared type met for the first time is its own node
            return self.node(key, key if isinstance(key, t.DataType) else None)
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
        if ta is not None and tb is not None and ta is not tb and ta.canonical is not tb.canonical:
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


def literal_type(values, families) -> t.DataType | None:
    """The type untyped literals get where no wire decides it: the first
    candidate (INT before DINT, REAL before LREAL) that every literal fits."""
    for value in values:
        for tp in _candidates(value):
            if all(tp in fam for fam, _ in families):
                try:
                    for other in values:
                        tp.coerce(other)
                except t.InvalidValue:
                    continue
                return tp
    return None


def _candidates(value) -> list:
    """The types an untyped literal may take, in order of preference."""
    if isinstance(value, bool):
        return [t.BOOL]
    if isinstance(value, int):
        return [tp for tp in (t.INT, t.DINT, t.LINT, t.ULINT) if tp.min <= value <= tp.max] + \
            [t.REAL, t.LREAL]
    if isinstance(value, float):
        return [t.REAL, t.LREAL]
    if isinstance(value, datetime.timedelta):
        return [t.TIME]
    if isinstance(value, datetime.datetime):
        return [t.DT]
    if isinstance(value, datetime.date):
        return [t.DATE]
    if isinstance(value, datetime.time):
        return [t.TOD]
    if isinstance(value, str):
        prefix = value.split("#", 1)[0].strip().upper() if "#" in value else ""
        return [_PREFIXED.get(prefix, t.STRING)]
    return []


#: the type an untyped literal written as text takes from its prefix
_PREFIXED = {"T": t.TIME, "TIME": t.TIME, "D": t.DATE, "DATE": t.DATE, "TOD": t.TOD,
             "TIME_OF_DAY": t.TOD, "DT": t.DT, "DATE_AND_TIME": t.DT}


class WireTypes:
    """The type nodes of ports and the general case of a wire's types, for
    :meth:`front._Builder.resolve` (which compares fixed types itself)."""

    def __init__(self, ty: Types, problems: list):
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
        decl = (leaf.inst.output_decls if out else leaf.inst.input_decls)[port]
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
        target = _fixed(leaf, inst.input_decls, port) or self.port_node(scope, name, port, False)
        if isinstance(source, Ref):
            src_leaf = scope.leaves.get(source.owner.name) if source.kind == "out" else None
            node = (_fixed(src_leaf, src_leaf.inst.output_decls, source.port)
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


def infer_types(b) -> None:
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
            guess = literal_type(lits, fams) if lits else None
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
                    except t.InvalidValue as e:
                        problems.append(str(e))
        # Initial values, now that the types are known: an output without a
        # declared default starts at its type's (flattening gave it where the
        # block's own types tell), state at what it declares.
        if inferred:
            for decl, slot in zip(leaf.inst.output_decls.values(), leaf.outputs.values()):
                if slot_init[slot] is None:
                    tp = decl.type
                    slot_init[slot] = (tp if tp.__class__ is not str
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
                    except t.InvalidValue as e:
                        problems.append(str(e))
        for name, inst in scope.net.instances.items():
            if inst.is_macro:
                child = scope.children[name]
                for port, (tp, _d) in child.net.inputs.items():
                    for bind in inst.bindings.get(port, [])[:1]:
                        if not isinstance(bind.source, Ref):
                            try:
                                tp.coerce(bind.source, scope.where(f"{name}.{port}"))
                            except t.InvalidValue as e:
                                problems.append(str(e))


def type_hint(cls, var: str) -> str:
    """How to write a block with type variable ``var`` bound, for error messages."""
    example = sorted(cls.types[var].members, key=str)[0]
    if var == next(iter(cls.types)):
        return f"{cls.type_name}({example})"
    return f"{cls.type_name}(types={{{var!r}: {example}}})"
