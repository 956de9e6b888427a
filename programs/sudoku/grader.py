"""Grade a Sudoku by the logical techniques a human needs to solve it.

The grader fills the grid with candidate bitmasks and applies, in rounds:

* level 1 -- **singles**: a naked single (a cell with one candidate left) and a
  hidden single (a digit with one place left in a row, column or region);
* level 2 -- also **naked pairs** (two cells of a group with the same two
  candidates: remove those digits from the rest of the group) and
  **intersections** (pointing / claiming: when a digit's places in one group all
  lie in its intersection with another group, remove the digit from the rest of
  that other group; for boxes or jigsaw regions against rows and columns).

Singles are always tried first; level-2 eliminations only when singles are stuck.

Difficulty of a puzzle with exactly one solution:

* ``easy``   -- singles alone solve it;
* ``medium`` -- singles are not enough, but level 2 solves it;
* ``hard``   -- level 2 gets stuck: it needs search (or techniques beyond these).

A puzzle the grader solves by logic alone has exactly one solution, so the
generator uses the grader itself as the uniqueness test for easy and medium.
"""

from __future__ import annotations

from functools import lru_cache

from .solver import region_key

ALL = 0x1FF
DIFFICULTIES = ("easy", "medium", "hard")


@lru_cache(maxsize=64)
def _geometry(key):
    groups = [tuple(r * 9 + c for c in range(9)) for r in range(9)]
    groups += [tuple(r * 9 + c for r in range(9)) for c in range(9)]
    for g in range(9):
        groups.append(tuple(i for i in range(81) if key[i // 9][i % 9] == g))
    peers = []
    for i in range(81):
        p = set()
        for grp in groups:
            if i in grp:
                p.update(grp)
        p.discard(i)
        peers.append(tuple(sorted(p)))
    # intersections of a region with a row or column, of two cells or more, as
    # (cells of one group outside the intersection, the intersection, cells of the
    # other group outside it): a digit whose places in the first group all lie in
    # the intersection leaves the rest of the second group
    inter = []
    for a in range(18, 27):
        for b in range(18):
            common = set(groups[a]) & set(groups[b])
            if len(common) >= 2:
                rest_a = tuple(i for i in groups[a] if i not in common)
                rest_b = tuple(i for i in groups[b] if i not in common)
                inter.append((rest_a, tuple(sorted(common)), rest_b))
                inter.append((rest_b, tuple(sorted(common)), rest_a))
    return tuple(groups), tuple(peers), tuple(inter)


class _Contradiction(Exception):
    pass


def logic_solve(grid, regions=None, level: int = 2) -> list[int] | None:
    """Solve by the techniques of ``level`` (1 or 2); the 81 values, or None if stuck
    (or if the givens contradict each other)."""
    groups, peers, inter = _geometry(region_key(regions))
    cand = [ALL] * 81
    vals = [0] * 81

    def place(i: int, d: int) -> None:
        bit = 1 << (d - 1)
        if not cand[i] & bit or vals[i]:
            raise _Contradiction
        vals[i] = d
        cand[i] = bit
        for p in peers[i]:
            if cand[p] & bit:
                cand[p] &= ~bit
                if not cand[p]:
                    raise _Contradiction

    try:
        for i, v in enumerate(v for row in grid for v in row):
            if v:
                place(i, int(v))
        while True:
            progress = False
            for i in range(81):  # naked singles
                if not vals[i]:
                    m = cand[i]
                    if m & (m - 1) == 0:
                        place(i, m.bit_length())
                        progress = True
            for grp in groups:  # hidden singles
                for d in range(9):
                    bit = 1 << d
                    where = -1
                    for i in grp:
                        if cand[i] & bit:
                            if vals[i]:
                                where = -2
                                break
                            if where >= 0:
                                where = -2
                                break
                            where = i
                    if where == -1:
                        raise _Contradiction
                    if where >= 0:
                        place(where, d + 1)
                        progress = True
            if progress:
                continue
            if 0 not in vals:
                return vals
            if level < 2:
                return None
            for grp in groups:  # naked pairs
                seen: dict[int, int] = {}
                for i in grp:
                    m = cand[i]
                    if not vals[i] and m.bit_count() == 2:
                        if m in seen:
                            for k in grp:
                                if k != i and k != seen[m] and cand[k] & m:
                                    cand[k] &= ~m
                                    progress = True
                                    if not cand[k]:
                                        raise _Contradiction
                        else:
                            seen[m] = i
            for outside, common, others in inter:  # pointing / claiming
                inside = 0
                for i in common:
                    if not vals[i]:
                        inside |= cand[i]
                for i in outside:
                    inside &= ~cand[i]
                if inside:
                    for k in others:
                        if cand[k] & inside:
                            cand[k] &= ~inside
                            progress = True
                            if not cand[k]:
                                raise _Contradiction
            if not progress:
                return None
    except _Contradiction:
        return None


def grade(grid, regions=None) -> str:
    """``easy``, ``medium`` or ``hard`` (see the module docstring). Meant for puzzles
    with exactly one solution; check that with :func:`count_solutions` first."""
    if logic_solve(grid, regions, level=1) is not None:
        return "easy"
    if logic_solve(grid, regions, level=2) is not None:
        return "medium"
    return "hard"
