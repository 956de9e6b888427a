"""Literals, durations and type names as PLCopen files write them.

Every function here takes text from the file and either returns a Python value
of the simulator's run-time form or raises :class:`PlcOpenError` naming the
place; none lets a ``ValueError``, ``OverflowError`` or a multi-megabyte
message escape, whatever the text (a duration with hundreds of digits,
``REAL#abc``, ``1e999``, an integer with 5,000 digits).
"""

from __future__ import annotations

import datetime as _dt
import math
import re

from .. import types as t
from .source import PlcOpenError, quote

#: longer literal texts are refused before they are parsed (a STRING literal
#: holds at most 254 characters, each at most 3 with its escape, plus quotes)
MAX_LITERAL_CHARS = 1024
_NUM = re.compile(r"^[+-]?[0-9][0-9_]*$")
_REAL = re.compile(r"^[+-]?[0-9][0-9_]*(\.[0-9][0-9_]*)?([eE][+-]?[0-9]+)?$")
_TIME_PREFIX = re.compile(r"^(T|TIME|LT|LTIME)#", re.I)

#: Beremiz's SVGHMI extension declares these in its own library (svghmi/pous.xml)
#: as plain aliases; projects using the HMI read and write them like the base type
HMI_ALIASES = {f"HMI_{n}": n for n in ("SINT", "INT", "DINT", "LINT", "USINT", "UINT",
                                       "UDINT", "ULINT", "REAL", "STRING", "BOOL")}
HMI_ALIASES["HMI_NODE"] = "BOOL"


def elementary(name: str) -> t.DataType | None:
    """The elementary type called ``name`` (any case; SVGHMI's aliases too), or None."""
    if not name or len(name) > 64:
        return None
    name = HMI_ALIASES.get(name.upper(), name)
    try:
        return t.by_name(name)
    except t.TypeError_:
        return None


def duration_us(text: str, where: str) -> int:
    """A TIME literal (``T#1s500ms``, ``t#50ms``, ``TIME#-2m``) in µs, within TIME's range."""
    s = text.strip()
    if len(s) > MAX_LITERAL_CHARS:
        raise PlcOpenError(f"{where}: a duration of {len(s)} characters is too long to be one")
    try:
        us = t.parse_time(s, where)
    except t.TypeError_ as e:
        raise PlcOpenError(str(e)) from None
    except (OverflowError, ValueError):
        raise PlcOpenError(f"{where}: {quote(s)} is out of range for TIME "
                           f"(about ±106751 days)") from None
    if not t.TIME.min <= us <= t.TIME.max:
        raise PlcOpenError(f"{where}: {quote(s)} is out of range for TIME (about ±106751 days)")
    return us


def interval_us(text: str, where: str) -> int:
    """A task interval: an IEC duration, a bare one (``20ms``), or the xs:time of
    TC6 1.0 files (``00:00:00.020``), as Beremiz converts them."""
    s = text.strip()
    m = re.match(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?Z?$", s)
    if m:
        h, mi, sec, frac = m.groups()
        us = (int(h) * 3600 + int(mi) * 60 + int(sec)) * 1_000_000
        return us + (round(float(frac) * 1_000_000) if frac else 0)
    return duration_us(s if "#" in s else "T#" + s, where)


def real(text: str, where: str) -> float:
    """A REAL literal's value: finite (``1e999`` is refused, it is no REAL)."""
    body = text.replace("_", "")
    try:
        value = float(body)
    except ValueError:
        raise PlcOpenError(f"{where}: {quote(text)} is not a REAL literal") from None
    if not math.isfinite(value):
        raise PlcOpenError(f"{where}: {quote(text)} is out of range for any REAL (it would "
                           f"be {value}); IEC literals are finite")
    return value


def integer(text: str, where: str) -> int:
    s = text.strip()
    digits = len(re.sub(r"[^0-9A-Fa-f]", "", s))
    if digits > 80:     # far beyond LWORD in any base: refuse before converting
        raise PlcOpenError(f"{where}: {quote(s)} ({digits} digits) is out of range for "
                           f"every IEC integer type")
    try:
        return t.parse_int_literal(s, where)
    except t.TypeError_ as e:
        raise PlcOpenError(str(e)) from None


def literal(text: str, tp: t.DataType | None, where: str):
    """A literal's run-time value, coerced to ``tp`` when given (TIME as a timedelta)."""
    s = text.strip()
    if len(s) > MAX_LITERAL_CHARS:
        raise PlcOpenError(f"{where}: a literal of {len(s)} characters is too long")
    u = s.upper()
    if _TIME_PREFIX.match(u):
        value = _dt.timedelta(microseconds=duration_us(s, where))
    elif u in ("TRUE", "FALSE"):
        value = u == "TRUE"
    elif u.startswith("BOOL#"):
        rest = u[5:]
        if rest not in ("TRUE", "FALSE", "0", "1"):
            raise PlcOpenError(f"{where}: {quote(s)} is not a BOOL literal")
        value = rest in ("TRUE", "1")
    elif len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        value = unescape(s[1:-1])
    elif "#" in s and s.split("#", 1)[0].upper() in ("REAL", "LREAL"):
        prefix, body = s.split("#", 1)
        value = real(body, where)
        if tp is None:
            tp = t.by_name(prefix)
    elif "#" in s or _NUM.match(s):
        value = integer(s, where)
        prefix = s.split("#", 1)[0].upper() if "#" in s else ""
        if prefix and prefix not in ("2", "8", "16") and tp is None:
            tp = elementary(prefix)
    elif _REAL.match(s):
        value = real(s, where)
    else:
        raise PlcOpenError(f"{where}: {quote(s)} is not a literal")
    if tp is not None:
        value = coerce(value, tp, where)
    return value


def coerce(value, tp: t.DataType, where: str):
    """``value`` in ``tp``'s run-time form, as a network port takes it (TIME: timedelta)."""
    try:
        value = tp.coerce(value, where)
    except t.TypeError_ as e:
        raise PlcOpenError(_clip(str(e))) from None
    return run_value(value, tp)


def run_value(value, tp):
    """A value as a network port or wire takes it (TIME as a timedelta)."""
    if tp is not None and tp.kind == "time" and isinstance(value, int) \
            and not isinstance(value, bool):
        return _dt.timedelta(microseconds=value)
    return value


def initial_value(text: str, tp: t.DataType, where: str):
    """An ``initialValue/simpleValue`` for a variable of type ``tp``. Beremiz quotes a
    STRING initial value written without quotes (``STR1 := 3.456789`` in matiec's
    tests is the string '3.456789'); so does this reader."""
    s = text.strip()
    if tp.kind == "string" and not s.startswith("'") and not s.endswith("'"):
        s = f"'{s}'"
    return literal(s, tp, where)


def is_literal(text: str) -> bool:
    try:
        literal(text, None, "")
        return True
    except PlcOpenError:
        return False


_ESCAPES = {"$": "$", "'": "'", '"': '"', "L": "\n", "N": "\n", "P": "\f", "R": "\r",
            "T": "\t"}


def unescape(body: str) -> str:
    """IEC string escapes: $$ $' $N $T ... and $hh (a character by its code)."""
    return re.sub(r"\$([0-9A-Fa-f]{2}|.)",
                  lambda m: _ESCAPES.get(m.group(1).upper(), None) or
                  (chr(int(m.group(1), 16)) if len(m.group(1)) == 2 else m.group(1)), body)


def _clip(message: str) -> str:
    return message if len(message) <= 600 else message[:600] + "..."


__all__ = ["elementary", "duration_us", "interval_us", "literal", "initial_value", "coerce",
           "run_value", "is_literal", "unescape", "real", "integer", "HMI_ALIASES"]
