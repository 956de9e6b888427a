"""A POU's choices as Python (:class:`PyBranches`, a mixin of
:class:`.pyemit.PyEmitter`): IF/ELSIF as an ``if``/``elif`` chain, cut into
groups at a flag where a condition needs statements first or the chain grows
long (so 200 ELSIFs nest no deeper than 2); CASE as a binary decision tree over
the labels' intervals (about log2(n) comparisons, never n).
"""

from __future__ import annotations

from . import ir

#: ELSIFs of one ``if``/``elif`` chain before a new group starts (CPython's compiler
#: recurses once per ``elif``)
ELIF_GROUP = 100
#: CASE intervals from which a decision tree replaces the ``if``/``elif`` chain
CASE_TREE = 4


class PyBranches:
    """IF and CASE of :class:`.pyemit.PyEmitter` (its statement writer)."""

    # -- IF ------------------------------------------------------------------------
    def if_(self, s: ir.If, depth: int) -> None:
        groups = []
        for k, branch in enumerate(s.branches):
            if not groups or (k and branch[0]) or len(groups[-1]) >= ELIF_GROUP:
                groups.append([])
            groups[-1].append(branch)
        if len(groups) == 1:
            self.chain(groups[0], s.else_body, depth, None)
            return
        flag = self.fresh("_m")           # no branch has matched yet
        self.line(depth, f"{flag} = True")
        for k, group in enumerate(groups):
            inner = depth
            if k:
                self.line(depth, f"if {flag}:")
                inner += 1
            self.chain(group, None, inner, flag)
        if s.else_body is not None:
            self.line(depth, f"if {flag}:")
            self.body(s.else_body, depth + 1)

    def chain(self, branches, else_body, depth: int, flag) -> None:
        """One ``if``/``elif`` chain; ``flag`` (if any) is cleared by the branch taken."""
        self.sequence(branches[0][0], depth, then=branches[0])
        word = "if"
        for _pre, cond, body in branches:
            self.line(depth, f"{word} {self.expr(cond)}:")
            if flag is not None:
                self.line(depth + 1, f"{flag} = False")
            self.body(body, depth + 1)
            word = "elif"
        if else_body is not None:
            self.line(depth, "else:")
            self.body(else_body, depth + 1)

    # -- CASE ----------------------------------------------------------------------
    def case(self, s: ir.Case, depth: int) -> None:
        sel = self.expr(s.selector)
        if not (sel.isidentifier() or sel.lstrip("-").isdigit()):
            name = self.fresh("_s")
            self.line(depth, f"{name} = {sel}")
            sel = name
        intervals = ir.case_intervals(s.branches)
        if not s.branches:
            if s.else_body is not None:
                self.body(s.else_body, depth)
            return
        if len(intervals) < CASE_TREE:
            word = "if"
            for k, (_labels, body) in enumerate(s.branches):
                tests = [f"{sel} == {lo}" if lo == hi else f"{lo} <= {sel} <= {hi}"
                         for lo, hi, b in intervals if b == k]
                if not tests:
                    continue        # every label of the branch is an earlier branch's
                self.line(depth, f"{word} {' or '.join(tests)}:")
                self.body(body, depth + 1)
                word = "elif"
            if s.else_body is not None:
                if word == "if":
                    self.body(s.else_body, depth)
                    return
                self.line(depth, "else:")
                self.body(s.else_body, depth + 1)
            return
        once = len({b for _lo, _hi, b in intervals}) == len(intervals)
        inner_gaps = any(c > b + 1 for (_a, b, _k), (c, _d, _j) in zip(intervals, intervals[1:]))
        if once and not (inner_gaps and s.else_body):
            bodies = [body for _labels, body in s.branches]
            first, last = intervals[0][0], intervals[-1][1]
            if s.else_body:     # outside the labels: the ELSE, written once
                self.line(depth, f"if {sel} < {first} or {sel} > {last}:")
                self.body(s.else_body, depth + 1)
                self.line(depth, "else:")
                self.tree(sel, intervals, lambda k, at: self.body(bodies[k], at), depth + 1,
                          first, last)
            else:
                self.tree(sel, intervals, lambda k, at: self.body(bodies[k], at), depth,
                          None, None)
            return
        # a branch with several labels, or an ELSE for the gaps between them: the
        # branch's number first, then a tree over the numbers (each body written once)
        k = self.fresh("_k")
        nb = len(s.branches)
        self.line(depth, f"{k} = {nb}")
        self.tree(sel, intervals, lambda b, at: self.line(at, f"{k} = {b}"), depth, None, None)
        bodies = [body for _labels, body in s.branches] + [s.else_body or []]
        self.tree(k, [(b, b, b) for b in range(nb + 1)], lambda b, at: self.body(bodies[b], at),
                  depth, 0, nb)

    def tree(self, sel: str, intervals, leaf, depth: int, lo, hi) -> None:
        """A binary decision tree over sorted disjoint ``(lo, hi, branch)``
        intervals, ``leaf(branch, depth)`` writing what a branch does; the selector
        is known to be within ``lo..hi`` (None: unbounded); a value in no interval
        does nothing."""
        if len(intervals) == 1:
            a, b, branch = intervals[0]
            tests = []
            if lo is None or lo < a:
                tests.append(f"{a} <= {sel}")
            if hi is None or hi > b:
                tests.append(f"{sel} <= {b}")
            if not tests:
                leaf(branch, depth)
                return
            self.line(depth, f"if {' and '.join(tests)}:")
            leaf(branch, depth + 1)
            return
        mid = len(intervals) // 2
        split = intervals[mid][0]
        self.line(depth, f"if {sel} < {split}:")
        self.tree(sel, intervals[:mid], leaf, depth + 1, lo, split - 1)
        self.line(depth, "else:")
        self.tree(sel, intervals[mid:], leaf, depth + 1, split, hi)
