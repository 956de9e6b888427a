"""Arithmetic blocks: IEC semantics, C-like wrap-around, IEEE REALs, never an exception.

Every expected value below is worked out by hand from the rule it tests
(two's complement wrap, truncation toward zero, IEEE 754), not by running the
code under test a second way.
"""

import datetime
import itertools
import math
import re

import pytest

import blocks
from fbd.block import registry
from fbd.compiler.interp import Interpreter
from fbd.errors import ValidationError, WiringError
from fbd.network import Network
from fbd.real32 import FLT_MAX, is_real32, round_real32
from fbd.testing import Harness
from fbd.types import (
    DINT,
    INT,
    LINT,
    LREAL,
    REAL,
    SINT,
    STRING,
    TIME,
    UDINT,
    UINT,
    ULINT,
    USINT,
)
from fbd.values import format_time

INF, NAN = math.inf, math.nan
INTEGERS = (SINT, INT, DINT, LINT, USINT, UINT, UDINT, ULINT)
T_MIN = -(1 << 63)
T_MAX = (1 << 63) - 1


def out(block, **inputs):
    """OUT of one block after one scan with these inputs (TIME as integer ns)."""
    h = Harness.block(block)
    h.set(**inputs).scan()
    return h.plc.get_raw("OUT")


def ns(n: int) -> str:
    """A TIME of ``n`` ns, as its literal (a timedelta holds µs)."""
    return format_time(n)


def same_float(got, want) -> bool:
    """Equal as IEEE values: NaN equals NaN, and the sign of zero counts."""
    if math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return isinstance(got, float) and got == want and math.copysign(1, got) == math.copysign(1, want)


# ------------------------------------------------------------ wrap-around
def test_int_add_wraps_like_compiled_code():
    assert out(blocks.ADD(INT), IN1=32767, IN2=1) == -32768


@pytest.mark.parametrize("tp, a, b, want", [
    (SINT, 127, 1, -128),
    (SINT, -128, -1, 127),
    (USINT, 255, 1, 0),
    (INT, -32768, -1, 32767),
    (UINT, 65535, 2, 1),
    (DINT, 2147483647, 1, -2147483648),
    (UDINT, 4294967295, 1, 0),
    (LINT, 9223372036854775807, 1, -9223372036854775808),
    (ULINT, 18446744073709551615, 1, 0),
])
def test_add_wraps_at_every_width(tp, a, b, want):
    assert out(blocks.ADD(tp), IN1=a, IN2=b) == want


@pytest.mark.parametrize("tp, a, b, want", [
    (UINT, 0, 1, 65535),
    (USINT, 0, 1, 255),
    (UDINT, 0, 1, 4294967295),
    (ULINT, 0, 1, 18446744073709551615),
    (SINT, -128, 1, 127),
    (DINT, -2147483648, 1, 2147483647),
    (LINT, -9223372036854775808, 1, 9223372036854775807),
    (INT, 5, 7, -2),
])
def test_sub_wraps_below_zero_and_below_min(tp, a, b, want):
    assert out(blocks.SUB(tp), IN1=a, IN2=b) == want


@pytest.mark.parametrize("tp, a, b, want", [
    (INT, 300, 300, 24464),                 # 90000 - 65536
    (SINT, 16, 16, 0),                      # 256
    (SINT, -16, 8, -128),                   # -128 fits
    (DINT, 46341, 46341, -2147479015),      # 2147488281 - 2**32
    (DINT, 65536, 65536, 0),
    (UDINT, 65536, 65537, 65536),           # 2**32 + 65536
    (LINT, 4611686018427387904, 2, -9223372036854775808),   # 2**62 * 2
    (ULINT, 4294967296, 4294967296, 0),     # 2**64
    (ULINT, 4294967296, 4294967295, 18446744069414584320),  # exact, no float rounding
])
def test_mul_wraps_like_compiled_code(tp, a, b, want):
    assert out(blocks.MUL(tp), IN1=a, IN2=b) == want


def test_extensible_add_sums_all_inputs():
    assert out(blocks.ADD(INT, n=4), IN1=1, IN2=2, IN3=3, IN4=4) == 10


def test_extensible_add_wraps_once_like_modular_c():
    # 32767 + 1 - 1: C wraps the intermediate and back again; same result.
    assert out(blocks.ADD(INT, n=3), IN1=32767, IN2=1, IN3=-1) == 32767


def test_extensible_mul_multiplies_all_inputs():
    assert out(blocks.MUL(DINT, n=3), IN1=-2, IN2=3, IN3=7) == -42


def test_mul_below_two_inputs_is_refused():
    with pytest.raises(WiringError, match="n must be"):
        blocks.MUL(INT, n=1)


# ------------------------------------------------------------------- TIME
def test_add_time_plus_time():
    assert out(blocks.ADD(TIME), IN1="T#1s", IN2="T#500ms") == 1_500_000_000


def test_sub_time_goes_negative():
    assert out(blocks.SUB(TIME), IN1="T#1s", IN2="T#1s500ms") == -500_000_000


def test_add_time_wraps_at_64_bits():
    assert out(blocks.ADD(TIME), IN1=ns(T_MAX), IN2=ns(1)) == T_MIN


def test_time_output_reads_as_timedelta():
    h = Harness.block(blocks.ADD(TIME))
    h.set(IN1="T#1s", IN2="T#500ms").scan()
    assert h.get("OUT") == datetime.timedelta(seconds=1.5)


@pytest.mark.parametrize("block, n_type, factor, t_in, want", [
    ("MUL_TIME", INT, 3, "T#1s", 3_000_000_000),
    ("MUL_TIME", INT, -2, "T#1s", -2_000_000_000),
    ("MUL_TIME", REAL, 1.5, "T#1s", 1_500_000_000),
    ("MUL_TIME", REAL, 0.5, "T#1ns", 0),          # truncated toward zero, as matiec
    ("MUL_TIME", REAL, 0.5, "T#-3ns", -1),
    ("MUL_TIME", REAL, 0.25, "T#1us", 250),
    ("MUL_TIME", LREAL, 1.5, "T#3s333ms333us333ns", 4_999_999_999),   # the oracle's
    ("MUL_TIME", LREAL, NAN, "T#1s", 0),
    ("MUL_TIME", LREAL, INF, "T#1s", 0),
    ("DIV_TIME", INT, 4, "T#1s", 250_000_000),
    ("DIV_TIME", INT, 2, "T#1ns", 0),             # truncates
    ("DIV_TIME", INT, 2, "T#-7ns", -3),           # toward zero
    ("DIV_TIME", DINT, -1, "T#1s", -1_000_000_000),
    ("DIV_TIME", INT, 0, "T#1s", 0),
    ("DIV_TIME", REAL, 0.0, "T#1s", 0),
    ("DIV_TIME", REAL, 3.0, "T#1s", 333_333_333),     # 333333333.33...
    ("DIV_TIME", INT, 7, "T#3s333ms333us333ns", 476_190_476),   # the oracle's
    ("DIV_TIME", REAL, 4.0, "T#2ns", 0),
    ("DIV_TIME", REAL, 0.5, "T#1s", 2_000_000_000),
])
def test_mul_time_and_div_time_scale_a_duration(block, n_type, factor, t_in, want):
    b = getattr(blocks, block)(n_type)
    assert out(b, IN1=t_in, IN2=factor) == want


def test_div_time_of_most_negative_by_minus_one_wraps():
    assert out(blocks.DIV_TIME(LINT), IN1=ns(T_MIN), IN2=-1) == T_MIN


def test_div_refuses_time_use_div_time():
    with pytest.raises(WiringError, match="ANY_NUM"):
        blocks.DIV(TIME)


def test_mul_refuses_time_use_mul_time():
    with pytest.raises(WiringError, match="ANY_NUM"):
        blocks.MUL(TIME)


# -------------------------------------------------------------------- DIV
@pytest.mark.parametrize("a, b, want", [
    (7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3),
    (1, 2, 0), (-1, 2, 0), (6, 3, 2), (-6, 3, -2), (0, -5, 0),
])
def test_int_div_truncates_toward_zero(a, b, want):
    assert out(blocks.DIV(INT), IN1=a, IN2=b) == want


@pytest.mark.parametrize("tp, a", [
    (SINT, -128), (INT, 32767), (DINT, -5), (LINT, 9223372036854775807),
    (USINT, 255), (UINT, 1), (UDINT, 4294967295), (ULINT, 18446744073709551615),
])
def test_div_by_zero_gives_zero(tp, a):
    assert out(blocks.DIV(tp), IN1=a, IN2=0) == 0


@pytest.mark.parametrize("tp", [SINT, INT, DINT, LINT])
def test_div_of_most_negative_by_minus_one_wraps_to_itself(tp):
    assert out(blocks.DIV(tp), IN1=tp.min, IN2=-1) == tp.min


def test_div_is_exact_on_64_bit_integers():
    # A float quotient would be off in the last digits.
    assert out(blocks.DIV(LINT), IN1=-9223372036854775807, IN2=10) == -922337203685477580
    assert out(blocks.DIV(ULINT), IN1=18446744073709551615, IN2=3) == 6148914691236517205


@pytest.mark.parametrize("a, b, want", [
    (7.0, 2.0, 3.5),
    (1.0, 0.0, INF),
    (-1.0, 0.0, -INF),
    (1.0, -0.0, -INF),
    (-1.0, -0.0, INF),
    (INF, 0.0, INF),
    (0.0, 0.0, NAN),
    (NAN, 0.0, NAN),
    (NAN, 1.0, NAN),
    (INF, INF, NAN),
])
def test_real_div_follows_ieee(a, b, want):
    for tp in (REAL, LREAL):
        assert same_float(out(blocks.DIV(tp), IN1=a, IN2=b), want)


def test_real_overflow_is_an_infinity_at_each_types_own_limit():
    assert out(blocks.DIV(REAL), IN1=3e38, IN2=0.5) == INF         # past FLT_MAX
    assert out(blocks.DIV(LREAL), IN1=3e38, IN2=0.5) == 6e38
    assert out(blocks.DIV(LREAL), IN1=1e308, IN2=1e-10) == INF
    assert out(blocks.MUL(REAL), IN1=-2e38, IN2=2.0) == -INF


# -------------------------------------------------------------------- MOD
@pytest.mark.parametrize("a, b, want", [
    (7, 3, 1), (-7, 3, -1), (7, -3, 1), (-7, -3, -1),
    (6, 3, 0), (-6, 3, 0), (2, 5, 2), (-2, 5, -2),
])
def test_mod_takes_the_sign_of_the_dividend(a, b, want):
    assert out(blocks.MOD(INT), IN1=a, IN2=b) == want


@pytest.mark.parametrize("tp, a", [(SINT, -7), (INT, 7), (ULINT, 18446744073709551615), (UDINT, 3)])
def test_mod_by_zero_gives_zero(tp, a):
    assert out(blocks.MOD(tp), IN1=a, IN2=0) == 0


@pytest.mark.parametrize("tp, a, b, want", [
    (INT, -32768, -1, 0),
    (SINT, -128, -1, 0),
    (UINT, 65535, 256, 255),
    (ULINT, 18446744073709551615, 10, 5),
    (LINT, -9223372036854775807, 10, -7),
    (LINT, -9223372036854775808, 9223372036854775807, -1),
])
def test_mod_at_type_limits(tp, a, b, want):
    assert out(blocks.MOD(tp), IN1=a, IN2=b) == want


def test_mod_refuses_real():
    with pytest.raises(WiringError, match="ANY_INT"):
        blocks.MOD(REAL)


# -------------------------------------------------------------- ABS, NEG
@pytest.mark.parametrize("tp, a, want", [
    (INT, -32768, -32768),   # the one value whose negation does not fit
    (SINT, -128, -128),
    (DINT, -2147483648, -2147483648),
    (LINT, -9223372036854775808, -9223372036854775808),
    (INT, -5, 5),
    (INT, 5, 5),
    (LINT, -9223372036854775807, 9223372036854775807),
    (UINT, 65535, 65535),
    (USINT, 0, 0),
])
def test_abs_of_integers_wraps_at_the_minimum(tp, a, want):
    assert out(blocks.ABS(tp), IN=a) == want


@pytest.mark.parametrize("a, want", [(-2.5, 2.5), (2.5, 2.5), (-INF, INF), (NAN, NAN)])
def test_abs_of_reals(a, want):
    assert same_float(out(blocks.ABS(LREAL), IN=a), want)


@pytest.mark.parametrize("tp", [REAL, LREAL])
def test_abs_of_minus_zero_is_minus_zero_as_in_matiec(tp):
    # matiec's ABS is `op < 0 ? -op : op` (oracle: ABS(REAL -0.0) and ABS(LREAL -0.0) give -0.0)
    assert math.copysign(1.0, out(blocks.ABS(tp), IN=-0.0)) == -1.0


@pytest.mark.parametrize("tp, a, want", [
    (INT, 5, -5), (INT, -32768, -32768), (SINT, -127, 127),
    (UINT, 1, 65535), (USINT, 0, 0), (ULINT, 1, 18446744073709551615),
])
def test_neg_of_integers_wraps(tp, a, want):
    assert out(blocks.NEG(tp), IN=a) == want


@pytest.mark.parametrize("a, want", [(1.5, -1.5), (0.0, -0.0), (-INF, INF), (NAN, NAN)])
def test_neg_of_reals(a, want):
    assert same_float(out(blocks.NEG(REAL), IN=a), want)


# -------------------------------------------------------------------- EXPT
@pytest.mark.parametrize("n_type, base, exp, want", [
    (INT, 2.0, 10, 1024.0),
    (INT, 2.0, -1, 0.5),
    (INT, -2.0, 3, -8.0),
    (INT, 5.0, 0, 1.0),
    (REAL, 4.0, 0.5, 2.0),
    (LREAL, 8.0, -1.0 / 3.0, 0.5),
    (INT, 10.0, 400, INF),       # overflow
    (INT, -10.0, 401, -INF),     # overflow of a negative base to an odd power
    (INT, -10.0, 400, INF),
    (INT, 0.0, -1, INF),         # pole
    (INT, -0.0, -1, -INF),
    (INT, -0.0, -2, INF),
    (REAL, 0.0, -0.5, INF),
    (REAL, -8.0, 1.0 / 3.0, NAN),  # negative base, fractional power: domain error
    (INT, NAN, 0, 1.0),          # C's pow(x, 0) is 1 even for NaN
    (REAL, 1.0, NAN, 1.0),
    (REAL, 2.0, NAN, NAN),
    (REAL, 2.0, -INF, 0.0),
    (ULINT, 1.0, 18446744073709551615, 1.0),
])
def test_expt_behaves_like_c_pow(n_type, base, exp, want):
    got = out(blocks.EXPT(types={"T": LREAL, "N": n_type}), IN1=base, IN2=exp)
    if math.isnan(want) or math.isinf(want) or want == 0:
        assert same_float(got, want)
    else:
        assert got == pytest.approx(want, rel=1e-15)


def test_expt_output_has_the_base_type():
    net = Network("expt")
    x = net.input("x", REAL)
    e = net.add("e", blocks.EXPT(), IN1=x, IN2=2)
    net.output("y", e.OUT)
    h = Harness(net)
    assert h.plc.program.signal("y").type is REAL
    assert h.plc.program.signal("e.IN2").type is INT
    h.set(x=3.0).scan()
    assert h.get("y") == 9.0


def test_expt_refuses_an_integer_base():
    with pytest.raises(WiringError, match="ANY_REAL"):
        blocks.EXPT(INT)


# ------------------------------------------------ functions of one REAL
PI = math.pi


@pytest.mark.parametrize("name, x, want", [
    ("SQRT", 4.0, 2.0), ("SQRT", 0.0, 0.0), ("SQRT", -0.0, -0.0), ("SQRT", INF, INF),
    ("SQRT", -1.0, NAN), ("SQRT", -INF, NAN),
    ("LN", 1.0, 0.0), ("LN", 0.0, -INF), ("LN", -0.0, -INF), ("LN", -1.0, NAN), ("LN", INF, INF),
    ("LOG", 1000.0, 3.0), ("LOG", 1.0, 0.0), ("LOG", 0.0, -INF), ("LOG", -5.0, NAN),
    ("LOG", INF, INF),
    ("EXP", 0.0, 1.0), ("EXP", 1000.0, INF), ("EXP", -1000.0, 0.0), ("EXP", INF, INF),
    ("EXP", -INF, 0.0),
    ("SIN", 0.0, 0.0), ("SIN", PI / 2, 1.0), ("SIN", INF, NAN), ("SIN", -INF, NAN),
    ("COS", 0.0, 1.0), ("COS", PI, -1.0), ("COS", -INF, NAN),
    ("TAN", 0.0, 0.0), ("TAN", PI / 4, 1.0), ("TAN", INF, NAN),
    ("ASIN", 1.0, PI / 2), ("ASIN", -1.0, -PI / 2), ("ASIN", 1.5, NAN), ("ASIN", INF, NAN),
    ("ACOS", 1.0, 0.0), ("ACOS", -1.0, PI), ("ACOS", -1.0000001, NAN), ("ACOS", 2.0, NAN),
    ("ATAN", 1.0, PI / 4), ("ATAN", INF, PI / 2), ("ATAN", -INF, -PI / 2),
])
def test_real_functions_give_nan_or_inf_never_an_exception(name, x, want):
    for tp in (REAL, LREAL):
        got = out(getattr(blocks, name)(tp), IN=x)
        if math.isnan(want) or math.isinf(want) or want == 0:
            assert same_float(got, want), (name, tp, x, got)
        elif tp is REAL:  # the single-precision value nearest the double function's
            assert same_float(got, round_real32(want)), (name, tp, x, got)
        else:
            assert got == pytest.approx(want, rel=1e-15), (name, tp, x, got)


def test_a_real_function_is_cs_double_function_rounded_to_single_precision():
    # matiec (iec2c 6bb2c339): SIN(REAL#0.1) = 0.0998334214091301, the float nearest
    # sin(0.10000000149011612); LREAL keeps the double
    assert out(blocks.SIN(REAL), IN=0.1) == 0.0998334214091301
    assert out(blocks.SIN(LREAL), IN=0.1) == math.sin(0.1)
    assert out(blocks.SQRT(REAL), IN=2.0) == 1.4142135381698608


@pytest.mark.parametrize("name", ["SQRT", "LN", "LOG", "EXP", "SIN", "COS", "TAN", "ASIN",
                                  "ACOS", "ATAN", "ABS", "NEG"])
def test_real_functions_pass_nan_through(name):
    assert math.isnan(out(getattr(blocks, name)(REAL), IN=NAN))


def test_real_functions_refuse_integers():
    with pytest.raises(WiringError, match="ANY_REAL"):
        blocks.SQRT(INT)


def test_real_arithmetic_overflows_to_inf_and_nan():
    assert out(blocks.MUL(LREAL), IN1=1e308, IN2=10.0) == INF
    assert out(blocks.ADD(LREAL), IN1=1e308, IN2=1e308) == INF
    assert math.isnan(out(blocks.ADD(REAL), IN1=INF, IN2=-INF))
    assert math.isnan(out(blocks.MUL(REAL), IN1=INF, IN2=0.0))


def test_real_literals_inf_nan_and_negative_zero_reach_the_blocks():
    net = Network("lits")
    x = net.input("x", LREAL)
    net.output("div", net.add("d", blocks.DIV(), IN1=x, IN2=-0.0).OUT)
    net.output("add", net.add("a", blocks.ADD(), IN1=x, IN2=-INF).OUT)
    net.output("sqrt", net.add("q", blocks.SQRT(LREAL), IN=-INF).OUT)
    net.output("neg", net.add("n", blocks.NEG(LREAL), IN=NAN).OUT)
    h = Harness(net)
    h.set(x=1.0).scan()
    assert h.get("div") == -INF and h.get("add") == -INF
    assert math.isnan(h.get("sqrt")) and math.isnan(h.get("neg"))


def test_real_arithmetic_rounds_to_single_precision_and_lreal_keeps_the_double():
    # matiec (iec2c 6bb2c339): REAL 0.1 + 0.2 = 0.30000001192092896, 16777216.0 + 1.0
    # = 16777216.0 (a C float has 24 bits)
    assert out(blocks.ADD(REAL), IN1=0.1, IN2=0.2) == 0.30000001192092896
    assert out(blocks.ADD(REAL), IN1=16777216.0, IN2=1.0) == 16777216.0
    assert out(blocks.SUB(REAL), IN1=16777216.0, IN2=-1.0) == 16777216.0
    assert out(blocks.MUL(REAL), IN1=0.1, IN2=3.0) == 0.30000001192092896
    assert out(blocks.DIV(REAL), IN1=1.0, IN2=3.0) == 0.3333333432674408
    assert out(blocks.ADD(LREAL), IN1=0.1, IN2=0.2) == 0.30000000000000004
    assert out(blocks.ADD(LREAL), IN1=16777216.0, IN2=1.0) == 16777217.0


def test_extensible_real_add_and_mul_round_after_each_step_as_the_library_loop():
    # matiec (iec2c 6bb2c339): ADD(x, REAL#1.0, REAL#1.0) with x = 16777216.0 gives
    # 16777216.0 (each step a float); rounding the exact sum once would give 16777218.0
    assert out(blocks.ADD(REAL, n=3), IN1=16777216.0, IN2=1.0, IN3=1.0) == 16777216.0
    assert out(blocks.ADD(LREAL, n=3), IN1=16777216.0, IN2=1.0, IN3=1.0) == 16777218.0
    assert out(blocks.MUL(REAL, n=3), IN1=3e38, IN2=2.0, IN3=0.5) == INF


# ---------------------------------------------------------- type inference
def test_add_takes_its_type_from_the_wire_and_the_literal_follows():
    net = Network("infer")
    x = net.input("x", INT)
    a = net.add("a", blocks.ADD(), IN1=x, IN2=1)
    net.output("y", a.OUT)
    h = Harness(net)
    assert h.plc.program.signal("y").type is INT
    h.set(x=32767).scan()
    assert h.get("y") == -32768  # INT's wrap, not DINT's


def test_add_of_literals_alone_is_an_int():
    net = Network("lits")
    a = net.add("a", blocks.ADD(), IN1=2, IN2=3)
    net.output("y", a.OUT)
    h = Harness(net)
    assert h.plc.program.signal("y").type is INT
    assert h.scan().get("y") == 5


def test_chained_blocks_share_the_inferred_type():
    net = Network("chain")
    x = net.input("x", UDINT)
    a = net.add("a", blocks.SUB(), IN1=0, IN2=x)
    m = net.add("m", blocks.DIV(), IN1=a.OUT, IN2=2)
    net.output("y", m.OUT)
    h = Harness(net)
    h.set(x=1).scan()
    assert h.get("y") == 2147483647  # (2**32 - 1) // 2, unsigned all the way


def test_type_error_names_both_types():
    net = Network("clash")
    x = net.input("x", INT)
    y = net.input("y", DINT)
    a = net.add("a", blocks.ADD(), IN1=x, IN2=y)
    net.output("z", a.OUT)
    with pytest.raises(ValidationError) as err:
        Harness(net)
    text = str(err.value)
    assert re.search(r"\bINT\b", text) and re.search(r"\bDINT\b", text), text


def test_add_refuses_strings_naming_the_family():
    net = Network("strs")
    x = net.input("x", STRING)
    a = net.add("a", blocks.ADD(), IN1=x, IN2="b")
    net.output("z", a.OUT)
    with pytest.raises(ValidationError, match="ANY_MAGNITUDE.*STRING"):
        Harness(net)


# --------------------------------------------------- never an exception
EDGES = {
    "int": lambda tp: sorted({tp.min, tp.max, 0, 1, tp.min + 1, tp.max - 1}
                             | ({-1} if tp.signed else set())),
    "real": lambda tp: [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 16777217.0 if tp is LREAL else 16777216.0,
                        *((1e308, -1e308, 5e-324) if tp is LREAL else (FLT_MAX, -FLT_MAX, 1e-45)),
                        INF, -INF, NAN],
    "time": lambda tp: [ns(v) for v in (0, 1, -1, T_MIN, T_MAX)],
}


def same_value(a, b) -> bool:
    return a == b or (a != a and b != b)


def valid(tp, raw) -> bool:
    if tp.kind == "real":  # and a REAL result is a single-precision value
        return isinstance(raw, float) and (tp is LREAL or is_real32(raw))
    return isinstance(raw, int) and not isinstance(raw, bool) and tp.min <= raw <= tp.max


def concrete(types, port):
    return types[port.type] if isinstance(port.type, str) else port.type


ARITH = [name for name, cls in registry().items() if cls.family == "arith"]


def test_the_family_is_complete():
    assert sorted(ARITH) == sorted([
        "ADD", "SUB", "MUL", "DIV", "MOD", "ABS", "NEG", "EXPT", "MUL_TIME", "DIV_TIME",
        "SQRT", "LN", "LOG", "EXP", "SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN"])


@pytest.mark.parametrize("name", ARITH)
def test_no_block_raises_at_type_limits(name):
    """Every type each block accepts, every pair of edge values: a valid result,
    the same in the compiled scan and in the block-by-block interpreter."""
    cls = registry()[name]
    variables = list(cls.types)
    for combo in itertools.product(*(sorted(cls.types[v].members, key=str) for v in variables)):
        types = dict(zip(variables, combo))
        block = cls(types=types)
        h = Harness.block(block)
        ports = block.input_ports()
        in_types = [concrete(types, p) for p in ports]
        out_type = concrete(types, block.output_ports()[0])
        ref = Interpreter(h.plc.program)  # the same code text, run object by object
        for values in itertools.product(*(EDGES[tp.kind](tp) for tp in in_types)):
            for p, v in zip(ports, values):
                h.set({p.name: v})
                ref.set(p.name, v)
            h.scan()
            ref.scan()
            raw = h.plc.get_raw("OUT")
            assert valid(out_type, raw), (name, types, values, raw)
            assert same_value(raw, ref.get_raw("OUT")), (name, types, values)


def test_every_block_has_a_one_line_summary():
    for name in ARITH:
        summary = registry()[name].summary()
        assert summary and len(summary) < 100, name
