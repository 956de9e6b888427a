"""The code the ST compiler writes for the Python engine keeps every statement's
meaning whatever its shape: long ELSIF chains and CASEs of thousands of labels
compile (flat, not nested) and take the branch the first true condition or
label gives; a counted FOR keeps the watchdog's count to the iteration; a
fault leaves the variables as the statements before it set them; each
POU instance's functions over the signal table give, scan after scan, what
the POU's function by values gives (the interpreter runs that one); and a
long body cut into functions of a few statements each runs as it did whole,
a RETURN in one part ending the scan's call."""

import os
import re
import threading

import pytest

import fbd
from fbd.compiler.interp import Interpreter
from fbd.st import pyemit
from fbd.st.project import load
from fbd.testing import Harness

from .scans import expected, rows


def program(body: str, decls: str = "x, y : DINT;", extra: str = "") -> Harness:
    text = f"{extra}\nPROGRAM Main\nVAR {decls} END_VAR\n{body}\nEND_PROGRAM\n"
    return Harness(load("gen.st", text=text).network("Main"), engine="python")


def test_an_elsif_chain_of_300_conditions_that_need_statements_takes_the_first_true_one():
    # MAX(x, 0) is the library's code before each test: it used to nest one level per ELSIF
    branches = "\n".join(f"ELSIF MAX(x, 0) = {k} THEN y := {k};" for k in range(1, 300))
    h = program(f"IF MAX(x, 0) = 0 THEN y := 0;\n{branches}\nELSE y := -1; END_IF;")
    for x in (-5, 0, 1, 150, 299, 300, 10_000):
        h.write("Main.x", x)
        h.scan()
        assert h.get("Main.y") == (max(x, 0) if max(x, 0) < 300 else -1), x


def test_a_case_of_3000_labels_compiles_and_picks_the_labelled_branch():
    branches = "\n".join(f"{k}: y := {3 * k};" for k in range(3000))
    h = program(f"CASE x OF\n{branches}\nELSE y := -1;\nEND_CASE;")
    for x in (-1, 0, 1, 1234, 2999, 3000):
        h.write("Main.x", x)
        h.scan()
        assert h.get("Main.y") == (3 * x if 0 <= x < 3000 else -1), x


def test_case_labels_shared_by_branches_go_to_the_first_and_gaps_to_else():
    h = program("""CASE x OF
  1, 5: y := 1;
  3..7: y := 2;
  10: y := 3;
  20..30, 40: y := 4;
  6: y := 5;
ELSE y := 9;
END_CASE;""")

    def expected(x):
        for labels, value in (({1, 5}, 1), (set(range(3, 8)), 2), ({10}, 3),
                              (set(range(20, 31)) | {40}, 4), ({6}, 5)):
            if x in labels:
                return value
        return 9
    for x in range(-2, 45):
        h.write("Main.x", x)
        h.scan()
        assert h.get("Main.y") == expected(x), x


def test_a_counted_loop_keeps_the_watchdogs_count_and_the_values_written_before_it_stops():
    h = program("FOR x := 1 TO 2000000 DO y := y + 1; END_FOR;")
    with pytest.raises(fbd.FbdError, match=r"^gen\.st:4: in PROGRAM Main: watchdog"):
        h.scan()
    assert h.get("Main.y") == 1_000_000      # the iterations the budget allowed, run


@pytest.mark.parametrize("n, stops", [(999_990, False), (999_991, True)])
def test_a_loop_left_by_exit_gives_back_the_iterations_it_did_not_run(n, stops):
    # 10 iterations of the first loop (EXIT in the 10th), then n of the second
    h = program(f"""FOR x := 1 TO 100 DO IF x = 10 THEN EXIT; END_IF; END_FOR;
FOR x := 1 TO {n} DO y := y + 1; END_FOR;""")
    if stops:
        with pytest.raises(fbd.FbdError, match=r"gen\.st:5: in PROGRAM Main: watchdog"):
            h.scan()
    else:
        h.scan()
        assert h.get("Main.y") == n


def test_a_for_whose_end_the_loop_changes_tests_it_again_at_every_turn():
    h = program("y := 3; FOR x := 1 TO y DO y := y + 1; IF y > 10 THEN EXIT; END_IF; END_FOR;")
    h.scan()
    assert (h.get("Main.x"), h.get("Main.y")) == (8, 11)


FB_PROGRAM = """
FUNCTION_BLOCK Counter
VAR_INPUT up : BOOL; inc : INT := 1; END_VAR
VAR_OUTPUT n : INT; END_VAR
VAR hist : ARRAY[0..9] OF INT; k : INT; edge : R_TRIG; END_VAR
  edge(CLK := up);
  IF edge.Q THEN n := n + inc; END_IF;
  FOR k := 0 TO 8 DO hist[k] := hist[k + 1]; END_FOR;
  hist[9] := n;
END_FUNCTION_BLOCK

PROGRAM Main
VAR_EXTERNAL g : INT; END_VAR
VAR c1, c2 : Counter; go : BOOL; total : INT; i : INT; END_VAR
  c1(up := go);
  c2(up := NOT go, inc := c1.n);
  total := 0;
  i := 0;
  WHILE i < 10 DO total := total + c1.hist[i] + c2.hist[i]; i := i + 1; END_WHILE;
  g := g + 1;
  CASE total MOD 4 OF 0: go := TRUE; 1, 2: go := FALSE; ELSE go := NOT go; END_CASE;
END_PROGRAM
"""


def test_the_table_functions_give_what_the_function_by_values_gives_scan_after_scan():
    net = load("fb.st", text=FB_PROGRAM).network("Main")
    compiled, reference = Harness(net, engine="python"), Interpreter(net)
    for k in range(60):
        compiled.scan()
        reference.scan(k * compiled.plc.main.cycle_us)
        for path in ("Main.total", "Main.c1.n", "Main.c2.n", "Main.go", "Main.G",
                     "Main.c2.hist", "Main.c1.edge.M"):
            assert compiled.get(path) == reference.get(path), (k, path)


LONG_BODY = """
PROGRAM prg
  VAR_INPUT k : INT := 3; END_VAR
  VAR a, b, c : INT; r : REAL; stop : BOOL; END_VAR
  a := a + 1;
  b := b * 2 + a;
  IF b > 100 THEN b := b - 97; END_IF;
  r := r * 0.5 + INT_TO_REAL(b);
  CASE a MOD 3 OF 0: c := c + 1; 1: c := c - 2; ELSE c := c * 3; END_CASE;
  stop := b MOD 3 = 0;
  IF stop THEN
    RETURN;
  END_IF;
  c := c + b * k;
  a := a + 1;
  r := r + 1.5;
  b := b - c;
END_PROGRAM
"""

# matiec's oracle: --scans 8 --set k=-2@5 (a PROGRAM alone runs every 20 ms)
LONG_BODY_ROWS = """scan,t_ms,a,b,c,r,stop
1,0,2,0,1,2.5,FALSE
2,20,3,3,2,4.25,TRUE
3,40,5,-20,30,13.625,FALSE
4,60,7,37,-71,-25.6875,FALSE
5,80,9,459,-377,70.65625,FALSE
6,100,10,831,-379,866.3281,TRUE
7,120,12,5865,-4289,2010.6641,FALSE
8,140,13,11646,-4291,12651.332,TRUE"""


@pytest.mark.parametrize("part", [2, 3, pyemit.PART_STATEMENTS])
def test_a_body_cut_into_parts_gives_matiecs_rows_scan_by_scan_as_it_did_whole(monkeypatch, part):
    whole = part == pyemit.PART_STATEMENTS      # read before it is patched
    made = []
    cut = pyemit.PyEmitter.parts
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", part)
    monkeypatch.setattr(pyemit.PyEmitter, "parts",
                        lambda self, *args: made.append(len(args[2])) or cut(self, *args))
    got = rows(LONG_BODY, ["a", "b", "c", "r", "stop"], 8, {5: {"k": -2}}, program="prg",
               cycle_ms=20, engine="python")
    assert got == expected(LONG_BODY_ROWS)
    assert made == ([] if whole else [-(-11 // part)])


def test_a_body_compiled_partly_in_a_forked_child_gives_matiecs_rows(monkeypatch, tmp_path):
    from fbd.compiler import compileruns
    parent, compile_run = os.getpid(), compileruns._compile_run

    def compile_noting_where(run):
        (tmp_path / ("parent" if os.getpid() == parent else "child")).touch()
        return compile_run(run)

    monkeypatch.setattr(pyemit, "PART_STATEMENTS", 2)
    monkeypatch.setattr(compileruns, "COMPILE_BYTES", 1)     # a run per part: 6 runs
    monkeypatch.setattr(compileruns, "_compile_run", compile_noting_where)
    monkeypatch.setenv("FBD_COMPILE_JOBS", "2")     # fork whatever the machine's load
    got = rows(LONG_BODY, ["a", "b", "c", "r", "stop"], 8, {5: {"k": -2}}, program="prg",
               cycle_ms=20, engine="python")
    assert got == expected(LONG_BODY_ROWS)
    if threading.active_count() == 1:
        assert (tmp_path / "child").exists() and (tmp_path / "parent").exists()


PARTS_WITH_FBS = FB_PROGRAM.split("PROGRAM Main")[0] + """
PROGRAM Main
VAR c1, c2 : Counter; go : BOOL; total, g : INT; END_VAR
  c1(up := go);
  total := c1.hist[9] + c1.hist[8];
  c2(up := NOT go, inc := c1.n);
  total := total + c2.hist[9];
  g := g + 1;
  CASE total MOD 4 OF 0: go := TRUE; 1, 2: go := FALSE; ELSE go := NOT go; END_CASE;
END_PROGRAM
"""


def test_functions_compiled_run_by_run_sit_at_their_lines_of_the_source(monkeypatch):
    from fbd.compiler import compileruns
    from fbd.compiler.pycode import compile_network
    whole = Harness(load("fb.st", text=PARTS_WITH_FBS).network("Main"), engine="python")
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", 2)
    monkeypatch.setattr(compileruns, "COMPILE_BYTES", 1)     # a run per function
    monkeypatch.setenv("FBD_COMPILE_JOBS", "2")
    net = load("fb.st", text=PARTS_WITH_FBS).network("Main")
    program = compile_network(net)
    lines = program._chunk_source(0).splitlines()
    functions = {name: fn for name, fn in program._namespace.items()
                 if name.startswith("_p0") and callable(fn)}
    # the parts, the FB instances' functions, the body's own: each at its line
    assert set(functions) == {"_p0_part0", "_p0_part1", "_p0_part2", "_p0__c1", "_p0__c2", "_p0"}
    for name, fn in functions.items():
        assert lines[fn.__code__.co_firstlineno - 1].startswith(f"def {name}(")
    cut = Harness(net, engine="python")
    for _ in range(12):
        whole.scan()
        cut.scan()
        for path in ("Main.total", "Main.c1.n", "Main.c2.n", "Main.go", "Main.g"):
            assert cut.get(path) == whole.get(path), path


def test_a_body_with_a_loop_stays_one_function(monkeypatch):
    made = []
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", 2)
    monkeypatch.setattr(pyemit.PyEmitter, "parts", lambda self, *args: made.append(args))
    h = program("x := 0; FOR y := 1 TO 4 DO x := x + y; END_FOR; x := x * 2; y := x + 1;")
    h.scan()
    assert (h.get("Main.x"), h.get("Main.y"), made) == (20, 21, [])


FOLDED = """
PROGRAM prg
  VAR a, b, c, m, lim : INT; r : REAL; d : DINT; END_VAR
  a := a + 7000;
  b := (a * 3 - b) * 2 + 1;
  r := r * 0.5 + INT_TO_REAL(a) / 3.0;
  m := MAX(a - b, b - a);
  IF a * 2 > b + 1 THEN c := c + 1; ELSIF a - b > 0 THEN c := c - 1; END_IF;
  CASE (a + b) MOD 5 OF 0: d := d + 1; 1..2: d := d - 1; ELSE d := d * 2 + 1; END_CASE;
  lim := LIMIT(-100, a - b, 100);
END_PROGRAM
"""

# matiec's oracle: --scans 8 (INT overflows from scan 5 on)
FOLDED_ROWS = """scan,t_ms,a,b,c,m,lim,r,d
1,0,7000,-23535,1,30535,100,2333.3333,1
2,20,14000,-1,2,14001,100,5833.3335,3
3,40,21000,-5069,3,26069,100,9916.667,2
4,60,28000,-18469,4,19067,-100,14291.667,1
5,80,-30536,-15205,4,15331,-100,-3032.8333,3
6,100,-23536,20267,4,21733,100,-9361.75,7
7,120,-16536,-8677,4,7859,-100,-10192.875,15
8,140,-9536,25675,4,30325,100,-8275.1045,31"""


def test_temporaries_written_into_the_statement_reading_them_give_matiecs_rows():
    got = rows(FOLDED, ["a", "b", "c", "m", "lim", "r", "d"], 8, program="prg", cycle_ms=20,
               engine="python")
    assert got == expected(FOLDED_ROWS)


def test_a_temporary_read_once_by_the_next_statement_is_not_a_line_of_its_own():
    from fbd.compiler.pycode import compile_network
    source = compile_network(load("f.st", text=FOLDED).network("prg")).source()
    body = source[source.index("def _p0"):source.index("def _chunk_0")]
    # b := (a * 3 - b) * 2 + 1 is one line, the three operators' temporaries inside it
    assert [ln for ln in body.splitlines() if ln.strip().startswith("s[1] = ")] == [
        "    s[1] = (_w if -32768 <= (_w := ((((s[0] * 3) - s[1]) * 2) + 1)) <= 32767 "
        "else ((_w + 32768) & 65535) - 32768)"]
    # MAX's code reads each input twice: the differences are computed once, ahead of it
    m, = [ln for ln in body.splitlines() if ln.strip().startswith("s[3] = ")]
    assert "s[0] - s[1]" not in m and "s[1] - s[0]" not in m


def test_a_loop_stopped_by_a_bad_index_leaves_what_its_iterations_stored_before_it():
    # i, total and a are held in locals while the loop runs, lim is only read there
    h = program("""i := 1; lim := 7;
WHILE i <= lim DO total := total + i; a[i] := total; i := i + 1; END_WHILE;""",
                decls="a : ARRAY[1..5] OF INT; i, lim, total : INT;")
    with pytest.raises(fbd.FbdError, match=r"^gen\.st:5: in PROGRAM Main: .*index 6"):
        h.scan()
    assert (h.get("Main.i"), h.get("Main.total"), h.get("Main.lim")) == (6, 21, 7)
    assert h.get("Main.a") == [1, 3, 6, 10, 15]


def test_the_scan_calls_a_lone_st_program_itself_and_its_fault_still_names_it():
    from fbd.compiler.pycode import compile_network
    from fbd.runtime.plc import Plc, PlcFault
    net = load("gen.st", text="PROGRAM prg\nVAR i : INT; a : ARRAY[0..2] OF INT; END_VAR\n"
                              "i := i + 1;\na[i] := i;\nEND_PROGRAM\n").network("prg")
    program = compile_network(net)
    scan = program.source().split("def scan(")[1].split("\ndef ")[0]
    assert "_p0(s, now)" in scan and "_chunk_0" not in scan
    # its run of scans holds its variables (fbd.st.pyheld), and names it too
    assert program.holds and "\nscan_many = _p0_held\n" in program.source()
    plc = Plc(net, engine="python")
    with pytest.raises(PlcFault, match=r"^gen\.st:4: in PROGRAM prg: array index 3"):
        plc.scan(5)
    assert (plc.fault.block, plc.fault.scan, plc.get("prg.i")) == ("prg", 3, 3)


def test_an_index_check_the_loop_bounds_prove_is_written_into_the_element_it_reads():
    from fbd.compiler.pycode import compile_network
    net = load("gen.st", text="""PROGRAM prg
VAR a : ARRAY[0..9] OF INT := [5, 9, 1, 7, 3, 8, 2, 6, 0, 4]; j, tmp : INT; END_VAR
FOR j := 0 TO 8 DO
  IF a[j] > a[j + 1] THEN tmp := a[j]; a[j] := a[j + 1]; a[j + 1] := tmp; END_IF;
END_FOR;
END_PROGRAM
""").network("prg")
    body = compile_network(net).source().split("def scan(")[0]
    assert " = (v_J + 1)\n" not in body and body.count("v_A[(v_J + 1)]") == 3
    h = Harness(net, engine="python")
    h.scan()
    assert h.get("prg.a") == [5, 1, 7, 3, 8, 2, 6, 0, 4, 9]     # one pass moves 9 to the end


MOD_PROGRAM = """
PROGRAM prg
  VAR x : INT := -20; u : UINT := 65530; m, c : INT; k : INT; w : UINT; END_VAR
  x := x + 9;
  u := u + 3;
  m := x MOD 7;
  k := (x * 3001) MOD 100;
  w := u MOD 10;
  CASE x MOD 4 OF -3: c := c + 100; -1: c := c + 10; 0: c := c + 1; 3: c := c - 1;
  ELSE c := c * 2; END_CASE;
END_PROGRAM
"""

# matiec's oracle: --scans 8
MOD_ROWS = """scan,t_ms,x,u,m,k,w,c
1,0,-11,65533,-4,-11,3,100
2,20,-2,0,-2,-2,0,200
3,40,7,3,0,7,3,199
4,60,16,6,2,16,6,200
5,80,25,9,4,25,9,400
6,100,34,12,6,34,2,800
7,120,43,15,1,43,5,799
8,140,52,18,3,52,8,800"""


def test_mod_by_a_constant_is_stored_without_a_wrap_and_gives_matiecs_rows():
    from fbd.compiler.pycode import compile_network
    got = rows(MOD_PROGRAM, ["x", "u", "m", "k", "w", "c"], 8, program="prg", cycle_ms=20,
               engine="python")
    assert got == expected(MOD_ROWS)
    body = compile_network(load("m.st", text=MOD_PROGRAM).network("prg")).source()
    body = body.split("def scan(")[0]       # the scan, not its held run's copy (pyheld)
    wraps = [ln for ln in body.splitlines() if "_w if" in ln or "& 65535" in ln]
    # x, u and c's five branches are cut to their types; no remainder is, nor copied for the
    # CASE, nor takes the library's abs() and zero test; u's (unsigned) and x's are one operator
    assert len(wraps) == 7 and not any("_t" in ln for ln in wraps) and "abs(" not in body
    assert "s[5] = (s[1] % 10)" in body and "= (s[0] % 4 if s[0] >= 0 else -(-s[0] % 4))" in body
    assert not re.search(r"_s\d+ = _", body)


COUNTED_WHILE = """
PROGRAM prg
  VAR
    a : ARRAY[1..20] OF INT;
    i, j, k, n, total, seed : INT;
    b : SINT;
    u : USINT;
  END_VAR
  seed := seed + 3;
  i := 1;
  total := 0;
  WHILE i <= 20 DO
    a[i] := a[i] + i * seed;
    total := total + a[i] MOD 100;
    i := i + 1;
  END_WHILE;
  j := seed MOD 5;
  WHILE j < 19 DO
    IF a[j + 1] MOD 7 = 3 THEN EXIT; END_IF;
    j := j + 4;
  END_WHILE;
  k := seed;
  WHILE k < 12 DO
    n := n + k;
    k := k + 1;
  END_WHILE;
  b := 100;
  WHILE b < 120 DO
    b := b + 70;
    n := n + 1;
  END_WHILE;
  u := 251;
  WHILE u <= 254 DO
    u := u + 2;
    n := n + 1;
  END_WHILE;
END_PROGRAM
"""

# matiec's oracle: --scans 6 (b wraps 100 -> -86 -> -16 -> 54 -> 124; j leaves by EXIT or
# ends past 18; k starts at or past 12 from scan 4 on, and the loop does not run)
COUNTED_WHILE_ROWS = """scan,t_ms,i,j,k,n,total,b,u,seed
1,0,21,7,12,69,630,124,255,3
2,20,21,21,12,126,990,124,255,6
3,40,21,12,12,162,980,124,255,9
4,60,21,18,12,168,900,124,255,12
5,80,21,0,15,174,950,124,255,15
6,100,21,19,18,180,1030,124,255,18"""


def test_a_while_counting_up_to_a_constant_is_a_counted_loop_and_gives_matiecs_rows():
    from fbd.compiler.pycode import compile_network
    got = rows(COUNTED_WHILE, ["i", "j", "k", "n", "total", "b", "u", "seed"], 6, program="prg",
               cycle_ms=20, engine="python")
    assert got == expected(COUNTED_WHILE_ROWS)
    source = compile_network(load("w.st", text=COUNTED_WHILE).network("prg")).source()
    body = source[:source.index("def _chunk_0")]
    # i, j and k count in range loops; i's index checks and step cannot fail; j's index
    # (from a MOD that may be negative) is checked
    assert body.count("range(") == 3 and "v_I + 1" not in body
    assert "_st_bounds(v_I" not in body and "_st_bounds(_t" in body
    # b's step of 70 wraps past 127 and u's of 2 could pass 255: both tested at every turn
    assert "while (v_B < 120):" in body and "while (v_U <= 254):" in body


@pytest.mark.parametrize("start, test, step, stopped", [
    (0, "x < 2000000", "x + 1", 1_000_000), (0, "x < lim", "x + 1", 1_000_000),
    (2000000, "x > 0", "x - 1", 1_000_000), (2000000, "x > lim - 2000000", "x - 1", 1_000_000)])
def test_a_counted_while_stopped_by_the_watchdog_has_taken_the_step_of_every_run(
        start, test, step, stopped):
    # a test reading lim is made at every turn (lim could change): both stop alike
    h = program(f"lim := 2000000; x := {start}; WHILE {test} DO y := y + 1; x := {step}; "
                "END_WHILE;", decls="x, y, lim : DINT;")
    with pytest.raises(fbd.FbdError, match=r"^gen\.st:4: in PROGRAM Main: watchdog"):
        h.scan()
    assert (h.get("Main.x"), h.get("Main.y")) == (stopped, 1_000_000)


@pytest.mark.parametrize("test", ["x < 200", "x < lim"])
def test_a_counted_while_holding_a_loop_counts_the_watchdog_at_every_turn(test):
    h = program(f"lim := 200; x := 0; WHILE {test} DO FOR y := 1 TO 5000 DO z := z + 1; "
                "END_FOR; x := x + 1; END_WHILE;", decls="x, y, z, lim : DINT;")
    with pytest.raises(fbd.FbdError, match=r"^gen\.st:4: in PROGRAM Main: watchdog"):
        h.scan()
    # 199 turns of 1 + 5000 iterations, then the 200th runs the 4800 its budget has left
    assert (h.get("Main.x"), h.get("Main.z")) == (199, 199 * 5000 + 4800)


MOD_RANGES = """
PROGRAM prg
  VAR i, p, q, r, seed : INT; END_VAR
  seed := seed + 7;
  p := 0; q := 0; r := 0;
  FOR i := 0 TO 20 DO
    p := p * 3 + i MOD 4;
    q := q + (i MOD 30) * seed;
  END_FOR;
  FOR i := -9 TO 9 DO
    r := r * 5 + i MOD 4;
  END_FOR;
END_PROGRAM
"""

# matiec's oracle: --scans 4
MOD_RANGES_ROWS = """scan,t_ms,p,q,r,seed
1,0,-14898,1470,1352,7
2,20,-14898,2940,1352,14
3,40,-14898,4410,1352,21
4,60,-14898,5880,1352,28"""


def test_mod_of_a_dividend_the_ranges_bound_is_a_plain_remainder_or_none_and_gives_matiecs_rows():
    from fbd.compiler.pycode import compile_network
    assert rows(MOD_RANGES, ["p", "q", "r", "seed"], 4, program="prg", cycle_ms=20,
               engine="python") == \
        expected(MOD_RANGES_ROWS)
    body = compile_network(load("m.st", text=MOD_RANGES).network("prg")).source()
    # i in 0..20: i MOD 4 is Python's %, i MOD 30 is i; in -9..9 the sign is C's
    assert "(v_I % 4)" in body and "% 30" not in body and "(v_Q + (v_I * v_SEED))" in body
    assert "(v_I % 4 if v_I >= 0 else -(-v_I % 4))" in body


@pytest.mark.parametrize("start", ["i := 1; i := i - 5;", "i := 1; IF x > 0 THEN i := -4; END_IF;"])
def test_a_counted_while_keeps_its_index_check_where_the_counter_may_start_below_the_array(start):
    # the range comes from the last statement writing i before the loop: -4 may reach a[i]
    h = program(f"x := 1; {start}\nWHILE i <= 20 DO y := y + a[i]; i := i + 1; END_WHILE;",
                decls="a : ARRAY[1..20] OF DINT; i, x, y : DINT;")
    with pytest.raises(fbd.FbdError, match=r"^gen\.st:5: in PROGRAM Main: .*index -4"):
        h.scan()
    assert h.get("Main.i") == -4


COUNTED_DOWN = """
PROGRAM prg
  VAR
    a : ARRAY[0..9] OF INT;
    i, j, n, seed : INT;
    b : SINT;
    u : UINT;
  END_VAR
  seed := seed + 5;
  a[0] := seed;
  i := 9;
  WHILE i > 0 DO
    a[i] := a[i - 1] + i;
    i := i - 1;
  END_WHILE;
  j := seed MOD 11;
  WHILE j >= 2 DO
    IF a[j - 2] MOD 4 = 1 THEN EXIT; END_IF;
    n := n + j;
    j := j - 3;
  END_WHILE;
  b := -100;
  WHILE b > -120 DO
    b := b - 70;
    n := n + 1;
  END_WHILE;
  u := 3;
  WHILE u > 0 DO
    n := n + UINT_TO_INT(u);
    u := u - 1;
  END_WHILE;
END_PROGRAM
"""

# matiec's oracle: --scans 6 (b wraps -100 -> 86 -> 16 -> -54 -> -124)
COUNTED_DOWN_ROWS = """scan,t_ms,i,j,n,b,u,seed
1,0,0,2,15,-124,0,5
2,20,0,7,35,-124,0,10
3,40,0,4,45,-124,0,15
4,60,0,3,70,-124,0,20
5,80,0,0,83,-124,0,25
6,100,0,-1,108,-124,0,30"""


def test_a_while_counting_down_to_a_constant_is_a_counted_loop_and_gives_matiecs_rows():
    from fbd.compiler.pycode import compile_network
    got = rows(COUNTED_DOWN, ["i", "j", "n", "b", "u", "seed"], 6, program="prg", cycle_ms=20,
               engine="python")
    assert got == expected(COUNTED_DOWN_ROWS)
    source = compile_network(load("d.st", text=COUNTED_DOWN).network("prg")).source()
    body = source[:source.index("def _chunk_0")]
    # i in 1..9 and j in 2..10 inside: no index check; b's step wraps past -128
    assert "range(v_I, 0, -1)" in body and "range(v_J, 1, -3)" in body and "_st_bounds" not in body
    assert "while (v_B > -120):" in body and "range(v_U, 0, -1)" in body


@pytest.mark.parametrize("n, stops", [(999_990, False), (999_991, True)])
def test_a_counted_while_left_by_exit_gives_back_the_iterations_it_did_not_run(n, stops):
    # 10 turns of the WHILE counting down by 3 (EXIT in the 10th), then n of the FOR
    h = program(f"""x := 100; WHILE x > 0 DO IF x = 73 THEN EXIT; END_IF; x := x - 3; END_WHILE;
FOR x := 1 TO {n} DO y := y + 1; END_FOR;""")
    if stops:
        with pytest.raises(fbd.FbdError, match=r"gen\.st:5: in PROGRAM Main: watchdog"):
            h.scan()
    else:
        h.scan()
        assert h.get("Main.y") == n


# found by the fidelity campaign on the Python engine: a MOD by a constant (a temporary
# set alone) between a temporary and its reader made the folding ask it for its block
MOD_BETWEEN_TEMPORARIES = """
PROGRAM prg
VAR
  b_30 : BOOL;
  m : INT := 7;
END_VAR
  b_30 := ((INT#0) > ((INT#0) MOD 100)) <> ((FALSE) OR (GT(UDINT#0, UDINT#0)));
  m := m + 5;
  b_30 := b_30 OR ((m > (m MOD 100)) <> (FALSE OR GT(UDINT#3, UDINT#0)));
END_PROGRAM
"""


def test_a_temporary_set_between_a_temporary_and_its_reader_folds_and_gives_matiecs_rows():
    # matiec's oracle: --scans 3
    assert rows(MOD_BETWEEN_TEMPORARIES, ["b_30", "m"], 3, program="prg", cycle_ms=20,
                engine="python") == expected("""scan,t_ms,b_30,m
1,0,TRUE,12
2,20,TRUE,17
3,40,TRUE,22""")


ONE_SIDED = """
PROGRAM prg
  VAR
    i : INT := 32766; j : INT := -32767; k : SINT := 126; d : DINT := 2147483646;
    l : LINT := 9223372036854775806; big : INT := 30000; low : INT := -30000;
  END_VAR
  i := i + 1;
  j := j - 1;
  k := k + 1;
  d := d + 1;
  l := l + 1;
  big := big + 5000;
  low := low - 5000;
END_PROGRAM
"""

# matiec's oracle: --scans 3
ONE_SIDED_ROWS = """scan,t_ms,i,j,k,d,l,big,low
1,0,32767,-32768,127,2147483647,9223372036854775807,-30536,30536
2,20,-32768,32767,-128,-2147483648,-9223372036854775808,-25536,25536
3,40,-32767,32766,-127,-2147483647,-9223372036854775807,-20536,20536"""


def test_a_sum_that_can_leave_its_type_on_one_side_only_is_cut_by_one_comparison_as_matiec_cuts_it():
    from fbd.compiler.pycode import compile_network
    got = rows(ONE_SIDED, ["i", "j", "k", "d", "l", "big", "low"], 3, program="prg", cycle_ms=20,
               engine="python")
    assert got == expected(ONE_SIDED_ROWS)
    body = compile_network(load("o.st", text=ONE_SIDED).network("prg")).source()
    assert "<= 32767 else _w - 65536)" in body and ">= -32768 else _w + 65536)" in body
    assert "<= 127 else _w - 256)" in body and f"<= {2**63 - 1} else _w - {2**64})" in body
    assert "& 65535" not in body and "& 255" not in body
