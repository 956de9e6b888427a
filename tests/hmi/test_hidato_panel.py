"""The Hidato panel driven as a player would, on the real block program, time moved by hand."""

from pathlib import Path

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QColor

from hmi.app import MainWindow
from hmi.panels import PANELS
from hmi.panels.hidato import CONFLICT, HidatoPanel, next_number, path_segments
from hmi.widgets import NOT_STARTED_HINT
from programs.hidato import bundled, solve
from tests.hmi.rig import TICK_NS, Clock

ROOT = Path(__file__).resolve().parents[2]
PUZZLE = "5x5-easy-s1"


class HidatoRig:
    """A MainWindow hosting a Hidato panel, on a fake clock, its timer stopped."""

    def __init__(self, qtbot, puzzle=PUZZLE, start=True):
        self.clock = Clock()
        self.panel = HidatoPanel(puzzle=puzzle)
        self.window = MainWindow("hidato", panel=self.panel, clock=self.clock, autostart=False)
        qtbot.addWidget(self.window)
        self.window.resize(620, 820)
        self.window.show()
        self.window.tick()
        if start:                        # the panel opens ready: Start plays
            self.panel.start()
            self.settle()

    @property
    def game(self):
        return self.panel.game

    def advance(self, ms: int) -> None:
        for _ in range(ms // 10):
            self.clock.ns += TICK_NS
            self.window.tick()

    def settle(self, max_ms: int = 2000) -> None:
        """Advance until the panel's queued events are all taken by the PLC."""
        waited = 0
        while not self.panel.idle:
            assert waited < max_ms, "the PLC did not take the panel's events"
            self.advance(10)
            waited += 10
        self.advance(20)

    def click(self, qtbot, row, col):
        view = self.panel.board_view
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton,
                         pos=view.cell_rect(row, col).center().toPoint())

    def type_number(self, qtbot, row, col, number):
        self.click(qtbot, row, col)
        qtbot.keyClicks(self.panel, str(number))
        if self.panel.typed:
            qtbot.keyClick(self.panel, Qt.Key.Key_Return)
        self.settle()

    def pixel(self, row, col) -> QColor:
        """The colour of a cell's background, away from its number and the path."""
        view = self.panel.board_view
        rect = view.cell_rect(row, col)
        image = view.grab().toImage()
        ratio = image.devicePixelRatio()
        x = rect.x() + rect.width() * 0.22
        y = rect.y() + rect.height() * 0.18
        return image.pixelColor(round(x * ratio), round(y * ratio))


@pytest.fixture
def rig(qtbot):
    return HidatoRig(qtbot)


@pytest.fixture(scope="module")
def solution():
    return solve(bundled()[PUZZLE])


def empties(board):
    return [(r, c) for r, row in enumerate(board.rows) for c, v in enumerate(row) if v == 0]


def test_registered_ready_after_load_and_playing_after_start(qtbot):
    assert PANELS["hidato"].load() is HidatoPanel
    rig = HidatoRig(qtbot, start=False)
    rig.settle()
    assert rig.game.state == "unsolved" and rig.panel.state_label.text() == "Ready"
    rig.panel.start_button.click()
    rig.settle()
    assert rig.game.state == "playing"
    assert rig.panel.state_label.text() == "Playing"
    assert rig.panel.board_view.current == rig.game.current
    assert rig.panel.size_box.currentData() == 5        # the size list shows the board's


def test_next_number_mode_follows_what_the_plc_did(qtbot):
    rig = HidatoRig(qtbot, start=False)
    rig.panel.next_mode.setChecked(True)
    rig.click(qtbot, 1, 4)                   # the given 2: continue from it
    assert rig.panel.next_mode.text() == "Next number: 3"
    rig.click(qtbot, 0, 3)                   # not started: the PLC refuses the 3 ...
    assert rig.panel.hint.text() == NOT_STARTED_HINT
    rig.settle()
    assert rig.game.current[0][3] == 0
    assert rig.panel.next_mode.text() == "Next number: 3"     # ... so the next number stays 3
    rig.panel.start_button.click()
    rig.settle()
    rig.click(qtbot, 1, 4)
    rig.click(qtbot, 0, 3)
    rig.settle()
    assert rig.game.current[0][3] == 3 and rig.panel.next_mode.text() == "Next number: 4"


def test_typing_a_number_enters_it_through_the_plc(rig, qtbot, solution):
    r, c = empties(bundled()[PUZZLE])[0]
    number = solution[r, c]
    rig.click(qtbot, r, c)
    qtbot.keyClicks(rig.panel, str(number))
    if rig.panel.typed:
        assert rig.game.current[r][c] == 0          # waits for Enter
        qtbot.keyClick(rig.panel, Qt.Key.Key_Return)
    assert rig.game.current[r][c] == 0, "nothing changes before the PLC scans"
    rig.settle()
    assert rig.game.current[r][c] == number
    assert rig.panel.board_view.current[r][c] == number
    qtbot.keyClick(rig.panel, Qt.Key.Key_Delete)
    rig.settle()
    assert rig.game.current[r][c] == 0


def test_two_digits_then_enter(rig, qtbot):
    rig.click(qtbot, 0, 0)
    qtbot.keyClicks(rig.panel, "1")
    assert rig.panel.typed == "1"
    qtbot.keyClicks(rig.panel, "7")                # 17 * 10 > 25: goes in at once
    rig.settle()
    assert rig.game.current[0][0] == 17
    qtbot.keyClicks(rig.panel, "1")
    qtbot.keyClick(rig.panel, Qt.Key.Key_Return)
    rig.settle()
    assert rig.game.current[0][0] == 1                # a duplicate of the given 1: the PLC allows it
    assert rig.game.conflicts[0][0]


def test_next_number_mode_places_the_right_number(rig, qtbot):
    rig.panel.next_mode.setChecked(True)
    rig.click(qtbot, 1, 4)                   # the given 2: continue from it
    assert rig.panel.last_placed == 2
    assert next_number(rig.game.current, 1, 25, 2) == 3
    rig.click(qtbot, 0, 3)
    rig.settle()
    assert rig.game.current[0][3] == 3
    rig.click(qtbot, 0, 2)
    rig.settle()
    assert rig.game.current[0][2] == 4
    assert rig.panel.next_mode.text() == "Next number: 5"


def test_undo(rig, qtbot):
    rig.type_number(qtbot, 0, 3, 3)
    rig.type_number(qtbot, 0, 2, 4)
    assert rig.panel.undo_button.isEnabled()
    qtbot.mouseClick(rig.panel.undo_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.current[0][2] == 0 and rig.game.current[0][3] == 3
    qtbot.mouseClick(rig.panel.undo_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.current[0][3] == 0
    assert not rig.panel.undo_button.isEnabled()


def test_givens_cannot_change(rig, qtbot):
    before = rig.game.current
    rig.type_number(qtbot, 1, 0, 8)          # the given 7
    qtbot.keyClick(rig.panel, Qt.Key.Key_Delete)
    rig.settle()
    rig.panel.next_mode.setChecked(True)
    rig.click(qtbot, 1, 1)                   # the given 9
    rig.settle()
    assert rig.game.current == before
    assert rig.game.givens[1][0] == 7


def test_start_and_stop(rig, qtbot):
    rig.type_number(qtbot, 0, 3, 3)
    qtbot.mouseClick(rig.panel.stop_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.state == "unsolved"
    assert rig.panel.state_label.text() == "Ready"
    assert not rig.panel.stop_button.isEnabled()
    rig.type_number(qtbot, 0, 2, 4)          # not playing: ignored, and the panel says so
    assert rig.game.current[0][2] == 0 and rig.panel.hint.text() == NOT_STARTED_HINT
    qtbot.mouseClick(rig.panel.start_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.state == "playing"
    assert rig.game.current == rig.game.givens      # started again from the givens
    rig.type_number(qtbot, 0, 3, 3)
    rig.panel.confirm = lambda parent, what: False   # Start during a game: asked, "No"
    rig.panel.start_button.click()
    rig.settle()
    assert rig.game.current[0][3] == 3
    rig.panel.confirm = lambda parent, what: True
    rig.panel.start_button.click()
    rig.settle()
    assert rig.game.state == "playing" and rig.game.current[0][3] == 0


def test_entering_the_solution_shows_solved(rig, qtbot, solution):
    for r, c in empties(bundled()[PUZZLE]):
        rig.type_number(qtbot, r, c, solution[r, c])
    assert rig.game.current == solution.rows
    assert rig.game.state == "solved"
    assert rig.panel.state_label.text() == "Solved!"
    assert not any(any(row) for row in rig.game.conflicts)


def test_a_conflict_shows_red(rig, qtbot):
    rig.type_number(qtbot, 4, 0, 3)          # far from the given 2 at (1, 4)
    assert rig.game.conflicts[4][0]
    assert rig.panel.board_view.conflicts[4][0]
    assert rig.pixel(4, 0) == QColor(CONFLICT)
    assert rig.pixel(0, 0) != QColor(CONFLICT)


def test_choosing_a_puzzle_of_the_same_shape_uses_setup(rig):
    game = rig.game
    rig.panel.choose("5x5-medium-s2")
    rig.settle()
    assert rig.game is game
    assert rig.game.givens == bundled()["5x5-medium-s2"].rows
    assert rig.game.state == "unsolved"              # ready: Start plays it


def test_new_puzzle_and_screenshot(qtbot):
    rig = HidatoRig(qtbot, puzzle="6x6-hard-s3", start=False)
    rig.panel.new_puzzle(4, "easy", seed=3)
    assert rig.panel.generating and not rig.panel.new_button.isEnabled()
    qtbot.waitUntil(lambda: not rig.panel.generating, timeout=60_000)
    assert rig.panel.new_button.isEnabled()
    rig.settle()
    assert (rig.game.rows, rig.game.cols) == (4, 4)
    assert rig.game.state == "unsolved"
    # the new puzzle is in the list, chosen; the size list shows its size
    assert rig.panel.chooser.currentIndex() == 0
    assert rig.panel.chooser.currentText().startswith("new 4x4 easy")
    assert rig.panel.size_box.currentData() == 4
    rig.panel.choose("6x6-hard-s3")
    rig.settle()
    assert rig.panel.chooser.currentText() == "6x6-hard-s3"
    assert rig.panel.size_box.currentData() == 6
    rig.panel.start()
    rig.settle()
    board = bundled()["6x6-hard-s3"]
    solved = solve(board)
    # a game under way: part of the path, one wrong number, a cell being typed
    placed = 0
    for r, c in sorted(empties(board), key=lambda rc: solved[rc]):
        if solved[r, c] <= 14:
            rig.type_number(qtbot, r, c, solved[r, c])
            placed += 1
    wrong = next(rc for rc in empties(board) if solved[rc] > 30)
    rig.type_number(qtbot, *wrong, 20)
    assert rig.game.conflicts[wrong[0]][wrong[1]]
    typing = next(rc for rc in empties(board) if solved[rc] == 15)
    rig.click(qtbot, *typing)
    qtbot.keyClicks(rig.panel, "1")           # 1 or 1x: waits for another digit or Enter
    assert rig.panel.typed == "1"
    rig.panel.next_mode.setChecked(True)
    rig.panel.refresh()
    out = ROOT / "out" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    path = out / "hidato.png"
    assert rig.window.grab().save(str(path))
    assert path.stat().st_size > 10_000


def test_the_path_runs_between_the_numbers_not_through_them():
    side = 100.0
    where = {1: (0, 0), 2: (0, 1), 3: (1, 2), 5: (2, 2)}      # 3 -> 4 missing, 2 -> 3 diagonal
    segments = path_segments(where, side)
    assert len(segments) == 2
    (ax, ay), (bx, by) = segments[0]                             # 1 -> 2, side by side
    assert ay == by == 50 and 50 + 0.3 * side <= ax and bx <= 150 - 0.3 * side
    (ax, ay), (bx, by) = segments[1]                             # 2 -> 3, diagonal
    for (x, y), (cx, cy) in (((ax, ay), (150, 50)), ((bx, by), (250, 150))):
        assert ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 >= 0.3 * side    # clear of the number


def test_the_difficulty_box_shows_the_puzzles_difficulty(qtbot):
    rig = HidatoRig(qtbot, start=False)
    panel = rig.panel
    assert PUZZLE == "5x5-easy-s1" and panel.difficulty_box.currentText() == "easy"
    panel.choose("7x7-hard-s6")
    assert panel.difficulty_box.currentText() == "hard"
    assert [n for n, a in panel.puzzle_actions.items() if a.isChecked()] == ["7x7-hard-s6"]


def test_the_selection_shows_on_a_conflicting_cell(rig, qtbot):
    from hmi.panels.hidato import SELECTION_FRAME
    rig.type_number(qtbot, 4, 0, 3)          # a conflict, and the cell stays selected
    assert rig.game.conflicts[4][0] and rig.panel.selected == (4, 0)
    view = rig.panel.board_view
    rect = view.cell_rect(4, 0)
    image = view.grab().toImage()
    ratio = image.devicePixelRatio()
    edge = [image.pixelColor(round((rect.x() + rect.width() * f) * ratio),
                             round((rect.y() + rect.height() * 0.09) * ratio)).name()
            for f in (0.3, 0.5, 0.7)]
    assert SELECTION_FRAME in edge           # was: all the conflict's red


def test_typing_into_a_given_cell_says_it_is_given(rig, qtbot):
    from hmi.panels.hidato import GIVEN_HINT
    rig.click(qtbot, 1, 0)                   # the given 7
    qtbot.keyClick(rig.panel, Qt.Key.Key_8)
    assert rig.panel.typed == "" and rig.panel.hint.text() == GIVEN_HINT
