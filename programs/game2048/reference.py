"""A pure-Python reference 2048, written from the original game
(gabrielecirulli/2048): tiles slide as far as they can; each tile merges at
most once per move, starting from the side the tiles move toward; the score
gains the value of every merged tile; a move that changes nothing is not a move;
a new tile (a 2, or a 4 one time in ten) lands on a uniformly drawn empty cell.

It is independent of the block program and never used by it: the tests compare
the program with it, and the Monte-Carlo study (:mod:`.montecarlo`) plays the
same random games with it to compare the statistics.
"""

from __future__ import annotations

import random
from functools import lru_cache

DIRECTIONS = ("up", "right", "down", "left")


def slide_line(line):
    """Push ``line`` toward its end (index 3): returns (new line, score gained)."""
    new, score = _slide(tuple(line))
    return list(new), score


@lru_cache(maxsize=None)
def _slide(line: tuple):
    tiles = [v for v in reversed(line) if v]   # nearest the far end first
    out, score, i = [], 0, 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            score += 2 * tiles[i]
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    out += [0] * (4 - len(out))
    return tuple(reversed(out)), score


def _lines(direction):
    """The cells of each line, from the near end to the far end."""
    if direction == "right":
        return [[(r, c) for c in range(4)] for r in range(4)]
    if direction == "left":
        return [[(r, c) for c in reversed(range(4))] for r in range(4)]
    if direction == "down":
        return [[(r, c) for r in range(4)] for c in range(4)]
    if direction == "up":
        return [[(r, c) for r in reversed(range(4))] for c in range(4)]
    raise ValueError(direction)


_LINES = {d: _lines(d) for d in DIRECTIONS}


def move(board, direction):
    """Returns (new board as a tuple of tuples, moved, score gained)."""
    grid = [list(row) for row in board]
    gained = 0
    for cells in _LINES[direction]:
        new, score = _slide(tuple([board[r][c] for r, c in cells]))
        gained += score
        for (r, c), v in zip(cells, new):
            grid[r][c] = v
    new_board = tuple([tuple(row) for row in grid])
    return new_board, new_board != tuple([tuple(row) for row in board]), gained


def game_over(board):
    if any(0 in row for row in board):
        return False
    return not any(move(board, d)[1] for d in DIRECTIONS)


def spawn(board, rng: random.Random):
    """``board`` with a new tile on an empty cell, as the original game places it
    (None when the board is full)."""
    empty = [(r, c) for r in range(4) for c in range(4) if not board[r][c]]
    if not empty:
        return None
    r, c = rng.choice(empty)
    grid = [list(row) for row in board]
    grid[r][c] = 4 if rng.random() < 0.1 else 2
    return tuple(tuple(row) for row in grid)


def play(rng: random.Random):
    """One game of random presses (each direction alike, until no move is
    left): returns (score, highest tile, moves made, presses)."""
    board = spawn(spawn(((0,) * 4,) * 4, rng), rng)
    score = moves = presses = 0
    while not game_over(board):
        new, moved, gained = move(board, rng.choice(DIRECTIONS))
        presses += 1
        if moved:
            moves += 1
            score += gained
            board = spawn(new, rng)
    return score, max(max(row) for row in board), moves, presses


def random_board(rng: random.Random):
    """A random position: some empty cells, tiles of mostly small exponents so
    that many neighbours are equal (merges and chains), sometimes large ones."""
    empty = rng.choice((0.0, 0.15, 0.3, 0.5, 0.8))
    top = rng.choice((2, 3, 4, 6, 11, 17))
    return tuple(tuple(0 if rng.random() < empty else 1 << rng.randint(1, top)
                       for _c in range(4)) for _r in range(4))
