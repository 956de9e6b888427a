"""The debugger window's session with a live game: closing it never leaves the PLC
wedged, and *To break* runs in slices the user can watch and stop."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt

from tests.hmi.rig import Rig


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
