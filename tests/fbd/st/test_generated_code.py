"""The code the ST compiler writes for the Python engine keeps every statement's
meaning whatever its shape: long ELSIF chains and CASEs of thousands of labels
compile (flat, not nested) and take the branch the first true condition or
label gives; a counted FOR keeps the watchdog's count to the iteration; a
fault leaves the variables as the statements before it set them; and each
POU instance's functions over the signal table give, scan after scan, what
the POU's function by values gives (the interpreter runs that one)."""

import pytest

import fbd
from fbd.compiler.interp import Interpreter
from fbd.st.project import load
from fbd.testing import Harness


def program(body: str, decls: str = "x, y : DINT;", extra: str = "") -> Harness:
    text = f"{extra}\nPROGRAM Main\nVAR {decls} END_VAR\n{body}\nEND_PROGRAM\n"
    return Harness(load("gen.st", text=text).network("Main"))


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
