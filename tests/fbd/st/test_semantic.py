"""The semantic layer: what it resolves, and each rule it enforces, with the place."""

import pytest

from fbd.errors import FbdError
from fbd.st import STANDARD, Library, LibraryPou, StSemanticError, analyze, parse
from fbd.st import ast as A

COUNTER = """
TYPE Mode : (Idle, Running, Stopped) := Idle; Point : STRUCT x : REAL; y : REAL; END_STRUCT; END_TYPE
FUNCTION_BLOCK Counter
  VAR_INPUT up : BOOL; preset : INT := 10; END_VAR
  VAR_OUTPUT count : INT; full : BOOL; END_VAR
  VAR edge : R_TRIG; END_VAR
  edge(CLK := up);
  IF edge.Q THEN count := count + 1; END_IF;
  full := count >= preset;
END_FUNCTION_BLOCK
PROGRAM Main
  VAR_INPUT start : BOOL; END_VAR
  VAR c : Counter; t : TON; m : Mode; p : Point; k : INT; lamp AT %QX0.0 : BOOL; END_VAR
  VAR CONSTANT top : INT := 3; END_VAR
  c(up := start, preset := top, full => lamp);
  t(IN := c.full, PT := T#2s);
  IF t.Q THEN m := Running; ELSE m := Mode#Stopped; END_IF;
  CASE m OF Idle: k := 0; Running, Stopped: k := LIMIT(MN := 0, IN := c.count, MX := top); END_CASE;
  p.x := INT_TO_REAL(k);
  %QX0.0 := t.Q;
END_PROGRAM
CONFIGURATION Plant
  RESOURCE Cpu ON PLC
    TASK main(INTERVAL := T#20ms, PRIORITY := 0);
    PROGRAM inst WITH main : Main (start := TRUE);
  END_RESOURCE
END_CONFIGURATION
"""


def analysis_of(text, **kw):
    return analyze(parse(text, "test.st"), **kw)


def problems(text, **kw):
    return analyze(parse(text, "test.st"), check=False, **kw).errors


def one_problem(text, **kw):
    found = problems(text, **kw)
    assert len(found) == 1, [str(e) for e in found]
    return found[0]


def program(body, decls="x : INT; b : BOOL;"):
    return f"PROGRAM Main VAR {decls} END_VAR {body} END_PROGRAM"


def test_a_correct_program_resolves_every_name():
    a = analysis_of(COUNTER)
    main = a.scope("main")                          # names are not case-sensitive
    assert [s.name for s in main.inputs] == ["start"]
    c = main.lookup("C")
    assert (c.kind, c.section, c.fb_type, c.is_fb_instance) == ("variable", "VAR", "Counter", True)
    assert main.lookup("top").is_constant
    resolved = {type(n).__name__ + ":" + getattr(n, "name", "?"): s.kind for n, s in a.resolved.items()}
    assert resolved["Invoke:c"] == "variable"
    assert resolved["Call:LIMIT"] == "library" and resolved["Call:INT_TO_REAL"] == "library"
    assert resolved["Name:Running"] == "enum_value"
    counter = a.scope("Counter")
    assert [s.name for s in counter.outputs] == ["count", "full"]
    assert not a.errors and not a.warnings


def test_the_symbol_of_a_member_is_the_declaration_in_the_fb():
    a = analysis_of(COUNTER)
    member = next(n for n in a.resolved if isinstance(n, A.Member) and n.member == "full")
    assert a.symbol(member).section == "VAR_OUTPUT" and a.symbol(member).owner == "FUNCTION_BLOCK Counter"


def test_the_first_error_is_raised_with_the_count_of_the_others():
    text = program("y := 1; z := 2; x := w;")
    with pytest.raises(StSemanticError) as e:
        analysis_of(text)
    error = e.value
    assert isinstance(error, FbdError)
    assert (error.line, error.col, error.pou) == (1, 45, "PROGRAM Main")
    assert str(error) == ('test.st:1:45: in PROGRAM Main: y is not declared: '
                          '"PROGRAM Main VAR x : INT; b : BOOL; END_VAR y := 1; z := 2; x := w; END_PROGRAM" '
                          '(and 2 more problems)')
    assert [p.message for p in error.problems] == ["y is not declared", "z is not declared",
                                                   "w is not declared"]


@pytest.mark.parametrize("text, message", [
    (program("x := 1;", "x : INT; X : BOOL;"), "X is declared twice (first at line 1)"),
    ("TYPE t : INT; END_TYPE FUNCTION_BLOCK T VAR_INPUT a : INT; END_VAR a := 1; END_FUNCTION_BLOCK",
     "FUNCTION_BLOCK T is declared twice"),
    ("TYPE e : (A, B, a); END_TYPE", "enumerated value a appears twice"),
    ("TYPE s : STRUCT a : INT; A : BOOL; END_STRUCT; END_TYPE", "member A appears twice"),
    ("FUNCTION_BLOCK TON VAR_INPUT a : INT; END_VAR a := 1; END_FUNCTION_BLOCK",
     "TON is the name of a standard function block"),
    (program("max := 1;", "max : INT;"), "max names the standard function MAX"),
    ("FUNCTION_BLOCK Fb VAR_INPUT a : INT; END_VAR a := 1; END_FUNCTION_BLOCK "
     + program("x := 1;", "x : INT; fb : INT;"), "fb names the FUNCTION_BLOCK Fb"),
])
def test_duplicate_and_clashing_names(text, message):
    assert message in one_problem(text).message


@pytest.mark.parametrize("body, message", [
    ("y := 1;", "y is not declared"),
    ("x := F(1);", "F is not declared (as a function)"),
    ("T1(IN := b);", "T1 is not declared (neither an FB instance nor a function)"),
    ("x := %IW3;", "%IW3 is not declared: give it a name with AT %IW3"),
    ("CASE x OF Red: x := 1; END_CASE;", "Red is not declared (as an enumerated value)"),
])
def test_undeclared_names(body, message):
    assert message in one_problem(program(body)).message


def test_a_function_may_stand_in_for_a_standard_function_as_in_matiec():
    text = ("FUNCTION MAX : INT VAR_INPUT a, b : INT; END_VAR IF a > b THEN MAX := a; ELSE MAX := b; END_IF;"
            " END_FUNCTION " + program("x := MAX(a := 1, b := 2);"))
    a = analysis_of(text)
    call = next(n for n in a.resolved if isinstance(n, A.Call))
    assert a.symbol(call).kind == "pou"


def test_unknown_types_and_things_that_are_not_types():
    assert "unknown type Foo" in one_problem(program("x := 1;", "x : Foo;")).message
    text = "FUNCTION F : INT VAR_INPUT a : INT; END_VAR F := a; END_FUNCTION " + program("x := 1;", "x : F;")
    assert "F is a function, not a type" in one_problem(text).message


@pytest.mark.parametrize("text, message", [
    ("FUNCTION F : INT VAR_INPUT a : INT; END_VAR VAR_TEMP t : INT; END_VAR F := a; END_FUNCTION",
     "VAR_TEMP is not allowed in a FUNCTION"),
    ("FUNCTION F : INT VAR_INPUT a : INT; END_VAR VAR RETAIN r : INT; END_VAR F := a; END_FUNCTION",
     "VAR RETAIN is not allowed in a FUNCTION"),
    ("FUNCTION F : INT VAR_INPUT a : INT; END_VAR VAR t : TON; END_VAR F := a; END_FUNCTION",
     "TON is a function block: a FUNCTION cannot hold an instance"),
    (program("x := 1;", "x : INT; END_VAR VAR_GLOBAL g : INT;"), "VAR_GLOBAL is not allowed in a PROGRAM"),
    ("FUNCTION_BLOCK Fb VAR_INPUT a : INT; END_VAR VAR q AT %QX0.0 : BOOL; END_VAR a := 1; "
     "END_FUNCTION_BLOCK", "%QX0.0 cannot be given to a VAR variable of a function block"),
    (program("x := 1;", "x : INT; END_VAR VAR_INPUT i AT %IX0.0 : BOOL;"), "cannot be given to a VAR_INPUT"),
    (program("x := 1;", "x : INT; END_VAR VAR_IN_OUT io : INT := 3;"),
     "a VAR_IN_OUT variable takes no initial"),
    (program("x := 1;", "x : INT; END_VAR VAR_EXTERNAL RETAIN e : INT;"),
     "VAR_EXTERNAL RETAIN is not allowed"),
    (program("x := 1;", "x : INT := 1 + 2;"), "an initial value must be a literal"),
    (program("x := 1;", "x : INT; y : INT := x;"), "an initial value must be a literal"),
    (program("x := 1;", "x : INT; e : BOOL R_EDGE;"), "R_EDGE is only for inputs"),
    (program("x := 1;", "x : INT; END_VAR VAR_OUTPUT EN : BOOL;"), "EN can only be declared as a BOOL input"),
    ("TYPE r : INT (10..1); END_TYPE", "empty subrange 10..1"),
    ("TYPE r : REAL (1..9); END_TYPE", "a subrange is of an integer type"),
    ("TYPE a : ARRAY[1..2] OF TON; END_TYPE", "TON is a function block: an array cannot hold an instance"),
])
def test_section_rules(text, message):
    assert message in one_problem(text).message


@pytest.mark.parametrize("body, decls, message", [
    ("k := 1;", "k : INT; END_VAR VAR CONSTANT k2 : INT := 1; END_VAR VAR CONSTANT c : INT := 1;", None),
    ("c := 1;", "x : INT; END_VAR VAR CONSTANT c : INT := 1;", "cannot assign to c: it is CONSTANT"),
    ("t.Q := TRUE;", "t : TON;", "cannot assign to t.Q: it is an output of TON"),
    ("FOR x := 1 TO 3 DO x := 2; END_FOR;", "x : INT;", "variable of the FOR loop around this assignment"),
    ("TON := 1;", "x : INT;", "cannot assign to the standard function block TON"),
    ("EXIT;", "x : INT;", "EXIT outside a FOR, WHILE or REPEAT loop"),
    ("x := t(IN := TRUE);", "x : INT; t : TON;", "t is an FB instance: call it as a statement"),
    ("t(IN := TRUE, QQ => b);", "b : BOOL; t : TON;", "TON has no output QQ"),
    ("t(IN := TRUE, ET := T#1s);", "t : TON;", "TON has no input ET"),
    ("b := t.QQ;", "b : BOOL; t : TON;", "t (TON) has no input or output QQ"),
    ("x(1);", "x : INT;", "x is a variable, not an FB instance"),
    ("TON(IN := TRUE);", "x : INT;", "TON is a function block type: declare an instance"),
    ("x := x.y;", "x : INT;", "x is of type INT, which has no members"),
    ("x := a[1, 2];", "x : INT; a : ARRAY[1..3] OF INT;", "a has 1 dimension, not 2"),
    ("x := a.b;", "x : INT; a : ARRAY[1..3] OF INT;", "a is an array; index it"),
    ("x := LIMIT(MN := 0, IN := x, TOP := 9);", "x : INT;", "LIMIT has no input TOP"),
])
def test_writes_calls_and_members(body, decls, message):
    found = problems(program(body, decls))
    if message is None:
        assert not found
    else:
        assert len(found) == 1 and message in found[0].message, [str(e) for e in found]


def test_writing_an_own_input_is_a_warning():
    a = analysis_of(program("i := 1;", "x : INT; END_VAR VAR_INPUT i : INT;"))
    (warning,) = a.warnings
    assert "assigns its own input i" in warning.message and (warning.line, warning.col) == (1, 62)


def test_struct_members_and_inputs_of_user_fbs():
    text = COUNTER.replace("p.x := INT_TO_REAL(k);", "p.z := 1.0; c.nothing := 1; c(up := TRUE, x := 1);")
    messages = sorted(e.message for e in problems(text))
    assert messages == [
        "c (Counter) has no variable nothing",
        "function block Counter has no input x (called as c; inputs: up, preset)",
        "p has no member z (its members: x, y)"]


def test_ambiguous_enumerated_values_must_be_qualified():
    text = "TYPE A : (Low, High); B : (High, Off); END_TYPE " + program("v := High; v := A#High;", "v : A;")
    assert "High is a value of several enumerated types (A, B)" in one_problem(text).message
    text = "TYPE A : (Low, High); END_TYPE " + program("v := A#Middle;", "v : A;")
    assert "A has no value Middle (its values: Low, High)" in one_problem(text).message


def test_il_operands_labels_and_calls_are_checked():
    text = ("PROGRAM P VAR x : BOOL; t : TON; END_VAR\n LD x\n ST y\n JMPC nowhere\n CAL x\n"
            " CAL t(\n  IN := x,\n  BAD := x\n )\n NOT x\n IN x\nEND_PROGRAM")
    messages = [(e.line, e.message.split(" (")[0]) for e in problems(text)]
    assert messages == [
        (3, "y is not declared"), (4, "JMPC nowhere: no label nowhere in this body"),
        (5, "CAL needs an FB instance, not the variable x"), (8, "TON has no input BAD"),
        (10, "NOT takes no operand in IL"), (11, "IN takes an FB instance")]


def test_sfc_steps_actions_and_transitions_are_checked():
    text = ("PROGRAM P VAR x, lamp : BOOL; n : INT; END_VAR\n"
            "STEP s0: go(N); lamp(S); n(N); END_STEP\n"
            "TRANSITION FROM s0 TO s9 := s0.X AND s0.T > T#1s AND s0.Z; END_TRANSITION\n"
            "ACTION go: x := TRUE; s0.X := FALSE; END_ACTION\n"
            "END_PROGRAM")
    messages = [e.message for e in problems(text)]
    assert messages == [
        "a chart needs an INITIAL_STEP", "n is neither an ACTION of this chart nor a BOOL variable",
        "transition names step s9, which is not declared", "a step has the flags .X and .T, not .Z",
        "the flags of step s0 are read-only"]


def test_configuration_rules():
    base = ("PROGRAM Main VAR_INPUT go : BOOL; END_VAR VAR_OUTPUT done : BOOL; END_VAR "
            "VAR_EXTERNAL top : INT; END_VAR VAR_EXTERNAL k : INT; END_VAR done := go; END_PROGRAM ")
    text = base + """CONFIGURATION C
      VAR_GLOBAL top : DINT; END_VAR
      VAR_GLOBAL CONSTANT k : INT := 1; END_VAR
      RESOURCE R ON PLC
        TASK fast(INTERVAL := 20, PRIORITY := 0);
        PROGRAM a WITH slow : Main (go := TRUE, nope := TRUE, done => lamp);
        PROGRAM b : Missing;
        PROGRAM a : Main;
      END_RESOURCE
    END_CONFIGURATION"""
    messages = sorted(e.message for e in problems(text))
    assert messages == sorted([
        "VAR_EXTERNAL top : INT does not match its VAR_GLOBAL : DINT",
        "k is a CONSTANT global: declare it VAR_EXTERNAL CONSTANT",
        "a task INTERVAL is a TIME (T#20ms)",
        "program a runs WITH task slow, which this resource does not declare",
        "PROGRAM Main has no input nope",
        "lamp is not a global variable of this configuration",
        "PROGRAM Missing is not declared",
        "program instance a is declared twice",
    ])


def test_a_program_instantiated_without_its_global_is_refused():
    text = ("PROGRAM Main VAR_EXTERNAL g : INT; END_VAR g := 1; END_PROGRAM "
            "CONFIGURATION C RESOURCE R ON PLC PROGRAM i : Main; END_RESOURCE END_CONFIGURATION")
    assert "VAR_EXTERNAL g has no VAR_GLOBAL of that name in RESOURCE R" in one_problem(text).message


def test_a_library_can_be_extended_or_left_out():
    mqtt = LibraryPou("MQTT_SEND", "FUNCTION_BLOCK", ("SEND", "TOPIC"), ("OK",))
    text = program("m(SEND := TRUE, TOPIC := 'x'); b := m.OK;", "b : BOOL; m : MQTT_SEND;")
    assert "unknown type MQTT_SEND" in problems(text)[0].message
    assert not problems(text, library=STANDARD.extended([mqtt]))
    assert "TON" not in Library()
    assert STANDARD.lookup("add_int").has_input("IN7") and STANDARD.lookup("MUX").has_input("IN0")
    assert not STANDARD.lookup("SEL").has_input("IN2")
