"""The GameOver macro alone: full and no equal neighbours."""

import pytest

from fbd.testing import Harness
from programs.game2048.game_over import game_over_macro
from tests.programs.game2048.reference import game_over

STUCK = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]


@pytest.fixture(scope="module")
def harness():
    return Harness(game_over_macro())


def over(h, board):
    h.set({f"V_{r}_{c}": board[r][c] for r in range(4) for c in range(4)}).scan()
    return h.get("Over")


def test_full_and_stuck_is_over(harness):
    assert over(harness, STUCK) is True


@pytest.mark.parametrize("r, c", [(r, c) for r in range(4) for c in range(4)])
def test_one_empty_cell_or_one_equal_pair_is_not_over(harness, r, c):
    board = [row[:] for row in STUCK]
    board[r][c] = 0
    assert over(harness, board) is False
    board[r][c] = 8
    if c < 3:
        board[r][c + 1] = 8                   # an equal pair in a row
        assert over(harness, board) is game_over(board) is False
        board[r][c + 1] = STUCK[r][c + 1]
    if r < 3:
        board[r + 1][c] = 8                   # an equal pair in a column
        assert over(harness, board) is game_over(board) is False


def test_an_empty_board_is_not_over(harness):
    assert over(harness, [[0] * 4] * 4) is False
