"""Syntax errors: one line naming file, line, column and POU, quoting the input;
and input too deep or too long gives a clear error, never a RecursionError."""

import pytest

from fbd.errors import FbdError
from fbd.st import MAX_DEPTH, StNestingError, StSyntaxError, parse, parse_body, parse_expression

SOURCE = """PROGRAM Main
  VAR x : INT; END_VAR
  x := x + ;
END_PROGRAM
"""


def error_of(fn, *args, **kw) -> StSyntaxError:
    with pytest.raises(StSyntaxError) as e:
        fn(*args, **kw)
    return e.value


def test_a_syntax_error_names_file_line_column_pou_and_quotes_the_line():
    e = error_of(parse, SOURCE, "main.st")
    assert isinstance(e, FbdError)
    assert (e.filename, e.line, e.col, e.pou) == ("main.st", 3, 12, "PROGRAM Main")
    assert str(e) == 'main.st:3:12: in PROGRAM Main: unexpected \';\'; expected an expression: "x := x + ;"'
    assert "\n" not in str(e)


def test_the_pou_is_named_for_function_blocks_functions_and_configurations():
    e = error_of(parse, "FUNCTION_BLOCK Fb VAR x : INT; END_VAR x := ; END_FUNCTION_BLOCK")
    assert e.pou == "FUNCTION_BLOCK Fb"
    e = error_of(parse, "FUNCTION F : INT VAR_INPUT a : INT; END_VAR F := a +; END_FUNCTION")
    assert e.pou == "FUNCTION F"
    e = error_of(parse, "CONFIGURATION C RESOURCE R ON PLC PROGRAM i : ; END_RESOURCE END_CONFIGURATION")
    assert e.pou == "CONFIGURATION C"
    e = error_of(parse, "PROGRAM A VAR x : INT; END_VAR x := 1; END_PROGRAM\n TYPE t : ; END_TYPE")
    assert e.pou is None


def test_a_body_given_alone_is_named_by_its_caller():
    e = error_of(parse_body, "x := ;", "ST", filename="plc.xml", pou="Counter", line=120, col=7)
    assert str(e).startswith("plc.xml:120:12: in Counter: unexpected ';'")


def test_a_long_line_is_quoted_around_the_error_within_200_characters():
    long_line = "x := " + " + ".join(f"v{i}" for i in range(200)) + " + ;"
    e = error_of(parse_body, long_line)
    assert len(e.excerpt) <= 206 and e.excerpt.startswith("...") and e.excerpt.endswith("+ ;")
    assert "\n" not in str(e)


def test_a_missing_semicolon_is_reported_where_it_belongs():
    e = error_of(parse_body, "x := 1\ny := 2;")
    assert (e.line, e.col) == (1, 7) and "';' missing" in e.message


def test_nesting_up_to_the_limit_parses_and_beyond_it_is_refused():
    ok = "(" * (MAX_DEPTH - 1) + "x" + ")" * (MAX_DEPTH - 1)
    parse_expression(ok + " + 1")
    parse_expression("-(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH)
    too_deep = "-(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1)
    e = error_of(parse_expression, too_deep)
    assert isinstance(e, StNestingError) and "nested more than" in e.message


def test_a_long_chain_of_operators_is_refused_before_it_can_overflow_a_walk():
    e = error_of(parse_body, "x := " + " + ".join(["a"] * 50_000) + ";")
    assert isinstance(e, StNestingError) and e.line == 1


def test_deeply_nested_statements_are_refused_with_the_line():
    text = "".join(f"IF c{i} THEN\n" for i in range(300)) + "x := 1;\n" + "END_IF;\n" * 300
    e = error_of(parse_body, text)
    assert isinstance(e, StNestingError)


def test_long_flat_inputs_parse():
    body = parse_body("\n".join(f"x{i} := y{i} + {i};" for i in range(20_000)))
    assert len(body.statements) == 20_000
    case = parse_body("CASE s OF\n" + "\n".join(f"{i}: y := {i};" for i in range(5000)) + "\nEND_CASE;")
    assert len(case.statements[0].branches) == 5000
    chain = parse_body("IF a THEN x := 0;\n" + "".join(f"ELSIF b{i} THEN x := {i};\n" for i in range(3000))
                       + "END_IF;")
    assert len(chain.statements[0].branches) == 3001


@pytest.mark.parametrize("text, message", [
    ("PROGRAM p VAR x : REF_TO INT; END_VAR x := 1; END_PROGRAM", "references (REF_TO"),
    ("PROGRAM p VAR x, y : INT; END_VAR y := x^; END_PROGRAM", "references (REF_TO"),
    ("PROGRAM p VAR a : ARRAY[1..N] OF INT; END_VAR a[1] := 1; END_PROGRAM",
     "array bounds are integer literals, not N (matiec takes names only with -a)"),
    ("TYPE e : (A := 1, B := 2); END_TYPE", "enumerated values take no numbers"),
    ("PROGRAM p VAR w : WORD; b : BOOL; END_VAR b := w.3; END_PROGRAM", "bit access (w.3, w.%X3)"),
    ("PROGRAM p VAR s : STRING; END_VAR s := STRING#'a'; END_PROGRAM", "typed string literals"),
    ("PROGRAM p VAR x : INT; END_VAR METHOD m END_METHOD END_PROGRAM", "the object-oriented parts"),
    ("PROGRAM p VAR x : INT; END_VAR x := INT # 5; END_PROGRAM", "without blanks around '#' (INT#...)"),
    ("FUNCTION_BLOCK f VAR_ACCESS a : b : INT; END_VAR a := 1; END_FUNCTION_BLOCK", "VAR_ACCESS is not"),
])
def test_what_is_not_supported_says_so(text, message):
    assert message in error_of(parse, text).message


def test_nested_initial_values_and_actions_are_bounded_too():
    deep = "[" * 300 + "1" + "]" * 300
    e = error_of(parse, f"PROGRAM p VAR a : ARRAY[1..2] OF INT := {deep}; END_VAR a[1] := 1; END_PROGRAM")
    assert isinstance(e, StNestingError)
    chart = "x := 1;"
    for i in range(MAX_DEPTH):
        chart = f"INITIAL_STEP s{i}: a{i}(N); END_STEP ACTION a{i}: {chart} END_ACTION"
    e = error_of(parse, f"PROGRAM p VAR x : INT; END_VAR {chart} END_PROGRAM")
    assert isinstance(e, StNestingError)


def test_thousands_of_problems_find_their_lines_in_one_pass_over_the_text(monkeypatch):
    import fbd.st.errors as errors
    from fbd.st import StSemanticError, analyze
    passes = []
    real = errors.line_starts
    monkeypatch.setattr(errors, "line_starts", lambda text: passes.append(1) or real(text))
    text = "PROGRAM p VAR x : INT; END_VAR\n" + "".join(f"y{k} := {k};\n" for k in range(3000)) + \
        "END_PROGRAM\n"
    with pytest.raises(StSemanticError) as e:       # each excerpt once searched from the start:
        analyze(parse(text))                        # 100,000 problems took minutes
    assert passes == [1] and e.value.more == 2999
    assert e.value.problems[-1].excerpt == "y2999 := 2999;" and e.value.problems[-1].line == 3001
