"""Generate Sudoku and Jigsaw Sudoku puzzles with exactly one solution.

1. A random filled grid: DLX on the empty grid with rows tried in random order
   (for Jigsaw, the layout check in :mod:`.regions` already produced one).
2. Dig holes: visit the 81 cells in random order and empty each one if the
   puzzle stays acceptable, else put the digit back; in stages:

   * ``easy``   -- acceptable = singles still solve it (see :mod:`.grader`);
   * ``medium`` -- first as easy, then go round again with acceptable =
     singles + naked pairs + intersections solve it;
   * ``hard``   -- acceptable = still exactly one solution (DLX: no solution with
     another digit in the emptied cell);
     about half of these minimal puzzles need search (staging hard after medium
     was tried: it rarely removes anything more on classic grids, so it was slower).

   Logic-solvable implies unique, so easy and medium need no DLX at all. The
   medium's stages make its grade nearly certain: after stage one no single
   given can go without breaking singles, and fewer givens never help a logical
   solver, so any cell the second stage removes lifts the puzzle to medium.
3. Grade the result; ``medium`` must not be easy and ``hard`` must need search,
   else dig again from a new grid and order, at most ``MAX_TRIES`` times (about
   two in three classic digs for ``hard`` are hard, so 30 tries practically never
   run out; if they did, the hardest puzzle made is returned, still unique).

Every puzzle returned has been checked unique by :func:`count_solutions`.
"""

from __future__ import annotations

import random

from programs.common.params import ParameterError, check_seed

from .grader import DIFFICULTIES, grade, logic_solve
from .regions import layout_with_solution
from .solver import count_solutions, has_other_solution, solve

MAX_TRIES = 30


# acceptance tests applied in turn while digging; 1 and 2 are grader levels, 3 = unique
STAGES = {"easy": (1,), "medium": (1, 2), "hard": (3,)}


def _dig(solution, regions, difficulty: str, rng: random.Random) -> list[list[int]]:
    puzzle = [row[:] for row in solution]
    cells = list(range(81))
    rng.shuffle(cells)
    for level in STAGES[difficulty]:
        for i in cells:
            r, c = divmod(i, 9)
            keep = puzzle[r][c]
            if not keep:
                continue
            puzzle[r][c] = 0
            if level < 3:
                ok = logic_solve(puzzle, regions, level) is not None
            else:
                ok = not has_other_solution(puzzle, regions, i, keep)
            if not ok:
                puzzle[r][c] = keep
    return puzzle


def generate(difficulty: str = "medium", jigsaw: bool = False, seed=None):
    """``(puzzle, regions)``: a 9x9 puzzle (0 = empty) with exactly one solution,
    graded ``difficulty``; ``regions`` is the Jigsaw layout or None for classic.
    ``seed``: None (a fresh one) or 0..2**63-1, the same seed giving the same puzzle."""
    if difficulty not in DIFFICULTIES:
        raise ParameterError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not "
                             f"{difficulty!r}")
    rng = random.Random(check_seed(seed))
    best = None
    for attempt in range(MAX_TRIES):
        if jigsaw:
            if attempt % 5 == 0:  # a new layout now and then, new grids in between
                regions, solution = layout_with_solution(rng)
            else:
                solution = solve([[0] * 9 for _ in range(9)], regions, rng=rng)
        else:
            regions = None
            solution = solve([[0] * 9 for _ in range(9)], rng=rng)
        puzzle = _dig(solution, regions, difficulty, rng)
        got = grade(puzzle, regions)
        if got == difficulty:
            best = (puzzle, regions)
            break
        if best is None or DIFFICULTIES.index(got) > DIFFICULTIES.index(grade(*best)):
            best = (puzzle, regions)  # the closest so far
    puzzle, regions = best
    if count_solutions(puzzle, regions, limit=2) != 1:  # a guard: digging keeps it unique
        raise RuntimeError("generated a puzzle without a unique solution (a bug)")
    return puzzle, regions
