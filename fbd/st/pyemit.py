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
other loop), and so a WHILE that counts a variable to a constant; the
wrap-around of an integer operator and an array's index
check left out where the operands' ranges (:mod:`.ranges`) prove they cannot
act; a temporary read once, by a statement just after it, written as its
expression inside that statement (:mod:`.pyfold`; what the body's
temporaries are is found in one walk, :mod:`.census`).

This module writes the function's frame, a long body's parts and the plain
statements; IF and CASE are :mod:`.pybranch`'s, the loops :mod:`.pyloops`'s,
the expressions :mod:`.pyexpr`'s (mixins of :class:`PyEmitter`).
"""

from __future__ import annotations

from ..block import code_lines
from . import ir
from .census import census, inputs_of
from .pybranch import CASE_TREE, ELIF_GROUP, PyBranches
from .pyexpr import PyExpressions, grouped_text, is_slot, one_sided_wrap
from .pyfold import fold_into
from .pyloops import PyLoops
from .ranges import Ranges
from .stmts import WATCHDOG_ITERATIONS

#: ST statements of a long body per Python function (see :meth:`PyEmitter.parts`); the
#: native engine's parts too. CPython's compile of a function costs more than linearly
#: in its length: 100,000 statements compile in 6.3 s of CPU as parts of 500, 7.5 s
#: as parts of 2,000, and the syntax tree of one 2,000-statement part is 60 MB
PART_STATEMENTS = 500


class PyEmitter(PyBranches, PyLoops, PyExpressions):
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
        self.aliases: dict = {}     # temporary -> the expression it would only copy
        self.returning_part = None  # what a RETURN says inside a part of a long body
        # a temporary the next statement alone reads is written into it (see fold_into)
        self.folded: dict = {}      # temporary -> the expression its use is written as
        self._fold = None           # the temporary the statement being written may fold
        self._last_folded = None
        self._consumed: list = []   # the folded expressions written since it was emptied
        self.census = census(code)
        self._at = ([], 0)          # the list of the statement being written, its index
        access.bind(self)

    # -- scaffolding -------------------------------------------------------------
    def fresh(self, prefix: str = "_u") -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def line(self, depth: int, text: str) -> None:
        self.out.append("    " * depth + text)

    def function(self, name: str) -> str:
        """The whole function's source."""
        return "".join(self.functions(name))

    def functions(self, name: str, sink=None) -> list[str]:
        """The source of the function, in pieces: a long body's parts (see
        :meth:`parts`), each a function of its own, then the function. With a
        ``sink``, each part is given to it as soon as it is written (to be
        compiled while the next is written), and only the function returned."""
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
        pieces = self._pieces()
        if len(pieces) > 1:
            parts = self.parts(name, params, pieces, depth, sink)
        else:
            parts = []
            self.body(self.code.body, depth)
        self.line(depth, self.access.returning())
        if guarded:
            self.line(depth - 1, "finally:")
            for text in guarded:
                self.line(depth, text)
        return [*parts, f"{head}({', '.join(params)}):\n" + "\n".join(self.out) + "\n"]

    def _pieces(self) -> list[list]:
        """The body cut before every :data:`PART_STATEMENTS`-th ST statement, where
        the access lets functions of their own share the variables (the table's);
        the whole body in one piece otherwise."""
        body = self.code.body
        if (len(body) <= PART_STATEMENTS or self.code.loops or self.stepped
                or not self.access.splittable()):
            return [body]
        return ir.pieces(body, PART_STATEMENTS)

    def parts(self, name: str, params: list, pieces: list[list], depth: int,
              sink=None) -> list[str]:
        """A long body as functions of :data:`PART_STATEMENTS` ST statements each,
        called in turn: CPython compiles one function of 100,000 statements (and
        its tens of thousands of temporaries) in more than linear time and
        memory. A part reads its arguments as the call left them (the inputs it
        cannot write) and the table for the rest; a RETURN ends the part with
        True, on which the call returns too. A body with a loop stays whole: the
        variables its loops use are held in the call's locals, and so is the
        watchdog's budget."""
        sources, outer = [], self.out
        give = sink or sources.append
        self.returning_part = "return True"
        try:
            for k, piece in enumerate(pieces):
                self.out = []
                self.body(piece, 1)
                part = f"{name}_part{k}"
                give(f"def {part}({', '.join(params)}):\n" + "\n".join(self.out) + "\n")
                # a temporary is a local of its part: what is known of those of the
                # parts written is not needed again (2 MB a part of 2,000 statements)
                self.ranges.temps.clear()
                self.aliases.clear()
                call = f"{part}({', '.join(params)})"
                if self.census.returns and any(type(s) is ir.Return for s in ir.walk(piece)):
                    call = f"if {call}: {self.access.returning()}"
                outer.append("    " * depth + call)
        finally:
            self.out, self.returning_part = outer, None
        return sources

    # -- statements --------------------------------------------------------------
    def body(self, stmts: list, depth: int) -> None:
        start = len(self.out)
        outer, self._previous = self._previous, None
        try:
            self.sequence(stmts, depth)
        finally:
            self._previous = outer
        if len(self.out) == start:
            self.line(depth, "pass")

    def sequence(self, stmts: list, depth: int, then=None) -> None:
        """``stmts`` in order, a temporary folded into its reader where it may be
        (:func:`.pyfold.fold_into`); ``then`` is what runs right after them (the IF
        branch whose condition they compute)."""
        ahead = stmts if then is None else stmts + [then]
        try:
            for k, s in enumerate(stmts):
                self._fold = fold_into(self.census, self.ranges, ahead, k)
                self._at = (stmts, k)
                self.stmt(s, depth)
        finally:
            self._fold = None

    def stmt(self, s, depth: int) -> None:
        kind = type(s)
        if kind is ir.Line:
            if self.stepped:
                self.stop(s.node, depth)
        elif kind is ir.Assign:
            self.line(depth, f"{self.place(s.target)} = {self.expr(s.value)}")
        elif kind is ir.SetTemp:
            self.ranges.assigned(s.temp, s.value)
            if s.temp.name == self._fold:
                self.folded[s.temp.name] = self.grouped(self.expr(s.value))
            else:
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
            self.line(depth, self.returning_part or self.access.returning())
        elif kind is ir.CallFb:
            if self.stepped:
                self.line(depth, f"_dbg_call = {s.var.path!r}")
            for text in self.access.call_fb(s, self):
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
            out, op, args, r = short
            tp = block.bound_types["T"].canonical
            cut = not tp.min <= r[0] <= r[1] <= tp.max
            if not cut or one_sided_wrap(tp, "", r) is not None:    # else the library's code
                text = f" {op} ".join(self.operand(a) for a in args) if len(args) == 2 \
                    else f"-{self.operand(args[0])}"
                if cut:
                    text = one_sided_wrap(tp, text, r)
                if out.name == self._fold:
                    self.folded[out.name] = text if cut else f"({text})"
                else:
                    self.line(depth, f"{self.place(out)} = {text}")
                return
        names = {}
        inputs = inputs_of(block)
        self._consumed = []
        for port, e in s.names.items():
            names[port] = self.operand(e) if port in inputs else self.place(e)
        lines = self.mod_by_constant(s, names) or code_lines(block, names, block.bound_types,
                                                              self.fresh)
        bounded = self.ranges.code_range(s)
        if bounded is not None:
            self.ranges.assigned(*bounded)
        for text in self._consumed:     # the code reads that input twice: computed once ahead
            if text[0] == "(" and sum(ln.count(text) for ln in lines) != 1:
                temp = self.fresh("_v")
                self.line(depth, f"{temp} = {text}")
                lines = [ln.replace(text, temp) for ln in lines]
        if self._fold is not None and len(lines) == 1:
            out = f"{self._fold} = "
            value = lines[0][len(out):]
            if (lines[0].startswith(out) and self._fold not in value
                    and ";" not in value and "#" not in value):     # one expression
                self.folded[self._fold] = grouped_text(value)
                return
        for text in lines:
            self.line(depth, text)

    def mod_by_constant(self, s: ir.Code, names: dict):
        """MOD of a signed integer by a positive constant as one expression: C's
        remainder (the dividend's sign) without the library code's two ``abs``
        calls and zero test, a plain ``%`` where the dividend cannot be negative.
        None for any other block."""
        d = s.names.get("IN2")
        if (s.block.name != "MOD" or type(d) is not ir.Const or type(d.value) is not int
                or d.value <= 0 or not s.block.bound_types["T"].canonical.signed):
            return None
        a, out = names["IN1"], names["OUT"]
        if self.ranges.within(s.names["IN1"], 0, d.value - 1):
            return [f"{out} = {a}"]
        if self.ranges.within(s.names["IN1"], 0, 1 << 64):
            return [f"{out} = {a} % {d.value}"]
        return [f"{out} = {a} % {d.value} if {a} >= 0 else -(-{a} % {d.value})"]

    def check(self, s: ir.Check, depth: int) -> None:
        r = self.ranges.of(s.value)
        inside = (max(r[0], s.lo), min(r[1], s.hi)) if r is not None else (s.lo, s.hi)
        self.ranges.assigned(s.temp, inside)
        if r is not None and s.lo <= r[0] and r[1] <= s.hi:    # it cannot fail
            if self.census.uses.get(s.temp.name, 0) == 0 and id(s) not in self.census.calling:
                return      # and nothing reads it
            value = self.expr(s.value)
            if s.temp.name == self._fold:
                self.folded[s.temp.name] = self.grouped(value)
                return
            if self.ranges.stable(s.value) and (value.isidentifier() or value.isdigit()
                                                or is_slot(value)):
                self.aliases[s.temp.name] = value
            else:
                self.line(depth, f"{s.temp.name} = {value}")
            return
        name, value = s.temp.name, self.expr(s.value)
        if (value.isidentifier() or is_slot(value)) and self.ranges.stable(s.value):
            self.aliases[name] = name = value       # a variable's value: checked as it is
        else:
            self.line(depth, f"{name} = {value}")
        self.line(depth, f"if not {s.lo} <= {name} <= {s.hi}: _st_bounds({name}, {s.lo}, "
                         f"{s.hi}, {s.where!r})")


__all__ = ["PyEmitter", "ELIF_GROUP", "CASE_TREE", "one_sided_wrap"]
