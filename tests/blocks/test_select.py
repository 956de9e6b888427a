"""SEL, MUX, MAX, MIN, LIMIT, MOVE: selection per type, MUX numbering and range, typing."""

import datetime as dt
import math

import pytest

import blocks
import fbd
from fbd import (
    BOOL,
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
    WORD,
    Network,
    ValidationError,
    WiringError,
)
from fbd.testing import Harness
from fbd.types import ELEMENTARY


def scans(block, rows, out="OUT"):
    """``out`` after one scan per row of inputs (a dict each), from one harness."""
    h = Harness.block(block)
    got = []
    for row in rows:
        h.set(row)
        h.scan()
        got.append(h.get(out))
    return got


def ins(*values, first=1):
    """{"IN1": a, "IN2": b, ...} (or from IN0 with first=0)."""
    return {f"IN{i}": v for i, v in enumerate(values, start=first)}


def compile_net(build):
    net = Network("select_test")
    build(net)
    return Harness(net)


# -------------------------------------------------------------------- SEL
@pytest.mark.parametrize("tp, in0, in1", [
    (INT, -7, 12), (UINT, 0, 65535), (REAL, 1.5, -2.25), (LREAL, 1e300, -1e-300),
    (BOOL, True, False), (WORD, 0xFFFF, 0x0001), (STRING, "off", "on"),
    (TIME, dt.timedelta(seconds=1), dt.timedelta(milliseconds=-5)),
])
def test_sel_passes_in0_when_g_is_false_and_in1_when_true(tp, in0, in1):
    got = scans(blocks.SEL(tp), [{"G": False, "IN0": in0, "IN1": in1},
                                 {"G": True, "IN0": in0, "IN1": in1},
                                 {"G": False, "IN0": in0, "IN1": in1}])
    assert got == [in0, in1, in0]


def test_sel_ports_are_g_in0_in1_with_g_bool():
    ports = blocks.SEL(INT).input_ports()
    assert [(p.name, p.type) for p in ports] == [("G", BOOL), ("IN0", "T"), ("IN1", "T")]


def test_sel_takes_its_type_from_the_wires_and_coerces_literals():
    def build(net):
        sel = net.add("sel", blocks.SEL(), G=net.input("g", BOOL), IN0=net.input("x", REAL), IN1=0)
        net.output("y", sel.OUT)
    h = compile_net(build)
    assert h.plc.program.signal("sel.OUT").type is REAL
    h.run([({"g": False, "x": 2.5}, {"y": 2.5}), ({"g": True}, {"y": 0.0})])


def test_sel_selector_must_be_bool():
    def build(net):
        net.output("y", net.add("sel", blocks.SEL(INT), G=net.input("g", INT), IN0=1, IN1=2).OUT)
    with pytest.raises(ValidationError, match=r"type mismatch: g is INT but sel\.G is BOOL"):
        compile_net(build)


# -------------------------------------------------------------------- MUX
def test_mux_numbers_its_inputs_from_zero():
    assert [p.name for p in blocks.MUX(n=4).input_ports()] == ["K", "IN0", "IN1", "IN2", "IN3"]
    assert [p.name for p in blocks.MUX().input_ports()] == ["K", "IN0", "IN1"]


def test_mux_docs_number_inputs_from_zero():
    doc = blocks.MUX.__doc__
    assert "IN0..INn-1" in doc and "IN1..INn" not in doc
    assert "TK: ANY_INT" in doc


def test_mux_selects_input_k_counting_from_zero():
    rows = [{"K": k, **ins(10, 11, 12, 13, first=0)} for k in range(4)]
    assert scans(blocks.MUX(INT, n=4, types={"TK": INT}), rows) == [10, 11, 12, 13]


def test_mux_with_two_inputs_acts_like_sel_on_an_integer():
    rows = [{"K": k, "IN0": "zero", "IN1": "one"} for k in (0, 1, 0)]
    assert scans(blocks.MUX(STRING, types={"TK": USINT}), rows) == ["zero", "one", "zero"]


def test_mux_k_beyond_the_last_input_selects_the_last():
    rows = [{"K": k, **ins(1.0, 2.0, 3.0, first=0)} for k in (3, 4, 100, 32767)]
    assert scans(blocks.MUX(REAL, n=3, types={"TK": INT}), rows) == [3.0] * 4


def test_mux_negative_k_selects_the_first():
    rows = [{"K": k, **ins(1, 2, 3, first=0)} for k in (-1, -2, -128)]
    assert scans(blocks.MUX(DINT, n=3, types={"TK": SINT}), rows) == [1, 1, 1]


def test_mux_unsigned_k_at_its_maximum_selects_the_last():
    rows = [{"K": ULINT.max, **ins(7, 8, 9, first=0)}]
    assert scans(blocks.MUX(INT, n=3, types={"TK": ULINT}), rows) == [9]


def test_mux_k_has_a_type_of_its_own_inferred_from_its_wire():
    def build(net):
        mux = net.add("mux", blocks.MUX(n=3), K=net.input("k", UDINT),
                      IN0=net.input("a", LREAL), IN1=0.5, IN2=-1)
        net.output("y", mux.OUT)
    h = compile_net(build)
    sig = h.plc.program.signal
    assert sig("mux.K").type is UDINT
    assert sig("mux.IN2").type is LREAL and sig("y").type is LREAL
    h.run([({"k": 0, "a": 9.0}, {"y": 9.0}), ({"k": 1}, {"y": 0.5}),
           ({"k": 2}, {"y": -1.0}), ({"k": 3}, {"y": -1.0})])


def test_mux_k_from_a_literal_is_an_int():
    def build(net):
        net.output("y", net.add("mux", blocks.MUX(n=3), K=1, IN0=net.input("a", WORD),
                                IN1=0xFF, IN2=0).OUT)
    h = compile_net(build)
    assert h.plc.program.signal("mux.K").type is INT
    h.scan()
    h.expect(y=0xFF)


def test_mux_k_must_be_an_integer():
    def build(net):
        net.output("y", net.add("mux", blocks.MUX(), K=net.input("k", REAL), IN0=1, IN1=2).OUT)
    with pytest.raises(ValidationError, match=r"mux \(MUX\): needs ANY_INT, but is wired to REAL"):
        compile_net(build)


def test_mux_k_type_given_explicitly_must_be_an_integer():
    with pytest.raises(WiringError, match="type TK must be one of ANY_INT"):
        blocks.MUX(INT, types={"TK": REAL})


def test_mux_has_no_input_numbered_n():
    net = Network("select_test")
    with pytest.raises(WiringError, match=r"MUX has no port 'IN3'.*IN0, IN1, IN2"):
        net.add("mux", blocks.MUX(n=3), K=0, IN0=1, IN1=2, IN3=3)


def test_mux_inputs_must_share_one_type():
    def build(net):
        net.output("y", net.add("mux", blocks.MUX(), K=0, IN0=net.input("a", INT),
                                IN1=net.input("b", STRING)).OUT)
    with pytest.raises(ValidationError, match=r"type mismatch: b is STRING but mux\.IN1 is INT"):
        compile_net(build)


def test_mux_code_is_one_conditional_expression():
    h = Harness.block(blocks.MUX(INT, n=5, types={"TK": INT}))
    (line,) = h.plc.program.leaf_code(0)
    assert line.count(" if ") == 4
    assert "(" not in line  # no call, no tuple indexing: a where-chain when vectorised


# -------------------------------------------------------------- MAX / MIN
@pytest.mark.parametrize("n", [2, 3, 4])
def test_max_and_min_find_the_extreme_in_every_position(n):
    rows = []
    for pos in range(n):
        values = [5] * n
        values[pos] = 9
        rows.append(ins(*values))
        values = [5] * n
        values[pos] = -9
        rows.append(ins(*values))
    maxes = scans(blocks.MAX(INT, n=n), rows)
    mins = scans(blocks.MIN(INT, n=n), rows)
    assert maxes == [9, 5] * n
    assert mins == [5, -9] * n


def test_max_and_min_of_four_distinct_values():
    rows = [ins(3, -1, 7, 2), ins(-30000, -32768, -1, -2), ins(0, 0, 0, 0)]
    assert scans(blocks.MAX(INT, n=4), rows) == [7, -1, 0]
    assert scans(blocks.MIN(INT, n=4), rows) == [-1, -32768, 0]


def test_max_and_min_on_unsigned_use_the_full_range():
    rows = [ins(65535, 1), ins(0, 40000)]
    assert scans(blocks.MAX(UINT), rows) == [65535, 40000]
    assert scans(blocks.MIN(UINT), rows) == [1, 0]


def test_max_and_min_on_real_and_time():
    assert scans(blocks.MAX(REAL, n=3), [ins(-0.5, -0.25, -1.0)]) == [-0.25]
    assert scans(blocks.MIN(LREAL, n=3), [ins(1e-300, 0.0, 5.0)]) == [0.0]
    assert scans(blocks.MAX(TIME, n=3), [ins("T#1s", "T#1m", "T#-1h")]) == [dt.timedelta(minutes=1)]
    assert scans(blocks.MIN(TIME, n=3), [ins("T#1s", "T#1m", "T#-1h")]) == [dt.timedelta(hours=-1)]


def test_max_and_min_on_string_are_lexicographic():
    rows = [ins("apple", "Banana", "apples")]
    assert scans(blocks.MAX(STRING, n=3), rows) == ["apples"]
    assert scans(blocks.MIN(STRING, n=3), rows) == ["Banana"]


def test_max_and_min_on_bool_are_or_and_and():
    rows = [ins(a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)]
    assert scans(blocks.MAX(BOOL, n=3), rows) == [any(r.values()) for r in rows]
    assert scans(blocks.MIN(BOOL, n=3), rows) == [all(r.values()) for r in rows]


def test_max_literals_take_the_smallest_type_that_fits_all():
    def build(net):
        net.output("y", net.add("mx", blocks.MAX(n=3), IN1=1, IN2=70000, IN3=-5).OUT)
    h = compile_net(build)
    assert h.plc.program.signal("y").type is DINT
    h.scan()
    h.expect(y=70000)


def test_max_between_int_and_real_wires_is_an_error_naming_both():
    def build(net):
        net.output("y", net.add("mx", blocks.MAX(), IN1=net.input("i", INT),
                                IN2=net.input("r", REAL)).OUT)
    with pytest.raises(ValidationError, match=r"type mismatch: r is REAL but mx\.IN2 is INT"):
        compile_net(build)


def test_max_and_min_are_extensible_from_one():
    assert [p.name for p in blocks.MAX(n=3).input_ports()] == ["IN1", "IN2", "IN3"]
    assert [p.name for p in blocks.MIN(n=4).input_ports()] == ["IN1", "IN2", "IN3", "IN4"]


def test_max_code_uses_only_conditional_expressions():
    h = Harness.block(blocks.MAX(INT, n=4))
    code = h.plc.program.leaf_code(0)
    assert len(code) == 3
    assert all(" if " in line and " and " not in line and "max(" not in line for line in code)


# ------------------------------------------------------------------ LIMIT
def test_limit_clamps_into_mn_mx():
    rows = [{"MN": 0, "IN": v, "MX": 10} for v in (-5, 0, 3, 10, 11, 32767)]
    assert scans(blocks.LIMIT(INT), rows) == [0, 0, 3, 10, 10, 10]


def test_limit_with_mn_equal_to_mx_gives_that_value():
    rows = [{"MN": 4, "IN": v, "MX": 4} for v in (-1, 4, 9)]
    assert scans(blocks.LIMIT(INT), rows) == [4, 4, 4]


def test_limit_with_mn_above_mx_always_gives_mx():
    # IEC: LIMIT = MIN(MAX(IN, MN), MX); with MN > MX the upper limit wins for every IN.
    rows = [{"MN": 10, "IN": v, "MX": 0} for v in (-5, 0, 5, 10, 20)]
    assert scans(blocks.LIMIT(INT), rows) == [0] * 5


def test_limit_on_real_time_and_string():
    assert scans(blocks.LIMIT(REAL), [{"MN": -1.5, "IN": -2.0, "MX": 1.5},
                                      {"MN": -1.5, "IN": 0.25, "MX": 1.5}]) == [-1.5, 0.25]
    assert scans(blocks.LIMIT(TIME), [{"MN": "T#1s", "IN": "T#10s", "MX": "T#5s"}]) == [
        dt.timedelta(seconds=5)]
    assert scans(blocks.LIMIT(STRING), [{"MN": "b", "IN": "apple", "MX": "d"},
                                        {"MN": "b", "IN": "cat", "MX": "d"}]) == ["b", "cat"]


def test_limit_of_a_nan_gives_mn_as_matiec_does():
    # matiec's IN > MN ? (IN < MX ? IN : MX) : MN (oracle: LIMIT(REAL#-1.0, SQRT(-1.0), REAL#1.0) = -1.0,
    # for an LREAL too); found by the fidelity campaign, where ASIN(LIMIT(-1.0, nan, 1.0)) was NaN here
    nan = float("nan")
    assert scans(blocks.LIMIT(REAL), [{"MN": -1.0, "IN": nan, "MX": 1.0}]) == [-1.0]
    assert scans(blocks.LIMIT(LREAL), [{"MN": -1.0, "IN": nan, "MX": 1.0}]) == [-1.0]


def test_limit_between_signed_zeros_compares_as_matiec_does():
    # oracle: LIMIT(REAL#-0.0, REAL#0.0, REAL#0.0) = -0.0 (IN > MN is false: MN), LIMIT(0.0, -0.0, -0.0) = 0.0
    signs = [math.copysign(1.0, v) for v in scans(blocks.LIMIT(REAL), [{"MN": -0.0, "IN": 0.0, "MX": 0.0},
                                                                       {"MN": 0.0, "IN": -0.0, "MX": -0.0}])]
    assert signs == [-1.0, 1.0]


def test_limit_on_unsigned_near_the_top_of_the_range():
    rows = [{"MN": 100, "IN": v, "MX": 4_000_000_000} for v in (0, UDINT.max)]
    assert scans(blocks.LIMIT(UDINT), rows) == [100, 4_000_000_000]


def test_limit_infers_its_type_from_in_and_coerces_literal_limits():
    def build(net):
        lim = net.add("lim", blocks.LIMIT(), MN=-1, IN=net.input("x", LREAL), MX=1)
        net.output("y", lim.OUT)
    h = compile_net(build)
    assert h.plc.program.signal("lim.MN").type is LREAL
    h.run([({"x": 3.0}, {"y": 1.0}), ({"x": -3.0}, {"y": -1.0}), ({"x": 0.5}, {"y": 0.5})])


def test_limit_ports_are_mn_in_mx():
    assert [p.name for p in blocks.LIMIT(INT).input_ports()] == ["MN", "IN", "MX"]


# ------------------------------------------------------------------- MOVE
@pytest.mark.parametrize("tp, value", [
    (BOOL, True), (SINT, -128), (LINT, LINT.min), (ULINT, ULINT.max), (REAL, -0.125),
    (WORD, 0xBEEF), (STRING, "hello, world"), (TIME, dt.timedelta(days=2, microseconds=1)),
])
def test_move_copies_its_input_of_any_type(tp, value):
    default = tp.to_python(tp.default)
    assert scans(blocks.MOVE(tp), [{"IN": value}, {"IN": default}]) == [value, default]


def test_move_takes_its_type_from_its_wire():
    def build(net):
        net.output("y", net.add("mv", blocks.MOVE(), IN=net.input("s", STRING)).OUT)
    h = compile_net(build)
    assert h.plc.program.signal("y").type is STRING
    h.run([({"s": "abc"}, {"y": "abc"})])


@pytest.mark.parametrize("name", ["SEL", "MUX", "MAX", "MIN", "LIMIT", "MOVE"])
def test_every_select_block_accepts_every_elementary_type(name):
    for tp in ELEMENTARY:
        assert getattr(blocks, name)(tp).bound_types["T"] is tp


# -------------------------------------------------------------- registration
@pytest.mark.parametrize("name", ["SEL", "MUX", "MAX", "MIN", "LIMIT", "MOVE"])
def test_every_select_block_is_registered_in_its_family_with_a_summary(name):
    cls = fbd.registry()[name]
    assert cls is getattr(blocks, name)
    assert cls.family == "select"
    assert cls.summary() and "\n" not in cls.summary()
    assert "Ports::" in cls.__doc__
