"""Windows open at a size that fits the screen and lay out down to 800x600: nothing
off-screen, nothing overlapping (2048 needed 782 px of height, Hidato 771, and the
debugger always opened at 1280x860)."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import QRect

from hmi.app import MainWindow
from hmi.debugger.window import DebuggerWindow
from hmi.panels.game2048 import BestScore, Game2048Panel
from hmi.widgets import FRAME, fit_to_screen
from programs.game2048 import Game2048

SMALL = QRect(0, 0, 800, 600)        # an 800x600 screen


def window_for(qtbot, name, tmp_path):
    panel = Game2048Panel(seed=1, best=BestScore(tmp_path / "best.json")) if name == "2048" \
        else None
    window = MainWindow(name, panel=panel, autostart=False)
    qtbot.addWidget(window)
    return window


@pytest.mark.parametrize("name", ["2048", "sudoku", "jigsaw", "hidato"])
def test_every_panel_fits_an_800_by_600_screen(qtbot, tmp_path, name):
    window = window_for(qtbot, name, tmp_path)
    least = window.minimumSize()
    assert least.width() <= SMALL.width() - FRAME[0]
    assert least.height() <= SMALL.height() - FRAME[1]
    fit_to_screen(window, 560, 820, SMALL)
    window.show()
    assert window.height() <= SMALL.height() - FRAME[1]
    window.resize(800, 600)
    assert (window.width(), window.height()) == (800, 600)
    # the panel's rows one under the other, none over another
    panel = window.panel
    rows = [panel.layout().itemAt(i).geometry() for i in range(panel.layout().count())]
    for above, below in zip(rows, rows[1:]):
        assert above.bottom() < below.top(), (name, above, below)
    assert rows[-1].bottom() <= panel.height()


def test_the_2048_arrow_pad_stays_under_the_board_at_800_by_600(qtbot, tmp_path):
    window = window_for(qtbot, "2048", tmp_path)
    window.resize(800, 600)
    window.show()
    panel = window.panel
    board = panel.board_view
    field = board.field().translated(board.mapTo(panel, board.rect().topLeft()).toPointF())
    for arrow in panel.arrows.values():
        top = arrow.mapTo(panel, arrow.rect().topLeft()).y()
        assert top > field.bottom(), arrow.text()


def test_the_debugger_opens_at_a_size_that_fits_the_screen_and_lays_out_at_800_by_600(qtbot):
    game = Game2048(seed=1)
    window = DebuggerWindow(game.plc, autostart=False)
    qtbot.addWidget(window)
    assert (window.width(), window.height()) == (
        min(1280, window.screen().availableGeometry().width() - FRAME[0]),
        min(860, window.screen().availableGeometry().height() - FRAME[1]))
    fit_to_screen(window, 1280, 860, SMALL)
    assert window.width() <= 800 - FRAME[0] and window.height() <= 600 - FRAME[1]
    least = window.minimumSizeHint()
    assert least.width() <= 800 and least.height() <= 600
    window.resize(800, 600)
    window.show()
    assert (window.width(), window.height()) == (800, 600)
    window.close()
