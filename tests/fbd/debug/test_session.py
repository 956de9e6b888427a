"""A debugger's session with the PLC: what it leaves behind when it closes (the PLC
can always run on), and running to a breakpoint in slices that can be stopped."""

import pytest

from fbd.debug import Debugger
from fbd.errors import FbdError
from fbd.st.project import load
from programs.game2048 import Game2048
from tests.fbd.debug.test_lines import BOUNDS, PROGRAM, debugger


# ------------------------------------------------------------------ closing mid-scan
def test_closing_in_the_middle_of_a_stepped_scan_finishes_it_so_the_plc_runs_on():
    game = Game2048(seed=1)
    game.start()
    plc = game.plc
    dbg = Debugger(plc)
    before = plc.scans
    for _ in range(7):
        dbg.step_into()
    assert dbg.in_scan
    dbg.close()
    assert plc.scans == before + 1                  # the scan stepped into, finished
    plc.scan(3)                                     # was: FbdError "... being stepped into"
    assert plc.scans == before + 4
    again = Debugger(plc)
    assert not again.in_scan
    assert again.step(2) is None and plc.scans == before + 6


def test_closing_a_call_paused_at_a_line_runs_it_to_its_end_without_stopping():
    dbg = debugger(PROGRAM)
    dbg.write("Main.go", True)
    bp = dbg.add_line_breakpoint("Main.c", 10)
    dbg.run_until_break(5)
    assert dbg.frames and bp.hits == 1
    plc = dbg.plc
    dbg.close()
    assert plc.scans == 1 and plc.get("Main.c.count") == 1 and bp.hits == 1
    plc.scan(2)
    assert plc.get("Main.c.count") == 3


def test_a_fault_in_a_scan_stepped_into_leaves_no_half_run_scan_for_the_next_debugger():
    dbg = debugger(BOUNDS, "bounds.st")
    dbg.add_line_breakpoint("Main", 6)
    with pytest.raises(FbdError, match="array index 4 is outside 1..3"):
        dbg.run_until_break(10)
    plc = dbg.plc
    dbg.close()                                     # nothing to finish: FAULT says why
    assert dbg.listeners == [] and plc.state == "FAULT"
    again = Debugger(plc)
    assert not again.in_scan and again.run_state == "FAULT"
    with pytest.raises(FbdError, match="the PLC is in FAULT since scan 4"):
        again.step()
    again.restart()
    again.step()
    assert not again.in_scan and again.run_state == "PAUSED" and plc.scans == 4


def test_finish_outside_a_scan_says_what_to_do_in_the_users_words():
    dbg = debugger(PROGRAM)
    with pytest.raises(FbdError) as e:
        dbg.finish_scan()
    assert str(e.value) == ("no scan is being stepped into, so there is nothing to finish "
                            "(Step into begins one)")
    assert "(" not in str(e.value).split("(", 1)[0] and "finish_scan" not in str(e.value)


# ------------------------------------------------------------------ to break, in slices
NEVER = """\
PROGRAM prg
VAR n : DINT; END_VAR
  n := n + 1;
  IF n < 0 THEN
    n := 0;
  END_IF;
END_PROGRAM
"""


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 0.001          # each reading a millisecond later: batches stay small
        return self.now


def test_to_break_runs_in_slices_until_its_limit_and_says_what_happened():
    dbg = Debugger(load("never.st", NEVER).plc(cycle=0.005), max_scans=500, clock=FakeClock())
    dbg.add_line_breakpoint("prg", 5)              # never reached
    dbg.run_to_break(max_scans=1200)
    assert dbg.state == "running" and dbg.to_break is not None
    dbg.advance(0.0)                                # one slice: the GUI keeps its thread
    assert 0 < dbg.scans <= 500 and dbg.state == "running"
    assert dbg.to_break.progress(dbg.scans, dbg.time_us).startswith(
        f"to break: {dbg.scans:,} of 1,200 scans (")
    events = []
    dbg.listeners.append(events.append)
    while dbg.state == "running":
        dbg.advance(0.0)
    assert dbg.scans == 1200 and dbg.to_break is None and "to_break" in events
    assert dbg.to_break_outcome == ("no breakpoint hit in 1,200 scans (6 s of PLC time); To "
                                    "break stops there so a condition that never holds cannot "
                                    "run forever")


def test_pausing_a_run_to_break_stops_it_and_says_how_far_it_went():
    dbg = Debugger(load("never.st", NEVER).plc(cycle=0.005), max_scans=100, clock=FakeClock())
    dbg.add_breakpoint("prg.n < 0")
    dbg.run_to_break()
    dbg.advance(0.0)
    ran = dbg.scans
    dbg.pause()
    assert dbg.state == "paused" and dbg.to_break is None
    assert dbg.to_break_outcome == (f"To break stopped after {ran:,} scans "
                                    f"({ran * 5:g} ms of PLC time), no breakpoint hit")
    dbg.advance(1.0)
    assert dbg.scans == ran


def test_a_run_to_break_pauses_at_the_hit_and_runs_at_any_speed():
    dbg = Debugger(load("never.st", NEVER).plc(cycle=0.005), max_scans=100, clock=FakeClock())
    dbg.add_breakpoint("prg.n = 150")
    dbg.speed = 1.0                                  # real time: To break ignores it
    dbg.run_to_break()
    while dbg.state == "running":
        dbg.advance(0.0)
    assert dbg.last_hit.scan == 150 and dbg.to_break is None and dbg.to_break_outcome is None


@pytest.mark.parametrize("us, text", [(40_000, "40 ms"), (5_200_000, "5.2 s"), (74_000_000, "1.2 min"),
                                      (5_000_000_000, "83 min"), (7_500_000_000, "2 h 5 min")])
def test_plc_time_reads_as_a_person_says_it(us, text):
    from fbd.debug.tobreak import plc_duration
    assert plc_duration(us) == text


# ------------------------------------------------------------------ paths in any case
def test_paths_and_conditions_ignore_case_as_iec_names_do():
    game = Game2048(seed=1)
    dbg = Debugger(game.plc)
    bp = dbg.add_breakpoint("game_over")                 # the README's example: GAME_OVER
    assert bp.paths == ("GAME_OVER",)
    assert dbg.get("score") == dbg.get("SCORE") and dbg.info("Cell_0_0.Memory.out").path == \
        "cell_0_0.memory.OUT"
    dbg.watch("score")
    dbg.force("Cell_0_0.Memory.out", 2)
    assert dbg.watches == ["SCORE"] and dbg.is_forced("cell_0_0.memory.OUT")
    assert dbg.forces == {"cell_0_0.memory.OUT": 2}
    dbg.unforce("CELL_0_0.MEMORY.OUT")
    assert dbg.forces == {}


def test_an_unknown_path_suggests_names_in_any_case():
    dbg = Debugger(Game2048(seed=1).plc)
    with pytest.raises(FbdError, match=r"unknown signal 'game_ovr'; did you mean GAME_OVER"):
        dbg.add_breakpoint("game_ovr")
    with pytest.raises(FbdError, match=r"did you mean SCORE"):
        dbg.watch("scor")


def test_two_paths_that_differ_only_in_case_make_a_path_ambiguous():
    from fbd import BOOL, Network, Plc
    net = Network("Two")                   # Python may spell two names so, IEC cannot
    net.output("Run", net.input("A", BOOL))
    net.output("RUN", net.input("B", BOOL))
    dbg = Debugger(Plc(net))
    assert dbg.info("Run").path == "Run" and dbg.info("RUN").path == "RUN"   # each exactly
    with pytest.raises(FbdError, match=r"'run' is ambiguous: IEC names ignore case, and "
                                       r"Run and RUN differ only in case"):
        dbg.watch("run")
