"""Arithmetic: ADD, SUB, MUL, DIV, MOD, ABS, NEG, EXPT, MUL_TIME, DIV_TIME, and the
functions of one REAL: SQRT, LN, LOG, EXP, SIN, COS, TAN, ASIN, ACOS, ATAN.

Integers wrap at their type's width exactly as compiled C does (two's
complement): INT 32767 + 1 = -32768, UINT 0 - 1 = 65535, INT -32768 / -1 =
-32768, ABS(INT -32768) = -32768. Integer division truncates toward zero and
MOD takes the sign of the dividend, as in C; dividing by zero gives 0 (as
matiec does) instead of trapping.

REAL is single precision, LREAL double: every REAL result is rounded to
single precision as matiec's library returns a C float (ADD and MUL of more
than two REALs round after each step, as its loop does), so 0.1 + 0.2 is
0.3 (0.30000001192092896), not 0.30000000000000004, and 16777216.0 + 1.0 is
16777216.0. Both follow IEEE 754 as C does with floating-point traps masked:
x / 0.0 is +-inf, 0.0 / 0.0 is NaN, overflow gives +-inf, a domain error
(SQRT(-1), LN(-1), ASIN(2), SIN(inf), EXPT(-8.0, 0.5)) gives NaN, a pole
(LN(0), LOG(0), EXPT(0.0, -1)) gives +-inf. (matiec returns 0 for a REAL
division by zero; we keep the IEEE result, which is what the hardware gives.)

No block here raises at run time: a PLC never throws in the middle of a scan.
"""

import math

from fbd.block import Block, Port, extensible, register
from fbd.types import ANY_INT, ANY_MAGNITUDE, ANY_NUM, ANY_REAL, TIME
from fbd.values import NS_PER_SECOND, Kind

from .convert import _conv_trunc


# ---------------------------------------------------------------- helpers
def _arith_div_by_zero(a: float, b: float) -> float:
    """IEEE 754 ``a / b`` for ``b == +-0.0``: +-inf by the signs of a and b;
    NaN for 0/0 and NaN/0."""
    if a != a or a == 0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _odd_integer(x) -> bool:
    return float(x).is_integer() and int(x) % 2 == 1


def _arith_expt(base: float, exp) -> float:
    """C's ``pow``: overflow is +-inf, a pole (0 ** negative) +-inf, a negative
    base to a non-integer power NaN. Python's math.pow raises for these."""
    try:
        return math.pow(base, exp)
    except OverflowError:
        return -math.inf if base < 0 and _odd_integer(exp) else math.inf
    except ValueError:
        if base == 0:  # pole: -inf only for -0.0 to an odd negative integer
            return -math.inf if math.copysign(1.0, base) < 0 and _odd_integer(exp) else math.inf
        return math.nan


def _arith_exp(x: float) -> float:
    """C's ``exp``: +inf on overflow (math.exp raises)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


# ------------------------------------------------------ extensible ADD, MUL
class _Extensible(Block):
    family = "arith"
    inputs = [extensible("IN", "T")]
    outputs = [Port("OUT", "T")]
    op = ""

    def code(self, io):
        if io.T.kind is Kind.REAL:  # the library's loop: op1 = op1 OP next, a float each time
            acc, *rest = io.ins("IN")
            for operand in rest:
                acc = io.T.wrap(f"{acc} {self.op} {operand}")
            return f"{io.OUT} = {acc}"
        return f"{io.OUT} = {io.T.wrap(f' {self.op} '.join(io.ins('IN')))}"


@register
class ADD(_Extensible):
    """Sum IN1 + IN2 + ... (extensible); integers and TIME wrap at their width."""
    types = {"T": ANY_MAGNITUDE}
    op = "+"

    def code(self, io):
        ins = io.ins("IN")
        if len(ins) == 2:  # nearly every ADD: statements, cheaper (see DataType.wrap_into)
            return io.T.wrap_into(io.OUT, f"{ins[0]} + {ins[1]}")
        return super().code(io)


@register
class MUL(_Extensible):
    """Product IN1 * IN2 * ... (extensible); integers wrap at their width."""
    types = {"T": ANY_NUM}
    op = "*"


# ------------------------------------------------------------ SUB, DIV, MOD
class _Binary(Block):
    family = "arith"
    inputs = [Port("IN1", "T"), Port("IN2", "T")]
    outputs = [Port("OUT", "T")]


@register
class SUB(_Binary):
    """Difference IN1 - IN2; integers and TIME wrap at their width."""
    types = {"T": ANY_MAGNITUDE}

    def code(self, io):
        return io.T.wrap_into(io.OUT, f"{io.IN1} - {io.IN2}")


@register
class DIV(_Binary):
    """Quotient IN1 / IN2; integers truncate toward zero and give 0 for IN2 = 0.

    REALs follow IEEE 754: x / 0.0 is +-inf, 0.0 / 0.0 is NaN. INT -32768 / -1
    wraps to -32768, as a compiled 16-bit division does.
    """
    types = {"T": ANY_NUM}
    helpers = {"_arith_div_by_zero": _arith_div_by_zero}

    def code(self, io):
        a, b, T = io.IN1, io.IN2, io.T
        if T.kind is Kind.REAL:
            return f"{io.OUT} = {T.wrap(f'{a} / {b}')} if {b} else _arith_div_by_zero({a}, {b})"
        if not T.signed:
            return f"{io.OUT} = {a} // {b} if {b} else 0"
        q = io.tmp()  # |IN1| // |IN2|, then the sign: truncation toward zero
        return [f"{q} = abs({a}) // abs({b}) if {b} else 0",
                f"{io.OUT} = {T.wrap(f'-{q} if ({a} < 0) != ({b} < 0) else {q}')}"]


@register
class MOD(_Binary):
    """Remainder of IN1 / IN2 with the sign of IN1, as C's %; 0 for IN2 = 0."""
    types = {"T": ANY_INT}

    def code(self, io):
        a, b = io.IN1, io.IN2
        if not io.T.signed:
            return f"{io.OUT} = {a} % {b} if {b} else 0"
        r = io.tmp()  # |r| < |IN2|: always in range, nothing to wrap
        return [f"{r} = abs({a}) % abs({b}) if {b} else 0",
                f"{io.OUT} = -{r} if {a} < 0 else {r}"]


# ----------------------------------------------------------------- ABS, NEG
class _Unary(Block):
    family = "arith"
    types = {"T": ANY_NUM}
    inputs = [Port("IN", "T")]
    outputs = [Port("OUT", "T")]


@register
class ABS(_Unary):
    """Absolute value; ABS of the most negative integer wraps to itself (INT -32768).

    A REAL's is matiec's ``op < 0 ? -op : op``: -0.0 and a NaN keep their sign.
    """

    def code(self, io):
        if io.T.kind is Kind.INT and not io.T.signed:
            return f"{io.OUT} = {io.IN}"
        if io.T.kind is Kind.REAL:  # exact: a REAL's magnitude is a REAL
            return f"{io.OUT} = -{io.IN} if {io.IN} < 0 else {io.IN}"
        return f"{io.OUT} = {io.T.wrap(f'abs({io.IN})')}"


@register
class NEG(_Unary):
    """Negation -IN; integers wrap (NEG(INT -32768) = -32768, NEG(UINT 1) = 65535).

    Not in IEC's table of functions, but common in practice.
    """

    def code(self, io):
        if io.T.kind is Kind.REAL:  # exact
            return f"{io.OUT} = -{io.IN}"
        return f"{io.OUT} = {io.T.wrap(f'-{io.IN}')}"

    def st(self, types):
        # ST's unary minus is for signed types; 0 - IN wraps an unsigned one alike
        return [], "OUT := -IN;" if types["T"].signed else "OUT := 0 - IN;"


# --------------------------------------------------------------------- EXPT
@register
class EXPT(Block):
    """Exponentiation IN1 ** IN2 of a REAL base to a REAL or integer power, as C's pow.

    Overflow and 0.0 ** negative give +-inf, a negative base to a fraction NaN.
    """
    family = "arith"
    types = {"T": ANY_REAL, "N": ANY_NUM}
    inputs = [Port("IN1", "T", doc="base"), Port("IN2", "N", doc="exponent")]
    outputs = [Port("OUT", "T")]
    helpers = {"_arith_expt": _arith_expt}

    def code(self, io):
        return f"{io.OUT} = {io.T.wrap(f'_arith_expt({io.IN1}, {io.IN2})')}"


# ------------------------------------------------------ MUL_TIME, DIV_TIME
_S = NS_PER_SECOND


class _TimeScale(Block):
    """A TIME scaled as matiec's ``__time_mul`` and ``__time_div`` scale its timespec:
    the factor an LREAL (an integer one too), the seconds and the nanoseconds each
    through a double, each part truncated toward zero."""
    family = "arith"
    types = {"N": ANY_NUM}
    inputs = [Port("IN1", TIME), Port("IN2", "N")]
    outputs = [Port("OUT", TIME)]
    helpers = {"_conv_trunc": _conv_trunc}

    def parts(self, io) -> tuple[list[str], str, str, str]:
        """Statements splitting IN1 into a timespec's seconds and nanoseconds (both
        toward zero, as matiec keeps them), and the names of those and of the factor
        as a double. Each part of the magnitude, then signed: the native engine bounds
        abs(x) // s, where a signed quotient's interval is x's own."""
        a, b = io.IN1, io.IN2
        sign, mag, sec, nsec, f = io.tmp(), io.tmp(), io.tmp(), io.tmp(), io.tmp()
        return [f"{sign} = -1 if {a} < 0 else 1",
                f"{mag} = abs({a})",
                f"{sec} = {sign} * ({mag} // {_S})",
                f"{nsec} = {sign} * ({mag} % {_S})",
                f"{f} = float({b})"], sec, nsec, f

    def whole(self, expr: str) -> str:
        """C's cast of a double to a 64-bit integer (``(time_t)``, ``(long)``), cut to
        64 bits as TIME is, so that the engines agree where C's is undefined."""
        return TIME.wrap(f"_conv_trunc({expr})")


@register
class MUL_TIME(_TimeScale):
    """A duration times a number, IN1 * IN2, as matiec computes it: seconds * IN2
    and nanoseconds * IN2 in doubles, truncated toward zero (T#10s / 3 * 1.5 is
    T#4s999ms999us999ns); wraps at TIME's 64 bits (as the oracle prints matiec's
    wider timespec); a NaN or infinite product gives T#0s.
    """

    def code(self, io):
        lines, sec, nsec, f = self.parts(io)
        s_f, s, p, psign, pmag = io.tmp(), io.tmp(), io.tmp(), io.tmp(), io.tmp()
        return lines + [
            f"{s_f} = {sec} * {f}",
            f"{s} = {self.whole(s_f)}",
            f"{p} = {self.whole(f'{nsec} * {f}')}",
            f"{psign} = -1 if {p} < 0 else 1",
            f"{pmag} = abs({p})",
            # div(p, 10**9): the quotient to the seconds, the remainder plus the seconds'
            # fraction to the nanoseconds
            f"{io.OUT} = " + TIME.wrap(
                f"({s} + {psign} * ({pmag} // {_S})) * {_S} "
                f"+ _conv_trunc({psign} * ({pmag} % {_S}) + ({s_f} - {s}) * 1e9)")]


@register
class DIV_TIME(_TimeScale):
    """A duration divided by a number, IN1 / IN2, as matiec computes it: seconds /
    IN2 and nanoseconds / IN2 in doubles, truncated toward zero (T#10s / 3 is
    T#3s333ms333us333ns); T#0s when IN2 = 0 (where C's is undefined).
    """

    def code(self, io):
        lines, sec, nsec, f = self.parts(io)
        d, s_f, s = io.tmp(), io.tmp(), io.tmp()
        # straight-line (a divisor of 1.0 standing in for zero): the engines that
        # lower the code keep a temporary assigned in a branch in memory
        return lines + [
            f"{d} = {f} if {f} else 1.0",
            f"{s_f} = {sec} / {d}",
            f"{s} = {self.whole(s_f)}",
            f"{io.OUT} = " + TIME.wrap(f"{s} * {_S} + _conv_trunc({nsec} / {d} + ({s_f} - {s}) * 1e9)")
            + f" if {f} else 0"]


# ------------------------------------------------ functions of one REAL
class _RealFunction(Block):
    """C's double function of the value, rounded to the output's type, as matiec's
    library computes SIN and the others for a REAL (``sin``, not ``sinf``)."""
    family = "arith"
    types = {"T": ANY_REAL}
    inputs = [Port("IN", "T")]
    outputs = [Port("OUT", "T")]
    #: the expression, over ``{x}``
    expr = ""

    def code(self, io):
        return f"{io.OUT} = {io.T.wrap(self.expr.format(x=io.IN))}"


@register
class SQRT(_RealFunction):
    """Square root; NaN for a negative input."""
    expr = "math.sqrt({x}) if {x} >= 0.0 else math.nan"


@register
class LN(_RealFunction):
    """Natural logarithm; -inf at 0, NaN for a negative input."""
    expr = "math.log({x}) if {x} > 0.0 else (-math.inf if {x} == 0.0 else math.nan)"


@register
class LOG(_RealFunction):
    """Base-10 logarithm; -inf at 0, NaN for a negative input."""
    expr = "math.log10({x}) if {x} > 0.0 else (-math.inf if {x} == 0.0 else math.nan)"


@register
class EXP(_RealFunction):
    """Natural exponential e ** IN; +inf when the result overflows."""
    expr = "_arith_exp({x})"
    helpers = {"_arith_exp": _arith_exp}


@register
class SIN(_RealFunction):
    """Sine of an angle in radians; NaN for +-inf."""
    expr = "math.sin({x}) if math.isfinite({x}) else math.nan"


@register
class COS(_RealFunction):
    """Cosine of an angle in radians; NaN for +-inf."""
    expr = "math.cos({x}) if math.isfinite({x}) else math.nan"


@register
class TAN(_RealFunction):
    """Tangent of an angle in radians; NaN for +-inf."""
    expr = "math.tan({x}) if math.isfinite({x}) else math.nan"


@register
class ASIN(_RealFunction):
    """Arc sine in radians (-pi/2..pi/2); NaN outside -1..1."""
    expr = "math.asin({x}) if -1.0 <= {x} <= 1.0 else math.nan"


@register
class ACOS(_RealFunction):
    """Arc cosine in radians (0..pi); NaN outside -1..1."""
    expr = "math.acos({x}) if -1.0 <= {x} <= 1.0 else math.nan"


@register
class ATAN(_RealFunction):
    """Arc tangent in radians (-pi/2..pi/2); ATAN(+-inf) = +-pi/2."""
    expr = "math.atan({x})"
