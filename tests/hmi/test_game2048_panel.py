"""The 2048 panel driven as a player would, on the real block program, time moved by hand."""

import logging
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QColor
from PyQt6.QtWidgets import QApplication

from fbd.runtime import snapshot
from hmi.panel import TOUCHED_NOTE, plc_status
from hmi.panels.game2048 import THEME, BestScore, Game2048Panel, tile_style
from hmi.widgets import NOT_STARTED_HINT, StatusLine
from programs.game2048 import Game2048
from tests.hmi.rig import Rig

ROOT = Path(__file__).resolve().parents[2]
EMPTY = [[0] * 4 for _ in range(4)]


def one_tile(r, c, value=2):
    grid = [row[:] for row in EMPTY]
    grid[r][c] = value
    return grid


def tiles(board):
    return sum(1 for row in board for v in row if v)


@pytest.fixture
def rig(qtbot, tmp_path):
    return Rig(qtbot, tmp_path / "best.json")


def test_the_panel_opens_ready_and_start_places_two_tiles(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json", start=False)
    assert rig.game.board == EMPTY and rig.panel.state_label.text() == "Ready"
    assert rig.panel.start_button.text() == "Start" and not rig.panel.stop_button.isEnabled()
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)       # no game yet: the PLC ignores it, and
    assert rig.panel.hint.text() == NOT_STARTED_HINT  # the panel says why
    rig.settle()                                     # (a command waits until the last is taken)
    rig.panel.start_button.click()
    rig.settle()
    assert tiles(rig.game.board) == 2
    assert rig.game.plc.scans > 0
    assert rig.panel.board_view.board == rig.game.board
    assert rig.panel.state_label.text() == "Playing" and rig.panel.stop_button.isEnabled()


KEY_TARGETS = [(Qt.Key.Key_Left, (1, 0)), (Qt.Key.Key_Right, (1, 3)), (Qt.Key.Key_Up, (0, 1)),
               (Qt.Key.Key_Down, (3, 1)), (Qt.Key.Key_A, (1, 0)), (Qt.Key.Key_D, (1, 3)),
               (Qt.Key.Key_W, (0, 1)), (Qt.Key.Key_S, (3, 1))]


def test_arrow_keys_and_wasd_move_the_tiles(rig, qtbot):
    for key, target in KEY_TARGETS:
        rig.load(one_tile(1, 1))
        qtbot.keyClick(rig.panel, key)
        assert rig.game.board == one_tile(1, 1), "nothing moves before the PLC scans"
        rig.settle()
        board = rig.game.board
        assert board[target[0]][target[1]] == 2, (key, board)
        assert tiles(board) == 2, (key, board)                   # the tile and a new one
        assert rig.panel.board_view.board == board


def test_keys_with_modifiers_are_not_moves(rig, qtbot):
    rig.load(one_tile(1, 1))
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    rig.settle()
    assert rig.game.board == one_tile(1, 1)


def test_on_screen_arrows_move_the_tiles(rig, qtbot):
    for direction, target in (("left", (2, 0)), ("right", (2, 3)), ("up", (0, 2)),
                              ("down", (3, 2))):
        rig.load(one_tile(2, 2, 4))
        qtbot.mouseClick(rig.panel.arrows[direction], Qt.MouseButton.LeftButton)
        rig.settle()
        assert rig.game.board[target[0]][target[1]] == 4, (direction, rig.game.board)
        assert tiles(rig.game.board) == 2


def test_a_merge_scores_and_the_labels_show_it(rig, qtbot):
    rig.load([[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.board[0][0] == 4
    assert rig.game.score == 4
    assert rig.panel.score_label.text() == "4"
    assert rig.panel.best_label.text() == "4"


def test_stop_clears_and_start_begins_again_asking_before_discarding(rig, qtbot):
    asked = []
    rig.panel.confirm = lambda parent, what: asked.append(what) or False     # "No"
    qtbot.mouseClick(rig.panel.stop_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert asked and tiles(rig.game.board) == 2                  # kept
    rig.panel.confirm = lambda parent, what: True
    qtbot.mouseClick(rig.panel.stop_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert rig.game.board == EMPTY and rig.panel.state_label.text() == "Ready"
    asked.clear()
    qtbot.mouseClick(rig.panel.start_button, Qt.MouseButton.LeftButton)
    rig.settle()
    assert tiles(rig.game.board) == 2 and asked == []            # nothing to discard


def test_start_during_a_game_asks_before_discarding_it(rig, qtbot):
    rig.load([[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.score == 4
    rig.panel.confirm = lambda parent, what: False
    rig.panel.start_button.click()
    rig.settle()
    assert rig.game.score == 4                                   # not discarded
    rig.panel.confirm = lambda parent, what: True
    rig.panel.start_button.click()
    rig.settle()
    assert rig.game.score == 0 and tiles(rig.game.board) == 2


def test_a_game_changed_in_the_debugger_sets_no_best_score(rig, qtbot):
    window = rig.window
    dbg_win = window.open_debugger(autostart=False)
    dbg_win.debugger.force("cell_0_0.memory.OUT", 1024)       # a forced tile ...
    dbg_win.debugger.force("cell_0_1.memory.OUT", 1024)
    dbg_win.debugger.step(2)
    dbg_win.debugger.unforce()
    dbg_win.close()
    rig.load([[1024, 1024, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.score == 2048
    assert rig.panel.best.value == 0 and rig.panel.best_label.text() == "0"   # ... no record
    assert TOUCHED_NOTE in rig.panel.status_line.text()
    rig.panel.shutdown()
    assert rig.panel.best.value == 0
    rig.panel.start_button.click()         # a new game is clean again
    rig.settle()
    rig.load([[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.panel.best.value == 4 and TOUCHED_NOTE not in rig.panel.status_line.text()


def test_a_value_written_from_the_debugger_marks_the_game_too(rig):
    dbg_win = rig.window.open_debugger(autostart=False)
    dbg_win.debugger.write("SCORE", 5000)
    dbg_win.close()
    rig.settle()
    assert not rig.panel.sets_records


def test_game_over_overlay_shows_on_a_lost_position(rig, qtbot):
    # One move left: 16+16 merge; whatever tile then appears (2 or 4, next to
    # 8 and 32) leaves no move at all.
    rig.load([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 8], [4, 2, 16, 16]])
    assert not rig.panel.over_overlay.isVisible()
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.board[3][:3] == [4, 2, 32]
    assert rig.game.game_over
    assert rig.panel.over_overlay.isVisible()
    assert rig.panel.over_overlay.label.text() == "Game over!"
    qtbot.mouseClick(rig.panel.over_overlay.buttons["Try again"], Qt.MouseButton.LeftButton)
    rig.settle()
    assert not rig.game.game_over
    assert not rig.panel.over_overlay.isVisible()
    assert tiles(rig.game.board) == 2


def test_you_win_at_2048_and_keep_going(rig, qtbot):
    rig.load([[1024, 1024, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.board[0][0] == 2048 and rig.game.won
    overlay = rig.panel.win_overlay
    assert overlay.isVisible() and overlay.label.text() == "You win!"
    before = rig.game.board
    qtbot.keyClick(rig.panel, Qt.Key.Key_Down)        # the board waits for a choice
    rig.settle()
    assert rig.game.board == before
    qtbot.mouseClick(overlay.buttons["Keep going"], Qt.MouseButton.LeftButton)
    assert not overlay.isVisible()
    qtbot.keyClick(rig.panel, Qt.Key.Key_Down)
    rig.settle()
    assert rig.game.board[3][0] == 2048
    assert not overlay.isVisible()                    # still won, but kept going


def test_best_score_persists_across_panels(rig, qtbot, tmp_path):
    rig.load([[2, 2, 4, 4], [0] * 4, [0] * 4, [0] * 4])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.score == 12 and rig.game.best == 12      # the program's own BEST
    rig.window.close()
    kept = snapshot.read(str(tmp_path / "best.json"))
    assert kept.variables == {"best.OUT": ("DINT", "RETAIN", 12)}
    again = Rig(qtbot, tmp_path / "best.json")
    assert again.game.score == 0 and again.game.best == 12  # a warm start of the new PLC
    assert again.panel.best_label.text() == "12"


def best_plc(best: int):
    game = Game2048(seed=1, best=True)
    game.plc.write("best.OUT", best)
    return game.plc


def test_best_score_lives_in_the_app_data_directory(qtbot, tmp_path, monkeypatch):
    from hmi.app import application
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    application()
    best = BestScore()
    assert best.path == tmp_path / "fbd-sim" / "2048.retain"
    assert best.value == 0
    assert best.offer(best_plc(8)) and not best.offer(best_plc(4))
    assert BestScore().value == 8


def test_the_best_score_of_an_earlier_versions_json_file_is_taken_over(tmp_path):
    (tmp_path / "2048.json").write_text('{"best": 96}')
    best = BestScore(tmp_path / "2048.retain")
    assert best.value == 96
    game = Game2048(seed=1, best=True)
    best.attach(game.plc)
    game.plc.scan()
    assert game.best == 96


@pytest.mark.parametrize("text", ["{not json", '{"best": 12}', "fbd-retain 1 4 00\nabcd",
                                  "fbd-retain 7 0 x\n"])
def test_a_damaged_or_foreign_best_score_file_is_ignored_with_a_warning(tmp_path, caplog, text):
    path = tmp_path / "best.retain"
    path.write_text(text)
    with caplog.at_level(logging.WARNING, logger="hmi"):
        best = BestScore(path)
    assert best.value == 0
    assert any(str(path) in r.getMessage() for r in caplog.records)
    assert best.offer(best_plc(2))
    assert BestScore(path).value == 2                  # overwritten by the next best


def test_a_corrupt_best_score_file_does_not_stop_the_panel(qtbot, tmp_path, caplog):
    path = tmp_path / "best.json"
    path.write_bytes(b"\xff\xfe garbage")
    with caplog.at_level(logging.WARNING, logger="hmi"):
        rig = Rig(qtbot, path)
    assert rig.panel.best_label.text() == "0"
    assert caplog.records


def test_the_status_line_shows_scans_time_and_scan_time(rig):
    rig.advance(100)
    text = rig.panel.status_line.text()
    plc = rig.game.plc
    assert f"scan {plc.scans:,}" in text
    assert f"{plc.time:,.1f} s" in text
    assert "µs/scan, max" in text and "overrun" in text
    assert "overrun is a scan that took longer" in rig.panel.status_line.right.toolTip()


def test_the_status_line_names_the_engine_and_its_tooltip_says_why(rig):
    rig.advance(10)
    plc = rig.game.plc
    shown = "native" if plc.engine == "native" else "Python"
    assert rig.panel.status_line.right.full_text().startswith(f"{shown} engine  ·  ")
    tip = rig.panel.status_line.right.toolTip()
    assert f"engine: {shown} ({plc.engine_reason})" in tip


@pytest.mark.parametrize("engine, reason, shown", [
    ("native", "every block and signal has a native form", "native"),
    ("python", "CONCAT (STRING values)", "Python")])
def test_the_status_line_shows_either_engine_and_the_reason_auto_gave(qtbot, engine, reason, shown):
    stats = SimpleNamespace(overruns=0, mean_us=3.0, max_ns=9_000)
    plc = SimpleNamespace(scans=10, time=0.05, stats=stats, engine=engine, engine_reason=reason)
    line = StatusLine(THEME)
    qtbot.addWidget(line)
    line.show_plc(plc)
    assert line.right.full_text() == f"{shown} engine  ·  3 µs/scan, max 9  ·  0 overruns"
    assert f"engine: {shown} ({reason})" in line.right.toolTip()


@pytest.mark.parametrize("overruns, says", [(0, "0 overruns"), (1, "1 overrun"), (2, "2 overruns")])
def test_the_status_line_counts_overruns_in_words(overruns, says):
    stats = SimpleNamespace(overruns=overruns, mean_us=61.4, max_ns=380_600)
    plc = SimpleNamespace(scans=1234, time=6.17, stats=stats)
    assert says in plc_status(plc)


def test_menu_settings_start_a_new_game(rig):
    rig.panel.confirm = lambda parent, what: True       # the game in progress may go
    old = rig.game
    rig.panel.placement_actions["article"].trigger()
    assert rig.game is not old
    assert rig.panel.settings.placement == "article"
    assert rig.panel.placement_actions["article"].isChecked()
    rig.settle()
    assert rig.game.board == EMPTY                 # ready: Start plays it
    rig.panel.start()
    rig.settle()
    assert tiles(rig.game.board) == 2
    old = rig.game
    rig.panel.processing_actions["multi_scan"].trigger()
    assert rig.game is not old and rig.panel.settings.processing == "multi_scan"
    rig.panel.start()
    rig.settle()
    assert tiles(rig.game.board) == 2
    assert rig.panel.plc is rig.game.plc


def test_seed_from_the_menu(rig, monkeypatch):
    from hmi.panels import game2048 as module
    assert rig.panel.settings.seed == 1 and rig.game.seed == 1
    assert rig.panel.seed_action.text() == "Seed (1)..."
    rig.panel.confirm = lambda parent, what: True
    monkeypatch.setattr(module.QInputDialog, "getInt", lambda *a: (42, True))
    rig.panel.seed_action.trigger()
    assert rig.game.seed == 42 and rig.panel.seed_action.text() == "Seed (42)..."
    monkeypatch.setattr(module.QInputDialog, "getInt", lambda *a: (7, False))   # cancelled
    old = rig.game
    rig.panel.seed_action.trigger()
    assert rig.game is old
    rig.panel.new_game(module.replace(rig.panel.settings, seed=None))          # drawn
    assert isinstance(rig.game.seed, int) and rig.panel.settings.seed == rig.game.seed
    rig.panel.start()
    rig.settle()
    assert tiles(rig.game.board) == 2


def test_the_same_seed_and_presses_give_the_same_game(qtbot, tmp_path):
    boards = []
    for _ in range(2):
        rig = Rig(qtbot, tmp_path / "best.json", seed=7)
        for key in (Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Right, Qt.Key.Key_Down):
            qtbot.keyClick(rig.panel, key)
            rig.settle()
        boards.append(rig.game.board)
        rig.window.close()
    assert boards[0] == boards[1]


def pixel(image, x, y) -> str:
    return QColor(image.pixel(round(x), round(y))).name()


def save_screenshot(widget, tmp_path, name):
    """Grab ``widget`` to tmp_path/name and copy it to out/screenshots/ (git-ignored)."""
    image = widget.grab().toImage()
    path = tmp_path / name
    assert image.save(str(path)) and path.stat().st_size > 10_000
    out = ROOT / "out" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, out / name)
    return image


def test_screenshot_looks_like_2048(rig, qtbot, tmp_path):
    rig.load([[2, 2, 4, 8], [16, 32, 64, 128], [256, 512, 1024, 0], [0, 2, 0, 4]])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.game.board[0][:3] == [4, 4, 8] and rig.panel.score_label.text() == "4"
    image = save_screenshot(rig.panel, tmp_path, "2048.png")
    save_screenshot(rig.window, tmp_path, "2048-window.png")

    view = rig.panel.board_view
    field = view.field()
    origin = view.mapTo(rig.panel, field.topLeft().toPoint())
    k = field.width() / 500
    board = rig.game.board
    for r in range(4):
        for c in range(4):
            # a point inside the tile, clear of its number
            x = origin.x() + (15 + c * 121.25 + 8) * k
            y = origin.y() + (15 + r * 121.25 + 8) * k
            assert pixel(image, x, y) == tile_style(board[r][c])[0], (r, c)
    assert pixel(image, origin.x() + 5 * k, origin.y() + 250 * k) == "#bbada0"   # a gap
    assert pixel(image, 3, 3) == "#faf8ef"                                      # the page


def test_screenshot_of_game_over(rig, qtbot, tmp_path):
    rig.load([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 8], [4, 2, 16, 16]])
    qtbot.keyClick(rig.panel, Qt.Key.Key_Left)
    rig.settle()
    assert rig.panel.over_overlay.isVisible()
    image = save_screenshot(rig.panel, tmp_path, "2048-game-over.png")
    centre = rig.panel.board_view.mapTo(rig.panel, rig.panel.board_view.field().center().toPoint())
    # the overlay washes the field out: the 16 tile under the text is no longer #f59563
    assert pixel(image, centre.x() + 120, centre.y() + 200) != tile_style(32)[0]


def test_the_panel_is_registered_and_builds_by_default(qtbot, tmp_path, monkeypatch):
    from hmi.panels import PANELS
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    factory = PANELS["2048"].load()
    assert factory is Game2048Panel
    panel = factory()
    qtbot.addWidget(panel)
    assert isinstance(panel.game, Game2048)


def test_the_changed_in_the_debugger_note_is_whole_at_the_default_width(rig):
    rig.window.resize(560, 820)                        # the window's first size
    dbg_win = rig.window.open_debugger(autostart=False)
    dbg_win.debugger.write("SCORE", 5000)
    dbg_win.close()
    rig.advance(20)
    QApplication.processEvents()                       # laid out again
    line = rig.panel.status_line
    assert line.note.text() == TOUCHED_NOTE and line.note.isVisible()
    assert line.note.width() >= line.note.fontMetrics().horizontalAdvance(TOUCHED_NOTE)
    assert "…" not in line.left.text()                 # the cost gave up its room first
