"""ST expressions: precedence and associativity as matiec has them, operands, calls."""

import pytest

from fbd.st import StSyntaxError, dump, parse_expression
from fbd.st import ast as A


def shape(text: str) -> str:
    return dump(parse_expression(text))


@pytest.mark.parametrize("text, tree", [
    ("a + b * c", "(+ a (* b c))"),
    ("a * b + c", "(+ (* a b) c)"),
    ("a - b - c", "(- (- a b) c)"),
    ("a / b * c", "(* (/ a b) c)"),
    ("a MOD b + c", "(+ (MOD a b) c)"),
    ("a + b < c", "(< (+ a b) c)"),
    ("a < b = c > d", "(= (< a b) (> c d))"),
    ("a <> b AND c", "(AND (<> a b) c)"),
    ("a AND b XOR c OR d", "(OR (XOR (AND a b) c) d)"),
    ("a OR b AND c", "(OR a (AND b c))"),
    ("a & b OR c", "(OR (AND a b) c)"),
    ("(a + b) * c", "(* (+ a b) c)"),
    ("a <= b", "(<= a b)"), ("a >= b", "(>= a b)"),
])
def test_binary_operators_follow_iec_precedence(text, tree):
    assert shape(text) == tree


def test_power_binds_looser_than_unary_minus_and_groups_to_the_left_as_in_matiec():
    # matiec: -2.0 ** 2.0 = 4.0 and 2.0 ** 3.0 ** 2.0 = 64.0 (checked with iec2c)
    assert shape("-x ** 2") == "(** (- x) 2)"
    assert shape("2 ** 3 ** 2") == "(** (** 2 3) 2)"
    assert shape("a * b ** c") == "(* a (** b c))"


def test_not_and_minus_take_a_primary():
    assert shape("NOT a = b") == "(= (NOT a) b)"
    assert shape("NOT (a = b)") == "(NOT (= a b))"
    assert shape("NOT a AND b") == "(AND (NOT a) b)"
    assert shape("-(a + b)") == "(- (+ a b))"
    assert shape("a * -b") == "(* a (- b))"


@pytest.mark.parametrize("text", ["NOT NOT a", "- -a", "+a", "a + +b"])
def test_matiec_refuses_doubled_unary_operators_and_unary_plus_on_a_name(text):
    with pytest.raises(StSyntaxError):
        parse_expression(text)


def test_a_sign_before_a_number_makes_a_signed_literal():
    node = parse_expression("-5")
    assert isinstance(node, A.Literal) and node.value == -5
    assert parse_expression("+5").value == 5
    assert shape("a - -5") == "(- a -5)"
    assert shape("a-5") == "(- a 5)"
    assert shape("-5 MOD 3") == "(MOD -5 3)"
    assert shape("-2.5") == "-2.5"
    # a based literal takes the unary operator instead
    assert shape("-16#FF") == "(- 255)"


def test_variables_with_subscripts_members_and_addresses():
    assert shape("a.b[i + 1, 2].c") == "(. (index (. a b) (+ i 1) 2) c)"
    direct = parse_expression("%IX0.3")
    assert isinstance(direct, A.DirectVar)
    assert (direct.area, direct.size, direct.address) == ("I", "X", (0, 3))
    hierarchical = parse_expression("%IW0.0.2")
    assert (hierarchical.size, hierarchical.address) == ("W", (0, 0, 2))
    assert parse_expression("%M5").size == ""
    assert parse_expression("%qd7").area == "Q"


def test_calls_positional_formal_and_with_outputs():
    assert shape("MAX(a, 3)") == "(Call MAX [a 3])"
    assert shape("LIMIT(MN := 0, IN := x, MX := 10)") == "(Call LIMIT [MN := 0 IN := x MX := 10])"
    call = parse_expression("F(IN := 1, Q => q, NOT ENO => e)")
    assert [(a.name, a.output, a.negated) for a in call.args] == [
        ("IN", False, False), ("Q", True, False), ("ENO", True, True)]
    assert shape("F()") == "(Call F)"
    assert shape("NOT(a)") == "(NOT a)"


def test_operator_keywords_can_be_called_as_functions():
    assert shape("AND(a, b)") == "(Call AND [a b])"
    assert shape("MOD(a, 3)") == "(Call MOD [a 3])"
    assert shape("XOR(a, b, c)") == "(Call XOR [a b c])"


def test_formal_and_positional_arguments_cannot_be_mixed():
    with pytest.raises(StSyntaxError, match="unexpected ':='"):
        parse_expression("F(a, b := 1)")


def test_operands_keep_their_positions():
    node = parse_expression("a +\n  b * c")
    assert (node.line, node.col) == (1, 1)
    right = node.right
    assert (right.line, right.col) == (2, 3)
    assert (right.right.line, right.right.col) == (2, 7)


def test_names_keep_their_spelling():
    node = parse_expression("MyVar + myvar")
    assert (node.left.name, node.right.name) == ("MyVar", "myvar")


def test_enumerated_values_with_their_type():
    node = parse_expression("Mode#Running")
    assert isinstance(node, A.EnumLiteral)
    assert (node.type_name, node.value) == ("Mode", "Running")
