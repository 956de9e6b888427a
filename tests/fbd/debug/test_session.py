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


def test_a_scan_a_fault_left_half_run_is_taken_over_by_the_next_debugger():
    dbg = debugger(BOUNDS, "bounds.st")
    dbg.add_line_breakpoint("Main", 6)
    with pytest.raises(FbdError, match="array index 4 is outside 1..3"):
        dbg.run_until_break(10)
    plc = dbg.plc
    with pytest.raises(FbdError, match="array index 4 is outside 1..3"):
        dbg.close()                                 # the fault again: the scan stays open
    assert dbg.listeners == []                      # detached all the same
    again = Debugger(plc)
    assert again.in_scan                            # never "nothing to finish" while the PLC
    with pytest.raises(FbdError, match="array index 4"):   # refuses to run
        again.run()
    again.write("Main.k", 0)
    again.finish_scan()
    assert not again.in_scan and plc.scans == 4 and again.get("Main.k") == 1
    assert again.run() is None and again.state == "running"


def test_finish_outside_a_scan_says_what_to_do_in_the_users_words():
    dbg = debugger(PROGRAM)
    with pytest.raises(FbdError) as e:
        dbg.finish_scan()
    assert str(e.value) == ("no scan is being stepped into, so there is nothing to finish "
                            "(Step into begins one)")
    assert "(" not in str(e.value).split("(", 1)[0] and "finish_scan" not in str(e.value)


def load_prg(text, name="prg.st"):
    return Debugger(load(name, text).plc(cycle=0.005))
