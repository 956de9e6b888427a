"""EQ, NE, GT, GE, LT, LE: truth tables per type, chaining, typing and wiring errors."""

import datetime as dt
import operator

import pytest

import blocks
import fbd
from fbd import (
    BOOL,
    BYTE,
    DINT,
    INT,
    LREAL,
    LWORD,
    REAL,
    SINT,
    STRING,
    TIME,
    UINT,
    ULINT,
    WORD,
    Network,
    ValidationError,
    WiringError,
)
from fbd.testing import Harness
from fbd.types import ELEMENTARY

OPS = {"GT": operator.gt, "GE": operator.ge, "EQ": operator.eq,
       "LE": operator.le, "LT": operator.lt, "NE": operator.ne}
CHAINED = ("GT", "GE", "EQ", "LE", "LT")


def out(block, *values):
    """OUT of ``block`` alone after one scan with IN1, IN2, ... set to ``values``."""
    h = Harness.block(block)
    h.set({f"IN{i}": v for i, v in enumerate(values, start=1)})
    h.scan()
    return h.get("OUT")


def table(block, rows):
    """OUT for each row of inputs, from one harness (one compile, many scans)."""
    h = Harness.block(block)
    got = []
    for row in rows:
        h.set({f"IN{i}": v for i, v in enumerate(row, start=1)})
        h.scan()
        got.append(h.get("OUT"))
    return got


def compile_net(build):
    """A Harness over the network ``build(net)`` fills in."""
    net = Network("cmp_test")
    build(net)
    return Harness(net)


# ------------------------------------------------------------- truth tables
PAIRS_INT = [(-3, 2), (2, 2), (5, -1), (-32768, 32767), (0, 0)]


@pytest.mark.parametrize("name", OPS)
def test_each_comparison_on_int_matches_the_operator(name):
    got = table(getattr(blocks, name)(INT), PAIRS_INT)
    assert got == [OPS[name](a, b) for a, b in PAIRS_INT]
    assert all(type(v) is bool for v in got)


@pytest.mark.parametrize("name", OPS)
def test_each_comparison_on_uint_is_unsigned(name):
    rows = [(65535, 1), (1, 65535), (40000, 40000)]
    assert table(getattr(blocks, name)(UINT), rows) == [OPS[name](a, b) for a, b in rows]


@pytest.mark.parametrize("name", OPS)
def test_each_comparison_on_real_matches_the_operator(name):
    rows = [(0.1, 0.2), (-1.5, -1.5), (1e30, -1e30), (0.0, -0.0)]
    assert table(getattr(blocks, name)(REAL), rows) == [OPS[name](a, b) for a, b in rows]


def test_real_comparisons_with_nan_are_false_except_ne():
    nan = float("nan")
    for name, op in OPS.items():
        assert out(getattr(blocks, name)(LREAL), nan, nan) is op(nan, nan), name
        assert out(getattr(blocks, name)(LREAL), nan, 1.0) is op(nan, 1.0), name
    assert out(blocks.NE(REAL), nan, nan) is True
    assert out(blocks.EQ(REAL), nan, nan) is False


def test_eq_on_real_is_exact_without_tolerance():
    assert out(blocks.EQ(LREAL), 0.1 + 0.2, 0.3) is False
    assert out(blocks.EQ(LREAL), 0.5 + 0.25, 0.75) is True


def test_time_compares_durations_whatever_the_literal_spelling():
    assert out(blocks.EQ(TIME), "T#1s", "T#1000ms") is True
    assert out(blocks.GT(TIME), "T#1m", "T#59s999ms") is True
    assert out(blocks.LT(TIME), "T#-1s", "T#0s") is True
    assert out(blocks.NE(TIME), dt.timedelta(milliseconds=1500), "T#1s500ms") is False
    assert out(blocks.GE(TIME), "T#1h", "T#60m") is True


def test_string_compares_lexicographically_by_character_code():
    assert out(blocks.LT(STRING), "AB", "ABC") is True        # a proper prefix is smaller
    assert out(blocks.GT(STRING), "b", "abc") is True          # first difference decides
    assert out(blocks.LT(STRING), "Z", "a") is True            # 'Z' (90) < 'a' (97)
    assert out(blocks.EQ(STRING), "a", "A") is False           # case matters
    assert out(blocks.EQ(STRING), "", "") is True
    assert out(blocks.NE(STRING), "x", "x ") is True           # trailing blanks matter


def test_bool_orders_false_before_true():
    rows = [(True, False), (False, True), (True, True)]
    assert table(blocks.GT(BOOL), rows) == [True, False, False]
    assert table(blocks.LE(BOOL), rows) == [False, True, True]
    assert table(blocks.EQ(BOOL), rows) == [False, False, True]


@pytest.mark.parametrize("tp", [BYTE, WORD, LWORD])
def test_bit_strings_compare_as_unsigned(tp):
    top = 1 << (tp.bits - 1)
    assert out(blocks.GT(tp), top, top - 1) is True
    assert out(blocks.LT(tp), 0, tp.max) is True
    assert out(blocks.EQ(tp), tp.max, tp.max) is True


def test_wide_integers_compare_exactly_at_the_extremes():
    assert out(blocks.GT(ULINT), ULINT.max, ULINT.max - 1) is True
    assert out(blocks.LT(SINT), -128, 127) is True
    assert out(blocks.EQ(DINT), DINT.min, DINT.min) is True


@pytest.mark.parametrize("name", OPS)
def test_every_comparison_accepts_every_elementary_type(name):
    for tp in ELEMENTARY:
        blk = getattr(blocks, name)(tp)
        assert blk.bound_types == {"T": tp}
        assert [p.type for p in blk.output_ports()] == [BOOL]


# ------------------------------------------------------------------ chaining
def test_gt_chains_over_three_inputs():
    rows = [(3, 2, 1), (3, 2, 2), (3, 1, 2), (1, 2, 3), (3, 3, 1)]
    assert table(blocks.GT(INT, n=3), rows) == [True, False, False, False, False]


def test_gt_chain_compares_neighbours_not_the_first_against_all():
    # 5 is greater than both others, but 1 > 3 fails: the sequence is not decreasing.
    assert out(blocks.GT(INT, n=3), 5, 1, 3) is False


def test_ge_chain_allows_equal_neighbours():
    rows = [(3, 3, 1), (3, 3, 3), (3, 3, 4), (1, 3, 3)]
    assert table(blocks.GE(INT, n=3), rows) == [True, True, False, False]


def test_lt_chains_over_four_inputs():
    rows = [(1, 2, 3, 4), (1, 2, 2, 4), (1, 3, 2, 4), (1, 2, 3, 3), (0, 2, 3, 4)]
    assert table(blocks.LT(INT, n=4), rows) == [True, False, False, False, True]


def test_le_chains_over_four_inputs():
    rows = [(1, 1, 2, 2), (1, 2, 1, 2), (-5, -5, -5, -5), (2, 1, 1, 1)]
    assert table(blocks.LE(INT, n=4), rows) == [True, False, True, False]


def test_eq_over_four_inputs_needs_all_equal():
    rows = [(7, 7, 7, 7), (7, 7, 7, 8), (8, 7, 7, 7), (7, 8, 7, 7)]
    assert table(blocks.EQ(INT, n=4), rows) == [True, False, False, False]


@pytest.mark.parametrize("name", CHAINED)
def test_every_chained_comparison_matches_a_pairwise_reference(name):
    op = OPS[name]
    rows = [(a, b, c) for a in (1, 2) for b in (1, 2) for c in (1, 2)]
    want = [op(a, b) and op(b, c) for a, b, c in rows]
    assert table(getattr(blocks, name)(SINT, n=3), rows) == want


@pytest.mark.parametrize("name", CHAINED)
def test_chained_comparisons_are_extensible_and_number_inputs_from_one(name):
    blk = getattr(blocks, name)(n=5)
    assert [p.name for p in blk.input_ports()] == ["IN1", "IN2", "IN3", "IN4", "IN5"]


def test_chained_comparison_needs_at_least_two_inputs():
    with pytest.raises(WiringError, match="n must be an integer from 2"):
        blocks.GT(n=1)


def test_ne_has_exactly_two_inputs_and_is_not_extensible():
    assert [p.name for p in blocks.NE().input_ports()] == ["IN1", "IN2"]
    with pytest.raises(WiringError, match="NE has no extensible inputs"):
        blocks.NE(n=3)


def test_wiring_an_input_beyond_n_names_the_ports_and_suggests_n():
    net = Network("cmp_test")
    with pytest.raises(WiringError, match=r"GT has no port 'IN3'.*GT\(n=\.\.\.\)"):
        net.add("gt", blocks.GT(), IN1=1, IN2=2, IN3=3)


def test_generated_code_is_one_vectorisable_expression():
    h = compile_net(lambda net: net.output(
        "q", net.add("gt", blocks.GT(n=4), IN1=net.input("a", INT), IN2=2, IN3=1, IN4=0).OUT))
    prog = h.plc.program
    (line,) = prog.leaf_code(0)
    assert " and " not in line and " or " not in line and " if " not in line
    assert line.count("&") == 2
    h.set(a=3).scan()
    h.expect(q=True)


# ------------------------------------------------------------------ typing
def test_gt_takes_int_from_the_wires_it_is_given():
    def build(net):
        gt = net.add("gt", blocks.GT(), IN1=net.input("a", INT), IN2=net.input("b", INT))
        net.output("q", gt.OUT)
    h = compile_net(build)
    sig = h.plc.program.signal
    assert sig("gt.IN1").type is INT and sig("gt.IN2").type is INT
    assert sig("gt.OUT").type is BOOL and sig("q").type is BOOL
    h.run([({"a": 5, "b": 3}, {"q": True}), ({"a": -5, "b": 3}, {"q": False})])


def test_a_literal_operand_takes_the_type_of_the_wired_one():
    def build(net):
        gt = net.add("gt", blocks.GT(), IN1=net.input("x", REAL), IN2=1)
        net.output("q", gt.OUT)
    h = compile_net(build)
    assert h.plc.program.signal("gt.IN2").type is REAL
    assert h.get("gt.IN2") == 1.0 and type(h.get("gt.IN2")) is float
    h.run([({"x": 1.5}, {"q": True}), ({"x": 0.5}, {"q": False})])


def test_a_literal_operand_is_coerced_to_a_wired_time():
    def build(net):
        ge = net.add("ge", blocks.GE(), IN1=net.input("t", TIME), IN2="T#2s")
        net.output("q", ge.OUT)
    h = compile_net(build)
    h.run([({"t": "T#1s999ms"}, {"q": False}), ({"t": "T#2s"}, {"q": True})])


def test_literal_only_operands_take_the_smallest_type_that_fits_them_all():
    def build(net):
        net.output("small", net.add("a", blocks.LT(), IN1=1, IN2=2).OUT)
        net.output("wide", net.add("b", blocks.LT(), IN1=1, IN2=70000).OUT)
        net.output("real", net.add("c", blocks.LT(), IN1=2, IN2=1.5).OUT)
    h = compile_net(build)
    sig = h.plc.program.signal
    assert sig("a.IN1").type is INT
    assert sig("b.IN1").type is DINT
    assert sig("c.IN1").type is REAL
    h.scan()
    h.expect(small=True, wide=True, real=False)


def test_a_literal_out_of_range_for_the_wired_type_is_reported():
    def build(net):
        net.output("q", net.add("gt", blocks.GT(), IN1=net.input("a", INT), IN2=40000).OUT)
    with pytest.raises(ValidationError, match=r"gt\.IN2: 40000 is out of range for INT"):
        compile_net(build)


def test_eq_between_a_bool_and_an_int_is_an_error_naming_both_types():
    def build(net):
        eq = net.add("eq", blocks.EQ(), IN1=net.input("flag", BOOL), IN2=net.input("count", INT))
        net.output("q", eq.OUT)
    with pytest.raises(ValidationError) as err:
        compile_net(build)
    text = str(err.value)
    assert "type mismatch" in text
    assert "BOOL" in text and "INT" in text
    assert "count" in text and "eq.IN" in text
    assert len(err.value.problems) == 1


def test_type_mismatch_message_names_the_port_the_wire_really_goes_to():
    def build(net):
        eq = net.add("eq", blocks.EQ(), IN1=net.input("flag", BOOL), IN2=net.input("count", INT))
        net.output("q", eq.OUT)
    with pytest.raises(ValidationError, match=r"count -> eq\.IN2"):
        compile_net(build)


def test_comparison_between_int_and_real_wires_is_an_error():
    def build(net):
        net.output("q", net.add("lt", blocks.LT(), IN1=net.input("i", INT),
                                IN2=net.input("r", REAL)).OUT)
    with pytest.raises(ValidationError, match=r"type mismatch: .*(INT.*REAL|REAL.*INT)"):
        compile_net(build)


def test_a_typed_comparison_rejects_a_wire_of_another_type():
    def build(net):
        net.output("q", net.add("ne", blocks.NE(UINT), IN1=net.input("i", INT), IN2=0).OUT)
    with pytest.raises(ValidationError, match="type mismatch"):
        compile_net(build)


def test_comparison_output_is_bool_and_cannot_drive_an_int_input():
    def build(net):
        gt = net.add("gt", blocks.GT(INT), IN1=net.input("a", INT), IN2=0)
        net.output("q", net.add("sel", blocks.MAX(INT), IN1=gt.OUT, IN2=1).OUT)
    with pytest.raises(ValidationError, match=r"type mismatch: gt\.OUT is BOOL"):
        compile_net(build)


def test_comparison_output_drives_bool_logic():
    def build(net):
        a = net.input("a", INT)
        lo = net.add("lo", blocks.GE(), IN1=a, IN2=10)
        hi = net.add("hi", blocks.LE(), IN1=a, IN2=20)
        net.output("inside", net.add("both", blocks.AND(), IN1=lo.OUT, IN2=hi.OUT).OUT)
    h = compile_net(build)
    h.run([({"a": 9}, {"inside": False}), ({"a": 10}, {"inside": True}),
           ({"a": 20}, {"inside": True}), ({"a": 21}, {"inside": False})])


def test_an_untyped_comparison_with_nothing_wired_cannot_infer_its_type():
    with pytest.raises(fbd.FbdError, match="GT is generic"):
        Harness.block(blocks.GT())


# -------------------------------------------------------------- registration
@pytest.mark.parametrize("name", OPS)
def test_every_comparison_is_registered_in_its_family_with_a_summary(name):
    cls = fbd.registry()[name]
    assert cls is getattr(blocks, name)
    assert cls.family == "compare"
    assert cls.summary() and "\n" not in cls.summary()
    assert "Ports::" in cls.__doc__ and "OUT" in cls.__doc__
