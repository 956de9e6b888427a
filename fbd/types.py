"""IEC 61131-3 data types: elementary, derived, and the generic families.

How values are held at run time (one Python object per signal, in one flat
list; chosen for speed, documented here because it is a decision):

* BOOL: ``bool``.
* Integers and bit strings: ``int``, wrapped to their width after every
  arithmetic operation exactly as a compiled runtime wraps (two's complement):
  ``INT 32767 + 1 == -32768``, ``UINT 0 - 1 == 65535``.
* REAL: ``float`` holding a value IEEE 754 single precision (binary32) can
  represent, rounded to it wherever matiec's C rounds a ``float`` (each
  operation's result, each block output, store, call parameter, conversion,
  and every value written from outside): so a REAL computes bit for bit what
  it computes on a controller. :mod:`fbd.real32` says how, and what it costs.
* LREAL: ``float`` (IEEE 754 double).
* TIME: ``int`` nanoseconds (64-bit signed, like LTIME: about ±292 years), as
  matiec holds it (a C ``timespec``, seconds and nanoseconds), so ``T#1ms / 3``
  is 333,333 ns here as there. Reading a TIME through the public API gives a
  ``datetime.timedelta``, which holds µs: the ns below the µs are dropped
  toward zero (``get_raw`` and the like give the int); writing accepts a
  ``timedelta`` or an IEC literal such as ``'T#1s500ms'`` or ``'T#1us500ns'``.
* DATE, TIME_OF_DAY, DATE_AND_TIME: ``int`` nanoseconds since 1970-01-01
  00:00 (DATE a whole number of days; TOD since midnight), read as
  ``datetime.date``, ``datetime.time`` and ``datetime.datetime`` (to the µs
  the value is in); 64 bits of ns reach 1677-09-21 to 2262-04-11.
* The PLC's clock as programs read it (NOW, the timers, ``__CURRENT_TIME``) is
  a TIME too, in ns; the scheduler counts µs (``Plc.now_us``), and hands a
  program ``now_us * 1000`` (:data:`fbd.values.NS_PER_US`).
* STRING: ``str`` of at most 126 characters (:data:`STRING_MAX`: IEC leaves the
  length to the implementation; matiec's ``STR_MAX_LEN``); a declared ``STRING[n]``
  (:func:`string_of`) of at most n, up to :data:`STRING_DECLARED_MAX`.
* Enumerations: ``int``, the value's code (0, 1, ... in declaration order
  unless given), read as the value's name.
* Subranges and directly derived types (``TYPE Level : INT (0..100); END_TYPE``,
  ``TYPE Count : DINT := 5; END_TYPE``): as their base type; they are
  assignment-compatible with it (a wire may join them).
* ARRAY: a ``list`` of its elements in row-major order, however many
  dimensions; STRUCT: a ``list`` of its fields' values in declaration order.
  Both are values, not references: every assignment copies (:meth:`DataType.copy`),
  and every new signal table gets its own.

Text for every type (literals in and out) is :mod:`fbd.values`'s job.

Every type is imported from here. The class of them all, :class:`DataType`, and
the elementary types are :mod:`fbd.elementary`'s; the types a program declares
(aliases, STRING[n], subranges, enumerations, arrays, structures) and the limits
on them :mod:`fbd.derived_types`'; the generic families (ANY_NUM, ...) are this
module's.
"""

from __future__ import annotations

import copy as _copy

from . import values as v
from .derived_types import (
    ARRAY_MAX,
    DATA_MAX,
    MAX_TYPE_DEPTH,
    STRING_DECLARED_MAX,
    ArrayType,
    DerivedType,
    EnumType,
    Field,
    SizedString,
    StructType,
    SubrangeType,
    string_of,
)
from .elementary import (
    BOOL,
    BYTE,
    DATE,
    DINT,
    DT,
    DWORD,
    ELEMENTARY,
    INT,
    LINT,
    LREAL,
    LWORD,
    REAL,
    SINT,
    STRING,
    STRING_MAX,
    TIME,
    TOD,
    UDINT,
    UINT,
    ULINT,
    USINT,
    WORD,
    DataType,
    by_name,
)
from .errors import InvalidValue
from .values import Kind, format_time, parse_time

__all__ = [
    "DataType", "Generic", "Kind", "InvalidValue", "ELEMENTARY", "by_name", "parse_time",
    "format_time", "parse_int_literal",
    "EnumType", "SubrangeType", "DerivedType", "ArrayType", "StructType", "Field",
    "BOOL", "SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT",
    "BYTE", "WORD", "DWORD", "LWORD", "REAL", "LREAL", "TIME", "STRING",
    "DATE", "TOD", "DT", "SizedString", "string_of",
    "ANY", "ANY_ELEMENTARY", "ANY_MAGNITUDE", "ANY_NUM", "ANY_REAL", "ANY_INT",
    "ANY_SIGNED", "ANY_UNSIGNED", "ANY_BIT", "ANY_STRING", "ANY_DURATION", "ANY_DATE",
    "ANY_DERIVED", "STRING_MAX", "STRING_DECLARED_MAX", "ARRAY_MAX", "DATA_MAX", "MAX_TYPE_DEPTH",
]

parse_int_literal = v.parse_int


# --------------------------------------------------------------- families
class Generic:
    """A generic type family (ANY_NUM, ANY_BIT, ...) used by polymorphic ports."""

    def __init__(self, name: str, members):
        self.name = name
        self.members = frozenset(members)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __contains__(self, t) -> bool:
        return t in self.members or getattr(t, "canonical", None) in self.members


class _Open(Generic):
    """A family every type of a kind belongs to, user-declared ones included."""

    def __init__(self, name: str, members, test):
        super().__init__(name, members)
        self._test = test

    def __contains__(self, t) -> bool:
        return isinstance(t, DataType) and self._test(t)



ANY_SIGNED = Generic("ANY_SIGNED", (SINT, INT, DINT, LINT))
ANY_UNSIGNED = Generic("ANY_UNSIGNED", (USINT, UINT, UDINT, ULINT))
ANY_INT = Generic("ANY_INT", ANY_SIGNED.members | ANY_UNSIGNED.members)
ANY_REAL = Generic("ANY_REAL", (REAL, LREAL))
ANY_NUM = Generic("ANY_NUM", ANY_INT.members | ANY_REAL.members)
ANY_DURATION = Generic("ANY_DURATION", (TIME,))
ANY_MAGNITUDE = Generic("ANY_MAGNITUDE", ANY_NUM.members | {TIME})
ANY_BIT = Generic("ANY_BIT", (BOOL, BYTE, WORD, DWORD, LWORD))
ANY_STRING = Generic("ANY_STRING", (STRING,))
ANY_DATE = Generic("ANY_DATE", (DATE, TOD, DT))
ANY_ELEMENTARY = Generic("ANY_ELEMENTARY", ELEMENTARY)
ANY_DERIVED = _Open("ANY_DERIVED", (), lambda t: t.canonical not in ELEMENTARY
                    or t is not t.canonical)
#: every type, user-declared ones too
ANY = _Open("ANY", ELEMENTARY, lambda t: True)


def deep_copy(value):
    """A copy of any run-time value sharing no list with it (ARRAY and STRUCT)."""
    return _copy.deepcopy(value) if isinstance(value, list) else value
