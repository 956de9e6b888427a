"""The SmartPlacement macro alone: count the empty cells, draw one of them."""

import math
import random

import pytest

from fbd import compile_network
from fbd.testing import Harness
from programs.game2048.placement import smart_placement_macro


@pytest.fixture(scope="module")
def harness():
    return Harness(smart_placement_macro())


def pick(h, board, fraction):
    h.set({f"V_{r}_{c}": board[r][c] for r in range(4) for c in range(4)}, Fraction=fraction)
    h.scan()
    return h.get("Row"), h.get("Col"), h.get("Count")


def test_draws_the_index_among_the_empty_cells(harness):
    rng = random.Random(3)
    for _ in range(300):
        board = [[rng.choice((0, 2, 4, 8)) for _c in range(4)] for _r in range(4)]
        empties = [(r, c) for r in range(4) for c in range(4) if board[r][c] == 0]
        fraction = rng.random()
        row, col, count = pick(harness, board, fraction)
        assert count == len(empties)
        if empties:
            assert (row, col) == empties[math.trunc(fraction * len(empties))]


def test_every_empty_cell_can_be_drawn_and_nothing_else(harness):
    board = [[2, 0, 2, 2], [2, 2, 2, 2], [0, 2, 2, 2], [2, 2, 2, 0]]
    seen = {pick(harness, board, k / 30)[:2] for k in range(30)}
    assert seen == {(0, 1), (2, 0), (3, 3)}


def test_full_and_empty_boards(harness):
    assert pick(harness, [[2] * 4] * 4, 0.5)[2] == 0
    assert pick(harness, [[0] * 4] * 4, 0.999) == (3, 3, 16)
    assert pick(harness, [[0] * 4] * 4, 0.0) == (0, 0, 16)


def test_blocks():
    assert compile_network(smart_placement_macro()).info()["blocks"] == 83
