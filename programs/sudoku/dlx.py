"""Dancing Links: Knuth's Algorithm X for exact cover, on flat integer arrays.

Generic: a matrix is ``n_columns`` primary columns and rows given as lists of
column indices; :meth:`DancingLinks.solve` finds rows that cover every column
exactly once. The links live in parallel Python lists (left, right, up, down,
column, row) rather than node objects: copying a built matrix is then a few
``list`` copies, which is how the Sudoku solver reuses one template per
constraint layout for puzzles with few givens instead of rebuilding 2,916 nodes.

The search always branches on the column with the fewest remaining rows
(Knuth's "S heuristic"). With every column size under 128 (Sudoku: at most 9)
the sizes are searched as a bytearray, ``find(0)``, ``find(1)``, ... (a few
memchr calls per node, about 4x cheaper than scanning 325 Python ints);
otherwise with one built-in ``min`` over the size list. Covered columns carry a
large offset either way, see :meth:`solve`. cover/uncover are inlined in the
search loop.
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
        # fewest-rows choice is a C-speed search over the sizes; the root's size
        # is BIG for good. R[0] == 0 means every column is covered.
        c = R[0]
        covered = set(range(1, len(S)))
        while c != 0:
            covered.discard(c)
            c = R[c]
        # Column sizes under 128 (Sudoku: at most 9) go in a bytearray copy with
        # big = 128, and the fewest-rows column is then found with a few C-speed
        # bytearray.find calls (find(0), find(1), ...: the first column of the
        # smallest size, as S.index(min(S)) would give) instead of scanning all.
        if max(S[1:], default=0) < 128:
            big = 128
            S = bytearray(S)
            find = S.find
        else:
            big = len(C) + 1
            find = None
        S[0] = big
        for c in covered:  # already covered by select()
            S[c] += big
        found: list[list[int]] = []
        partial: list[int] = []
        cap = max_nodes if max_nodes is not None else -1
        self.nodes = 0
        self.aborted = False

        stats = [0]  # tree nodes visited
        cap_hit = [False]
        shuffle = rng.shuffle if rng is not None else None

        # cover/uncover are inlined below (a call per column costs as much as
        # the link updates themselves); the arrays are closure-free locals.
        def search(S=S, L=L, R=R, U=U, D=D, C=C, ROW=ROW, big=big, partial=partial,
                   found=found, stats=stats, cap=cap, limit=limit, shuffle=shuffle,
                   find=find) -> bool:  # True: stop (enough solutions, or the cap)
            if R[0] == 0:  # every column covered
                found.append(list(partial))
                return len(found) >= limit
            n = stats[0] + 1
            stats[0] = n
            if n == cap:
                cap_hit[0] = True
                return True
            if find is not None:
                least = 0
                best = find(0)
                while best < 0:
                    least += 1
                    best = find(least)
            else:
                least = min(S)
                best = S.index(least)
            if least == 0:
                return False
            # cover(best)
            S[best] += big
            R[L[best]] = R[best]
            L[R[best]] = L[best]
            candidates = []
            i = D[best]
            while i != best:
                candidates.append(i)
                j = R[i]
                while j != i:
                    u = U[j]
                    d = D[j]
                    D[u] = d
                    U[d] = u
                    S[C[j]] -= 1
                    j = R[j]
                i = D[i]
            if shuffle is not None and len(candidates) > 1:
                shuffle(candidates)
            stop = False
            for r in candidates:
                partial.append(ROW[r])
                j = R[r]
                while j != r:  # cover(C[j])
                    c = C[j]
                    S[c] += big
                    R[L[c]] = R[c]
                    L[R[c]] = L[c]
                    i = D[c]
                    while i != c:
                        k = R[i]
                        while k != i:
                            u = U[k]
                            d = D[k]
                            D[u] = d
                            U[d] = u
                            S[C[k]] -= 1
                            k = R[k]
                        i = D[i]
                    j = R[j]
                stop = search()
                j = L[r]
                while j != r:  # uncover(C[j])
                    c = C[j]
                    i = U[c]
                    while i != c:
                        k = L[i]
                        while k != i:
                            S[C[k]] += 1
                            D[U[k]] = k
                            U[D[k]] = k
                            k = L[k]
                        i = U[i]
                    R[L[c]] = c
                    L[R[c]] = c
                    S[c] -= big
                    j = L[j]
                partial.pop()
                if stop:
                    break
            # uncover(best)
            i = U[best]
            while i != best:
                k = L[i]
                while k != i:
                    S[C[k]] += 1
                    D[U[k]] = k
                    U[D[k]] = k
                    k = L[k]
                i = U[i]
            R[L[best]] = best
            L[R[best]] = best
            S[best] -= big
            return stop

        try:
            search()
        finally:
            self.nodes = stats[0]
            self.aborted = cap_hit[0]
            if find is None:  # the list itself was used: undo the offsets
                S[0] = 0
                for c in covered:
                    S[c] -= big
        return found
