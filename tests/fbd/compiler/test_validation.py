"""Every wiring mistake is reported before the first scan, naming its full path."""

import pytest

import blocks
from fbd import BOOL, INT, REAL, WORD, FbdError, Network, Plc, ValidationError, WiringError, compile_network
from fbd.errors import UnknownSignal
from fbd.testing import Harness
from tests.fbd.toys import INC, PLUS


def problems(net):
    with pytest.raises(ValidationError) as e:
        compile_network(net)
    return e.value.problems


def test_unknown_port_is_refused_when_wired_and_lists_the_real_ones():
    net = Network("N")
    with pytest.raises(WiringError, match=r"N\.g: AND has no port 'IN3' \(inputs: IN1, IN2; "
                                          r"outputs: OUT\); for more inputs create it with AND\(n=\.\.\.\)"):
        net.add("g", blocks.AND(), IN3=True)
    assert "g" not in net.instances  # nothing half-recorded


def test_a_typo_in_a_port_attribute_is_an_error_not_a_new_port():
    net = Network("N")
    g = net.add("g", blocks.NOT(), IN=True)
    with pytest.raises(WiringError, match="NOT has no port 'OTU'"):
        g.OTU  # noqa: B018


def test_input_driven_twice_names_both_drivers():
    net = Network("N")
    a, b = net.input("A", BOOL), net.input("B", BOOL)
    g = net.add("g", blocks.NOT(), IN=a)
    net.connect(b, g.IN)
    assert problems(net) == ["g.IN: input driven twice (by A and B)"]


def test_unconnected_input_without_default_is_named():
    net = Network("N")
    net.add("g", blocks.AND(), IN1=True)
    assert problems(net) == ["g.IN2: input is not connected and AND gives it no default"]


def test_type_mismatch_names_both_ends_and_both_types():
    net = Network("N")
    x = net.input("X", INT)
    net.add("g", blocks.NOT(BOOL), IN=x)
    (p,) = problems(net)
    assert "type mismatch: X is INT but g.IN is BOOL" in p


def test_generic_block_on_a_type_outside_its_family_is_refused():
    net = Network("N")
    net.add("g", blocks.AND(), IN1=net.input("X", INT), IN2=net.input("Y", INT))
    assert problems(net) == ["g (AND): needs ANY_BIT, but is wired to INT"]


def test_loop_without_feedback_lists_its_blocks_in_order():
    net = Network("N")
    a = net.add("a", INC(INT))
    b = net.add("b", INC(), IN=a.OUT)
    c = net.add("c", INC(), IN=b.OUT)
    net.connect(c.OUT, a.IN)
    (p,) = problems(net)
    assert p.startswith("loop without a feedback mark through 3 blocks: a -> b -> c -> a;")
    assert "feedback=True" in p


def test_a_block_wired_to_itself_without_feedback_is_a_loop():
    net = Network("N")
    a = net.add("a", INC(INT))
    net.connect(a.OUT, a.IN)
    assert problems(net)[0].startswith("loop without a feedback mark through 1 block: a -> a")


def test_literal_out_of_range_for_the_port_type():
    net = Network("N")
    net.add("p", PLUS(), A=40000, B=1)
    assert problems(net) == ["p.A: 40000 is out of range for INT (-32768..32767)"]


def test_a_generic_block_with_nothing_to_decide_its_type_asks_for_it():
    net = Network("N")
    a = net.add("a", INC())
    net.connect(a.OUT, a.IN, feedback=True)
    (p,) = problems(net)
    assert p.startswith("a: cannot infer type T of INC; give it, e.g. INC(")


def test_problems_inside_macros_name_the_full_instance_path():
    inner = Network("Inner")
    x = inner.input("X", BOOL)
    inner.add("g", blocks.AND(), IN1=x)  # IN2 left open
    inner.output("Y", x)
    mid = Network("Mid")
    m = mid.add("inner", inner, X=mid.input("X", BOOL))
    mid.output("Y", m.Y)
    top = Network("Top")
    top.add("mid_1", mid, X=True)
    top.add("mid_2", mid, X=False)
    assert problems(top) == [
        "mid_1.inner.g.IN2: input is not connected and AND gives it no default",
        "mid_2.inner.g.IN2: input is not connected and AND gives it no default",
    ]


def test_unconnected_macro_input_without_default_is_named():
    inner = Network("Inner")
    inner.output("Y", inner.add("n", blocks.NOT(), IN=inner.input("X", BOOL)).OUT)
    top = Network("Top")
    top.output("Y", top.add("m", inner).Y)
    assert problems(top) == ["m.X: input of macro Inner is not connected and has no default"]


def test_every_problem_is_reported_at_once():
    net = Network("N")
    x = net.input("X", INT)
    net.add("g", blocks.NOT(BOOL), IN=x)
    net.add("h", blocks.AND(), IN1=True)
    with pytest.raises(ValidationError) as e:
        compile_network(net)
    assert len(e.value.problems) == 2
    assert str(e.value).startswith("network 'N' is not valid (2 problems):")


@pytest.mark.parametrize("make, message", [
    (lambda n, g: n.connect(g.IN, g.IN), "g.IN is an input; a wire starts at an output"),
    (lambda n, g: n.connect(g, g.IN), "wire from one of g's outputs"),
    (lambda n, g: n.connect(object(), g.IN), "is neither a wire end nor a literal"),
    (lambda n, g: n.add("g", blocks.NOT()), "an instance named 'g' already exists"),
    (lambda n, g: n.add("x.y", blocks.NOT()), "must be an identifier"),
    (lambda n, g: n.add("k", blocks.NOT), "pass a block instance, NOT(), not the class"),
    (lambda n, g: n.connect(Network("Other").input("Z", BOOL), g.IN), "belongs to network 'Other'"),
])
def test_wiring_calls_that_make_no_sense_fail_at_once(make, message):
    net = Network("N")
    g = net.add("g", blocks.NOT())
    with pytest.raises(WiringError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make(net, g)


def test_unknown_signal_suggests_the_closest_paths():
    net = Network("N")
    net.output("Q", net.add("gate", blocks.NOT(), IN=net.input("A", BOOL)).OUT)
    h = Harness(net)
    with pytest.raises(UnknownSignal, match=r"unknown signal 'gate.OTU'; did you mean gate.OUT"):
        h.get("gate.OTU")
    with pytest.raises(UnknownSignal):
        Plc(net).set("B", True)


def test_setting_a_value_of_the_wrong_type_names_the_input():
    net = Network("N")
    net.output("Q", net.input("A", BOOL))
    h = Harness(net)
    with pytest.raises(Exception, match="A: 5 is not a BOOL"):
        h.set(A=5)


def test_a_second_type_variable_is_hinted_with_the_types_keyword():
    with pytest.raises(FbdError, match=r"give its type, e\.g\. SHL\(types=\{'TN': "):
        Harness.block(blocks.SHL(WORD))


def test_non_finite_real_literals_compile():
    net = Network("N")
    gt = net.add("gt", blocks.GT(), IN1=net.input("A", REAL), IN2=float("inf"))
    nan = net.add("eq", blocks.EQ(), IN1=net.input("B", REAL), IN2=float("nan"))
    net.output("BIG", gt.OUT)
    net.output("SAME", nan.OUT)
    h = Harness(net)
    h.set(A=3e38, B=0.0).scan()
    h.expect(BIG=False, SAME=False)


def test_blocks_holding_more_values_than_a_program_may_are_refused_before_any_is_copied():
    from fbd import types as t
    from fbd.st import compile_unit, parse
    big = compile_unit(parse("FUNCTION_BLOCK Big VAR a : ARRAY[0..1048575] OF LREAL; END_VAR "
                             "VAR_OUTPUT q : LREAL; END_VAR q := a[0]; END_FUNCTION_BLOCK"))["Big"]
    net = Network("many")
    for k in range(3):
        net.add(f"b{k}", big())
    compile_network(net)
    net.add("b3", big())      # four of the largest arrays and their outputs: 4 values too many
    with pytest.raises(ValidationError, match=f"b3: the blocks hold 4,194,308 elementary values .* "
                                              f"more than the {t.DATA_MAX:,} a program may hold"):
        compile_network(net)
