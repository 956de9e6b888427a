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
"""

from __future__ import annotations

import copy as _copy
import datetime as _dt
import math
from dataclasses import dataclass, field
from functools import cached_property

from . import values as v
from .errors import InvalidValue
from .real32 import int_to_real32, real32_code, round_real32
from .values import Kind, format_time, parse_time  # noqa: F401  (part of this module's API)

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

#: what a STRING holds: matiec's STR_MAX_LEN (its C STRING has no other length), so
#: string functions, whose parameters and results are STRINGs, cut where matiec does
STRING_MAX = 126
#: the longest STRING[n] one may declare (IEC leaves it open): INT's largest, so every
#: length and position fits an INT, as LEN and FIND give (PLCnext: 32,766; TwinCAT: none)
STRING_DECLARED_MAX = 32767
#: the most elementary values one value may hold (an ARRAY, a STRUCT, however nested)
ARRAY_MAX = 1 << 20
#: the most elementary values a POU instance, or a configuration, holds in all (its
#: variables, arrays and structures whole, its FB instances'): four of the largest
#: arrays; a front end checks it on the declarations, before any value is made
DATA_MAX = 4 * ARRAY_MAX
#: the most types one may be built on, itself included: an alias of an alias, an
#: ARRAY of a STRUCT of an ARRAY ... (a deeper chain is refused: every walk over a
#: value recurses once per level)
MAX_TYPE_DEPTH = 32

parse_int_literal = v.parse_int


@dataclass(frozen=True, eq=False)
class DataType:
    """One IEC type. Identity is equality: each type exists once (derived types
    are compared through :attr:`canonical`)."""

    name: str
    kind: Kind
    bits: int = 0
    signed: bool = False

    def __post_init__(self):
        if not isinstance(self.kind, Kind):  # a kind given by its word: "real"
            object.__setattr__(self, "kind", Kind(self.kind))

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
        """Held as a Python int that wraps at ``bits`` (integers, bit strings,
        TIME and the date types)."""
        return self.kind in v.INTEGRAL

    @property
    def canonical(self) -> DataType:
        """The type this one is assignment-compatible with: itself, or for a
        subrange or directly derived type its base's."""
        return self

    @property
    def depth(self) -> int:
        """How many types this one is built on, itself included (INT: 1, an
        ARRAY of INT: 2, an alias of that: 3); at most :data:`MAX_TYPE_DEPTH`."""
        return 1

    @property
    def elements(self) -> int:
        """How many elementary values a value of this type holds (1, or an ARRAY's
        or STRUCT's all, however nested); at most :data:`ARRAY_MAX`."""
        return 1

    @property
    def mutable(self) -> bool:
        """Its values are lists that assignments must copy (ARRAY, STRUCT)."""
        return False

    @property
    def capacity(self) -> int | None:
        """The characters a value of this STRING type holds (None: not a string)."""
        return STRING_MAX if self.kind is Kind.STRING else None

    @cached_property
    def default(self):
        """The IEC initial value: FALSE, 0, 0.0, T#0s, ''."""
        return {Kind.BOOL: False, Kind.REAL: 0.0, Kind.STRING: ""}.get(self.kind, 0)

    def copy(self, value):
        """``value`` as an assignment hands it on (a new list for ARRAY and STRUCT)."""
        return value

    # -- code generation ----------------------------------------------------
    def wrap(self, expr: str) -> str:
        """A Python expression that wraps ``expr`` to this type's width, or
        rounds it to single precision for REAL (:func:`fbd.real32.real32_code`).

        Written as arithmetic and comparisons (no call) so it stays cheap in
        the hot loop.
        """
        if not self.is_integral:
            return real32_code(expr) if self.kind is Kind.REAL and self.bits == 32 else expr
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
            return [f"{target} = {self.wrap(expr)}"]
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
        """Check and convert a user-supplied value to the run-time form: a Python
        value, or IEC literal text (see :mod:`fbd.values`).

        Raises :class:`~fbd.errors.InvalidValue` naming ``where`` for anything
        that does not fit; never wraps silently (a literal out of range is a
        mistake, not an overflow).
        """
        if type(value).__module__ == "numpy" and hasattr(value, "item"):
            value = value.item()  # a NumPy scalar, e.g. read back from a trace's arrays
        kind = self.kind
        if kind is Kind.BOOL:
            if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
                return bool(value)
            if isinstance(value, str) and value.strip().upper() in ("TRUE", "FALSE",
                                                                    "BOOL#TRUE", "BOOL#FALSE"):
                return value.strip().upper().endswith("TRUE")
        elif kind is Kind.INT or kind is Kind.BITS:
            if isinstance(value, str):
                value = v.parse_int(value, where)
            if isinstance(value, int) and not isinstance(value, bool):
                if self.min <= value <= self.max:
                    return value
                raise InvalidValue(f"{where}: {v.quote(value, 60)} is out of range for "
                                   f"{self.name} ({self.min}..{self.max})")
            if isinstance(value, bool) and kind is Kind.BITS:
                return int(value)
        elif kind is Kind.REAL:
            if isinstance(value, str):
                value = v.parse_real(value, where)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                held = self._real(value)
                if held is None:
                    raise InvalidValue(f"{where}: {v.quote(value, 60)} is out of range for "
                                       f"{self.name}")
                return held
        elif kind in v.DATES or kind is Kind.TIME:
            ns = None
            if isinstance(value, str):
                parse = {Kind.TIME: v.parse_time, Kind.DATE: v.parse_date, Kind.TOD: v.parse_tod,
                         Kind.DT: v.parse_dt}[kind]
                ns = parse(value, where)
            elif kind is Kind.TIME and isinstance(value, _dt.timedelta):
                ns = v.ns_of(value)
            elif kind is Kind.DATE and isinstance(value, _dt.date) \
                    and not isinstance(value, _dt.datetime):
                ns = v.ns_of(value)
            elif kind is Kind.TOD and isinstance(value, _dt.time):
                ns = v.ns_of(value)
            elif kind is Kind.DT and isinstance(value, _dt.datetime):
                ns = v.ns_of(value)
            elif kind is not Kind.TIME and isinstance(value, int) and not isinstance(value, bool):
                ns = value
            if ns is not None:
                if not self.min <= ns <= self.max:
                    raise InvalidValue(f"{where}: {v.quote(value, 60)} is out of range for "
                                       f"{self.name}")
                return ns
        elif kind is Kind.STRING:
            if isinstance(value, str):
                if len(value) > self.capacity:
                    raise InvalidValue(f"{where}: string of {len(value)} characters is longer "
                                       f"than {self.name}'s {self.capacity}")
                return value
        article = "an" if self.name[0] in "AEIOU" else "a"
        raise InvalidValue(f"{where}: {v.quote(value)} is not {article} {self.name}")

    def _real(self, value: int | float) -> float | None:
        """A number as this REAL or LREAL holds it (a REAL rounded once to single
        precision, an integer too); None when a finite number does not fit."""
        single = self.bits == 32
        try:
            if isinstance(value, int):
                held = int_to_real32(value) if single else float(value)
                return None if math.isinf(held) else held
            held = round_real32(value) if single else value
        except OverflowError:
            return None
        return None if math.isinf(held) and math.isfinite(value) else held

    def to_python(self, raw):
        """The public form of a run-time value (TIME becomes a timedelta, the
        date types dates and times)."""
        kind = self.kind
        if kind is Kind.TIME:
            return v.to_timedelta(raw)
        if kind is Kind.TOD:
            return v.to_time_of_day(raw)
        if kind is Kind.DATE or kind is Kind.DT:
            return v.to_date(raw) if kind is Kind.DATE else v.to_datetime(raw)
        return raw

    def literal(self, raw) -> str:
        """Python source for a run-time value, for the code generator."""
        return repr(raw)


# ------------------------------------------------------------------ derived
@dataclass(frozen=True, eq=False, repr=False)
class DerivedType(DataType):
    """A directly derived type (``TYPE Count : DINT := 5; END_TYPE``): its base's
    values, with an initial value of its own."""
    base: DataType = None
    initial: object = None

    @classmethod
    def of(cls, name: str, base: DataType, initial=None) -> DerivedType:
        _check_depth(name, base.depth + 1)
        init = None if initial is None else base.coerce(initial, f"{name} initial value")
        return cls(name, base.kind, base.bits, base.signed, base, init)

    @property
    def canonical(self) -> DataType:
        return self.base.canonical

    @cached_property
    def depth(self) -> int:
        return self.base.depth + 1

    @property
    def elements(self) -> int:
        return self.base.elements

    @property
    def mutable(self) -> bool:
        return self.base.mutable

    @property
    def capacity(self) -> int | None:
        return self.base.capacity

    @cached_property
    def default(self):
        return self.base.default if self.initial is None else self.base.copy(self.initial)

    def copy(self, value):
        return self.base.copy(value)

    def coerce(self, value, where: str = "value"):
        return self.base.coerce(value, where)

    def to_python(self, raw):
        return self.base.to_python(raw)

    def __getattr__(self, name):  # an alias of an ARRAY or STRUCT reads as one
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.base, name)


@dataclass(frozen=True, eq=False, repr=False)
class SizedString(DerivedType):
    """``STRING[n]``: a STRING of at most ``length`` characters (:func:`string_of`)."""
    length: int = STRING_MAX

    @property
    def capacity(self) -> int:
        return self.length

    def coerce(self, value, where: str = "value"):
        return DataType.coerce(self, value, where)


_SIZED: dict[int, DataType] = {}


def string_of(length: int) -> DataType:
    """The type ``STRING[length]``: STRING itself for its own 126 characters; a
    length outside 1..:data:`STRING_DECLARED_MAX` is refused."""
    if length == STRING_MAX:
        return STRING
    if not 1 <= length <= STRING_DECLARED_MAX:
        raise InvalidValue(f"STRING[{length}]: a STRING's length is 1..{STRING_DECLARED_MAX:,}")
    tp = _SIZED.get(length)
    if tp is None:
        tp = _SIZED[length] = SizedString(f"STRING[{length}]", Kind.STRING, 0, False, STRING,
                                          None, length)
    return tp


@dataclass(frozen=True, eq=False, repr=False)
class SubrangeType(DerivedType):
    """``INT (0..100)``: its base integer type's values between ``lo`` and ``hi``
    (the initial value is ``lo`` unless given, as IEC says)."""
    lo: int = 0
    hi: int = 0

    @classmethod
    def of(cls, name: str, base: DataType, lo: int, hi: int, initial=None) -> SubrangeType:
        where = f"subrange {name}"
        if base.kind not in (Kind.INT, Kind.BITS):
            raise InvalidValue(f"{where}: a subrange needs an integer base type, not {base}")
        lo, hi = base.coerce(lo, where), base.coerce(hi, where)
        if lo > hi:
            raise InvalidValue(f"{where}: the range {lo}..{hi} is empty")
        _check_depth(name, base.depth + 1)
        tp = cls(name, base.kind, base.bits, base.signed, base, None, lo, hi)
        if initial is not None:
            object.__setattr__(tp, "initial", tp.coerce(initial, f"{name} initial value"))
        return tp

    @cached_property
    def default(self):
        return self.lo if self.initial is None else self.initial

    def coerce(self, value, where: str = "value"):
        value = self.base.coerce(value, where)
        if not self.lo <= value <= self.hi:
            raise InvalidValue(f"{where}: {value} is out of range for {self.name} "
                               f"({self.lo}..{self.hi})")
        return value


@dataclass(frozen=True, eq=False, repr=False)
class EnumType(DataType):
    """``(IDLE, RUNNING, DONE)``: held as the value's code, read as its name."""
    values: tuple = ()          # the names, in declaration order
    codes: tuple = ()           # their codes (0, 1, ... unless given)
    initial: object = None      # the initial value's code (the first value unless given)

    @classmethod
    def of(cls, name: str, values, codes=None, initial=None) -> EnumType:
        values = tuple(values)
        if not values:
            raise InvalidValue(f"enumeration {name}: it has no values")
        upper = [x.upper() for x in values]
        dup = next((x for x in values if upper.count(x.upper()) > 1), None)
        if dup is not None:
            raise InvalidValue(f"enumeration {name}: value {dup!r} is declared twice")
        codes = tuple(range(len(values))) if codes is None else tuple(int(c) for c in codes)
        tp = cls(name, Kind.ENUM, 32, True, values, codes, None)
        if initial is not None:
            object.__setattr__(tp, "initial", tp.coerce(initial, f"{name} initial value"))
        return tp

    @cached_property
    def _by_name(self) -> dict:
        return {x.upper(): c for x, c in zip(self.values, self.codes)}

    @cached_property
    def default(self):
        return self.codes[0] if self.initial is None else self.initial

    def code_of(self, name: str) -> int:
        return self._by_name[name.upper()]

    def name_of(self, code: int) -> str:
        for x, c in zip(self.values, self.codes):
            if c == code:
                return x
        return str(code)

    def coerce(self, value, where: str = "value"):
        if isinstance(value, str):
            text = value.strip()
            if "#" in text:
                prefix, text = text.split("#", 1)
                if prefix.upper() != self.name.upper():
                    raise InvalidValue(f"{where}: {v.quote(value)} is a value of {prefix}, "
                                       f"not of {self.name}")
            code = self._by_name.get(text.upper())
            if code is not None:
                return code
        elif isinstance(value, int) and not isinstance(value, bool) and value in self.codes:
            return value
        raise InvalidValue(f"{where}: {v.quote(value)} is not a value of {self.name} "
                           f"({', '.join(self.values)})")

    def to_python(self, raw):
        return self.name_of(raw)


@dataclass(frozen=True, eq=False, repr=False)
class ArrayType(DataType):
    """``ARRAY [1..10, 0..2] OF INT``: ``dims`` are the (low, high) bounds of
    each dimension; values are flat row-major lists of ``element`` values."""
    element: DataType = None
    dims: tuple = ()
    initial: object = None      # a flat list, or None for the element's default

    @classmethod
    def of(cls, element: DataType, dims, name: str | None = None, initial=None) -> ArrayType:
        dims = tuple((int(lo), int(hi)) for lo, hi in dims)
        label = name or ("ARRAY [" + ", ".join(f"{lo}..{hi}" for lo, hi in dims)
                         + f"] OF {element.name}")
        if not dims:
            raise InvalidValue(f"{label}: an array needs at least one dimension")
        size = 1
        for lo, hi in dims:
            if hi < lo:
                raise InvalidValue(f"{label}: the range {lo}..{hi} is empty")
            size *= hi - lo + 1
            if size > ARRAY_MAX:
                raise InvalidValue(f"{label}: more than {ARRAY_MAX:,} elements")
        _check_elements(label, size * element.elements)
        _check_depth(label, element.depth + 1)
        if name is None and initial is None:
            key = (id(element), dims)
            cached = _ANONYMOUS.get(key)
            if cached is not None:
                return cached
        tp = cls(label, Kind.ARRAY, 0, False, element, dims, None)
        if initial is not None:
            object.__setattr__(tp, "initial", tp.coerce(initial, f"{label} initial value"))
        if name is None and initial is None:
            _ANONYMOUS[(id(element), dims)] = tp
        return tp

    @property
    def mutable(self) -> bool:
        return True

    @cached_property
    def size(self) -> int:
        n = 1
        for lo, hi in self.dims:
            n *= hi - lo + 1
        return n

    @cached_property
    def depth(self) -> int:
        return self.element.depth + 1

    @cached_property
    def elements(self) -> int:
        return self.size * self.element.elements

    @cached_property
    def default(self):
        if self.initial is not None:
            return self.copy(self.initial)
        return [self.element.copy(self.element.default) for _ in range(self.size)]

    def offset(self, indices) -> int:
        """The flat position of the element at ``indices`` (IndexError outside the bounds)."""
        if len(indices) != len(self.dims):
            raise IndexError(f"{self.name} has {len(self.dims)} dimension(s), not {len(indices)}")
        k = 0
        for i, (lo, hi) in zip(indices, self.dims):
            if not lo <= i <= hi:
                raise IndexError(f"index {i} is outside {lo}..{hi} of {self.name}")
            k = k * (hi - lo + 1) + (i - lo)
        return k

    def copy(self, value):
        if self.element.mutable:
            return [self.element.copy(x) for x in value]
        return list(value)

    def coerce(self, value, where: str = "value"):
        if isinstance(value, (list, tuple)):
            flat = list(_flatten(value))
            if len(flat) <= self.size:  # IEC: missing elements keep their initial value
                tail = [self.element.copy(self.element.default)
                        for _ in range(self.size - len(flat))]
                return [self.element.coerce(x, f"{where}[{k}]") for k, x in enumerate(flat)] + tail
            raise InvalidValue(f"{where}: {len(flat)} values for {self.name}, "
                               f"which has {self.size}")
        raise InvalidValue(f"{where}: {v.quote(value)} is not an {self.name}")

    def to_python(self, raw):
        items = [self.element.to_python(x) for x in raw]
        for lo, hi in reversed(self.dims[1:]):
            n = hi - lo + 1
            items = [items[k:k + n] for k in range(0, len(items), n)]
        return items


def _flatten(value):
    for x in value:
        if isinstance(x, (list, tuple)):
            yield from _flatten(x)
        else:
            yield x


@dataclass(frozen=True)
class Field:
    name: str
    type: DataType
    initial: object = None   # None: the type's default


@dataclass(frozen=True, eq=False, repr=False)
class StructType(DataType):
    """``STRUCT x : INT; y : REAL := 1.5; END_STRUCT``: values are lists of the
    fields' values in declaration order; field names are case-insensitive."""
    fields: tuple = ()
    _index: dict = field(default=None, compare=False)

    @classmethod
    def of(cls, name: str, fields) -> StructType:
        made = []
        index = {}
        for f in fields:
            f = f if isinstance(f, Field) else Field(*f)
            key = f.name.upper()
            if key in index:
                raise InvalidValue(f"structure {name}: field {f.name!r} is declared twice")
            init = None if f.initial is None else f.type.coerce(f.initial, f"{name}.{f.name}")
            index[key] = len(made)
            made.append(Field(f.name, f.type, init))
        if not made:
            raise InvalidValue(f"structure {name}: it has no fields")
        _check_elements(f"structure {name}", sum(f.type.elements for f in made))
        _check_depth(f"structure {name}", 1 + max(f.type.depth for f in made))
        return cls(name, Kind.STRUCT, 0, False, tuple(made), index)

    @cached_property
    def depth(self) -> int:
        return 1 + max(f.type.depth for f in self.fields)

    @cached_property
    def elements(self) -> int:
        return sum(f.type.elements for f in self.fields)

    @property
    def mutable(self) -> bool:
        return True

    def field_index(self, name: str) -> int:
        """The position of field ``name`` (KeyError naming the fields if there is none)."""
        try:
            return self._index[name.upper()]
        except KeyError:
            raise KeyError(f"{self.name} has no field {name!r} "
                           f"(fields: {', '.join(f.name for f in self.fields)})") from None

    def field_type(self, name: str) -> DataType:
        return self.fields[self.field_index(name)].type

    @cached_property
    def default(self):
        return [f.type.copy(f.type.default if f.initial is None else f.initial)
                for f in self.fields]

    def copy(self, value):
        return [f.type.copy(x) for f, x in zip(self.fields, value)]

    def coerce(self, value, where: str = "value"):
        if isinstance(value, dict):
            out = self.copy(self.default)   # the cached default must stay as it is
            for k, x in value.items():
                try:
                    i = self.field_index(k)
                except KeyError as e:
                    raise InvalidValue(f"{where}: {e.args[0]}") from None
                out[i] = self.fields[i].type.coerce(x, f"{where}.{self.fields[i].name}")
            return out
        if isinstance(value, (list, tuple)) and len(value) == len(self.fields):
            return [f.type.coerce(x, f"{where}.{f.name}") for f, x in zip(self.fields, value)]
        raise InvalidValue(f"{where}: {v.quote(value)} is not a {self.name}")

    def to_python(self, raw):
        return {f.name: f.type.to_python(x) for f, x in zip(self.fields, raw)}


_ANONYMOUS: dict = {}  # (id(element), dims) -> the one ArrayType of that shape


def _check_elements(label: str, elements: int) -> None:
    # before the type is made: its default value would hold them all
    if elements > ARRAY_MAX:
        raise InvalidValue(f"{label}: a value would hold {elements:,} elements, more than the "
                           f"{ARRAY_MAX:,} one value may hold")


def _check_depth(label: str, depth: int) -> None:
    if depth > MAX_TYPE_DEPTH:
        raise InvalidValue(f"{label}: built on {depth} types nested in one another (aliases, "
                           f"arrays, structures), more than the {MAX_TYPE_DEPTH} a type may be")


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


BOOL = DataType("BOOL", Kind.BOOL, 1)
SINT = DataType("SINT", Kind.INT, 8, True)
INT = DataType("INT", Kind.INT, 16, True)
DINT = DataType("DINT", Kind.INT, 32, True)
LINT = DataType("LINT", Kind.INT, 64, True)
USINT = DataType("USINT", Kind.INT, 8)
UINT = DataType("UINT", Kind.INT, 16)
UDINT = DataType("UDINT", Kind.INT, 32)
ULINT = DataType("ULINT", Kind.INT, 64)
BYTE = DataType("BYTE", Kind.BITS, 8)
WORD = DataType("WORD", Kind.BITS, 16)
DWORD = DataType("DWORD", Kind.BITS, 32)
LWORD = DataType("LWORD", Kind.BITS, 64)
REAL = DataType("REAL", Kind.REAL, 32, True)
LREAL = DataType("LREAL", Kind.REAL, 64, True)
TIME = DataType("TIME", Kind.TIME, 64, True)
DATE = DataType("DATE", Kind.DATE, 64, True)
TOD = DataType("TOD", Kind.TOD, 64, True)
DT = DataType("DT", Kind.DT, 64, True)
STRING = DataType("STRING", Kind.STRING)

ELEMENTARY = (BOOL, SINT, INT, DINT, LINT, USINT, UINT, UDINT, ULINT,
              BYTE, WORD, DWORD, LWORD, REAL, LREAL, TIME, DATE, TOD, DT, STRING)
_BY_NAME = {t.name: t for t in ELEMENTARY}
_BY_NAME.update({"TIME_OF_DAY": TOD, "DATE_AND_TIME": DT})

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


def by_name(name: str) -> DataType:
    """An elementary type by its IEC name (``TIME_OF_DAY`` and ``TOD`` alike)."""
    try:
        return _BY_NAME[name.upper()]
    except KeyError:
        raise InvalidValue(f"unknown type {v.quote(name, 60)}; known: "
                           f"{', '.join(t.name for t in ELEMENTARY)}") from None


def deep_copy(value):
    """A copy of any run-time value sharing no list with it (ARRAY and STRUCT)."""
    return _copy.deepcopy(value) if isinstance(value, list) else value
