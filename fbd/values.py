"""IEC 61131-3 values as text: one codec for every place that reads or shows one.

Literals are parsed and formatted here and nowhere else: the command line
(``--set``, tables, CSV), the debugger (watches, forces, the diagram's
labels), traces and PLCopen files in and out all call :func:`format_value`
and :func:`parse_value`, so a value reads the same everywhere:

=========  ==========================  =====================================
type       run-time form               text
=========  ==========================  =====================================
BOOL       ``bool``                    ``TRUE``, ``FALSE``
integers   ``int``                     ``42``, ``-7``
bit str.   ``int``                     ``16#FF`` (``BOOL`` excepted)
REAL       ``float`` (single values)   ``1.5``, ``0.1``, ``1.0E+30``
LREAL      ``float`` (double)          ``1.5``, ``0.1``, ``1.0E+300``
TIME       ``int`` ns                  ``T#1s500ms``, ``T#1ms2us3ns``
DATE       ``int`` ns since 1970       ``D#2024-01-31``
TOD        ``int`` ns since midnight   ``TOD#12:00:00.5``
DT         ``int`` ns since 1970       ``DT#2024-01-31-12:00:00``
STRING     ``str``                     ``'it$'s'`` (``$`` escapes)
enums      ``int`` (the value's code)  ``MODE#RUNNING``
ARRAY      ``list`` (row-major)        ``[1, 2, 3]``
STRUCT     ``list`` (by field)         ``(X := 1, Y := 2)``
=========  ==========================  =====================================

Parsing is strict and bounded: a literal is at most :data:`MAX_LITERAL`
characters (so no input can ask Python for a 10,000-digit integer), a value
that does not fit its type is refused, never wrapped, and every error names
the place it came from and quotes at most :data:`QUOTE` characters of the
input. The module knows types only through their ``kind`` (a :class:`Kind`)
and a few attributes, so :mod:`fbd.types` builds on it without a cycle.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from enum import StrEnum
from fractions import Fraction

from .errors import InvalidValue
from .real32 import real32_text

#: the longest literal accepted, in characters
MAX_LITERAL = 200
#: how much of a bad input an error message quotes
QUOTE = 200

_EPOCH = _dt.datetime(1970, 1, 1)
#: what TIME and the date types count: nanoseconds, as matiec's timespec holds them
NS_PER_US = 1_000
NS_PER_SECOND = 1_000_000_000
_DAY_NS = 86_400 * NS_PER_SECOND
_TIME_LIMIT = (1 << 63) - 1


class Kind(StrEnum):
    """How a type's values are held and spelled (``DataType.kind``)."""
    BOOL = "bool"
    INT = "int"        # signed and unsigned integers
    BITS = "bits"      # BYTE, WORD, DWORD, LWORD
    REAL = "real"
    TIME = "time"
    DATE = "date"
    TOD = "tod"
    DT = "dt"
    STRING = "string"
    ENUM = "enum"
    ARRAY = "array"
    STRUCT = "struct"


#: kinds held as a Python int that wraps at the type's width
INTEGRAL = frozenset({Kind.INT, Kind.BITS, Kind.TIME, Kind.DATE, Kind.TOD, Kind.DT})
#: kinds whose values are dates and times of day, in ns
DATES = frozenset({Kind.DATE, Kind.TOD, Kind.DT})


def quote(text, limit: int = QUOTE) -> str:
    """``repr`` of ``text``, cut to about ``limit`` characters."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit - 5] + "...'"


def _check_length(text: str, where: str) -> None:
    if len(text) > MAX_LITERAL:
        raise InvalidValue(f"{where}: a literal of {len(text)} characters is too long "
                          f"(at most {MAX_LITERAL}): {quote(text, 60)}")


# ------------------------------------------------------------------- numbers
_INT_TYPES = "SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD"
_INT_LITERAL = re.compile(
    rf"^(?:(?:{_INT_TYPES})#)?"                      # an optional type prefix
    r"(?:([+-]?[0-9]+(?:_[0-9]+)*)"                  # decimal, signed
    r"|(2|8|16)#([0-9A-F]+(?:_[0-9A-F]+)*))$",       # based, unsigned
    re.I)
_REAL_LITERAL = re.compile(
    r"^(?:(?:REAL|LREAL)#)?([+-]?[0-9]+(?:_[0-9]+)*"
    r"(?:\.[0-9]+(?:_[0-9]+)*)?(?:[eE][+-]?[0-9]+)?)$", re.I)


def parse_int(text: str, where: str = "value") -> int:
    """``42``, ``INT#-5``, ``16#FF``, ``2#1010_0101`` -> int (IEC 61131-3 syntax:
    underscores only between digits, a sign only on decimal literals)."""
    body = str(text).strip()
    _check_length(body, where)
    m = _INT_LITERAL.match(body)
    if m:
        decimal, base, digits = m.groups()
        try:
            if decimal is not None:
                return int(decimal.replace("_", ""))
            return int(digits.replace("_", ""), int(base))
        except ValueError:  # a digit beyond its base: 2#102
            pass
    raise InvalidValue(f"{where}: {quote(text)} is not an integer literal")


def parse_real(text: str, where: str = "value") -> float:
    """``1.5``, ``-2.0E-3``, ``REAL#3``, ``1_000.5`` -> float; infinite results
    (``1e999``) are refused, as a compiler refuses them."""
    body = str(text).strip()
    _check_length(body, where)
    m = _REAL_LITERAL.match(body)
    if not m:
        raise InvalidValue(f"{where}: {quote(text)} is not a REAL literal")
    value = float(m.group(1).replace("_", ""))
    if not math.isfinite(value):
        raise InvalidValue(f"{where}: {quote(text)} is out of range for LREAL")
    return value


def format_real(value: float, single: bool = False) -> str:
    """The shortest text that reads back as the same double, or with ``single``
    the same REAL (single precision: REAL 0.1 is ``0.1``, not its double
    ``0.10000000149011612``), in IEC spelling (``1.0E+30`` rather than
    Python's ``1e+30``)."""
    value = float(value)
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    text = real32_text(value) if single else repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        text = f"{mantissa}E{exponent}"
    return text


# ---------------------------------------------------------------------- TIME
_TIME_UNITS = {"d": 86_400 * NS_PER_SECOND, "h": 3_600 * NS_PER_SECOND, "m": 60 * NS_PER_SECOND,
               "s": NS_PER_SECOND, "ms": 1_000_000, "us": NS_PER_US, "ns": 1}
_TIME_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|us|ns|d|h|m|s)", re.I)
_TIME_PREFIX = re.compile(r"^(?:T|TIME|LT|LTIME)#(-?)(.+)$", re.I)


def parse_time(text: str, where: str = "value") -> int:
    """An IEC duration literal (``T#1s500ms``, ``TIME#-2m``, ``t#1.5s``, ``T#2us5ns``) -> ns;
    a fraction of a ns is rounded to the nearest."""
    body = str(text).strip()
    _check_length(body, where)
    m = _TIME_PREFIX.match(body)
    bad = f"{where}: {quote(text)} is not a TIME literal (write it like 'T#1s500ms')"
    if not m:
        raise InvalidValue(bad)
    sign, rest = m.groups()
    rest = rest.replace("_", "")
    total, pos = Fraction(0), 0
    for part in _TIME_PART.finditer(rest):
        if part.start() != pos:
            break
        total += Fraction(part.group(1)) * _TIME_UNITS[part.group(2).lower()]
        pos = part.end()
    if pos != len(rest) or pos == 0:
        raise InvalidValue(bad)
    if total > _TIME_LIMIT + (1 if sign else 0):     # 64 bits: down to -2**63
        raise InvalidValue(f"{where}: {quote(text)} is out of range for TIME (about ±106,751 days: "
                           f"64-bit nanoseconds)")
    value = round(total)
    return -value if sign else value


def nearest_us(ns: int) -> int:
    """A TIME's ns as the scheduler's µs (a cycle, an interval), to the nearest."""
    us, rest = divmod(int(ns), NS_PER_US)
    return us + (rest >= NS_PER_US // 2)


def format_time(ns: int) -> str:
    """ns -> the shortest IEC literal, ``T#1s500ms``, ``T#1us500ns``."""
    ns = int(ns)
    if ns == 0:
        return "T#0s"
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    parts = []
    for unit in ("d", "h", "m", "s", "ms", "us", "ns"):
        size = _TIME_UNITS[unit]
        n, ns = divmod(ns, size)
        if n:
            parts.append(f"{n}{unit}")
    return f"T#{sign}{''.join(parts)}"


# ---------------------------------------------------------- dates and times
_DATE = r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
_TOD = r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.([0-9]{1,9})[0-9]*)?"
_DATE_LITERAL = re.compile(rf"^(?:D|DATE)#{_DATE}$", re.I)
_TOD_LITERAL = re.compile(rf"^(?:TOD|TIME_OF_DAY)#{_TOD}$", re.I)
_DT_LITERAL = re.compile(rf"^(?:DT|DATE_AND_TIME)#{_DATE}-{_TOD}$", re.I)


def _ns_of_day(h, m, s, frac, text, where) -> int:
    h, m, s = int(h), int(m), int(s)
    if h > 23 or m > 59 or s > 59:
        raise InvalidValue(f"{where}: {quote(text)} is not a time of day")
    return ((h * 60 + m) * 60 + s) * NS_PER_SECOND + (int(frac.ljust(9, "0")) if frac else 0)


def _days(y, mo, d, text, where) -> int:
    try:
        return (_dt.date(int(y), int(mo), int(d)) - _EPOCH.date()).days
    except ValueError:
        raise InvalidValue(f"{where}: {quote(text)} is not a date") from None


def parse_date(text: str, where: str = "value") -> int:
    """``D#2024-01-31`` -> ns since 1970-01-01 (a whole number of days)."""
    body = str(text).strip()
    _check_length(body, where)
    m = _DATE_LITERAL.match(body)
    if not m:
        raise InvalidValue(f"{where}: {quote(text)} is not a DATE literal "
                          f"(write it like 'D#2024-01-31')")
    return _in_range(_days(*m.groups(), text, where) * _DAY_NS, text, where)


def parse_tod(text: str, where: str = "value") -> int:
    """``TOD#12:00:00.5`` -> ns since midnight."""
    body = str(text).strip()
    _check_length(body, where)
    m = _TOD_LITERAL.match(body)
    if not m:
        raise InvalidValue(f"{where}: {quote(text)} is not a TIME_OF_DAY literal "
                          f"(write it like 'TOD#12:00:00.5')")
    return _ns_of_day(*m.groups(), text, where)


def parse_dt(text: str, where: str = "value") -> int:
    """``DT#2024-01-31-12:00:00`` -> ns since 1970-01-01 00:00."""
    body = str(text).strip()
    _check_length(body, where)
    m = _DT_LITERAL.match(body)
    if not m:
        raise InvalidValue(f"{where}: {quote(text)} is not a DATE_AND_TIME literal "
                          f"(write it like 'DT#2024-01-31-12:00:00')")
    y, mo, d, h, mi, s, frac = m.groups()
    return _in_range(_days(y, mo, d, text, where) * _DAY_NS + _ns_of_day(h, mi, s, frac, text, where),
                     text, where)


def _in_range(ns: int, text, where) -> int:
    if not -(1 << 63) <= ns < 1 << 63:
        raise InvalidValue(f"{where}: {quote(text)} is out of range (64-bit nanoseconds from 1970 "
                           f"reach 1677-09-21 to 2262-04-11)")
    return ns


def _clock(ns: int) -> str:
    s, frac = divmod(ns, NS_PER_SECOND)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    text = f"{h:02d}:{m:02d}:{s:02d}"
    if frac:
        text += "." + f"{frac:09d}".rstrip("0")
    return text


def _micro(ns: int) -> _dt.timedelta:
    """ns as a timedelta, which holds µs: the ns below the µs dropped (floored: a
    date's or a time of day's clock reads the µs it is in)."""
    return _dt.timedelta(microseconds=int(ns) // NS_PER_US)


def to_date(ns: int) -> _dt.date:
    return (_EPOCH + _micro(ns)).date()


def to_datetime(ns: int) -> _dt.datetime:
    return _EPOCH + _micro(ns)


def to_time_of_day(ns: int) -> _dt.time:
    return (_EPOCH + _micro(int(ns) % _DAY_NS)).time()


def to_timedelta(ns: int) -> _dt.timedelta:
    """A TIME as a timedelta, which holds µs: the ns below the µs dropped toward zero
    (T#1us999ns reads 1 µs, T#-1us999ns -1 µs); the run-time int keeps them."""
    ns = int(ns)
    return _dt.timedelta(microseconds=ns // NS_PER_US if ns >= 0 else -(-ns // NS_PER_US))


#: the ns a DATE or DT may hold: every 64-bit count, 1677-09-21 to 2262-04-11, a date
#: Python's calendar can show
DATE_RANGE = (-(1 << 63), (1 << 63) - 1)


def format_date(ns: int) -> str:
    return f"D#{to_date(ns).isoformat()}"


def format_tod(ns: int) -> str:
    return f"TOD#{_clock(int(ns) % _DAY_NS)}"


def format_dt(ns: int) -> str:
    day, rest = divmod(int(ns), _DAY_NS)
    return f"DT#{to_date(day * _DAY_NS).isoformat()}-{_clock(rest)}"


def ns_of(value) -> int | None:
    """ns of a ``timedelta``, ``date``, ``time`` or ``datetime`` as TIME, DATE, TOD
    and DT hold them."""
    if isinstance(value, _dt.datetime):
        delta = value.replace(tzinfo=None) - _EPOCH
    elif isinstance(value, _dt.date):
        delta = _dt.datetime(value.year, value.month, value.day) - _EPOCH
    elif isinstance(value, _dt.time):
        return (((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000
                + value.microsecond) * NS_PER_US
    elif isinstance(value, _dt.timedelta):
        delta = value
    else:
        return None
    return ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * NS_PER_US


# -------------------------------------------------------------------- strings
_ESCAPES = {"$": "$", "'": "'", '"': '"', "L": "\n", "N": "\n", "P": "\f", "R": "\r",
            "T": "\t"}
_ESCAPE = re.compile(r"\$([0-9A-Fa-f]{2}|.)", re.S)
_SPELL = {"$": "$$", "'": "$'", "\n": "$N", "\f": "$P", "\r": "$R", "\t": "$T"}


def unescape(body: str) -> str:
    """The characters of an IEC string literal's body: ``$$ $' $N $T ...`` and
    ``$hh`` (a character by its code)."""
    def one(m):
        code = m.group(1)
        if len(code) == 2:
            return chr(int(code, 16))
        return _ESCAPES.get(code.upper(), code)
    return _ESCAPE.sub(one, body)


def quote_string(text: str) -> str:
    """``it's`` -> ``'it$'s'``: a STRING literal that reads back as ``text``."""
    out = []
    for ch in str(text):
        if ch in _SPELL:
            out.append(_SPELL[ch])
        elif ch < " " or ch == "\x7f":
            out.append(f"${ord(ch):02X}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def parse_string(text: str, where: str = "value", bare: bool = True) -> str:
    """A STRING literal (``'text'`` with ``$`` escapes; ``"text"`` too), or with
    ``bare`` any other text taken as it is (a command-line value)."""
    body = str(text)
    if len(body) >= 2 and body[0] == body[-1] and body[0] in "'\"":
        return unescape(body[1:-1])
    if bare:
        return body
    raise InvalidValue(f"{where}: {quote(text)} is not a STRING literal (write it like 'text')")


# ------------------------------------------------------------- any literal
def parse_literal(text: str, where: str = "value"):
    """An IEC literal of any elementary type, untyped: ``(value, type name)``.

    The type name is the literal's prefix where it has one (``INT#5`` ->
    ``"INT"``), the family's where its spelling tells (``T#1s`` -> ``"TIME"``,
    ``'a'`` -> ``"STRING"``, ``TRUE`` -> ``"BOOL"``) and None for a bare number.
    Dates and times of day come as ns with their type name.
    """
    s = str(text).strip()
    _check_length(s, where)
    u = s.upper()
    prefix = u.split("#", 1)[0] if "#" in u else ""
    if u in ("TRUE", "FALSE"):
        return u == "TRUE", "BOOL"
    if prefix == "BOOL":
        rest = u[5:]
        if rest in ("TRUE", "1", "FALSE", "0"):
            return rest in ("TRUE", "1"), "BOOL"
    elif prefix in ("T", "TIME", "LT", "LTIME"):
        return parse_time(s, where), "TIME"
    elif prefix in ("D", "DATE"):
        return parse_date(s, where), "DATE"
    elif prefix in ("TOD", "TIME_OF_DAY"):
        return parse_tod(s, where), "TOD"
    elif prefix in ("DT", "DATE_AND_TIME"):
        return parse_dt(s, where), "DT"
    elif prefix in ("REAL", "LREAL"):
        return parse_real(s, where), prefix
    elif prefix in ("STRING", "WSTRING"):
        return parse_string(s.split("#", 1)[1], where, bare=False), "STRING"
    elif len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return unescape(s[1:-1]), "STRING"
    elif prefix and prefix not in ("2", "8", "16"):
        try:
            return parse_int(s, where), prefix
        except InvalidValue:
            return parse_real(s, where), prefix  # INT#1.5 is refused by the type
    if _INT_LITERAL.match(s):
        return parse_int(s, where), None
    if _REAL_LITERAL.match(s):
        return parse_real(s, where), None
    raise InvalidValue(f"{where}: {quote(text)} is not a literal")


# -------------------------------------------------------------- by type
def format_value(tp, raw) -> str:
    """A run-time value of type ``tp`` as IEC text (see the module table); a
    value of unknown type (``tp`` None) as Python shows it, cut short."""
    if tp is None:
        return raw if isinstance(raw, str) and len(raw) <= 60 else _cut(repr(raw))
    kind = tp.kind
    if kind is Kind.BOOL:
        return "TRUE" if raw else "FALSE"
    if kind is Kind.INT:
        return str(int(raw))
    if kind is Kind.BITS:
        return f"16#{int(raw):X}"
    if kind is Kind.REAL:
        return format_real(raw, tp.bits == 32)
    if kind is Kind.TIME:
        return format_time(raw)
    if kind is Kind.DATE:
        return format_date(raw)
    if kind is Kind.TOD:
        return format_tod(raw)
    if kind is Kind.DT:
        return format_dt(raw)
    if kind is Kind.STRING:
        return quote_string(raw)
    if kind is Kind.ENUM:
        return f"{tp.name}#{tp.name_of(raw)}"
    if kind is Kind.ARRAY:
        return _cut("[" + ", ".join(format_value(tp.element, v) for v in raw) + "]")
    if kind is Kind.STRUCT:
        return _cut("(" + ", ".join(f"{f.name} := {format_value(f.type, v)}"
                                    for f, v in zip(tp.fields, raw)) + ")")
    return _cut(repr(raw))


def format_literal(tp, value) -> str:
    """A literal as a program gives it (``True``, ``"T#3s"``, ``5``, a timedelta) in
    IEC form, as ``tp`` reads it: ``TRUE``, ``T#3s``, ``5``, ``'abc'``; a value the
    type refuses as Python shows it (the validator names that mistake elsewhere)."""
    if tp is not None:
        try:
            return format_value(tp, tp.coerce(value))
        except (InvalidValue, ValueError, TypeError):
            pass
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, _dt.timedelta):
        return format_time(ns_of(value))
    if isinstance(value, _dt.datetime):
        return format_dt(ns_of(value))
    if isinstance(value, _dt.date):
        return format_date(ns_of(value))
    if isinstance(value, _dt.time):
        return format_tod(ns_of(value))
    if isinstance(value, float):
        return format_real(value)
    if isinstance(value, str):
        try:
            parse_literal(value)       # already IEC text: T#3s, 16#FF, 'abc'
            return value
        except InvalidValue:
            return quote_string(value)
    return str(value)


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def parse_value(tp, text: str, where: str = "value"):
    """``text`` as a run-time value of type ``tp``: its IEC literal, typed or not
    (``TRUE``, ``1``, ``16#FF``, ``T#1s``, ``'text'`` or bare text for a STRING,
    ``RUNNING`` or ``MODE#RUNNING`` for an enumeration). Out of range is refused."""
    body = str(text).strip()
    kind = tp.kind
    if kind is Kind.STRING:
        return tp.coerce(parse_string(str(text), where), where)
    _check_length(body, where)
    if kind is Kind.BOOL and body.upper() in ("1", "0", "BOOL#1", "BOOL#0"):
        return body.endswith("1")
    if kind in DATES or kind is Kind.TIME:  # T#5s, TIME#5s, 5s on the command line
        prefix = body.split("#", 1)[0].upper() if "#" in body else ""
        if not prefix and kind is Kind.TIME:
            body = "T#" + body
    return tp.coerce(body, where)


def csv_value(tp, raw):
    """A run-time value as a CSV cell holds it, for spreadsheets and plots: BOOL
    0/1, numbers as numbers, TIME in seconds (``1.500000``); other types as their
    IEC text."""
    if tp is None:
        return raw
    kind = tp.kind
    if kind is Kind.BOOL:
        return int(bool(raw))
    if kind is Kind.INT or kind is Kind.BITS:
        return int(raw)
    if kind is Kind.REAL:
        return format_real(raw, tp.bits == 32)
    if kind is Kind.TIME:
        # seconds to the µs as ever, with the ns digits only where a value has them
        return f"{int(raw) / NS_PER_SECOND:.{6 if int(raw) % NS_PER_US == 0 else 9}f}"
    if kind is Kind.STRING:
        return raw
    return format_value(tp, raw)


def json_value(tp, raw):
    """A run-time value as JSON holds it: BOOL true/false, numbers as numbers,
    TIME in seconds, dates and strings as IEC text or plain text."""
    if tp is None:
        return raw if isinstance(raw, (str, int, float, bool)) or raw is None else repr(raw)
    kind = tp.kind
    if kind is Kind.BOOL:
        return bool(raw)
    if kind in (Kind.INT, Kind.BITS):
        return int(raw)
    if kind is Kind.REAL:
        return float(raw)
    if kind is Kind.TIME:
        return int(raw) / NS_PER_SECOND
    if kind is Kind.STRING:
        return raw
    if kind is Kind.ARRAY:
        return [json_value(tp.element, v) for v in raw]
    if kind is Kind.STRUCT:
        return {f.name: json_value(f.type, v) for f, v in zip(tp.fields, raw)}
    return format_value(tp, raw)


__all__ = ["Kind", "INTEGRAL", "DATES", "InvalidValue", "MAX_LITERAL", "quote",
           "parse_int", "parse_real", "format_real", "parse_time", "format_time",
           "parse_date", "parse_tod", "parse_dt", "format_date", "format_tod", "format_dt",
           "to_date", "to_datetime", "to_time_of_day", "to_timedelta", "ns_of", "NS_PER_US", "nearest_us",
           "NS_PER_SECOND", "unescape", "quote_string",
           "parse_string", "parse_literal", "format_value", "format_literal", "parse_value",
           "csv_value",
           "json_value"]
