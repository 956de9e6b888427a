"""Breaking on a line of an ST (IL, SFC) POU, stepping statement by statement, the
values of a call paused inside a POU, and an SFC chart's active steps."""

import pytest

from fbd.debug import Debugger
from fbd.errors import FbdError
from fbd.st.project import load

PROGRAM = """\
FUNCTION Twice : INT
VAR_INPUT a : INT; END_VAR
  Twice := a * 2;
END_FUNCTION

FUNCTION_BLOCK Counter
VAR_INPUT inc : BOOL; END_VAR
VAR_OUTPUT count : INT; END_VAR
  IF inc THEN
    count := count + 1;
  END_IF;
END_FUNCTION_BLOCK

PROGRAM Main
VAR
  go : BOOL;
  c, d : Counter;
  n, m, i : INT;
  t1 : TON;
  late : BOOL;
END_VAR
  c(inc := go);
  d(inc := NOT go);
  n := c.count;

  m := 0;
  FOR i := 1 TO 3 DO
    m := Twice(i) + m;
  END_FOR;
  t1(IN := go, PT := T#30ms);
  CASE n OF
    1..4: late := t1.Q;
    5: n := n; m := m + 100;
  ELSE
    late := FALSE;
  END_CASE;
END_PROGRAM
"""

# the lines of PROGRAM's statements
C_CALL, D_CALL, N_FROM_C, M_ZERO, FOR_I, M_SUM, TON_CALL, CASE_N, LATE, FIVE = (
    22, 23, 24, 26, 27, 28, 30, 31, 32, 33)
COUNT_UP, TWICE = 10, 3


def debugger(text=PROGRAM, name="p.st", **options):
    project = load(name, text)
    return Debugger(project.plc(cycle=0.01), **options)


# ------------------------------------------------------------------ line breakpoints
def test_a_line_breakpoint_pauses_before_its_statement_in_the_scan_that_runs_it():
    dbg = debugger()
    bp = dbg.add_line_breakpoint("Main.c", COUNT_UP)
    assert dbg.run_until_break(3) is None          # go is FALSE: c never counts
    assert dbg.scans == 3
    dbg.write("Main.go", True)
    hit = dbg.run_until_break(10)
    assert (hit.scan, hit.line, hit.instance, hit.pou, hit.block) == (
        4, COUNT_UP, "Main.c", "FUNCTION_BLOCK Counter", "Main")
    assert hit.breakpoints == (bp,) and bp.hits == 1
    assert dbg.in_scan and dbg.scans == 3          # paused inside scan 4
    assert dbg.current_line == ("Main.c", COUNT_UP)
    assert [(f.instance, f.line) for f in dbg.frames] == [("Main", C_CALL), ("Main.c", COUNT_UP)]
    assert "before line 10 of FUNCTION_BLOCK Counter (Main.c) in scan 4" in hit.describe()
    hit = dbg.run_until_break(10)                  # the next scan's call
    assert (hit.scan, bp.hits) == (5, 2)


def test_a_breakpoint_on_an_instance_stops_only_its_calls_one_on_the_type_every_instance():
    dbg = debugger()
    dbg.add_line_breakpoint("Main.d", COUNT_UP)      # d counts while go is FALSE
    hit = dbg.run_until_break(5)
    assert (hit.instance, hit.scan) == ("Main.d", 1)
    dbg.remove_breakpoint(hit.breakpoints[0])
    dbg.finish_scan()
    dbg.write("Main.go", True)
    every = dbg.add_line_breakpoint("counter", COUNT_UP)    # a POU by name, any case
    assert every.instance is None and every.text == "line 10 of Counter (every instance)"
    hit = dbg.run_until_break(5)
    assert hit.instance == "Main.c"
    # written while paused inside Main: Main's call goes on with its own go (TRUE, so d
    # does not count in this scan), and the write is applied as the call returns
    dbg.write("Main.go", False)
    assert dbg.live("Main.go") is True
    hit = dbg.run_until_break(5)
    assert (hit.instance, hit.scan) == ("Main.d", 3)


def test_a_breakpoint_inside_a_function_hits_at_each_call_with_the_callers_instance():
    dbg = debugger()
    dbg.add_line_breakpoint("Twice", TWICE)
    hits = [dbg.run_until_break(5) for _ in range(4)]
    assert [(h.scan, h.instance, h.pou, h.line) for h in hits] == [
        (1, "Main", "FUNCTION Twice", TWICE)] * 3 + [(2, "Main", "FUNCTION Twice", TWICE)]
    callee = dbg.frames[-1]
    assert callee.pou.name == "Twice" and callee.where == "Twice"
    assert callee.values() == {"a": 1, "Twice": 0}
    assert [r.values for r in dbg.source("Twice") if r.line == TWICE] == [{"Twice": "0", "a": "1"}]


def test_a_line_without_a_statement_moves_to_the_next_and_says_so():
    dbg = debugger()
    bp = dbg.add_line_breakpoint("Main", 25)           # the empty line after n := c.count
    assert (bp.requested_line, bp.line) == (25, M_ZERO)
    assert "line 25 of PROGRAM Main holds no statement; the breakpoint is on line 26" in bp.note
    assert dbg.add_line_breakpoint("Main", M_SUM).note == ""
    with pytest.raises(FbdError, match="line 36 of PROGRAM Main holds no statement, nor does any "
                                       "line after it"):
        dbg.add_line_breakpoint("Main", 36)           # END_CASE, then END_PROGRAM
    with pytest.raises(FbdError, match=r"line 3 is not in PROGRAM Main \(lines 14-37\)"):
        dbg.add_line_breakpoint("Main", 3)
    with pytest.raises(FbdError, match=r"'Mian' is neither an ST POU instance \(Main, Main.c, "
                                       r"Main.d\) nor an ST POU \(Twice, Counter, Main\)"):
        dbg.add_line_breakpoint("Mian", 3)


def test_line_breakpoints_are_listed_enabled_and_removed_with_the_conditions():
    dbg = debugger()
    cond = dbg.add_breakpoint("Main.n >= 100")
    line = dbg.add_line_breakpoint("Main", M_SUM)
    assert [b.id for b in dbg.breakpoints] == [cond.id, line.id] == [1, 2]
    dbg.enable_breakpoint(line.id, False)
    assert dbg.run_until_break(5) is None and not dbg.in_scan      # disabled: compiled scans
    dbg.enable_breakpoint(line, True)
    assert dbg.run_until_break(5).line == M_SUM
    dbg.remove_breakpoint(line.id)
    assert dbg.breakpoints == [cond] and dbg.line_breakpoints == []


def test_running_with_a_line_breakpoint_stops_advance_too():
    # the wall clock stands still: advance's 20 ms budget never runs out, however
    # slowly the machine steps the scans statement by statement
    dbg = debugger(clock=lambda: 0.0)
    dbg.add_line_breakpoint("Main", FIVE)            # n = 5 in the 5th scan with go
    dbg.write("Main.go", True)
    dbg.run()
    hit = dbg.advance(1.0)                           # 100 scans due at real time
    assert (hit.scan, hit.line, dbg.state) == (5, FIVE, "paused")


# ------------------------------------------------------------------ values inside a call
def test_values_while_paused_inside_a_pou_are_its_locals_at_that_point():
    dbg = debugger()
    dbg.step(2)
    dbg.write("Main.go", True)
    dbg.add_line_breakpoint("Main", M_ZERO)
    dbg.run_until_break(1)
    # c counted and n took its count in this call; the table shows them when Main returns
    assert (dbg.live("Main.n"), dbg.live("Main.c.count"), dbg.live("Main.m")) == (1, 1, 12)
    assert (dbg.get("Main.n"), dbg.get("Main.c.count"), dbg.get("Main.m")) == (0, 0, 12)
    rows = {r.line: r for r in dbg.source("Main")}
    assert rows[N_FROM_C].values == {"n": "1", "c.count": "1"}
    assert rows[M_ZERO].current and not rows[N_FROM_C].current
    assert rows[M_ZERO].breakpoints == tuple(dbg.line_breakpoints)
    assert rows[M_ZERO].statement and not rows[25].statement
    assert {r.line: r.values for r in dbg.source("Main.c")}[COUNT_UP] == {"count": "1"}
    dbg.finish_scan()
    assert dbg.get("Main.n") == 1 and not dbg.in_scan


def test_a_force_made_while_paused_inside_a_pou_holds_from_when_it_returns():
    dbg = debugger()
    dbg.add_line_breakpoint("Main", M_SUM)
    dbg.run_until_break(1)
    dbg.force("Main.n", 42)
    assert dbg.live("Main.n") == 0           # the call computes with what it read
    dbg.remove_breakpoint(dbg.line_breakpoints[0])
    dbg.finish_scan()
    assert dbg.get("Main.n") == 42
    dbg.step(3)
    assert dbg.get("Main.n") == 42


def test_a_restart_abandons_the_call_paused_inside():
    dbg = debugger()
    dbg.add_line_breakpoint("Twice", TWICE)
    dbg.run_until_break(1)
    dbg.restart()
    assert dbg.frames == [] and not dbg.in_scan and dbg.current_line is None
    assert dbg.run_until_break(1).scan == 1


# ------------------------------------------------------------------ stepping by statement
def test_step_line_goes_into_calls_and_on_into_the_next_scan():
    dbg = debugger()
    seen = []
    for _ in range(18):
        dbg.step_line()
        seen.append(dbg.current_line)
    assert seen == [
        ("Main", C_CALL), ("Main.c", 9), ("Main", D_CALL), ("Main.d", 9), ("Main.d", COUNT_UP),
        ("Main", N_FROM_C), ("Main", M_ZERO), ("Main", FOR_I),
        ("Main", M_SUM), ("Twice", TWICE), ("Main", M_SUM), ("Twice", TWICE),
        ("Main", M_SUM), ("Twice", TWICE), ("Main", TON_CALL), ("Main", CASE_N),
        ("Main", 35),                          # n = 0: the ELSE branch
        None]                                  # no statement left: the scan ended
    assert dbg.scans == 1 and not dbg.in_scan
    dbg.step_line()
    assert dbg.current_line == ("Main", C_CALL) and dbg.in_scan


def test_step_line_over_runs_the_calls_of_the_statement_whole():
    dbg = debugger()
    seen = []
    for _ in range(11):
        dbg.step_line(over=True)
        seen.append(dbg.current_line)
    assert seen == [("Main", C_CALL), ("Main", D_CALL), ("Main", N_FROM_C), ("Main", M_ZERO),
                    ("Main", FOR_I), ("Main", M_SUM), ("Main", M_SUM), ("Main", M_SUM),
                    ("Main", TON_CALL), ("Main", CASE_N), ("Main", 35)]
    dbg.add_line_breakpoint("Twice", TWICE)
    dbg.step_line(over=True)        # the scan ends
    dbg.step_line(over=True)
    dbg.step_line(over=True)        # over c(...), d(...), n := c.count ...
    assert dbg.current_line == ("Main", D_CALL)
    for _ in range(5):
        dbg.step_line(over=True)
    hit = dbg.last_hit                # ... but a breakpoint inside a call still fires
    assert dbg.current_line == ("Twice", TWICE) and hit.line == TWICE and hit.scan == 2


def test_step_into_runs_the_rest_of_the_block_paused_inside():
    dbg = debugger()
    dbg.step_line()
    dbg.step_line()
    assert dbg.current_line == ("Main.c", 9)
    dbg.step_into()                 # the rest of Main: the scan's only block, so it ends
    assert not dbg.in_scan and dbg.scans == 1 and dbg.get("Main.m") == 12


# ------------------------------------------------------------------ the same table
@pytest.mark.parametrize("how", ["run", "step_line"])
def test_line_stepped_scans_leave_the_table_as_the_compiled_scans_do(how):
    stepped, compiled = debugger(), debugger()
    # a breakpoint on a statement that never runs: every scan goes statement by statement
    stepped.add_line_breakpoint("Main", FIVE)
    stepped.add_line_breakpoint("Counter", COUNT_UP)
    stepped.enable_breakpoint(stepped.line_breakpoints[1], False)
    n_scans = 120 if how == "run" else 25
    for k in range(n_scans):
        if k % 7 == 3:
            for dbg in (stepped, compiled):
                dbg.write("Main.go", k % 2 == 1)
        if how == "run":
            hit = stepped.run_until_break(1)
            while hit is not None:          # n reaches 5 now and then: go on
                hit = stepped.finish_scan()
        else:
            stepped.step_line()
            while stepped.in_scan:
                stepped.step_line()
        compiled.step(1)
        assert stepped.scans == compiled.scans == k + 1
        assert stepped.table == compiled.table, f"scan {k + 1}"
        assert stepped.time_us == compiled.time_us


# ------------------------------------------------------------------ IL and SFC
IL = """\
FUNCTION_BLOCK Acc
VAR_INPUT x : INT; END_VAR
VAR_OUTPUT total : INT; END_VAR
  LD total
  ADD x
  ST total
END_FUNCTION_BLOCK

PROGRAM Main
VAR a : Acc; END_VAR
  LD 2
  ST a.x
  CAL a
END_PROGRAM
"""


def test_a_breakpoint_on_an_il_line_stops_its_lowered_statement():
    dbg = debugger(IL, "acc.il.st")
    bp = dbg.add_line_breakpoint("Main.a", 5)         # ADD x: its statement is ST's line
    hit = dbg.run_until_break(2)
    assert (hit.instance, hit.line) == ("Main.a", bp.line)
    assert dbg.frames[-1].values()["total"] == 0
    dbg.finish_scan()
    assert dbg.run_until_break(2).scan == 2 and dbg.live("Main.a.total") == 2


CHART = """\
PROGRAM Chart
  VAR go : BOOL; n : INT; END_VAR
  INITIAL_STEP Idle: END_STEP
  TRANSITION FROM Idle TO Busy := go; END_TRANSITION
  STEP Busy: Work(N); END_STEP
  TRANSITION FROM Busy TO Done := Busy.T >= T#20ms; END_TRANSITION
  STEP Done: END_STEP
  TRANSITION FROM Done TO Idle := NOT go; END_TRANSITION
  ACTION Work:
    n := n + 1;
  END_ACTION
END_PROGRAM
"""


def test_an_sfc_instance_shows_its_active_steps_and_how_long_each_has_been_active():
    dbg = debugger(CHART, "chart.st")
    assert dbg.sfc_instances() == ["Chart"]
    seen = []
    for k in range(1, 10):
        if k in (2, 7):
            dbg.write("Chart.go", k == 2)
        dbg.step()
        steps = dbg.sfc_steps("Chart")
        seen.append((dbg.get("Chart.n"), [s.name for s in steps if s.active],
                     next(s.time for s in steps if s.active)))
    # n as matiec (iec2c 6bb2c339df6f, 10 ms cycle, go TRUE before scan 2, FALSE before 7)
    assert [n for n, _, _ in seen] == [0, 1, 2, 2, 2, 2, 2, 2, 2]
    assert [(active, time) for _, active, time in seen] == [
        (["Idle"], "T#0s"), (["Busy"], "T#0s"), (["Busy"], "T#10ms"), (["Done"], "T#0s"),
        (["Done"], "T#10ms"), (["Done"], "T#20ms"), (["Idle"], "T#0s"), (["Idle"], "T#10ms"),
        (["Idle"], "T#20ms")]
    chart = dbg.st_instances()["Chart"].chart
    assert [(s.name, s.initial, s.line) for s in chart.steps] == [
        ("Idle", True, 3), ("Busy", False, 5), ("Done", False, 7)]
    assert [(t.sources, t.targets, t.line) for t in chart.transitions] == [
        (("Idle",), ("Busy",), 4), (("Busy",), ("Done",), 6), (("Done",), ("Idle",), 8)]
    assert chart.steps[1].actions == ("Work(N)",)
    with pytest.raises(FbdError, match="not an instance of an SFC POU"):
        debugger().sfc_steps("Main")


def test_a_breakpoint_in_an_sfc_action_stops_while_its_step_is_active():
    dbg = debugger(CHART, "chart.st")
    dbg.add_line_breakpoint("Chart", 10)
    dbg.write("Chart.go", True)
    hit = dbg.run_until_break(10)
    assert (hit.scan, hit.line) == (1, 10)
    # mid-scan the chart's flags are the call's: Busy became active in this scan
    assert [s.name for s in dbg.sfc_steps("Chart") if s.active] == ["Busy"]
    assert dbg.get("Chart.Busy.X") is False


BOUNDS = """\
PROGRAM Main
VAR a : ARRAY[1..3] OF INT; k : INT; END_VAR
  k := k + 1;
  a[k] := k;
  IF k > 100 THEN
    k := 0;
  END_IF;
END_PROGRAM
"""


def test_a_pou_that_stops_the_scan_mid_call_puts_the_plc_in_fault_until_a_restart():
    dbg = debugger(BOUNDS, "bounds.st")
    events = []
    dbg.listeners.append(events.append)
    dbg.add_line_breakpoint("Main", 6)                # never reached: line-stepped scans
    with pytest.raises(FbdError, match=r"bounds.st:4: in PROGRAM Main: array index 4 is "
                                       r"outside 1..3"):
        dbg.run_until_break(10)
    assert dbg.scans == 3 and not dbg.in_scan and dbg.frames == [] and "fault" in events
    assert (dbg.plc.state, dbg.fault.line, dbg.fault.block) == ("FAULT", 4, "Main")
    with pytest.raises(FbdError, match="the PLC is in FAULT since scan 4 of task Main"):
        dbg.step()
    dbg.restart()
    dbg.step()
    assert (dbg.plc.state, dbg.scans, dbg.get("Main.k"), dbg.get("Main.a")) == \
        ("RUN", 4, 1, [1, 0, 0])


LIGHTS = """\
PROGRAM prg
  VAR go : BOOL; red, green : BOOL; n : INT; END_VAR
  INITIAL_STEP S_Green: GreenOn(N); END_STEP
  TRANSITION FROM S_Green TO S_Red := go; END_TRANSITION
  STEP S_Red: RedOn(N); END_STEP
  TRANSITION FROM S_Red TO S_Green := NOT go; END_TRANSITION
  ACTION GreenOn:
    green := TRUE;
  END_ACTION
  ACTION RedOn:
    red := TRUE;
    n := n + 1;
  END_ACTION
END_PROGRAM
"""
#: n after each of 8 scans, go TRUE before scan 3 and FALSE before scan 6, as matiec
#: runs it (iec2c 6bb2c339df6f): RedOn's statements run in scans 3, 4 and 5 only
LIGHTS_N = [0, 0, 1, 2, 3, 3, 3, 3]


def scans_stopped_in(line: int, scans: int = 8) -> list[int]:
    """The scans in which a breakpoint on ``line`` of LIGHTS stops (go as LIGHTS_N says)."""
    dbg = debugger(LIGHTS, "lights.st")
    dbg.add_line_breakpoint("prg", line)
    stopped, n = [], []
    for k in range(1, scans + 1):
        if k in (3, 6):
            dbg.write("prg.go", k == 3)
        while dbg.step(1) is not None:     # stopped inside scan k: on to its end
            stopped.append(k)
        n.append(dbg.get("prg.n"))
    assert n == LIGHTS_N
    return stopped


def test_a_breakpoint_in_an_action_stops_only_in_the_scans_the_action_runs():
    assert scans_stopped_in(11) == [3, 4, 5]           # red := TRUE
    assert scans_stopped_in(12) == [3, 4, 5]


def test_an_action_header_holds_no_statement_its_breakpoint_goes_to_the_first():
    dbg = debugger(LIGHTS, "lights.st")
    bp = dbg.add_line_breakpoint("prg", 10)            # ACTION RedOn: (it stopped every scan)
    assert bp.line == 11 and "line 10 of PROGRAM prg holds no statement" in bp.note
    assert scans_stopped_in(10) == [3, 4, 5]


def test_a_step_stops_while_active_and_a_transition_when_it_is_tested():
    assert scans_stopped_in(5) == [4, 5, 6]            # S_Red active as the scan begins
    assert scans_stopped_in(6) == [4, 5, 6]            # S_Red -> S_Green tested
    assert scans_stopped_in(4) == [1, 2, 3, 7, 8]      # S_Green -> S_Red tested


def test_stepping_by_line_through_a_chart_stops_at_the_users_lines_only():
    dbg = debugger(LIGHTS, "lights.st")
    lines = []
    while True:
        dbg.step_line()
        if not dbg.frames:
            break
        lines.append(dbg.current_line[1])
    assert lines == [3, 4, 8]         # S_Green active, its transition tested, green := TRUE


def test_a_charts_lines_show_the_users_variables_not_its_lowerings():
    dbg = debugger(LIGHTS, "lights.st")
    dbg.step(2)
    shown = {row.line: row.values for row in dbg.source("prg") if row.values}
    assert shown == {4: {"go": "FALSE"}, 6: {"go": "FALSE"}, 8: {"green": "TRUE"},
                     11: {"red": "FALSE"}, 12: {"n": "0"}}
    # a step's flag the text names is the user's
    chart = debugger(CHART, "chart.st")
    assert {r.line: r.values for r in chart.source("Chart") if r.values}[6] == {"Busy.T": "T#0s"}
