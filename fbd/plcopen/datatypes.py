"""User data types: ``<dataTypes>`` and the types variables are declared with.

Every type a file declares becomes one of :mod:`fbd.types`'s: a directly
derived type (``TYPE Speed : INT := 5; END_TYPE``) a :class:`DerivedType`, a
subrange a :class:`SubrangeType`, an enumeration an :class:`EnumType`, an
ARRAY (of any number of dimensions, of any type) an :class:`ArrayType`, a
STRUCT a :class:`StructType`; Beremiz's SVGHMI aliases (``HMI_INT``...) are
their base types. Types may name each other in any order; a type defined
through itself is refused, as are more than :data:`MAX_DEPTH` levels of
nesting and arrays larger than :data:`fbd.types.ARRAY_MAX` elements.

Initial values: ``simpleValue`` (a literal; an enumeration's value bare or
typed), ``arrayValue`` (values in order, ``repetitionValue="3"`` repeating
one; missing elements keep their type's initial value, as IEC says) and
``structValue`` (values by member).
"""

from __future__ import annotations

from .. import types as t
from ..errors import InvalidValue
from .source import PlcOpenError, child, children, quote, tag
from .values import elementary, initial_value

MAX_DEPTH = t.MAX_TYPE_DEPTH
#: most elements an arrayValue may spell out (repetitions included)
MAX_VALUES = 1 << 16


def string_type(el, where: str) -> t.DataType:
    """A ``<string>``'s type: ``length="200"`` a STRING[200], none a STRING."""
    length = (el.get("length") or "").strip()
    if not length:
        return t.STRING
    if not length.isdigit() or len(length) > 6:
        raise PlcOpenError(f"{where}: the string length {quote(length)} is not a count")
    try:
        return t.string_of(int(length))
    except InvalidValue as e:
        raise PlcOpenError(f"{where}: {e}") from None


class DataTypes:
    """The types a project declares, by upper-case name, built on first use."""

    def __init__(self, decl: dict, path):
        self.decl = decl                 # upper-case name -> <dataType> element
        self.path = path
        self.types: dict = {}            # upper-case name -> DataType
        self.errors: dict = {}           # upper-case name -> PlcOpenError
        self._busy: list = []

    def named(self, name: str):
        """The type called ``name``: elementary, SVGHMI alias, or declared; None if
        the name is none of these (an FB type, for instance)."""
        tp = elementary(name)
        if tp is not None:
            return tp
        key = name.upper()
        if key not in self.decl:
            return None
        if key in self.errors:
            raise self.errors[key]
        if key not in self.types:
            if key in self._busy or len(self._busy) >= MAX_DEPTH:
                chain = " -> ".join(self._busy + [key])
                raise PlcOpenError(f"data type {quote(name)} is defined through itself or "
                                   f"nests too deep ({chain[:200]})")
            self._busy.append(key)
            try:
                self.types[key] = self._declared(self.decl[key])
            except PlcOpenError as e:
                self.errors[key] = e
                raise
            finally:
                self._busy.pop()
        return self.types[key]

    def _declared(self, dt):
        name = dt.get("name") or ""
        where = f"data type {quote(name)}"
        base_el = child(dt, "baseType")
        inner = base_el[0] if base_el is not None and len(base_el) else None
        init_el = child(dt, "initialValue")
        kind = tag(inner) if inner is not None else ""
        try:
            if kind == "struct":
                return self._struct(inner, name, where)
            if kind == "enum":
                names = [v.get("name") or "" for v in children(child(inner, "values"), "value")]
                tp = t.EnumType.of(name, names)
                return t.EnumType.of(name, names, initial=self._simple(init_el, tp, where)) \
                    if init_el is not None else tp
            if kind in ("subrangeSigned", "subrangeUnsigned"):
                rng = child(inner, "range")
                base = self.type_of(child(inner, "baseType"), where)
                return t.SubrangeType.of(name, base, _bound(rng, "lower", where),
                                         _bound(rng, "upper", where),
                                         self._simple_text(init_el))
            base = self.type_of(base_el, where)
            if base is None:
                raise PlcOpenError(f"{where}: its base type is not a data type")
            init = self.value(init_el, base, where) if init_el is not None else None
            user = None if init is None else base.to_python(init)
            if kind == "array":
                return t.ArrayType.of(base.element, base.dims, name=name, initial=user)
            return t.DerivedType.of(name, base, user)
        except InvalidValue as e:
            raise PlcOpenError(f"{where}: {e}") from None

    def _struct(self, el, name, where):
        fields = []
        for v in children(el, "variable"):
            fname = v.get("name") or ""
            ftype = self.type_of(child(v, "type"), f"{where}, member {quote(fname)}")
            if ftype is None:
                raise PlcOpenError(f"{where}: member {quote(fname)} has a type that is not a "
                                   f"data type (a function block?)")
            iv = child(v, "initialValue")
            init = self.value(iv, ftype, f"{where}.{fname}") if iv is not None else None
            fields.append(t.Field(fname, ftype, None if init is None else ftype.to_python(init)))
        return t.StructType.of(name, fields)

    def type_of(self, type_el, where):
        """The type a ``<type>`` or ``<baseType>`` element names or builds; None for a
        name that is no data type (a function block's)."""
        if type_el is None or len(type_el) == 0:
            raise PlcOpenError(f"{where}: no type")
        inner = type_el[0]
        kind = tag(inner)
        if kind == "derived":
            return self.named(inner.get("name") or "")
        if kind == "string":
            return string_type(inner, where)
        if kind == "wstring":
            raise PlcOpenError(f"{where}: WSTRING is not supported (matiec refuses it too: its "
                               f"library has no WSTRING); use STRING")
        if kind == "array":
            dims = [(_bound(d, "lower", where), _bound(d, "upper", where))
                    for d in children(inner, "dimension")]
            element = self.type_of(child(inner, "baseType"), where)
            if element is None:
                raise PlcOpenError(f"{where}: an array of function blocks is not supported")
            try:
                return t.ArrayType.of(element, dims)
            except InvalidValue as e:
                raise PlcOpenError(f"{where}: {e}") from None
        if kind in ("struct", "enum", "subrangeSigned", "subrangeUnsigned"):
            raise PlcOpenError(f"{where}: an anonymous {kind} is not supported; declare it "
                               f"as a data type")
        tp = elementary(kind)
        if tp is None:
            raise PlcOpenError(f"{where}: unknown type {quote(kind)}")
        return tp

    # -- values --------------------------------------------------------------
    @staticmethod
    def _simple_text(init_el):
        sv = child(init_el, "simpleValue")
        return sv.get("value") if sv is not None else None

    def _simple(self, init_el, tp, where):
        text = self._simple_text(init_el)
        return initial_value(text, tp, where) if text is not None else None

    def value(self, init_el, tp, where):
        """An ``initialValue`` (or an array element's or member's ``value``) for ``tp``,
        in run-time form (TIME as ns, an ARRAY a flat list, a STRUCT a list by field)."""
        form = next((c for c in init_el if tag(c) in ("simpleValue", "arrayValue",
                                                      "structValue")), None)
        if form is None:
            raise PlcOpenError(f"{where}: an empty initial value")
        kind = tag(form)
        try:
            if kind == "simpleValue":
                if tp.kind in (t.Kind.ARRAY, t.Kind.STRUCT):
                    raise PlcOpenError(f"{where}: a simple initial value for {tp.name}")
                return tp.coerce(initial_value(form.get("value", ""), tp, where), where)
            if kind == "arrayValue":
                if tp.kind is not t.Kind.ARRAY:
                    raise PlcOpenError(f"{where}: an array initial value for {tp.name}")
                flat = []
                for v in children(form, "value"):
                    rep = (v.get("repetitionValue") or "1").strip()
                    if not rep.isdigit() or len(rep) > 7:
                        raise PlcOpenError(f"{where}: repetitionValue {quote(rep)} is not a "
                                           f"count")
                    item = self.value(v, tp.element, f"{where}[{len(flat)}]")
                    flat.extend(tp.element.copy(item) for _ in range(int(rep)))
                    if len(flat) > min(tp.size, MAX_VALUES):
                        raise PlcOpenError(f"{where}: more values than {tp.name} has "
                                           f"elements ({tp.size})")
                # IEC: elements not given keep their type's initial value
                return flat + [tp.element.copy(tp.element.default)
                               for _ in range(tp.size - len(flat))]
            if tp.kind is not t.Kind.STRUCT:
                raise PlcOpenError(f"{where}: a structure initial value for {tp.name}")
            out = tp.copy(tp.default)
            for v in children(form, "value"):
                member = v.get("member") or ""
                try:
                    k = tp.field_index(member)
                except KeyError as e:
                    raise PlcOpenError(f"{where}: {e.args[0]}") from None
                out[k] = self.value(v, tp.fields[k].type, f"{where}.{member}")
            return out
        except InvalidValue as e:
            raise PlcOpenError(str(e)) from None


def _bound(el, which, where) -> int:
    text = (el.get(which) if el is not None else None) or ""
    text = text.strip()
    if not text.lstrip("+-").isdigit() or len(text) > 12:
        raise PlcOpenError(f"{where}: the {which} bound {quote(text)} is not an integer")
    return int(text)


def read_data_types(root, path) -> DataTypes:
    decl = {}
    for types_el in children(root, "types"):
        for dts in children(types_el, "dataTypes"):
            for dt in children(dts, "dataType"):
                name = dt.get("name") or ""
                if name.upper() in decl:
                    raise PlcOpenError(f"{path}: two data types are named {quote(name)}")
                decl[name.upper()] = dt
    return DataTypes(decl, path)


__all__ = ["DataTypes", "read_data_types", "MAX_DEPTH"]
