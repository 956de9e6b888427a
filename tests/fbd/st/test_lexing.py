"""What the lexer decides: comments, pragmas, keywords, the language of a body."""

import pytest

from fbd.st import StSyntaxError, dump, parse, parse_body
from fbd.st.lexer import detect_body


def test_comments_do_not_nest_as_in_matiec_without_its_n_option():
    assert dump(parse_body("x := 1; (* a (* b *) y := 2;")) == "(StBody [(Assign x 1) (Assign y 2)])"
    with pytest.raises(StSyntaxError):
        parse_body("(* outer (* inner *) still outer *) x := 1;")


def test_line_comments_and_comments_spanning_lines_keep_positions_right():
    (a, b) = parse_body("x := 1; // to the end\n(* two\nlines *) y := 2;").statements
    assert (b.line, b.col) == (3, 10)


def test_pragmas_spanning_lines_keep_positions_right():
    (pragma, after) = parse_body("{{ line 1\n line 2 }}\n  z := 3;").statements
    assert (pragma.line, after.line, after.col) == (1, 3, 3)


def test_keywords_are_case_insensitive():
    assert dump(parse_body("if A then b := 1; end_if;")) == "(StBody [(If [(Branch A [(Assign b 1)])])])"


def test_a_byte_order_mark_is_skipped():
    assert len(parse("\ufeffPROGRAM p VAR x : INT; END_VAR x := 1; END_PROGRAM").pous) == 1


@pytest.mark.parametrize("text, expected", [
    ("  x := 1; END_PROGRAM", "BODY_ST"),
    ("  LD x\n ST y\nEND_PROGRAM", "BODY_IL"),
    ("  INITIAL_STEP s: END_STEP", "BODY_SFC"),
    ("  IF x THEN", "BODY_ST"),
    ("  (* ; *) LD 'a;b' {;}\n END_FUNCTION", "BODY_IL"),
    ("  VAR x : INT; END_VAR", None),
    ("  END_PROGRAM", None),
    ("  [10] VAR", None),
])
def test_a_body_language_is_decided_as_matiec_decides_it(text, expected):
    starts = frozenset({"BODY_ST", "BODY_IL", "BODY_SFC"})
    assert detect_body(text, 0, starts) == expected


def test_identifiers_follow_iec_rules():
    with pytest.raises(StSyntaxError, match="double underscore"):
        parse_body("a__b := 1;")
    with pytest.raises(StSyntaxError, match="ASCII"):
        parse_body("tempé := 1;")
