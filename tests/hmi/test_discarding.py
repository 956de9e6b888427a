"""Nothing loses a game being played without asking: another program, another
processing or placement, another seed, a warm or cold restart in the debugger."""

from __future__ import annotations

import pytest

from hmi.panels.sudoku import SudokuPanel
from tests.hmi.rig import Rig
from tests.hmi.test_sudoku_panel import SudokuRig


class Answer:
    """A stand-in for the question: records what was asked, answers ``yes``."""

    def __init__(self, yes: bool):
        self.yes = yes
        self.asked: list[str] = []

    def __call__(self, parent, what) -> bool:
        self.asked.append(what)
        return self.yes


@pytest.fixture
def rig(qtbot, tmp_path):
    return Rig(qtbot, tmp_path / "best.json")           # 2048, a game started


def test_choosing_another_program_mid_game_asks_first(qtbot):
    sudoku = SudokuRig(qtbot, SudokuPanel())
    sudoku.start()
    window = sudoku.window
    sudoku.panel.confirm = no = Answer(False)
    window.program_actions["jigsaw"].trigger()          # Program > Jigsaw Sudoku
    assert no.asked == ["the grid being played"]
    assert window.panel is sudoku.panel and window.program == "sudoku"
    assert window.program_actions["sudoku"].isChecked()
    assert not window.program_actions["jigsaw"].isChecked()
    sudoku.panel.confirm = Answer(True)
    window.program_actions["jigsaw"].trigger()
    assert window.program == "jigsaw" and window.panel is not sudoku.panel


def test_choosing_another_program_asks_nothing_when_no_game_is_played(qtbot):
    sudoku = SudokuRig(qtbot, SudokuPanel())
    sudoku.panel.confirm = asked = Answer(False)
    sudoku.window.program_actions["hidato"].trigger()
    assert asked.asked == [] and sudoku.window.program == "hidato"


@pytest.mark.parametrize("menu, choice", [("processing_actions", "multi_scan"),
                                          ("placement_actions", "article")])
def test_another_processing_or_placement_mid_game_asks_first(rig, menu, choice):
    rig.panel.confirm = no = Answer(False)
    game = rig.game
    actions = getattr(rig.panel, menu)
    actions[choice].trigger()
    assert no.asked == ["the game in progress"] and rig.game is game
    assert not actions[choice].isChecked()              # the menu shows what is still used
    rig.panel.confirm = Answer(True)
    actions[choice].trigger()
    assert rig.game is not game and actions[choice].isChecked()


def test_another_seed_mid_game_asks_first(rig, monkeypatch):
    from PyQt6.QtWidgets import QInputDialog
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (77, True))
    rig.panel.confirm = no = Answer(False)
    game = rig.game
    rig.panel.seed_action.trigger()
    assert no.asked and rig.game is game
    rig.panel.confirm = Answer(True)
    rig.panel.seed_action.trigger()
    assert rig.game.seed == 77


@pytest.mark.parametrize("which", ["warm", "cold"])
def test_a_restart_in_the_debugger_mid_game_asks_first(rig, which):
    dbg_win = rig.window.open_debugger(autostart=False)
    rig.panel.confirm = no = Answer(False)
    board = rig.game.board
    dbg_win.actions_by_name[which].trigger()
    assert no.asked == ["the game in progress"] and rig.game.board == board
    rig.panel.confirm = Answer(True)
    dbg_win.actions_by_name[which].trigger()
    dbg_win.debugger.step(1)
    assert rig.game.board != board                      # wiped: an empty board
    dbg_win.close()
