"""The solver and count_solutions on published and constructed puzzles."""

from pathlib import Path

import pytest

from programs.hidato import Board, bundled, count_solutions, solve
from programs.hidato.solver import solve_stats

BENCH = Path(__file__).resolve().parents[2] / "benchmark" / "hidato"
PUBLISHED = sorted(BENCH.glob("published_*.txt"))

ROSETTA_SOLUTION = [
    [32, 33, 35, 36, 37, -1, -1, -1],
    [31, 34, 24, 22, 38, -1, -1, -1],
    [30, 25, 23, 21, 12, 39, -1, -1],
    [29, 26, 20, 13, 40, 11, -1, -1],
    [27, 28, 14, 19, 9, 10, 1, -1],
    [-1, -1, 15, 16, 18, 8, 2, -1],
    [-1, -1, -1, -1, 17, 7, 6, 3],
    [-1, -1, -1, -1, -1, -1, 5, 4],
]


def test_rosetta_example():
    board = Board.read(BENCH / "published_8x8_rosetta.txt")
    assert solve(board).rows == ROSETTA_SOLUTION
    assert count_solutions(board) == 1


def test_the_six_published_puzzles_are_here():
    # the parametrized test below would silently shrink if one went missing
    assert len(PUBLISHED) == 6, PUBLISHED


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.stem)
def test_published_puzzles_are_solved_and_unique(path):
    # their speed is measured by programs/hidato/bench.py, not here
    board = Board.read(path)
    solution = solve(board)
    assert solution is not None and solution.solves(board)
    assert count_solutions(board, limit=5) == 1


def test_not_unique():
    # a 2x2 square: 1 and 4 given, 2 and 3 can swap
    assert count_solutions(Board.from_rows([[1, 0], [0, 4]])) == 2
    # an open 3x3 with only the ends: many solutions; the count stops at the limit
    assert count_solutions(Board.from_rows([[1, 0, 0], [0, 0, 0], [0, 0, 9]]), limit=7) == 7


def test_no_solution():
    # 1 and 2 are not adjacent
    assert solve(Board.from_rows([[1, 0, 2], [0, 0, 0], [0, 0, 9]])) is None
    assert count_solutions(Board.from_rows([[1, 0, 2], [0, 0, 0], [0, 0, 9]])) == 0
    # a full but wrong board
    assert solve(Board.from_rows([[1, 3, 2, 4]])) is None


def test_holes_and_first_not_one():
    board = Board.from_rows([[10, 0, -1], [-1, 0, 0], [-1, 15, 0]], first=10)
    solution = solve(board)
    assert solution.solves(board)
    assert solution.first == 10 and solution.last == 15


def test_solve_stats_budget():
    board = Board.from_rows([[1] + [0] * 5, [0] * 6, [0] * 6, [0] * 5 + [24]][:4])
    _, stats = solve_stats(board, limit=10**6, budget=5)
    assert not stats.complete and stats.nodes == 5
    with pytest.raises(ValueError):
        solve_stats(board, limit=0)


def test_bundled_puzzles_unique():
    boards = bundled()
    assert len(boards) >= 10
    sizes = {b.shape for b in boards.values()}
    assert len(sizes) >= 4
    assert {name.split("-")[1] for name in boards} >= {"easy", "medium", "hard"}
    for name, board in boards.items():
        assert count_solutions(board) == 1, name
