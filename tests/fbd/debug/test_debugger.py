"""The debugger's model, headless: stepping scans and blocks, breakpoints, forces,
restarts, trends, and the real-time pacing of advance()."""

import csv
import datetime
import inspect
import io
import re

import pytest

import blocks
import fbd.debug.debugger
from fbd import BOOL, INT, REAL, STRING, TIME, Network, Plc
from fbd.debug.debugger import MAX, TREND_CAPACITY, ConditionError, Debugger, Hit, format_value
from fbd.errors import FbdError, UnknownSignal
from fbd.types import string_of
from tests.fbd.toys import CLOCK, INC, PLUS, TICKS


# ----------------------------------------------------------------------- networks
def counter() -> Network:
    """N counts scans unless HOLD; Q = N >= 3 through a GE block."""
    net = Network("Counter")
    en = net.add("en", blocks.NOT(), IN=net.input("HOLD", BOOL))
    t = net.add("t", TICKS(), EN=en.OUT)
    ge = net.add("ge", blocks.GE(), IN1=t.N, IN2=3)
    net.output("N", t.N)
    net.output("Q", ge.OUT)
    return net


def latch() -> Network:
    net = Network("Latch")
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    q = net.add("or_", blocks.OR())
    keep = net.add("keep", blocks.AND(), IN1=q.OUT, IN2=net.add("nr", blocks.NOT(), IN=r).OUT)
    net.connect(s, q.IN1)
    net.connect(keep.OUT, q.IN2, feedback=True)
    net.output("Q", keep.OUT)
    return net


def plant() -> Network:
    """Macros, feedback wires (one read before its source runs), state, timers on
    the PLC clock, an edge, a counter: every way a scan carries values."""
    net = Network("Plant")
    start, stop, x = net.input("START", BOOL), net.input("STOP", BOOL), net.input("X", INT)
    run = net.add("run", latch(), S=start, R=stop)
    ton = net.add("ton", blocks.TON(), IN=run.Q, PT="T#12ms")
    edge = net.add("edge", blocks.R_TRIG(), CLK=ton.Q)
    ctu = net.add("ctu", blocks.CTU(), CU=edge.Q, R=stop, PV=3)
    ticks = net.add("ticks", TICKS(), EN=run.Q)
    acc = net.add("acc", PLUS(), A=x)
    net.connect(acc.OUT, acc.B, feedback=True)
    early = net.add("early", INC(INT))           # runs first, reads 'late' of the scan before
    late = net.add("late", INC(), IN=ticks.N)
    net.connect(late.OUT, early.IN, feedback=True)
    net.output("RUN", run.Q)
    net.output("DONE", ctu.Q)
    net.output("N", ticks.N)
    net.output("ACC", acc.OUT)
    net.output("EARLY", early.OUT)
    net.output("T", net.add("clock", CLOCK()).T)
    return net


def inputs_for(k: int) -> dict:
    return {"START": k in (1, 9), "STOP": k in (6, 7), "X": (k * 7) % 5 - 2}


def table_after_steps(plc: Plc) -> list:
    return list(plc.main.s)


# ----------------------------------------------------------------------- stepping
def test_step_runs_whole_scans_and_advances_the_scan_counter_and_the_clock():
    dbg = Debugger(Plc(counter(), cycle="T#10ms"))
    assert (dbg.scans, dbg.time_us, dbg.state) == (0, 0, "paused")
    assert dbg.step() is None
    assert (dbg.scans, dbg.time_us, dbg.get("N")) == (1, 10_000, 1)
    dbg.step(5)
    assert (dbg.scans, dbg.time_us, dbg.get("N")) == (6, 60_000, 6)
    assert dbg.time == pytest.approx(0.060)
    with pytest.raises(FbdError, match="cannot step 0 scans"):
        dbg.step(0)


def test_step_into_runs_the_blocks_in_execution_order_and_ends_the_scan_as_a_scan_ends():
    plc = Plc(counter())
    dbg = Debugger(plc)
    dbg.step()
    assert dbg.step_into() is None                 # the scan begins: nothing has run yet
    assert dbg.in_scan and dbg.block_position == (0, 3)
    assert dbg.time_us == 5_000 and dbg.scans == 1  # the scan runs at its due time
    seen = []
    while dbg.in_scan:
        seen.append(dbg.current_block)
        dbg.step_into()
        if dbg.in_scan:
            assert dbg.last_block == seen[-1]
    assert seen == dbg.order == ["en", "t", "ge"] == [plc.program.leaves[i].path
                                                for i in plc.program.order]
    assert (dbg.scans, dbg.time_us, dbg.get("N")) == (2, 10_000, 2)
    assert dbg.current_block is None and dbg.block_position == (0, 3)


def test_a_block_stepped_into_shows_its_outputs_before_the_scan_publishes_them():
    dbg = Debugger(Plc(counter()))
    dbg.step_into()
    dbg.step_into()
    dbg.step_into()                               # en and t ran
    assert dbg.get("t.N") == 1 and dbg.get("N") == 0   # N is published at scan end
    dbg.step_into()                               # ge ran, the last block: the scan ends
    assert dbg.get("N") == 1 and not dbg.in_scan


def test_a_stepped_scan_leaves_exactly_the_table_a_normal_scan_leaves():
    normal, stepped = Plc(plant()), Plc(plant())
    tr_normal = normal.trace(["RUN", "N", "ACC", "EARLY", "T", "ton.ET"])
    tr_stepped = stepped.trace(["RUN", "N", "ACC", "EARLY", "T", "ton.ET"])
    dbg = Debugger(stepped)
    n_blocks = len(stepped.program.order)
    for k in range(12):
        for name, value in inputs_for(k).items():
            normal.set(name, value)
            stepped.set(name, value)
        normal.scan()
        if k % 3 == 2:
            dbg.step()                            # some scans whole, the others block by block
        else:
            dbg.step_into()
            for _ in range(n_blocks):
                assert dbg.in_scan
                dbg.step_into()
            assert not dbg.in_scan
        assert stepped.main.s == normal.main.s, f"scan {k + 1}"
        assert (stepped.scans, stepped.now_us) == (normal.scans, normal.now_us)
    # the plant did work: the timer ran out, the counter counted and was reset
    assert tr_normal["ton.ET"].max() == 12_000_000 and normal.get("EARLY") > 0
    assert tr_normal["RUN"].tolist()[5:8] == [True, False, False]
    assert tr_stepped.csv_text() == tr_normal.csv_text()
    assert stepped.stats.count == normal.stats.count == 12
    normal.scan(5)
    dbg.step(5)                                   # and it goes on in step after stepping
    assert stepped.main.s == normal.main.s and stepped.now_us == normal.now_us


def test_finish_scan_runs_the_rest_of_a_scan_stepped_into():
    normal, stepped = Plc(plant()), Plc(plant())
    for plc in (normal, stepped):
        plc.set("START", True)
    dbg = Debugger(stepped)
    normal.scan()
    dbg.step_into()
    dbg.step_into()
    dbg.step_into()
    assert dbg.finish_scan() is None
    assert stepped.main.s == normal.main.s and stepped.scans == 1
    with pytest.raises(FbdError, match="no scan is being stepped into"):
        dbg.finish_scan()


def test_step_and_run_finish_a_scan_in_progress_first():
    dbg = Debugger(Plc(counter()))
    dbg.step_into()
    dbg.step_into()
    dbg.step(3)                                   # finishing the scan is the first of 3
    assert dbg.scans == 3 and not dbg.in_scan
    dbg.step_into()
    assert dbg.run() is None and dbg.state == "running" and dbg.scans == 4


def test_the_plc_refuses_to_run_during_a_stepped_scan_and_a_restart_abandons_it():
    plc = Plc(counter())
    dbg = Debugger(plc)
    dbg.step_into()
    dbg.step_into()
    with pytest.raises(FbdError, match="scan 1 is being stepped into"):
        plc.scan()
    with pytest.raises(FbdError, match="already being stepped into"):
        plc.step_into()
    dbg.restart()
    assert not dbg.in_scan and dbg.get("t.seen") == 0
    plc.scan()
    assert plc.get("N") == 1 and plc.scans == 1


def test_other_tasks_and_processes_keep_their_times_while_the_main_task_is_stepped():
    def build():
        plc = Plc(counter(), cycle=0.010)
        fast = Network("Fast")
        fast.output("N", fast.add("t", TICKS()).N)
        plc.add_task("fast", fast, cycle=0.002, priority=-1)
        seen = []

        def probe(env):
            while True:
                yield env.timeout(7_000)
                seen.append((env.now, plc.get("N"), plc.get("fast:N")))

        plc.env.process(probe(plc.env))
        return plc, seen

    normal, seen_normal = build()
    stepped, seen_stepped = build()
    dbg = Debugger(stepped)
    normal.scan(4)
    for _ in range(4):
        dbg.step_into()
        while dbg.in_scan:
            dbg.step_into()
    assert seen_stepped == seen_normal
    assert stepped.task("fast").scans == normal.task("fast").scans == 20
    assert stepped.now_us == normal.now_us == 40_000


def test_step_into_after_running_for_part_of_a_cycle_starts_at_the_scans_due_time():
    plc = Plc(counter(), cycle="T#10ms")
    plc.run_for("T#25ms")                          # scans at 0, 10, 20 ms; now 25 ms
    dbg = Debugger(plc)
    dbg.step_into()
    assert dbg.time_us == 30_000
    dbg.finish_scan()
    assert (plc.scans, plc.now_us) == (4, 40_000)


# ----------------------------------------------------------------------- breakpoints
def test_a_breakpoint_pauses_the_run_on_the_scan_where_it_first_holds():
    dbg = Debugger(Plc(counter(), cycle="T#10ms"))
    bp = dbg.add_breakpoint("t.N >= 5")
    dbg.step()
    hit = dbg.run_until_break(max_scans=100)
    assert isinstance(hit, Hit) and hit.breakpoints == (bp,)
    assert (hit.scan, hit.block, hit.time_us) == (5, None, 40_000)   # scan 5 ran at 40 ms
    assert (dbg.scans, dbg.time_us, dbg.get("N")) == (5, 50_000, 5)
    assert dbg.state == "paused" and dbg.last_hit is hit and bp.hits == 1
    assert "t.N >= 5 held after scan 5" == hit.describe()
    # it still holds: a level breakpoint fires again on the next scan
    assert dbg.run_until_break(100).scan == 6 and bp.hits == 2


def test_an_edge_breakpoint_fires_only_where_its_condition_turns_true():
    dbg = Debugger(Plc(counter()))
    dbg.add_breakpoint("t.N MOD 4 = 0 OR t.N = 6", edge=True)
    scans = [dbg.run_until_break(100).scan for _ in range(3)]
    assert scans == [4, 6, 8]


def test_the_run_stops_exactly_at_the_hit_and_later_runs_are_not_cut_short():
    plc = Plc(counter())
    dbg = Debugger(plc)
    dbg.add_breakpoint("N = 3")
    assert dbg.run_until_break(10).scan == 3
    dbg.remove_breakpoint(1)
    plc.scan(10)                                   # no stale stop from the halted run
    assert (plc.scans, plc.now_us) == (13, 65_000)


def test_a_breakpoint_fires_at_the_block_after_which_it_holds_when_stepping_into():
    net = Network("Chain")
    x = net.input("X", INT)
    for i in range(5):
        x = net.add(f"inc{i}", INC(), IN=x).OUT
    net.output("Y", x)
    dbg = Debugger(Plc(net))
    dbg.add_breakpoint("inc2.OUT = 3")
    dbg.step_into()
    hits = []
    while dbg.in_scan:
        hits.append(dbg.step_into())
    assert [h.block if h else None for h in hits] == [None, None, "inc2", None, None]
    assert hits[2].scan == 1 and dbg.last_hit is hits[2]
    # finish_scan stops at that block too (after a restart, so that it does not hold before)
    dbg.restart()
    dbg.step_into()
    hit = dbg.finish_scan()
    assert hit.block == "inc2" and dbg.in_scan and dbg.current_block == "inc3"
    assert dbg.finish_scan() is None and not dbg.in_scan and dbg.get("Y") == 5


def test_the_check_at_the_end_of_a_stepped_scan_sees_the_published_outputs():
    dbg = Debugger(Plc(counter()))
    dbg.add_breakpoint("N = 1")                   # N is the output image: published at scan end
    dbg.step_into()
    hits = [dbg.step_into() for _ in range(3)]
    assert hits[:2] == [None, None] and hits[2].block is None and hits[2].scan == 1


def test_changed_holds_on_the_scans_where_a_value_differs_from_the_previous_scan():
    plc = Plc(latch())
    dbg = Debugger(plc)
    dbg.add_breakpoint("changed(Q)")
    plc.set("S", True)
    assert dbg.run_until_break(10).scan == 1
    plc.set("S", False)
    assert dbg.run_until_break(10) is None and dbg.scans == 11   # latched: no change
    plc.set("R", True)
    assert dbg.run_until_break(10).scan == 12
    plc.set("R", False)
    dbg.step()                                     # the debugger did not see these scans:
    plc.set("S", True)
    plc.scan(2)
    assert dbg.run_until_break(10) is None         # changed() compares with the last scan


def test_rising_and_falling():
    plc = Plc(latch())
    dbg = Debugger(plc)
    up = dbg.add_breakpoint("rising(keep.OUT)")
    down = dbg.add_breakpoint("falling(Q)", enabled=False)
    plc.set("S", True)
    assert dbg.step(3).scan == 1                   # a step stops at a breakpoint too
    assert dbg.step(2) is None and up.hits == 1
    dbg.enable_breakpoint(down)
    dbg.enable_breakpoint(up.id, False)
    plc.set("R", True)
    hit = dbg.run_until_break(10)
    assert hit.breakpoints == (down,) and hit.scan == 4


def test_disabled_and_removed_breakpoints_do_not_fire():
    dbg = Debugger(Plc(counter()))
    bp = dbg.add_breakpoint("N > 0")
    bp.enabled = False
    assert dbg.run_until_break(5) is None and dbg.scans == 5
    dbg.enable_breakpoint(bp)
    assert dbg.step().scan == 6
    dbg.remove_breakpoint(bp)
    assert dbg.breakpoints == [] and dbg.run_until_break(5) is None
    with pytest.raises(FbdError, match="no breakpoint 7"):
        dbg.remove_breakpoint(7)


def test_run_until_break_gives_up_after_its_guard():
    dbg = Debugger(Plc(counter()))
    dbg.add_breakpoint("N < 0")
    assert dbg.run_until_break(max_scans=250) is None
    assert dbg.scans == 250 and dbg.state == "paused"


def test_several_breakpoints_that_hold_together_are_reported_together():
    dbg = Debugger(Plc(counter()))
    a = dbg.add_breakpoint("N = 2")
    b = dbg.add_breakpoint("Q AND NOT Q OR t.seen = 2")
    dbg.add_breakpoint("N = 3")
    assert dbg.run_until_break(10).breakpoints == (a, b)


@pytest.mark.parametrize("text, holds", [
    ("N = 4", True), ("N == 4", True), ("N <> 4", False), ("N != 4", False),
    ("n = 4", True), ("GE.out", True),            # IEC names ignore case: paths ...
    ("N = 4 and Q", True), ("N = 4 AnD NoT Q", False),   # ... and keywords
    ("N = 4 & en.OUT", True), ("N > 3 XOR Q", False), ("FALSE OR N >= 4", True),
    ("NOT N > 5", None),                           # NOT binds tighter than >: NOT on an INT
    ("NOT (N > 5)", True),
    ("1 + 2 * N = 9", True), ("(1 + 2) * N = 12", True), ("-N + 10 = 6", True),
    ("N / 3 = 1", True), ("-N / 3 = -1", True), ("N MOD 3 = 1", True), ("-N MOD 3 = -1", True),
    ("N / 0 = 0", True), ("N MOD 0 = 0", True), ("N / 8.0 = 0.5", True), ("N * 0.5 = 2", True),
    ("16#4 = N", True), ("2#100 = N", True), ("INT#4 = N", True), ("1_000 > N", True),
    ("1e1 > N", True), ("3 < N", True), ("N >= 4.0", True),
    ("T = T#15ms", True), ("T >= t#10ms AND T < TIME#0.02s", True), ("T + T#5ms = T#20ms", True),
    ("T * 2 = T#30ms", True), ("T / 3 = T#5ms", True), ("-T < T#0s", True),
    ("ge.IN2 = 3", True),                         # a literal wired to an input
    ("TRUE", True), ("1 < 2", True),
])
def test_conditions_evaluate_as_iec_expressions(text, holds):
    net = counter()
    net.output("T", net.add("clock", CLOCK()).T)
    dbg = Debugger(Plc(net))
    dbg.step(4)                                    # N = 4, T = 15 ms (scan 4 ran at 15 ms)
    if holds is None:
        with pytest.raises(ConditionError):
            dbg.check_condition(text)
        return
    cond = dbg.check_condition(text)
    assert bool(cond.fn(dbg.table)) is holds


def test_conditions_compare_strings_and_reals():
    net = Network("SR")
    net.output("NAME", net.input("IN", STRING))
    net.output("X", 0.25, REAL)
    plc = Plc(net)
    plc.set("IN", "it's")
    dbg = Debugger(plc)
    dbg.step()
    for text in ("NAME = 'it$'s'", "NAME > 'a' AND NAME <> ''", "X = 0.25", "X * 4 = 1",
                 "X / 0 > 1e300", "X < 1"):
        assert dbg.check_condition(text).fn(dbg.table), text


def test_a_write_or_force_is_refused_over_the_strings_capacity():
    net = Network("S")
    net.output("NAME", net.input("IN", string_of(10)))
    dbg = Debugger(Plc(net))
    dbg.force("IN", "y" * 10)
    dbg.step()
    assert dbg.plc.get("NAME") == "y" * 10
    for act in (dbg.force, dbg.write):
        with pytest.raises(FbdError, match=r"IN: string of 11 characters is longer than STRING\[10\]'s 10"):
            act("IN", "y" * 11)


def test_reals_are_single_precision_in_conditions_watches_and_writes():
    net = Network("R")
    net.output("Y", net.add("sum", blocks.ADD(REAL), IN1=net.input("X", REAL), IN2=0.2).OUT)
    dbg = Debugger(Plc(net))
    dbg.write("X", "0.1")
    dbg.step()
    assert dbg.table[dbg.plc.program.signal("X").slot] == 0.10000000149011612
    assert dbg.text("X") == "0.1" and dbg.text("Y") == "0.3"    # 0.30000001192092896
    for text in ("X = 0.1", "Y = 0.3", "X < 0.10000001", "Y = 0.1 + 0.2"):
        assert dbg.check_condition(text).fn(dbg.table), text
    assert not dbg.check_condition("Y = 0.3000001").fn(dbg.table)   # the next REAL up
    dbg.force("X", 16777217.0)
    dbg.step()
    assert dbg.text("X") == "16777216.0"


@pytest.mark.parametrize("text, column, reason", [
    ("", None, "the condition is empty"),
    ("   ", None, "the condition is empty"),
    ("N >== 2", 5, "expected a value"),
    ("N >", 4, "the condition ends here"),
    ("(N > 2", 1, "'(' is never closed"),
    ("N > 2)", 6, "no '(' is open"),
    ("(N > 2 N", 8, "expected ')' to close the '(' of column 1"),
    ("N > 2 3", 7, "after a complete expression"),
    ("nothing.here > 1", 1, "unknown signal 'nothing.here'"),
    ("t.sen > 1", 1, "did you mean t.seen, t.EN, t.N?"),
    ("N", None, "the condition is an integer, not TRUE or FALSE"),
    ("Q >= 1", 3, ">= compares like with like, but Q is BOOL and 1 is an integer"),
    ("Q > FALSE", 3, "does not order BOOLs"),
    ("N > T#1s", 3, "N is INT and T#1s is a TIME"),
    ("N AND Q", 3, "AND needs BOOLs on both sides, but N is INT"),
    ("NOT N", 1, "NOT needs a BOOL"),
    ("-Q", 1, "- needs a number or a TIME"),
    ("N MOD 2.0 = 0", 3, "MOD needs integers"),
    ("Q + 1 > 0", 3, "+ cannot take these: Q is BOOL"),
    ("rising(N)", 8, "rising() needs a BOOL, but N is INT"),
    ("changed(N + 1)", 11, "takes one signal path, then ')'"),
    ("changed(3)", 9, "takes a signal path, found '3'"),
    ("changed(", 9, "found the end of the condition"),
    ("since(N)", 1, "unknown function 'since'"),
    ("N > 16#FG", 5, "not a valid literal"),
    ("N > T#5parsecs", 5, "not a valid literal"),
    ("N > INT#40000", 5, "out of range for INT"),
    ("N = 1 || Q", 7, "write OR"),
    ("N = 1 && Q", 7, "write AND"),
    ('N = "a"', 5, "strings take single quotes"),
    ("main:N > 1", 5, "only the main task's signals"),
    ("t.DATA > 1", 1, "unknown signal"),
    ("(" * 40 + "Q" + ")" * 40, 33, "nested more than 32 deep"),
    (" OR ".join(["Q"] * 200), 641, "too long (more than 256 words and symbols)"),
])
def test_invalid_conditions_are_rejected_with_the_reason_and_column(text, column, reason):
    dbg = Debugger(Plc(counter()))
    with pytest.raises(ConditionError) as err:
        dbg.add_breakpoint(text)
    assert err.value.column == column
    assert reason in str(err.value)
    assert isinstance(err.value, FbdError) and err.value.text == text
    assert f"condition {text[:40]!r}"[:-1] in str(err.value) and len(str(err.value)) < 400
    assert dbg.breakpoints == []


def test_a_long_condition_evaluates_inside_a_run():
    dbg = Debugger(Plc(counter()))
    dbg.add_breakpoint("NOT NOT Q AND " * 40 + "-" * 60 + "N = 3")   # 223 tokens, deep closures
    assert dbg.run_until_break(10).scan == 3


def test_a_blocks_internal_storage_cannot_be_in_a_condition():
    net = Network("L")
    net.output("N", net.add("lifo", blocks.LIFO(INT), IN=1, PUSH=True).COUNT)
    dbg = Debugger(Plc(net))
    with pytest.raises(ConditionError, match="lifo.DATA is a block's internal storage"):
        dbg.add_breakpoint("lifo.DATA = 1")


@pytest.mark.parametrize("text", [
    "__import__('os')", "__import__('os').system('true')", "open('x')", "eval('1')",
    "N.__class__", "N.__class__.__base__ = 1", "lambda: 1", "[1]", "{1: 2}", "N if Q else 1",
    "N; import os", "`N`", "N @ N", "getattr(N, 'x')", "N ** 2 > 1",
])
def test_conditions_are_never_run_as_python(text, monkeypatch):
    import builtins
    dbg = Debugger(Plc(counter()))
    called = []
    real_import = builtins.__import__

    def spy(*args, **kw):
        called.append(args[0])
        return real_import(*args, **kw)

    monkeypatch.setattr(builtins, "__import__", spy)
    try:
        with pytest.raises(ConditionError):
            dbg.check_condition(text)
    finally:
        monkeypatch.undo()
    assert called == []                            # nothing was imported, let alone run


def test_the_debug_module_does_not_call_eval_exec_or_compile():
    source = inspect.getsource(fbd.debug)
    assert re.findall(r"(?<![\w.])(?:eval|exec|compile|getattr|__import__)\s*\(", source) == []


# ----------------------------------------------------------------------- watch, write, force
def test_forces_hold_across_scans_through_the_model_until_released():
    plc = Plc(plant())
    dbg = Debugger(plc)
    events = []
    dbg.listeners.append(events.append)
    dbg.force("run.Q", True)
    dbg.step(4)
    assert dbg.get("RUN") is True and dbg.get("N") == 4        # the counter ran on the force
    assert dbg.forces == {"run.keep.OUT": True} and dbg.is_forced("RUN") is False
    assert dbg.is_forced("run.Q")                             # a macro port aliases its driver
    dbg.step_into()
    dbg.force("X", "5")                                        # IEC text, between blocks
    dbg.finish_scan()
    assert dbg.get("ACC") == 5 and dbg.forces == {"run.keep.OUT": True, "X": 5}
    dbg.step(2)
    assert dbg.get("ACC") == 15
    dbg.unforce("run.Q")
    dbg.step()
    assert dbg.get("RUN") is True and dbg.get("N") == 8      # the latch holds itself now
    plc.set("STOP", True)
    dbg.step()
    assert dbg.get("RUN") is False and dbg.get("N") == 8
    dbg.unforce()
    assert dbg.forces == {}
    assert events.count("forces") == 4


def test_write_sets_a_value_once():
    dbg = Debugger(Plc(counter()))
    dbg.write("t.seen", "16#10")
    dbg.step()
    assert dbg.get("N") == 17
    dbg.write("HOLD", True)
    dbg.step()
    assert dbg.get("N") == 17


def test_the_watch_list_reads_values_as_text_and_marks_forces():
    net = counter()
    net.output("T", net.add("clock", CLOCK()).T)
    dbg = Debugger(Plc(net))
    for path in ("N", "Q", "T", "N"):
        dbg.watch(path)
    with pytest.raises(UnknownSignal, match="did you mean"):
        dbg.watch("NN")
    dbg.force("t.N", 7)
    dbg.step(3)
    rows = dbg.watch_values()
    assert [(r.path, r.type, r.value, r.text, r.forced) for r in rows] == [
        ("N", "INT", 7, "7", False), ("Q", "BOOL", True, "TRUE", False),
        ("T", "TIME", datetime.timedelta(milliseconds=10), "T#10ms", False)]
    assert dbg.watch_values is not None and dbg.is_forced("t.N")
    dbg.unwatch("Q")
    assert dbg.watches == ["N", "T"]
    with pytest.raises(FbdError, match="not in the watch list"):
        dbg.unwatch("Q")


def test_a_probe_reads_many_signals_straight_from_the_table():
    dbg = Debugger(Plc(counter()))
    probe = dbg.probe(["N", "ge.IN2", "Q"])
    dbg.step(3)
    assert probe.read() == [3, 3, True] and probe.texts() == ["3", "3", "TRUE"]
    dbg.force("Q", False)
    assert probe.forced() == [False, False, True]
    dbg.restart(cold=True)
    assert probe.read() == [0, 3, False]           # a restart's new table is read too


def test_completion_ranks_exact_then_prefix_then_part_then_substring():
    dbg = Debugger(Plc(plant()))
    assert dbg.complete("N")[0] == "N"
    got = dbg.complete("run.")
    assert got[:5] == ["run.Q", "run.R", "run.S", "run.nr.IN", "run.nr.OUT"]
    assert all(p.startswith("run.") for p in got)
    assert dbg.complete("keep") == ["run.keep.IN1", "run.keep.IN2", "run.keep.OUT"]
    assert dbg.complete("EE", limit=50) == ["ticks.seen", "run.keep.IN1", "run.keep.IN2",
                                            "run.keep.OUT"]
    assert "ton.ET" in dbg.complete("et") and len(dbg.complete("", limit=5)) == 5
    assert dbg.complete("zzz") == []


# ----------------------------------------------------------------------- restarts
def test_warm_restart_resets_variables_and_keeps_forces_watches_breakpoints_and_trend():
    plc = Plc(plant())
    dbg = Debugger(plc)
    plc.set("X", 2)
    dbg.force("STOP", False)
    dbg.watch("ACC")
    bp = dbg.add_breakpoint("ACC > 100")
    dbg.trend(["ACC"])
    dbg.step(5)
    assert dbg.get("ACC") == 10
    dbg.run()
    dbg.restart()
    assert dbg.state == "paused" and dbg.get("ACC") == 0 and dbg.get("acc.B") == 0
    assert (dbg.scans, dbg.time_us) == (5, 25_000)            # the clock goes on
    assert dbg.forces == {"STOP": False} and dbg.watches == ["ACC"]
    assert dbg.breakpoints == [bp] and dbg.trend_paths == ["ACC"]
    dbg.step(2)
    assert dbg.get("ACC") == 4                                 # the input X stayed 2
    assert dbg.trace["ACC"].tolist() == [2, 4, 6, 8, 10, 2, 4]
    assert dbg.trace.scans.tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert dbg.stats()["scans"] == 7


def test_cold_restart_also_releases_forces_and_clears_trend_samples_and_statistics():
    plc = Plc(plant())
    dbg = Debugger(plc)
    dbg.force("X", 3)
    dbg.watch("ACC")
    bp = dbg.add_breakpoint("ACC = 6")
    dbg.trend(["ACC"])
    assert dbg.run_until_break(10).scan == 2 and bp.hits == 1
    dbg.restart(cold=True)
    assert dbg.forces == {} and dbg.get("ACC") == 0 and dbg.get("X") == 0
    assert len(dbg.trace) == 0 and dbg.stats()["scans"] == 0 and dbg.last_hit is None
    assert bp.hits == 0 and dbg.breakpoints == [bp] and dbg.watches == ["ACC"]
    dbg.step()
    assert dbg.trace.scans.tolist() == [3] and dbg.get("ACC") == 0


def test_changed_does_not_fire_on_the_restart_itself():
    dbg = Debugger(Plc(counter()))
    dbg.step(5)
    dbg.add_breakpoint("changed(ge.IN2)")          # a constant: never changes
    bp = dbg.add_breakpoint("changed(t.seen) AND t.seen > 1")
    dbg.restart()
    assert dbg.run_until_break(10).scan == 7 and dbg.last_hit.breakpoints == (bp,)


# ----------------------------------------------------------------------- trends, stats
def test_the_trend_records_every_scan_the_debugger_runs_and_exports_csv_and_vcd(tmp_path):
    plc = Plc(plant())
    dbg = Debugger(plc, clock=FakeClock())      # advance's budget never runs out
    plc.set("START", True)
    tr = dbg.trend(["RUN", "N", "ton.ET"])
    assert tr.capacity == TREND_CAPACITY
    dbg.step(2)
    dbg.step_into()
    dbg.finish_scan()
    dbg.run()
    dbg.advance(0.010)
    assert tr.scans.tolist() == [1, 2, 3, 4, 5]
    assert tr["N"].tolist() == [1, 2, 3, 4, 5]
    assert tr["ton.ET"].tolist() == [0, 5_000_000, 10_000_000, 12_000_000, 12_000_000]
    rows = list(csv.reader(io.StringIO(tr.csv_text())))
    assert rows[0] == ["scan", "time_s", "RUN", "N", "ton.ET"]
    assert rows[3] == ["3", "0.010000", "1", "3", "0.010000"]
    dbg.export_csv(str(tmp_path / "t.csv"))
    dbg.export_vcd(str(tmp_path / "t.vcd"))
    assert (tmp_path / "t.csv").read_text().splitlines()[3] == "3,0.010000,1,3,0.010000"
    assert "$scope module ton $end" in (tmp_path / "t.vcd").read_text()
    dbg.add_trend("ACC")
    assert dbg.trend_paths == ["RUN", "N", "ton.ET", "ACC"] and len(dbg.trace) == 0
    dbg.remove_trend("RUN")
    dbg.trend([])
    assert dbg.trace is None and plc.main.traces == []
    with pytest.raises(FbdError, match="nothing is trended"):
        dbg.export_csv(io.StringIO())


def test_a_trend_keeps_the_last_ten_thousand_scans():
    dbg = Debugger(Plc(counter()))
    dbg.trend(["N"])
    dbg.step(TREND_CAPACITY + 5)
    assert len(dbg.trace) == TREND_CAPACITY and dbg.trace.scans[0] == 6


def test_scan_statistics_count_every_scan_stepped_or_run():
    # An hour's cycle: no scan overruns it, however loaded the machine.
    dbg = Debugger(Plc(counter(), cycle="T#1h"))
    dbg.step(3)
    dbg.step_into()
    dbg.finish_scan()
    st = dbg.stats()
    assert st["scans"] == 4 and st["overruns"] == 0 and st["cycle_us"] == 3_600_000_000
    assert 0 < st["min_us"] <= st["mean_us"] <= st["max_us"] and st["last_us"] > 0


# ----------------------------------------------------------------------- advance
class FakeClock:
    """Wall time that moves only by ``tick`` seconds each time it is read."""

    def __init__(self, tick: float = 0.0):
        self.now = 0.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_advance_runs_the_scans_due_at_real_time_and_x10_and_carries_the_rest():
    dbg = Debugger(Plc(counter(), cycle="T#5ms"), clock=FakeClock())
    assert dbg.advance(1.0) is None and dbg.scans == 0            # paused: nothing
    dbg.run()
    dbg.advance(0.016)
    assert dbg.scans == 3                                          # 16 ms: 3 cycles, 1 ms owed
    dbg.advance(0.004)
    assert dbg.scans == 4                                          # 1 + 4 ms: one more
    dbg.speed = 10
    dbg.advance(0.016)
    assert dbg.scans == 4 + 32
    dbg.pause()
    dbg.advance(1.0)
    assert dbg.scans == 36
    dbg.speed = 1.0
    dbg.run()
    for _ in range(60):
        dbg.advance(1 / 60)                                        # one second at 60 Hz
    assert dbg.scans == 36 + 200 and dbg.time == pytest.approx(1.18)


def test_advance_caps_the_scans_of_one_call_and_drops_the_rest():
    dbg = Debugger(Plc(counter(), cycle="T#5ms"), max_scans=50, clock=FakeClock())
    dbg.run()
    dbg.advance(2.0)                                               # a stall: 400 due
    assert dbg.scans == 50 and dbg.dropped_scans == 350
    dbg.speed = MAX
    dbg.advance(0.0)
    assert dbg.scans == 100 and dbg.dropped_scans == 350           # max speed: the cap


def test_advance_stops_when_its_wall_budget_is_spent():
    tick = 2 ** -8                                  # each look at the clock costs ~4 ms
    dbg = Debugger(Plc(counter()), budget_s=5 * tick, clock=FakeClock(tick))
    dbg.speed = MAX
    dbg.run()
    dbg.advance(0.03)
    assert dbg.scans == 1 + 2 + 4 + 4 + 2          # batches sized to the budget left
    dbg.speed = 1.0
    dbg.advance(10.0)                               # 2000 due; the budget runs out again
    assert dbg.scans == 13 + 2 + 4 + 8 + 9 + 5      # starting from the last batch size
    assert dbg.dropped_scans == 2000 - 28


def test_advance_at_max_speed_runs_many_scans_per_call():
    dbg = Debugger(Plc(counter()), max_scans=5000, clock=FakeClock())
    dbg.speed = MAX
    dbg.run()
    dbg.advance(0.016)
    assert dbg.scans == 5000 and dbg.get("N") == 5000


def test_advance_pauses_at_a_breakpoint_and_reports_it():
    dbg = Debugger(Plc(counter()), clock=FakeClock())
    events = []
    dbg.listeners.append(events.append)
    dbg.add_breakpoint("N = 12")
    dbg.speed = MAX
    dbg.run()
    hit = dbg.advance(0.016)
    assert hit.scan == 12 and dbg.scans == 12 and dbg.state == "paused"
    assert dbg.advance(0.016) is None and dbg.scans == 12
    assert events == ["breakpoints", "state", "state", "scan", "hit"]   # speed, run


def test_speed_and_the_plc_must_suit_the_debugger():
    with pytest.raises(FbdError, match="realtime=False"):
        Debugger(Plc(counter(), realtime=True))
    dbg = Debugger(Plc(counter()))
    with pytest.raises(FbdError, match="speed must be a positive number"):
        dbg.speed = 0
    with pytest.raises(FbdError, match="Debugger needs a Plc"):
        Debugger(counter())


# ----------------------------------------------------------------------- the core
def test_plc_halt_ends_a_run_at_the_end_of_the_cycle_of_the_scan_that_asked():
    class Stopper:
        def __init__(self, plc, at):
            self.plc, self.at = plc, at

        def record(self, s, scan, now_us):
            if scan == self.at:
                self.plc.halt(now_us)

    plc = Plc(counter(), cycle="T#10ms", clock_start=1.0)
    plc.main.traces.append(Stopper(plc, 4))
    plc.scan(100)
    assert (plc.scans, plc.now_us) == (4, 40_000)
    plc.scan(3)
    plc.run_for("T#20ms")
    assert (plc.scans, plc.now_us) == (9, 90_000)
    plc.halt(0)                                    # outside a run: nothing happens
    plc.scan()
    assert plc.scans == 10


def test_format_value_writes_iec_text():
    from fbd import WORD
    assert [format_value(BOOL, True), format_value(INT, -3), format_value(TIME, 1_500_000_000),
            format_value(REAL, 0.5), format_value(STRING, "it's"), format_value(WORD, 255),
            format_value(None, [1, 2])] == [
        "TRUE", "-3", "T#1s500ms", "0.5", "'it$'s'", "16#FF", "[1, 2]"]


# ------------------------------------------------------------- a configuration's names
CONFIGURATION = """
PROGRAM counter
  VAR n : INT; END_VAR
  n := n + 1;
END_PROGRAM
CONFIGURATION conf
  RESOURCE res ON PLC
    TASK t(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM a WITH t : counter;
    PROGRAM b WITH t : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_the_debugger_takes_the_main_instances_iec_names_and_the_older_ones():
    from fbd.st.project import load
    dbg = Debugger(load("conf.st", text=CONFIGURATION).plc())
    dbg.watch("a.n")
    dbg.add_breakpoint("RES.A.N >= 3")
    assert dbg.run_until_break().scan == 3
    assert [(row.path, row.value) for row in dbg.watch_values()] == [("a.n", 3)]
    assert dbg.complete("a.") == ["a.n"] and dbg.text("counter.n") == "3"
    dbg.watch("B.N")            # another instance is watched by its IEC name too
    assert [row.path for row in dbg.watch_values()] == ["a.n", "b.n"]
    with pytest.raises(FbdError, match="b.n is not a variable of a, the program the debugger shows"):
        dbg.add_breakpoint("b.n > 1")     # conditions are the main task's, as its scans are
