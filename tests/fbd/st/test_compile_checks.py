"""What the ST compiler refuses (matiec's verdicts on the same statements), and
what stops a scan: the loop watchdog and an array index out of bounds."""

import re

import pytest

import blocks
import fbd
from fbd.st import StSemanticError, compile_unit, parse
from fbd.st.project import load
from fbd.testing import Harness

DECLS = "VAR a : INT; r : REAL; b : BYTE; x : BOOL; t : TIME; u : UINT; d : DINT; END_VAR"


def run(statement):
    project = load("e.st", text=f"PROGRAM Main\n{DECLS}\n  {statement}\nEND_PROGRAM\n")
    h = Harness(project.network("Main"))
    h.scan()
    return {n: h.get(f"Main.{n}") for n in "a r b x u d".split()}


# each refused by iec2c too ("Data type mismatch", "Incompatible data types", "Invalid
# data type for 'NEG'")
@pytest.mark.parametrize("statement, message", [
    ("d := a;", "cannot assign INT to d, which is DINT (matiec converts nothing implicitly; "
                "use INT_TO_DINT)"),
    ("r := r + 1;", "1 is an integer literal, not a REAL"),
    ("r := 1;", "1 is an integer literal, not a REAL"),
    ("a := a + 1.5;", "1.5 is a real literal, not an integer (INT)"),
    ("b := b + 1;", "'+' is not defined for BYTE"),
    ("u := -u;", "unary '-' needs a signed number or TIME, not UINT"),
    ("a := a ** 2;", "'**' raises a REAL or LREAL to a number"),
    ("a := TRUE;", "cannot assign BOOL to a, which is INT"),
    ("b := 256;", "256 is out of range for BYTE (0..255)"),
    ("a := 40000;", "40000 is out of range for INT (-32768..32767)"),
    ("a := a + d;", "'+' of INT and DINT: both operands must have one type"),
    ("IF a THEN x := TRUE; END_IF;", "a condition must be BOOL, not INT"),
    # a literal must fit its type: a REAL's range is single precision's
    ("r := 1.0E39;", "1.0E39 is out of range for REAL"),
    ("r := r * -1.0E39;", "-1.0E39 is out of range for REAL"),
    ("r := REAL#1.0E39;", "REAL#1.0E39 is out of range for REAL"),
])
def test_type_errors_name_file_line_column_and_pou(statement, message):
    with pytest.raises(StSemanticError) as err:
        run(statement)
    text = str(err.value)
    assert text.startswith("e.st:3:") and "in PROGRAM Main: " in text and message in text
    assert "\n" not in text


# and accepted by iec2c, with these values after one scan
@pytest.mark.parametrize("statement, name, value", [
    ("x := a = 1;", "x", False),
    ("a := INT#5 + 1;", "a", 6),
    ("r := 2.0 ** 2;", "r", 4.0),
    ("x := 1;", "x", True),
    ("b := 255;", "b", 255),
    ("a := -a - 1;", "a", -1),
    ("d := INT_TO_DINT(a) + 70000;", "d", 70000),
])
def test_what_matiec_accepts_runs(statement, name, value):
    assert run(statement)[name] == value


def test_an_endless_loop_is_stopped_by_the_watchdog_naming_pou_and_line():
    project = load("loop.st", text="""PROGRAM Main
VAR i : INT; END_VAR
  WHILE i >= 0 DO
    i := i + 1;
    IF i > 100 THEN i := 0; END_IF;
  END_WHILE;
END_PROGRAM""")
    h = Harness(project.network("Main"))
    with pytest.raises(fbd.FbdError, match=r"^loop\.st:3: in PROGRAM Main: watchdog"):
        h.scan()


def test_an_index_out_of_bounds_stops_the_scan_instead_of_reading_another_element():
    project = load("idx.st", text="""PROGRAM Main
VAR a : ARRAY[1..3] OF INT; k : INT := 2; END_VAR
  k := k + 1;
  a[k] := 1;
END_PROGRAM""")
    h = Harness(project.network("Main"))
    h.scan()
    assert h.get("Main.a") == [0, 0, 1]
    with pytest.raises(fbd.FbdError, match=r"^idx\.st:4: in PROGRAM Main: array index 4 is outside 1\.\.3"):
        h.scan()


def test_a_constant_index_out_of_bounds_is_refused_when_compiling():
    with pytest.raises(StSemanticError, match=r"index 5 is outside 1\.\.3"):
        load("c.st", text="PROGRAM Main VAR a : ARRAY[1..3] OF INT; END_VAR a[5] := 1; END_PROGRAM")


def test_recursion_is_refused():
    text = """FUNCTION F : INT VAR_INPUT x : INT; END_VAR F := G(x); END_FUNCTION
FUNCTION G : INT VAR_INPUT x : INT; END_VAR G := F(x); END_FUNCTION"""
    with pytest.raises(StSemanticError, match="uses itself"):
        compile_unit(parse(text, "r.st"))


def test_a_network_cannot_be_called_from_st():
    net = fbd.Network("Fbd1")
    net.output("Q", net.input("I", fbd.BOOL))
    text = "PROGRAM Main VAR f : Fbd1; END_VAR f(); END_PROGRAM"
    with pytest.raises(fbd.FbdError, match="network"):
        compile_unit(parse(text, "n.st"), extra_blocks={"Fbd1": net},
                     library=fbd.st.STANDARD.extended([fbd.st.LibraryPou("Fbd1", "FUNCTION_BLOCK",
                                                                         ("I",), ("Q",))]))


def test_a_function_handed_in_as_an_extra_block_is_called_though_no_registry_knows_it():
    twice = compile_unit(parse("""FUNCTION Twice : INT
VAR_INPUT x : INT; END_VAR
  Twice := x * 2;
END_FUNCTION""", "f.st"))["Twice"]
    assert "Twice" not in fbd.registry()
    text = "PROGRAM Main VAR y : INT; END_VAR y := Twice(21); END_PROGRAM"
    library = fbd.st.STANDARD.extended([fbd.st.LibraryPou("Twice", "FUNCTION", ("x",), ("OUT",))])
    main = compile_unit(parse(text, "m.st"), extra_blocks={"Twice": twice}, library=library)["Main"]
    h = Harness.block(main())
    h.scan()
    assert h.get("blk.y") == 42


def test_a_function_becomes_a_block_with_its_result_as_out():
    block = compile_unit(parse("""FUNCTION Avg : REAL
VAR_INPUT a, b : REAL; END_VAR
  Avg := (a + b) / 2.0;
END_FUNCTION""", "f.st"))["Avg"]
    assert [p.name for p in block.inputs] == ["a", "b"] and [p.name for p in block.outputs] == ["OUT"]
    h = Harness.block(block())
    h.set(a=1.0, b=4.0).scan()
    assert h.get("OUT") == 2.5
    assert not block.stateful


def test_an_st_fb_is_placed_in_a_network_like_a_library_block():
    fb = compile_unit(parse("""FUNCTION_BLOCK Latch
VAR_INPUT set, reset : BOOL; END_VAR
VAR_OUTPUT q : BOOL; END_VAR
  q := (q OR set) AND NOT reset;
END_FUNCTION_BLOCK""", "l.st"))["Latch"]
    net = fbd.Network("top")
    s, r = net.input("S", fbd.BOOL), net.input("R", fbd.BOOL)
    latch = net.add("l1", fb(), set=s, reset=r)
    net.add("n", blocks.NOT(), IN=latch.q)
    net.output("Q", latch.q)
    h = Harness(net)
    h.set(S=True).scan()
    assert h.get("Q") is True
    h.set(S=False).scan()
    assert h.get("Q") is True
    h.set(R=True).scan()
    assert h.get("Q") is False


@pytest.mark.parametrize("text, message", [
    ("PROGRAM E VAR_INPUT c : BOOL R_EDGE; END_VAR VAR q : BOOL; END_VAR q := c; "
     "END_PROGRAM", "R_EDGE inputs are supported in a FUNCTION_BLOCK only"),
    ("PROGRAM Main VAR ts : ARRAY[1..2] OF TON; x : BOOL; END_VAR x := TRUE; END_PROGRAM",
     "an array cannot hold an instance"),
])
def test_what_is_not_supported_is_refused_by_name(text, message):
    with pytest.raises(fbd.FbdError, match=message):
        compile_unit(parse(text, "u.st"))


#: refused by iec2c 6bb2c339df6f as well: a WSTRING variable, initial value or type
#: stops it with "Internal compiler error in file generate_c_base.cc" (its C library
#: has no WSTRING), a "..." literal is "Incompatible data types" for a STRING and
#: "Data type incompatibility" for LEN; an enumeration in a variable's or member's
#: type: "C code generator does not currently support anonymous enumerated data
#: types"; ARRAY OF (A, B): "invalid item data type in array specification"; an
#: inline STRUCT: "invalid specification in variable declaration"
MATIEC_REFUSES_TOO = [
    ("w : WSTRING;", "n := 1;", "WSTRING is not supported: matiec refuses it too"),
    ("w : WSTRING[8];", "n := 1;", "WSTRING is not supported: matiec refuses it too"),
    ("s : STRING;", 's := "abc";', '"double-quoted" string is a WSTRING literal, which matiec refuses'),
    ('s : STRING := "abc";', "n := 1;", "WSTRING literal, which matiec refuses too"),
    ("x : BOOL;", 'x := "a" = "a";', "WSTRING literal, which matiec refuses too"),
    ("", 'n := LEN("abc");', "WSTRING literal, which matiec refuses too"),
    ("c : (RED, GREEN) := GREEN;", "n := 1;", "matiec refuses it too: no anonymous enumerations"),
    ("c : ARRAY[1..2] OF (RED, GREEN);", "n := 1;", "an array of an enumeration declared in place"),
    ("p : STRUCT x : INT; END_STRUCT;", "n := 1;", "a STRUCT declared in a variable's type is refused "
                                                    "(matiec refuses it too)"),
]


@pytest.mark.parametrize("decls, body, message", MATIEC_REFUSES_TOO)
def test_what_matiec_refuses_too_is_refused_saying_so(decls, body, message):
    text = f"PROGRAM Main\nVAR n : INT; {decls} END_VAR\n  {body}\nEND_PROGRAM\n"
    with pytest.raises(fbd.FbdError, match=re.escape(message)) as err:
        load("m.st", text=text)
    assert err.value.line in (2, 3) and "m.st" in str(err.value)


@pytest.mark.parametrize("types", [
    "TYPE W : WSTRING; END_TYPE",
    "TYPE Pnt : STRUCT c : (AA, BB); x : INT; END_STRUCT; END_TYPE",   # iec2c: internal error
    "FUNCTION F : WSTRING VAR_INPUT i : INT; END_VAR F := 'a'; END_FUNCTION",
    "FUNCTION F VAR_INPUT i : INT; END_VAR i := 1; END_FUNCTION",  # iec2c: "unknown error"
])
def test_wstring_anonymous_enumerations_and_functions_without_a_type_are_refused_too(types):
    text = f"{types}\nPROGRAM Main VAR n : INT; END_VAR n := 1; END_PROGRAM\n"
    with pytest.raises(fbd.FbdError, match="matiec refuses (it|one without it) too") as err:
        load("m.st", text=text)
    assert err.value.line == 1


def test_a_located_global_is_a_global_the_programs_share():
    project = load("g.st", text="""PROGRAM Main VAR_EXTERNAL g : BOOL; END_VAR g := TRUE; END_PROGRAM
CONFIGURATION C
  VAR_GLOBAL g AT %QX0.0 : BOOL; END_VAR
  RESOURCE R ON PLC
    TASK t(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM p WITH t : Main;
  END_RESOURCE
END_CONFIGURATION""")
    plc = project.plc()
    plc.scan()
    assert plc.get("g") is True     # served over Modbus too: tests/fbd/modbus/test_located_globals.py


def test_types_made_elsewhere_are_used_by_name_and_kept_as_they_are():
    from fbd import types as t
    point = t.StructType.of("Pnt", [("x", t.INT), ("y", t.INT)])
    mode = t.EnumType.of("Md", ["A", "B"])
    blocks_ = compile_unit(parse("""FUNCTION_BLOCK F
VAR_INPUT p : Pnt; END_VAR
VAR_OUTPUT s : INT; m : Md; END_VAR
  s := p.x + p.y;
  m := B;
END_FUNCTION_BLOCK""", "u.st"), types={"Pnt": point, "Md": mode})
    fb = blocks_["F"]
    assert fb.inputs[0].type is point and fb.outputs[1].type is mode
    h = Harness.block(fb())
    h.set(p=[2, 3]).scan()
    assert (h.get("s"), h.get("m")) == (5, "B")


def test_edge_inputs_are_true_in_the_call_that_sees_the_edge():
    fb = compile_unit(parse("""FUNCTION_BLOCK E
VAR_INPUT up : BOOL R_EDGE; down : BOOL F_EDGE; END_VAR
VAR_OUTPUT r, f : INT; END_VAR
  IF up THEN r := r + 1; END_IF;
  IF down THEN f := f + 1; END_IF;
END_FUNCTION_BLOCK""", "e.st"))["E"]
    h = Harness.block(fb())
    seen = []
    for level in [False, True, True, False, True, False, False]:
        h.set(up=level, down=level).scan()
        seen.append((h.get("r"), h.get("f")))
    assert seen == [(0, 0), (1, 0), (1, 0), (1, 1), (2, 1), (2, 2), (2, 2)]


def test_auto_runs_a_one_block_st_program_on_the_native_engine():
    pytest.importorskip("llvmlite")
    main = compile_unit(parse("PROGRAM Main VAR y : INT; END_VAR y := y + 1; END_PROGRAM",
                              "m.st"))["Main"]
    net = fbd.Network("top")
    net.add("m", main())
    plc = fbd.Plc(net, engine="auto")
    plc.scan(3)
    assert plc.engine == "native" and plc.get("m.y") == 3


def test_an_st_program_with_no_native_form_names_the_pou_the_line_and_the_construct():
    pytest.importorskip("llvmlite")
    from fbd.native import NotNative
    main = compile_unit(parse("PROGRAM Main\nVAR y : INT;\n  msg : STRING; END_VAR\n"
                              "y := y + 1; END_PROGRAM", "m.st"))["Main"]
    net = fbd.Network("top")
    net.add("m", main())
    why = "PROGRAM Main, line 3: the STRING variable msg has no native form"
    with pytest.raises(NotNative, match=why):
        fbd.Plc(net, engine="native")
    plc = fbd.Plc(net, engine="auto")
    assert plc.engine == "python" and why in plc.engine_reason
