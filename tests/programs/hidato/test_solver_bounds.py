"""The solver's bounds: an iterative search (no RecursionError, however deep), a largest
board, a budget of nodes and of seconds with a clear "gave up", and the CLI's options."""

import inspect
import sys
from contextlib import contextmanager

import pytest

from fbd.tools.cli import main as fbd_main
from programs.hidato import Board, BoardError, count_solutions, solve
from programs.hidato.solver import MAX_CELLS, SolverGaveUp, solve_stats


def open_board(rows: int, cols: int) -> Board:
    """Only the first and the last number given: the deepest search for its size."""
    grid = [[0] * cols for _ in range(rows)]
    grid[0][0], grid[-1][-1] = 1, rows * cols
    return Board.from_rows(grid)


@contextmanager
def recursion_limit(extra: int):
    """Allow only ``extra`` frames above this one."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + extra)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_a_search_deeper_than_the_call_stack_allows_still_solves():
    board = open_board(12, 12)                 # one guess per number: ~140 levels deep
    _, stats = solve_stats(board)
    assert stats.guesses > 100
    with recursion_limit(60):                  # a recursive search would need ~140 frames
        solution = solve(board)
    assert solution.solves(board)


def test_the_largest_board_is_20x20_or_its_area():
    assert MAX_CELLS == 400
    assert solve(open_board(20, 20)).solves(open_board(20, 20))
    for rows, cols in ((21, 20), (5, 81), (40, 40)):
        with pytest.raises(BoardError, match=rf"a {rows}x{cols} board is too large for the "
                                             rf"solver \(at most 400 cells"):
            solve(open_board(rows, cols))


def test_a_node_budget_gives_up_with_what_it_did():
    board = open_board(15, 15)
    with pytest.raises(SolverGaveUp, match=r"gave up after 30 nodes \(\d+\.\d s\)") as e:
        solve(board, max_nodes=30)
    assert e.value.stats.nodes == 30 and not e.value.stats.complete
    with pytest.raises(SolverGaveUp, match="gave up after 5 nodes"):
        count_solutions(board, max_nodes=5)


def test_a_time_budget_gives_up_too():
    with pytest.raises(SolverGaveUp, match="gave up after"):
        solve(open_board(15, 15), max_seconds=1e-9)   # due before the first node


def test_within_its_budget_the_answer_is_the_same():
    board = open_board(6, 6)
    assert solve(board, max_nodes=10_000, max_seconds=60) == solve(board)
    assert count_solutions(board, limit=3, max_nodes=10_000) == 3


def test_progress_is_reported_while_searching(monkeypatch):
    from programs.hidato import solver
    ticks = iter(range(0, 10**6, 2))                  # a clock two seconds per call
    monkeypatch.setattr(solver.time, "perf_counter", lambda: next(ticks))
    seen = []
    solve_stats(open_board(6, 6), progress=lambda stats: seen.append(stats.nodes))
    assert seen and seen == sorted(seen)


@pytest.mark.parametrize("kwargs, words", [
    (dict(budget=0), "node budget must be at least 1"),
    (dict(seconds=0), "time budget must be positive"),
    (dict(seconds=float("nan")), "time budget must be positive"),
])
def test_bad_budgets_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        solve_stats(open_board(3, 3), **kwargs)


# ------------------------------------------------------------------ the command line
def test_the_cli_gives_up_in_one_line_with_exit_2(tmp_path, capsys):
    path = tmp_path / "open.txt"
    open_board(15, 15).write(path)
    assert fbd_main(["hidato", "solve", "--max-nodes", "20", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"fbd: error: {path}: gave up after 20 nodes")
    assert "--max-nodes or --max-seconds" in err
    assert fbd_main(["hidato", "solve", "--count", "--max-nodes", "3", str(path)]) == 2
    assert "gave up after 3 nodes" in capsys.readouterr().err
    assert fbd_main(["hidato", "solve", "--max-nodes", "100000", "--max-seconds", "60",
                     str(path)]) == 0
    assert Board.parse(capsys.readouterr().out).solves(open_board(15, 15))


@pytest.mark.parametrize("argv, words", [
    (["--max-nodes", "0"], "0 is outside 1..1,000,000,000"),
    (["--max-nodes", "many"], "not a whole number: 'many'"),
    (["--max-seconds", "-1"], "-1 seconds is outside (0, 86400]"),
    (["--max-seconds", "inf"], "inf seconds is outside"),
    (["--max-seconds", "soon"], "not a number of seconds: 'soon'"),
])
def test_the_cli_refuses_bad_budgets(tmp_path, capsys, argv, words):
    path = tmp_path / "p.txt"
    path.write_text("1 _\n_ 4\n")
    assert fbd_main(["hidato", "solve", *argv, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and err.count("\n") == 1 and words in err


def test_the_cli_refuses_a_board_too_large_for_the_solver(tmp_path, capsys):
    path = tmp_path / "big.txt"
    open_board(30, 30).write(path)
    assert fbd_main(["hidato", "solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"fbd: error: {path}: a 30x30 board is too large for the solver")
