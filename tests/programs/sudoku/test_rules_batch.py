"""Sudoku's rule checks, the whole program in one batch: hundreds of random
boards, classic and jigsaw, each an instance loaded as the initial grid on the
first scan; every cell's CONFLICT and the Groups' Solved against the scripted
copy of the SCXML example (tests/programs/sudoku/scxml_reference.py).

Boards: random filled grids (the solver's, digits relabelled), the same with
two cells swapped, one cell changed, cells emptied, and random digits at
random densities.
"""

import random

import pytest

from fbd.testing import check_batch
from programs.sudoku import build, solve
from programs.sudoku.groups import CELLS
from programs.sudoku.regions import layout_with_solution
from tests.programs.sudoku.scxml_reference import conflicts, is_solved

EMPTY = [[0] * 9 for _ in range(9)]


def boards(solutions, rng: random.Random, count: int) -> list:
    out = []
    for k in range(count):
        kind = k % 5
        if kind == 4:
            density = rng.choice((0.1, 0.4, 0.8, 1.0))
            out.append([[rng.randint(1, 9) if rng.random() < density else 0 for _c in range(9)]
                        for _r in range(9)])
            continue
        relabel = [0] + rng.sample(range(1, 10), 9)
        grid = [[relabel[v] for v in row] for row in rng.choice(solutions)]
        (r1, c1), (r2, c2) = rng.sample(CELLS, 2)
        if kind == 1:
            grid[r1][c1], grid[r2][c2] = grid[r2][c2], grid[r1][c1]
        elif kind == 2:
            grid[r1][c1] = rng.choice([d for d in range(1, 10) if d != grid[r1][c1]])
        elif kind == 3:
            for r, c in rng.sample(CELLS, rng.randint(1, 60)):
                grid[r][c] = 0
        out.append(grid)
    return out


@pytest.mark.parametrize("kind", ["classic", "jigsaw"])
def test_conflicts_and_solved_match_the_reference_on_random_boards(kind):
    rng = random.Random(81)
    if kind == "classic":
        regions = None
        solutions = [solve(EMPTY, rng=random.Random(seed)) for seed in range(4)]
    else:
        regions, first = layout_with_solution(7)
        solutions = [first] + [solve(EMPTY, regions, rng=random.Random(seed)) for seed in range(3)]
    grids = boards(solutions, rng, 300)
    inputs = {f"INIT_{r}_{c}": [g[r][c] for g in grids] for r, c in CELLS}

    def reference(case):
        grid = [[case[f"INIT_{r}_{c}"] for c in range(9)] for r in range(9)]
        clash = conflicts(grid, regions)
        return {**{f"CONFLICT_{r}_{c}": clash[r][c] for r, c in CELLS},
                "groups.Solved": is_solved(grid, regions)}

    assert check_batch(build(regions), inputs, reference) == len(grids)
    assert sum(is_solved(g, regions) for g in grids) >= 60   # the boards do exercise Solved
