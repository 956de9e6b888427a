"""ST statements: each one's tree, positions, and what matiec refuses."""

import pytest

from fbd.st import StSyntaxError, dump, parse_body
from fbd.st import ast as A


def body(text):
    return parse_body(text, "ST").statements


def shape(text):
    return dump(body(text))


def test_assignments_to_variables_elements_members_and_addresses():
    assert shape("x := 1; a[i, 2] := x; p.pos.x := 2.5; %QX0.1 := TRUE;") == (
        "[(Assign x 1) (Assign (index a i 2) x) (Assign (. (. p pos) x) 2.5) (Assign %QX0.1 TRUE)]")


def test_fb_and_function_calls_as_statements():
    (call, positional, bare) = body("T1(IN := start, PT := T#2s, Q => done, ET => elapsed); F(1, 2); G();")
    assert isinstance(call, A.Invoke) and call.name == "T1"
    assert [(a.name, a.output) for a in call.args] == [("IN", False), ("PT", False), ("Q", True),
                                                       ("ET", True)]
    assert [a.name for a in positional.args] == [None, None]
    assert bare.args == ()


def test_if_elsif_else():
    (node,) = body("IF a THEN x := 1; ELSIF b THEN x := 2; y := 3; ELSIF c THEN x := 4; ELSE x := 0; END_IF;")
    assert isinstance(node, A.If)
    assert [dump(b.condition) for b in node.branches] == ["a", "b", "c"]
    assert [len(b.body) for b in node.branches] == [1, 2, 1]
    assert dump(node.else_body) == "[(Assign x 0)]"
    assert body("IF a THEN x := 1; END_IF;")[0].else_body is None


def test_elsif_branches_keep_their_own_lines_for_breakpoints():
    (node,) = body("IF a THEN\n  x := 1;\nELSIF b THEN\n  x := 2;\nEND_IF;")
    assert [(b.line, b.col) for b in node.branches] == [(1, 1), (3, 1)]


def test_case_with_lists_ranges_enumerated_values_and_else():
    (node,) = body("CASE x OF 1: a := 1; 2, 3: a := 2; b := 1; 4..6, -2..-1: a := 3; "
                   "Red, Color#Green: a := 4; ELSE a := 0; END_CASE;")
    assert isinstance(node, A.Case)
    labels = [[dump(label) for label in branch.labels] for branch in node.branches]
    assert labels == [["1"], ["2", "3"], ["4..6", "-2..-1"], ["Red", "Color#Green"]]
    assert [len(b.body) for b in node.branches] == [1, 2, 1, 1]
    assert dump(node.else_body) == "[(Assign a 0)]"


def test_an_enumerated_label_and_an_assignment_to_a_variable_of_that_name_are_told_apart():
    (node,) = body("CASE s OF Idle: Busy := TRUE; Busy: Idle := TRUE; END_CASE;")
    assert [dump(b.labels) for b in node.branches] == ["[Idle]", "[Busy]"]
    assert dump(node.branches[0].body) == "[(Assign Busy TRUE)]"


@pytest.mark.parametrize("label", ["16#0A", "BYTE#3"])
def test_case_labels_are_decimal_integers_as_in_matiec(label):
    with pytest.raises(StSyntaxError):
        body(f"CASE x OF {label}: y := 1; END_CASE;")


def test_a_case_label_needs_a_statement():
    with pytest.raises(StSyntaxError, match="needs at least one statement") as e:
        body("CASE x OF\n 1: y := 1;\n 2:\n 3: y := 2;\nEND_CASE;")
    assert (e.value.line, e.value.col) == (3, 2)


def test_loops_and_jumps():
    (f, w, r) = body("FOR i := 1 TO 10 BY 2 DO IF i = 5 THEN EXIT; END_IF; CONTINUE; END_FOR; "
                     "WHILE x < 10 DO x := x + 1; END_WHILE; REPEAT x := x - 1; UNTIL x = 0 END_REPEAT;")
    assert isinstance(f, A.For) and f.variable.name == "i" and dump(f.step) == "2"
    assert [type(s).__name__ for s in f.body] == ["If", "Continue"]
    assert isinstance(f.body[0].branches[0].body[0], A.Exit)
    assert isinstance(w, A.While) and dump(w.condition) == "(< x 10)"
    assert isinstance(r, A.Repeat) and dump(r.condition) == "(= x 0)"
    assert body("FOR i := 0 TO n DO x := i; END_FOR;")[0].step is None


def test_return():
    (node,) = body("RETURN;")
    assert isinstance(node, A.Return)


@pytest.mark.parametrize("text, problem", [
    ("x := 1;;", "empty statement"),
    ("IF a THEN END_IF;", "no statement before END_IF"),
    ("WHILE a DO END_WHILE;", "no statement before END_WHILE"),
    ("x := 1", "the text ends too early; expected ';'"),
    ("IF a THEN x := 1; END_IF", "the text ends too early; expected ';'"),
])
def test_what_matiec_refuses(text, problem):
    with pytest.raises(StSyntaxError, match=problem):
        body(text)


def test_a_pragma_stands_as_a_statement_where_matiec_keeps_c_code():
    (node,) = body("IF trig THEN {{ printf(\"x\"); }} END_IF;")
    (pragma,) = node.branches[0].body
    assert isinstance(pragma, A.Pragma) and pragma.text.strip() == 'printf("x");'
    # anywhere else it is skipped
    assert shape("x := {cast} 1;") == "[(Assign x 1)]"


def test_statements_carry_their_start_position():
    stmts = body("x := 1;\n  IF a THEN\n    y := 2;\n  END_IF;")
    assert [(s.line, s.col) for s in stmts] == [(1, 1), (2, 3)]
    assert (stmts[1].branches[0].body[0].line, stmts[1].branches[0].body[0].col) == (3, 5)


def test_positions_of_a_body_given_alone_can_be_those_of_its_file():
    (stmt,) = body_at("x := 1;", line=40, col=9)
    assert (stmt.line, stmt.col) == (40, 9)
    with pytest.raises(StSyntaxError) as e:
        body_at("x := ;", line=40, col=9)
    assert (e.value.line, e.value.col) == (40, 14)


def body_at(text, line, col):
    return parse_body(text, "ST", line=line, col=col).statements


def test_an_empty_body_text_is_an_empty_body():
    assert parse_body("  (* nothing yet *)\n", "ST").statements == ()
    assert parse_body("", "IL").instructions == ()
