"""The whole program through the facade: the rules of the original 2048, spawns,
game over and win, determinism, a golden transcript, the real-time API, errors."""

import io
import math
import os
import random
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from fbd import FbdError, compile_network
from fbd.tools.cli import main as fbd_main
from programs.game2048 import DIRECTIONS, PLACEMENTS, VARIANTS, Game2048, build
from tests.programs.game2048.reference import game_over, move, random_board

GOLDEN = Path(__file__).parent / "golden"
#: Random boards compared with the reference, each in the 4 directions, per variant:
#: a lean comparison on every run, the full one under the ``slow`` marker (CI runs it).
BOARDS_LEAN = 500
BOARDS_FULL = 20_000
STUCK = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]


@pytest.fixture(scope="module")
def game():
    """One compiled game per processing variant, shared by the tests that load
    their own boards (compiling is the slow part of making a game)."""
    return {v: Game2048(seed=1, processing=v) for v in VARIANTS}


def reference_cases(boards: int, seed: int):
    """(board, direction, (board after the move, moved, score gained)) from the reference."""
    rng = random.Random(seed)
    out = []
    for _ in range(boards):
        board = random_board(rng)
        for d in DIRECTIONS:
            out.append((board, d, move(board, d)))
    return out


def assert_equals_the_reference(g, cases):
    """The board after the slide and merge (before the new tile), moved and the score
    gained are the reference's; a move adds one 2 or 4 on a cell it left empty, a
    press that changes nothing adds nothing. Each case loads the board into the cells
    of the one compiled program."""
    wrong, fours, spawns = [], 0, 0
    for board, direction, want in cases:
        g.load_board(board, settle=False)
        r = g.press(direction)
        if (r.before_spawn, r.moved, r.score_gain) != want:
            wrong.append((board, direction, (r.before_spawn, r.moved, r.score_gain), want))
        elif r.moved:
            spawn = _spawned(r.before_spawn, r.after)
            if spawn is None:
                wrong.append((board, direction, "spawn", r.before_spawn, r.after))
            else:
                spawns += 1
                fours += spawn[2] == 4
        elif r.after != r.before_spawn:
            wrong.append((board, direction, "not a move, yet", r.after))
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"
    # One spawn in ten is a 4: within five standard deviations of a binomial count.
    assert spawns > len(cases) // 2
    assert abs(fours - spawns / 10) < 5 * math.sqrt(spawns * 0.1 * 0.9), (fours, spawns)


@pytest.mark.parametrize("processing", VARIANTS)
def test_equals_the_reference_on_random_boards(game, processing):
    """500 random boards x 4 directions, on every run (about a second per variant)."""
    assert_equals_the_reference(game[processing], reference_cases(BOARDS_LEAN, seed=2048))


@pytest.mark.slow
@pytest.mark.parametrize("processing", VARIANTS)
def test_equals_the_reference_on_twenty_thousand_random_boards(game, processing):
    """20,000 random boards x 4 directions (the lean test's 500 and 19,500 more): about
    25 s for single_pass and 40 s for multi_scan on a 2-core machine."""
    assert_equals_the_reference(game[processing], reference_cases(BOARDS_FULL, seed=2048))


@pytest.mark.parametrize("processing", VARIANTS)
@pytest.mark.parametrize("board, direction, want, gain", [
    ([[2, 2, 2, 2]] + [[0] * 4] * 3, "right", [0, 0, 4, 4], 8),
    ([[4, 4, 8, 8]] + [[0] * 4] * 3, "left", [8, 16, 0, 0], 24),
    ([[2, 2, 4, 0]] + [[0] * 4] * 3, "left", [4, 4, 0, 0], 4),
])
def test_the_originals_examples(game, processing, board, direction, want, gain):
    g = game[processing]
    g.load_board(board)
    score = g.score
    r = g.press(direction)
    assert list(r.before_spawn[0]) == want and r.score_gain == gain and r.moved
    assert g.score - score == gain
    assert _spawned(r.before_spawn, r.after) is not None


@pytest.mark.parametrize("processing", VARIANTS)
def test_a_press_that_changes_nothing_is_not_a_move(game, processing):
    g = game[processing]
    board = [[2, 4, 8, 16], [0] * 4, [0] * 4, [0] * 4]
    g.load_board(board)
    for direction in ("up", "left", "right"):
        r = g.press(direction)
        assert not r.moved and r.score_gain == 0 and r.after == r.before_spawn
        assert [list(row) for row in r.after] == board and not g.busy
    assert g.press("left").scans == 2        # the lock is released on the next scan


def _spawned(before, after):
    """The one new tile: (row, col, value), or None if the boards differ otherwise."""
    diff = [(r, c) for r in range(4) for c in range(4) if before[r][c] != after[r][c]]
    if len(diff) != 1:
        return None
    r, c = diff[0]
    return (r, c, after[r][c]) if before[r][c] == 0 and after[r][c] in (2, 4) else None


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_spawns_are_one_tile_on_an_empty_cell_four_one_time_in_ten(placement):
    g = Game2048(seed=3, processing="single_pass", placement=placement)
    rng = random.Random(9)
    values, cells = [], set()
    while len(values) < 2500:
        if g.game_over or not values:
            g.start()
            assert sorted(v for row in g.board for v in row if v) in ([2, 2], [2, 4], [4, 4])
        r = g.press(rng.choice(DIRECTIONS))
        if r.moved:
            spawn = _spawned(r.before_spawn, r.after)
            assert spawn is not None, r
            values.append(spawn[2])
            cells.add(spawn[:2])
    fours = values.count(4) / len(values)
    assert 0.08 < fours < 0.12, fours
    assert len(cells) == 16


@pytest.mark.parametrize("processing, placement", [("single_pass", "smart"),
                                                   ("multi_scan", "article")])
def test_a_game_played_to_the_end(processing, placement):
    g = Game2048(seed=12, processing=processing, placement=placement)
    g.start()
    rng = random.Random(1)
    presses = 0
    while not g.game_over:
        before = tuple(map(tuple, g.board))
        r = g.press(rng.choice(DIRECTIONS))
        assert r.before_spawn == move(before, r.direction)[0]
        presses += 1
        assert presses < 5000
    # Decided after the spawn: the board the PLC calls over is over, and every
    # later press changes nothing.
    assert game_over(g.board)
    score = g.score
    for d in DIRECTIONS:
        assert not g.press(d).moved
    assert g.score == score and g.game_over


def test_game_over_comes_from_the_board(game):
    g = game["single_pass"]
    g.load_board(STUCK)
    assert g.game_over
    g.load_board([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 4]])
    assert not g.game_over
    g.load_board([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 0]])
    assert not g.game_over


@pytest.mark.parametrize("processing", VARIANTS)
def test_the_last_tile_can_end_the_game(game, processing):
    # One move leaves exactly one empty cell; whatever tile lands there, no
    # neighbour is equal to it, so the game is over after the spawn.
    g = game[processing]
    g.load_board([[8, 16, 8, 16], [16, 8, 16, 8], [8, 16, 8, 16], [32, 32, 128, 256]])
    assert not g.game_over
    r = g.press("left")
    assert r.before_spawn[3] == (64, 128, 256, 0) and r.score_gain == 64
    assert r.after[3][3] in (2, 4) and game_over(r.after) and g.game_over


@pytest.mark.parametrize("processing", VARIANTS)
def test_win_and_play_goes_on(game, processing):
    g = game[processing]
    g.load_board([[1024, 1024, 0, 0], [2, 4, 0, 0], [0] * 4, [0] * 4])
    assert not g.won
    score = g.score
    r = g.press("left")
    assert r.before_spawn[0][0] == 2048 and r.score_gain == 2048 and g.won
    assert g.score == score + 2048
    assert not g.game_over and not g.busy
    assert g.press("right").moved and g.won


def test_start_and_reset():
    g = Game2048(seed=6)
    g.load_board(STUCK)
    g.start()
    tiles = [v for row in g.board for v in row if v]
    assert len(tiles) == 2 and set(tiles) <= {2, 4} and g.score == 0 and not g.game_over
    g.press("up")
    g.reset()
    assert g.board == [[0] * 4] * 4 and g.score == 0 and not g.busy


def test_the_score_is_the_sum_of_the_gains():
    g = Game2048(seed=8, processing="multi_scan")
    g.start()
    rng = random.Random(8)
    total = 0
    for _ in range(150):
        total += g.press(rng.choice(DIRECTIONS)).score_gain
        assert g.score == total


def transcript(seed, processing, placement, presses=300):
    """A scripted game: start, then a fixed pattern of presses."""
    g = Game2048(seed=seed, processing=processing, placement=placement)
    lines = [f"# 2048 from blocks: seed {seed}, {processing}, {placement} placement"]
    scans = g.start()
    lines.append(f"start scans={scans} board={_flat(g.board)}")
    pattern = ("left", "down", "left", "down", "right", "down", "up")
    for i in range(presses):
        r = g.press(pattern[i % len(pattern)])
        lines.append(f"{i + 1:3d} {r.direction:<5s} moved={int(r.moved)} gain={r.score_gain:<5d} "
                     f"score={g.score:<6d} scans={r.scans}/{r.processing_scans} "
                     f"board={_flat(r.after)}")
        if g.game_over:
            lines.append(f"game over after {i + 1} presses, score {g.score}, "
                         f"largest tile {max(max(row) for row in g.board)}")
            break
    return "\n".join(lines) + "\n"


def _flat(board) -> str:
    return "/".join(",".join(str(v) for v in row) for row in board)


@pytest.mark.parametrize("processing", VARIANTS)
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_golden_transcript(processing, placement):
    """Set GOLDEN_UPDATE=1 to rewrite the files after an intended change."""
    got = transcript(2048, processing, placement)
    path = GOLDEN / f"game_{processing}_{placement}.txt"
    if os.environ.get("GOLDEN_UPDATE"):
        path.write_text(got)
    assert got == path.read_text()


def test_a_seeded_game_replays_identically_and_seeds_differ():
    a = transcript(77, "multi_scan", "article", presses=120)
    assert a == transcript(77, "multi_scan", "article", presses=120)
    assert a != transcript(78, "multi_scan", "article", presses=120)


def test_real_time_use_without_blocking():
    g = Game2048(seed=3)
    assert g.command("start")
    assert not g.busy and not g.ready     # nothing happens before a scan
    assert not g.command("left")          # start is not taken yet: left is not written
    g.plc.scan()
    assert g.busy
    while g.busy:
        g.plc.scan()
    board = g.board
    assert g.command("left")
    g.plc.scan()
    assert not g.command("right")         # while "left" is in progress: ignored
    g.plc.run_for(0.050)
    assert not g.busy and g.plc.get("TAKEN") == 2
    assert g.board != board or not g.moved
    assert g.command("reset")
    g.plc.scan()
    assert g.board == [[0] * 4] * 4 and g.score == 0


def test_signals_by_path_and_the_program_for_fbd():
    g = Game2048(seed=1, processing="multi_scan", placement="article")
    g.start()
    assert [g.plc.get(f"cell_{r}_{c}.memory.OUT") for r in range(4) for c in range(4)] == \
        [v for row in g.board for v in row]
    assert g.plc.get("CELL_2_3") == g.board[2][3]
    for path in ("processing_left.line_0.m1.OUT", "processing_up.done.OUT", "random.saw.OUT",
                 "control.busy.Q1", "install.set_1_2.OUT", "order_left.L0_4", "score.total.OUT"):
        g.plc.get(path)
    out = io.StringIO()
    with redirect_stdout(out):
        assert fbd_main(["info", "programs.game2048:build"]) in (0, None)
    assert "Game2048" in out.getvalue()


def test_block_counts():
    counts = {(p, pl): compile_network(build(p, pl)).info()["blocks"]
              for p in VARIANTS for pl in PLACEMENTS}
    assert counts == {("single_pass", "smart"): 1083, ("single_pass", "article"): 1000,
                      ("multi_scan", "smart"): 1267, ("multi_scan", "article"): 1184}


def test_bad_input_is_refused_clearly(game):
    g = game["single_pass"]
    with pytest.raises(ValueError, match="unknown direction 'north'"):
        g.press("north")
    with pytest.raises(ValueError, match="unknown command 'jump'"):
        g.command("jump")
    with pytest.raises(ValueError, match="4 rows of 4 values"):
        g.load_board([[0] * 4] * 3)
    with pytest.raises(ValueError, match="4 rows of 4 values"):
        g.load_board([[0] * 4] * 3 + [[0] * 5])
    with pytest.raises(ValueError, match="4 rows of 4 values"):
        g.load_board(5)
    for bad in (3, -2, 1, 6, 1 << 25, True, 2.0, "2"):
        board = [[0] * 4 for _ in range(4)]
        board[1][2] = bad
        with pytest.raises(ValueError, match=r"board\[1\]\[2\]"):
            g.load_board(board)
    with pytest.raises(ValueError, match="single_pass, multi_scan"):
        Game2048(processing="fast")
    with pytest.raises(ValueError, match="article, smart"):
        Game2048(placement="anywhere")
    with pytest.raises(ValueError, match="single_pass, multi_scan"):
        build(processing="fast")
    g.command("start")
    g.plc.scan()
    with pytest.raises(FbdError, match="in progress"):
        g.load_board(STUCK)
    g.wait()


def test_a_random_seed_is_kept():
    g = Game2048(seed=None)
    assert isinstance(g.seed, int) and 0 <= g.seed < 1_000_000
