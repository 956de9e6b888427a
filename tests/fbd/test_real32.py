"""REAL as IEEE single precision held in Python floats: the rounding, its code
form and its shortest text agree with C's float (numpy's float32 cast is C's
``(float)`` of a double, so it is the reference here), bit for bit."""

import ast
import math
import random
import struct

import numpy as np
import pytest

from fbd.real32 import (
    FLT_MAX,
    FLT_MIN,
    NAMES,
    OVERFLOW,
    int_to_real32,
    is_real32,
    match_real32_code,
    real32_code,
    real32_text,
    round_real32,
)

SPECIAL = [0.0, -0.0, 0.1, 0.2, 0.1 + 0.2, 1 / 3, 16777217.0, 16777219.0, FLT_MAX, -FLT_MAX,
           OVERFLOW, -OVERFLOW, math.nextafter(OVERFLOW, 0), math.nextafter(-OVERFLOW, 0),
           1e39, 1e300, 1.401298464324817e-45, 7.006492321624085e-46, 7.006492321624087e-46,
           1e-46, 1.1754942106924411e-38, 5e-324, math.inf, -math.inf, math.nan, -math.nan]


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def c_float(x: float) -> float:
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.float64(x).astype(np.float32))


def random_doubles(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        yield struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    for _ in range(n):   # values near the rounding points of single precision
        yield rng.uniform(-1e6, 1e6) * 2.0 ** rng.randint(-140, 100)


@pytest.mark.parametrize("x", SPECIAL, ids=repr)
def test_rounding_is_cs_float_conversion_on_the_edge_cases(x):
    assert bits(round_real32(x)) == bits(c_float(x))


def test_rounding_is_cs_float_conversion_on_random_doubles_nan_payloads_and_signs_too():
    for x in random_doubles(20_000, 1):
        assert bits(round_real32(x)) == bits(c_float(x)), x


def test_the_code_form_rounds_as_the_function_does_nested_too():
    ns = dict(NAMES)
    code = real32_code
    one = eval(f"lambda x: {code('x')}", ns)
    two = eval(f"lambda x, y: {code(code('x') + ' + y')}", ns)
    for x in [*SPECIAL, *random_doubles(2000, 2)]:
        assert bits(one(x)) == bits(round_real32(x)), x
        assert bits(two(x, 0.1)) == bits(c_float(c_float(x) + 0.1)), x


def _split(x):
    """The code form's arithmetic, on numpy doubles (the same IEEE operations)."""
    c = x * 536870913.0
    return c - (c - x)


@pytest.mark.parametrize("exponent", [-126, 0, 104])
def test_the_split_rounds_ties_to_even_on_every_mantissa_of_a_binade(exponent):
    """Every 24-bit mantissa of the binade 2**exponent: the exact halves between it
    and the next (their ties), each a double step above and below, and the
    mantissa itself, negative too, against the float32 cast."""
    m = np.arange(1 << 23, 1 << 24, dtype=np.int64)
    if exponent == 104:
        m = m[:-1]   # FLT_MAX's half step up is OVERFLOW, which the code leaves to the cast
    tie = (2 * m + 1).astype(np.float64) * 2.0 ** (exponent - 24)
    for x in (tie, np.nextafter(tie, np.inf), np.nextafter(tie, -np.inf), -tie,
              m.astype(np.float64) * 2.0 ** (exponent - 23)):
        assert (_split(x) == x.astype(np.float32).astype(np.float64)).all()


def test_the_code_form_is_known_by_its_shape_and_its_names():
    node = ast.parse(real32_code("a + b * c"), mode="eval").body
    name, inner = match_real32_code(node, dict(NAMES))
    assert name == "_r32" and ast.unparse(inner) == "a + b * c"
    assert match_real32_code(node, {"_f32_round": round}) is None       # someone else's
    other = ast.parse(real32_code("x").replace("536870913.0", "536870912.0"), mode="eval").body
    assert match_real32_code(other, dict(NAMES)) is None
    assert ast.unparse(node) == ast.unparse(ast.parse(real32_code("a + b * c"), mode="eval").body)
    assert FLT_MIN == 2.0 ** -126


def test_an_integer_rounds_once_as_cs_cast_of_a_64_bit_integer():
    # through a double 2**60 + 2**36 + 1 would become 2**60 + 2**36, a tie, then 2**60
    assert int_to_real32(2**60 + 2**36 + 1) == 2.0**60 + 2.0**37
    assert int_to_real32(-(2**60 + 2**36 + 1)) == -(2.0**60 + 2.0**37)
    assert int_to_real32(2**60 + 2**36) == 2.0**60
    rng = random.Random(3)
    for _ in range(20_000):
        n = rng.randint(-2**63, 2**63 - 1) >> rng.randint(0, 40)
        assert int_to_real32(n) == float(np.float32(np.int64(n))), n
        u = rng.getrandbits(64)
        assert int_to_real32(u) == float(np.float32(np.uint64(u))), u


@pytest.mark.parametrize("x, text", [
    (0.1, "0.1"), (1 / 3, "0.33333334"), (16777217.0, "16777216.0"), (FLT_MAX, "3.4028235e+38"),
    (1e-45, "1e-45"), (-0.0, "-0.0"), (1e30, "1e+30"), (2.5, "2.5"), (math.inf, "inf"),
])
def test_the_text_of_a_real_is_the_shortest_that_reads_back_to_it(x, text):
    assert real32_text(round_real32(x)) == text


def test_the_text_of_any_real_reads_back_to_it_with_no_more_digits_than_numpys():
    for x in random_doubles(3000, 4):
        r = round_real32(x)
        if not math.isfinite(r):
            continue
        text = real32_text(r)
        assert round_real32(float(text)) == r
        digits = len(text.split("e")[0].replace("-", "").replace(".", "").strip("0"))
        shortest = np.format_float_scientific(np.float32(r), unique=True, trim="-")
        want = len(shortest.split("e")[0].replace("-", "").replace(".", "").strip("0"))
        assert digits <= want, (r, text, shortest)


def test_a_real_is_told_from_a_double():
    assert is_real32(0.10000000149011612) and not is_real32(0.1)
    assert is_real32(math.nan) and is_real32(-math.inf) and not is_real32(1e39)
