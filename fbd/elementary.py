"""The class of every IEC type, :class:`DataType`, and the twenty elementary
types made of it (BOOL ... STRING), found by name with :func:`by_name`.

Every type is imported from :mod:`fbd.types`, whose docstring says how a value
of each is held at run time; the types a program declares are
:mod:`fbd.derived_types`.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from functools import cached_property

from . import values as v
from .errors import InvalidValue
from .real32 import int_to_real32, real32_code, round_real32
from .values import Kind

#: what a STRING holds: matiec's STR_MAX_LEN (its C STRING has no other length), so
#: string functions, whose parameters and results are STRINGs, cut where matiec does
STRING_MAX = 126


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
        ARRAY of INT: 2, an alias of that: 3); at most :data:`~fbd.derived_types.MAX_TYPE_DEPTH`."""
        return 1

    @property
    def elements(self) -> int:
        """How many elementary values a value of this type holds (1, or an ARRAY's
        or STRUCT's all, however nested); at most :data:`~fbd.derived_types.ARRAY_MAX`."""
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


def by_name(name: str) -> DataType:
    """An elementary type by its IEC name (``TIME_OF_DAY`` and ``TOD`` alike)."""
    try:
        return _BY_NAME[name.upper()]
    except KeyError:
        raise InvalidValue(f"unknown type {v.quote(name, 60)}; known: "
                           f"{', '.join(t.name for t in ELEMENTARY)}") from None
