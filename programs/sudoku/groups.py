"""The group map: which cells must hold 1..9 once each.

Classic Sudoku has 27 groups (9 rows, 9 columns, 9 3x3 boxes); Jigsaw Sudoku
has 9 rows, 9 columns and 9 irregular regions given as a 9x9 grid of region
ids 0..8, 9 cells each. The block program (:func:`programs.sudoku.build`)
takes the region map as a parameter and wires its *Groups* and *Peers*
macros from :func:`groups`; nothing else in it depends on the kind.
"""

from __future__ import annotations

SIZE = 9
CELLS = [(r, c) for r in range(SIZE) for c in range(SIZE)]


def check_regions(regions) -> list[list[int]] | None:
    """``regions`` as 9 lists of 9 ints (or None for classic boxes), or
    ValueError naming the problem: not 9x9, an id outside 0..8, a region that
    does not have exactly 9 cells."""
    if regions is None:
        return None
    try:
        rows = [list(row) for row in regions]
    except TypeError:
        raise ValueError(f"regions must be 9 rows of 9 region ids, not {regions!r}") from None
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError(f"regions must be 9 rows of 9 region ids; got {len(rows)} rows of "
                         f"{[len(row) for row in rows]}")
    sizes = [0] * SIZE
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if type(v) is not int or not 0 <= v < SIZE:
                raise ValueError(f"regions[{r}][{c}] = {v!r} is not a region id 0..8")
            sizes[v] += 1
    wrong = {k: n for k, n in enumerate(sizes) if n != SIZE}
    if wrong:
        raise ValueError(f"every region must have 9 cells; sizes {wrong}")
    return rows


def box_regions() -> list[list[int]]:
    """The classic map: region id of (r, c) is its 3x3 box, 3 * (r // 3) + c // 3."""
    return [[3 * (r // 3) + c // 3 for c in range(SIZE)] for r in range(SIZE)]


def groups(regions=None) -> list[list[tuple[int, int]]]:
    """The 27 groups: 9 rows, 9 columns, then 9 regions (3x3 boxes when
    ``regions`` is None), each a list of 9 (row, col)."""
    rows = check_regions(regions) or box_regions()
    out = [[(r, c) for c in range(SIZE)] for r in range(SIZE)]
    out += [[(r, c) for r in range(SIZE)] for c in range(SIZE)]
    out += [[(r, c) for r, c in CELLS if rows[r][c] == k] for k in range(SIZE)]
    return out


def peers(regions=None) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """For every cell, the other cells sharing a group with it (20 in classic,
    20..24 in jigsaw), in row-major order."""
    gs = groups(regions)
    out = {}
    for cell in CELLS:
        mates = {m for g in gs if cell in g for m in g}
        mates.discard(cell)
        out[cell] = sorted(mates)
    return out
