"""The value graph a block's code becomes before it is vectorised.

:mod:`.lift` reads a block's statements (``fbd.block.code_lines``) and builds,
for each output and state variable, a :class:`Node`: an expression over the
block's inputs, the old values of its outputs and state, the clock and
constants, with every ``if`` turned into a ``select`` (if-conversion). The
graph is hash-consed (:meth:`Graph.node` gives the same object for the same
operation on the same operands), so structural equality is identity, which
is what lets :mod:`.lower` see that both arms of a wrap-around agree.

Every node knows its *kind* (``bool``, ``int``, ``float``, ``str``) and, for
an integer, the interval of its exact value as Python computes it (``lo``,
``hi``; None where it is unbounded). Integers here are mathematical, as in
the scalar engine: where the vector form keeps them in 64 or fewer bits is
decided later, from these intervals and from what each value is used for.

A node is *scalar* when it is the same in every instance (it depends only on
constants and the shared clock ``now``); the vector code computes it once, in
Python, with Python's own semantics.
"""

from __future__ import annotations

import math
import operator

from ..real32 import int_to_real32, round_real32


class Untranslatable(Exception):
    """A block's code uses something the vector form cannot express; the block
    then runs instance by instance (see :mod:`.fallback`)."""


#: The clock's range in the batch engine, ns (a TIME): ±2**61 (about 73 years
#: from 1970), so that the difference of two clock readings fits in 64 bits.
NOW_MIN, NOW_MAX = -(1 << 61), 1 << 61

#: Operations whose result, modulo 2**b, depends only on their operands modulo
#: 2**b (two's complement): a wrap-around at the end makes their overflow harmless.
RING = frozenset({"add", "sub", "mul", "neg", "pos", "invert", "and", "or", "xor"})

_FOLD = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "lshift": operator.lshift, "rshift": operator.rshift, "xor": operator.xor,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge, "neg": operator.neg, "pos": operator.pos,
    "invert": operator.invert, "not": operator.not_, "abs": abs, "float": float, "trunc": math.trunc,
    "floor": math.floor, "ceil": math.ceil, "isfinite": math.isfinite, "isnan": math.isnan,
    "isinf": math.isinf, "copysign": math.copysign, "fabs": math.fabs, "sqrt": math.sqrt,
    "single": lambda x: int_to_real32(x) if isinstance(x, int) else round_real32(x),
}
COMPARE = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
#: Operations whose first argument is the guard: the lanes where the scalar
#: code would compute them (elsewhere Python could raise).
GUARDED = frozenset({"trunc", "floor", "ceil", "call"})


class Node:
    """One value of a block's code (see the module docstring)."""
    __slots__ = ("op", "args", "aux", "kind", "lo", "hi", "scalar")

    def __init__(self, op: str, args: tuple, aux, kind: str, lo=None, hi=None,
                 scalar: bool = False):
        self.op, self.args, self.aux, self.kind = op, args, aux, kind
        self.lo, self.hi, self.scalar = lo, hi, scalar

    @property
    def is_const(self) -> bool:
        return self.op == "const"

    @property
    def value(self):
        return self.aux

    def bounded(self) -> bool:
        return self.lo is not None and self.hi is not None

    def __repr__(self) -> str:
        if self.op == "const":
            return repr(self.aux)
        if self.op == "var":
            return f"{self.aux[0]}:{self.aux[1]}"
        if self.op == "now":
            return "now"
        inner = ", ".join(map(repr, self.args))
        return f"{self.op}({inner})"


def _const_key(value) -> tuple:
    # 0, 0.0, -0.0, False and nan are all different constants
    return ("const", type(value).__name__, repr(value))


def _kind_of(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    raise Untranslatable(f"constant {value!r}")


def hull(*intervals):
    """The smallest interval containing all of ``intervals`` ((lo, hi) pairs)."""
    los = [lo for lo, _hi in intervals]
    his = [hi for _lo, hi in intervals]
    return (None if None in los else min(los)), (None if None in his else max(his))


def _corners(f, a: Node, b: Node):
    if not (a.bounded() and b.bounded()):
        return None, None
    vals = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return min(vals), max(vals)


def _bitlen(n: Node):
    if not n.bounded():
        return None
    return max(abs(n.lo).bit_length(), abs(n.hi).bit_length()) + 1


class Graph:
    """Builds hash-consed nodes, folding constants and tracking intervals."""

    def __init__(self):
        self._nodes: dict = {}

    # -- leaves ------------------------------------------------------------------
    def const(self, value) -> Node:
        key = _const_key(value)
        node = self._nodes.get(key)
        if node is None:
            kind = _kind_of(value)
            lo = hi = value if kind == "int" else None
            node = self._nodes[key] = Node("const", (), value, kind, lo, hi, scalar=True)
        return node

    def var(self, role: str, name: str, kind: str, lo=None, hi=None) -> Node:
        key = ("var", role, name)
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = Node("var", (), (role, name), kind, lo, hi)
        return node

    def now(self) -> Node:
        node = self._nodes.get(("now",))
        if node is None:
            node = self._nodes[("now",)] = Node("now", (), None, "int", NOW_MIN, NOW_MAX,
                                                scalar=True)
        return node

    # -- operations ----------------------------------------------------------------
    def node(self, op: str, *args: Node, aux=None) -> Node:
        key = (op, tuple(map(id, args)), aux)
        node = self._nodes.get(key)
        if node is not None:
            return node
        if op in ("and", "or", "xor", "not") and all(a.kind == "bool" for a in args):
            simpler = self._boolean(op, args)
            if simpler is not None:
                return simpler
        operands = args[1:] if op in GUARDED else args
        if op in _FOLD and all(a.op == "const" for a in operands):
            if op in GUARDED and args[0].op == "const" and not args[0].value:
                return self.const(0)  # never computed: any value
            if op not in GUARDED or args[0].op == "const":
                try:
                    value = _FOLD[op](*[a.value for a in operands])
                except (ArithmeticError, ValueError) as err:
                    raise Untranslatable(f"{op} of constants raises {err}") from None
                return self.const(value)
        node = self._make(op, args, aux)
        # the key names the operands by id: the node keeps them alive
        self._nodes[key] = node
        return node

    def _boolean(self, op: str, args: tuple):
        """The identities of BOOL algebra that if-conversion leaves behind
        (``x AND TRUE``, ``x OR NOT x``, ``NOT NOT x``)."""
        if op == "not":
            (x,) = args
            return x.args[0] if x.op == "not" else None
        a, b = args
        for x, y in ((a, b), (b, a)):
            if y.is_const:
                if op == "and":
                    return x if y.value else y
                if op == "or":
                    return y if y.value else x
                return self.node("not", x) if y.value else x
        if a is b:
            return self.const(False) if op == "xor" else a
        if op in ("and", "or") and (a.op == "not" and a.args[0] is b or b.op == "not" and b.args[0] is a):
            return self.const(op == "or")
        return None

    def _make(self, op: str, full: tuple, aux) -> Node:
        args = full
        scalar = all(a.scalar for a in args)
        if op in GUARDED:
            args = args[1:]  # the guard: a bool, not an operand
        kinds = [a.kind for a in args]
        if op == "select":
            c, a, b = args
            if a.kind != b.kind:
                raise Untranslatable(f"a choice between a {a.kind} and a {b.kind}")
            lo, hi = hull((a.lo, a.hi), (b.lo, b.hi)) if a.kind == "int" else (None, None)
            return Node(op, args, aux, a.kind, lo, hi, scalar)
        if op == "refine":
            (x,) = args
            lo, hi = aux
            return Node(op, args, aux, x.kind, lo, hi, x.scalar)
        if op in COMPARE:
            a, b = args
            if {a.kind, b.kind} <= {"int", "float"} and a.kind != b.kind:
                i = a if a.kind == "int" else b
                if not (i.bounded() and -(1 << 53) <= i.lo and i.hi <= 1 << 53):
                    raise Untranslatable("an integer beyond 2**53 compared with a REAL")
            elif a.kind != b.kind:
                raise Untranslatable(f"a {a.kind} compared with a {b.kind}")
            return Node(op, args, aux, "bool", scalar=scalar)
        if op in ("not", "isfinite", "isnan", "isinf"):
            return Node(op, args, aux, "bool", scalar=scalar)
        if op == "call":
            fn, kind = aux
            return Node(op, full, aux, kind, scalar=scalar)
        if op in ("and", "or", "xor"):
            if kinds == ["bool", "bool"]:
                return Node(op, args, aux, "bool", scalar=scalar)
            if kinds != ["int", "int"]:
                raise Untranslatable(f"{op} of {kinds}")
            a, b = args
            lo, hi = _bitwise_interval(op, a, b)
            return Node(op, args, aux, "int", lo, hi, scalar)
        if "str" in kinds or "bool" in kinds:
            raise Untranslatable(f"{op} of {kinds}")
        if op in ("float", "copysign", "fabs", "sqrt", "truediv", "single"):
            return Node(op, args, aux, "float", scalar=scalar)
        if op in ("trunc", "floor", "ceil"):
            # Python raises for NaN and the infinities: computed only where the
            # guard holds. The value is unbounded.
            return Node(op, full, aux, "int", scalar=scalar)
        kind = "float" if "float" in kinds else "int"
        if kind == "float":
            if op in ("lshift", "rshift", "invert", "floordiv", "mod"):
                raise Untranslatable(f"{op} of a REAL")
            return Node(op, args, aux, "float", scalar=scalar)
        lo, hi = _int_interval(op, args)
        return Node(op, args, aux, "int", lo, hi, scalar)


def _bitwise_interval(op: str, a: Node, b: Node):
    if a.bounded() and b.bounded():
        if a.lo >= 0 and b.lo >= 0:
            if op == "and":
                return 0, min(a.hi, b.hi)
            return 0, (1 << max(a.hi.bit_length(), b.hi.bit_length())) - 1
        if op == "and" and (a.lo >= 0 or b.lo >= 0):
            return 0, (a.hi if a.lo >= 0 else b.hi)
    la, lb = _bitlen(a), _bitlen(b)
    if la is None or lb is None:
        return None, None
    width = max(la, lb)
    return -(1 << width), (1 << width) - 1


def _int_interval(op: str, args: tuple):
    if op in ("add", "sub", "mul"):
        a, b = args
        f = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}[op]
        return _corners(f, a, b)
    if op == "pos":
        return args[0].lo, args[0].hi
    if op == "neg":
        (a,) = args
        return (None if a.hi is None else -a.hi), (None if a.lo is None else -a.lo)
    if op == "invert":
        (a,) = args
        return (None if a.hi is None else -a.hi - 1), (None if a.lo is None else -a.lo - 1)
    if op == "abs":
        (a,) = args
        if not a.bounded():
            return (0 if a.lo is not None and a.lo >= 0 else None), None
        if a.lo >= 0:
            return a.lo, a.hi
        if a.hi <= 0:
            return -a.hi, -a.lo
        return 0, max(-a.lo, a.hi)
    if op in ("floordiv", "mod"):
        a, b = args
        if not (a.bounded() and b.bounded()):
            return None, None
        # a zero divisor is never divided by (the scalar code would raise): its
        # lanes are left out
        if op == "mod":
            if b.lo >= 0:
                return 0, max(b.hi - 1, 0)
            if b.hi <= 0:
                return min(b.lo + 1, 0), 0
            m = max(abs(b.lo), abs(b.hi))
            return -(m - 1), m - 1
        if b.lo > 0 or b.hi < 0:
            return _corners(operator.floordiv, a, b)
        if b.lo >= 0:   # x // b for b >= 1 lies between x and 0
            return min(a.lo, 0), max(a.hi, 0)
        m = max(abs(a.lo), abs(a.hi))
        return -m, m
    if op in ("lshift", "rshift"):
        a, b = args
        if not (a.bounded() and b.bounded()) or b.lo < 0 or b.hi > 128:
            return None, None
        f = operator.lshift if op == "lshift" else operator.rshift
        return _corners(f, a, b)
    return None, None


__all__ = ["Graph", "Node", "Untranslatable", "RING", "COMPARE", "GUARDED", "NOW_MIN", "NOW_MAX", "hull"]
