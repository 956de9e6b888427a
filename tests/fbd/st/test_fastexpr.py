"""The expression reader (fbd/st/fastexpr.py) gives the tree and the errors of
the LALR loop it stands in for: each text is parsed with and without it."""

import pytest

from fbd.st import parser as P
from fbd.st.errors import StSyntaxError

EXPRESSIONS = [
    "a + b * 2", "a - b - c * d ** 2 ** e OR f AND g = h", "-x", "- -5", "-5 ** 2", "a -- 5", "+5",
    "NOT -5", "NOT x AND y", "-(a + b)", "- T#1s", "T#5s + x", "-2.5E3 * r", "16#FF + INT#3",
    "'s' + \"w\"", "TRUE XOR FALSE", "Color#Red", "D#2024-01-01", "%IX0.0 AND %QW3", "a[1, i + 2].b.c",
    "%MW4[1]", "f()", "f(x, y + 1)", "f(a := 1, b := g(2))", "AND(a, b)", "MOD(7, 2)", "x.IN",
    "((((a))))", "(" * 60 + "a" + ")" * 60,
    # what the reader leaves to the LALR loop: valid
    "f(NOT x => y)", "f(a := 1, b => c)", "f(a := 1, NOT b => c)", "f(b => c)", "f(NOT x, y)",
    # and invalid
    "+x", "NOT - x", "NOT NOT x", "- -x", "a.3", "x.TIME", "f(x) .y", "f(a, b := 1)", "f(a := 1, b)",
    "f(a := )", "x(", "a + ", "a b", "a +* b", "(a", "a[1", "AND", "MOD x", "9" * 5000, "1.0E999",
    "a" + " + a" * 400, "(" * 300 + "a" + ")" * 300,
]


def _outcome(parse, text, monkeypatch, fast):
    driver = P._parser()
    if not fast:
        monkeypatch.setattr(driver, "expression_entries", {})
        monkeypatch.setattr(driver, "assignment_entries", {})
        monkeypatch.setattr(driver, "statement_entries", {})
    try:
        return "tree", repr(parse(text))
    except StSyntaxError as e:
        return "error", str(e)
    finally:
        monkeypatch.undo()


def _same(parse, text, monkeypatch):
    assert _outcome(parse, text, monkeypatch, True) == _outcome(parse, text, monkeypatch, False)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_an_expression_reads_as_the_lalr_loop_reads_it(expression, monkeypatch):
    _same(P.parse_expression, expression, monkeypatch)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_an_expression_in_statements_reads_as_the_lalr_loop_reads_it(expression, monkeypatch):
    body = (f"y := {expression};\nIF {expression} THEN z := {expression};\nELSIF {expression}\n"
            f"THEN f(q := {expression}); END_IF;\nWHILE {expression} DO x[{expression}] := 1; END_WHILE;")
    _same(lambda text: P.parse_body(text, "ST", filename="b.st", pou="P", line=3, col=5), body, monkeypatch)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_an_index_in_il_reads_as_the_lalr_loop_reads_it(expression, monkeypatch):
    _same(lambda text: P.parse_body(text, "IL", filename="b.st"), f"LD a[{expression}]\nST b\n",
          monkeypatch)


STATEMENTS = [
    "x := 1;", "x[i, 2].y := a + b;", "%QX0.0 := TRUE;", "x {pragma} := 1;", "x := {pragma} a {pragma} + 1;",
    "x := 1; {pragma} y := 2;", "x {{C code}} := 1;", "f(a := 1, b => c);", "f();", "x(", "x := ;",
    "x = 1;", "x := 1", "x.3 := 1;", "x[1 := 2;", "x := 1 y := 2;", "x :=\n1\n;",
    "CASE s OF Red: x := 1; Red, Green: y := 2; 3: z := Red; ELSE w := 0; END_CASE;",
    "IF a THEN x := 1; ELSIF b THEN y := 2; ELSE z := 3; END_IF;", "FOR i := 1 TO 3 DO x := i; END_FOR;",
    "REPEAT x := x - 1; UNTIL x < 0 END_REPEAT;", "N := 1; S := 2; LD := 3; PRIORITY := 4;",
    "x := " + "(" * 300 + "a" + ")" * 300 + ";", "x" + "[1]" * 300 + " := 1;",
]


@pytest.mark.parametrize("statements", STATEMENTS)
def test_an_assignment_reads_as_the_lalr_loop_reads_it(statements, monkeypatch):
    _same(lambda text: P.parse_body(text, "ST", filename="b.st", pou="P"), statements, monkeypatch)
    _same(lambda text: P.parse(text, "f.st"), f"PROGRAM p\n{statements}\nEND_PROGRAM\n", monkeypatch)


def test_an_expression_ending_with_the_text_reads_as_the_lalr_loop_reads_it(monkeypatch):
    _same(lambda text: P.parse_body(text, "ST"), "x := a + b", monkeypatch)


def test_the_reader_reads_the_expressions_of_statements(monkeypatch):
    driver = P._parser()
    monkeypatch.setattr(driver, "statement_entries", {})
    read = driver.reader.read
    given_back = []

    def counting(first, *args):
        token, ended = read(first, *args)
        given_back.append(token is first)
        return token, ended

    monkeypatch.setattr(driver.reader, "read", counting)
    P.parse_body("x := a + b * 2; IF x > 3 THEN y := f(x, 2); END_IF;", "ST")
    # each of the two assignments and the condition was read past its first token
    assert given_back == [False, False, False]
