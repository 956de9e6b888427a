"""Breakpoint conditions: IEC Structured Text expressions over a program's signals,
parsed (never ``eval``'d) and compiled to closures over the signal table.


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
condition must be a BOOL; an untyped real literal compared with a REAL
signal is that REAL (``X = 0.1`` holds for a REAL X := 0.1, whose single
precision value is not the double 0.1). Arithmetic is exact (no wrap-around); integer
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .. import types as t
from ..compiler.pycode import ScanProgram, SignalInfo
from ..errors import FbdError
from ..real32 import round_real32
from ..values import Kind, parse_real, quote, unescape
from .signals import resolve

__all__ = ["ConditionError", "Condition", "compile_condition", "FUNCTIONS", "MAX_TOKENS",
           "MAX_NESTING", "MAX_LENGTH"]

#: the functions a condition may call
FUNCTIONS = ("changed", "rising", "falling")
#: limits that keep parsing and evaluating far from Python's recursion limit
MAX_TOKENS = 256
MAX_NESTING = 32
#: the longest condition accepted, in characters
MAX_LENGTH = 2000


def _real_literal(x: "_Node", other: "_Node") -> "_Node":
    """``x``, or where it is an untyped real literal compared with a REAL signal, the
    literal as a REAL (single precision), as ST types it: ``X = 0.1`` holds for the
    REAL X := 0.1."""
    if x.is_const and x.kind == "real" and x.type_name is None and other.type_name == "REAL":
        v = round_real32(x.const)
        return _Node(lambda s: v, "real", x.col, x.text, const=v)
    return x


# =========================================================================== conditions
class ConditionError(FbdError):
    """A breakpoint condition that cannot be used: ``reason`` and the 1-based
    ``column`` where the problem is (``None`` for the condition as a whole)."""

    def __init__(self, text: str, column: int | None, reason: str):
        self.text = text
        self.column = column
        self.reason = reason
        where = f", column {column}" if column is not None else ""
        super().__init__(f"condition {quote(text, 120)}{where}: {reason}")


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
    if len(text) > MAX_LENGTH:
        raise ConditionError(text, None, f"{len(text):,} characters is too long "
                                         f"(at most {MAX_LENGTH:,})")
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
                toks.append(_Tok("num", lexeme, col, t.parse_time(lexeme, "the literal"), "time"))
            elif kind == "typed":
                tp = t.by_name(lexeme.split("#", 1)[0])
                raw = lexeme if tp.kind in (Kind.INT, Kind.BITS, Kind.REAL) else lexeme.split("#", 1)[1]
                toks.append(_Tok("num", lexeme, col, tp.coerce(raw, "the literal"),
                                 Kind.INT if tp.kind is Kind.BITS else tp.kind))
            elif kind == "based" or kind == "int":
                toks.append(_Tok("num", lexeme, col, t.parse_int_literal(lexeme, "the literal"), "int"))
            elif kind == "real":
                toks.append(_Tok("num", lexeme, col, parse_real(lexeme, "the literal"), "real"))
            elif kind == "string":
                body = unescape(lexeme[1:-1])   # IEC's $ escapes, as STRING literals have them
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
        except (t.InvalidValue, ValueError) as e:
            raise ConditionError(text, col, f"{quote(lexeme, 60)} is not a valid literal ({e})") from None
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
            info = resolve(self.program, tok.text)      # IEC names: any case
        except FbdError as e:
            self.error(tok.col, str(e))
        if info.type is None:
            self.error(tok.col, f"{tok.text} is a block's internal storage, not an IEC "
                                f"value; a condition cannot read it")
        self.paths.append(info.path)
        return info

    def path(self, tok: _Tok) -> _Node:
        info = self.lookup(tok)
        kind = Kind.INT if info.type.kind is Kind.BITS else info.type.kind
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
        if fname != "changed" and info.type.kind is not Kind.BOOL:
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
        a, b = _real_literal(a, b), _real_literal(b, a)
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
