"""Jigsaw region layouts and their four-colouring.

Layouts (better than growing regions by BFS with an unbounded "rebuild on
dead end"): start from the nine 3x3 boxes, which are a valid
partition, and apply random **boundary swaps** -- trade a cell of region A that
touches region B for a cell of B that touches A, keeping the swap only if both
regions stay connected. Every step keeps the invariant "9 connected regions of 9
cells", so no attempt can dead-end, and the walk has a fixed number of steps.

A partition is not yet a playable layout: some admit no filled grid at all. Each
candidate is therefore checked with the DLX solver (a random solution, search
capped at ``SOLVE_NODE_CAP`` nodes; a layout whose search hits the cap is
rejected as unproven: the search is heavy-tailed, so many cheap tries beat one long
one; about half of the partitions pass). At most ``MAX_ATTEMPTS`` candidates are
tried; if all are rejected (odds about 0.5**40) the fixed, tested ``FALLBACK`` layout is used.
So :func:`jigsaw_regions` always terminates, in bounded time.

Colouring: the regions form a planar map, so four colours always suffice
(Welch-Powell greedy colouring, used by the article, can need five). With nine
regions, exact backtracking (largest degree first) is instant and guarantees it.
"""

from __future__ import annotations

import random

from .solver import region_key, solve

SWAP_STEPS = 400
MAX_ATTEMPTS = 40
SOLVE_NODE_CAP = 1_000

FALLBACK: tuple[tuple[int, ...], ...] = tuple(tuple(int(ch) for ch in row) for row in (
    "000111222",
    "000011222",
    "003314252",
    "333114552",
    "333314555",
    "444444555",
    "677777778",
    "667768888",
    "666668888",
))


def _neighbours(i: int):
    r, c = divmod(i, 9)
    if r:
        yield i - 9
    if r < 8:
        yield i + 9
    if c:
        yield i - 1
    if c < 8:
        yield i + 1


def _connected(cells: set[int]) -> bool:
    if not cells:
        return False
    start = next(iter(cells))
    seen = {start}
    stack = [start]
    while stack:
        i = stack.pop()
        for n in _neighbours(i):
            if n in cells and n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(cells)


def is_valid_layout(regions) -> bool:
    """9 regions (ids 0-8) of 9 cells each, every region connected."""
    try:
        key = region_key(regions)
    except ValueError:
        return False
    flat = [v for row in key for v in row]
    return all(_connected({i for i, v in enumerate(flat) if v == g}) for g in range(9))


def _random_partition(rng: random.Random, steps: int = SWAP_STEPS) -> list[int]:
    flat = [(i // 27) * 3 + (i % 9) // 3 for i in range(81)]
    members = [{i for i in range(81) if flat[i] == g} for g in range(9)]
    for _ in range(steps):
        a = rng.randrange(81)
        ga = flat[a]
        others = [n for n in _neighbours(a) if flat[n] != ga]
        if not others:
            continue
        gb = flat[rng.choice(others)]
        # a cell of B that touches A, other than the ones next to a only
        choices = [b for b in members[gb] if b != a and any(flat[n] == ga for n in _neighbours(b))]
        if not choices:
            continue
        b = rng.choice(choices)
        members[ga].remove(a)
        members[gb].remove(b)
        members[ga].add(b)
        members[gb].add(a)
        if _connected(members[ga]) and _connected(members[gb]):
            flat[a], flat[b] = gb, ga
        else:  # undo
            members[ga].remove(b)
            members[gb].remove(a)
            members[ga].add(a)
            members[gb].add(b)
    # number regions in reading order of their first cell, for stable output
    order: dict[int, int] = {}
    for g in flat:
        order.setdefault(g, len(order))
    return [order[g] for g in flat]


def layout_with_solution(seed=None) -> tuple[list[list[int]], list[list[int]]]:
    """A checked layout and one random filled grid for it (the generator's start)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    empty = [[0] * 9 for _ in range(9)]
    for _ in range(MAX_ATTEMPTS):
        flat = _random_partition(rng)
        regions = [flat[r * 9:r * 9 + 9] for r in range(9)]
        solution = solve(empty, regions, rng=rng, max_nodes=SOLVE_NODE_CAP)
        if solution is not None:
            return regions, solution
    regions = [list(row) for row in FALLBACK]
    solution = solve(empty, regions, rng=rng)
    assert solution is not None, "the fallback layout has a solution (tested)"
    return regions, solution


def jigsaw_regions(seed=None) -> list[list[int]]:
    """A random Jigsaw layout: 9x9 region ids 0-8, nine connected regions of nine
    cells that admit at least one filled grid. Deterministic for a given seed."""
    return layout_with_solution(seed)[0]


def adjacency(regions) -> dict[int, set[int]]:
    """Region id -> the ids of the regions sharing an edge with it."""
    key = region_key(regions)
    adj: dict[int, set[int]] = {g: set() for g in range(9)}
    for r in range(9):
        for c in range(9):
            g = key[r][c]
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < 9 and cc < 9 and key[rr][cc] != g:
                    adj[g].add(key[rr][cc])
                    adj[key[rr][cc]].add(g)
    return adj


def four_colouring(regions) -> dict[int, int]:
    """{region id: colour 0-3}, no two adjacent regions alike (exact backtracking)."""
    adj = adjacency(regions)
    order = sorted(adj, key=lambda g: (-len(adj[g]), g))
    colour: dict[int, int] = {}

    def place(k: int) -> bool:
        if k == len(order):
            return True
        g = order[k]
        used = {colour[n] for n in adj[g] if n in colour}
        for col in range(4):
            if col not in used:
                colour[g] = col
                if place(k + 1):
                    return True
                del colour[g]
        return False

    if not place(0):  # impossible for a planar map; kept as a loud guard
        raise ValueError("regions could not be coloured with four colours")
    return dict(sorted(colour.items()))
