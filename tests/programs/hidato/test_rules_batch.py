"""Hidato's rule checks (the *Rules* macro) in one batch: hundreds of random
boards of two shapes, each an instance, every cell's conflict and Solved
against the Python reference of tests/programs/hidato/test_program.py.

Boards: the bundled 10x10 puzzle's solution, the same with two numbers
swapped, with cells changed or emptied, random permutations, and random
numbers with duplicates; and a 6x7 board with holes numbered from 5, with a
snake path (a solution) and the same kinds of damage.
"""

import random

import pytest

from fbd.testing import check_batch
from programs.hidato import bundled, solve
from programs.hidato.rules import board_cells, rules_macro
from tests.programs.hidato.test_program import reference as rules_reference


def snake(rows, cols, holes, first):
    order = [(r, c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]
    order = [rc for rc in order if rc not in holes]
    return {rc: first + k for k, rc in enumerate(order)}


def damaged(solution: dict, cells, first, last, rng: random.Random, count: int) -> list:
    out = []
    for k in range(count):
        values = dict(solution)
        kind = k % 5
        if kind == 1:
            a, b = rng.sample(cells, 2)
            values[a], values[b] = values[b], values[a]
        elif kind == 2:
            for rc in rng.sample(cells, rng.randint(1, 3)):
                values[rc] = rng.randint(first, last)
        elif kind == 3:
            for rc in rng.sample(cells, rng.randint(1, len(cells) - 1)):
                values[rc] = 0
        elif kind == 4:
            numbers = list(range(first, last + 1))
            rng.shuffle(numbers)
            values = dict(zip(cells, numbers)) if rng.random() < 0.5 else {
                rc: rng.choice([0, rng.randint(first, last)]) for rc in cells}
        out.append(values)
    return out


@pytest.mark.parametrize("shape", ["10x10", "6x7 with holes, from 5"])
def test_conflicts_and_solved_match_the_reference_on_random_boards(shape):
    rng = random.Random(100)
    if shape == "10x10":
        rows, cols, holes, first = 10, 10, (), 1
        cells = board_cells(rows, cols)
        board = solve(bundled()["10x10-medium-s11"])
        solution = {rc: board[rc] for rc in cells}
    else:
        rows, cols, holes, first = 6, 7, ((0, 0), (2, 0), (5, 6)), 5   # the snake steps diagonally past them
        cells = board_cells(rows, cols, holes)
        solution = snake(rows, cols, holes, first)
    last = first + len(cells) - 1
    boards = damaged(solution, cells, first, last, rng, 300)
    inputs = {f"V_{r}_{c}": [b[r, c] for b in boards] for r, c in cells}

    def reference(case):
        values = {rc: case[f"V_{rc[0]}_{rc[1]}"] for rc in cells}
        clash, solved = rules_reference(cells, values, first, last)
        return {**{f"C_{r}_{c}": clash[r, c] for r, c in cells}, "Solved": solved}

    net = rules_macro(rows, cols, holes, first, last)
    assert check_batch(net, inputs, reference) == len(boards)
    assert sum(rules_reference(cells, b, first, last)[1] for b in boards) >= 50
