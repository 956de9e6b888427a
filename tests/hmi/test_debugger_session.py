"""The debugger window's session with a live game: closing it never leaves the PLC
wedged, and *To break* runs in slices the user can watch and stop."""

from __future__ import annotations

import io

import pytest
from PyQt6.QtCore import Qt

from fbd.debug.tobreak import plc_duration
from fbd.errors import FbdError
from hmi.app import MainWindow
from hmi.panel import Panel
from tests.hmi.rig import TICK_NS, Clock, Rig, game_2048_plc, open_debugger


@pytest.fixture
def rig(qtbot, tmp_path):
    return Rig(qtbot, tmp_path / "best.json")


def test_closing_the_debugger_during_step_into_leaves_the_game_playable(rig, qtbot):
    # fbd hmi 2048, F2, Ctrl+D, F11 seven times, close the debugger, press an arrow key
    window = rig.window
    dbg_win = window.open_debugger(autostart=False)
    for _ in range(7):
        dbg_win.actions_by_name["step_into"].trigger()
    assert dbg_win.debugger.in_scan
    dbg_win.close()
    scans = rig.game.plc.scans
    board = rig.game.board
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.plc.scans > scans
    assert "PLC stopped" not in window.message_field.message()
    assert not window.loop.paused and rig.panel.state_label.text() != "Paused"
    assert rig.game.board != board                      # the move was played
    window.pause_action.trigger()                       # Ctrl+P: pauses, resumes
    window.pause_action.trigger()
    assert rig.advance(20) > 0 and "PLC stopped" not in window.message_field.message()
    again = window.open_debugger(autostart=False)       # a debugger opened again works
    assert not again.debugger.in_scan
    again.actions_by_name["step"].trigger()
    assert "stepped" not in again.message_field.message()
    again.close()


def test_finish_is_enabled_only_in_a_scan_stepped_into(rig):
    dbg_win = rig.window.open_debugger(autostart=False)
    finish = dbg_win.actions_by_name["finish"]
    assert not finish.isEnabled()
    dbg_win.actions_by_name["step_into"].trigger()
    assert finish.isEnabled()
    finish.trigger()
    assert not finish.isEnabled() and not dbg_win.debugger.in_scan
    dbg_win.close()


@pytest.fixture
def win(qtbot):
    w = open_debugger(qtbot, game_2048_plc())
    yield w
    w.close()


def test_to_break_returns_at_once_shows_its_progress_and_esc_stops_it(win, qtbot):
    dbg = win.debugger
    dbg.add_breakpoint("SCORE < 0")                   # never holds
    before = dbg.scans
    win.actions_by_name["until"].trigger()            # was: up to 1,000,000 scans, frozen
    assert dbg.scans == before and dbg.state == "running"
    for k in range(3):
        win.tick(float(k))
    assert dbg.scans > before and dbg.state == "running"
    assert win.timer.interval() == 0                  # as fast as the event loop allows
    assert win.position.full_text().startswith(f"to break: {dbg.scans - before:,} of 1,000,000 "
                                          f"scans (") and "Esc stops" in win.position.full_text()
    qtbot.keyClick(win, Qt.Key.Key_Escape)
    assert dbg.state == "paused"
    ran = dbg.scans - before
    assert win.message_field.message() == (f"To break stopped after {ran:,} scans "
                                           f"({plc_duration(ran * 5000)} of PLC time), no "
                                           f"breakpoint hit")


def test_to_break_that_reaches_its_limit_says_so(win):
    dbg = win.debugger
    dbg.add_breakpoint("SCORE < 0")
    dbg.run_to_break(max_scans=300)
    t = 0.0
    while dbg.state == "running":
        t += 0.05
        win.tick(t)
    assert dbg.to_break is None
    assert win.message_field.message().startswith("no breakpoint hit in 300 scans (1.5 s of "
                                                  "PLC time)")


class StPanel(Panel):
    """A panel running an ST program whose fourth scan faults (an index out of bounds)."""
    title = "bounds"

    def __init__(self):
        super().__init__()
        from fbd.st.project import load
        from tests.fbd.debug.test_lines import BOUNDS
        self._plc = load("bounds.st", BOUNDS).plc(cycle=0.005)

    @property
    def plc(self):
        return self._plc


def test_a_fault_in_a_line_stepped_scan_is_a_fault_not_a_half_run_scan(qtbot):
    clock = Clock()
    panel = StPanel()
    window = MainWindow(None, panel=panel, clock=clock, autostart=False)
    qtbot.addWidget(window)
    dbg_win = window.open_debugger(autostart=False)
    dbg_win.debugger.add_line_breakpoint("Main", 6)     # line-stepped scans: the fault mid-scan
    dbg_win.actions_by_name["until"].trigger()
    for t in range(3):
        dbg_win.tick(float(t))
    assert "array index 4 is outside 1..3" in dbg_win.message_field.message()
    assert dbg_win.debugger.run_state == "FAULT" and not dbg_win.debugger.in_scan
    assert not dbg_win.actions_by_name["finish"].isEnabled()
    assert not dbg_win.actions_by_name["run"].isEnabled()
    dbg_win.close()                                     # nothing half run to finish
    clock.ns += TICK_NS
    window.tick()
    said = window.message_field.message()
    assert said.startswith("PLC FAULT at scan 4") and "Simulation > Restart the PLC" in said
    assert "SteppedScan" not in said and "Ctrl+D" not in said
    window.restart_plc(cold=True)
    assert panel.plc.state == "RUN" and panel.plc.get("Main.k") == 0
    assert window.message_field.message() == "the PLC runs again"


def test_exporting_an_empty_trend_says_what_to_do_in_the_users_words(win):
    with pytest.raises(FbdError) as e:
        win.debugger.export_csv(io.StringIO())
    assert "(paths)" not in str(e.value) and "Trends tab" in str(e.value)


def overflowing(toolbar) -> bool:
    """Whether the toolbar hides actions behind its » button."""
    from PyQt6.QtWidgets import QToolButton
    button = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
    return button is not None and button.isVisible()


@pytest.mark.parametrize("width, height", [(1280, 860), (800, 600)])
def test_the_run_state_and_counter_are_always_in_the_status_bar(win, width, height):
    win.resize(width, height)
    dbg = win.debugger
    dbg.step(3)
    win.refresh()
    assert win.counter.parent() is win.statusBar() and win.counter.isVisible()
    assert not win.counter.visibleRegion().isEmpty()
    assert win.counter.text() == f"● PAUSED · scan {dbg.scans:,} · {dbg.time:,.3f} s"
    assert not overflowing(win.toolbar)                   # every action on the bar
    dbg.step_into()
    win.refresh()
    assert win.counter.text().startswith("● PAUSED IN SCAN · scan ")
    win.actions_by_name["run"].trigger()
    assert win.counter.text().startswith("● RUNNING · scan ")


def test_the_toolbar_is_icons_with_tooltips_naming_their_shortcuts(win):
    for name, action in win.actions_by_name.items():
        assert not action.icon().isNull(), name
        tip = action.toolTip()
        assert tip.startswith(f"<b>{action.text()}</b>"), name
        for key in action.shortcuts():
            assert key.toString() in tip, (name, key.toString())
    assert win.actions_by_name["step_into"].shortcut().toString() == "F11"
    assert win.toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly


def test_the_run_state_is_said_in_one_place():
    from fbd.debug import Debugger
    from programs.game2048 import Game2048
    dbg = Debugger(Game2048(seed=1).plc)
    assert dbg.run_state == "PAUSED"
    dbg.step_into()
    assert dbg.run_state == "PAUSED IN SCAN"
    dbg.run()
    assert dbg.run_state == "RUNNING"
    dbg.add_breakpoint("SCORE < 0")
    dbg.run_to_break()
    assert dbg.run_state == "RUNNING TO BREAK"
