"""IL bodies: every instruction form matiec accepts, line by line."""

import pytest

from fbd.st import StSyntaxError, dump, parse, parse_body
from fbd.st import ast as A


def il(text):
    return parse_body(text, "IL").instructions


def test_simple_operators_with_modifiers():
    code = il("LD a\nLDN b\nST c\nSTN d\nS q\nR q\nAND x\nANDN x\n&N x\n& x\nOR x\nORN x\nXOR x\nXORN x\nNOT")
    assert [(i.op, dump(i.operands)) for i in code] == [
        ("LD", "[a]"), ("LDN", "[b]"), ("ST", "[c]"), ("STN", "[d]"), ("S", "[q]"), ("R", "[q]"),
        ("AND", "[x]"), ("ANDN", "[x]"), ("ANDN", "[x]"), ("AND", "[x]"), ("OR", "[x]"), ("ORN", "[x]"),
        ("XOR", "[x]"), ("XORN", "[x]"), ("NOT", "[]")]


def test_arithmetic_and_comparison_operators_with_literal_operands():
    code = il("LD 5\nADD 3\nSUB -1\nMUL 2.5\nDIV T#1s\nMOD 16#10\nGT 1\nGE 1\nEQ 1\nNE 1\nLE 1\nLT 'a'")
    assert [i.op for i in code] == ["LD", "ADD", "SUB", "MUL", "DIV", "MOD", "GT", "GE", "EQ", "NE", "LE",
                                    "LT"]
    assert dump(code[2].operands) == "[-1]"
    assert dump(code[4].operands) == "[1000000000ns]"


def test_fb_input_operators():
    code = il("LD x\nS1 ff\nR1 ff\nCLK trig\nCU ctr\nCD ctr\nPV ctr\nIN tmr\nPT tmr")
    assert [i.op for i in code[1:]] == ["S1", "R1", "CLK", "CU", "CD", "PV", "IN", "PT"]


def test_deferred_operators_nest_until_their_closing_line():
    (ld, deferred, st) = il("LD a\nAND( b\nOR( c\nANDN d\n)\nXOR e\n)\nST q")
    assert isinstance(deferred, A.IlDeferred) and deferred.op == "AND" and dump(deferred.operand) == "b"
    inner, xor = deferred.body
    assert isinstance(inner, A.IlDeferred) and dump(inner.body) == "[(IlOp ANDN [d])]"
    assert xor.op == "XOR"
    (_, empty, _) = il("LD a\nOR(\nLD b\nAND c\n)\nST q")
    assert empty.operand is None and len(empty.body) == 2


def test_a_deferred_operator_must_close_on_a_line_of_its_own():
    with pytest.raises(StSyntaxError):
        il("LD a\nAND( b )\nST q")


def test_jumps_labels_and_returns():
    code = il("start: LD a\nJMPC done\nJMP start\ndone:\nRETC\nRETCN\nRET")
    assert [dump(i) for i in code] == [
        "(IlLabel start)", "(IlOp LD [a])", "(IlJump JMPC done)", "(IlJump JMP start)", "(IlLabel done)",
        "(IlReturn RETC)", "(IlReturn RETCN)", "(IlReturn RET)"]


def test_fb_calls_bare_positional_and_formal_one_parameter_per_line():
    (bare, empty, positional, formal) = il(
        "CAL t1\nCALC t1()\nCALCN t1(x, T#1s)\nCAL t1(\n  IN := x,\n  PT := T#1s,\n  Q => done,\n"
        "  NOT ET => e\n)")
    assert (bare.op, bare.fb, bare.args) == ("CAL", "t1", ())
    assert (empty.op, empty.args) == ("CALC", ())
    assert [a.name for a in positional.args] == [None, None]
    assert [(a.name, a.output, a.negated) for a in formal.args] == [
        ("IN", False, False), ("PT", False, False), ("Q", True, False), ("ET", True, True)]


def test_a_formal_call_on_one_line_is_refused_as_in_matiec():
    with pytest.raises(StSyntaxError):
        il("CAL t1(IN := x, PT := T#1s)")


def test_functions_as_operators_and_formal_function_calls():
    (ld, fn, formal, add) = il("LD x\nMAX 2, 7\nLIMIT(\n  MN := 0,\n  MX := 10\n)\nADD(\n  IN2 := 1\n)")
    assert isinstance(fn, A.IlFunction) and fn.name == "MAX" and dump(fn.operands) == "[2 7]"
    assert isinstance(formal, A.IlFormalCall) and [a.name for a in formal.args] == ["MN", "MX"]
    assert isinstance(add, A.IlFormalCall) and add.name == "ADD"


def test_a_parameter_can_be_computed_by_nested_instructions():
    (call,) = il("CAL t1(\n  IN := (\n    LD a\n    AND b\n  ),\n  PT := T#1s\n)")
    first = call.args[0]
    assert first.value is None and dump(first.body) == "[(IlOp LD [a]) (IlOp AND [b])]"


def test_blank_lines_comments_and_pragmas_between_instructions():
    code = il("\n\n  LD a (* load *)\n\n  // a comment\n  {pragma}\n  ST b\n\n")
    assert [type(i).__name__ for i in code] == ["IlOp", "Pragma", "IlOp"]


def test_instruction_positions():
    code = il("LD a\n  ST b")
    assert [(i.line, i.col) for i in code] == [(1, 1), (2, 3)]


def test_il_bodies_in_a_file_are_told_from_st_as_matiec_does():
    u = parse("""
    FUNCTION_BLOCK Latch
      VAR_INPUT set, reset : BOOL; END_VAR
      VAR_OUTPUT q : BOOL; END_VAR
        LD set
        OR q
        ANDN reset
        ST q
    END_FUNCTION_BLOCK
    FUNCTION_BLOCK Same
      VAR_INPUT set, reset : BOOL; END_VAR
      VAR_OUTPUT q : BOOL; END_VAR
      q := (set OR q) AND NOT reset;
    END_FUNCTION_BLOCK
    FUNCTION Ten : INT VAR_INPUT x : INT; END_VAR
      LD 10 (* one instruction; no ';' before END_FUNCTION: IL *)
      ST Ten
    END_FUNCTION
    """)
    assert [p.language for p in u.pous] == ["IL", "ST", "IL"]


def test_il_operator_names_are_names_in_operand_position():
    # matiec refuses a variable called like an operator in IL; a grammar-driven lexer need not
    (ld, st) = il("LD ST\nST LD")
    assert dump(ld.operands) == "[ST]" and dump(st.operands) == "[LD]"


def test_an_instruction_ending_too_early_says_so():
    with pytest.raises(StSyntaxError, match="ends too early; expected a name") as e:
        il("LD a\nJMP\nST b")
    assert (e.value.line, e.value.col) == (2, 4)
