"""The IEC value codec and the derived types: one spelling everywhere, bounded parsing."""

import datetime as dt

import pytest

import blocks
from fbd import INT, Network
from fbd import types as t
from fbd import values as v
from fbd.compiler import flatten
from fbd.errors import FbdError, InvalidValue
from fbd.testing import Harness


@pytest.mark.parametrize("tp, raw, text", [
    (t.BOOL, True, "TRUE"), (t.INT, -7, "-7"), (t.WORD, 255, "16#FF"),
    (t.REAL, 1.5, "1.5"), (t.LREAL, 1e30, "1.0E+30"), (t.TIME, 1_500_000_000, "T#1s500ms"),
    (t.TIME, 1_001, "T#1us1ns"), (t.TIME, -333_333, "T#-333us333ns"),
    (t.DATE, 19753 * 86_400_000_000_000, "D#2024-01-31"),
    (t.TOD, 43_200_500_000_000, "TOD#12:00:00.5"), (t.TOD, 43_200_000_333_333, "TOD#12:00:00.000333333"),
    (t.DT, 19753 * 86_400_000_000_000 + 3_600_000_000_000, "DT#2024-01-31-01:00:00"),
    (t.STRING, "it's\n", "'it$'s$N'"),
])
def test_every_elementary_value_reads_back_from_its_text(tp, raw, text):
    assert v.format_value(tp, raw) == text
    assert v.parse_value(tp, text) == raw


def test_a_real_reads_as_the_shortest_text_of_its_single_precision_value():
    single = t.REAL.coerce(0.1)      # 0.10000000149011612
    assert v.format_value(t.REAL, single) == "0.1" and v.format_value(t.LREAL, single) != "0.1"
    assert v.format_value(t.LREAL, 0.1) == "0.1"
    assert v.format_value(t.REAL, t.REAL.coerce(1 / 3)) == "0.33333334"
    assert v.format_value(t.REAL, t.REAL.coerce(1e30)) == "1.0E+30"
    assert v.csv_value(t.REAL, single) == "0.1" and v.json_value(t.REAL, single) == single
    assert v.parse_value(t.REAL, v.format_value(t.REAL, single)) == single


def test_a_literal_knows_its_type_from_its_spelling():
    assert v.parse_literal("INT#5") == (5, "INT")
    assert v.parse_literal("T#2s") == (2_000_000_000, "TIME")
    assert v.parse_literal("16#FF") == (255, None)
    assert v.parse_literal("'a$$b'") == ("a$b", "STRING")
    assert v.parse_literal("TOD#00:00:01")[1] == "TOD"
    assert v.parse_literal("-2.5E-3") == (-0.0025, None)


@pytest.mark.parametrize("text, why", [
    ("9" * 5000, "too long"),                      # beyond Python's int conversion limit
    ("T#" + "9" * 150 + "d", "out of range"),      # a duration with hundreds of digits
    ("1e999", "out of range"),                     # an infinite REAL
    ("2#102", "not an integer literal"),
])
def test_hostile_literals_are_refused_in_one_line(text, why):
    tp = t.TIME if text.startswith("T#") else t.LREAL if "e" in text else t.LINT
    with pytest.raises(InvalidValue, match=why) as e:
        tp.coerce(text, "x")
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


def test_dates_and_times_of_day_read_as_python_dates():
    assert t.DATE.to_python(t.DATE.coerce("D#2024-02-29")) == dt.date(2024, 2, 29)
    assert t.TOD.to_python(t.TOD.coerce(dt.time(7, 30))) == dt.time(7, 30)
    assert t.DT.coerce(dt.datetime(1970, 1, 2)) == 86_400_000_000_000
    # the public form holds µs: a TIME's ns below them dropped toward zero, a date's floored
    assert t.TIME.to_python(-1_999) == dt.timedelta(microseconds=-1)
    assert t.DT.to_python(-1) == dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    with pytest.raises(InvalidValue, match="1677-09-21 to 2262-04-11"):
        t.DATE.coerce("D#2263-01-01")
    with pytest.raises(InvalidValue, match="not a date"):
        t.DATE.coerce("D#2023-02-29")
    assert t.by_name("time_of_day") is t.TOD and t.by_name("DATE_AND_TIME") is t.DT


def test_enumerations_hold_codes_and_read_as_names():
    mode = t.EnumType.of("MODE", ["IDLE", "RUNNING", "DONE"])
    assert mode.default == 0 and mode.coerce("MODE#running") == 1 and mode.coerce("DONE") == 2
    assert v.format_value(mode, 1) == "MODE#RUNNING" and mode.to_python(2) == "DONE"
    with pytest.raises(InvalidValue, match="IDLE, RUNNING, DONE"):
        mode.coerce("STOPPED")
    with pytest.raises(InvalidValue, match="declared twice"):
        t.EnumType.of("E", ["A", "a"])


def test_subranges_and_derived_types_are_their_base_type_with_limits_and_initial_values():
    level = t.SubrangeType.of("LEVEL", t.INT, 0, 100)
    count = t.DerivedType.of("COUNT", t.DINT, initial=5)
    assert level.default == 0 and level.canonical is t.INT and count.default == 5
    assert level in t.ANY_INT and count in t.ANY_NUM
    with pytest.raises(InvalidValue, match="0..100"):
        level.coerce(101)
    assert t.SubrangeType.of("NEG", t.INT, -10, -1).default == -10  # IEC: the lower limit


def test_a_derived_type_may_be_wired_to_its_base_type():
    level = t.SubrangeType.of("LEVEL", t.INT, 0, 100)
    net = Network("n")
    x = net.input("X", level)
    net.output("Y", net.add("add", blocks.ADD(INT), IN1=x, IN2=1).OUT)
    h = Harness(net)
    h.set(X=41).scan()
    assert h.get("Y") == 42


def test_arrays_are_flat_row_major_lists_with_bounds():
    grid = t.ArrayType.of(t.INT, [(1, 2), (0, 2)])
    assert grid.size == 6 and grid.default == [0] * 6
    assert grid.offset((2, 1)) == 4
    with pytest.raises(IndexError, match="outside 1..2"):
        grid.offset((3, 0))
    assert grid.coerce([[1, 2, 3], [4, 5, 6]]) == [1, 2, 3, 4, 5, 6]
    assert grid.to_python([1, 2, 3, 4, 5, 6]) == [[1, 2, 3], [4, 5, 6]]
    assert grid.coerce([7]) == [7, 0, 0, 0, 0, 0]  # missing elements keep their initial value
    assert t.ArrayType.of(t.INT, [(1, 2), (0, 2)]) is grid  # one anonymous type per shape
    with pytest.raises(InvalidValue, match="elements"):
        t.ArrayType.of(t.BOOL, [(0, 1 << 30)])


def test_structures_copy_deeply_and_read_as_dicts():
    point = t.StructType.of("POINT", [("X", t.INT), ("Y", t.REAL, 1.5)])
    path = t.StructType.of("PATH", [("P", t.ArrayType.of(point, [(0, 1)])), ("N", t.INT)])
    value = path.default
    assert value == [[[0, 1.5], [0, 1.5]], 0]
    copied = path.copy(value)
    copied[0][1][0] = 9
    assert value[0][1][0] == 0
    assert point.to_python(point.coerce({"y": 2})) == {"X": 0, "Y": 2.0}
    assert v.format_value(point, [1, 2.0]) == "(X := 1, Y := 2.0)"
    with pytest.raises(InvalidValue, match="no field 'Z'"):
        point.coerce({"Z": 1})


def test_every_new_table_gets_its_own_arrays():
    grid = t.ArrayType.of(t.INT, [(0, 3)])
    net = Network("n")
    net.output("G", net.add("m", blocks.MOVE(grid), IN=net.input("A", grid)).OUT)
    flat = flatten(net)
    a, b = flat.new_table(), flat.new_table()
    slot = flat.signal("A").slot
    a[slot][0] = 5
    assert b[slot] == [0, 0, 0, 0] and flat.slot_init[slot] == [0, 0, 0, 0]


def test_the_codec_errors_are_fbd_errors():
    with pytest.raises(FbdError):
        v.parse_value(t.BOOL, "maybe")


def test_a_literal_of_unknown_type_is_still_written_the_iec_way():
    assert v.format_literal(None, dt.timedelta(milliseconds=500)) == "T#500ms"
    assert v.format_literal(None, "T#3s") == "T#3s" and v.format_literal(None, "abc") == "'abc'"
    assert v.format_literal(None, True) == "TRUE" and v.format_literal(t.TIME, "T#1s") == "T#1s"
