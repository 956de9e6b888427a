"""A POU's loops as Python (:class:`PyLoops`, a mixin of :class:`.pyemit.PyEmitter`):
FOR, WHILE and REPEAT with the watchdog's count and EXIT's way out; a FOR whose
end and step do not change inside it, and a WHILE that counts a variable to a
constant, as Python's ``for ... in range`` (the watchdog's budget taken once
ahead where the loop holds no other loop).
"""

from __future__ import annotations

from . import ir
from .ranges import continues


class PyLoops:
    """The loops of :class:`.pyemit.PyEmitter` (its ``ranges``, ``exits`` and
    statement writer)."""

    def watchdog(self, where: str, depth: int) -> None:
        self.line(depth, "_wd -= 1")
        self.line(depth, f"if _wd < 0: _st_watchdog({where!r})")

    def pre(self, stmts, depth) -> None:
        for st in stmts:
            self.stmt(st, depth)

    def loop_body(self, body, depth: int, on_exit: str = "", loop=None) -> None:
        self.exits.append(on_exit)
        if loop is not None:
            self.ranges.enter(loop)
        self.body(body, depth)
        if loop is not None:
            self.ranges.leave()
        self.exits.pop()

    def for_(self, s: ir.For, depth: int) -> None:
        var = self.place(s.var)
        self.line(depth, f"{var} = {self.expr(s.start)}")
        fixed = self.ranges.fixed_end(s)
        if fixed:           # the end is the same at every test: computed once
            self.pre(s.end_pre, depth)
            fast = self.ranges.range_loop(s)
            if fast is not None:
                return self.range_for(s, var, fast, depth)
        first = self.fresh("_f")
        self.line(depth, f"{first} = True")
        pre = s.step_pre + ([] if fixed else s.end_pre)
        if pre:
            self.line(depth, "while True:")
            self.pre(pre, depth + 1)
        end = self.expr(s.end)
        step = self.expr(s.step) if s.step is not None else None
        vtp = s.var.type.canonical
        if step is None:
            first_test, next_test = f"{var} <= {end}", f"{var} < {end}"
        elif isinstance(s.step, ir.Const):
            up = s.step.value > 0
            first_test = f"{var} {'<=' if up else '>='} {end}"
            next_test = f"{var} + {step} {'<=' if up else '>='} {end}"
        else:
            first_test = f"({var} <= {end} if {step} > 0 else {var} >= {end})"
            next_test = f"({var} + {step} <= {end} if {step} > 0 else {var} + {step} >= {end})"
        test = f"(({first_test}) if {first} else ({next_test}))"
        if pre:
            self.line(depth + 1, f"if not ({test}): break")
        else:
            self.line(depth, f"while {test}:")
        self.watchdog(s.where, depth + 1)
        self.line(depth + 1, f"if {first}: {first} = False")
        self.line(depth + 1, f"else: {var} = {vtp.wrap(f'{var} + {step or 1}')}")
        self.loop_body(s.body, depth + 1, loop=s)

    def range_for(self, s: ir.For, var: str, fast, depth: int) -> None:
        """FOR as ``for ... in range``: its end and step are the same at every test
        (nothing in the loop writes what they read, see
        :meth:`.ranges.Ranges.range_loop`), and the variable stays within its type.
        A loop holding no other loop takes the watchdog's budget for all its
        iterations at once, and runs only those the budget allows before the
        watchdog stops it there, as the iteration by iteration count would."""
        innermost, step = fast
        end = self.expr(s.end)
        stop = f"{end} + 1" if step > 0 else f"{end} - 1"
        bounds = f"{var}, {stop}" + (f", {step}" if step != 1 else "")
        loop_var = var if var.isidentifier() else self.fresh("_i")
        if not innermost:
            self.line(depth, f"for {loop_var} in range({bounds}):")
            if loop_var != var:
                self.line(depth + 1, f"{var} = {loop_var}")
            self.watchdog(s.where, depth + 1)
            self.loop_body(s.body, depth + 1, loop=s)
            return
        values, count, first = self.fresh("_r"), self.fresh("_n"), self.fresh("_a")
        self.line(depth, f"{first} = {var}")
        self.line(depth, f"{values} = range({bounds})")
        self.line(depth, f"{count} = len({values})")
        self.line(depth, f"if {count} > _wd: {values} = {values}[:_wd]")
        self.line(depth, f"for {loop_var} in {values}:")
        if loop_var != var:
            self.line(depth + 1, f"{var} = {loop_var}")
        self.loop_body(s.body, depth + 1, f"_wd -= ({var} - {first}) // {step} + 1", s)
        self.line(depth, "else:")
        self.line(depth + 1, f"if {count} > _wd: _st_watchdog({s.where!r})")
        self.line(depth + 1, f"_wd -= {count}")

    def while_(self, s: ir.While, depth: int) -> None:
        # the stepped variant keeps every statement, the step's line a stop too
        stmts, k = self._at
        before = stmts[:k] if k < len(stmts) and stmts[k] is s else []
        counted = None if self.stepped else self.ranges.counted_while(s, before)
        if counted is not None:
            return self.counted_while(s, counted, depth)
        if s.pre:
            self.line(depth, "while True:")
            self.pre(s.pre, depth + 1)
            self.line(depth + 1, f"if not {self.expr(s.cond)}: break")
        else:
            self.line(depth, f"while {self.expr(s.cond)}:")
        self.watchdog(s.where, depth + 1)
        self.loop_body(s.body, depth + 1)

    def counted_while(self, s: ir.While, counted, depth: int) -> None:
        """A WHILE counting ``var`` to a constant (:meth:`.ranges.Ranges.counted_while`)
        as ``for ... in range`` over the values its body sees, the step left out of
        the body: after the last run ``var`` is its value at entry plus a step per
        run, as the WHILE leaves it; EXIT leaves it where the body saw it. The
        watchdog counts as :meth:`range_for`'s, and where it stops the loop ``var``
        has taken the step of every run, as it has in the WHILE."""
        ref, stop, step, body, inside = counted
        var = self.place(ref)
        loop_var = var if var.isidentifier() else self.fresh("_i")
        first, values = self.fresh("_a"), self.fresh("_r")
        innermost = not any(isinstance(st, ir.Loop) for st in ir.walk(body))
        self.line(depth, f"{first} = {var}")
        self.line(depth, f"{values} = range({var}, {stop}" + (f", {step})" if step != 1 else ")"))
        if innermost:
            count = self.fresh("_n")
            self.line(depth, f"{count} = len({values})")
            self.line(depth, f"if {count} > _wd: {values} = {values}[:_wd]")
        self.line(depth, f"for {loop_var} in {values}:")
        if loop_var != var:
            self.line(depth + 1, f"{var} = {loop_var}")
        if not innermost:
            self.watchdog(s.where, depth + 1)
        self.exits.append(f"_wd -= ({var} - {first}) // {step} + 1" if innermost else "")
        self.ranges.hold(ref.var.path.upper(), inside)
        self.body(body, depth + 1)
        self.ranges.leave()
        self.exits.pop()
        self.line(depth, "else:")
        runs = {1: f" + len({values})", -1: f" - len({values})"}.get(step,
                                                                    f" + {step} * len({values})")
        self.line(depth + 1, f"{var} = {first}{runs}")
        if innermost:
            self.line(depth + 1, f"if {count} > _wd: _st_watchdog({s.where!r})")
            self.line(depth + 1, f"_wd -= {count}")

    def repeat(self, s: ir.Repeat, depth: int) -> None:
        if not continues(s.body):
            self.line(depth, "while True:")
            self.watchdog(s.where, depth + 1)
            self.loop_body(s.body, depth + 1)
            self.pre(s.pre, depth + 1)
            self.line(depth + 1, f"if {self.expr(s.cond)}: break")
            return
        # CONTINUE goes to the UNTIL test (matiec's too): the test is at the top of
        # the Python loop, skipped on the first pass, so `continue` reaches it
        first = self.fresh("_f")
        self.line(depth, f"{first} = True")
        if s.pre:     # the test needs statements (a block's code) before it
            self.line(depth, "while True:")
            self.line(depth + 1, f"if not {first}:")
            self.pre(s.pre, depth + 2)
            self.line(depth + 2, f"if {self.expr(s.cond)}: break")
        else:
            self.line(depth, f"while {first} or not {self.expr(s.cond)}:")
        self.line(depth + 1, f"{first} = False")
        self.watchdog(s.where, depth + 1)
        self.loop_body(s.body, depth + 1)
