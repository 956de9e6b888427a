"""The types a program declares, IEC 61131-3's derived data types: directly
derived types and STRING[n], subranges, enumerations, arrays and structures,
each built on :class:`~fbd.elementary.DataType`, and the limits on how large
and how deep one may be (checked as the type is made).

They are imported from :mod:`fbd.types`, as every type is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from . import values as v
from .elementary import STRING, STRING_MAX, DataType
from .errors import InvalidValue
from .values import Kind

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
