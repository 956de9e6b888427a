"""The debugger's model: run, pause, step scans and blocks, break, watch, force, trend.

No Qt here: the views in ``hmi/debugger/`` are built on :class:`Debugger` and
only read it and call it (a model without widgets: the views hold no state the
model needs); everything below is tested headless.

>>> dbg = Debugger(plc)                                   # doctest: +SKIP
>>> dbg.add_breakpoint("cell_0_0.memory.OUT >= 2048")
>>> hit = dbg.run_until_break(max_scans=10_000)
>>> hit.scan, [bp.text for bp in hit.breakpoints]

The API, for the views
======================

State (read after every call, or on an event, see *Events*)
    ``state``: ``"paused"`` or ``"running"``; ``scans`` (the scan counter),
    ``time`` (simulated seconds) and ``time_us``; ``in_scan``: a scan is being
    stepped into, with ``current_block`` (the path of the block the next
    :meth:`~Debugger.step_into` runs: the one to highlight), ``last_block``,
    ``block_position`` (blocks run so far, blocks in the scan); ``order``
    (every block path in execution order); ``last_hit`` (the latest
    :class:`Hit`); :meth:`~Debugger.stats` (scan time min/mean/max in µs,
    overruns).

Running
    :meth:`~Debugger.run` / :meth:`~Debugger.pause`, then the GUI timer calls
    :meth:`~Debugger.advance` with the wall seconds since its last call; it
    runs the scans due at :attr:`~Debugger.speed` (``1.0`` real time,
    ``10.0``, :data:`MAX` as fast as possible), at most ``max_scans`` and
    about ``budget_s`` wall seconds per call, so the UI keeps its thread
    (scans due beyond that are dropped and counted in ``dropped_scans``).
    :meth:`~Debugger.step` runs 1 or N whole scans,
    :meth:`~Debugger.run_until_break` runs until a breakpoint holds (or a
    guard), both paused and synchronous. :meth:`~Debugger.restart` is the
    warm restart, ``restart(cold=True)`` the cold one (see there for what
    each keeps). The debugger owns the PLC's pacing: while it is open,
    nothing else should call ``plc.scan`` (an application shell pauses its
    own loop), and during a scan stepped into the PLC refuses to run.
    :meth:`~Debugger.close` detaches it.

Stepping into a scan
    :meth:`~Debugger.step_into` first begins the next scan (inputs latched,
    nothing run yet), then runs one block per call in execution order; the
    call that runs the last block ends the scan exactly as a normal scan ends
    (outputs published, counted, timed, traced, the clock one cycle on: the
    table is the same as the compiled scan's). :meth:`~Debugger.finish_scan`
    runs the rest of the scan. Run, step and run-until-break finish a scan in
    progress first (that counts as one scan).

Breakpoints
    :meth:`~Debugger.add_breakpoint` parses a condition (grammar below) and
    returns a :class:`Breakpoint` (``enabled`` may be set directly, ``hits``
    counts the pauses it caused), :meth:`~Debugger.enable_breakpoint`,
    :meth:`~Debugger.remove_breakpoint`, :meth:`~Debugger.check_condition`
    (validate as the user types). They are checked after every scan the
    debugger runs, and after every block of a scan stepped into; the run
    pauses on the first scan (or block) where one holds and reports a
    :class:`Hit` (which breakpoints, which scan, which block). After a scan,
    a breakpoint fires whenever its condition holds (as CODESYS and gdb do);
    with ``edge=True`` only where it turns from false (after the previous
    scan) to true. After a block, it fires where that block made it true (it
    did not hold before the block), so the hit names the block responsible;
    a breakpoint that fired at a block does not fire again at the end of the
    same scan. A bad condition raises :class:`ConditionError` (an
    :class:`~fbd.errors.FbdError`) naming the problem and its column.

Signals
    :meth:`~Debugger.complete` ranks paths for a completion box;
    :meth:`~Debugger.get`, :meth:`~Debugger.info`; :meth:`~Debugger.probe`
    makes a reader of many paths at once (a diagram's wire labels, read at
    30 Hz straight from the table); the watch list: :meth:`~Debugger.watch`,
    :meth:`~Debugger.unwatch`, ``watches``, :meth:`~Debugger.watch_values`
    (:class:`WatchRow`: value, IEC text, forced?); :meth:`~Debugger.write`
    (once), :meth:`~Debugger.force`, :meth:`~Debugger.unforce`, ``forces``
    (every force, by path), :meth:`~Debugger.is_forced`. Values may be given
    as IEC text (``"TRUE"``, ``"16#FF"``, ``"T#1s"``); :func:`format_value`
    writes them back. Paths are the main task's.

Trends
    :meth:`~Debugger.trend` (set the recorded signals),
    :meth:`~Debugger.add_trend`, :meth:`~Debugger.remove_trend`,
    ``trend_paths``, ``trace``
    (the :class:`~fbd.trace.Trace` of the last :data:`TREND_CAPACITY` scans:
    ``trace.scans``, ``trace.times``, ``trace[path]`` as numpy arrays),
    :meth:`~Debugger.export_csv`, :meth:`~Debugger.export_vcd`. Changing the
    set of trended signals starts a new recording.

Events
    ``listeners``: callables called with one word after a change the views
    show: ``"state"`` (run/pause/speed), ``"scan"`` (scans ran), ``"block"``
    (a block was stepped), ``"hit"``, ``"breakpoints"``, ``"watch"``,
    ``"forces"``, ``"trend"``, ``"restart"``. Called synchronously, on the
    caller's thread; a Qt view forwards them to a signal.

The condition grammar
=====================

IEC 61131-3 Structured Text expressions, parsed by a recursive-descent
parser (no ``eval``: the text never reaches Python's compiler). Lowest
precedence first::

    condition := xor ("OR" xor)*
    xor       := and ("XOR" and)*
    and       := equality (("AND" | "&") equality)*
    equality  := relation (("=" | "<>") relation)*      also == and !=
    relation  := sum (("<" | ">" | "<=" | ">=") sum)*
    sum       := product (("+" | "-") product)*
    product   := unary (("*" | "/" | "MOD") unary)*
    unary     := ("-" | "+" | "NOT") unary | primary
    primary   := number | time | string | TRUE | FALSE | "(" condition ")"
               | function "(" path ")" | path

Keywords are case-insensitive. Numbers: ``42``, ``1_000``, ``16#FF``,
``2#1010``, ``1.5``, ``1e3``, typed ``INT#-5``. TIME: ``T#1s500ms``. Strings:
``'text'``. A path is any signal of the program, dotted:
``cell_0_0.memory.OUT``; its value is the one in the table at that moment.
Functions: ``changed(path)``: the value differs from its value at the end of
the previous scan; ``rising(path)``/``falling(path)`` for BOOLs: FALSE then,
TRUE now (and the reverse). Types are checked when the breakpoint is added:
AND/OR/XOR/NOT take BOOLs, arithmetic numbers (TIME +/- TIME, TIME * or / a
number), comparisons like with like (integers and REALs mix), and the whole
condition must be a BOOL. Arithmetic is exact (no wrap-around); integer
``/`` truncates toward zero, and ``/`` or ``MOD`` by zero gives 0 (REAL:
IEEE infinities), as the DIV and MOD blocks do. A condition has at most
:data:`MAX_TOKENS` words and symbols and :data:`MAX_NESTING` levels of
parentheses (its closures then stay far from Python's recursion limit).
Breakpoints watch the main task: its paths, after its scans.

Each condition becomes, once, a tree of closures that read the table by slot
index (no path lookups while running). With no enabled breakpoint the
debugger runs the PLC exactly as :meth:`Plc.scan` does; with some, a
recorder checks them after each scan inside the same batched run and
:meth:`Plc.halt` ends the run at the scan that fired.
"""

from __future__ import annotations

import math
import operator
import re
import time as _time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, TextIO

from . import types as t
from .compiler import ScanProgram, SignalInfo
from .errors import FbdError, UnknownSignal
from .runtime import Plc, ScanStats, SteppedScan
from .trace import Trace

__all__ = ["Debugger", "Breakpoint", "Hit", "Probe", "WatchRow", "ConditionError",
           "Condition", "compile_condition", "format_value", "MAX", "TREND_CAPACITY",
           "FUNCTIONS"]

#: ``Debugger.speed`` for "as fast as possible"
MAX = math.inf
#: scans a trend keeps
TREND_CAPACITY = 10_000
#: the functions a condition may call
FUNCTIONS = ("changed", "rising", "falling")
#: limits that keep parsing and evaluating far from Python's recursion limit
MAX_TOKENS = 256
MAX_NESTING = 32


# =========================================================================== conditions
class ConditionError(FbdError):
    """A breakpoint condition that cannot be used: ``reason`` and the 1-based
    ``column`` where the problem is (``None`` for the condition as a whole)."""

    def __init__(self, text: str, column: int | None, reason: str):
        self.text = text
        self.column = column
        self.reason = reason
        where = f", column {column}" if column is not None else ""
        super().__init__(f"condition {text!r}{where}: {reason}")


_TOKEN = re.compile(r"""
   (?P<ws>\s+)
  |(?P<time>(?:LTIME|TIME|LT|T)\#[-+]?[0-9A-Za-z_.]+)
  |(?P<typed>(?:SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD|REAL|LREAL|BOOL)
             \#[-+]?[0-9A-Za-z_.]+)
  |(?P<based>(?:2|8|16)\#[0-9A-Za-z_]+)
  |(?P<real>[0-9][0-9_]*\.[0-9][0-9_]*(?:E[-+]?[0-9]+)?|[0-9][0-9_]*E[-+]?[0-9]+)
  |(?P<int>[0-9][0-9_]*)
  |(?P<string>'(?:[^'$]|\$.)*')
  |(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)
  |(?P<op><=|>=|<>|!=|==|&&|\|\||[=<>+\-*/(),&])
  |(?P<bad>.)
""", re.X | re.I)

_KEYWORDS = {"AND", "OR", "XOR", "NOT", "MOD", "TRUE", "FALSE"}
_HINTS = {"&&": "write AND", "||": "write OR", "|": "write OR", "!": "write NOT",
          '"': "strings take single quotes: 'text'", "[": "conditions have no indexing",
          ".": "a path starts with a name", ":": "only the main task's signals can be used",
          "#": "write a literal like 16#FF, INT#5 or T#5s"}
_KIND_WORD = {"bool": "a BOOL", "int": "an integer", "real": "a REAL", "time": "a TIME",
              "string": "a STRING"}


class _Tok(NamedTuple):
    kind: str    # num (any literal) | name | kw | op | end
    text: str
    col: int     # 1-based
    value: Any = None
    vkind: str | None = None   # for literals: bool | int | real | time | string


class _Node:
    """A parsed sub-expression: ``fn(s)`` computes it over the table; ``const``
    holds its value when it is known now (folded); ``slot`` when it is one read."""
    __slots__ = ("fn", "kind", "const", "slot", "col", "text", "type_name")
    NO = object()

    def __init__(self, fn, kind, col, text, *, const=NO, slot=None, type_name=None):
        self.fn = fn
        self.kind = kind
        self.const = const
        self.slot = slot
        self.col = col
        self.text = text
        self.type_name = type_name

    @property
    def is_const(self) -> bool:
        return self.const is not _Node.NO

    def describe(self) -> str:
        if self.type_name:
            return f"{self.text} is {self.type_name}"
        return f"{self.text} is {_KIND_WORD[self.kind]}"


class _Prev:
    """Values of the slots ``changed``/``rising``/``falling`` read, as they were at
    the end of the previous scan. ``values`` is updated in place: closures hold it."""

    def __init__(self):
        self.slots: list[tuple[int, int]] = []   # (index in values, slot)
        self.values: list = []
        self.index: dict[int, int] = {}
        self.scan = -1   # the scan they are from

    def register(self, slot: int, s: list) -> int:
        j = self.index.get(slot)
        if j is None:
            j = self.index[slot] = len(self.values)
            self.slots.append((j, slot))
            self.values.append(s[slot])
        return j

    def take(self, s: list, scan: int) -> None:
        values = self.values
        for j, slot in self.slots:
            values[j] = s[slot]
        self.scan = scan


@dataclass(frozen=True)
class Condition:
    """A compiled condition: ``fn(s)`` is truthy where it holds; ``paths`` it reads;
    ``history``: it calls changed/rising/falling (needs the previous scan's values)."""
    text: str
    fn: Callable[[list], Any]
    paths: tuple[str, ...]
    history: bool = False


def compile_condition(text: str, program: ScanProgram, prev: _Prev | None = None,
                      table: list | None = None) -> Condition:
    """Parse ``text`` and compile it to closures over ``program``'s table.

    ``prev`` (with ``table``, the current table) keeps the previous-scan values
    ``changed()`` compares with; the debugger shares one across its breakpoints.
    Raises :class:`ConditionError`.
    """
    if not isinstance(text, str):
        raise FbdError(f"a condition is text, not {type(text).__name__}")
    if prev is None:
        prev = _Prev()
    if table is None:
        table = program.new_table()
    parser = _Parser(text, program, prev, table)
    node = parser.parse()
    if node.kind != "bool":
        raise ConditionError(text, None, f"the condition is {_KIND_WORD[node.kind]}, not "
                                         f"TRUE or FALSE; compare it, e.g. {text.strip()} <> 0")
    return Condition(text, node.fn, tuple(dict.fromkeys(parser.paths)), parser.history)


def _tokenize(text: str) -> list[_Tok]:
    toks = []
    for m in _TOKEN.finditer(text):
        kind, lexeme, col = m.lastgroup, m.group(), m.start() + 1
        if kind == "ws":
            continue
        if kind == "bad" or lexeme in ("&&", "||"):
            hint = _HINTS.get(lexeme)
            raise ConditionError(text, col, f"unexpected {lexeme!r}" + (f"; {hint}" if hint
                                                                         else ""))
        try:
            if kind == "time":
                toks.append(_Tok("num", lexeme, col, t.parse_time(lexeme, lexeme), "time"))
            elif kind == "typed":
                tp = t.by_name(lexeme.split("#", 1)[0])
                raw = lexeme if tp.kind in ("int", "bits", "real") else lexeme.split("#", 1)[1]
                toks.append(_Tok("num", lexeme, col, tp.coerce(raw, lexeme),
                                 "int" if tp.kind == "bits" else tp.kind))
            elif kind == "based" or kind == "int":
                toks.append(_Tok("num", lexeme, col, t.parse_int_literal(lexeme, lexeme), "int"))
            elif kind == "real":
                toks.append(_Tok("num", lexeme, col, float(lexeme.replace("_", "")), "real"))
            elif kind == "string":
                body = re.sub(r"\$(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1).lower(),
                                                                              m.group(1)),
                              lexeme[1:-1])
                toks.append(_Tok("num", lexeme, col, body, "string"))
            elif kind == "name":
                up = lexeme.upper()
                if up in _KEYWORDS:
                    if up in ("TRUE", "FALSE"):
                        toks.append(_Tok("num", lexeme, col, up == "TRUE", "bool"))
                    else:
                        toks.append(_Tok("kw", up, col))
                else:
                    toks.append(_Tok("name", lexeme, col))
            else:
                op = {"==": "=", "!=": "<>", "&": "AND"}.get(lexeme, lexeme)
                toks.append(_Tok("kw" if op == "AND" else "op", op, col))
        except (t.TypeError_, ValueError) as e:
            raise ConditionError(text, col, f"{lexeme!r} is not a valid literal ({e})") from None
        if len(toks) > MAX_TOKENS:
            raise ConditionError(text, col, f"the condition is too long (more than "
                                            f"{MAX_TOKENS} words and symbols)")
    toks.append(_Tok("end", "", len(text) + 1))
    return toks


def _idiv(a, b):
    if not b:
        return 0
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _imod(a, b):
    if not b:
        return 0
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _rdiv(a, b):
    if b:
        return a / b
    if a == 0 or a != a:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


_COMPARE = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, ">": operator.gt,
            "<=": operator.le, ">=": operator.ge}


def _cmp_slot_const(op: str, k: int, c):
    # the common breakpoint, `path >= 2048`, as one closure with no call inside
    if op == "=":
        return lambda s: s[k] == c
    if op == "<>":
        return lambda s: s[k] != c
    if op == "<":
        return lambda s: s[k] < c
    if op == ">":
        return lambda s: s[k] > c
    if op == "<=":
        return lambda s: s[k] <= c
    return lambda s: s[k] >= c


class _Parser:
    def __init__(self, text: str, program: ScanProgram, prev: _Prev, table: list):
        self.text = text
        self.program = program
        self.prev = prev
        self.table = table
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0
        self.paths: list[str] = []
        self.history = False

    # -- helpers ---------------------------------------------------------------
    def error(self, col, reason):
        raise ConditionError(self.text, col, reason)

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def at(self, *ops) -> bool:
        tok = self.tok
        return tok.kind in ("op", "kw") and tok.text in ops

    def span(self, a: _Node, b_end_col: int) -> str:
        return self.text[a.col - 1:b_end_col - 1].strip()

    def end_col(self) -> int:
        """Where the previous token ends (1-based, exclusive)."""
        prev = self.toks[self.i - 1]
        return prev.col + len(prev.text) if prev.kind != "end" else prev.col

    # -- grammar ---------------------------------------------------------------
    def parse(self) -> _Node:
        if self.tok.kind == "end":
            self.error(None, "the condition is empty")
        node = self.disjunction()
        tok = self.tok
        if tok.kind != "end":
            if tok.text == ")":
                self.error(tok.col, "unexpected ')': no '(' is open")
            self.error(tok.col, f"unexpected {tok.text!r} after a complete expression "
                                f"(a missing operator?)")
        return node

    def _chain(self, ops, below, build):
        left = below()
        while self.at(*ops):
            op_tok = self.take()
            right = below()
            left = build(op_tok, left, right)
        return left

    def disjunction(self):
        return self._chain(("OR",), self.exclusive, self.logic)

    def exclusive(self):
        return self._chain(("XOR",), self.conjunction, self.logic)

    def conjunction(self):
        return self._chain(("AND",), self.equality, self.logic)

    def equality(self):
        return self._chain(("=", "<>"), self.relation, self.compare)

    def relation(self):
        return self._chain(("<", ">", "<=", ">="), self.sum, self.compare)

    def sum(self):
        return self._chain(("+", "-"), self.product, self.arith)

    def product(self):
        return self._chain(("*", "/", "MOD"), self.unary, self.arith)

    def unary(self):
        if self.at("-", "+", "NOT"):
            op = self.take()
            arg = self.unary()
            text = self.text[op.col - 1:self.end_col() - 1].strip()
            if op.text == "NOT":
                if arg.kind != "bool":
                    self.error(op.col, f"NOT needs a BOOL, but {arg.describe()}")
                return self.fold(lambda s, f=arg.fn: not f(s), "bool", op.col, text, [arg],
                                 lambda v: not v)
            if arg.kind not in ("int", "real", "time"):
                self.error(op.col, f"{op.text} needs a number or a TIME, but {arg.describe()}")
            if op.text == "+":
                return arg
            return self.fold(lambda s, f=arg.fn: -f(s), arg.kind, op.col, text, [arg],
                             operator.neg)
        return self.primary()

    def primary(self) -> _Node:
        tok = self.take()
        if tok.kind == "num":
            v = tok.value
            return _Node(lambda s: v, tok.vkind, tok.col, tok.text, const=v)
        if tok.kind == "op" and tok.text == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                self.error(tok.col, f"parentheses nested more than {MAX_NESTING} deep")
            node = self.disjunction()
            self.depth -= 1
            if not self.at(")"):
                found = self.tok
                if found.kind == "end":
                    self.error(tok.col, "'(' is never closed")
                self.error(found.col, f"expected ')' to close the '(' of column {tok.col}, "
                                      f"found {found.text!r}")
            self.take()
            node.col = tok.col
            node.text = self.text[tok.col - 1:self.end_col() - 1].strip()
            return node
        if tok.kind == "name":
            if self.at("("):
                return self.call(tok)
            return self.path(tok)
        if tok.kind == "end":
            self.error(tok.col, "expected a value, but the condition ends here")
        self.error(tok.col, f"expected a value (a signal path, a number, TRUE, FALSE, "
                            f"'(' ...), found {tok.text!r}")

    def lookup(self, tok: _Tok) -> SignalInfo:
        try:
            info = self.program.signal(tok.text)
        except UnknownSignal as e:
            self.error(tok.col, str(e))
        if info.type is None:
            self.error(tok.col, f"{tok.text} is a block's internal storage, not an IEC "
                                f"value; a condition cannot read it")
        self.paths.append(tok.text)
        return info

    def path(self, tok: _Tok) -> _Node:
        info = self.lookup(tok)
        kind = "int" if info.type.kind == "bits" else info.type.kind
        if info.slot is None:
            c = info.const
            return _Node(lambda s: c, kind, tok.col, tok.text, const=c, type_name=info.type.name)
        k = info.slot
        return _Node(lambda s: s[k], kind, tok.col, tok.text, slot=k, type_name=info.type.name)

    def call(self, name: _Tok) -> _Node:
        fname = name.text.lower()
        if fname not in FUNCTIONS:
            self.error(name.col, f"unknown function {name.text!r}; conditions know "
                                 f"{', '.join(f + '(path)' for f in FUNCTIONS)}")
        self.take()  # (
        arg = self.take()
        if arg.kind != "name":
            found = "the end of the condition" if arg.kind == "end" else repr(arg.text)
            self.error(arg.col, f"{fname}() takes a signal path, found {found}")
        if not self.at(")"):
            tok = self.tok
            found = "the end of the condition" if tok.kind == "end" else repr(tok.text)
            self.error(tok.col, f"{fname}() takes one signal path, then ')'; found {found}")
        self.take()
        info = self.lookup(arg)
        text = self.text[name.col - 1:self.end_col() - 1]
        if fname != "changed" and info.type.kind != "bool":
            self.error(arg.col, f"{fname}() needs a BOOL, but {arg.text} is {info.type.name}")
        if info.slot is None:  # a constant never changes
            return _Node(lambda s: False, "bool", name.col, text, const=False)
        k = info.slot
        j = self.prev.register(k, self.table)
        self.history = True
        prev = self.prev.values
        if fname == "changed":
            fn = lambda s: s[k] != prev[j]  # noqa: E731
        elif fname == "rising":
            fn = lambda s: s[k] and not prev[j]  # noqa: E731
        else:
            fn = lambda s: prev[j] and not s[k]  # noqa: E731
        return _Node(fn, "bool", name.col, text)

    # -- operators ---------------------------------------------------------------
    def fold(self, fn, kind, col, text, args, compute) -> _Node:
        """A node; computed now if every argument is a constant."""
        if all(a.is_const for a in args):
            v = compute(*(a.const for a in args))
            return _Node(lambda s: v, kind, col, text, const=v)
        return _Node(fn, kind, col, text)

    def logic(self, op: _Tok, a: _Node, b: _Node) -> _Node:
        for x in (a, b):
            if x.kind != "bool":
                self.error(op.col, f"{op.text} needs BOOLs on both sides, but {x.describe()}")
        text = self.span(a, self.end_col())
        fa, fb = a.fn, b.fn
        if op.text == "AND":
            fn, compute = (lambda s: fa(s) and fb(s)), (lambda x, y: x and y)
        elif op.text == "OR":
            fn, compute = (lambda s: fa(s) or fb(s)), (lambda x, y: x or y)
        else:
            fn, compute = (lambda s: bool(fa(s)) != bool(fb(s))), operator.ne
        return self.fold(fn, "bool", a.col, text, [a, b], compute)

    def compare(self, op: _Tok, a: _Node, b: _Node) -> _Node:
        groups = {"int": "num", "real": "num", "time": "time", "string": "string", "bool": "bool"}
        ga, gb = groups[a.kind], groups[b.kind]
        if ga != gb:
            hint = ""
            number = a if ga == "num" else b
            if "time" in (ga, gb) and number.is_const:
                hint = "; write TIME values like T#5s"
            self.error(op.col, f"{op.text} compares like with like, but {a.describe()} "
                               f"and {b.describe()}{hint}")
        if ga == "bool" and op.text not in ("=", "<>"):
            self.error(op.col, f"{op.text} does not order BOOLs; use = or <>")
        text = self.span(a, self.end_col())
        fn_op = _COMPARE[op.text]
        if a.slot is not None and b.is_const:
            fn = _cmp_slot_const(op.text, a.slot, b.const)
        elif b.slot is not None and a.is_const:
            mirrored = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op.text, op.text)
            fn = _cmp_slot_const(mirrored, b.slot, a.const)
        elif a.slot is not None and b.slot is not None:
            ka, kb = a.slot, b.slot
            fn = lambda s: fn_op(s[ka], s[kb])  # noqa: E731
        else:
            fa, fb = a.fn, b.fn
            fn = lambda s: fn_op(fa(s), fb(s))  # noqa: E731
        return self.fold(fn, "bool", a.col, text, [a, b], fn_op)

    def arith(self, op: _Tok, a: _Node, b: _Node) -> _Node:
        o = op.text
        ka, kb = a.kind, b.kind
        nums = ("int", "real")
        if ka in nums and kb in nums:
            if o == "MOD":
                if "real" in (ka, kb):
                    self.error(op.col, f"MOD needs integers, but "
                                       f"{(a if ka == 'real' else b).describe()}")
                kind, compute = "int", _imod
            elif o == "/":
                kind = "real" if "real" in (ka, kb) else "int"
                compute = _rdiv if kind == "real" else _idiv
            else:
                kind = "real" if "real" in (ka, kb) else "int"
                compute = {"+": operator.add, "-": operator.sub, "*": operator.mul}[o]
        elif ka == "time" and kb == "time" and o in "+-":
            kind, compute = "time", (operator.add if o == "+" else operator.sub)
        elif o == "*" and {ka, kb} in ({"time", "int"}, {"time", "real"}):
            kind, compute = "time", operator.mul
        elif o == "/" and ka == "time" and kb in nums:
            kind, compute = "time", (_idiv if kb == "int" else _rdiv)
        else:
            self.error(op.col, f"{o} cannot take these: {a.describe()} and {b.describe()}")
        text = self.span(a, self.end_col())
        fa, fb = a.fn, b.fn
        return self.fold(lambda s: compute(fa(s), fb(s)), kind, a.col, text, [a, b], compute)


# =========================================================================== values
def format_value(tp: t.DataType | None, raw) -> str:
    """A raw table value as IEC text: ``TRUE``, ``42``, ``1.5``, ``T#1s500ms``, ``'abc'``."""
    if tp is None:
        text = repr(raw)
        return text if len(text) <= 60 else text[:57] + "..."
    kind = tp.kind
    if kind == "bool":
        return "TRUE" if raw else "FALSE"
    if kind == "time":
        return t.format_time(int(raw))
    if kind == "real":
        return repr(float(raw))
    if kind == "string":
        return "'" + str(raw).replace("$", "$$").replace("'", "$'") + "'"
    if kind == "bits":
        return f"16#{int(raw):X}"
    return str(raw)


class WatchRow(NamedTuple):
    """One line of the watch list."""
    path: str
    type: str       # the IEC type name
    value: Any      # the Python value (TIME as a timedelta)
    text: str       # the value as IEC text
    forced: bool


class Probe:
    """Reads a fixed list of signals straight from the table (slots resolved once).

    For views that show many values at a refresh: a diagram's wire labels, a
    hierarchy's ports. ``read()`` gives Python values, ``read_raw()`` the table's
    (TIME in µs), ``texts()`` IEC text, ``forced()`` which are forced.
    """

    def __init__(self, plc: Plc, infos: list[SignalInfo]):
        self._plc = plc
        self.paths = [i.path for i in infos]
        self.types = [i.type for i in infos]
        self._reads = [(i.slot, i.const) for i in infos]

    def read_raw(self) -> list:
        s = self._plc.main.s
        return [c if k is None else s[k] for k, c in self._reads]

    def read(self) -> list:
        return [v if tp is None else tp.to_python(v)
                for tp, v in zip(self.types, self.read_raw())]

    def texts(self) -> list[str]:
        return [format_value(tp, v) for tp, v in zip(self.types, self.read_raw())]

    def forced(self) -> list[bool]:
        """Which of the signals are forced (to mark them)."""
        forces = self._plc.main.forces
        return [k is not None and k in forces for k, _c in self._reads]

    def __len__(self) -> int:
        return len(self.paths)


# =========================================================================== breakpoints
class Breakpoint:
    """A condition the debugger checks after every scan (and every stepped block).

    ``enabled`` may be set directly; ``hits`` counts the pauses it caused;
    ``paths`` are the signals it reads (for the views to mark).
    """

    def __init__(self, ident: int, condition: Condition, edge: bool, enabled: bool):
        self.id = ident
        self.condition = condition
        self.text = condition.text
        self.paths = condition.paths
        self.edge = edge
        self.enabled = enabled
        self.hits = 0
        self._was = False   # whether it held at the previous check (edge breakpoints)

    def __repr__(self) -> str:
        flags = ("" if self.enabled else ", disabled") + (", edge" if self.edge else "")
        return f"<Breakpoint {self.id} {self.text!r}{flags}, {self.hits} hits>"


@dataclass(frozen=True)
class Hit:
    """Where a run paused because breakpoints held.

    ``scan``: the number of the scan they held in (after it completed, or the
    scan in progress when ``block`` is set); ``time_us``: that scan's simulated
    time as NOW reads it; ``block``: the path of the block after which they
    held when stepping into a scan (None: at the end of a scan).
    """
    breakpoints: tuple[Breakpoint, ...]
    scan: int
    time_us: int
    block: str | None = None

    def describe(self) -> str:
        where = f"after block {self.block} in scan {self.scan}" if self.block else \
            f"after scan {self.scan}"
        return f"{', '.join(bp.text for bp in self.breakpoints)} held {where}"


class _Checker:
    """The recorder the debugger attaches to the main task during its runs: checks
    the enabled breakpoints after each scan, halts the run at the first that holds."""

    def __init__(self, dbg: Debugger, active: list[Breakpoint]):
        self.dbg = dbg
        self.checks = [(bp, bp.condition.fn, bp.edge) for bp in active]
        self.prev = dbg._prev if any(bp.condition.history for bp in active) else None
        self.hit: Hit | None = None

    def record(self, s: list, scan: int, now_us: int) -> None:
        fired = None
        for bp, fn, edge in self.checks:
            if fn(s):
                if not (edge and bp._was):
                    if fired is None:
                        fired = [bp]
                    else:
                        fired.append(bp)
                bp._was = True
            else:
                bp._was = False
        if self.prev is not None:
            self.prev.take(s, scan)
        if fired is not None and self.hit is None:
            self.hit = Hit(tuple(fired), scan, now_us)
            self.dbg.plc.halt(now_us)


# =========================================================================== the model
class Debugger:
    """The debugger's model over a running :class:`~fbd.runtime.Plc` (see the
    module's docstring for the whole API).

    ``max_scans`` and ``budget_s`` cap one :meth:`advance` (scans, and wall
    seconds spent scanning); ``clock`` is the wall clock those are measured
    with (a test passes a fake one).
    """

    def __init__(self, plc: Plc, *, max_scans: int = 10_000, budget_s: float = 0.02,
                 clock: Callable[[], float] = _time.perf_counter):
        if not isinstance(plc, Plc):
            raise FbdError(f"Debugger needs a Plc, not {type(plc).__name__}")
        if plc.realtime:
            raise FbdError("the debugger paces the PLC itself (advance); give it a PLC on "
                           "simulated time: Plc(..., realtime=False)")
        if max_scans < 1:
            raise FbdError(f"max_scans must be at least 1, not {max_scans!r}")
        self.plc = plc
        self.max_scans = max_scans
        self.budget_s = budget_s
        self.clock = clock
        self.listeners: list[Callable[[str], None]] = []
        self.state = "paused"
        self._speed = 1.0
        self._debt_ns = 0
        self.dropped_scans = 0     # scans due at the set speed but not run (over a cap)
        self._batch = 1            # advance(): scans per simpy run, adapted to the budget
        self._stepper: SteppedScan | None = None
        self._last_leaf: int | None = None
        self._held: dict[Breakpoint, bool] = {}        # in a stepped scan: held at the last check
        self._fired_in_scan: set[Breakpoint] = set()
        self._prev = _Prev()
        self._prev.take(self.table, plc.scans)
        self._breakpoints: list[Breakpoint] = []
        self._next_id = 1
        self.last_hit: Hit | None = None
        self._watches: list[str] = []
        self._trace: Trace | None = None
        self._lower: list[tuple[str, str]] | None = None   # (lowercase path, path), for complete()

    # -- plumbing ------------------------------------------------------------------
    def _emit(self, event: str) -> None:
        for listener in list(self.listeners):
            listener(event)

    @property
    def program(self) -> ScanProgram:
        return self.plc.main.program

    @property
    def table(self) -> list:
        """The main task's signal table (replaced by a restart: read it each time)."""
        return self.plc.main.s

    # -- state ---------------------------------------------------------------------
    @property
    def scans(self) -> int:
        return self.plc.scans

    @property
    def time(self) -> float:
        """Simulated seconds since the start (while stepping into a scan: its start)."""
        return self.plc.time

    @property
    def time_us(self) -> int:
        return self.plc.now_us

    @property
    def speed(self) -> float:
        """Simulated seconds per wall second while running: 1.0 real time, 10.0,
        or :data:`MAX` (as fast as :attr:`budget_s` allows)."""
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not (isinstance(value, (int, float)) and value > 0):
            raise FbdError(f"speed must be a positive number (or MAX), not {value!r}")
        self._speed = float(value)
        self._debt_ns = 0
        self._emit("state")

    @property
    def in_scan(self) -> bool:
        """A scan is being stepped into."""
        st = self._stepper
        if st is not None and not st.active:  # finished, or abandoned by a restart
            self._stepper = st = None
        return st is not None

    @property
    def current_block(self) -> str | None:
        """The block the next :meth:`step_into` runs (None outside a scan)."""
        if not self.in_scan:
            return None
        leaf = self._stepper.next_leaf
        return None if leaf is None else self.program.leaves[leaf].path

    @property
    def last_block(self) -> str | None:
        """The block the last :meth:`step_into` ran, in the scan in progress."""
        if not self.in_scan or self._last_leaf is None:
            return None
        return self.program.leaves[self._last_leaf].path

    @property
    def block_position(self) -> tuple[int, int]:
        """(blocks run, blocks in the scan) of the scan stepped into; (0, n) outside."""
        n = len(self.program.order)
        return (self._stepper.position, n) if self.in_scan else (0, n)

    @property
    def order(self) -> list[str]:
        """Every block's path, in execution order."""
        leaves = self.program.leaves
        return [leaves[i].path for i in self.program.order]

    def stats(self) -> dict:
        """Scan time: ``scans``, ``min_us``, ``mean_us``, ``max_us``, ``last_us``,
        ``overruns`` (scans longer than ``cycle_us``)."""
        st = self.plc.stats
        return {**st.summary(), "last_us": st.last_ns / 1000}

    # -- running -------------------------------------------------------------------
    def run(self) -> Hit | None:
        """Run freely from now (:meth:`advance` does the scans). A scan stepped into
        is finished first; if a breakpoint holds in it, the debugger stays paused."""
        hit = self._finish_stepped() if self.in_scan else None
        if hit is None:
            self.state = "running"
            self._debt_ns = 0
            self._emit("state")
        return hit

    def pause(self) -> None:
        if self.state != "paused":
            self.state = "paused"
            self._debt_ns = 0
            self._emit("state")

    def advance(self, wall_seconds: float) -> Hit | None:
        """Run the scans due after ``wall_seconds`` of wall time at :attr:`speed`
        (the GUI timer's call; nothing while paused). Returns the hit that paused it.

        At a finite speed the wall time, scaled, becomes whole cycles; the rest is
        carried to the next call. At most ``max_scans`` scans and about
        ``budget_s`` wall seconds are spent per call: scans due beyond those are
        dropped, not owed (counted in ``dropped_scans``), so a slow program runs
        slower than asked instead of freezing the UI. At :data:`MAX`, it scans
        until the budget or the cap is spent.
        """
        if self.state != "running":
            return None
        if wall_seconds < 0:
            raise FbdError(f"wall time cannot go backwards ({wall_seconds!r} s)")
        if self._speed == MAX:
            due = self.max_scans
        else:
            cycle_ns = self.plc.main.cycle_us * 1000
            self._debt_ns += round(round(wall_seconds * 1e9) * self._speed)
            due, self._debt_ns = divmod(self._debt_ns, cycle_ns)
            if due > self.max_scans:
                self.dropped_scans += due - self.max_scans
                due = self.max_scans
        if due == 0:
            return None
        # Scans run in batches (one simpy run each), the clock read between them:
        # the first batch is the size the last call ended with, then each is what
        # fits in the budget left at the rate seen so far, at most double the last.
        start = self.clock()
        done, batch, hit = 0, self._batch, None
        while done < due:
            k = min(batch, due - done)
            before = self.plc.scans
            hit = self._run_scans(k)
            done += self.plc.scans - before
            if hit is not None:
                break
            self._batch = k
            elapsed = self.clock() - start
            if elapsed >= self.budget_s:
                break
            per_scan = elapsed / done
            fits = int((self.budget_s - elapsed) / per_scan) if per_scan > 0 else 2 * k
            batch = max(1, min(2 * k, fits))
        if hit is None and done < due and self._speed != MAX:
            self.dropped_scans += due - done
        self._emit("scan")
        if hit is not None:
            self._pause_at(hit)
        return hit

    def step(self, n: int = 1) -> Hit | None:
        """Pause, then run ``n`` whole scans (a scan stepped into counts as one and is
        finished first); stop early where a breakpoint holds."""
        if n < 1:
            raise FbdError(f"cannot step {n} scans")
        self.pause()
        hit = None
        if self.in_scan:
            hit = self._finish_stepped()
            n -= 1
        if hit is None and n:
            hit = self._run_scans(n)
            self._emit("scan")
            if hit is not None:
                self._pause_at(hit)
        return hit

    def run_until_break(self, max_scans: int = 1_000_000) -> Hit | None:
        """Pause, then run until a breakpoint holds; the hit, or None after
        ``max_scans`` scans (a guard, so a condition that never holds cannot hang)."""
        return self.step(max_scans)

    def step_into(self) -> Hit | None:
        """Outside a scan: begin the next one (inputs latched, no block run yet).
        In a scan: run its current block, then check the breakpoints; the block
        that is the scan's last also ends the scan (as a normal scan ends)."""
        self.pause()
        if not self.in_scan:
            self._sync_prev()
            self._stepper = self.plc.step_into()
            self._last_leaf = None
            s = self.table
            self._held = {bp: bool(bp.condition.fn(s)) for bp in self._active()}
            self._fired_in_scan = set()
            self._emit("block")
            return None
        st = self._stepper
        if not st.done:
            self._last_leaf = st.step()
        if st.done:
            return self._end_stepped()
        hit = self._check_block()
        self._emit("block")
        return hit

    def finish_scan(self) -> Hit | None:
        """Run the rest of the scan stepped into, block by block, checking the
        breakpoints after each; stop at the block where one holds."""
        if not self.in_scan:
            raise FbdError("no scan is being stepped into; step_into() begins one")
        self.pause()
        return self._finish_stepped()

    def restart(self, cold: bool = False) -> None:
        """Pause and restart the program.

        Warm (the default): every variable of the program returns to its initial
        value (there is no RETAIN yet, so all of them), as after a download; a
        scan stepped into is abandoned. Kept: the forces (re-applied), the inputs
        the process last gave, the watch list, the breakpoints, the trend and its
        samples (the restart shows in it), the scan statistics. The scan counter
        and the simulated clock go on: they are the trend's axis, and the clock
        is shared with any simulated plant on the PLC's simpy environment.

        Cold: as warm, and also every force is released, the trend's samples,
        the scan statistics, the last hit and the breakpoints' hit counts are
        cleared. The watch list, breakpoints and trended signals stay (they are
        the debugger's setup, not the PLC's state).
        """
        self.pause()
        if cold and self.plc.forces:
            self.plc.unforce()
        self.plc.restart()
        self._stepper = None
        self._last_leaf = None
        if cold:
            for task in self.plc.tasks:
                task.stats = ScanStats(task.cycle_us)
            if self._trace is not None:
                self._trace.clear()
            self.last_hit = None
            for bp in self._breakpoints:
                bp.hits = 0
        self._prev.take(self.table, self.plc.scans)
        self._reset_edges()
        self._emit("restart")

    # -- running: internals ------------------------------------------------------------
    def _active(self) -> list[Breakpoint]:
        return [bp for bp in self._breakpoints if bp.enabled]

    def _sync_prev(self) -> None:
        """changed() compares with the previous scan's end: if scans ran that the
        debugger did not see, the table now holds that end."""
        if self._prev.scan != self.plc.scans:
            self._prev.take(self.table, self.plc.scans)

    def _run_scans(self, n: int) -> Hit | None:
        """``n`` whole scans in one batched run; with breakpoints, a recorder checks
        them after every scan and halts the run at the first hit."""
        active = self._active()
        if not active:
            self.plc.scan(n)
            return None
        self._sync_prev()
        checker = _Checker(self, active)
        traces = self.plc.main.traces
        traces.append(checker)
        try:
            self.plc.scan(n)
        finally:
            traces.remove(checker)
        return checker.hit

    @staticmethod
    def _evaluate(active: list[Breakpoint], s: list) -> list[Breakpoint]:
        fired = []
        for bp in active:
            holds = bool(bp.condition.fn(s))
            if holds and not (bp.edge and bp._was):
                fired.append(bp)
            bp._was = holds
        return fired

    def _reset_edges(self) -> None:
        s = self.table
        for bp in self._breakpoints:
            bp._was = bool(bp.condition.fn(s))

    def _check_block(self) -> Hit | None:
        """After a block of a stepped scan: the breakpoints this block made true
        (they did not hold before it)."""
        s = self.table
        held = self._held
        fired = []
        for bp in self._active():
            holds = bool(bp.condition.fn(s))
            if holds and held.get(bp, True) is False:
                fired.append(bp)
                self._fired_in_scan.add(bp)
            held[bp] = holds
        if not fired:
            return None
        hit = Hit(tuple(fired), self.plc.scans + 1, self._stepper.now_us,
                  self.program.leaves[self._last_leaf].path)
        self._pause_at(hit)
        return hit

    def _end_stepped(self) -> Hit | None:
        """Every block of the stepped scan ran: end it, check the breakpoints."""
        st = self._stepper
        st.finish()
        self._stepper = None
        self._last_leaf = None
        fired = [bp for bp in self._evaluate(self._active(), self.table)
                 if bp not in self._fired_in_scan]   # each fires once per scan
        self._fired_in_scan = set()
        self._prev.take(self.table, self.plc.scans)
        self._emit("scan")
        if not fired:
            return None
        hit = Hit(tuple(fired), self.plc.scans, st.now_us)
        self._pause_at(hit)
        return hit

    def _finish_stepped(self) -> Hit | None:
        st = self._stepper
        while not st.done:
            self._last_leaf = st.step()
            if not st.done:
                hit = self._check_block()
                if hit is not None:
                    self._emit("block")
                    return hit
        return self._end_stepped()

    def _pause_at(self, hit: Hit) -> None:
        for bp in hit.breakpoints:
            bp.hits += 1
        self.last_hit = hit
        self.state = "paused"
        self._debt_ns = 0
        self._emit("hit")

    # -- breakpoints -------------------------------------------------------------------
    @property
    def breakpoints(self) -> list[Breakpoint]:
        return list(self._breakpoints)

    def check_condition(self, text: str) -> Condition:
        """Parse and compile ``text`` without adding it (a view validating as the
        user types); raises :class:`ConditionError`."""
        return compile_condition(text, self.program, _Prev(), self.table)

    def add_breakpoint(self, text: str, *, edge: bool = False,
                       enabled: bool = True) -> Breakpoint:
        """Add a breakpoint on condition ``text`` (see the module docstring's grammar);
        ``edge=True`` fires only where the condition turns true."""
        self._sync_prev()
        cond = compile_condition(text, self.program, self._prev, self.table)
        bp = Breakpoint(self._next_id, cond, edge, enabled)
        bp._was = bool(cond.fn(self.table))
        self._next_id += 1
        self._breakpoints.append(bp)
        self._emit("breakpoints")
        return bp

    def remove_breakpoint(self, bp: Breakpoint | int) -> None:
        target = self._find_breakpoint(bp)
        self._breakpoints.remove(target)
        self._emit("breakpoints")

    def enable_breakpoint(self, bp: Breakpoint | int, enabled: bool = True) -> None:
        target = self._find_breakpoint(bp)
        target.enabled = enabled
        target._was = bool(target.condition.fn(self.table))
        self._emit("breakpoints")

    def _find_breakpoint(self, bp: Breakpoint | int) -> Breakpoint:
        for candidate in self._breakpoints:
            if candidate is bp or candidate.id == bp:
                return candidate
        name = bp.id if isinstance(bp, Breakpoint) else bp
        raise FbdError(f"no breakpoint {name!r}; there are "
                       f"{', '.join(str(b.id) for b in self._breakpoints) or 'none'}")

    # -- signals ---------------------------------------------------------------------
    def info(self, path: str) -> SignalInfo:
        """Type, kind, slot of a path (raises UnknownSignal with suggestions)."""
        return self.program.signal(path)

    def get(self, path: str):
        return self.plc.get(path)

    def text(self, path: str) -> str:
        """The value of ``path`` as IEC text."""
        info = self.info(path)
        return format_value(info.type, info.const if info.slot is None else self.table[info.slot])

    def probe(self, paths: Iterable[str]) -> Probe:
        """A reader of ``paths`` straight from the table (see :class:`Probe`)."""
        return Probe(self.plc, [self.info(p) for p in paths])

    def complete(self, text: str, limit: int = 20) -> list[str]:
        """Paths for a completion box, best first: the path itself, then paths
        starting with ``text``, then paths with a part (after a dot) starting with
        it, then paths containing it; in each group the shallowest and shortest
        first. Case-insensitive."""
        if self._lower is None:
            self._lower = [(p.lower(), p) for p in self.program.signals]
        want = text.strip().lower()
        dotted = "." + want
        ranked = []
        for low, path in self._lower:
            if low == want:
                tier = 0
            elif low.startswith(want):
                tier = 1
            elif dotted in low:
                tier = 2
            elif want in low:
                tier = 3
            else:
                continue
            ranked.append((tier, low.count("."), len(path), path))
        ranked.sort()
        return [r[3] for r in ranked[:limit]]

    # -- watch list --------------------------------------------------------------------
    @property
    def watches(self) -> list[str]:
        return list(self._watches)

    def watch(self, path: str) -> None:
        """Add ``path`` to the watch list (once; unknown paths raise UnknownSignal)."""
        info = self.info(path)
        if info.path not in self._watches:
            self._watches.append(info.path)
            self._emit("watch")

    def unwatch(self, path: str) -> None:
        if path not in self._watches:
            raise FbdError(f"{path} is not in the watch list")
        self._watches.remove(path)
        self._emit("watch")

    def watch_values(self) -> list[WatchRow]:
        s = self.table
        forced = self.plc.main.forces
        rows = []
        for path in self._watches:
            info = self.program.signal(path)
            raw = info.const if info.slot is None else s[info.slot]
            rows.append(WatchRow(path, info.type.name if info.type else "storage",
                                 info.type.to_python(raw) if info.type else raw,
                                 format_value(info.type, raw),
                                 info.slot is not None and info.slot in forced))
        return rows

    # -- write and force ---------------------------------------------------------------
    def write(self, path: str, value) -> None:
        """Write a value once, now (a block that computes it overwrites it at its
        next run). ``value`` may be IEC text."""
        self.plc.write(path, value)
        self._emit("forces")

    def force(self, path: str, value) -> None:
        """Hold ``path`` at ``value`` until :meth:`unforce`, across scans and restarts."""
        self.plc.force(path, value)
        self._emit("forces")

    def unforce(self, path: str | None = None) -> None:
        """Release one force, or all of them."""
        self.plc.unforce(path)
        self._emit("forces")

    @property
    def forces(self) -> dict:
        """Every force: path -> value."""
        return self.plc.forces

    def is_forced(self, path: str) -> bool:
        info = self.info(path)
        return info.slot is not None and info.slot in self.plc.main.forces

    # -- trends ------------------------------------------------------------------------
    @property
    def trace(self) -> Trace | None:
        """The recording of the trended signals (None if none)."""
        return self._trace

    @property
    def trend_paths(self) -> list[str]:
        return list(self._trace.paths) if self._trace is not None else []

    def trend(self, paths: Iterable[str]) -> Trace | None:
        """Record ``paths`` after every scan from now on, the last
        :data:`TREND_CAPACITY` scans (a new recording: earlier samples go)."""
        paths = list(dict.fromkeys(paths))
        new = self.plc.trace(paths, capacity=TREND_CAPACITY) if paths else None
        if self._trace is not None:
            self.plc.untrace(self._trace)
        self._trace = new
        self._emit("trend")
        return new

    def add_trend(self, path: str) -> Trace:
        if path not in self.trend_paths:
            self.trend([*self.trend_paths, path])
        return self._trace

    def remove_trend(self, path: str) -> None:
        if path not in self.trend_paths:
            raise FbdError(f"{path} is not trended")
        self.trend([p for p in self.trend_paths if p != path])

    def export_csv(self, out: str | TextIO) -> None:
        """The trend as CSV: one row per scan (scan, time in s, each signal)."""
        self._recording().to_csv(out)

    def export_vcd(self, out: str | TextIO) -> None:
        """The trend as a Value Change Dump (GTKWave)."""
        self._recording().to_vcd(out)

    def _recording(self) -> Trace:
        if self._trace is None:
            raise FbdError("nothing is trended; trend(paths) chooses the signals to record")
        return self._trace

    def close(self) -> None:
        """Detach from the PLC (the trend recorder); the PLC runs on unchanged."""
        if self._trace is not None:
            self.plc.untrace(self._trace)
            self._trace = None
        self.listeners.clear()

    def __repr__(self) -> str:
        where = f", in scan at {self.current_block}" if self.in_scan else ""
        return (f"<Debugger {self.program.name}: {self.state}{where}, {self.scans} scans, "
                f"t={self.time:.3f}s, {len(self._breakpoints)} breakpoints>")
