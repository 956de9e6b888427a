"""The values the translator works with, and what it knows of the library.

A value (:class:`V`) is an IR operand with its kind (BOOL, integer with its
interval and width, or double); :class:`Pred` is the condition code runs
under; :class:`Var` a block's port or state variable. See :mod:`.lower`.
"""

from __future__ import annotations

import ast
import struct

from ..values import Kind

I64 = (-(1 << 63), (1 << 63) - 1)
I128 = (-(1 << 127), (1 << 127) - 1)

# trap reasons (the last digit of a trap code)
TRAP_DIV_ZERO = 1
TRAP_SHIFT = 2
TRAP_DOMAIN = 3
TRAP_RANGE = 4
TRAP_NOT_FINITE = 5
TRAP_REASONS = {
    TRAP_DIV_ZERO: "division or modulo by zero",
    TRAP_SHIFT: "a shift by a negative count",
    TRAP_DOMAIN: "a math domain error or overflow",
    TRAP_RANGE: "a value outside its signal's type",
    TRAP_NOT_FINITE: "an infinite or NaN REAL converted to an integer",
}


class NoNativeForm(Exception):
    """The block's code uses something this translator does not handle."""


class V:
    """A value: kind ``b`` (i1), ``i`` (integer, ``w`` 64 or 128 bits, in
    ``lo..hi``; ``lo`` None when only its low 128 bits are known) or ``f``
    (double). ``ref`` is its IR operand (``%b7.3``, ``42``, ``true``)."""
    __slots__ = ("k", "ref", "lo", "hi", "w")

    def __init__(self, k, ref, lo=None, hi=None, w=64):
        self.k, self.ref, self.lo, self.hi, self.w = k, ref, lo, hi, w

    @property
    def modular(self) -> bool:
        return self.k == "i" and self.lo is None

    @property
    def ty(self) -> str:
        return "double" if self.k == "f" else f"i{self.w}"

    def within(self, lo: int, hi: int) -> V:
        """The same integer known to lie in ``lo..hi`` (a subset of its interval)."""
        return V("i", self.ref, lo, hi, self.w)


class Wide(V):
    """The sum or difference of two 64-bit integers whose interval needs 65 bits
    (a timer's ``now - START``: START is a TIME the debugger may set to anything),
    held as its low 64 bits ``low`` and the overflow flag ``ov`` of LLVM's
    ``*.with.overflow`` intrinsic, which the fast instruction selector takes; an
    ``i128`` sends its whole basic block to the slow one. The ``i128`` is made
    (by ``widen``) only where a use needs it; a comparison with a 64-bit value and
    a value narrowed into 64 bits (:meth:`within`) need only ``low`` and ``ov``.
    On overflow the exact value is above every i64 when ``low`` is negative, below
    every i64 otherwise."""
    __slots__ = ("low", "ov", "_widen", "_wide")

    def __init__(self, low: str, ov: str, lo: int, hi: int, widen):
        self.k, self.lo, self.hi, self.w = "i", lo, hi, 128
        self.low, self.ov, self._widen, self._wide = low, ov, widen, None

    @property
    def ref(self) -> str:
        if self._wide is None:
            self._wide = self._widen()
        return self._wide

    def within(self, lo: int, hi: int) -> V:
        if I64[0] <= lo and hi <= I64[1]:
            return V("i", self.low, lo, hi, 64)
        return Wide(self.low, self.ov, lo, hi, lambda: self.ref)


def B(ref: str, w: int = 1) -> V:
    """A BOOL value: an i1, or an i64 holding 0 or 1 (as loaded from its cell)."""
    return V("b", ref, 0, 1, w)


def _width(lo, hi):
    """(width, lo, hi): the narrowest of i64/i128 holding lo..hi, or modular i128."""
    if I64[0] <= lo and hi <= I64[1]:
        return 64, lo, hi
    if I128[0] <= lo and hi <= I128[1]:
        return 128, lo, hi
    return 128, None, None


def float_ref(x: float) -> str:
    return "0x%016X" % struct.unpack(">Q", struct.pack(">d", x))[0]


def const(value) -> V:
    if isinstance(value, bool):
        return B("true" if value else "false")
    if isinstance(value, int):
        w, lo, hi = _width(value, value)
        if lo is None:
            raise NoNativeForm(f"the integer constant {value} is wider than 128 bits")
        return V("i", str(value), value, value, w)
    if isinstance(value, float):
        return V("f", float_ref(value))
    raise NoNativeForm(f"a constant of type {type(value).__name__} ({value!r})")


# Library helpers with a native form, by "module.qualname" (fbd imports no block module).
HELPERS = {
    "blocks.arith._arith_div_by_zero": "div_by_zero",
    "blocks.arith._arith_expt": "expt",
    "blocks.arith._arith_exp": "exp",
    "blocks.convert.round_half_away": "round_half_away",
    "blocks.convert._conv_trunc": "trunc_or_zero",
    "blocks.convert.round_matiec": "round_matiec",
    "blocks.convert.round_matiec_unsigned": "round_matiec_unsigned",
    "fbd.real32.int_to_real32": "int_to_real32",
}
MATH_CALLS = {"sqrt", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "exp",
              "isfinite", "trunc"}
LIBM = ("log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "pow")
DECLARATIONS = "\n".join(
    [f"declare double @{name}(double)" for name in LIBM if name != "pow"]
    + ["declare double @pow(double, double)",
       "declare double @llvm.sqrt.f64(double)", "declare double @llvm.fabs.f64(double)",
       "declare double @llvm.trunc.f64(double)", "declare double @llvm.floor.f64(double)",
       "declare double @llvm.copysign.f64(double, double)",
       "declare i64 @llvm.ctlz.i64(i64, i1)",
       "declare {i64, i1} @llvm.sadd.with.overflow.i64(i64, i64)",
       "declare {i64, i1} @llvm.ssub.with.overflow.i64(i64, i64)"])

_CMP_INT = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt",
            ast.GtE: "sge"}
_CMP_FLOAT = {ast.Eq: "oeq", ast.NotEq: "une", ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt",
              ast.GtE: "oge"}
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq,
         ast.NotEq: ast.NotEq}
_NEGATE = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq}


def _int(node) -> int:
    """The value of an integer literal node (``-5`` parses as a negation of 5)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_int(node.operand)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    raise TypeError("not an integer literal")


class Pred:
    """The condition under which code runs: a conjunction of i1 values, each
    possibly negated, made into IR only when a select or a trap needs it."""
    __slots__ = ("terms", "ref")

    def __init__(self, terms):
        self.terms, self.ref = terms, None


class Var:
    """A port or state variable of the block: where it lives and its type."""
    __slots__ = ("name", "slot_arg", "tp", "writable")

    def __init__(self, name, slot_arg: int, tp, writable: bool):
        self.name, self.slot_arg, self.tp, self.writable = name, slot_arg, tp, writable


#: kinds held as integers in a cell (a tuple: membership by identity, no Enum hash)
_CELL_INTEGERS = (Kind.INT, Kind.BITS, Kind.TIME, Kind.DATE, Kind.TOD, Kind.DT, Kind.ENUM)


def slot_kind(tp):
    """How a type's value sits in its 8-byte cell: ``b`` 0/1, ``q`` signed,
    ``Q`` unsigned 64-bit, ``d`` double; None for a type with no native cell."""
    if tp is None:
        return None
    if tp.kind is Kind.BOOL:
        return "b"
    if tp.kind is Kind.REAL:
        return "d"
    if tp.kind in _CELL_INTEGERS:
        return "Q" if (tp.bits == 64 and not tp.signed) else "q"
    return None


