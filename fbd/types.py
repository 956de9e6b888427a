"""IEC 61131-3 elementary data types and the generic type families.

How values are held at run time (one Python object per signal, in one flat
list; chosen for speed, documented here because it is a decision):

* BOOL: ``bool``.
* Integers and bit strings: ``int``, wrapped to their width after every
  arithmetic operation exactly as a compiled runtime wraps (two's complement):
  ``INT 32767 + 1 == -32768``, ``UINT 0 - 1 == 65535``.
* REAL and LREAL: ``float`` (IEEE 754 double). REAL is *not* rounded to single
  precision after each operation; programs that depend on float32 rounding
  see more precision here than on a 32-bit controller.
* TIME: ``int`` microseconds (64-bit signed, like LTIME). Reading a TIME
  through the public API gives a ``datetime.timedelta``; writing accepts a
  ``timedelta`` or an IEC literal such as ``'T#1s500ms'``.
* STRING: ``str`` (at most 254 characters, IEC's default length).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from functools import cached_property

from .errors import FbdError

__all__ = [
    "DataType", "Generic", "TypeError_", "ELEMENTARY", "by_name", "parse_time",
    "BOOL", "SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT",
    "BYTE", "WORD", "DWORD", "LWORD", "REAL", "LREAL", "TIME", "STRING",
    "ANY", "ANY_ELEMENTARY", "ANY_MAGNITUDE", "ANY_NUM", "ANY_REAL", "ANY_INT",
    "ANY_SIGNED", "ANY_UNSIGNED", "ANY_BIT", "ANY_STRING", "ANY_DURATION",
    "STRING_MAX",
]

STRING_MAX = 254


class TypeError_(FbdError, ValueError):
    """A value that does not fit the IEC type it is written to."""


@dataclass(frozen=True, eq=False)
class DataType:
    """One IEC elementary type. Identity is equality: each type exists once."""

    name: str
    kind: str  # "bool" | "int" | "bits" | "real" | "time" | "string"
    bits: int = 0
    signed: bool = False

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    # -- ranges -----------------------------------------------------------
    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def is_integral(self) -> bool:
        """Held as a Python int that wraps at ``bits`` (integers, bit strings, TIME)."""
        return self.kind in ("int", "bits", "time")

    @cached_property
    def default(self):
        """The IEC initial value: FALSE, 0, 0.0, T#0s, ''."""
        return {"bool": False, "real": 0.0, "string": ""}.get(self.kind, 0)

    # -- code generation ----------------------------------------------------
    def wrap(self, expr: str) -> str:
        """A Python expression that wraps ``expr`` to this type's width.

        Written as arithmetic and comparisons (no call) so it stays cheap in
        the hot loop.
        """
        if not self.is_integral:
            return expr
        mask = (1 << self.bits) - 1
        if self.signed:
            # Values are nearly always in range: two comparisons allocate nothing,
            # where the masking arithmetic makes three new ints (about 2x slower).
            # Nested wraps are safe: each reads _w right after assigning it.
            half = 1 << (self.bits - 1)
            return (f"(_w if {-half} <= (_w := {expr}) <= {half - 1} "
                    f"else ((_w + {half}) & {mask}) - {half})")
        return f"(({expr}) & {mask})"

    def wrap_into(self, target: str, expr: str) -> list[str]:
        """Statements that assign ``expr`` to ``target`` wrapped to this type's
        width, where ``expr`` is the sum or difference of two values of this
        type: it is then less than one width out of range, and one addition or
        subtraction of 2**bits brings it back.

        The scan's commonest arithmetic (ADD and SUB of two inputs) uses this
        instead of :meth:`wrap`: against the expression it is 12 bytes less
        bytecode and three fewer instructions in range, and compiles faster.
        """
        if not self.is_integral:
            return [f"{target} = {expr}"]
        width = 1 << self.bits
        return [f"{target} = {expr}",
                f"if {target} > {self.max}: {target} -= {width}",
                f"elif {target} < {self.min}: {target} += {width}"]

    # -- values in and out ---------------------------------------------------
    def wrap_value(self, value: int) -> int:
        mask = (1 << self.bits) - 1
        if self.signed:
            half = 1 << (self.bits - 1)
            return ((value + half) & mask) - half
        return value & mask

    def coerce(self, value, where: str = "value"):
        """Check and convert a user-supplied value to the run-time form.

        Raises TypeError_ naming ``where`` for anything that does not fit; never
        wraps silently (a literal out of range is a mistake, not an overflow).
        """
        if type(value).__module__ == "numpy" and hasattr(value, "item"):
            value = value.item()  # a NumPy scalar, e.g. read back from a trace's arrays
        kind = self.kind
        if kind == "bool":
            if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
                return bool(value)
            if isinstance(value, str) and value.upper() in ("TRUE", "FALSE"):
                return value.upper() == "TRUE"
        elif kind in ("int", "bits"):
            if isinstance(value, str):
                value = parse_int_literal(value, where)
            if isinstance(value, int) and not isinstance(value, bool):
                if self.min <= value <= self.max:
                    return value
                raise TypeError_(f"{where}: {value} is out of range for {self.name} "
                                 f"({self.min}..{self.max})")
            if isinstance(value, bool) and kind == "bits":
                return int(value)
        elif kind == "real":
            if isinstance(value, str):
                try:
                    return float(value.split("#", 1)[-1].replace("_", ""))
                except ValueError:
                    pass
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
        elif kind == "time":
            us = None
            if isinstance(value, _dt.timedelta):
                us = value.days * 86_400_000_000 + value.seconds * 1_000_000 + value.microseconds
            elif isinstance(value, str):
                us = parse_time(value, where)
            if us is not None:
                if not self.min <= us <= self.max:
                    raise TypeError_(f"{where}: {value!r} is out of range for TIME "
                                     f"(about ±106751 days)")
                return us
        elif kind == "string":
            if isinstance(value, str):
                if len(value) > STRING_MAX:
                    raise TypeError_(f"{where}: string of {len(value)} characters is longer "
                                     f"than STRING's {STRING_MAX}")
                return value
        article = "an" if self.name[0] in "AEIOU" else "a"
        raise TypeError_(f"{where}: {value!r} is not {article} {self.name}")

    def to_python(self, raw):
        """The public form of a run-time value (TIME becomes a timedelta)."""
        if self.kind == "time":
            return _dt.timedelta(microseconds=raw)
        return raw

    def literal(self, raw) -> str:
        """Python source for a run-time value, for the code generator."""
        return repr(raw)


class Generic:
    """A generic type family (ANY_NUM, ANY_BIT, ...) used by polymorphic ports."""

    def __init__(self, name: str, members):
        self.name = name
        self.members = frozenset(members)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __contains__(self, t) -> bool:
        return t in self.members


BOOL = DataType("BOOL", "bool", 1)
SINT = DataType("SINT", "int", 8, True)
INT = DataType("INT", "int", 16, True)
DINT = DataType("DINT", "int", 32, True)
LINT = DataType("LINT", "int", 64, True)
USINT = DataType("USINT", "int", 8)
UINT = DataType("UINT", "int", 16)
UDINT = DataType("UDINT", "int", 32)
ULINT = DataType("ULINT", "int", 64)
BYTE = DataType("BYTE", "bits", 8)
WORD = DataType("WORD", "bits", 16)
DWORD = DataType("DWORD", "bits", 32)
LWORD = DataType("LWORD", "bits", 64)
REAL = DataType("REAL", "real", 32, True)
LREAL = DataType("LREAL", "real", 64, True)
TIME = DataType("TIME", "time", 64, True)
STRING = DataType("STRING", "string")

ELEMENTARY = (BOOL, SINT, INT, DINT, LINT, USINT, UINT, UDINT, ULINT,
              BYTE, WORD, DWORD, LWORD, REAL, LREAL, TIME, STRING)
_BY_NAME = {t.name: t for t in ELEMENTARY}

ANY_SIGNED = Generic("ANY_SIGNED", (SINT, INT, DINT, LINT))
ANY_UNSIGNED = Generic("ANY_UNSIGNED", (USINT, UINT, UDINT, ULINT))
ANY_INT = Generic("ANY_INT", ANY_SIGNED.members | ANY_UNSIGNED.members)
ANY_REAL = Generic("ANY_REAL", (REAL, LREAL))
ANY_NUM = Generic("ANY_NUM", ANY_INT.members | ANY_REAL.members)
ANY_DURATION = Generic("ANY_DURATION", (TIME,))
ANY_MAGNITUDE = Generic("ANY_MAGNITUDE", ANY_NUM.members | {TIME})
ANY_BIT = Generic("ANY_BIT", (BOOL, BYTE, WORD, DWORD, LWORD))
ANY_STRING = Generic("ANY_STRING", (STRING,))
ANY_ELEMENTARY = Generic("ANY_ELEMENTARY", ELEMENTARY)
ANY = Generic("ANY", ELEMENTARY)


def by_name(name: str) -> DataType:
    try:
        return _BY_NAME[name.upper()]
    except KeyError:
        raise TypeError_(f"unknown type {name!r}; known: {', '.join(_BY_NAME)}") from None


_INT_TYPES = "SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD"
_INT_LITERAL = re.compile(
    rf"^(?:(?:{_INT_TYPES})#)?"                      # an optional type prefix
    r"(?:([+-]?[0-9]+(?:_[0-9]+)*)"                  # decimal, signed
    r"|(2|8|16)#([0-9A-F]+(?:_[0-9A-F]+)*))$",       # based, unsigned
    re.I)


def parse_int_literal(text: str, where: str = "value") -> int:
    """``42``, ``INT#-5``, ``16#FF``, ``2#1010_0101`` → int (IEC 61131-3 syntax:
    underscores only between digits, a sign only on decimal literals)."""
    m = _INT_LITERAL.match(text.strip())
    if m:
        decimal, base, digits = m.groups()
        try:
            if decimal is not None:
                return int(decimal.replace("_", ""))
            return int(digits.replace("_", ""), int(base))
        except ValueError:
            pass
    raise TypeError_(f"{where}: {text!r} is not an integer literal")


_TIME_UNITS = {"d": 86_400_000_000, "h": 3_600_000_000, "m": 60_000_000,
               "s": 1_000_000, "ms": 1_000, "us": 1, "ns": 0.001}
_TIME_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|us|ns|d|h|m|s)", re.I)


def parse_time(text: str, where: str = "value") -> int:
    """An IEC duration literal (``T#1s500ms``, ``TIME#-2m``, ``t#1.5s``) → µs."""
    body = text.strip()
    m = re.match(r"^(?:T|TIME|LT|LTIME)#(-?)(.+)$", body, re.I)
    if not m:
        raise TypeError_(f"{where}: {text!r} is not a TIME literal (write it like 'T#1s500ms')")
    sign, rest = m.groups()
    rest = rest.replace("_", "")
    total, pos = 0.0, 0
    for part in _TIME_PART.finditer(rest):
        if part.start() != pos:
            break
        total += float(part.group(1)) * _TIME_UNITS[part.group(2).lower()]
        pos = part.end()
    if pos != len(rest) or pos == 0:
        raise TypeError_(f"{where}: {text!r} is not a TIME literal (write it like 'T#1s500ms')")
    value = round(total)
    return -value if sign else value


def format_time(us: int) -> str:
    """µs → the shortest IEC literal, ``T#1s500ms``."""
    if us == 0:
        return "T#0s"
    sign, us = ("-", -us) if us < 0 else ("", us)
    parts = []
    for unit in ("d", "h", "m", "s", "ms", "us"):
        size = _TIME_UNITS[unit]
        n, us = divmod(us, size)
        if n:
            parts.append(f"{n}{unit}")
    return f"T#{sign}{''.join(parts)}"
