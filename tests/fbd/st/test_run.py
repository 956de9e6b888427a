"""ST programs run scan by scan, with the values matiec (iec2c 6bb2c339df6f,
run scan by scan at the same cycle) gives for the same programs."""

import dataclasses
import datetime
from pathlib import Path

import pytest

from fbd.errors import FbdError
from fbd.st import compile_unit, parse
from fbd.st.project import load, program_network
from fbd.testing import Harness
from tests.fbd.st import scans

STATEMENTS = """
TYPE
  Color : (RED, GREEN, BLUE) := GREEN;
  Point : STRUCT x : INT; y : INT := 7; END_STRUCT;
  Level : INT (0..100);
  Row : ARRAY[0..3] OF DINT;
END_TYPE

FUNCTION Sum3 : DINT
VAR_INPUT a, b, c : DINT; END_VAR
VAR_OUTPUT big : BOOL; END_VAR
  Sum3 := a + b + c;
  big := Sum3 > 100;
  IF a < 0 THEN
    Sum3 := 0;
    RETURN;
  END_IF;
  Sum3 := Sum3 * 2;
END_FUNCTION

FUNCTION_BLOCK Acc
VAR_INPUT x : DINT; END_VAR
VAR_IN_OUT total : DINT; END_VAR
VAR_OUTPUT calls : INT; END_VAR
  total := total + x;
  calls := calls + 1;
END_FUNCTION_BLOCK

PROGRAM Main
VAR
  scan : INT;
  col : Color;
  p : Point;
  lv : Level := 5;
  r : Row := [1, 2, 2(3)];
  grid : ARRAY[1..2, 1..3] OF INT;
  i, j, w, rep, cont, ex : INT;
  s : DINT;
  big : BOOL;
  nm : STRING := 'abc';
  msg : STRING;
  acc1 : Acc;
  tot : DINT;
  f : REAL := 1.5;
  u : UINT;
  wd : WORD := 16#00FF;
  t : TIME;
  caseout : INT;
END_VAR
  scan := scan + 1;
  col := BLUE;
  IF col = Color#BLUE THEN p.x := p.x + 1; END_IF;
  lv := lv + 10;
  r[scan MOD 4] := r[scan MOD 4] * 10;
  FOR i := 1 TO 2 DO
    FOR j := 1 TO 3 BY 2 DO
      grid[i, j] := grid[i, j] + i * 10 + j;
    END_FOR;
  END_FOR;
  w := 0;
  WHILE w < 100 DO
    w := w + 7;
    IF w > 50 THEN EXIT; END_IF;
  END_WHILE;
  rep := 0; cont := 0;
  REPEAT
    rep := rep + 1;
    IF rep MOD 2 = 0 THEN CONTINUE; END_IF;
    cont := cont + 1;
  UNTIL rep >= 5
  END_REPEAT;
  ex := 0;
  FOR i := 0 TO 10 DO
    IF i = 3 THEN CONTINUE; END_IF;
    IF i = 6 THEN EXIT; END_IF;
    ex := ex + i;
  END_FOR;
  s := Sum3(a := 10, b := 20, c := INT_TO_DINT(scan), big => big);
  nm := CONCAT(nm, 'xyz');
  msg := INT_TO_STRING(scan);
  acc1(x := 5, total := tot);
  f := f * 2.0 + INT_TO_REAL(scan) / 4.0;
  u := u - 1;
  wd := (wd XOR 16#0F0F) AND NOT WORD#16#1000;
  t := t + T#1s500ms;
  CASE scan OF
    1: caseout := 10;
    2..3: caseout := 20;
  ELSE
    caseout := -1;
  END_CASE;
END_PROGRAM
"""

# matiec's rows for scans 1..3 (a subrange is not checked at run time there either: lv
# passes 100 after ten scans in both)
EXPECTED = [
    dict(col="BLUE", p={"x": 1, "y": 7}, lv=15, r=[1, 20, 3, 3], grid=[[11, 0, 13], [21, 0, 23]],
         w=56, rep=5, cont=3, ex=12, s=62, big=False, nm="abcxyz", msg="1", tot=5,
         **{"acc1.calls": 1}, f=3.25, u=65535, wd=4080, t=1_500_000, caseout=10),
    dict(col="BLUE", p={"x": 2, "y": 7}, lv=25, r=[1, 20, 30, 3], grid=[[22, 0, 26], [42, 0, 46]],
         w=56, rep=5, cont=3, ex=12, s=64, big=False, nm="abcxyzxyz", msg="2", tot=10,
         **{"acc1.calls": 2}, f=7.0, u=65534, wd=255, t=3_000_000, caseout=20),
    dict(col="BLUE", p={"x": 3, "y": 7}, lv=35, r=[1, 20, 30, 30], grid=[[33, 0, 39], [63, 0, 69]],
         w=56, rep=5, cont=3, ex=12, s=66, big=False, nm="abcxyzxyzxyz", msg="3", tot=15,
         **{"acc1.calls": 3}, f=14.75, u=65533, wd=4080, t=4_500_000, caseout=20),
]


def harness(text, program="Main", cycle=0.005, name="prog.st"):
    project = load(name, text=text)
    return Harness(project.network(program), cycle=cycle)


def values(h, program, names):
    out = {}
    for n in names:
        v = h.get(f"{program}.{n}")
        out[n] = v // datetime.timedelta(microseconds=1) if isinstance(v, datetime.timedelta) else v
    return out


def test_every_statement_kind_gives_matiecs_values_scan_by_scan():
    h = harness(STATEMENTS, cycle=0.01)
    for want in EXPECTED:
        h.scan()
        assert values(h, "Main", want) == want


FOR_LOOPS = """
PROGRAM Main
VAR
  i, j, k, e, n, m, q, c, once : INT;
  b : BYTE;
END_VAR
  e := 3; n := 0;
  FOR i := 1 TO e DO n := n + 1; e := 10; END_FOR;
  m := 0;
  FOR j := 5 TO 1 DO m := m + 1; END_FOR;
  FOR k := 10 TO 1 BY -3 DO m := m + 1; END_FOR;
  q := 0;
  FOR c := 32760 TO 32767 DO q := q + 1; IF q > 20 THEN EXIT; END_IF; END_FOR;
  once := 0;
  FOR i := 1 TO 1 DO once := once + 1; END_FOR;
  b := 250;
  b := b AND 16#0F;
END_PROGRAM
"""


def test_for_loops_run_as_iec_says_and_otherwise_as_matiec_runs_them():
    # matiec's values, but for one: the end is evaluated at every test (e := 10
    # lengthens the loop); a loop up to the type's maximum stops there; the variable
    # keeps the last value the body saw. FOR i := 1 TO 1 runs once, as IEC says
    # (the body runs while i has not passed the end); matiec's C runs it zero times.
    h = harness(FOR_LOOPS)
    h.scan()
    assert values(h, "Main", "e n j k m c q b once".split()) == dict(
        e=10, n=10, j=5, k=1, m=4, c=32767, q=8, b=10, once=1)
    assert h.get("Main.i") == 1


OPERATORS = """
PROGRAM Main
VAR
  a : SINT := 120;
  b : USINT := 3;
  q, m : DINT;
  x : REAL;
  e : LREAL;
  n : INT;
  cnt : CTU;
  tm : TON;
  sr1 : SR;
  go, st, ab : BOOL;
  sh : BYTE;
END_VAR
  a := a + 5;
  b := b - 5;
  q := -7 / 2;
  m := -7 MOD 3;
  x := 2.0 ** 3.0;
  e := -2.0 ** 2.0;
  go := NOT go;
  cnt(CU := go, R := FALSE, PV := 5);
  tm(IN := n >= 3, PT := T#15ms);
  sr1(S1 := tm.Q, R := FALSE);
  n := cnt.CV;
  st := sr1.Q1;
  ab := n > 1 AND n < 3 OR st;
  sh := SHL(BYTE#16#81, 1);
END_PROGRAM
"""


def test_operators_wrap_and_standard_blocks_run_as_in_matiec():
    h = harness(OPERATORS)
    rows = []
    for _ in range(9):
        h.scan()
        rows.append(values(h, "Main", "a b n tm.ET tm.Q st ab".split()))
        assert values(h, "Main", "q m x e sh".split()) == dict(q=-3, m=-1, x=8.0, e=4.0, sh=2)
    assert [r["a"] for r in rows] == [125, -126, -121, -116, -111, -106, -101, -96, -91]
    assert [r["b"] for r in rows] == [254, 249, 244, 239, 234, 229, 224, 219, 214]
    assert [r["n"] for r in rows] == [1, 1, 2, 2, 3, 3, 4, 4, 5]
    # tm.IN (n >= 3) is seen from scan 5 (n is read before this scan's count)
    assert [r["tm.ET"] for r in rows] == [0, 0, 0, 0, 0, 0, 5000, 10000, 15000]
    assert [r["st"] for r in rows] == [False] * 8 + [True]
    assert [r["ab"] for r in rows] == [False, False, True, True, False, False, False, False, True]


COUNTER = """
FUNCTION_BLOCK Counter
VAR_INPUT inc : BOOL; lim : INT := 10; END_VAR
VAR_OUTPUT count : INT; done : BOOL; END_VAR
VAR
  edge : R_TRIG;
  t1 : TON;
  arr : ARRAY[1..3] OF INT := [1, 2, 3];
  i, s : INT;
END_VAR
  edge(CLK := inc);
  IF edge.Q THEN count := count + 1; END_IF;
  done := count >= lim;
  t1(IN := done, PT := T#10ms);
  s := 0;
  FOR i := 1 TO 3 DO s := s + arr[i]; END_FOR;
  CASE count OF
    1, 2: s := s * 2;
    3..5: s := s MOD 4;
  ELSE
    s := -s;
  END_CASE;
END_FUNCTION_BLOCK

FUNCTION Twice : INT
VAR_INPUT x : INT; END_VAR
  Twice := x * 2;
END_FUNCTION

PROGRAM Main
VAR c : Counter; tick : BOOL; n, y : INT; END_VAR
  tick := NOT tick;
  c(inc := tick, lim := 3);
  n := c.count;
  y := Twice(n) + MAX(n, 7);
END_PROGRAM
"""


def test_user_fbs_and_functions_nest_with_their_state_visible_by_path():
    h = harness(COUNTER)
    rows = []
    for _ in range(8):
        h.scan()
        rows.append(values(h, "Main", ["n", "y", "c.count", "c.t1.Q", "c.s"]))
    assert [r["y"] for r in rows] == [9, 9, 11, 11, 13, 13, 15, 15]
    assert [r["c.count"] for r in rows] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert [r["c.t1.Q"] for r in rows] == [False] * 6 + [True] * 2
    assert [r["c.s"] for r in rows] == [12, 12, 12, 12, 2, 2, 2, 2]


def test_an_f_trig_instance_fires_on_the_first_scan_as_in_matiec():
    """matiec's F_TRIG starts with M TRUE: a CLK FALSE on the first scan is a falling
    edge (matiec, CLK FALSE, TRUE, FALSE, FALSE: Q TRUE, FALSE, TRUE, FALSE)."""
    h = harness("PROGRAM Main\nVAR x AT %IX0.0 : BOOL; END_VAR\nVAR f : F_TRIG; q : BOOL; "
                "END_VAR\nf(CLK := x); q := f.Q;\nEND_PROGRAM\n")
    seen = []
    for clk in (False, True, False, False):
        h.set(x=clk)
        h.scan()
        seen.append(h.get("Main.q"))
    assert seen == [True, False, True, False]


def test_state_can_be_forced_by_path():
    h = harness(COUNTER)
    h.force("Main.c.count", 100)
    h.scan(2)
    assert h.get("Main.c.count") == 100


FORCED = """
PROGRAM prg
VAR n : INT; k : INT; c : CTU; q : BOOL; END_VAR
n := n + k;
k := 7;
c(CU := q, PV := 3);
END_PROGRAM
"""


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_forced_variable_is_what_the_programs_statements_read(engine):
    # as CODESYS forces: the value is there as the scan begins and again as it ends,
    # whatever the program wrote in between (the statements read and write it)
    plc = load("forced.st", FORCED).plc(engine=engine)
    plc.force("prg.k", 2)
    plc.scan(3)
    assert (plc.get("prg.n"), plc.get("prg.k")) == (6, 2)
    plc.unforce("prg.k")
    plc.scan(2)                               # k is 2 as scan 4 begins, then its own 7
    assert (plc.get("prg.n"), plc.get("prg.k")) == (15, 7)
    plc.force("prg.c.CV", 5)                  # an FB instance's output, inside the POU
    plc.scan(40)                              # (many scans: no fast-forward past a force)
    assert (plc.get("prg.c.CV"), plc.get("prg.c.Q"), plc.get("prg.n")) == (5, True, 295)


@pytest.mark.parametrize("cycle_ms", [5, 20])
def test_current_time_reads_the_plc_clock(cycle_ms):
    # no source can name it (IEC identifiers have no double underscore): the SFC
    # lowering writes it into the tree
    unit = parse("PROGRAM Main VAR t : TIME; END_VAR t := t; END_PROGRAM", "clock.st")
    pou = unit.pous[0]
    (assign,) = pou.body.statements
    clock = dataclasses.replace(assign.value, name="__CURRENT_TIME")
    body = dataclasses.replace(pou.body, statements=(dataclasses.replace(assign, value=clock),))
    unit = dataclasses.replace(unit, elements=(dataclasses.replace(pou, body=body),))
    block = compile_unit(unit)["Main"]
    h = Harness(program_network("Main", block), cycle=cycle_ms / 1000)
    h.scan(3)
    assert h.get("Main.t") == datetime.timedelta(milliseconds=2 * cycle_ms)


STRUCTS_AND_FUNCTIONS = """
TYPE
  Pnt : STRUCT x : INT; y : INT; END_STRUCT;
  Mode : (IDLE, RUN, STOP);
END_TYPE
PROGRAM Main
VAR
  pts : ARRAY[1..3] OF Pnt;
  p, q : Pnt;
  md : Mode := RUN;
  k : INT;
  t1 : TON := (PT := T#10ms);
  go : BOOL;
  s : STRING := 'hello world';
  l : STRING;
  lm, sl, cnt : INT;
  mx : REAL;
  tt : TIME;
END_VAR
  k := k + 1;
  go := NOT go;
  p.x := k; p.y := k * 2;
  pts[k MOD 3 + 1] := p;
  q := pts[1];
  q.x := 99;
  CASE md OF
    IDLE: md := RUN;
    RUN: IF k > 3 THEN md := STOP; END_IF;
  ELSE
    md := IDLE;
  END_CASE;
  t1(IN := TRUE);
  l := LEFT(s, 5);
  lm := LIMIT(0, k * 10, 25);
  sl := SEL(go, 1, 2);
  mx := MAX(1.5, INT_TO_REAL(k));
  tt := t1.ET + T#1ms;
  IF t1.Q THEN cnt := cnt + 1; END_IF;
END_PROGRAM
"""


def test_structs_arrays_of_them_enums_and_standard_functions_as_in_matiec():
    # structures are copied on assignment (q.x := 99 leaves pts[1] alone); an FB
    # instance's initialiser sets its input (PT) once; matiec prints T#1ms + ET as
    # T#0.999999ms (through a double), here it is exact
    h = harness(STRUCTS_AND_FUNCTIONS)
    rows = []
    for _ in range(6):
        h.scan()
        rows.append(values(h, "Main", "pts q md t1.Q l lm sl mx tt cnt".split()))
    assert [r["pts"] for r in rows][-1] == [{"x": 6, "y": 12}, {"x": 4, "y": 8}, {"x": 5, "y": 10}]
    assert [r["pts"][0] for r in rows][:3] == [{"x": 0, "y": 0}] * 2 + [{"x": 3, "y": 6}]
    assert [r["q"] for r in rows] == [{"x": 99, "y": y} for y in (0, 0, 6, 6, 6, 12)]
    assert [r["md"] for r in rows] == ["RUN", "RUN", "RUN", "STOP", "IDLE", "RUN"]
    assert [r["t1.Q"] for r in rows] == [False, False, True, True, True, True]
    assert [r["tt"] for r in rows] == [1000, 6000, 11000, 11000, 11000, 11000]
    assert [r["cnt"] for r in rows] == [0, 0, 1, 2, 3, 4]
    assert [r["lm"] for r in rows] == [10, 20, 25, 25, 25, 25]
    assert [r["sl"] for r in rows] == [2, 1, 2, 1, 2, 1]
    assert [r["mx"] for r in rows] == [1.5, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert {r["l"] for r in rows} == {"hello"}


CONDITIONS_THAT_CALL_BLOCKS = """
PROGRAM Main
VAR
  i, n, k, m, w, f, e, r : INT;
END_VAR
  i := 0; n := 0; m := 0;
  REPEAT
    i := i + 1;
    k := 0;
    REPEAT
      k := k + 1;
      IF k = 2 THEN CONTINUE; END_IF;
      m := m + 1;
    UNTIL MIN(k, 10) >= 3
    END_REPEAT;
    IF i < 3 THEN CONTINUE; END_IF;
    n := n + 10;
  UNTIL MAX(i, 0) >= 4 AND LIMIT(0, n, 100) >= 20
  END_REPEAT;
  w := 0;
  WHILE MAX(w, 2) < 4 DO
    w := w + 1;
  END_WHILE;
  FOR f := 1 TO MAX(w, 2) DO
    w := w + 1;
  END_FOR;
  e := e + 1;
  IF e > 100 THEN
    r := 1;
  ELSIF MAX(e, 2) = 3 THEN
    r := 3;
  ELSE
    r := 9;
  END_IF;
END_PROGRAM
"""


def test_loop_and_elsif_conditions_that_call_blocks_run_as_in_matiec():
    # a CONTINUE goes to the UNTIL test, whose MIN/MAX/LIMIT run each time; the FOR
    # end MAX(w, 2) is evaluated again at each test, so the loop chases w until w
    # wraps (matiec: f = 32764, w = -32768); rows are matiec's, scan by scan
    h = harness(CONDITIONS_THAT_CALL_BLOCKS)
    names = "i n k m w f e r".split()
    rows = []
    for _ in range(4):
        h.scan()
        rows.append(values(h, "Main", names))
    matiec = [(4, 20, 3, 8, -32768, 32764, e, r) for e, r in ((1, 9), (2, 9), (3, 3), (4, 9))]
    assert [tuple(row[n] for n in names) for row in rows] == matiec


EN_ENO = """
PROGRAM Main
VAR
  a : INT := 7; e : BOOL; ok : BOOL := TRUE; t1 : TON; q : BOOL; m : INT := 5; x : INT := 9;
END_VAR
  a := MAX(EN := e, IN1 := 3, IN2 := 4, ENO => ok);
  t1(EN := e, IN := TRUE, PT := T#0s, ENO => q);
  m := ADD(EN := e, IN1 := m, IN2 := 1);
  x := LIMIT(EN := TRUE, MN := 0, IN := x, MX := 8);
END_PROGRAM
"""

# matiec: --cycle 5ms --scans 3 --set E=TRUE@2 --set E=FALSE@3 --watch a --watch ok --watch q
# --watch m --watch x
EN_ENO_ROWS = """
scan,t_ms,a,ok,q,m,x
1,0,0,FALSE,FALSE,0,8
2,5,4,TRUE,TRUE,1,8
3,10,0,FALSE,FALSE,0,8
"""


def test_en_false_skips_a_call_whose_result_is_then_its_types_initial_value_as_in_matiec():
    # ENO is EN; a function not run gives 0 (a := 0, m := 0), not the old value
    sets = {2: {"e": True}, 3: {"e": False}}
    assert scans.rows(EN_ENO, "a ok q m x".split(), 3, sets, program="Main") == \
        scans.expected(EN_ENO_ROWS)


ENO_READ = """
FUNCTION_BLOCK cnt
  VAR_INPUT up : BOOL; END_VAR
  VAR_OUTPUT n : INT; END_VAR
  IF up THEN n := n + 1; END_IF;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR
    go : BOOL;
    ena : BOOL;
    t1 : TON;
    t2 : TON;
    never : TON;
    c1 : cnt;
    c2 : cnt;
    a, b, c, d, e, f : BOOL;
  END_VAR
  a := t1.ENO;
  t1(IN := go, PT := T#40ms);
  b := t1.ENO;
  t2(EN := ena, IN := go, PT := T#40ms);
  c := t2.ENO;
  d := never.ENO;
  c1(EN := ena, up := go);
  e := c1.ENO;
  c2(up := go);
  f := c2.ENO;
END_PROGRAM
"""

# matiec: --cycle 20ms --scans 6 --set go=TRUE@2 --set ena=TRUE@3 --set ena=FALSE@5
# --watch a --watch b --watch c --watch d --watch e --watch f --watch c1.n --watch c2.n
ENO_READ_ROWS = """
scan,t_ms,a,b,c,d,e,f,c1.n,c2.n
1,0,TRUE,TRUE,FALSE,TRUE,FALSE,TRUE,0,0
2,20,TRUE,TRUE,FALSE,TRUE,FALSE,TRUE,0,1
3,40,TRUE,TRUE,TRUE,TRUE,TRUE,TRUE,1,2
4,60,TRUE,TRUE,TRUE,TRUE,TRUE,TRUE,2,3
5,80,TRUE,TRUE,FALSE,TRUE,FALSE,TRUE,2,4
6,100,TRUE,TRUE,FALSE,TRUE,FALSE,TRUE,2,5
"""


@pytest.mark.parametrize("engine", ["python", "native"])
def test_an_instances_eno_is_the_en_of_its_last_call_and_true_before_any(engine):
    """What the OpenPLC editor writes for a rung through a block's ENO
    (``IF TON2.ENO THEN``): an instance's ENO, of a library FB or one's own, is
    TRUE until a call with EN := FALSE, as matiec's is."""
    sets = {2: {"go": True}, 3: {"ena": True}, 5: {"ena": False}}
    assert scans.rows(ENO_READ, "a b c d e f c1.n c2.n".split(), 6, sets, program="prg",
                      cycle_ms=20, engine=engine) == scans.expected(ENO_READ_ROWS)


EN_SKIPS_THE_BODY = """
FUNCTION_BLOCK cnt
  VAR_INPUT up : BOOL; k : INT; END_VAR
  VAR_OUTPUT n : INT; END_VAR
  IF up THEN n := n + k; END_IF;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR
    go : BOOL;
    ena : BOOL;
    t1 : TON;
    c1 : cnt;
    x : INT := 100;
    q : BOOL := TRUE;
    k : INT := 1;
  END_VAR
  t1(EN := ena, IN := go, PT := T#40ms, Q => q);
  c1(EN := ena, up := go, k := k, n => x);
  k := k + 1;
END_PROGRAM
"""

# matiec: --cycle 20ms --scans 6 --set go=TRUE@2 --set ena=TRUE@4 --set ena=FALSE@6
# --watch t1.IN --watch t1.PT --watch q --watch c1.up --watch c1.k --watch c1.n --watch x --watch k
EN_SKIPS_THE_BODY_ROWS = """
scan,t_ms,t1.IN,t1.PT,q,c1.up,c1.k,c1.n,x,k
1,0,FALSE,T#40ms,FALSE,FALSE,1,0,0,2
2,20,TRUE,T#40ms,FALSE,TRUE,2,0,0,3
3,40,TRUE,T#40ms,FALSE,TRUE,3,0,0,4
4,60,TRUE,T#40ms,FALSE,TRUE,4,4,4,5
5,80,TRUE,T#40ms,FALSE,TRUE,5,9,9,6
6,100,TRUE,T#40ms,FALSE,TRUE,6,9,9,7
"""


@pytest.mark.parametrize("engine", ["python", "native"])
def test_en_false_skips_an_instances_body_only_its_inputs_and_outputs_are_still_copied(engine):
    """matiec's C for ``c1(EN := e, k := k, n => x)`` sets EN and the inputs,
    runs the body (which returns at once when EN is FALSE) and copies the
    outputs out: x takes c1.n even in a scan that skips c1."""
    sets = {2: {"go": True}, 4: {"ena": True}, 6: {"ena": False}}
    columns = "t1.IN t1.PT q c1.up c1.k c1.n x k".split()
    assert scans.rows(EN_SKIPS_THE_BODY, columns, 6, sets, program="prg", cycle_ms=20,
                      engine=engine) == scans.expected(EN_SKIPS_THE_BODY_ROWS)


def test_the_source_with_live_values_line_by_line():
    from fbd.st import live_source
    project = load("prog.st", text=COUNTER)
    h = Harness(project.network("Main"))
    h.scan(5)
    rows = {n: (text.strip(), values) for n, text, values in
            live_source(project.blocks["Main"], h.get, "Main")}
    assert rows[COUNTER.splitlines().index("  n := c.count;") + 1] == (
        "n := c.count;", {"n": 3, "c.count": 3})
    inner = {text.strip(): values for _, text, values in
             live_source(project.blocks["Counter"], h.get, "Main.c")}
    assert inner["done := count >= lim;"] == {"done": True, "count": 3, "lim": 3}
    assert inner["END_FUNCTION_BLOCK"] == {}


def test_a_project_names_the_language_each_pou_was_written_in():
    sfc = Path(__file__).resolve().parents[2] / "data/st/matiec/tests/syntax/sfc/sfc.txt"
    project = load(sfc)         # lowered to ST to run
    assert project.languages == {"MAIN_TEST": "SFC"}


TIME_SCALING = """
PROGRAM Main
VAR t : TIME := T#10s; n : INT := 3; r : REAL := 2.5; a, b, c, d, e, f : TIME; END_VAR
  a := DIV(t, 4);
  b := MUL(t, r);
  c := DIVTIME(t, 4);
  d := MULTIME(t, n);
  e := DIV(IN2 := n, IN1 := t);
  f := t / n;
END_PROGRAM
"""


def test_mul_and_div_of_a_time_by_a_number_are_matiecs_multime_and_divtime():
    h = harness(TIME_SCALING)
    h.scan()
    # matiec: T#2500ms T#25000ms T#2500ms T#30000ms T#3333.333333ms (ns, as here)
    raw = {n: h.plc.get_raw(f"Main.{n}") for n in "abcdef"}
    assert raw == dict(a=2_500_000_000, b=25_000_000_000, c=2_500_000_000, d=30_000_000_000,
                       e=3_333_333_333, f=3_333_333_333)


def test_mul_of_a_number_by_a_time_is_refused_as_matiec_refuses_it():
    with pytest.raises(FbdError, match="MUL: IN2 is TIME"):
        harness(TIME_SCALING.replace("MUL(t, r)", "MUL(n, t)"))


def test_a_program_whose_network_cannot_be_made_says_why_not_that_it_is_a_block():
    project = load("wrong.st", text="PROGRAM prg VAR x AT %QX0.0 : INT; END_VAR x := 1; END_PROGRAM")
    with pytest.raises(FbdError, match=r"wrong.st: PROGRAM prg: prg.x: %QX0.0 holds 1 bit but INT needs %QW"):
        project.network("prg")


IN_OUT_AND_OUTPUT_ON_ONE_VARIABLE = """
FUNCTION_BLOCK fb
VAR_OUTPUT q : DINT := 7; END_VAR
VAR_IN_OUT io : DINT; END_VAR
  io := io + 100;
  q := q + 1;
END_FUNCTION_BLOCK
PROGRAM prg
VAR v : DINT := 1; w : DINT; a : ARRAY[1..2] OF DINT := [5, 6]; i : INT := 2; f1 : fb; f2 : fb; END_VAR
  f1(io := v, q => v);
  f1(io := w, q => v);
  f2(io := a[i], q => a[2]);
END_PROGRAM
"""


def test_an_in_out_bound_with_an_output_to_one_variable_leaves_the_in_outs_value_as_matiec():
    # matiec (iec2c 6bb2c339df6f) copies the outputs out, then the in-outs back: v is 101 after
    # the first call (then 9 from the second), a[2] 106 though the output 8 went to it too
    assert scans.rows(IN_OUT_AND_OUTPUT_ON_ONE_VARIABLE, ["v", "w", "a"], 2, program="prg") \
        == "1,0,9,100,[5, 106]\n2,5,11,200,[5, 206]"


ELEMENT_INDEX_CALLED_ONCE = """
FUNCTION pick : INT
VAR_IN_OUT calls : INT; END_VAR
VAR_INPUT k : INT; END_VAR
  calls := calls + 1;
  pick := k;
END_FUNCTION
PROGRAM prg
VAR a : ARRAY[0..9] OF INT; n : INT; i : INT := 3; END_VAR
  a[pick(calls := n, k := i)] := a[pick(calls := n, k := i - 1)] + 10 * n;
  i := i + 1;
END_PROGRAM
"""


def test_an_assigned_elements_index_is_computed_once_after_the_value_as_matiec():
    # matiec (iec2c 6bb2c339df6f, --scans 3): pick runs twice a scan, the value's call first,
    # so 10 * n reads the count before the target's call (a[3] is 10, not 20)
    assert scans.rows(ELEMENT_INDEX_CALLED_ONCE, ["n", "a", "i"], 3, program="prg") == (
        "1,0,2,[0, 0, 0, 10, 0, 0, 0, 0, 0, 0],4\n"
        "2,5,4,[0, 0, 0, 10, 40, 0, 0, 0, 0, 0],5\n"
        "3,10,6,[0, 0, 0, 10, 40, 90, 0, 0, 0, 0],6")
