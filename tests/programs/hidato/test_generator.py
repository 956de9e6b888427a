"""Generated puzzles are unique, keep first and last, honour holes and difficulty."""

import random

import pytest

from fbd.errors import FbdError
from programs.common.params import ParameterError
from programs.hidato import count_solutions, generate, solve
from programs.hidato.generator import _backbite, _snake, hamiltonian_path


def _is_path(path):
    return all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1 for a, b in zip(path, path[1:]))


@pytest.mark.parametrize("rows, cols, holes, seed, difficulty", [
    (4, 4, 0, 1, "easy"), (5, 5, 0, 2, "medium"), (5, 5, 0, 3, "hard"),
    (5, 6, 4, 4, "medium"), (6, 6, 5, 5, "hard"), (3, 7, 2, 6, "easy"), (1, 5, 0, 7, "medium"),
])
def test_generated_unique_with_first_and_last(rows, cols, holes, seed, difficulty):
    board = generate(rows, cols, holes=holes, seed=seed, difficulty=difficulty)
    assert board.shape == (rows, cols)
    assert board.cells == rows * cols - holes
    givens = board.givens()
    assert board.first in givens and board.last in givens
    assert count_solutions(board, limit=2) == 1
    assert solve(board).solves(board)


def test_fewer_givens_than_half_the_cells():
    for seed in range(3):
        board = generate(6, 6, seed=seed, difficulty="medium")
        assert len(board.givens()) < board.cells // 2 + 1  # fewer than the usual half plus one


def test_difficulty_orders_the_share_of_givens():
    shares = {d: len(generate(6, 6, seed=11, difficulty=d).givens()) for d in ("easy", "medium", "hard")}
    assert shares["easy"] >= shares["medium"] >= shares["hard"]


def test_same_seed_same_puzzle_and_first_last_options():
    assert generate(5, 5, seed=42) == generate(5, 5, seed=42)
    b = generate(4, 4, first=3, last=14, seed=1)
    assert (b.first, b.last, b.cells) == (3, 14, 12)


@pytest.mark.parametrize("kwargs, words", [
    (dict(rows=0, cols=3), r"rows = 0 is outside 1\.\.400"),
    (dict(rows=3, cols=3, holes=8), "leaves 1 cells"),
    (dict(rows=3, cols=3, last=5, holes=1), "needs 5 cells"),
    (dict(rows=3, cols=3, difficulty="insane"), "unknown difficulty"),
    (dict(rows=3, cols=3, first=0), r"first = 0 is outside 1\.\.1,000,000"),
    (dict(rows=3, cols=3, first=10**7), "first = 10000000 is outside"),
    (dict(rows=21, cols=20), "21x20 is too large for the generator"),
    (dict(rows=1000, cols=1), "rows = 1000 is outside"),
    (dict(rows=3, cols=3, holes=-1), "holes = -1 is outside 0..9"),
    (dict(rows=3, cols=3, holes=10), "holes = 10 is outside 0..9"),
    (dict(rows=3, cols=3, last=100), "last = 100 is outside 2..9"),
    (dict(rows=3, cols=3, seed=-1), "seed = -1 is outside"),
    (dict(rows=3, cols=3, seed=2**64), "seed = 18446744073709551616 is outside"),
    (dict(rows=3, cols=3, seed="abc"), "seed must be a whole number"),
    (dict(rows=3.5, cols=3), "rows must be a whole number"),
    (dict(rows=True, cols=3), "rows must be a whole number"),
])
def test_bad_arguments_are_refused_naming_the_parameter_and_its_range(kwargs, words):
    with pytest.raises(ParameterError, match=words) as e:
        generate(**kwargs)
    assert isinstance(e.value, FbdError) and isinstance(e.value, ValueError)


def test_paths_cover_the_cells_and_fallback_works():
    rng = random.Random(0)
    for holes in (0, 3, 10):
        path = hamiltonian_path(5, 5, holes, rng)
        assert len(path) == len(set(path)) == 25 - holes and _is_path(path)
    path = _snake(4, 5)
    for _ in range(200):
        path = _backbite(path, rng)
        assert _is_path(path) and len(set(path)) == 20
