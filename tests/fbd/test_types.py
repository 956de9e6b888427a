import datetime

import pytest

from fbd import types as t


@pytest.mark.parametrize("tp, value, wrapped", [
    (t.INT, 32768, -32768), (t.INT, -32769, 32767), (t.SINT, 128, -128), (t.UINT, -1, 65535),
    (t.USINT, 256, 0), (t.DINT, 2**31, -2**31), (t.UDINT, 2**32 + 5, 5),
    (t.LINT, 2**63, -2**63), (t.ULINT, -1, 2**64 - 1), (t.WORD, 0x1FFFF, 0xFFFF),
])
def test_integers_wrap_at_their_width_like_compiled_code(tp, value, wrapped):
    assert tp.wrap_value(value) == wrapped
    assert eval(tp.wrap(str(value))) == wrapped  # the generated expression agrees


@pytest.mark.parametrize("tp", [t.SINT, t.USINT, t.INT, t.UINT, t.DINT, t.UDINT, t.LINT,
                                t.ULINT, t.BYTE, t.WORD, t.TIME])
def test_wrap_into_wraps_every_sum_and_difference_of_two_values(tp):
    """The statements ADD and SUB of two inputs compile to agree with wrap_value
    at the ends of the range, where one correction must be enough."""
    edges = [tp.min, tp.min + 1, -1, 0, 1, tp.max // 2, tp.max - 1, tp.max]
    edges = [v for v in edges if tp.min <= v <= tp.max]
    code = compile("\n".join(tp.wrap_into("out", "a + b") + tp.wrap_into("d", "a - b")),
                   "wrap", "exec")
    for a in edges:
        for b in edges:
            env = {"a": a, "b": b}
            exec(code, env)
            assert (env["out"], env["d"]) == (tp.wrap_value(a + b), tp.wrap_value(a - b)), (a, b)


@pytest.mark.parametrize("text, ns", [
    ("T#1s500ms", 1_500_000_000), ("TIME#-2m", -120_000_000_000), ("t#1.5s", 1_500_000_000),
    ("T#1d2h3m4s5ms6us", 93_784_005_006_000), ("T#0s", 0), ("T#5ms", 5_000_000),
    ("LTIME#1h", 3_600_000_000_000), ("T#1.5us", 1500), ("T#2ns", 2), ("T#0.25ms", 250_000),
])
def test_time_literals_parse_to_nanoseconds(text, ns):
    assert t.parse_time(text) == ns


@pytest.mark.parametrize("text", ["1s", "T#", "T#5x", "T#1s 2ms", "T#ms"])
def test_bad_time_literals_are_rejected_with_the_text(text):
    with pytest.raises(t.InvalidValue, match="TIME literal"):
        t.parse_time(text)


def test_time_formats_back_to_the_shortest_literal():
    assert t.format_time(1_500_000_000) == "T#1s500ms"
    assert t.format_time(-5_000_000) == "T#-5ms"
    assert t.format_time(1_000_001) == "T#1ms1ns"
    assert t.format_time(0) == "T#0s"


def test_coerce_accepts_iec_literals_and_refuses_out_of_range():
    assert t.TIME.coerce(datetime.timedelta(milliseconds=5)) == 5_000_000
    assert t.TIME.coerce("T#1s") == 1_000_000_000
    assert t.BOOL.coerce("TRUE") is True
    assert t.WORD.coerce("16#FF") == 255
    assert t.INT.coerce("INT#-5") == -5
    assert t.REAL.coerce(2) == 2.0
    assert t.REAL.coerce(0.1) == 0.10000000149011612     # a REAL holds single precision
    assert t.REAL.coerce("0.1") == t.REAL.coerce(0.1) and t.LREAL.coerce("0.1") == 0.1
    assert t.REAL.coerce(16777217) == 16777216.0 and t.LREAL.coerce(16777217) == 16777217.0
    assert t.REAL.coerce(2**60 + 2**36 + 1) == 2.0**60 + 2.0**37  # rounded once
    assert t.REAL.coerce(float("inf")) == float("inf") and t.LREAL.coerce(1e39) == 1e39
    with pytest.raises(t.InvalidValue, match=r"x: 1e\+39 is out of range for REAL"):
        t.REAL.coerce(1e39, "x")
    with pytest.raises(t.InvalidValue, match="out of range for REAL"):
        t.REAL.coerce("3.5E38")
    with pytest.raises(t.InvalidValue, match="out of range for REAL"):
        t.REAL.coerce(10**39)
    with pytest.raises(t.InvalidValue, match=r"x: 40000 is out of range for INT \(-32768..32767\)"):
        t.INT.coerce(40000, "x")
    with pytest.raises(t.InvalidValue, match="is not a BOOL"):
        t.BOOL.coerce(2)
    with pytest.raises(t.InvalidValue, match="longer than STRING"):
        t.STRING.coerce("x" * 255)


def test_a_declared_string_holds_its_own_length():
    assert t.string_of(t.STRING_MAX) is t.STRING and t.string_of(200) is t.string_of(200)
    assert t.string_of(200).coerce("x" * 200) == "x" * 200 and t.STRING.coerce("x" * 126)
    assert [tp.capacity for tp in (t.STRING, t.string_of(10), t.string_of(200), t.INT)] == [
        126, 10, 200, None]
    alias = t.DerivedType.of("Name", t.string_of(10))
    assert alias.capacity == 10 and alias.canonical is t.STRING
    with pytest.raises(t.InvalidValue, match=r"x: string of 11 characters is longer than STRING\[10\]'s 10"):
        alias.coerce("y" * 11, "x")
    with pytest.raises(t.InvalidValue, match=r"longer than STRING\[200\]'s 200"):
        t.string_of(200).coerce("y" * 201)
    with pytest.raises(t.InvalidValue, match=r"is not a STRING\[200\]"):
        t.string_of(200).coerce(5)
    for length in (0, t.STRING_DECLARED_MAX + 1):
        with pytest.raises(t.InvalidValue, match="a STRING's length is 1..32,767"):
            t.string_of(length)


def test_families_hold_the_iec_members():
    assert t.INT in t.ANY_INT and t.INT in t.ANY_NUM and t.INT not in t.ANY_BIT
    assert t.WORD in t.ANY_BIT and t.WORD not in t.ANY_NUM
    assert t.TIME in t.ANY_MAGNITUDE and t.TIME not in t.ANY_NUM
    assert t.by_name("lreal") is t.LREAL
    with pytest.raises(t.InvalidValue, match="unknown type"):
        t.by_name("FLOAT")


@pytest.mark.parametrize("text", ["_1", "1__0", "16#-FF", "T#5", "FOO#7", "16#", "1_", "2#102"])
def test_malformed_integer_literals_are_refused(text):
    with pytest.raises(t.InvalidValue, match="is not an integer literal"):
        t.parse_int_literal(text)


def test_time_values_beyond_64_bits_of_nanoseconds_are_refused():
    with pytest.raises(t.InvalidValue, match="out of range for TIME"):
        t.TIME.coerce(datetime.timedelta(days=110_000))
    with pytest.raises(t.InvalidValue, match="out of range for TIME"):
        t.TIME.coerce("T#999999999999d")


def test_numpy_scalars_from_a_trace_are_accepted_as_their_python_values():
    import numpy as np

    from fbd import BOOL, INT, LREAL, UINT
    assert BOOL.coerce(np.bool_(True)) is True
    assert INT.coerce(np.int64(-5)) == -5 and type(INT.coerce(np.int16(7))) is int
    assert LREAL.coerce(np.float32(1.5)) == 1.5
    with pytest.raises(t.InvalidValue, match="out of range for UINT"):
        UINT.coerce(np.int64(-1))


def test_a_type_counts_the_types_it_is_built_on_and_the_values_it_holds():
    row = t.ArrayType.of(t.INT, [(1, 10)])
    pair = t.StructType.of("PAIR", [("a", row), ("b", t.REAL)])
    grid = t.ArrayType.of(pair, [(0, 2), (0, 1)], "GRID")
    alias = t.DerivedType.of("MY_GRID", grid)
    assert [tp.depth for tp in (t.INT, row, pair, grid, alias)] == [1, 2, 3, 4, 5]
    assert [tp.elements for tp in (t.INT, row, pair, grid, alias)] == [1, 10, 11, 66, 66]


def test_a_type_nested_past_the_limit_is_refused_when_it_is_made():
    tp = t.INT
    for k in range(t.MAX_TYPE_DEPTH - 1):
        tp = t.DerivedType.of(f"T{k}", tp) if k % 2 else t.ArrayType.of(tp, [(0, 0)])
    assert tp.depth == t.MAX_TYPE_DEPTH
    with pytest.raises(t.InvalidValue, match=f"built on 33 types .* more than the {t.MAX_TYPE_DEPTH}"):
        t.StructType.of("DEEP", [("x", tp)])


def test_a_value_of_more_elements_than_one_may_hold_is_refused_before_it_is_made():
    big = t.ArrayType.of(t.LREAL, [(0, t.ARRAY_MAX - 1)], "BIG_ROW")   # the largest array
    with pytest.raises(t.InvalidValue, match="would hold 1,048,577 elements, more than the 1,048,576"):
        t.StructType.of("BIG", [("a", big), ("b", t.INT)])
    row = t.ArrayType.of(t.INT, [(1, 1024)])
    with pytest.raises(t.InvalidValue, match="would hold 1,049,600 elements"):
        t.ArrayType.of(row, [(1, 1025)])                           # each dimension fits, not the whole
    assert "default" not in vars(big)                              # nothing was built
