"""A POU's body (:mod:`.ir`) as Python: what the Python engine runs.

Two ways to reach the POU's variables, one statement writer:

* **over the signal table** (:class:`TableAccess`, the compiled scan): one
  function per POU instance, its variables read and written in the table at
  their slots (``s[412]``), so a scan touches only what it runs; a variable
  a loop reads is held in a local for the call and written back when it
  returns (a fault included); a function block instance held inside is a
  function of its own, called with the table; a FUNCTION, which has no
  instance, is its function by values (the next item);
* **by values** (:class:`ValueAccess`): one function per POU type that takes
  its inputs and state as arguments and hands back what it changed as a
  tuple, its variables Python locals (``v_COUNT``, ``v_T1__Q``). The block's
  ``code`` calls it, so every engine that runs block code over names (the
  interpreter, the batch engine's per-instance blocks, a debugger stepping
  into a block) runs a POU; its stepped variant (``stepped=True``, the
  debugger's line breakpoints: :mod:`.debugcode`) stops before each
  statement with ``yield LINE``.

The statements come out the same in both: IF/ELSIF as an ``if``/``elif``
chain, cut into groups at a flag where a condition needs statements first or
the chain grows long (so 200 ELSIFs nest no deeper than 2); CASE as a binary
decision tree over the labels' intervals (about log2(n) comparisons, never
n); FOR whose end and step do not change inside the loop as Python's
``for ... in range`` (the watchdog paid once ahead where the loop holds no
other loop); the wrap-around of an integer operator and an array's index
check left out where the operands' ranges (:mod:`.ranges`) prove they cannot
act.
"""

from __future__ import annotations

from .. import types as t
from ..block import code_lines, literal
from . import ir
from .model import global_local, local_name
from .ranges import Ranges
from .stmts import WATCHDOG_ITERATIONS

K = t.Kind
#: ELSIFs of one ``if``/``elif`` chain before a new group starts (CPython's compiler
#: recurses once per ``elif``)
ELIF_GROUP = 100
#: CASE intervals from which a decision tree replaces the ``if``/``elif`` chain
CASE_TREE = 4


class PyEmitter:
    """Writes one POU's :class:`~.ir.PouCode` with an ``access`` (see the module docstring)."""

    def __init__(self, code: ir.PouCode, access, stepped: bool = False, stops=None):
        self.code = code
        self.info = code.info
        self.access = access
        self.stepped = stepped
        self.stops = stops          # the debugger's stops (None: every statement)
        self.out: list[str] = []
        self._n = 0
        self.ranges = Ranges(code)
        self._previous = None       # the stepped variant's last stop in this list
        # per loop being written, what its EXIT does before ``break`` (a range loop
        # that took the watchdog's budget ahead gives back what it did not run)
        self.exits: list[str] = []
        access.bind(self)

    # -- scaffolding -------------------------------------------------------------
    def fresh(self, prefix: str = "_u") -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def line(self, depth: int, text: str) -> None:
        self.out.append("    " * depth + text)

    def function(self, name: str) -> str:
        """The whole function's source."""
        head, params = self.access.signature(name)
        self.out = []
        depth = 1
        for text in self.access.prologue():
            self.line(depth, text)
        if self.code.loops:
            self.line(depth, f"_wd = {WATCHDOG_ITERATIONS}")
        guarded = self.access.guard()
        if guarded:
            self.line(depth, "try:")
            depth += 1
        self.body(self.code.body, depth)
        self.line(depth, self.access.returning())
        if guarded:
            self.line(depth - 1, "finally:")
            for text in guarded:
                self.line(depth, text)
        return f"{head}({', '.join(params)}):\n" + "\n".join(self.out) + "\n"

    # -- statements --------------------------------------------------------------
    def body(self, stmts: list, depth: int) -> None:
        start = len(self.out)
        outer, self._previous = self._previous, None
        try:
            for s in stmts:
                self.stmt(s, depth)
        finally:
            self._previous = outer
        if len(self.out) == start:
            self.line(depth, "pass")

    def stmt(self, s, depth: int) -> None:
        kind = type(s)
        if kind is ir.Line:
            if self.stepped:
                self.stop(s.node, depth)
        elif kind is ir.Assign:
            self.line(depth, f"{self.place(s.target)} = {self.expr(s.value)}")
        elif kind is ir.SetTemp:
            self.line(depth, f"{s.temp.name} = {self.expr(s.value)}")
        elif kind is ir.Code:
            self.block_code(s, depth)
        elif kind is ir.Check:
            self.check(s, depth)
        elif kind is ir.Eval:
            self.line(depth, self.expr(s.value))
        elif kind is ir.If:
            self.if_(s, depth)
        elif kind is ir.Case:
            self.case(s, depth)
        elif kind is ir.For:
            self.for_(s, depth)
        elif kind is ir.While:
            self.while_(s, depth)
        elif kind is ir.Repeat:
            self.repeat(s, depth)
        elif kind is ir.Exit:
            if self.exits[-1]:
                self.line(depth, self.exits[-1])
            self.line(depth, "break")
        elif kind is ir.Continue:
            self.line(depth, "continue")
        elif kind is ir.Return:
            for text in self.access.on_return():
                self.line(depth, text)
            self.line(depth, self.access.returning())
        elif kind is ir.CallFb:
            if self.stepped:
                self.line(depth, f"_dbg_call = {s.var.path!r}")
            for text in self.access.call_fb(s):
                self.line(depth, text)
        elif kind is ir.CallFunction:
            self.line(depth, f"{s.name} = {self.fn_call(s.info, s.args)}")
        else:
            raise TypeError(f"no Python form for {s!r}")

    def stop(self, node, depth: int) -> None:
        """The stepped variant's ``yield LINE`` before a statement (one per line of
        a statement list, as gdb stops once per line)."""
        if self.stops is not None and id(node) not in self.stops:
            return
        from . import ast as A
        before, self._previous = self._previous, node
        same_line = before is not None and before.line == node.line and not isinstance(
            before, (A.If, A.Case, A.For, A.While, A.Repeat))
        if not same_line and not isinstance(node, A.Pragma):
            self.line(depth, f"yield {node.line}")

    def block_code(self, s: ir.Code, depth: int) -> None:
        block = s.block
        short = self.ranges.plain_arith(s)
        if short is not None:
            out, op, args = short
            text = f" {op} ".join(self.operand(a) for a in args) if len(args) == 2 \
                else f"-{self.operand(args[0])}"
            self.line(depth, f"{self.place(out)} = {text}")
            return
        names = {}
        inputs = {p.name for p in block.input_ports()}
        for port, e in s.names.items():
            names[port] = self.operand(e) if port in inputs else self.place(e)
        for text in code_lines(block, names, block.bound_types, self.fresh):
            self.line(depth, text)

    def check(self, s: ir.Check, depth: int) -> None:
        if self.ranges.within(s.value, s.lo, s.hi):
            self.ranges.alias(s.temp, s.value)
            self.line(depth, f"{s.temp.name} = {self.expr(s.value)}")
            return
        name = s.temp.name
        self.line(depth, f"{name} = {self.expr(s.value)}")
        self.line(depth, f"if not {s.lo} <= {name} <= {s.hi}: _st_bounds({name}, {s.lo}, "
                         f"{s.hi}, {s.where!r})")

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
        pre = branches[0][0]
        for st in pre:
            self.stmt(st, depth)
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
        intervals = case_intervals(s.branches)
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

    # -- loops ---------------------------------------------------------------------
    def watchdog(self, where: str, depth: int) -> None:
        self.line(depth, "_wd -= 1")
        self.line(depth, f"if _wd < 0: _st_watchdog({where!r})")

    def pre(self, stmts, depth) -> None:
        for st in stmts:
            self.stmt(st, depth)

    def loop_body(self, body, depth: int, on_exit: str = "") -> None:
        self.exits.append(on_exit)
        self.body(body, depth)
        self.exits.pop()

    def for_(self, s: ir.For, depth: int) -> None:
        var = self.place(s.var)
        self.line(depth, f"{var} = {self.expr(s.start)}")
        fast = self.ranges.range_loop(s)
        if fast is not None:
            return self.range_for(s, var, fast, depth)
        first = self.fresh("_f")
        self.line(depth, f"{first} = True")
        if s.end_pre or s.step_pre:
            self.line(depth, "while True:")
            self.pre(s.end_pre, depth + 1)
            self.pre(s.step_pre, depth + 1)
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
        if s.end_pre or s.step_pre:
            self.line(depth + 1, f"if not ({test}): break")
        else:
            self.line(depth, f"while {test}:")
        self.watchdog(s.where, depth + 1)
        self.line(depth + 1, f"if {first}: {first} = False")
        self.line(depth + 1, f"else: {var} = {vtp.wrap(f'{var} + {step or 1}')}")
        self.loop_body(s.body, depth + 1)

    def range_for(self, s: ir.For, var: str, fast, depth: int) -> None:
        """FOR as ``for ... in range``: its end and step are the same at every test
        (nothing in the loop writes what they read, see
        :meth:`.ranges.Ranges.range_loop`), and the variable stays within its type.
        A loop holding no other loop takes the watchdog's budget for all its
        iterations at once, and runs only those the budget allows before the
        watchdog stops it there, as the iteration by iteration count would."""
        innermost, step = fast
        self.pre(s.end_pre, depth)
        end = self.expr(s.end)
        stop = f"{end} + 1" if step > 0 else f"{end} - 1"
        bounds = f"{var}, {stop}" + (f", {step}" if step != 1 else "")
        loop_var = var if var.isidentifier() else self.fresh("_i")
        if not innermost:
            self.line(depth, f"for {loop_var} in range({bounds}):")
            if loop_var != var:
                self.line(depth + 1, f"{var} = {loop_var}")
            self.watchdog(s.where, depth + 1)
            self.loop_body(s.body, depth + 1)
            return
        values, count, first = self.fresh("_r"), self.fresh("_n"), self.fresh("_a")
        self.line(depth, f"{first} = {var}")
        self.line(depth, f"{values} = range({bounds})")
        self.line(depth, f"{count} = len({values})")
        self.line(depth, f"if {count} > _wd: {values} = {values}[:_wd]")
        self.line(depth, f"for {loop_var} in {values}:")
        if loop_var != var:
            self.line(depth + 1, f"{var} = {loop_var}")
        self.loop_body(s.body, depth + 1, f"_wd -= ({var} - {first}) // {step} + 1")
        self.line(depth, "else:")
        self.line(depth + 1, f"if {count} > _wd: _st_watchdog({s.where!r})")
        self.line(depth + 1, f"_wd -= {count}")

    def while_(self, s: ir.While, depth: int) -> None:
        if s.pre:
            self.line(depth, "while True:")
            self.pre(s.pre, depth + 1)
            self.line(depth + 1, f"if not {self.expr(s.cond)}: break")
        else:
            self.line(depth, f"while {self.expr(s.cond)}:")
        self.watchdog(s.where, depth + 1)
        self.loop_body(s.body, depth + 1)

    def repeat(self, s: ir.Repeat, depth: int) -> None:
        if not _continues(s.body):
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

    # -- expressions ---------------------------------------------------------------
    def operand(self, e) -> str:
        """An expression as a block's input (parenthesized unless a name)."""
        text = self.expr(e)
        return text if text.isidentifier() else f"({text})"

    def place(self, e) -> str:
        return self.expr(e)

    def expr(self, e) -> str:
        kind = type(e)
        if kind is ir.Ref:
            return self.access.var(e.var)
        if kind is ir.Temp:
            return self.ranges.aliased(e, self)
        if kind is ir.Const:
            return literal(e.value)
        if kind is ir.Elem:
            parts = []
            for term, lo, stride in e.terms:
                name = self.expr(term)
                scaled = f" * {stride}" if stride != 1 else ""
                if lo:
                    parts.append(f"({name} - {lo})" + scaled)
                else:
                    parts.append(name + scaled if not scaled or name.isidentifier()
                                 else f"({name}){scaled}")
            if e.constant or not parts:
                parts.append(str(e.constant))
            return f"{self.expr(e.base)}[{' + '.join(parts)}]"
        if kind is ir.Field:
            return f"{self.expr(e.base)}[{e.index}]"
        if kind is ir.Now:
            return "now"
        if kind is ir.Compare:
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if kind is ir.Logic:
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if kind is ir.Not:
            return f"(not {self.expr(e.a)})"
        if kind is ir.Bits:
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if kind is ir.Invert:
            return f"({self.expr(e.a)} ^ {e.mask})"
        if kind is ir.Neg:
            return f"-{self.operand(e.a)}"
        if kind is ir.Narrow:
            return str(e.type.canonical.wrap(self.expr(e.a)))
        if kind is ir.Copy:
            inner = self.expr(e.a)
            if e.length is not None:
                return f"{inner}[:{e.length}]"
            return f"_st_copy({inner})" if e.deep else f"list({inner})"
        if kind is ir.FnCall:
            return self.fn_call(e.info, e.args)
        if kind is ir.Item:
            return f"{e.call.name}[{e.k}]"
        raise TypeError(f"no Python form for {e!r}")

    def fn_call(self, info, args) -> str:
        self.access.needs(info)
        texts = [self.expr(a) for a in args]
        return f"{info.fn_name}(now, {', '.join(texts)})" if texts else f"{info.fn_name}(now)"


def case_intervals(branches) -> list:
    """The CASE's labels as sorted disjoint ``(lo, hi, branch)`` intervals: a value
    two branches name belongs to the first (the first that holds it runs);
    neighbours of one branch are merged."""
    taken: list = []            # sorted disjoint (lo, hi) already given to a branch
    out = []
    for k, (labels, _body) in enumerate(branches):
        for lo, hi in labels:
            if lo > hi:
                continue
            pieces = [(lo, hi)]
            for a, b in taken:
                nxt = []
                for x, y in pieces:
                    if y < a or x > b:
                        nxt.append((x, y))
                        continue
                    if x < a:
                        nxt.append((x, a - 1))
                    if y > b:
                        nxt.append((b + 1, y))
                pieces = nxt
            for x, y in pieces:
                out.append((x, y, k))
                taken.append((x, y))
            taken.sort()
    out.sort()
    merged = []
    for lo, hi, k in out:
        if merged and merged[-1][2] == k and merged[-1][1] + 1 == lo:
            merged[-1] = (merged[-1][0], hi, k)
        else:
            merged.append((lo, hi, k))
    return merged


def _has_gaps(intervals, else_body) -> bool:
    """Whether the ELSE would be written more than once in a tree over ``intervals``
    (it is at each gap between them)."""
    if not else_body:
        return False
    inner = sum(1 for (_a, b, _k), (c, _d, _j) in zip(intervals, intervals[1:]) if c > b + 1)
    return inner > 0


def _continues(stmts) -> bool:
    """Whether a CONTINUE of this loop (not of an inner one) is in ``stmts``."""
    for s in stmts:
        if isinstance(s, ir.Continue):
            return True
        if isinstance(s, (ir.If, ir.Case)):
            if any(_continues(lst) for lst in ir.children(s)):
                return True
    return False


# ------------------------------------------------------------------ by values
class ValueAccess:
    """The POU's variables as Python locals; the function takes and hands back
    values (see the module docstring). ``callees`` collects the POUs called."""

    def __init__(self, info):
        self.info = info
        self.callees: dict = {}

    def bind(self, emitter) -> None:
        self.emitter = emitter

    def var(self, v) -> str:
        return v.local

    def needs(self, info) -> None:
        self.callees[info.fn_name] = info

    def signature(self, name):
        info = self.info
        params = [v.local for v in info.inputs] + [v.local for v in info.in_outs]
        if info.kind != "FUNCTION":
            params += [global_local(g) for g in info.externals]
            params += [local_name(e.path) for e in info.state]
        return f"def {name}", ["now"] + params

    def prologue(self) -> list[str]:
        """What each call starts from: copies of array inputs (IEC passes them by
        value), edge inputs, and the variables a call does not keep."""
        info = self.info
        out = []
        for v in info.inputs:
            if v.type.canonical.mutable:
                out.append(f"{v.local} = {_copied(v.local, v.type)}")
            edge = getattr(v.node, "edge", None)
            if edge is not None:    # R_EDGE / F_EDGE: TRUE in the call that sees the edge
                last = local_name(f"{v.path}__{edge}")
                now_ = "_edge_" + v.local
                out.append(f"{now_} = {v.local}")
                out.append(f"{v.local} = {now_} and not {last}" if edge == "R_EDGE"
                           else f"{v.local} = {last} and not {now_}")
                out.append(f"{last} = {now_}")
        for v in fresh_variables(info):
            out.append(f"{v.local} = {fresh_value(v.init, v.type)}")
        if info.kind == "FUNCTION":
            out.append(f"{local_name(info.name)} = "
                       f"{fresh_value(info.result_type.default, info.result_type)}")
        return out

    def guard(self) -> list[str]:
        return []

    def on_return(self) -> list[str]:
        return []

    def returning(self) -> str:
        info = self.info
        if info.kind == "FUNCTION":
            values = [local_name(info.name)] + [v.local for v in info.outputs] + \
                     [v.local for v in info.in_outs]
            if len(values) == 1:
                return f"return {values[0]}"
        else:
            values = [v.local for v in info.kept_inputs] + [v.local for v in info.in_outs] + \
                     [global_local(g) for g in info.externals] + \
                     [local_name(e.path) for e in info.state]
        return f"return ({', '.join(values)},)" if values else "return ()"

    def call_fb(self, s: ir.CallFb) -> list[str]:
        callee, var = s.info, s.var
        self.needs(callee)
        emit = self.emitter
        inouts = [emit.expr(p) for p in s.inouts]

        def member(path):
            return local_name(f"{var.path}.{path}")
        params = [member(v.path) for v in callee.inputs] + inouts
        params += [global_local(g) for g in callee.externals]
        state = [member(e.path) for e in callee.state]
        kept = [member(v.path) for v in callee.kept_inputs]
        back = kept + inouts + [global_local(g) for g in callee.externals] + state
        call = f"{callee.fn_name}(now{''.join(', ' + p for p in params + state)})"
        return [f"{', '.join(back)}, = {call}" if back else call]


def fresh_variables(info) -> list:
    """The variables each call starts afresh: VAR_TEMP, and a FUNCTION's own."""
    return [v for v in info.variables.values() if v.fb is None and (
        v.section == "VAR_TEMP" or (info.kind == "FUNCTION" and v.section in ("VAR", "VAR_OUTPUT")))]


def fresh_value(value, tp) -> str:
    if value is None:
        value = tp.default
    if isinstance(value, list):
        return f"_st_copy({value!r})"
    return literal(value)


def _copied(code: str, tp) -> str:
    c = tp.canonical
    if c.kind is K.ARRAY and not c.element.mutable:
        return f"list({code})"
    return f"_st_copy({code})"


def value_function(code: ir.PouCode, name: str, stepped: bool = False, stops=None):
    """(source, callees) of the POU's function by values (see the module docstring)."""
    access = ValueAccess(code.info)
    source = PyEmitter(code, access, stepped, stops).function(name)
    return source, access.callees


__all__ = ["PyEmitter", "ValueAccess", "value_function", "case_intervals", "fresh_variables",
           "fresh_value"]
