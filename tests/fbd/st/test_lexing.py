"""What the lexer decides: comments, pragmas, keywords, the language of a body."""

import tracemalloc

import pytest

from fbd.st import StSyntaxError, dump, parse, parse_body
from fbd.st.lexer import MAX_NAME, MAX_STRING, detect_body
from fbd.values import MAX_LITERAL


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


# -- tokens too long for their kind ------------------------------------------------------
_LIMITS = [     # (what, the declaration before the token and the token itself, the limit)
    ("a name", lambda n: ("VAR ", "a" * n), MAX_NAME),
    ("a string literal", lambda n: ("VAR s : STRING := ", f"'{'a' * (n - 2)}'"), MAX_STRING),
    ("a literal", lambda n: ("VAR x : LINT := ", "0" * (n - 1) + "7"), MAX_LITERAL),
    ("a literal", lambda n: ("VAR t : TIME := ", f"T#{'0' * (n - 5)}1ms"), MAX_LITERAL),
]
_ENDS = {"a name": " : INT; END_VAR"}


@pytest.mark.parametrize("what, declaration, limit", _LIMITS, ids=[f"{w} {lim}" for w, _, lim in _LIMITS])
def test_a_token_as_long_as_its_kind_may_be_is_read_and_one_more_character_is_refused(
        what, declaration, limit):
    def program(n):
        before, token = declaration(n)
        assert len(token) == n
        return f"PROGRAM p {before}{token}{_ENDS.get(what, '; END_VAR')} x := 1; END_PROGRAM", \
            len("PROGRAM p ") + len(before) + 1
    parse(program(limit)[0])
    text, column = program(limit + 1)
    with pytest.raises(StSyntaxError) as e:
        parse(text, "long.st")
    assert e.value.message == f"{what} of {limit + 1:,} characters is too long (at most {limit:,})"
    assert (e.value.line, e.value.col, e.value.pou) == (1, column, "PROGRAM p")
    assert len(str(e.value)) < 400


@pytest.mark.parametrize("token", ["n" * 10_000_000, "'" + "s" * 10_000_000 + "'", "1" * 10_000_000])
def test_a_token_of_ten_megabytes_is_refused_before_it_is_copied(token):
    text = f"PROGRAM p VAR x : INT; END_VAR x := {token}; END_PROGRAM"
    tracemalloc.start()
    try:
        with pytest.raises(StSyntaxError, match=r"characters is too long \(at most"):
            parse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(token) // 10      # not one copy of it (matching it took 7 GB once)


def test_a_pragma_of_a_megabyte_is_read_in_memory_proportional_to_it():
    pragma = "{" + "c" * 1_000_000 + "}"
    tracemalloc.start()
    try:
        (kept, _) = parse_body(f"{pragma}\nx := 1;").statements
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(kept.text) == 1_000_000 and peak < 8 * len(pragma)   # a few copies, no more


def test_a_direct_address_has_at_most_8_fields_of_10_digits_said_at_its_place():
    parse("PROGRAM p VAR x AT %IW1234567890.1.2.3.4.5.6.7 : INT; END_VAR x := 1; END_PROGRAM")
    for address in ("%IW1.2.3.4.5.6.7.8.9", "%IW12345678901", "%QX0.8"):
        with pytest.raises(StSyntaxError, match="the address: ") as e:
            parse(f"PROGRAM p VAR x AT {address} : INT; END_VAR x := 1; END_PROGRAM")
        assert (e.value.line, e.value.col) == (1, 20)
