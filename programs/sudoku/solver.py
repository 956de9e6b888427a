"""Sudoku and Jigsaw Sudoku as exact cover, solved with Dancing Links.

324 columns: cell (r, c) is filled; row r holds digit d; column c holds d;
group g holds d (the 3x3 box for classic, the region for jigsaw). 729 rows:
"digit d in cell (r, c)", each covering four columns. A puzzle with few givens
copies its layout's cached full matrix and selects the givens in it; one with
many (the generator's uniqueness checks) gets a matrix built from only what the
givens leave open, which is then cheaper (see :func:`_prepared`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from .dlx import DancingLinks

Grid = list[list[int]]

CLASSIC_REGIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple((r // 3) * 3 + c // 3 for c in range(9)) for r in range(9))


def region_key(regions) -> tuple[tuple[int, ...], ...]:
    """The region map as a hashable tuple of tuples (classic boxes for None)."""
    if regions is None:
        return CLASSIC_REGIONS
    key = tuple(tuple(int(v) for v in row) for row in regions)
    if len(key) != 9 or any(len(row) != 9 for row in key):
        raise ValueError("regions must be 9 rows of 9 region ids")
    counts = [0] * 9
    for row in key:
        for v in row:
            if not 0 <= v <= 8:
                raise ValueError(f"region id {v} outside 0..8")
            counts[v] += 1
    if counts != [9] * 9:
        raise ValueError(f"every region needs 9 cells (sizes {counts})")
    return key


@lru_cache(maxsize=64)
def _columns(key: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, int, int, int], ...]:
    """For each candidate ``cell * 9 + d`` (digit d + 1) its four columns."""
    out = []
    for r in range(9):
        for c in range(9):
            g = key[r][c]
            for d in range(9):
                out.append((r * 9 + c, 81 + r * 9 + d, 162 + c * 9 + d, 243 + g * 9 + d))
    return tuple(out)


def _check_grid(grid) -> list[int]:
    flat = [int(v) for row in grid for v in row]
    if len(grid) != 9 or any(len(row) != 9 for row in grid):
        raise ValueError("a grid is 9 rows of 9 values")
    if any(not 0 <= v <= 9 for v in flat):
        raise ValueError("grid values are 0 (empty) or 1..9")
    return flat


@lru_cache(maxsize=64)
def _template(key: tuple[tuple[int, ...], ...]) -> DancingLinks:
    """The full 729-row matrix of a layout, built once."""
    return DancingLinks(324, [list(four) for four in _columns(key)])


ALL_CANDIDATES = tuple(range(729))
TEMPLATE_MAX_GIVENS = 30


def _prepared(grid, regions, exclude: int = -1) -> tuple[DancingLinks, Sequence[int]] | None:
    """The exact-cover matrix left by the givens and the candidate id of each of its
    rows, or None if two givens clash.

    Built directly rather than by selecting givens in a full 729-row matrix: only
    the columns the givens leave open and the candidates that clash with no given
    go in, which makes a matrix for a puzzle with many givens (the generator's
    uniqueness checks) several times cheaper. With few givens (hard puzzles) it
    is cheaper still to copy the layout's full matrix and select the givens in it.
    ``exclude`` leaves one candidate (``cell * 9 + digit - 1``) out.
    """
    flat = _check_grid(grid)
    key = region_key(regions)
    if exclude < 0 and sum(1 for v in flat if v) <= TEMPLATE_MAX_GIVENS:
        dl = _template(key).copy()
        for cell, v in enumerate(flat):
            if v and not dl.select(cell * 9 + v - 1):
                return None
        return dl, ALL_CANDIDATES
    cols = _columns(key)
    used: set[int] = set()
    for cell, v in enumerate(flat):
        if v:
            four = cols[cell * 9 + v - 1]
            if not used.isdisjoint(four):
                return None
            used.update(four)
    index = {}
    for col in range(324):  # every open column, even one no candidate covers
        if col not in used:
            index[col] = len(index)
    rows = []
    ids = []
    for cell, v in enumerate(flat):
        if not v:
            for cand in range(cell * 9, cell * 9 + 9):
                four = cols[cand]
                if cand != exclude and used.isdisjoint(four):
                    rows.append([index[k] for k in four])
                    ids.append(cand)
    return DancingLinks(len(index), rows), ids


def _to_grid(grid, rows: list[int], ids: Sequence[int]) -> Grid:
    out = [[int(v) for v in row] for row in grid]
    for r in rows:
        cell, d = divmod(ids[r], 9)
        out[cell // 9][cell % 9] = d + 1
    return out


def solve(grid, regions=None, rng: random.Random | None = None,
          max_nodes: int | None = None) -> Grid | None:
    """One solution of ``grid`` (9x9, 0 = empty) as a new 9x9 list, or None.

    ``regions`` (9x9 region ids 0-8) replaces the 3x3 boxes for Jigsaw Sudoku.
    ``rng`` gives a random solution among several; ``max_nodes`` caps the search
    (None is returned when the cap is hit, as if there were no solution).
    """
    prepared = _prepared(grid, regions)
    if prepared is None:
        return None
    dl, ids = prepared
    if not ids:  # no candidate left: solved if no column is open either
        return _to_grid(grid, [], ids) if dl.n_columns == 0 else None
    found = dl.solve(limit=1, rng=rng, max_nodes=max_nodes)
    return _to_grid(grid, found[0], ids) if found else None


def count_solutions(grid, regions=None, limit: int = 2) -> int:
    """The number of solutions, counted up to ``limit`` (2: "is it unique?")."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    prepared = _prepared(grid, regions)
    if prepared is None:
        return 0
    dl, ids = prepared
    if not ids:
        return 1 if dl.n_columns == 0 else 0
    return len(dl.solve(limit=limit))


def has_other_solution(grid, regions, cell: int, digit: int) -> bool:
    """Whether ``grid`` has a solution with ``digit`` not in ``cell`` (0-80). The
    generator's uniqueness test: after emptying a cell of a puzzle whose solution
    is known, the puzzle stays unique iff no solution puts another digit there,
    and a search for one solution stops sooner than counting two."""
    prepared = _prepared(grid, regions, exclude=cell * 9 + digit - 1)
    if prepared is None:
        return False
    dl, ids = prepared
    return bool(ids) and bool(dl.solve(limit=1))


def is_valid_solution(grid, regions=None) -> bool:
    """Every row, column and region holds 1..9 exactly once."""
    key = region_key(regions)
    flat = _check_grid(grid)
    groups: dict[tuple[str, int], set[int]] = {}
    for i, v in enumerate(flat):
        r, c = divmod(i, 9)
        for g in (("r", r), ("c", c), ("g", key[r][c])):
            groups.setdefault(g, set()).add(v)
    return 0 not in flat and all(len(s) == 9 for s in groups.values())
