"""Type conversions X_TO_Y and TRUNC.

The table's expected values are worked out by hand from the IEC/C rule each
row names (two's complement wrap, matiec's rounding, seconds for TIME as matiec,
IEC literal text), never by calling the conversion code a second way.
"""

import datetime
import itertools
import math

import pytest

import blocks
from blocks.convert import CONVERTIBLE, Conversion
from fbd.block import register, registry
from fbd.compiler.interp import Interpreter
from fbd.errors import ValidationError
from fbd.network import Network
from fbd.real32 import FLT_MAX, is_real32
from fbd.testing import Harness
from fbd.types import DINT, INT, LINT, LREAL, REAL, SINT, STRING, UDINT, UINT, ULINT, USINT
from fbd.values import format_time

INF, NAN = math.inf, math.nan
T_MIN = -(1 << 63)
T_MAX = (1 << 63) - 1


def us(n: int) -> datetime.timedelta:
    return datetime.timedelta(microseconds=n)


def convert(name: str, value):
    """OUT of block ``name`` for IN = value (TIME out as integer ns)."""
    h = Harness.block(getattr(blocks, name)())
    h.set(IN=value).scan()
    return h.plc.get_raw("OUT")


def same(got, want) -> bool:
    """Equal, with the type: NaN equals NaN, -0.0 differs from 0.0, 1 is not True."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return got == want


TABLE = [
    # -- integer -> integer: the low bits, as a C cast
    ("DINT_TO_INT", 40000, -25536),             # 40000 - 65536
    ("DINT_TO_INT", -40000, 25536),
    ("INT_TO_SINT", 200, -56),
    ("INT_TO_SINT", -129, 127),
    ("INT_TO_USINT", -1, 255),
    ("INT_TO_UINT", -1, 65535),
    ("SINT_TO_INT", -128, -128),                 # widening keeps the value
    ("USINT_TO_SINT", 255, -1),
    ("UINT_TO_INT", 65535, -1),
    ("UINT_TO_INT", 32768, -32768),
    ("UDINT_TO_DINT", 4294967295, -1),
    ("DINT_TO_UDINT", -2147483648, 2147483648),
    ("LINT_TO_DINT", 4294967301, 5),              # 2**32 + 5
    ("LINT_TO_ULINT", -1, 18446744073709551615),
    ("ULINT_TO_LINT", 9223372036854775808, -9223372036854775808),
    ("ULINT_TO_USINT", 0x1234, 0x34),
    ("UDINT_TO_LINT", 4294967295, 4294967295),
    ("DINT_TO_LINT", -5, -5),
    # -- bit strings <-> integers and bit strings
    ("BYTE_TO_SINT", 255, -1),
    ("WORD_TO_INT", 0x8000, -32768),
    ("DWORD_TO_DINT", 0xFFFFFFFF, -1),
    ("LWORD_TO_LINT", 0xFFFFFFFFFFFFFFFF, -1),
    ("INT_TO_WORD", -1, 0xFFFF),
    ("SINT_TO_BYTE", -128, 0x80),
    ("DINT_TO_WORD", 0x12345678, 0x5678),
    ("WORD_TO_BYTE", 0x1234, 0x34),
    ("LWORD_TO_DWORD", 0x100000001, 1),
    ("BYTE_TO_LWORD", 0xFF, 0xFF),
    ("USINT_TO_BYTE", 7, 7),
    ("BYTE_TO_UDINT", 200, 200),
    ("WORD_TO_DWORD", 0xFFFF, 0xFFFF),
    # -- BOOL
    ("BOOL_TO_INT", True, 1),
    ("BOOL_TO_INT", False, 0),
    ("BOOL_TO_ULINT", True, 1),
    ("BOOL_TO_BYTE", True, 1),
    ("BOOL_TO_REAL", True, 1.0),
    ("BOOL_TO_LREAL", False, 0.0),
    ("BOOL_TO_TIME", True, 1_000_000_000),       # TRUE is 1 s, as matiec
    ("BOOL_TO_TIME", False, 0),
    ("INT_TO_BOOL", 5, True),
    ("INT_TO_BOOL", -1, True),
    ("INT_TO_BOOL", 0, False),
    ("BYTE_TO_BOOL", 2, True),                   # not zero, not the lowest bit
    ("WORD_TO_BOOL", 0, False),
    ("ULINT_TO_BOOL", 18446744073709551615, True),
    ("REAL_TO_BOOL", 0.5, True),
    ("REAL_TO_BOOL", -0.0, False),
    ("REAL_TO_BOOL", NAN, True),                 # as C: NaN != 0
    ("TIME_TO_BOOL", us(1), True),
    ("TIME_TO_BOOL", "T#0s", False),
    # -- integers and bit strings -> REAL: the value as a double
    ("INT_TO_REAL", -5, -5.0),
    ("DINT_TO_LREAL", 2147483647, 2147483647.0),
    ("WORD_TO_REAL", 65535, 65535.0),
    ("ULINT_TO_LREAL", 18446744073709551615, 18446744073709551616.0),   # nearest double, 2**64
    ("LWORD_TO_REAL", 9007199254740993, 9007199254740992.0),           # 2**53 + 1: ties to even
    # -- REAL -> integers: matiec's rounding (half up, an exact half to even), then wrap;
    # NaN/inf give 0 (each checked against matiec)
    ("REAL_TO_INT", 2.5, 2),
    ("REAL_TO_INT", 3.5, 4),
    ("REAL_TO_INT", 1.5, 2),
    ("REAL_TO_INT", -2.5, -2),
    ("REAL_TO_INT", -1.5, -2),
    ("REAL_TO_INT", 2.4999, 2),
    ("REAL_TO_INT", 2.6, 3),
    ("REAL_TO_INT", 0.5, 0),
    ("REAL_TO_INT", -0.5, 0),
    ("REAL_TO_INT", 1.0, 1),
    ("REAL_TO_INT", -1.0, -1),
    ("REAL_TO_INT", 0.49999999999999994, 0),     # + 0.5 is exactly 1.0 in double: even
    ("REAL_TO_INT", 40000.0, -25536),
    ("REAL_TO_INT", 32767.5, -32768),            # rounds to 32768, which wraps
    ("REAL_TO_INT", NAN, 0),
    ("REAL_TO_INT", INF, 0),
    ("REAL_TO_INT", -INF, 0),
    ("LREAL_TO_DINT", 2147483648.0, -2147483648),
    ("REAL_TO_UINT", -1.0, 0),                   # a negative REAL gives 0 (matiec)
    ("REAL_TO_UINT", -3.2, 0),
    ("REAL_TO_UINT", 70000.4, 4464),             # 70000 wraps like a C cast
    ("REAL_TO_USINT", 300.0, 44),
    ("REAL_TO_SINT", -200.0, 56),
    ("REAL_TO_USINT", 255.5, 0),                 # 256 wraps to 0
    ("LREAL_TO_LINT", 1e19, -8446744073709551616),   # 10**19 - 2**64
    ("LREAL_TO_ULINT", 1e19, 10000000000000000000),
    ("REAL_TO_BYTE", 3.7, 4),
    ("REAL_TO_WORD", -1.0, 0),
    ("LREAL_TO_LWORD", 18446744073709551616.0, 0),    # 2**64 wraps to 0
    ("LREAL_TO_SINT", -128.4, -128),
    # -- REAL <-> LREAL: the same double
    ("REAL_TO_LREAL", 1.5, 1.5),
    # -- to REAL: rounded once to single precision (matiec, iec2c 6bb2c339: these values)
    ("LREAL_TO_REAL", 0.1, 0.10000000149011612),
    ("LREAL_TO_REAL", 1e38, 9.999999680285692e+37),
    ("LREAL_TO_REAL", 1e300, INF),               # past FLT_MAX: C's float is inf
    ("LREAL_TO_REAL", -3.4028235677973366e38, -INF),   # FLT_MAX + half an ulp: even is inf
    ("LREAL_TO_REAL", 3.4028235677973362e38, 3.4028234663852886e38),
    ("LREAL_TO_REAL", 1e-46, 0.0),
    ("DINT_TO_REAL", 16777217, 16777216.0),
    ("LINT_TO_REAL", 2**60 + 2**36 + 1, 1.1529216420458004e18),  # once, not 2**60 via a double
    ("ULINT_TO_REAL", 18446744073709551615, 1.8446744073709552e19),
    ("LWORD_TO_REAL", 2**60 + 2**36, float(2**60)),   # a tie, to even
    ("STRING_TO_REAL", "0.1", 0.10000000149011612),
    ("LREAL_TO_REAL", NAN, NAN),
    # -- TIME -> integers: whole seconds toward zero, wrapped (matiec counts seconds)
    ("TIME_TO_DINT", "T#1s500ms", 1),
    ("TIME_TO_DINT", "T#1500us", 0),
    ("TIME_TO_DINT", us(-1_500_000), -1),
    ("TIME_TO_DINT", us(-999_999), 0),
    ("TIME_TO_INT", "T#40s", 40),
    ("TIME_TO_INT", "T#40000s", -25536),         # 40000 - 65536
    ("TIME_TO_UDINT", "T#-1ms", 0),
    ("TIME_TO_UDINT", "T#-1s", 4294967295),
    ("TIME_TO_LINT", "T#1d", 86400),
    ("TIME_TO_DWORD", "T#1h", 3600),
    ("TIME_TO_ULINT", "T#999ms", 0),
    ("TIME_TO_LINT", format_time(T_MIN), -9223372036),
    # -- integers -> TIME: seconds, wrapped at 64 bits of ns
    ("DINT_TO_TIME", 1500, 1_500_000_000_000),
    ("INT_TO_TIME", -5, -5_000_000_000),
    ("UDINT_TO_TIME", 4294967295, 4294967295_000_000_000),
    ("BYTE_TO_TIME", 255, 255_000_000_000),
    ("LINT_TO_TIME", -9223372036, -9223372036_000_000_000),
    ("LINT_TO_TIME", 9223372037, 9223372037_000_000_000 - 2**64),
    ("ULINT_TO_TIME", 18446744073709551615, -1_000_000_000),   # (2**64 - 1) * 10**9 mod 2**64
    # -- TIME <-> REAL: seconds with the fraction
    ("TIME_TO_REAL", "T#1s500ms", 1.5),
    ("TIME_TO_LREAL", "T#1500us", 0.0015),
    ("TIME_TO_REAL", us(-1000), -0.0010000000474974513),
    ("TIME_TO_LREAL", us(-1000), -0.001),
    ("REAL_TO_TIME", 1.5, 1_500_000_000),
    ("REAL_TO_TIME", 1500.0, 1_500_000_000_000),
    ("LREAL_TO_TIME", 0.0625, 62_500_000),
    ("LREAL_TO_TIME", -0.0000000625, -62),       # truncated toward zero to the ns
    ("REAL_TO_TIME", 1.0e-7, 100),               # the oracle's (the REAL is 1.00000001e-07)
    ("LREAL_TO_TIME", 0.0000015, 1500),          # the oracle's
    ("REAL_TO_TIME", NAN, 0),
    ("REAL_TO_TIME", -INF, 0),
    # -- to STRING: IEC literal text
    ("INT_TO_STRING", 5, "5"),
    ("INT_TO_STRING", -32768, "-32768"),
    ("SINT_TO_STRING", -1, "-1"),
    ("ULINT_TO_STRING", 18446744073709551615, "18446744073709551615"),
    ("BOOL_TO_STRING", True, "TRUE"),
    ("BOOL_TO_STRING", False, "FALSE"),
    # bit strings, REAL, LREAL and TIME as matiec's library writes them (iec2c
    # 6bb2c339df6f, each value read back from a STRING variable after one scan)
    ("BYTE_TO_STRING", 255, "16#ff"),
    ("WORD_TO_STRING", 0, "16#0"),
    ("LWORD_TO_STRING", 0xDEADBEEF, "16#deadbeef"),
    ("LWORD_TO_STRING", 2**64 - 1, "16#ffffffffffffffff"),
    ("REAL_TO_STRING", 1.5, "1.5"),
    ("REAL_TO_STRING", 42.0, "42"),
    ("REAL_TO_STRING", -2.5, "-2.5"),
    ("REAL_TO_STRING", 0.1, "0.1000000015"),          # the C float nearest 0.1
    ("REAL_TO_STRING", 1e20, "1.00000002e+20"),
    ("REAL_TO_STRING", 1.5e-7, "1.500000053e-07"),
    ("REAL_TO_STRING", -0.0, "-0"),
    ("REAL_TO_STRING", 1 / 3, "0.3333333433"),
    ("REAL_TO_STRING", 123456789.0, "123456792"),
    ("REAL_TO_STRING", 0.0001, "9.999999747e-05"),
    ("REAL_TO_STRING", 3.4028234663852886e38, "3.402823466e+38"),
    ("REAL_TO_STRING", INF, "inf"),
    ("REAL_TO_STRING", NAN, "nan"),
    ("REAL_TO_STRING", -NAN, "-nan"),                 # C prints a NaN's sign
    ("LREAL_TO_STRING", 42.0, "42"),
    ("LREAL_TO_STRING", 0.1, "0.1"),
    ("LREAL_TO_STRING", 1e20, "1e+20"),
    ("LREAL_TO_STRING", 1.5e-7, "1.5e-07"),
    ("LREAL_TO_STRING", -0.0, "-0"),
    ("LREAL_TO_STRING", 1 / 3, "0.3333333333"),
    ("LREAL_TO_STRING", 12345678901.0, "1.23456789e+10"),
    ("LREAL_TO_STRING", 1e-5, "1e-05"),
    ("LREAL_TO_STRING", 1e-30, "1e-30"),
    ("LREAL_TO_STRING", -INF, "-inf"),
    ("TIME_TO_STRING", "T#1s500ms", "T#0d0h0m1s500ms"),
    ("TIME_TO_STRING", "T#0s", "T#0d"),
    ("TIME_TO_STRING", "T#2d", "T#2d"),
    ("TIME_TO_STRING", "T#90m", "T#0d1h30m"),
    ("TIME_TO_STRING", "T#3m", "T#0d0h3m"),
    ("TIME_TO_STRING", "T#-1s500ms", "T#0d0h0m-1s-500ms"),
    ("TIME_TO_STRING", "T#-2m", "T#0d0h-2m"),
    ("TIME_TO_STRING", "T#1d2h3m4s5ms6us", "T#1d2h3m4s5.006ms"),
    ("TIME_TO_STRING", "T#0.25ms", "T#0d0h0m0s0.25ms"),    # matiec: 0.249999 (its literal)
    ("TIME_TO_STRING", "T#333us333ns", "T#0d0h0m0s0.333333ms"),   # the oracle's T#1ms / 3
    ("TIME_TO_STRING", "T#1ns", "T#0d0h0m0s1e-06ms"),
    # -- from STRING: as matiec's __pstring_to_sint / atof read it (the oracle's rows, iec2c 6bb2c339df6f)
    ("STRING_TO_INT", "5", 5),
    ("STRING_TO_INT", " -42 ", 42),            # matiec: the sign only as the first character
    ("STRING_TO_INT", "+7", 7),
    ("STRING_TO_INT", "16#FF", 255),
    ("STRING_TO_INT", "2#1010", 10),
    ("STRING_TO_INT", "8#17", 15),
    ("STRING_TO_INT", "INT#-5", 0),             # matiec: a letter starts the number again
    ("STRING_TO_INT", "1_000", 1),
    ("STRING_TO_INT", "40000", -25536),          # wraps like INT's cast
    ("STRING_TO_INT", "abc", 0),
    ("STRING_TO_INT", "", 0),
    ("STRING_TO_INT", "12abc", 12),
    ("STRING_TO_INT", "1.5", 1),
    ("STRING_TO_INT", "1 2", 12),                # blanks and signs are skipped
    ("STRING_TO_INT", "FF", 0),
    ("STRING_TO_UINT", "-1", 65535),
    ("STRING_TO_BYTE", "16#1FF", 0xFF),
    ("STRING_TO_DWORD", "16#DEADBEEF", 0xDEADBEEF),
    ("STRING_TO_ULINT", "18446744073709551615", 18446744073709551615),
    ("STRING_TO_LINT", "9223372036854775808", -9223372036854775808),
    ("STRING_TO_REAL", "1.5", 1.5),
    ("STRING_TO_REAL", "-2.5E3", -2500.0),
    ("STRING_TO_REAL", "1e3", 1.0),             # no '.': the integer reading
    ("STRING_TO_REAL", "1_000.5", 1.0),         # a '.': C's atof
    ("STRING_TO_REAL", "1.5e3", 1500.0),
    ("STRING_TO_REAL", "3.5x", 3.5),
    ("STRING_TO_REAL", " 2.5 ", 2.5),
    ("STRING_TO_REAL", "REAL#1.5", 0.0),
    ("STRING_TO_LREAL", "LREAL#2.0", 0.0),
    ("STRING_TO_LREAL", "1.8e309", INF),
    ("STRING_TO_LREAL", "-.5x.", -0.5),
    ("STRING_TO_LINT", "2#1" + "0" * 31, -2147483648),   # gcc's int shift, sign-extended
    ("STRING_TO_LREAL", "5", 5.0),
    ("STRING_TO_LREAL", "16#FF", 255.0),
    ("STRING_TO_LREAL", "1e999", 1.0),
    ("STRING_TO_REAL", "nan", 0.0),              # not IEC literals
    ("STRING_TO_REAL", "inf", 0.0),
    ("STRING_TO_REAL", "abc", 0.0),
    ("STRING_TO_REAL", "", 0.0),
    ("STRING_TO_REAL", "1.", 1.0),
    ("STRING_TO_REAL", ".5", 0.0),
    ("STRING_TO_BOOL", "TRUE", True),
    ("STRING_TO_BOOL", "true", True),
    ("STRING_TO_BOOL", " True ", True),
    ("STRING_TO_BOOL", "1", True),
    ("STRING_TO_BOOL", "BOOL#1", True),
    ("STRING_TO_BOOL", "FALSE", False),
    ("STRING_TO_BOOL", "0", False),
    ("STRING_TO_BOOL", "yes", False),
    ("STRING_TO_BOOL", "2", False),
    ("STRING_TO_BOOL", "", False),
    ("STRING_TO_TIME", "T#1s500ms", 1_500_000_000),
    ("STRING_TO_TIME", "TIME#-2m", -120_000_000_000),
    ("STRING_TO_TIME", "t#1.5s", 1_500_000_000),
    ("STRING_TO_TIME", "T#1h_30m", 5_400_000_000_000),
    # any other text as matiec reads every text (its rows: oracle.py, STRING_TO_TIME of each):
    # the number it starts with, as seconds, the fraction lost
    ("STRING_TO_TIME", "42", 42_000_000_000),
    ("STRING_TO_TIME", "3.5", 3_000_000_000),
    ("STRING_TO_TIME", "-2.25", -2_000_000_000),
    ("STRING_TO_TIME", "-0.5", 0),
    ("STRING_TO_TIME", "1s500ms", 1_000_000_000),
    ("STRING_TO_TIME", " 7", 7_000_000_000),
    ("STRING_TO_TIME", ".5", 0),
    ("STRING_TO_TIME", "1e3", 1_000_000_000),
    ("STRING_TO_TIME", "2.5e1", 25_000_000_000),
    ("STRING_TO_TIME", "12:00:00", 12_000_000_000),
    ("STRING_TO_TIME", "16#10", 16_000_000_000),
    ("STRING_TO_TIME", "99999999999", 7_766_279_630_452_241_920),   # 64 bits of ns, wrapped
    ("STRING_TO_TIME", "garbage", 0),
    ("STRING_TO_TIME", "", 0),
    ("STRING_TO_TIME", "T#", 0),
    ("STRING_TO_TIME", "T#5x", 0),
    ("STRING_TO_TIME", "T#" + "9" * 122 + "d", 7_886_392_055_514_347_008),   # no exception
]


@pytest.mark.parametrize("name, value, want", TABLE, ids=lambda v: repr(v)[:24])
def test_conversion_table(name, value, want):
    got = convert(name, value)
    assert same(got, want), f"{name}({value!r}) = {got!r}, expected {want!r}"


# ------------------------------------------------------------ round trips
@pytest.mark.parametrize("tp, values", [
    (INT, [-32768, -1, 0, 32767]),
    (ULINT, [0, 18446744073709551615]),
    (LINT, [-9223372036854775808, 9223372036854775807]),
])
def test_integers_round_trip_through_string(tp, values):
    net = Network("rt")
    x = net.input("x", tp)
    s = net.add("s", getattr(blocks, f"{tp}_TO_STRING")(), IN=x)
    b = net.add("b", getattr(blocks, f"STRING_TO_{tp}")(), IN=s.OUT)
    net.output("y", b.OUT)
    h = Harness(net)
    for v in values:
        assert h.set(x=v).scan().get("y") == v


#: matiec's text has ten significant digits: values with no more round-trip
#: (1e20 does not: matiec reads its '1e+20', which has no '.', as the integer 1)
@pytest.mark.parametrize("value", [0.1, -1.5e-300, 1.5e20, 123456.789, 2.0 ** 30, 5e-324])
def test_lreal_of_ten_digits_round_trips_through_string(value):
    net = Network("rt")
    x = net.input("x", LREAL)
    s = net.add("s", blocks.LREAL_TO_STRING(), IN=x)
    b = net.add("b", blocks.STRING_TO_LREAL(), IN=s.OUT)
    net.output("y", b.OUT)
    h = Harness(net)
    assert h.set(x=value).scan().get("y") == value


#: matiec writes a negative TIME's parts each negative (T#0d-2h), which is no IEC literal
@pytest.mark.parametrize("value", ["T#1s500ms", "T#1d2h", "T#1us", "T#0s", "T#3d4h5m6s7ms"])
def test_a_positive_time_round_trips_through_string(value):
    net = Network("rt")
    x = net.input("x", blocks.TIME_TO_STRING.source)
    s = net.add("s", blocks.TIME_TO_STRING(), IN=x)
    b = net.add("b", blocks.STRING_TO_TIME(), IN=s.OUT)
    net.output("y", b.OUT)
    h = Harness(net)
    assert h.set(x=value).scan().get("y") == h.get("x")


# ------------------------------------------------------------------ TRUNC
TRUNC_TYPES = [SINT, INT, DINT, LINT, USINT, UINT, UDINT, ULINT]
# matiec (iec2c 6bb2c339df6f, gcc on x86-64): x := TRUNC(lr) into each of TRUNC_TYPES, lr an
# LREAL set per scan; inf, -inf and nan are 1.0 / z, -1.0 / z and 0.0 / z with z = 0.0
TRUNC_ROWS = """
2.7,2,2,2,2,2,2,2,2
-2.7,-2,-2,-2,-2,254,65534,4294967294,18446744073709551614
0.5,0,0,0,0,0,0,0,0
-0.5,0,0,0,0,0,0,0,0
127.9,127,127,127,127,127,127,127,127
-128.9,-128,-128,-128,-128,128,65408,4294967168,18446744073709551488
300.7,44,300,300,300,44,300,300,300
-300.7,-44,-300,-300,-300,212,65236,4294966996,18446744073709551316
70000.5,112,4464,70000,70000,112,4464,70000,70000
-70000.5,-112,-4464,-70000,-70000,144,61072,4294897296,18446744073709481616
3e9,0,0,-2147483648,3000000000,0,0,3000000000,3000000000
-3e9,0,0,-2147483648,-3000000000,0,0,1294967296,18446744070709551616
5e9,0,0,-2147483648,5000000000,0,0,705032704,5000000000
1e19,0,0,-2147483648,-9223372036854775808,0,0,0,10000000000000000000
-1e19,0,0,-2147483648,-9223372036854775808,0,0,0,9223372036854775808
1e20,0,0,-2147483648,-9223372036854775808,0,0,0,0
inf,0,0,-2147483648,-9223372036854775808,0,0,0,0
-inf,0,0,-2147483648,-9223372036854775808,0,0,0,9223372036854775808
nan,0,0,-2147483648,-9223372036854775808,0,0,0,9223372036854775808
"""


@pytest.mark.parametrize("engine", ["python", "native"])
def test_trunc_gives_what_matiecs_c_cast_gives_in_range_and_beyond(engine):
    harnesses = [Harness.block(blocks.TRUNC(types={"I": out, "R": LREAL}), engine=engine)
                 for out in TRUNC_TYPES]
    for row in TRUNC_ROWS.split():
        value, *want = row.split(",")
        got = [h.set(IN=float(value)).scan().get("OUT") for h in harnesses]
        assert got == [int(w) for w in want], value


@pytest.mark.parametrize("out_type, in_type, value, want", [
    (INT, REAL, 2.9, 2),
    (INT, REAL, -2.9, -2),
    (INT, REAL, -0.5, 0),
    (INT, REAL, 40000.7, -25536),
    (INT, REAL, NAN, 0),
    (INT, REAL, INF, 0),
    (DINT, LREAL, -2147483648.9, -2147483648),
    (USINT, REAL, -1.0, 255),
    (ULINT, LREAL, 1e19, 10000000000000000000),
])
def test_trunc_truncates_toward_zero_and_wraps(out_type, in_type, value, want):
    h = Harness.block(blocks.TRUNC(types={"I": out_type, "R": in_type}))
    assert h.set(IN=value).scan().get("OUT") == want


def test_trunc_names_its_output_type_first_and_infers_the_input():
    net = Network("tr")
    x = net.input("x", LREAL)
    t = net.add("t", blocks.TRUNC(UINT), IN=x)
    net.output("y", t.OUT)
    h = Harness(net)
    assert h.plc.program.signal("y").type is UINT
    assert h.set(x=65536.5).scan().get("y") == 0


def test_trunc_output_type_must_be_known():
    net = Network("tr")
    x = net.input("x", REAL)
    t = net.add("t", blocks.TRUNC(), IN=x)
    net.output("y", t.OUT)
    with pytest.raises(ValidationError, match="cannot infer type I of TRUNC"):
        Harness(net)


def test_conversion_input_type_is_checked():
    net = Network("bad")
    x = net.input("x", DINT)
    c = net.add("c", blocks.INT_TO_REAL(), IN=x)
    net.output("y", c.OUT)
    with pytest.raises(ValidationError, match=r"x is DINT but c\.IN is INT"):
        Harness(net)


# ------------------------------------------------------- the generated set
PAIRS = [(a, b) for a in CONVERTIBLE for b in CONVERTIBLE if a is not b]


def test_every_pair_of_elementary_types_has_exactly_one_conversion():
    conv = {n: c for n, c in registry().items() if c.family == "convert" and n != "TRUNC"}
    assert len(PAIRS) == 272
    assert sorted(conv) == sorted(f"{a}_TO_{b}" for a, b in PAIRS)
    for a, b in PAIRS:
        cls = conv[f"{a}_TO_{b}"]
        assert (cls.source, cls.target) == (a, b)
        assert [p.type for p in cls.inputs] == [a] and [p.type for p in cls.outputs] == [b]
    assert "INT_TO_INT" not in registry()


def test_conversions_are_importable_from_the_module():
    from blocks.convert import STRING_TO_TIME, WORD_TO_BYTE
    assert WORD_TO_BYTE is blocks.WORD_TO_BYTE and STRING_TO_TIME.target.name == "TIME"


def test_registering_a_conversion_twice_is_an_error():
    twin = type("INT_TO_REAL", (Conversion,), {"source": INT, "target": REAL,
                                               "inputs": [], "outputs": []})
    with pytest.raises(ValueError, match="INT_TO_REAL is registered twice"):
        register(twin)
    assert registry()["INT_TO_REAL"] is blocks.INT_TO_REAL


def test_every_conversion_has_a_one_line_summary_naming_both_types():
    for a, b in PAIRS:
        summary = getattr(blocks, f"{a}_TO_{b}").summary()
        assert summary.startswith(f"Convert {a} to {b}: "), summary
        assert len(summary) < 110


# --------------------------------------------------- never an exception
EDGE_INPUTS = {
    "bool": lambda tp: [False, True],
    "int": lambda tp: sorted({tp.min, tp.max, 0, 1} | ({-1} if tp.signed else set())),
    "bits": lambda tp: [0, 1, tp.max],
    "real": lambda tp: [0.0, -0.0, 0.5, -0.5, 2.5, INF, -INF, NAN,
                        *((1e300, -1e300, 5e-324) if tp.bits == 64 else (FLT_MAX, -FLT_MAX, 1e-45))],
    "time": lambda tp: [format_time(v) for v in (0, 1, -1, 1500, T_MIN, T_MAX)],
    "string": lambda tp: ["", "abc", "-1", "16#FF", "T#1s", "1.5e3", "TRUE", "x" * 126,
                          "9" * 126, "-" + "9" * 125, "2#" + "1" * 124, "T#" + "9" * 122 + "d",
                          "1e999", "1.0E-99999", "2#", "16#", "#", "INT#", "T#-", "  "],
}


def valid(tp, raw) -> bool:
    kind = tp.kind
    if kind == "bool":
        return type(raw) is bool
    if kind == "real":  # a REAL's value is a single-precision one
        return type(raw) is float and (tp.bits == 64 or is_real32(raw))
    if kind == "string":
        return type(raw) is str and len(raw) <= 126
    return type(raw) is int and tp.min <= raw <= tp.max  # int, bits, time


@pytest.mark.parametrize("src", CONVERTIBLE, ids=str)
def test_no_conversion_raises_on_edge_values(src):
    """Every conversion from ``src``, on its edge values: a valid result, the same
    in the compiled scan and in the block-by-block interpreter."""
    for dst in CONVERTIBLE:
        if dst is src:
            continue
        h = Harness.block(getattr(blocks, f"{src}_TO_{dst}")())
        ref = Interpreter(h.plc.program)  # the same code text, run object by object
        for value in EDGE_INPUTS[src.kind](src):
            raw = h.set(IN=value).scan().plc.get_raw("OUT")
            ref.set("IN", value)
            ref.scan()
            assert valid(dst, raw), f"{src}_TO_{dst}({value!r}) = {raw!r}"
            assert same(raw, ref.get_raw("OUT")), f"{src}_TO_{dst}({value!r}): interpreter differs"


def test_no_trunc_raises_on_edge_values():
    for out_type, in_type in itertools.product(
            sorted(blocks.TRUNC.types["I"].members, key=str), (REAL, LREAL)):
        h = Harness.block(blocks.TRUNC(types={"I": out_type, "R": in_type}))
        for value in EDGE_INPUTS["real"](in_type):
            assert valid(out_type, h.set(IN=value).scan().plc.get_raw("OUT"))


def test_string_conversion_output_is_a_string_type():
    assert blocks.INT_TO_STRING.target is STRING
    assert blocks.STRING_TO_LINT.target is LINT
