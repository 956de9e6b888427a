"""Values of IEC 61131-3 literals, checked as matiec checks them.

The lexer takes literals loosely (``T#`` followed by word characters, a
``16#`` followed by any alphanumerics); this module decides whether the text
is a valid literal and says what is wrong when it is not. Each function takes
the token text and returns a value, or raises :class:`LiteralError` with the
offset of the offending character within the text.
"""

from __future__ import annotations

import datetime as _dt
import re
from fractions import Fraction

__all__ = ["LiteralError", "integer", "based", "real", "typed_number", "duration", "date",
           "time_of_day", "date_and_time", "string", "boolean"]

SIGNED_INTS = {"SINT": 8, "INT": 16, "DINT": 32, "LINT": 64}
UNSIGNED_INTS = {"USINT": 8, "UINT": 16, "UDINT": 32, "ULINT": 64}
BIT_STRINGS = {"BYTE": 8, "WORD": 16, "DWORD": 32, "LWORD": 64}
REALS = ("REAL", "LREAL")


class LiteralError(ValueError):
    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset


_DIGITS = {2: "01", 8: "01234567", 16: "0123456789ABCDEFabcdef"}
_BASE_NAME = {2: "binary", 8: "octal", 16: "hexadecimal"}


def _check_underscores(text: str, offset: int) -> None:
    # IEC: an underscore only between two digits
    if text.startswith("_") or text.endswith("_") or "__" in text:
        pos = text.find("__") if "__" in text else (0 if text.startswith("_") else len(text) - 1)
        raise LiteralError("an underscore in a number must stand between two digits", offset + pos)


def integer(text: str) -> int:
    _check_underscores(text, 0)
    return int(text.replace("_", ""))


def based(text: str, offset: int = 0) -> int:
    """``2#1010``, ``8#17``, ``16#FF_FF``."""
    base_text, _, digits = text.partition("#")
    base = int(base_text)
    offset += len(base_text) + 1
    if not digits:
        raise LiteralError(f"no digits after {base}#", offset)
    allowed = _DIGITS[base]
    for i, c in enumerate(digits):
        if c != "_" and c not in allowed:
            raise LiteralError(f"{c!r} is not a {_BASE_NAME[base]} digit", offset + i)
    _check_underscores(digits, offset)
    return int(digits.replace("_", ""), base)


_REAL = re.compile(r"[+-]?\d(?:_?\d)*\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?\Z")


def real(text: str, offset: int = 0) -> float:
    if not _REAL.match(text):
        raise LiteralError(f"{text!r} is not a real number (IEC reals are written 1.0, 2.5E-3)", offset)
    return float(text.replace("_", ""))


def boolean(text: str) -> bool:
    return text.upper() in ("TRUE", "1")


def typed_number(text: str) -> tuple[str, str, object]:
    """``INT#-5``, ``BYTE#16#FF``, ``REAL#1.5``, ``BOOL#TRUE``: (type, kind, value)."""
    type_name, _, rest = text.partition("#")
    type_name = type_name.upper()
    at = len(type_name) + 1
    if type_name == "BOOL":
        if rest.upper() not in ("TRUE", "FALSE", "0", "1"):
            raise LiteralError(f"a BOOL literal is TRUE, FALSE, 0 or 1, not {rest!r}", at)
        return type_name, "bool", boolean(rest)
    if type_name in REALS:
        return type_name, "real", real(rest, at)
    sign = 1
    body = rest
    if body[:1] in "+-":
        if type_name in BIT_STRINGS:
            raise LiteralError(f"a {type_name} literal has no sign", at)
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
        at += 1
    if "#" in body:
        if sign != 1 or rest[:1] == "+":
            raise LiteralError("a based integer (2#, 8#, 16#) has no sign", at - 1)
        base_text = body.partition("#")[0]
        if base_text not in ("2", "8", "16"):
            raise LiteralError(f"the base of an integer is 2, 8 or 16, not {base_text}", at)
        value = based(body, at)
    else:
        if not re.fullmatch(r"\d[\d_]*", body):
            raise LiteralError(f"{rest!r} is not an integer", at)
        _check_underscores(body, at)
        value = int(body.replace("_", ""))
    value *= sign
    bits = SIGNED_INTS.get(type_name)
    if bits is not None:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        bits = UNSIGNED_INTS.get(type_name) or BIT_STRINGS[type_name]
        lo, hi = 0, (1 << bits) - 1
    if not lo <= value <= hi:
        raise LiteralError(f"{value} does not fit in {type_name} ({lo}..{hi})", 0)
    return type_name, "int", value


# ---------------------------------------------------------------- durations
# TIME (and LTIME, the same type here) counts ns in 64 bits; matiec's timespec goes
# further, but no value beyond this fits a variable or the PLC's clock
TIME_LIMIT_NS = 1 << 63
_NS = {"d": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9,
       "ms": 10**6, "us": 10**3, "ns": 1}
_LIMIT = {"h": 24, "m": 60, "s": 60, "ms": 1000, "us": 1000, "ns": 1000}
_ORDER = ["d", "h", "m", "s", "ms", "us", "ns"]
_COMPONENT = re.compile(r"(\d(?:_?\d)*(?:\.\d(?:_?\d)*)?)(ms|us|ns|d|h|m|s)(_?)", re.I)


def duration(text: str) -> tuple[str, int]:
    """``T#1d2h3m4s5ms``, ``TIME#-1.5s``, ``LTIME#5us``: (type, nanoseconds).

    As matiec: units in decreasing order, each once; the first may be any
    size, the later ones below the next larger unit (``T#1h90m`` is refused,
    ``T#90m`` is not); only the last may have a fraction; an underscore may
    separate units. ``us`` and ``ns`` are IEC 61131-3 ed. 3 (matiec has none).
    """
    prefix, _, rest = text.partition("#")
    type_name = "LTIME" if prefix.upper() in ("LTIME", "LT") else "TIME"
    at = len(prefix) + 1
    sign = 1
    if rest[:1] in "+-":
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
        at += 1
    pos = 0
    total = Fraction(0)
    last_unit = -1
    while pos < len(rest):
        m = _COMPONENT.match(rest, pos)
        if not m:
            raise LiteralError(f"malformed duration {text!r}: expected a number and a unit "
                               "(d, h, m, s, ms, us, ns)", at + pos)
        number, unit, underscore = m.group(1), m.group(2).lower(), m.group(3)
        index = _ORDER.index(unit)
        if index <= last_unit:
            raise LiteralError(f"malformed duration {text!r}: units go from days down to "
                               f"nanoseconds, each once ({unit!r} is out of place)", at + m.start(2))
        value = Fraction(number.replace("_", ""))
        if last_unit >= 0 and value >= _LIMIT[unit]:
            raise LiteralError(f"malformed duration {text!r}: {number}{unit} after a larger unit "
                               f"must be below {_LIMIT[unit]}", at + m.start(1))
        if "." in number and m.end() < len(rest):
            raise LiteralError(f"malformed duration {text!r}: only the last unit may have a fraction",
                               at + m.start(1))
        if underscore and m.end() == len(rest):
            raise LiteralError(f"malformed duration {text!r}: it ends with '_'", at + m.end() - 1)
        total += value * _NS[unit]
        last_unit = index
        pos = m.end()
    if last_unit < 0:
        raise LiteralError(f"malformed duration {text!r}: no value", at)
    if total >= TIME_LIMIT_NS:
        raise LiteralError(f"{text} is out of range for TIME (about ±106,751 days: "
                           f"64-bit nanoseconds)", 0)
    return type_name, sign * int(total)


# ------------------------------------------------------- dates and times of day
def _num(text: str) -> int:
    return int(text.replace("_", ""))


def date(text: str) -> int:
    """``D#2024-01-31``, ``DATE#...``: ns since 1970-01-01, as a DATE is held."""
    _, _, rest = text.partition("#")
    at = len(text) - len(rest)
    return _in_range(_days(rest, text, at) * _DAY_NS, text, at)


def _days(rest: str, text: str, at: int) -> int:
    year, month, day = rest.split("-")
    try:
        return (_dt.date(_num(year), _num(month), _num(day)) - _EPOCH).days
    except (ValueError, OverflowError) as e:
        raise LiteralError(f"invalid date {text!r}: {e}", at) from None


def _daytime(rest: str, text: str, at: int) -> int:
    """ns since midnight; a fraction keeps its ns (nine digits), as matiec's does."""
    hour, minute, second = rest.split(":")
    whole, _, fraction = second.partition(".")
    h, m, s = _num(hour), _num(minute), _num(whole)
    if h > 23 or m > 59 or s > 59:
        raise LiteralError(f"invalid time of day {text!r}: hours go to 23, minutes and seconds to 59", at)
    ns = int(fraction.replace("_", "")[:9].ljust(9, "0")) if fraction else 0
    return ((h * 60 + m) * 60 + s) * 10**9 + ns


def _in_range(ns: int, text: str, at: int) -> int:
    if not -(1 << 63) <= ns < 1 << 63:
        raise LiteralError(f"{text!r} is out of range: a date is held in 64-bit ns from 1970, "
                           f"1677-09-21 to 2262-04-11", at)
    return ns


def time_of_day(text: str) -> int:
    """``TOD#12:30:15.5``, ``TIME_OF_DAY#...``: ns since midnight (digits past the
    ns are cut)."""
    _, _, rest = text.partition("#")
    return _daytime(rest, text, len(text) - len(rest))


def date_and_time(text: str) -> int:
    """``DT#2024-01-31-12:00:00``, ``DATE_AND_TIME#...``: ns since 1970-01-01."""
    _, _, rest = text.partition("#")
    at = len(text) - len(rest)
    parts = rest.split("-")
    return _in_range(_days("-".join(parts[:3]), text, at) * _DAY_NS + _daytime(parts[3], text, at),
                     text, at)


_EPOCH = _dt.date(1970, 1, 1)
_DAY_NS = 86_400 * 10**9


# -------------------------------------------------------------------- strings
_SIMPLE_ESCAPES = {"$": "$", "L": "\n", "N": "\n", "P": "\f", "R": "\r", "T": "\t"}


def string(text: str) -> str:
    """The value of a quoted string with its ``$`` escapes: ``'it$'s'`` is
    ``it's``; in ``'...'`` ``$hh`` is a byte, in ``"..."`` ``$hhhh`` a character."""
    quote = text[0]
    body = text[1:-1]
    width = 2 if quote == "'" else 4
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "$":
            if c < " " or c == "\x7f":
                raise LiteralError("control characters cannot stand in a string; write $T, $N, ...",
                                   i + 1)
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1: i + 2]
        if nxt.upper() in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt.upper()])
            i += 2
        elif nxt == quote:
            out.append(quote)
            i += 2
        else:
            code = body[i + 1: i + 1 + width]
            if len(code) == width and all(ch in _DIGITS[16] for ch in code):
                out.append(chr(int(code, 16)))
                i += 1 + width
            else:
                other = '"' if quote == "'" else "'"
                hint = f" ({other} needs no escape here)" if nxt == other else ""
                raise LiteralError(f"invalid escape ${nxt} in a string: IEC escapes are $$ {'$' + quote} "
                                   f"$L $N $P $R $T and ${'hh' if width == 2 else 'hhhh'}{hint}", i + 1)
    return "".join(out)
