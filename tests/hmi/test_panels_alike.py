"""The four game panels behave alike and lay out without clipping (pytest-qt, offscreen)."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import QRect, Qt
from PyQt6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QLabel,
    QPushButton,
    QWidget,
)

from hmi.app import MainWindow
from hmi.panel import GamePanel
from hmi.panels.game2048 import BestScore, BoardView, Game2048Panel
from hmi.panels.hidato import HidatoPanel
from hmi.panels.sudoku import JigsawPanel, SudokuPanel
from hmi.widgets import NOT_STARTED_HINT, ElidedLabel
from tests.hmi.rig import TICK_NS, Clock, Rig

PANELS = {"2048": Game2048Panel, "sudoku": SudokuPanel, "jigsaw": JigsawPanel,
          "hidato": HidatoPanel}


def open_panel(qtbot, name, tmp_path):
    cls = PANELS[name]
    panel = cls(best=BestScore(tmp_path / "best.json"), seed=1) if name == "2048" else cls()
    clock = Clock()
    window = MainWindow(name, panel=panel, clock=clock, autostart=False)
    qtbot.addWidget(window)
    window.resize(560, 820)
    window.show()
    window.tick()

    def settle(ms=300):
        for _ in range(ms // 10):
            clock.ns += TICK_NS
            window.tick()
    return window, panel, settle


@pytest.fixture(params=list(PANELS))
def opened(request, qtbot, tmp_path):
    return open_panel(qtbot, request.param, tmp_path)


def test_every_panel_has_the_same_game_menu(opened):
    _window, panel, _settle = opened
    assert isinstance(panel, GamePanel)
    menu = panel.menus()[0]
    actions = [a for a in menu.actions() if not a.isSeparator()][:4]
    assert menu.title() == "&Game"
    assert [a.text().split(" (")[0] for a in actions] == ["&New", "&Start", "S&top", "&Undo"]
    assert [a.shortcut().toString() for a in actions] == ["Ctrl+N", "F2", "F3", "Ctrl+Z"]
    assert menu.actions()[4].isSeparator()         # then the panel's own choices


def test_every_panel_opens_ready_and_start_plays(opened):
    _window, panel, settle = opened
    settle()
    assert panel.state_label.text() == "Ready"
    assert panel.start_button.isEnabled() and not panel.stop_button.isEnabled()
    panel.start_button.click()
    settle()
    assert panel.state_label.text() == "Playing"
    assert panel.stop_button.isEnabled()


def a_move(name, panel, qtbot):
    """A move as the player makes it: an arrow, a digit in a cell, a number."""
    if name == "2048":
        qtbot.keyClick(panel, Qt.Key.Key_Left)
    elif name == "hidato":
        r, c = next((r, c) for r, row in enumerate(panel.game.givens) for c, v in enumerate(row)
                    if v == 0)
        view = panel.board_view
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.cell_rect(r, c).center().toPoint())
        qtbot.keyClicks(panel, "3")
        qtbot.keyClick(panel, Qt.Key.Key_Return)
    else:
        r, c = next((r, c) for r in range(9) for c in range(9) if panel.game.initial[r][c] == 0)
        panel.board_view.select(r, c)
        qtbot.keyClick(panel, Qt.Key.Key_5)


def test_a_move_before_start_shows_the_same_hint_everywhere(opened, qtbot):
    window, panel, settle = opened
    settle()
    name = window.program
    assert not panel.hint.flashing
    a_move(name, panel, qtbot)
    assert panel.hint.text() == NOT_STARTED_HINT
    settle()                      # the ignored move is taken before Start is sent
    panel.start_button.click()
    settle()
    panel.hint._restore()
    a_move(name, panel, qtbot)
    assert panel.hint.text() != NOT_STARTED_HINT      # playing: no hint


def test_the_buttons_are_in_the_same_places(qtbot, tmp_path):
    places = {}
    for name in PANELS:
        window, panel, _settle = open_panel(qtbot, name, tmp_path)
        window.resize(560, 820)
        QApplication.processEvents()

        def at(w, panel=panel):
            return w.mapTo(panel, w.rect().topLeft())
        start, stop, undo = at(panel.start_button), at(panel.stop_button), at(panel.undo_button)
        assert start.y() == stop.y() and start.x() < stop.x()
        if panel.has_undo:                       # 2048's program has none: no button
            assert undo.y() == start.y() and stop.x() < undo.x()
        state = at(panel.state_label)
        assert state.x() > stop.x() and abs(state.y() + panel.state_label.height() / 2
                                            - start.y() - panel.start_button.height() / 2) < 3
        new = at(panel.new_button)
        assert new.y() < start.y() < at(panel.board_view).y()
        assert new.x() + panel.new_button.width() == panel.width() - 24     # the row's end
        places[name] = (start.x(), stop.x() - start.x())
        window.close()
    assert len(set(places.values())) == 1, places


def leaves(root: QWidget):
    """The visible widgets a player reads or presses (not the board's overlays)."""
    out = []
    for w in root.findChildren(QWidget):
        if not w.isVisibleTo(root) or isinstance(w.parentWidget(), BoardView):
            continue
        if isinstance(w, (QLabel, QPushButton, QComboBox, QCheckBox)) and not any(
                isinstance(p, (QComboBox,)) for p in _parents(w, root)):
            out.append(w)
    return out


def _parents(w, root):
    p = w.parentWidget()
    while p is not None and p is not root:
        yield p
        p = p.parentWidget()


def rect_in(w, root) -> QRect:
    return QRect(w.mapTo(root, w.rect().topLeft()), w.size())


def check_no_clipping(window):
    root = window
    bounds = root.rect()
    items = leaves(root)
    for w in items:
        r = rect_in(w, root)
        assert bounds.contains(r), (w, w.objectName(), r, bounds)
        if isinstance(w, ElidedLabel):
            shown = w.text()
            assert w.fontMetrics().horizontalAdvance(shown) <= w.contentsRect().width() + 1, shown
        elif isinstance(w, QLabel) and w.text():
            if w.wordWrap():
                assert w.heightForWidth(w.width()) <= w.height() + 1, w.text()
            else:
                need = w.minimumSizeHint()
                assert need.width() <= w.width() and need.height() <= w.height() + 1, w.text()
        elif isinstance(w, (QPushButton, QCheckBox, QComboBox)):
            need = w.minimumSizeHint()
            assert need.width() <= w.width() and need.height() <= w.height(), w
    # nothing overlaps anything else (a label inside a score box is inside, not over)
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a.isAncestorOf(b) or b.isAncestorOf(a):
                continue
            ra, rb = rect_in(a, root), rect_in(b, root)
            assert not ra.intersects(rb), (a, getattr(a, "text", lambda: "")(),
                                           b, getattr(b, "text", lambda: "")(), ra, rb)


def test_nothing_clips_at_the_minimum_window_size(opened):
    window, panel, settle = opened
    panel.start_button.click()
    settle()
    panel.plc.scan(12_000)                      # a status line with five-digit scans
    window.set_paused(True)                      # and the longest state word
    window.show_message("a long message in the status bar that would run over the loop's "
                        "own field if it were drawn as QStatusBar draws its messages", 0)
    panel.refresh()
    window.resize(window.minimumSize())
    QApplication.processEvents()
    assert window.size() == window.minimumSize()
    assert panel.state_label.text() == "Paused"
    check_no_clipping(window)
    board = rect_in(panel.board_view, window)   # room for 800x600 screens, still playable
    assert board.width() >= 200 and board.height() >= 200


def test_at_the_default_size_the_status_line_shows_everything(opened):
    window, panel, settle = opened
    settle()
    panel.plc.scan(12_000)
    panel.refresh()
    QApplication.processEvents()
    line = panel.status_line
    assert "12," in line.left.text() and "…" not in line.left.text() + line.right.text()
    check_no_clipping(window)


def test_after_escape_closes_a_menu_the_arrow_keys_go_to_the_board(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    window = rig.window
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=60_000)
    rig.load([[0] * 4, [0, 2, 0, 0], [0] * 4, [0] * 4])
    qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)   # the Game menu
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=60_000)
    qtbot.wait(50)                                   # shown and active
    popup = QApplication.activePopupWidget()
    assert popup is rig.panel.menus()[0]
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rig.panel, timeout=60_000)
    assert window.menuBar().activeAction() is None
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.board[1][0] == 2                 # the tile moved: the board had the key


def test_the_loop_field_explains_dropped_time(rig_window_dropped):
    window = rig_window_dropped
    assert "dropped" in window.loop_label.text()
    assert "dropped: simulated time the PLC skipped" in window.loop_label.toolTip()


@pytest.fixture
def rig_window_dropped(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    rig.clock.ns += 5_000_000_000                     # a stalled UI: 5 s in one tick
    rig.window.tick()
    return rig.window
