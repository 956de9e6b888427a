"""The control flow of a POU's native function (a mixin of
:class:`~.pou.PouLowering`): IF and the loops as branches between basic
blocks, CASE as a binary search of signed comparisons over its labels'
ranges (:meth:`PouControl.dispatch`), a loop's body counted by the watchdog
as the Python engine counts it.
"""

from __future__ import annotations

import ast

from ..st import ir
from .values import B, V, const


def case_segments(intervals: list, bodies: list, other: str, lo: int, hi: int) -> list:
    """The CASE's sorted ``(lo, hi, branch)`` intervals as ``(first value, label)``
    segments covering the selector's range ``lo..hi``, the values no label names
    going to ``other``, neighbours with one label merged."""
    segments, nxt = [], lo
    for first, last, k in intervals:
        if last < nxt or first > hi:
            continue
        if first > nxt:
            segments.append((nxt, other))
        segments.append((max(first, nxt), bodies[k]))
        nxt = last + 1
    if nxt <= hi:
        segments.append((nxt, other))
    merged = []
    for first, label in segments:
        if not merged or merged[-1][1] != label:
            merged.append((first, label))
    return merged


class PouControl:
    """The statements that branch, of :class:`~.pou.PouLowering` (a mixin: it
    builds the values and writes the basic blocks)."""

    def if_(self, s: ir.If) -> None:
        end = self.label("endif")
        for pre, cond, body in s.branches:
            self.statements(pre)
            yes, no = self.label("then"), self.label("else")
            self.branch(self.expr(cond), yes, no)
            self.start(yes)
            self.statements(body)
            self.jump(end)
            self.start(no)
        if s.else_body is not None:
            self.statements(s.else_body)
        self.start(end)

    def case(self, s: ir.Case) -> None:
        sel = self.to_int(self.expr(s.selector))
        if sel.w != 64 or sel.modular:
            self.fail("a CASE selector wider than 64 bits")
        end, other = self.label("endcase"), self.label("caseelse")
        bodies = [self.label("case") for _ in s.branches]
        self.dispatch(sel.ref, case_segments(ir.case_intervals(s.branches), bodies, other,
                                             sel.lo, sel.hi))
        for label, (_labels, body) in zip(bodies, s.branches):
            self.start(label)
            self.statements(body)
            self.jump(end)
        self.start(other)
        if s.else_body is not None:
            self.statements(s.else_body)
        self.start(end)

    def dispatch(self, sel: str, segments: list) -> None:
        """Branch to the label of the segment holding ``sel``, by halving the sorted
        ``(first value, label)`` segments with signed comparisons: not a ``switch``,
        which LLVM's fast instruction selector cannot take (it hands the whole basic
        block to the slow one), nor equality tests, which SimplifyCFG folds back into
        a ``switch``."""
        if len(segments) == 1:
            self.jump(segments[0][1])
            return
        mid = len(segments) // 2
        below, above = self.label("casebelow"), self.label("caseabove")
        self.branch(B(self.emit(f"icmp slt i64 {sel}, {segments[mid][0]}")), below, above)
        self.start(below)
        self.dispatch(sel, segments[:mid])
        self.start(above)
        self.dispatch(sel, segments[mid:])

    def watchdog(self, where: str) -> None:
        left = self.emit(f"load i64, ptr {self.wd}")
        left = self.emit(f"sub i64 {left}, 1")
        self.put(f"  store i64 {left}, ptr {self.wd}")
        out, ok = self.label("watchdog"), self.label("turn")
        self.branch(B(self.emit(f"icmp slt i64 {left}, 0")), out, ok)
        self.start(out)
        self.fault(self.module.site("watchdog", where))
        self.start(ok)

    def loop(self, cont: str, exit_: str, body: list, s) -> None:
        self.loops.append((cont, exit_))
        if isinstance(s, ir.For):
            self.ranges.enter(s)
        self.statements(body)
        if isinstance(s, ir.For):
            self.ranges.leave()
        self.loops.pop()

    def for_(self, s: ir.For) -> None:
        var = self.address(s.var)
        tp = s.var.type
        self.store(var, self.expr(s.start), tp)
        fixed = self.ranges.fixed_end(s)
        if fixed:                       # the same at every test: computed once
            self.statements(s.end_pre)
        first, nxt, step_in, body, exit_ = (self.label(x) for x in (
            "forfirst", "fornext", "forstep", "forbody", "forexit"))

        def bounds():
            if not fixed:
                self.statements(s.end_pre)
            self.statements(s.step_pre)
            return self.expr(s.end), (self.expr(s.step) if s.step is not None else const(1))

        self.start(first)
        end, step = bounds()
        self.branch(self.passed(self.load(var, tp), step, end), body, exit_)
        self.start(nxt)
        end, step = bounds()
        moved = self.binop(ast.Add(), self.load(var, tp), self.to_int(step), None)
        self.branch(self.passed(moved, step, end), step_in, exit_)
        self.start(step_in)
        c = tp.canonical
        if self.ranges.within_type(s.end, tp):     # moved <= end: within the type, no wrap
            moved = V("i", moved.ref, max(moved.lo, c.min), min(moved.hi, c.max), moved.w)
        self.store(var, self.wrap(moved, c.bits, c.signed), tp)
        self.start(body)
        self.watchdog(s.where)
        self.loop(nxt, exit_, s.body, s)
        self.jump(nxt)
        self.start(exit_)

    def passed(self, value: V, step: V, end: V) -> V:
        """Whether ``value`` has not passed ``end`` going by ``step``: the test that
        lets a FOR's body run."""
        up = self.cmp(ast.LtE, value, end)
        if step.k == "i" and not step.modular and (step.lo > 0 or step.hi < 0):
            return up if step.lo > 0 else self.cmp(ast.GtE, value, end)
        down = self.cmp(ast.GtE, value, end)
        positive = self.cmp(ast.Gt, step, const(0))
        return self.select(positive, up, down)

    def while_(self, s: ir.While) -> None:
        head, body, exit_ = self.label("while"), self.label("do"), self.label("wend")
        self.start(head)
        self.statements(s.pre)
        self.branch(self.expr(s.cond), body, exit_)
        self.start(body)
        self.watchdog(s.where)
        self.loop(head, exit_, s.body, s)
        self.jump(head)
        self.start(exit_)

    def repeat(self, s: ir.Repeat) -> None:
        body, test, exit_ = self.label("repeat"), self.label("until"), self.label("rend")
        self.start(body)
        self.watchdog(s.where)
        self.loop(test, exit_, s.body, s)
        self.start(test)
        self.statements(s.pre)
        self.branch(self.expr(s.cond), exit_, body)
        self.start(exit_)
