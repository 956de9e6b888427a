"""A run of scans with the program's variables held in Python locals
(:mod:`fbd.st.pyheld`, the Python engine's fast-forward) leaves what the same
scans one by one leave: every slot of the table bit for bit, the scan count,
the clock, at every boundary between runs; a fault in the middle of a run
leaves the table, the scan number and the message of the scan one by one."""

from pathlib import Path

import pytest

import fbd
from fbd.runtime.fastforward import batchable
from fbd.runtime.faults import PlcFault
from fbd.st.project import load

DATA = Path(__file__).resolve().parents[2] / "data" / "st"
PROGRAMS = sorted(str(p.relative_to(DATA)) for p in DATA.rglob("*.st"))
# matiec refuses these too (tests/fbd/st/test_corpus_runs.py)
REFUSED = {"openplc_samples/RobotStudio/Estun/generated_plc.st",
           "openplc_samples/successed_ST/Code_13.st", "openplc_samples/successed_ST/symbextest.st"}
# the runs between two changes of the inputs: 1 and 2 scans cross the fast-forward's
# threshold, the others hold the variables across more and more scans
RUNS = [1, 2, 3, 5, 8, 13, 40, 100]


def drive(plc, k: int) -> None:
    """Each input of the first task set to a value of run ``k`` (its BOOLs toggled,
    its numbers stepped), as a field device would between two runs."""
    task = plc.tasks[0]
    for path, info in task.program.signals.items():
        if info.kind != "input":
            continue
        kind = info.type.kind.name
        if kind == "BOOL":
            plc.set(f"{task.name}:{path}", k % 2 == 1)
        elif kind in ("INT", "SINT", "DINT", "LINT", "UINT", "USINT", "UDINT", "ULINT"):
            plc.set(f"{task.name}:{path}", k * 7 % 100)


def state(plc) -> tuple:
    """Everything a scan leaves, floats by their exact text (a NaN equals itself)."""
    return (plc.scans, plc.now_us, plc.state,
            [repr(list(task.s)) for task in plc.tasks])


@pytest.mark.parametrize("name", [p for p in PROGRAMS if p not in REFUSED])
def test_a_run_of_held_scans_leaves_what_the_scans_one_by_one_leave(name):
    fast, stepped = (fbd.load(DATA / name).plc(engine="python") for _ in range(2))
    for k, n in enumerate(RUNS):
        for plc in (fast, stepped):
            drive(plc, k)
        faults = []
        try:
            fast.scan(n)
        except PlcFault as e:
            faults.append(str(e))
        try:
            for _ in range(n):
                stepped.scan()
        except PlcFault as e:
            faults.append(str(e))
        assert len(faults) in (0, 2) and len(set(faults)) < 2, faults
        assert state(fast) == state(stepped), f"after the run of {n} scans"
        if faults:
            break


def test_every_real_program_runs_its_scans_held():
    loose = set()
    for name in PROGRAMS:
        if name in REFUSED:
            continue
        plc = fbd.load(DATA / name).plc(engine="python")
        task = plc.tasks[0]
        if not task.program.holds:
            loose.add(name)
    assert not loose    # traffic_light_bools too, whose RETURN ends its one pass


FAULTY = """PROGRAM prg
VAR_OUTPUT last : INT; END_VAR
VAR n : INT; k : INT; a : ARRAY[0..4] OF INT; t1 : TON; go : BOOL; total : INT; END_VAR
  n := n + 1;
  t1(IN := go, PT := T#20ms);
  go := NOT t1.Q;
  FOR k := 0 TO 4 DO total := total + a[k]; END_FOR;
  a[n MOD 5] := n;
  IF n = 23 THEN a[n] := 0; END_IF;
  total := total + n;
  last := n;
END_PROGRAM
"""


# the same fault in an FB the scan writes inline: its own line and POU
FAULTY_FB = """FUNCTION_BLOCK Keep
VAR_INPUT n : INT; END_VAR
VAR_OUTPUT sum : INT; END_VAR
VAR k : INT; a : ARRAY[0..4] OF INT; END_VAR
  FOR k := 0 TO 4 DO sum := sum + a[k]; END_FOR;
  a[n MOD 5] := n;
  IF n = 23 THEN a[n] := 0; END_IF;
END_FUNCTION_BLOCK
PROGRAM prg
VAR_OUTPUT last : INT; END_VAR
VAR n : INT; t1 : TON; go : BOOL; kp : Keep; total : INT; END_VAR
  n := n + 1;
  t1(IN := go, PT := T#20ms);
  go := NOT t1.Q;
  kp(n := n);
  total := kp.sum + n;
  last := n;
END_PROGRAM
"""


@pytest.mark.parametrize("text, where", [
    (FAULTY, "held.st:9: in PROGRAM prg"), (FAULTY_FB, "held.st:7: in FUNCTION_BLOCK Keep")])
def test_a_fault_in_the_middle_of_a_held_run_leaves_what_the_scan_one_by_one_leaves(text, where):
    fast, stepped = (fbd.Plc(load("held.st", text=text).network("prg"), engine="python")
                     for _ in range(2))
    assert fast.main.program.holds and batchable(fast.main)
    assert "_p0__kp(" not in fast.main.program.source().split("def _p0_held")[1]   # inline
    fast.scan(5)
    with pytest.raises(PlcFault) as held:
        fast.scan(100)
    for _ in range(5):
        stepped.scan()
    with pytest.raises(PlcFault) as one_by_one:
        for _ in range(100):
            stepped.scan()
    assert str(held.value) == str(one_by_one.value)
    assert f"{where}: array index 23 is outside 0..4 (scan 23 " in str(held.value)
    assert (fast.fault.scan, fast.fault.block, fast.fault.time_us) == (
        stepped.fault.scan, stepped.fault.block, stepped.fault.time_us)
    # what scan 23 wrote before its fault (n, the timer, the sum of the array) is in the
    # table, and the output image is scan 22's
    assert state(fast) == state(stepped) and fast.get("prg.n") == 23
    assert fast.main.s[fast.main.program.outputs["last"]] == 22


class EveryScan:
    """A recorder that samples each scan."""

    def record(self, s, scan, now_us):
        pass


def test_a_force_or_a_trace_runs_the_scans_without_the_held_variant():
    text = FAULTY.replace("last", "out")
    plc = fbd.Plc(load("held.st", text=text).network("prg"), engine="python")
    program = plc.main.program
    assert "_held" not in program.source()      # written at the first run, not before
    plc.scan(5)
    assert "\nscan_many = _p0_held\n" in program.source()
    assert program.holds and batchable(plc.main)
    plc.force("prg.out", 7)        # its writer writes a scratch slot the variant does not know
    assert not program.holds and batchable(plc.main)
    plc.scan(10)
    assert (plc.get("prg.out"), plc.get("prg.n")) == (7, 15)
    plc.unforce("prg.out")
    assert program.holds
    plc.force("prg.go", True)      # a variable of the program: forced again after each scan
    assert not batchable(plc.main)
    plc.unforce("prg.go")
    plc.main.traces.append(EveryScan())     # sampled after each scan
    assert not batchable(plc.main)


INLINED = """FUNCTION_BLOCK Acc
  VAR_INPUT go : BOOL; inc : INT; END_VAR
  VAR_INPUT clk : BOOL R_EDGE; END_VAR
  VAR_OUTPUT total : INT; edges : INT; END_VAR
  VAR k : INT; buf : ARRAY[0..3] OF INT; END_VAR
  IF clk THEN edges := edges + 1; END_IF;
  IF go THEN
    FOR k := 0 TO 3 DO
      buf[k] := buf[k] + inc + k;
    END_FOR;
  END_IF;
  total := buf[0] + buf[1] + buf[2] + buf[3];
END_FUNCTION_BLOCK

FUNCTION_BLOCK Early
  VAR_INPUT x : INT; END_VAR
  VAR_OUTPUT y : INT; END_VAR
  VAR_EXTERNAL g : INT; END_VAR
  VAR j : INT; END_VAR
  g := g + 1;
  FOR j := 1 TO 2 DO
    IF x > 5 THEN y := x; RETURN; END_IF;
  END_FOR;
  y := -x;
END_FUNCTION_BLOCK

FUNCTION_BLOCK Clip
  VAR_INPUT v : INT; END_VAR
  VAR_OUTPUT lim : INT; END_VAR
  lim := v;
  IF v > 100 THEN lim := 100; RETURN; END_IF;
  lim := lim + 1;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR_EXTERNAL g : INT; END_VAR
  VAR a1, a2 : Acc; e1 : Early; cl : Clip; i, n, sum, clipped : INT; tick : BOOL; END_VAR
  n := n + 1;
  tick := NOT tick;
  sum := 0;
  FOR i := 1 TO 3 DO
    a1(go := TRUE, clk := tick, inc := i);
    sum := sum + a1.total;
  END_FOR;
  a2(go := n MOD 2 = 0, clk := tick, inc := n);
  e1(x := n MOD 9);
  cl(v := n * 30);
  clipped := cl.lim;
  IF n MOD 4 = 3 THEN RETURN; END_IF;
  sum := sum + a2.total + e1.y + g;
END_PROGRAM

CONFIGURATION c
  VAR_GLOBAL g : INT; END_VAR
  RESOURCE r ON PLC
    TASK t(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM p WITH t : prg;
  END_RESOURCE
END_CONFIGURATION
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --scans 10, with clk a plain BOOL (matiec's R_EDGE
# input does not compile here; nothing the rows show reads edges)
INLINED_ROWS = [  # g, i, sum, clipped
    (1, 3, 76, 31), (2, 3, 216, 61), (3, 3, 328, 91), (4, 3, 490, 100), (5, 3, 616, 100),
    (6, 3, 784, 100), (7, 3, 832, 100), (8, 3, 1078, 100), (9, 3, 1197, 100), (10, 3, 1369, 100)]


def test_fb_instances_written_inline_keep_their_loops_edges_and_watchdog_apart_from_the_callers():
    fast, stepped = (load("inl.st", text=INLINED).plc(engine="python") for _ in range(2))
    program = fast.main.program
    assert program.holds and batchable(fast.main)
    held = program.source().split("def _p0_held")[1]
    # Acc's instances are written into the scan (a1 inside the caller's FOR), and Clip's,
    # whose RETURN and the program's own end a one-pass loop; Early, whose RETURN is in a
    # FOR, is called, and reaches the global g, which the scan then leaves in the table
    assert "_p0__a1(" not in held and "_p0__cl(" not in held and "_p0__e1(s, now)" in held
    assert "_h0 = s[0]" not in held and "s[0]" in held       # g, at its slot
    rows = []
    for _ in range(10):
        stepped.scan()
        rows.append((stepped.get("g"), stepped.get("p.i"), stepped.get("p.sum"),
                     stepped.get("p.clipped")))
    assert rows == INLINED_ROWS
    for n in (1, 2, 3, 4):
        fast.scan(n)
    assert state(fast) == state(stepped)
    assert fast.get("p.a1.edges") == 5     # one rising edge of tick every other scan


def test_a_located_input_the_program_writes_is_read_in_each_held_scan_as_memory():
    from tests.fbd.st.test_located_inputs import WRITES
    fast, stepped = (fbd.Plc(load("loc.st", text=WRITES).network("main"), engine="python")
                     for _ in range(2))
    assert fast.main.program.holds
    source = fast.main.program.source().split("def _p0_held")[1]
    assert "v_W = _h" in source    # its slot is the kept value's
    for k, n in enumerate((1, 3, 4, 9)):
        for plc in (fast, stepped):
            plc.set("w", 5 + 7 * k)
        fast.scan(n)
        for _ in range(n):
            stepped.scan()
        assert state(fast) == state(stepped)
    assert fast.get("w") == 26        # the last value latched: the program wrote 105 once


def test_fb_instances_past_the_inline_budget_are_called_their_variables_left_in_the_table(
        monkeypatch):
    from fbd.st import pyheld
    plc = load("inl.st", text=INLINED).plc(engine="python")
    acc = plc.main.program.leaves[0].block.procedure.info.variables["A1"].fb
    monkeypatch.setattr(pyheld, "INLINE_STATEMENTS", pyheld.weight(acc) + 1)
    fast, stepped = (load("inl.st", text=INLINED).plc(engine="python") for _ in range(2))
    assert fast.main.program.holds
    held = fast.main.program.source().split("def _p0_held")[1]
    assert "_p0__a1(" not in held and "_p0__a2(s, now)" in held     # a1 first, a2 past it
    fast.scan(10)
    for _ in range(10):
        stepped.scan()
    assert state(fast) == state(stepped) and stepped.get("p.sum") == INLINED_ROWS[-1][2]


IN_OUT = """FUNCTION_BLOCK Bump
  VAR_IN_OUT cnt : INT; arr : ARRAY[0..2] OF INT; END_VAR
  VAR_INPUT inc : INT; END_VAR
  VAR_OUTPUT calls : INT; END_VAR
  calls := calls + 1;
  cnt := cnt + inc;
  arr[cnt MOD 3] := cnt;
  IF cnt > 50 THEN RETURN; END_IF;
  cnt := cnt + 1;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR b1, b2 : Bump; n, total, other : INT; hist : ARRAY[0..2] OF INT; k : INT; END_VAR
  n := n + 1;
  FOR k := 1 TO 2 DO
    b1(cnt := total, arr := hist, inc := k);
  END_FOR;
  b2(cnt := other, arr := hist, inc := n);
  IF total > 60 THEN total := 0; END_IF;
END_PROGRAM
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --program prg --scans 12 (total, other, hist, b1.calls)
IN_OUT_ROWS = """
1,0,5,2,0,1,0,2
2,20,10,5,9,4,0,4
3,40,15,9,9,4,8,6
4,60,20,14,9,13,8,8
5,80,25,20,24,19,8,10
6,100,30,27,24,19,26,12
7,120,35,35,24,34,26,14
8,140,40,44,39,43,26,16
9,160,45,53,39,43,53,18
10,180,50,63,63,49,53,20
11,200,53,74,51,49,74,22
12,220,56,86,54,49,86,24
"""


def test_an_fb_with_var_in_outs_written_inline_copies_them_in_and_back_out_as_its_call_does():
    fast, stepped = (fbd.Plc(load("io.st", text=IN_OUT).network("prg"), engine="python")
                     for _ in range(2))
    assert fast.main.program.holds
    held = fast.main.program.source().split("def _p0_held")[1]
    assert "_p0__b1(" not in held and "_p0__b2(" not in held
    rows = []
    for k in range(1, 13):
        stepped.scan()
        rows.append(",".join(str(v) for v in (
            k, (k - 1) * 20, stepped.get("prg.total"), stepped.get("prg.other"),
            *stepped.get("prg.hist"), stepped.get("prg.b1.calls"))))
    assert rows == IN_OUT_ROWS.split()
    for n in (1, 2, 4, 5):
        fast.scan(n)
    assert state(fast) == state(stepped)
