"""A scripted Python copy of Qt's ``sudoku.scxml`` + ``sudoku.js``, for the tests only.

Written from the example's text, independently of the block program: taps
and their undo step the value (9 -> 0, 0 -> 9) as ``calculateCurrentState``
and ``undo`` do; ``isSolved`` is the example's loop (rows, columns, and the
squares of its index formula) or, for jigsaw, rows, columns and regions.
Our additions: ``enter`` (a digit 0..9) and ``clear`` are moves checked like
a tap, undone by restoring the value they replaced; a finite undo ``depth``
refuses a move when the stack is full (the program raises OVERFLOW).
"""

from __future__ import annotations

import copy


def is_ok(numbers) -> bool:
    temp = []
    for v in numbers:
        if v == 0 or v in temp:
            return False
        temp.append(v)
    return True


def is_solved(state, regions=None) -> bool:
    for i in range(9):
        if not is_ok(state[i]):
            return False
        column = [state[j][i] for j in range(9)]
        if regions is None:
            square = [state[i // 3 * 3 + j // 3][i % 3 * 3 + j % 3] for j in range(9)]
        else:
            square = [state[r][c] for r in range(9) for c in range(9) if regions[r][c] == i]
        if not is_ok(column) or not is_ok(square):
            return False
    return True


def conflicts(state, regions=None) -> list[list[bool]]:
    """A digit that another cell of its row, column or region/box also holds."""
    def region(r, c):
        return 3 * (r // 3) + c // 3 if regions is None else regions[r][c]
    out = [[False] * 9 for _ in range(9)]
    for r in range(9):
        for c in range(9):
            v = state[r][c]
            if v == 0:
                continue
            out[r][c] = any(state[r2][c2] == v and (r2, c2) != (r, c)
                            and (r2 == r or c2 == c or region(r2, c2) == region(r, c))
                            for r2 in range(9) for c2 in range(9))
    return out


class ScxmlSudoku:
    def __init__(self, grid, regions=None, depth: int | None = None):
        self.regions = regions
        self.depth = depth
        self.init_state = copy.deepcopy(grid)
        self.state = "unsolved"          # game's initial child: idle, whose first child
        self.restart()                   # game's onentry raises restart

    def restart(self):
        self.current = copy.deepcopy(self.init_state)
        self.undo_stack = []

    def _valid(self, x, y) -> bool:
        return 0 <= x < 9 and 0 <= y < 9 and self.init_state[x][y] == 0

    def _move(self, x, y, value, entry):
        if self.depth is not None and len(self.undo_stack) >= self.depth:
            return
        self.current[x][y] = value
        self.undo_stack.append(entry)
        if is_solved(self.current, self.regions):
            self.state = "solved"

    def submit(self, event, x=0, y=0, digit=0, grid=None):
        if self.state != "playing":                       # idle
            if event == "start":
                self.state = "playing"
                self.restart()
            elif event == "setup":
                self.init_state = copy.deepcopy(grid)
                self.state = "unsolved"
                self.restart()
            return
        if event == "tap" and self._valid(x, y):
            v = self.current[x][y]
            self._move(x, y, 0 if v == 9 else v + 1, ("tap", x, y))
        elif event in ("enter", "clear") and self._valid(x, y):
            value = digit if event == "enter" else 0
            if 0 <= value <= 9:
                self._move(x, y, value, ("set", x, y, self.current[x][y]))
        elif event == "undo" and self.undo_stack:
            last = self.undo_stack.pop()
            x, y = last[1], last[2]
            if last[0] == "tap":
                v = self.current[x][y]
                self.current[x][y] = 9 if v == 0 else v - 1
            else:
                self.current[x][y] = last[3]
        elif event == "stop":
            self.state = "unsolved"
