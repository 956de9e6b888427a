"""IEC 61131-3 values as OPC UA values, both ways (docs/opcua.md's type table).

:func:`codec` gives, for one IEC type, the OPC UA data type a node declares, the
Variant type its values travel in, and the two conversions: the run-time value
(what the PLC's table holds: TIME as integer ns, REAL as a float already rounded
to binary32, an ARRAY as a flat list) to a Variant, and a client's Variant back
to a run-time value, or the status code that refuses it. Every conversion is
exact, so a value read back is the value written, bit for bit (a REAL travels
as a Float, whose 32 bits are the REAL's own), but for two: a Duration's double
of ms holds a TIME's ns exactly up to about 52 days (2**52 ns), and a
DateTime, which asyncua gives as a Python datetime, holds µs (the ns of a DT
below its µs are not sent).
"""

from __future__ import annotations

import datetime as _dt
import math
from fractions import Fraction
from typing import Callable, NamedTuple

from asyncua import ua

from .. import types as t
from ..errors import InvalidValue
from ..values import NS_PER_US, Kind

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_DAY_NS = 86_400_000_000_000
#: what OPC UA's DateTime can hold (1601-01-01 to 9999-12-31), in µs from 1970
_DATETIME_US = (-11_644_473_600_000_000, 253_402_300_799_999_999)

_SIGNED = {8: ua.VariantType.SByte, 16: ua.VariantType.Int16, 32: ua.VariantType.Int32,
           64: ua.VariantType.Int64}
_UNSIGNED = {8: ua.VariantType.Byte, 16: ua.VariantType.UInt16, 32: ua.VariantType.UInt32,
             64: ua.VariantType.UInt64}
DURATION = ua.NodeId(ua.ObjectIds.Duration)
ENUMERATION = ua.NodeId(ua.ObjectIds.Enumeration)


class SharedValue(ua.DataValue):
    """A DataValue no one changes once made: asyncua deep-copies the value it hands
    each monitored item (60 µs and more a copy, most of a notification's cost), which
    for one of these is the value itself."""

    def __deepcopy__(self, memo):
        return self


class Refused(Exception):
    """A client's value that cannot be written: ``status`` is the OPC UA code."""

    def __init__(self, status: int, why: str):
        super().__init__(why)
        self.status = status


class Codec(NamedTuple):
    """How values of one IEC type travel (see the module)."""
    data_type: ua.NodeId                 # the node's DataType attribute
    variant: ua.VariantType              # the Variant type of its values
    encode: Callable                     # run-time value -> the Variant's value
    decode: Callable                     # the Variant's value -> run-time value (or Refused)
    dims: tuple = ()                     # an array's dimensions (lengths), else ()


def codec(tp: t.DataType) -> Codec | None:
    """The codec of an elementary IEC type, an enumeration or an ARRAY of either;
    None for a structure (exposed as an object of its fields) and for an ARRAY of
    structures (an object per element)."""
    if tp.kind is Kind.ARRAY:
        inner = codec(tp.element)
        if inner is None or inner.dims:
            return None
        return _array(tp, inner)
    if tp.kind is Kind.STRUCT:
        return None
    return _scalar(tp)


def _scalar(tp: t.DataType) -> Codec:
    kind = tp.kind
    if kind is Kind.BOOL:
        return _plain(tp, ua.VariantType.Boolean, bool)
    if kind is Kind.INT or kind is Kind.BITS:
        vt = (_SIGNED if tp.signed and kind is Kind.INT else _UNSIGNED)[tp.bits]
        return _plain(tp, vt, int)
    if kind is Kind.REAL:
        return _plain(tp, ua.VariantType.Float if tp.bits == 32 else ua.VariantType.Double,
                      float)
    if kind is Kind.STRING:
        return _plain(tp, ua.VariantType.String, str)
    if kind is Kind.ENUM:
        return Codec(ENUMERATION, ua.VariantType.Int32, int, _checked(tp, int))
    if kind is Kind.TIME or kind is Kind.TOD:
        return Codec(DURATION, ua.VariantType.Double, _milliseconds, _duration(tp))
    if kind is Kind.DATE or kind is Kind.DT:
        return Codec(ua.NodeId(ua.VariantType.DateTime.value), ua.VariantType.DateTime,
                     _datetime, _from_datetime(tp))
    raise TypeError(f"no OPC UA form for {tp.name}")   # every kind is above


def _plain(tp, vt: ua.VariantType, python: type) -> Codec:
    return Codec(ua.NodeId(vt.value), vt, python, _checked(tp, python))


def _checked(tp, python: type):
    """A Variant's value -> the run-time value, through the type's own check (a
    subrange's bounds, STRING's length, a REAL rounded, which a Float already is)."""
    def decode(value):
        if value is None and python is str:
            value = ""            # a null String is the empty one
        if not isinstance(value, python) or (python is int and isinstance(value, bool)):
            raise Refused(ua.StatusCodes.BadTypeMismatch, f"{value!r} is not a {tp.name}")
        try:
            return tp.coerce(value)
        except InvalidValue as e:
            raise Refused(ua.StatusCodes.BadOutOfRange, str(e)) from None
    return decode


def _milliseconds(ns: int) -> float:
    return ns / 1_000_000


def _duration(tp):
    """A Duration (milliseconds, a Double) -> ns, TIME's and TOD's resolution;
    a fraction of a ns is rounded to the nearest (of the double's exact value)."""
    def decode(ms):
        if not isinstance(ms, float) or not math.isfinite(ms):
            raise Refused(ua.StatusCodes.BadTypeMismatch if not isinstance(ms, float)
                          else ua.StatusCodes.BadOutOfRange, f"{ms!r} is not a {tp.name}")
        ns = round(Fraction(ms) * 1_000_000)
        if tp.kind is Kind.TOD and not 0 <= ns < _DAY_NS:
            raise Refused(ua.StatusCodes.BadOutOfRange,
                          f"{ms!r} ms is not a time of day (0 <= ms < 86400000)")
        if not tp.min <= ns <= tp.max:
            raise Refused(ua.StatusCodes.BadOutOfRange, f"{ms!r} ms is out of range for "
                                                        f"{tp.name}")
        return ns
    return decode


def _datetime(ns: int) -> _dt.datetime:
    low, high = _DATETIME_US
    return _EPOCH + _dt.timedelta(microseconds=min(max(ns // NS_PER_US, low), high))


def _from_datetime(tp):
    """A DateTime (UTC; a naive one is taken as UTC, as asyncua decodes them) -> ns
    since 1970. A DATE takes a midnight only: a DATE holds days."""
    def decode(when):
        if not isinstance(when, _dt.datetime):
            raise Refused(ua.StatusCodes.BadTypeMismatch, f"{when!r} is not a {tp.name}")
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.timezone.utc)
        ns = (when - _EPOCH) // _dt.timedelta(microseconds=1) * NS_PER_US
        if tp.kind is Kind.DATE and ns % _DAY_NS:
            raise Refused(ua.StatusCodes.BadOutOfRange,
                          f"{when.isoformat()} is not a DATE (a midnight, UTC)")
        if not tp.min <= ns <= tp.max:
            raise Refused(ua.StatusCodes.BadOutOfRange, f"{when} is out of range for {tp.name}")
        return ns
    return decode


def _array(tp: t.ArrayType, inner: Codec) -> Codec:
    """An ARRAY travels as an OPC UA array of its elements; one of several
    dimensions as a matrix (nested lists, row-major as IEC lays it out)."""
    size = tp.size
    encode_one, decode_one = inner.encode, inner.decode
    dims = tuple(hi - lo + 1 for lo, hi in tp.dims)
    rows = dims[1:]

    def encode(raw):
        items = [encode_one(x) for x in raw]
        for n in reversed(rows):
            items = [items[k:k + n] for k in range(0, len(items), n)]
        return items

    def decode(values):
        flat = list(_flatten(values)) if isinstance(values, list) else None
        if flat is None or len(flat) != size:
            got = f"{len(flat)} values" if flat is not None else repr(values)
            raise Refused(ua.StatusCodes.BadTypeMismatch, f"{got} for {tp.name}, which has "
                                                          f"{size}")
        return [decode_one(x) for x in flat]
    return Codec(inner.data_type, inner.variant, encode, decode, dims)


def _flatten(values):
    for x in values:
        if isinstance(x, list):
            yield from _flatten(x)
        else:
            yield x


__all__ = ["Codec", "codec", "Refused", "SharedValue", "DURATION"]
