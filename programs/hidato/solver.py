"""Hidato solver: constraint propagation on bit-set domains, then a small search.

Walking from the first number over empty neighbours (plain backtracking)
explodes on 10x10 boards. Here every number ``n`` has a
*domain*: the set of cells that may still hold it, one Python int used as a bit
set over a padded grid (``index = row * (cols + 1) + col``; the spare column is
never a cell, so the 8 neighbours of a whole set are 8 shifts and one AND).
Propagation repeats to a fixed point:

* **Chain (distance) pruning.** ``D[n] &= N(D[n-1])`` forward and
  ``D[n] &= N(D[n+1])`` backward, with ``N`` the neighbours of a set. From a
  given, the forward pass grows by one step per number, so after both passes a
  cell may hold ``n`` only if it is within ``n - p`` king steps of the previous
  given ``p`` and ``q - n`` of the next given ``q``, *through cells that can still
  be on that stretch of the path* (the distance of the brief, computed through
  the board rather than as the crow flies, and tightened as the search goes).
* **All different.** A number with one cell left takes it: the cell leaves every
  other domain; two numbers pinned to one cell fail.
* **Dead ends and coverage.** A cell that no domain contains can never be
  filled: fail. A cell that only one number's domain contains must hold that
  number (a hidden single). Together with the chain passes this is the dead-end
  check: an empty cell whose neighbours cannot supply both a predecessor and a
  successor drops out of every domain, and then the board fails at once.
* **Connectivity.** Each stretch between two placed numbers must fit in one
  connected piece of the cells still open to it; the chain passes only keep
  cells reachable from both ends, and an open cell that no stretch can reach is
  caught by the coverage check.

Search branches on the number with the fewest candidate cells (the most
constrained end of the most constrained gap; ties go to the smaller gap), trying
each cell, and propagates again. Published 8x8 puzzles need no guess or a handful;
see ``python -m programs.hidato.bench``.

Bounds. The search is a loop over an explicit stack (a path of 400 guesses is
400 frames of a list, not of Python's call stack), the board's rectangle holds
at most :data:`MAX_CELLS` cells, holes included (20x20: a node then costs about
a millisecond), and a search may be given a budget of nodes and of seconds:
:func:`solve` and :func:`count_solutions` raise :class:`SolverGaveUp` when it
runs out, :func:`solve_stats` reports it (``complete`` False).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fbd.errors import FbdError

from .board import HOLE, Board, BoardError

__all__ = ["solve", "count_solutions", "solve_stats", "SolveStats", "SolverGaveUp", "MAX_CELLS"]

#: The most cells (holes included) of a board's rectangle the solver takes.
MAX_CELLS = 400


class _Fail(Exception):
    pass


class _OverBudget(Exception):
    pass


class SolverGaveUp(FbdError):
    """The search ran out of its budget (nodes or seconds) before it could answer."""

    def __init__(self, stats: SolveStats):
        self.stats = stats
        super().__init__(f"gave up after {stats.nodes:,} nodes ({stats.seconds:.1f} s): "
                         f"the search budget ran out before it found "
                         f"{'a solution' if not stats.solutions else 'every solution asked for'}")


@dataclass
class SolveStats:
    """What a search did: ``solutions`` found (up to the limit), ``nodes`` visited
    (1 = propagation alone solved it), ``guesses`` (branching choices tried), ``seconds``
    spent; ``complete`` is False when the search stopped at its budget of nodes or
    seconds (the counts are then lower bounds)."""

    solutions: int = 0
    nodes: int = 0
    guesses: int = 0
    complete: bool = True  #: False when the budget ran out first
    seconds: float = 0.0


class _Problem:
    def __init__(self, board: Board):
        rows, cols = board.shape
        if rows * cols > MAX_CELLS:
            raise BoardError(f"a {rows}x{cols} board is too large for the solver (at most "
                             f"{MAX_CELLS} cells, holes included: 20x20)")
        self.board = board
        self.rows, self.cols = rows, cols
        self.stride = stride = cols + 1
        self.mask = 0
        for r, row in enumerate(board.rows):
            for c, v in enumerate(row):
                if v != HOLE:
                    self.mask |= 1 << (r * stride + c)
        self.shifts = (1, stride - 1, stride, stride + 1)
        self.count = board.cells
        full = self.mask
        domains = [full] * self.count
        for v, (r, c) in board.givens().items():
            domains[v - board.first] = 1 << (r * stride + c)
        self.initial = domains

    def neighbours(self, m: int) -> int:
        a, b, c, d = self.shifts
        return ((m << a) | (m >> a) | (m << b) | (m >> b) | (m << c) | (m >> c)
                | (m << d) | (m >> d)) & self.mask

    def propagate(self, dom: list[int]) -> None:
        """Narrow ``dom`` in place to a fixed point; raise _Fail on a contradiction."""
        while True:
            self._local(dom)
            if not self._regions(dom):
                return

    def _regions(self, dom: list[int]) -> bool:
        """The connectivity check; True if it narrowed a domain.

        The open cells (no number pinned there) fall into connected regions. A
        gap (a run of unpinned numbers between two pinned ones) is a path, so it
        lies in one region: a gap whose cells span several regions leaves those
        too small for it; a region must be exactly filled by the gaps that can
        reach it, so fail when the gaps that must go there overflow it, or the
        gaps that may go there cannot fill it."""
        n = self.count
        fixed = 0
        for d in dom:
            if not d & (d - 1):
                fixed |= d
        free = self.mask & ~fixed
        if not free:
            return False
        nb = self.neighbours
        regions = []
        rest = free
        while rest:
            comp = rest & -rest
            while True:
                grown = (comp | nb(comp)) & free
                if grown == comp:
                    break
                comp = grown
            regions.append(comp)
            rest &= ~comp
        if len(regions) == 1:
            return False
        gaps = []  # (start, stop, union of domains)
        k = 0
        while k < n:
            if dom[k] & (dom[k] - 1):
                j = k
                union = 0
                while j < n and dom[j] & (dom[j] - 1):
                    union |= dom[j]
                    j += 1
                gaps.append((k, j, union))
                k = j
            else:
                k += 1
        changed = False
        sizes = [r.bit_count() for r in regions]
        must = [0] * len(regions)
        may = [0] * len(regions)
        for start, stop, union in gaps:
            length = stop - start
            fits = [i for i, r in enumerate(regions) if union & r and sizes[i] >= length]
            if not fits:
                raise _Fail
            allowed = 0
            for i in fits:
                allowed |= regions[i]
                may[i] += length
            if len(fits) == 1:
                must[fits[0]] += length
            if union & ~allowed:
                changed = True
                for m in range(start, stop):
                    d = dom[m] & allowed
                    if not d:
                        raise _Fail
                    dom[m] = d
        for i, size in enumerate(sizes):
            if must[i] > size or may[i] < size:
                raise _Fail
        return changed

    def _local(self, dom: list[int]) -> None:
        n = self.count
        nb = self.neighbours
        mask = self.mask
        while True:
            before = dom[:]
            # all different: numbers with a single cell take it
            fixed = 0
            for d in dom:
                if d & (d - 1) == 0:
                    if d == 0 or fixed & d:
                        raise _Fail
                    fixed |= d
            if fixed:
                for k in range(n):
                    d = dom[k]
                    if d & (d - 1):
                        d &= ~fixed
                        if not d:
                            raise _Fail
                        dom[k] = d
            # chain pruning, forward then backward
            prev = dom[0]
            for k in range(1, n):
                d = dom[k] & nb(prev)
                if not d:
                    raise _Fail
                dom[k] = prev = d
            nxt = dom[n - 1]
            for k in range(n - 2, -1, -1):
                d = dom[k] & nb(nxt)
                if not d:
                    raise _Fail
                dom[k] = nxt = d
            # coverage: every cell in some domain; cells in exactly one are hidden singles
            once = twice = 0
            for d in dom:
                twice |= once & d
                once |= d
            if once != mask:
                raise _Fail
            single = once & ~twice
            if single:
                for k in range(n):
                    d = dom[k]
                    s = d & single
                    if s:
                        if s & (s - 1):
                            raise _Fail  # one number needed in two cells
                        dom[k] = s
            if dom == before:
                break
        self._dead_ends(dom)

    def _dead_ends(self, dom: list[int]) -> None:
        """Every open cell holds a number between two others, so it needs two neighbours that
        are open or hold a number with an open successor or predecessor; fail otherwise."""
        n = self.count
        fixed = ports = 0
        single = [not d & (d - 1) for d in dom]
        for k, d in enumerate(dom):
            if single[k]:
                fixed |= d
                if (k > 0 and not single[k - 1]) or (k < n - 1 and not single[k + 1]):
                    ports |= d
        free = self.mask & ~fixed
        if not free:
            return
        ok = free | ports
        once = twice = 0
        for sh in self.shifts:
            for m in (ok << sh, ok >> sh):
                twice |= once & m
                once |= m
        if free & ~twice:
            raise _Fail

    def search(self, limit: int, stats: SolveStats, found: list, budget: int | None,
               deadline: float | None, progress=None) -> None:
        """Depth first from the initial domains, an explicit stack of (domains, the number
        branched on, its cells still to try); raises _OverBudget at the budget."""
        clock = time.perf_counter
        report = clock() + 1.0 if progress is not None else None

        def enter(dom: list[int]):
            """Count a node, propagate; a frame to branch from, or None (failed or solved)."""
            nonlocal report
            stats.nodes += 1
            if budget is not None and stats.nodes > budget:
                raise _OverBudget
            if deadline is not None or report is not None:
                now = clock()
                if deadline is not None and now > deadline:
                    raise _OverBudget
                if report is not None and now > report:
                    progress(stats)
                    report = now + 1.0
            try:
                self.propagate(dom)
            except _Fail:
                return None
            best = self._branch(dom)
            if best < 0:
                stats.solutions += 1
                if not found:
                    found.append(dom[:])
                return None
            return (dom, best, self._order(dom, best))

        stack = []
        frame = enter(self.initial[:])
        if frame is not None:
            stack.append(frame)
        while stack:
            dom, best, bits = stack[-1]
            if not bits or stats.solutions >= limit:
                stack.pop()
                continue
            stats.guesses += 1
            child = dom[:]
            child[best] = bits.pop()
            frame = enter(child)
            if frame is not None:
                stack.append(frame)

    def _branch(self, dom: list[int]) -> int:
        """The number to branch on: the fewest cells among the open ends of gaps; -1 if none."""
        best, best_size = -1, 1 << 30
        last = self.count - 1
        for k, d in enumerate(dom):
            if d & (d - 1) and ((k > 0 and not dom[k - 1] & (dom[k - 1] - 1))
                                or (k < last and not dom[k + 1] & (dom[k + 1] - 1))):
                size = d.bit_count()
                if size < best_size:
                    best, best_size = k, size
                    if size == 2:
                        break
        return best

    def _order(self, dom: list[int], best: int) -> list[int]:
        """The cells of ``best`` to try, the last to try first (a stack): the cells with
        the fewest open neighbours first (Warnsdorff: hug the walls)."""
        open_cells = self.mask
        for e in dom:
            if not e & (e - 1):
                open_cells &= ~e
        d = dom[best]
        bits = []
        while d:
            bit = d & -d
            d ^= bit
            bits.append((self._count_near(bit, open_cells), bit))
        bits.sort(reverse=True)
        return [bit for _, bit in bits]

    def _count_near(self, bit: int, cells: int) -> int:
        return (self.neighbours(bit) & cells).bit_count()

    def to_board(self, dom: list[int]) -> Board:
        rows = self.board.rows
        for k, d in enumerate(dom):
            i = d.bit_length() - 1
            rows[i // self.stride][i % self.stride] = self.board.first + k
        return Board(rows, self.board.first)


def solve_stats(board: Board, limit: int = 1, budget: int | None = None, *,
                seconds: float | None = None, progress=None) -> tuple[Board | None, SolveStats]:
    """Search for up to ``limit`` solutions visiting at most ``budget`` nodes and
    spending at most ``seconds`` (None: no bound); the first solution found (or None)
    and the stats (``complete`` False if a bound stopped it). ``progress(stats)`` is
    called about once a second of search."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if budget is not None and budget < 1:
        raise ValueError(f"the node budget must be at least 1, got {budget}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"the time budget must be positive, got {seconds}")
    problem = _Problem(board)
    stats = SolveStats()
    found: list = []
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    try:
        problem.search(limit, stats, found, budget, deadline, progress)
    except _OverBudget:
        stats.complete = False
        stats.nodes -= 1
    stats.seconds = time.perf_counter() - start
    return (problem.to_board(found[0]) if found else None), stats


def solve(board: Board, *, max_nodes: int | None = None,
          max_seconds: float | None = None, progress=None) -> Board | None:
    """A solution of ``board`` (every given kept), or None when it has none; raises
    :class:`SolverGaveUp` when the budget (nodes, seconds; None: none) runs out first."""
    if board.is_full():
        return board if board.is_solution() else None
    solution, stats = solve_stats(board, 1, max_nodes, seconds=max_seconds, progress=progress)
    if not stats.complete:
        raise SolverGaveUp(stats)
    return solution


def count_solutions(board: Board, limit: int = 2, *, max_nodes: int | None = None,
                    max_seconds: float | None = None, progress=None) -> int:
    """How many solutions ``board`` has, counting no further than ``limit``.

    ``count_solutions(board) == 1`` decides that a puzzle is unique. Raises
    :class:`SolverGaveUp` when the budget runs out before the count is known.
    """
    _, stats = solve_stats(board, limit, max_nodes, seconds=max_seconds, progress=progress)
    if not stats.complete:
        raise SolverGaveUp(stats)
    return stats.solutions
