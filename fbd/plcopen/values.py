"""Literals, durations and type names as PLCopen files write them.

The IEC value codec is :mod:`fbd.values` (bounded: no 400-digit TIME, no
infinite REAL, no 5,000-digit integer gets near Python's conversions); this
module adds what is particular to PLCopen files and turns every refusal into a
:class:`PlcOpenError` naming the place: task intervals in TC6 1.0's
``xs:time``, Beremiz's unquoted STRING initial values, the SVGHMI type
aliases, and literals on a wire, which keep their type in their form (a TIME
as a ``timedelta``, a DATE as its IEC text).
"""

from __future__ import annotations

import re

from .. import types as t
from .. import values as fv
from ..errors import InvalidValue
from .source import PlcOpenError

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
    except InvalidValue:
        return None


def _error(e: InvalidValue) -> PlcOpenError:
    return PlcOpenError(str(e))


def duration_us(text: str, where: str) -> int:
    """A TIME literal (``T#1s500ms``, ``t#50ms``, ``TIME#-2m``) in µs (the scheduler's
    unit: its ns rounded to the nearest µs), within TIME's range."""
    try:
        return fv.nearest_us(fv.parse_time(text.strip(), where))
    except InvalidValue as e:
        raise _error(e) from None


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


def literal(text: str, tp: t.DataType | None, where: str):
    """A literal as a wire or a port takes it: coerced to ``tp`` when given; else in
    the form that keeps its type (TIME a timedelta, the date types their IEC text)."""
    # matiec reads "T# 30000ms" (blanks after the prefix), and so do OpenPLC users' files
    text = re.sub(r"^(\s*[A-Za-z_]+#)\s+", r"\1", text)
    try:
        value, tname = fv.parse_literal(text, where)
    except InvalidValue as e:
        raise _error(e) from None
    if tname == "TIME":
        value = run_value(value, t.TIME)
    if tp is None and tname is not None:
        if tname == "TIME":
            return value
        if tname in ("DATE", "TOD", "DT"):
            return fv.format_value(t.by_name(tname), value)
        tp = elementary(tname)
    if tp is not None:
        value = coerce(value, tp, where)
    return value


def coerce(value, tp: t.DataType, where: str):
    """``value`` in ``tp``'s run-time form, as a network port takes it (TIME: timedelta)."""
    try:
        value = tp.coerce(value, where)
    except InvalidValue as e:
        raise _error(e) from None
    return run_value(value, tp)


def run_value(value, tp):
    """A value as a network port or wire takes it (TIME as a timedelta, or as its
    literal where it has ns below the µs, which a timedelta cannot hold)."""
    if tp is not None and tp.kind is fv.Kind.TIME and isinstance(value, int) \
            and not isinstance(value, bool):
        return fv.to_timedelta(value) if value % fv.NS_PER_US == 0 else fv.format_time(value)
    return value


def initial_value(text: str, tp: t.DataType, where: str):
    """An ``initialValue/simpleValue`` for a variable of type ``tp``. Beremiz quotes a
    STRING initial value written without quotes (``STR1 := 3.456789`` in matiec's
    tests is the string '3.456789'); so does this reader, and cuts one longer than
    the type holds. An enumeration's value
    may be written bare (``RUNNING``) or typed (``MODE#RUNNING``)."""
    s = text.strip()
    if tp.kind is fv.Kind.STRING:
        if not s.startswith("'") and not s.endswith("'"):
            s = f"'{s}'"
        try:
            # a longer literal is held cut, as ST's initial value and matiec's are
            return coerce(fv.parse_string(s, where, bare=False)[:tp.capacity], tp, where)
        except InvalidValue as e:
            raise _error(e) from None
    if tp.kind in (fv.Kind.ENUM, fv.Kind.DATE, fv.Kind.TOD, fv.Kind.DT):
        return coerce(s, tp, where)
    return literal(s, tp, where)


__all__ = ["elementary", "duration_us", "interval_us", "literal", "initial_value", "coerce",
           "run_value", "HMI_ALIASES"]
