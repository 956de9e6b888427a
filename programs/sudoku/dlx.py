"""Dancing Links: Knuth's Algorithm X for exact cover, on flat integer arrays.

Generic: a matrix is ``n_columns`` primary columns and rows given as lists of
column indices; :meth:`DancingLinks.solve` finds rows that cover every column
exactly once. The links live in parallel Python lists (left, right, up, down,
column, row) rather than node objects: copying a built matrix is then a few
``list`` copies, which is how the Sudoku solver reuses one template per
constraint layout for puzzles with few givens instead of rebuilding 2,916 nodes.

The search always branches on the column with the fewest remaining rows
(Knuth's "S heuristic"), found with one built-in ``min`` over the sizes per
search node (covered columns carry a large offset, see :meth:`solve`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence


class DancingLinks:
    """An exact-cover matrix with Algorithm X search.

    Node 0 is the root; nodes ``1..n_columns`` are column headers (column ``k``
    has header ``k + 1``); row nodes follow.
    """

    __slots__ = ("L", "R", "U", "D", "C", "ROW", "S", "row_start", "n_columns", "nodes", "aborted")

    def __init__(self, n_columns: int, rows: Iterable[Sequence[int]]):
        n = n_columns + 1
        self.n_columns = n_columns
        L = [i - 1 for i in range(n)]
        R = [i + 1 for i in range(n)]
        L[0], R[n - 1] = n - 1, 0
        C = list(range(n))
        ROW = [-1] * n
        row_start: list[int] = []
        for r, cols in enumerate(rows):
            k = len(cols)
            if not k:
                raise ValueError(f"row {r} covers no column")
            if min(cols) < 0 or max(cols) >= n_columns:
                raise ValueError(f"row {r} names a column outside 0..{n_columns - 1}")
            f = len(C)
            row_start.append(f)
            C.extend([col + 1 for col in cols])
            ROW.extend([r] * k)
            L.append(f + k - 1)
            L.extend(range(f, f + k - 1))
            R.extend(range(f + 1, f + k))
            R.append(f)
        total = len(C)
        U = list(range(total))
        D = list(range(total))
        S = [0] * n
        below = list(range(n))  # the last node linked into each column so far
        for node in range(n, total):
            h = C[node]
            last = below[h]
            D[last] = node
            U[node] = last
            below[h] = node
            S[h] += 1
        for h in range(1, n):
            D[below[h]] = h
            U[h] = below[h]
        self.L, self.R, self.U, self.D, self.C, self.ROW, self.S = L, R, U, D, C, ROW, S
        self.row_start = row_start
        self.nodes = 0
        self.aborted = False

    def copy(self) -> DancingLinks:
        """A fresh matrix with the same links (cheap: seven list copies)."""
        new = DancingLinks.__new__(DancingLinks)
        for name in ("L", "R", "U", "D", "C", "ROW", "S"):
            setattr(new, name, list(getattr(self, name)))
        new.row_start = self.row_start
        new.n_columns = self.n_columns
        new.nodes = 0
        new.aborted = False
        return new

    # -------------------------------------------------------------- links
    def _cover(self, c: int) -> None:
        L, R, U, D, C, S = self.L, self.R, self.U, self.D, self.C, self.S
        R[L[c]] = R[c]
        L[R[c]] = L[c]
        i = D[c]
        while i != c:
            j = R[i]
            while j != i:
                D[U[j]] = D[j]
                U[D[j]] = U[j]
                S[C[j]] -= 1
                j = R[j]
            i = D[i]

    def _uncover(self, c: int) -> None:
        L, R, U, D, C, S = self.L, self.R, self.U, self.D, self.C, self.S
        i = U[c]
        while i != c:
            j = L[i]
            while j != i:
                S[C[j]] += 1
                D[U[j]] = j
                U[D[j]] = j
                j = L[j]
            i = U[i]
        R[L[c]] = c
        L[R[c]] = c

    def select(self, row: int) -> bool:
        """Force ``row`` into every solution (a Sudoku given). False if it clashes
        with a row selected before (one of its columns is already covered)."""
        L, R, C = self.L, self.R, self.C
        first = self.row_start[row]
        j = first
        while True:
            h = C[j]
            if R[L[h]] != h:  # header unlinked: column already covered
                return False
            j = R[j]
            if j == first:
                break
        j = first
        while True:
            self._cover(C[j])
            j = R[j]
            if j == first:
                break
        return True

    # -------------------------------------------------------------- search
    def solve(self, limit: int = 1, rng: random.Random | None = None,
              max_nodes: int | None = None) -> list[list[int]]:
        """Up to ``limit`` solutions, each a list of row indices.

        ``rng`` shuffles the order in which a column's rows are tried (for
        random solutions). ``max_nodes`` caps the search tree; when it is hit
        the search stops and :attr:`aborted` is set. :attr:`nodes` counts the
        tree nodes visited. The matrix is left as it was before the call.
        """
        L, R, U, D, C, S, ROW = self.L, self.R, self.U, self.D, self.C, self.S, self.ROW
        # A covered column's size is frozen while it is covered (its rows leave the
        # other columns, never its own list), so covering adds BIG to it and the
        # fewest-rows choice is one C-speed min() over the sizes; the root's size
        # is BIG for good, and min() == BIG means every column is covered.
        big = len(C) + 1
        S[0] = big
        c = R[0]
        covered = set(range(1, len(S)))
        while c != 0:
            covered.discard(c)
            c = R[c]
        for c in covered:  # already covered by select()
            S[c] += big
        found: list[list[int]] = []
        partial: list[int] = []
        cap = max_nodes if max_nodes is not None else -1
        self.nodes = 0
        self.aborted = False

        def cover(c: int) -> None:
            S[c] += big
            R[L[c]] = R[c]
            L[R[c]] = L[c]
            i = D[c]
            while i != c:
                j = R[i]
                while j != i:
                    u, d = U[j], D[j]
                    D[u] = d
                    U[d] = u
                    S[C[j]] -= 1
                    j = R[j]
                i = D[i]

        def uncover(c: int) -> None:
            i = U[c]
            while i != c:
                j = L[i]
                while j != i:
                    S[C[j]] += 1
                    D[U[j]] = j
                    U[D[j]] = j
                    j = L[j]
                i = U[i]
            R[L[c]] = c
            L[R[c]] = c
            S[c] -= big

        def search() -> bool:  # True: stop (enough solutions, or the cap)
            least = min(S)
            if least == big:
                found.append(list(partial))
                return len(found) >= limit
            self.nodes += 1
            if self.nodes == cap:
                self.aborted = True
                return True
            if least == 0:
                return False
            best = S.index(least)
            cover(best)
            r = D[best]
            candidates = []
            while r != best:
                candidates.append(r)
                r = D[r]
            if rng is not None and len(candidates) > 1:
                rng.shuffle(candidates)
            stop = False
            for r in candidates:
                partial.append(ROW[r])
                j = R[r]
                while j != r:
                    cover(C[j])
                    j = R[j]
                stop = search()
                j = L[r]
                while j != r:
                    uncover(C[j])
                    j = L[j]
                partial.pop()
                if stop:
                    break
            uncover(best)
            return stop

        try:
            search()
        finally:
            S[0] = 0
            for c in covered:
                S[c] -= big
        return found
