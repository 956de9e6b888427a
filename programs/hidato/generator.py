"""Hidato generator: a random Hamiltonian path, then givens removed while the solution stays unique.

1. **Path.** Holes (if any) are drawn at random among layouts that leave the
   board connected; a random walk with Warnsdorff's rule (step to the free
   neighbour with the fewest free neighbours of its own, ties at random) covers
   the cells, restarting from a new random cell when it gets stuck. Restarts
   and hole layouts are bounded (``RESTARTS``, ``HOLE_LAYOUTS``); if all fail,
   a fallback that always succeeds takes over: a boustrophedon path over the
   whole rectangle, shuffled by random *backbite* moves, with the holes cut off
   its two ends. So :func:`generate` always terminates.
2. **Numbers.** The path holds ``first..last`` in order.
3. **Digging.** Every cell but the first and last is tried once, in random
   order: its number goes if :func:`~.solver.count_solutions` still finds
   exactly one solution *within a budget of search nodes*: a removal whose
   uniqueness proof costs more is refused (the given stays). The budget is the
   solver's work a puzzle may demand, and it bounds the generator's time (an
   unbounded uniqueness proof on a sparse 10x10 board can take minutes). Removing
   half the cells minus one is the usual rule; here the difficulty sets how far:

   ==========  ==================================================================
   easy        stop at 45% givens; only removals that propagation alone still
               solves (budget 1 node: no guessing needed)
   medium      stop at 30% givens; budget 200 nodes
   hard        no stop: every removal uniqueness allows within 2000 nodes
               (near-minimal: 27-31% givens measured on 8x8 and 10x10, often
               just below medium, but a harder search; on small boards
               uniqueness itself stops medium and hard at the same share)
   ==========  ==================================================================

``first`` and ``last`` always stay given. ``last`` defaults to
``first + rows * cols - holes - 1``; giving ``last`` instead of ``holes`` makes
``rows * cols - (last - first + 1)`` holes.

Bounds: a rectangle of at most :data:`~.solver.MAX_CELLS` cells (20x20, the
solver's), ``first`` 1..:data:`~.board.MAX_FIRST`, a seed 0..2**63-1 (or None);
anything else is a :class:`~programs.common.params.ParameterError` (an
:class:`~fbd.errors.FbdError`) saying which parameter and its range.
"""

from __future__ import annotations

import math
import random
from collections import deque

from programs.common.params import ParameterError, check_count, check_seed

from .board import HOLE, MAX_FIRST, NEIGHBOURS, Board
from .solver import MAX_CELLS, solve_stats

__all__ = ["generate", "hamiltonian_path", "DIFFICULTIES"]

#: difficulty → (share of givens to stop at, solver nodes a removal may cost)
DIFFICULTIES = {"easy": (0.45, 1), "medium": (0.30, 200), "hard": (0.0, 2000)}
RESTARTS = 40       # Warnsdorff walks tried on one hole layout
HOLE_LAYOUTS = 10   # hole layouts tried before the fallback


def generate(rows: int, cols: int, first: int = 1, last: int | None = None, holes: int = 0,
             seed=None, difficulty: str = "medium") -> Board:
    """A random puzzle of ``rows`` x ``cols`` with a unique solution (see the module docstring)."""
    rows = check_count("rows", rows, 1, MAX_CELLS)
    cols = check_count("cols", cols, 1, MAX_CELLS)
    if rows * cols > MAX_CELLS:
        raise ParameterError(f"{rows}x{cols} is too large for the generator (at most "
                             f"{MAX_CELLS} cells: 20x20)")
    first = check_count("first", first, 1, MAX_FIRST)
    total = rows * cols
    holes = check_count("holes", holes, 0, total)
    seed = check_seed(seed)
    if difficulty not in DIFFICULTIES:
        raise ParameterError(f"unknown difficulty {difficulty!r} (one of: "
                             f"{', '.join(DIFFICULTIES)})")
    if last is not None:
        count = check_count("last", last, first + 1, first + total - 1) - first + 1
        if holes and total - holes != count:
            raise ParameterError(f"{first}..{last} needs {count} cells but {rows}x{cols} with "
                                 f"{holes} holes has {total - holes}")
        holes = total - count
    if total - holes < 2:
        raise ParameterError(f"{rows}x{cols} with {holes} holes leaves {total - holes} cells; "
                             f"a board needs 2 to {total}")
    rng = random.Random(seed)
    path = hamiltonian_path(rows, cols, holes, rng)
    grid = [[HOLE] * cols for _ in range(rows)]
    for k, (r, c) in enumerate(path):
        grid[r][c] = first + k
    return _dig(Board(grid, first), path, difficulty, rng)


def _dig(solution: Board, path, difficulty: str, rng: random.Random) -> Board:
    share, budget = DIFFICULTIES[difficulty]
    stop = max(2, math.ceil(share * len(path)))
    grid = solution.rows
    order = list(path[1:-1])
    rng.shuffle(order)
    givens = len(path)
    for r, c in order:
        if givens <= stop:
            break
        value, grid[r][c] = grid[r][c], 0
        _, stats = solve_stats(Board(grid, solution.first), limit=2, budget=budget)
        if stats.complete and stats.solutions == 1:
            givens -= 1
        else:
            grid[r][c] = value
    return Board(grid, solution.first)


# ---------------------------------------------------------------- paths
def hamiltonian_path(rows: int, cols: int, holes: int, rng: random.Random) -> list[tuple[int, int]]:
    """A random path through all cells of a ``rows`` x ``cols`` rectangle but ``holes`` of them,
    each step to one of the 8 neighbours."""
    everything = [(r, c) for r in range(rows) for c in range(cols)]
    for _ in range(HOLE_LAYOUTS):
        cells = set(everything)
        if holes:
            cells -= set(rng.sample(everything, holes))
            if not _connected(cells):
                continue
        for _ in range(RESTARTS):
            path = _warnsdorff(cells, rng)
            if path:
                return path
        if not holes:
            break
    path = _snake(rows, cols)
    for _ in range(10 * rows * cols):
        path = _backbite(path, rng)
    cut = rng.randint(0, holes)
    return path[cut:len(path) - (holes - cut)]


def _near(cell, cells):
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in NEIGHBOURS if (r + dr, c + dc) in cells]


def _connected(cells: set) -> bool:
    if not cells:
        return False
    start = next(iter(cells))
    seen = {start}
    todo = deque([start])
    while todo:
        for n in _near(todo.popleft(), cells):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def _warnsdorff(cells: set, rng: random.Random):
    free = set(cells)
    degree = {cell: len(_near(cell, cells)) for cell in cells}
    low = min(degree.values())
    cell = rng.choice(sorted(c for c in cells if degree[c] <= low + 1))
    path = [cell]
    free.discard(cell)
    while free:
        options = _near(cell, free)
        if not options:
            return None
        scored = [(len(_near(n, free)), rng.random(), n) for n in options]
        cell = min(scored)[2]
        path.append(cell)
        free.discard(cell)
    return path


def _snake(rows: int, cols: int):
    return [(r, c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]


def _backbite(path, rng: random.Random):
    """One backbite move: join an end to one of its other neighbours on the path, reverse the loop."""
    if rng.random() < 0.5:
        path = path[::-1]
    index = {cell: i for i, cell in enumerate(path)}
    end = path[-1]
    options = [index[n] for n in _near(end, index) if index[n] != len(path) - 2]
    if not options:
        return path
    i = rng.choice(options)
    return path[:i + 1] + path[i + 1:][::-1]
