"""The Sudoku and Jigsaw panels driven as a player would, on the real block program, time moved by hand."""


import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QColor

from hmi.app import MainWindow
from hmi.panels.sudoku import CONFLICT, COUNT_UP, REGION_COLOURS, SELECT, JigsawPanel, SudokuPanel
from hmi.widgets import NOT_STARTED_HINT
from programs.sudoku import bundled_puzzles, read_grid, solve
from tests.hmi.rig import TICK_NS, Clock
from tests.paths import ROOT, SUDOKU_QT

#: Qt's SCXML Sudoku example's nearly-solved grid (tests/data/sudoku-qt): one empty
#: cell, whose answer is 4
NEARLY_SOLVED = read_grid(SUDOKU_QT / "nearly-solved-sudoku.data")[0]


class SudokuRig:
    """A MainWindow hosting a Sudoku panel, on a fake clock, its timer stopped."""

    def __init__(self, qtbot, panel):
        self.clock = Clock()
        self.panel = panel
        self.window = MainWindow("sudoku", panel=panel, clock=self.clock, autostart=False)
        qtbot.addWidget(self.window)
        self.window.resize(560, 820)
        self.window.show()
        self.window.tick()

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
        self.advance(10)

    def click(self, qtbot, row, col):
        view = self.panel.board_view
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton,
                         pos=view.cell_rect(row, col).center().toPoint())

    def start(self):
        self.panel.start_button.click()
        self.settle()
        assert self.game.state == "playing"


def first_empty(grid):
    return next((r, c) for r in range(9) for c in range(9) if grid[r][c] == 0)


def first_given(grid):
    return next((r, c) for r in range(9) for c in range(9) if grid[r][c] != 0)


@pytest.fixture
def rig(qtbot):
    return SudokuRig(qtbot, SudokuPanel())


def test_in_count_up_mode_clicking_a_cell_taps_it_through_the_plc(rig, qtbot):
    rig.panel.click_actions[COUNT_UP].trigger()
    assert rig.panel.click_mode == COUNT_UP and "count it up" in rig.panel.hint.instructions
    r, c = first_empty(rig.game.initial)
    rig.click(qtbot, r, c)            # not started: the PLC ignores the tap, the panel says so
    assert rig.panel.hint.text() == NOT_STARTED_HINT
    rig.settle()
    assert rig.game.current[r][c] == 0 and rig.panel.state_label.text() == "Ready"
    rig.start()
    assert rig.panel.state_label.text() == "Playing"
    assert rig.panel.stop_button.isEnabled()
    for value in (1, 2, 3):
        rig.click(qtbot, r, c)
        assert rig.game.current[r][c] == value - 1, "nothing changes before the PLC scans"
        rig.settle()
        assert rig.game.current[r][c] == value
        assert rig.panel.board_view.current[r][c] == value
    assert rig.panel.board_view.selected == (r, c)


def test_in_select_mode_a_click_selects_and_a_digit_is_one_move(rig, qtbot):
    assert rig.panel.click_mode == SELECT
    rig.start()
    r, c = first_empty(rig.game.initial)
    rig.click(qtbot, r, c)
    assert rig.panel.board_view.selected == (r, c) and rig.panel.idle     # nothing sent
    qtbot.keyClick(rig.panel, Qt.Key.Key_7)
    rig.settle()
    assert rig.game.current[r][c] == 7 and rig.game.undo_count == 1       # one undo step
    assert "1 move to undo" in rig.panel.info_line.text()


def test_typing_enters_digits_clears_and_undo(rig, qtbot):
    rig.start()
    r, c = first_empty(rig.game.initial)
    rig.panel.board_view.select(r, c)
    qtbot.keyClick(rig.panel, Qt.Key.Key_7)
    rig.settle()
    assert rig.game.current[r][c] == 7
    qtbot.keyClick(rig.panel, Qt.Key.Key_Delete)
    rig.settle()
    assert rig.game.current[r][c] == 0
    qtbot.keyClick(rig.panel, Qt.Key.Key_5)
    rig.settle()
    assert rig.game.current[r][c] == 5 and rig.panel.undo_button.isEnabled()
    qtbot.mouseClick(rig.panel.undo_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.current[r][c] == 0          # 5 undone: back to the cleared cell
    qtbot.mouseClick(rig.panel.undo_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.current[r][c] == 7          # the clear undone


def test_several_quick_presses_are_queued_not_lost(rig, qtbot):
    rig.panel.set_click_mode(COUNT_UP)
    rig.start()
    r, c = first_empty(rig.game.initial)
    for _ in range(4):
        rig.click(qtbot, r, c)
    rig.settle()
    assert rig.game.current[r][c] == 4


def test_arrow_keys_move_the_selection(rig, qtbot):
    rig.panel.board_view.select(0, 0)
    for key, expected in ((Qt.Key.Key_Right, (0, 1)), (Qt.Key.Key_Down, (1, 1)),
                          (Qt.Key.Key_Left, (1, 0)), (Qt.Key.Key_Up, (0, 0)),
                          (Qt.Key.Key_Up, (8, 0))):
        qtbot.keyClick(rig.panel, key)
        assert rig.panel.board_view.selected == expected


def test_given_cells_cannot_change(rig, qtbot):
    rig.panel.set_click_mode(COUNT_UP)
    rig.start()
    r, c = first_given(rig.game.initial)
    value = rig.game.current[r][c]
    rig.click(qtbot, r, c)                       # disabled: no tap sent
    assert rig.panel.idle
    rig.panel.board_view.select(r, c)
    qtbot.keyClick(rig.panel, Qt.Key.Key_1 if value != 1 else Qt.Key.Key_2)
    qtbot.keyClick(rig.panel, Qt.Key.Key_Backspace)
    rig.settle()                                 # sent, and ignored by the PLC
    assert rig.game.current[r][c] == value and rig.game.undo_count == 0


def test_start_stop_and_start_again_asks_before_discarding(rig, qtbot):
    assert rig.panel.start_button.isEnabled() and not rig.panel.stop_button.isEnabled()
    rig.start()
    r, c = first_empty(rig.game.initial)
    rig.panel.board_view.select(r, c)
    qtbot.keyClick(rig.panel, Qt.Key.Key_7)
    rig.settle()
    asked = []
    rig.panel.confirm = lambda parent, what: asked.append(what) or False
    rig.panel.start_button.click()
    rig.settle()
    assert asked == ["the grid being played"] and rig.game.current[r][c] == 7    # kept
    rig.panel.confirm = lambda parent, what: True
    rig.panel.start_button.click()
    rig.settle()
    assert rig.game.state == "playing" and rig.game.current[r][c] == 0           # restarted
    rig.panel.stop_button.click()
    rig.settle()
    assert rig.game.state == "unsolved" and rig.panel.state_label.text() == "Ready"
    assert not rig.panel.stop_button.isEnabled() and rig.panel.chooser.isEnabled()


def test_solving_shows_solved_and_the_moves_it_took(qtbot):
    rig = SudokuRig(qtbot, SudokuPanel(grid=NEARLY_SOLVED))
    rig.start()
    rig.panel.board_view.select(0, 0)
    qtbot.keyClick(rig.panel, Qt.Key.Key_3)         # wrong first
    qtbot.keyClick(rig.panel, Qt.Key.Key_4)         # the answer
    rig.settle()
    assert rig.game.current[0][0] == 4
    assert rig.game.state == "solved"
    assert rig.panel.state_label.text() == "Solved!"
    assert rig.game.undo_count == 2 and rig.panel.info_line.text() == "solved in 2 moves"
    assert not rig.panel.undo_button.isEnabled() and not rig.panel.stop_button.isEnabled()
    rig.click(qtbot, 0, 0)                           # after solving: still 2
    rig.settle()
    assert rig.panel.info_line.text() == "solved in 2 moves"


def test_solving_by_counting_up_shows_solved(qtbot):
    rig = SudokuRig(qtbot, SudokuPanel(grid=NEARLY_SOLVED, click=COUNT_UP))
    rig.start()
    for _ in range(4):                           # at (0, 0) the answer is 4
        rig.click(qtbot, 0, 0)
    rig.settle()
    assert rig.game.current[0][0] == 4 and rig.game.state == "solved"
    assert rig.panel.info_line.text() == "solved in 4 moves"


def test_a_conflict_shows_red(rig, qtbot, tmp_path):
    rig.start()
    initial = rig.game.initial
    r, c = first_empty(initial)
    given = next(v for v in initial[r] if v)        # a digit given in the same row
    rig.panel.board_view.select(r, c)
    qtbot.keyClick(rig.panel, getattr(Qt.Key, f"Key_{given}"))
    rig.settle()
    assert rig.game.conflicts[r][c]
    assert rig.panel.board_view.conflicts[r][c]
    image = rig.panel.board_view.grab().toImage()
    rect = rig.panel.board_view.cell_rect(r, c)
    reds = sum(QColor(image.pixel(round(rect.x() + dx), round(rect.y() + dy))).name() == CONFLICT
               for dx in range(3, round(rect.width()) - 3) for dy in range(3, round(rect.height()) - 3))
    assert reds > 5, "the digit is drawn in red"


def test_the_chooser_lists_bundled_grids_and_sends_setup(rig, qtbot):
    chooser = rig.panel.chooser
    classic = [p for p in bundled_puzzles() if p["kind"] == "classic"]
    names = [chooser.itemData(i)["name"] for i in range(chooser.count())
             if isinstance(chooser.itemData(i), dict)]
    assert names == [p["name"] for p in classic]
    texts = [chooser.itemText(i) for i in range(chooser.count())]
    assert not any("top95" in t for t in texts)
    assert [rig.panel.difficulty_box.itemText(i) for i in range(3)] == ["easy", "medium", "hard"]
    index = names.index(classic[5]["name"])
    chooser.setCurrentIndex(index)
    chooser.activated.emit(index)
    rig.settle()
    grid, _ = read_grid(classic[5]["path"])
    assert rig.game.initial == grid and rig.game.current == grid


def test_new_easy_generates_a_grid(qtbot):
    rig = SudokuRig(qtbot, SudokuPanel(seed=7))
    chooser = rig.panel.chooser
    rig.panel.difficulty_box.setCurrentText("easy")
    rig.panel.new_button.click()
    assert rig.panel.generating and not rig.panel.new_button.isEnabled()
    qtbot.waitUntil(lambda: not rig.panel.generating, timeout=60_000)
    rig.settle()
    assert chooser.currentText().startswith("new easy #1")
    grid = chooser.currentData()["grid"]
    assert rig.game.initial == grid and solve(grid) is not None


def test_a_grid_generated_while_a_game_started_waits_in_the_list(qtbot):
    rig = SudokuRig(qtbot, SudokuPanel(seed=7))
    playing = rig.game.initial
    rig.panel.new_puzzle("easy")
    rig.start()                       # the player starts the current grid meanwhile
    qtbot.waitUntil(lambda: not rig.panel.generating, timeout=60_000)
    rig.settle()
    assert rig.game.state == "playing" and rig.game.initial == playing
    assert rig.panel.chooser.itemText(0).startswith("new easy #1")
    assert rig.panel.chooser.currentIndex() != 0


def test_panels_are_registered(qtbot):
    from hmi.panels import PANELS
    assert PANELS["sudoku"].load() is SudokuPanel
    assert PANELS["jigsaw"].load() is JigsawPanel


def save_screenshot(widget, name):
    """Grab ``widget`` to out/screenshots/name (git-ignored)."""
    image = widget.grab().toImage()
    out = ROOT / "out" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    assert image.save(str(out / name)) and (out / name).stat().st_size > 10_000
    return image


def play_a_few(rig, qtbot):
    """Start, type the solution into a few cells and one wrong digit (a conflict)."""
    rig.start()
    solution = solve(rig.game.initial, rig.game.regions)
    empties = [(r, c) for r in range(9) for c in range(9) if rig.game.initial[r][c] == 0]
    for r, c in empties[:8]:
        rig.panel.board_view.select(r, c)
        qtbot.keyClick(rig.panel, getattr(Qt.Key, f"Key_{solution[r][c]}"))
    r, c = empties[10]
    given = next(v for v in rig.game.initial[r] if v)
    rig.panel.board_view.select(r, c)
    qtbot.keyClick(rig.panel, getattr(Qt.Key, f"Key_{given}"))
    rig.panel.board_view.select(*empties[12])
    rig.settle()
    assert rig.game.conflicts[r][c]


def test_screenshot_of_a_classic_game(rig, qtbot):
    play_a_few(rig, qtbot)
    save_screenshot(rig.window, "sudoku.png")


def test_screenshot_of_a_jigsaw_game_with_region_colours(qtbot):
    rig = SudokuRig(qtbot, JigsawPanel())
    jigsaw = [p for p in bundled_puzzles() if p["kind"] == "jigsaw"]
    grid, regions = read_grid(jigsaw[0]["path"])
    assert rig.game.regions == regions
    play_a_few(rig, qtbot)
    image = save_screenshot(rig.window, "jigsaw.png")
    view = rig.panel.board_view
    colours = set()
    for r in range(9):
        for c in range(9):
            if grid[r][c] == 0 and not rig.game.current[r][c] and (r, c) != view.selected:
                corner = view.mapTo(rig.window, view.cell_rect(r, c).topLeft().toPoint())
                colours.add(QColor(image.pixel(corner.x() + 6, corner.y() + 6)).name())
    assert colours <= set(REGION_COLOURS) and len(colours) >= 3


def test_a_jigsaw_grid_of_another_layout_builds_a_new_program(qtbot):
    rig = SudokuRig(qtbot, JigsawPanel())
    old = rig.panel.plc
    chooser = rig.panel.chooser
    jigsaw = [p for p in bundled_puzzles() if p["kind"] == "jigsaw"]
    assert chooser.itemData(0)["name"] == jigsaw[0]["name"]
    chooser.activated.emit(1)
    rig.settle()
    grid, regions = read_grid(jigsaw[1]["path"])
    assert rig.panel.plc is not old and rig.window.panel.plc is rig.panel.plc
    assert rig.game.regions == regions and rig.game.initial == grid


def test_the_grid_menu_checks_the_grid_played_and_the_difficulty_follows_it(rig):
    panel = rig.panel
    first = panel.puzzles[0]["name"]
    assert [n for n, a in panel.grid_actions.items() if a.isChecked()] == [first]
    hard = next(p for p in panel.puzzles if "-hard-" in p["name"])
    panel.grid_actions[hard["name"]].trigger()          # Game > Grid > a hard one
    assert [n for n, a in panel.grid_actions.items() if a.isChecked()] == [hard["name"]]
    assert panel.chooser.currentData()["name"] == hard["name"]
    assert panel.difficulty_box.currentText() == "hard"


def test_a_grid_declined_in_the_list_leaves_the_grid_played_shown(rig):
    rig.start()
    rig.panel.confirm = lambda parent, what: False
    rig.panel.choose(3)
    assert rig.panel.chooser.currentIndex() == 0
    assert rig.panel.grid_actions[rig.panel.puzzles[0]["name"]].isChecked()


def test_typing_into_a_given_cell_says_it_is_given(rig, qtbot):
    from hmi.panels.sudoku import GIVEN_HINT
    rig.start()
    r, c = first_given(rig.game.initial)
    rig.panel.board_view.select(r, c)
    qtbot.keyClick(rig.panel, Qt.Key.Key_5)
    assert rig.panel.hint.text() == GIVEN_HINT and rig.panel.hint.flashing
