"""ST type specs and initial values as the engine's :mod:`fbd.types` objects.

``TypeMap(unit, fail)`` turns the unit's ``TYPE`` declarations and any
``TypeSpec`` of a declaration into DataTypes (each user type made once, in
dependency order whatever the source order), and initialisers into run-time
values (see the top of :mod:`fbd.types`: TIME in ns, ARRAY and STRUCT lists).
``STRING[n]`` is a type of its own, derived from STRING, whose length
assignments cut to (:func:`fbd.types.string_of`).
"""

from __future__ import annotations

from .. import types as t
from ..errors import FbdError
from . import ast as A
from .stdlib import ANONYMOUS_ENUM_REFUSED, WSTRING_LITERAL_REFUSED, WSTRING_REFUSED

_ALIASES = {"TIME_OF_DAY": "TOD", "DATE_AND_TIME": "DT", "LTIME": "TIME"}


def elementary(name: str) -> t.DataType | None:
    name = _ALIASES.get(name.upper(), name.upper())
    try:
        return t.by_name(name)
    except (t.InvalidValue, KeyError, ValueError):
        return None


class TypeMap:
    """The DataTypes of one unit's type specs. ``fail(node, message)`` raises
    the caller's error at a node."""

    def __init__(self, unit: A.CompilationUnit, fail, extra: dict | None = None):
        self.fail = fail
        self.decls = {d.name.upper(): d for d in unit.types}
        self.made: dict[str, t.DataType] = dict(extra or {})
        self._making: set[str] = set()
        self.enum_values: dict[str, tuple[t.EnumType, int]] = {}   # VALUE -> (type, code)
        for name in self.decls:
            self.named(name, self.decls[name])

    # -- types ------------------------------------------------------------
    def named(self, name: str, node) -> t.DataType:
        key = name.upper()
        tp = elementary(key)
        if tp is not None:
            return tp
        if key in self.made:
            return self.made[key]
        decl = self.decls.get(key)
        if decl is None:
            self.fail(node, f"{name} is not a data type")
        if key in self._making:
            self.fail(decl, f"type {decl.name} is defined through itself")
        if len(self._making) >= t.MAX_TYPE_DEPTH:    # each makes a level: fbd.types would refuse it
            self.fail(decl, f"type {decl.name}: types defined through one another more than "
                            f"{t.MAX_TYPE_DEPTH} deep (the most a type may be built on)")
        self._making.add(key)
        try:
            tp = self._declared(decl)
        except t.InvalidValue as e:
            self.fail(decl, str(e))
        self._making.discard(key)
        self.made[key] = tp
        return tp

    def _declared(self, decl: A.TypeDecl) -> t.DataType:
        spec = decl.spec
        if isinstance(spec, A.NamedType):
            base = self.named(spec.name, spec)
            init = self.initial(decl.init, base) if decl.init is not None else None
            return t.DerivedType.of(decl.name, base, _given(base, init))
        if isinstance(spec, A.StringType):
            base = self.spec(spec)
            return t.DerivedType.of(decl.name, base,
                                    self.initial(decl.init, base) if decl.init else None)
        if isinstance(spec, A.SubrangeType):
            base = self.named(spec.base.name, spec.base)
            init = self.initial(decl.init, base) if decl.init is not None else None
            return t.SubrangeType.of(decl.name, base, spec.range.low, spec.range.high, init)
        if isinstance(spec, A.EnumType):
            names = [m.name for m in spec.members]
            init = None
            if decl.init is not None:
                init = decl.init.value if isinstance(decl.init, A.EnumLiteral) else getattr(
                    decl.init, "name", None)
            tp = t.EnumType.of(decl.name, names, initial=init)
            for code, n in enumerate(names):
                self.enum_values.setdefault(n.upper(), (tp, code))
            return tp
        if isinstance(spec, A.ArrayType):
            arr = self.spec(spec)
            if decl.init is not None:
                return t.ArrayType.of(arr.element, arr.dims, decl.name,
                                      _given(arr, self.initial(decl.init, arr)))
            return t.ArrayType.of(arr.element, arr.dims, decl.name)
        if isinstance(spec, A.StructType):
            fields = []
            for m in spec.members:
                ftp = self.spec(m.spec)
                fields.append(t.Field(m.name, ftp, _given(ftp, self.initial(m.init, ftp))
                                      if m.init is not None else None))
            st = t.StructType.of(decl.name, fields)
            if decl.init is not None:
                return t.DerivedType.of(decl.name, st, _given(st, self.initial(decl.init, st)))
            return st
        self.fail(decl, f"type {decl.name}: this kind of type is not supported")

    def spec(self, spec) -> t.DataType:
        """The DataType of a declaration's type spec."""
        try:
            if isinstance(spec, A.NamedType):
                return self.named(spec.name, spec)
            if isinstance(spec, A.StringType):
                if spec.wide:
                    self.fail(spec, WSTRING_REFUSED)
                return t.string_of(spec.length)
            if isinstance(spec, A.SubrangeType):
                base = self.named(spec.base.name, spec.base)
                return t.SubrangeType.of(f"{base.name} ({spec.range.low}..{spec.range.high})", base,
                                         spec.range.low, spec.range.high)
            if isinstance(spec, A.ArrayType):
                element = self.spec(spec.element)
                return t.ArrayType.of(element, [(r.low, r.high) for r in spec.ranges])
            if isinstance(spec, A.EnumType):
                self.fail(spec, ANONYMOUS_ENUM_REFUSED)
            if isinstance(spec, A.StructType):
                self.fail(spec, "a STRUCT declared in a variable's type is refused (matiec refuses "
                                "it too); declare it in TYPE ... END_TYPE and name it")
        except t.InvalidValue as e:
            self.fail(spec, str(e))
        self.fail(spec, "this type is not supported")

    # -- initial values ---------------------------------------------------
    def initial(self, init, tp: t.DataType):
        """The run-time value of an initialiser for a variable of type ``tp``."""
        canon = tp.canonical
        try:
            if isinstance(init, A.ArrayInit):
                if not isinstance(canon, t.ArrayType):
                    self.fail(init, f"an array initialiser for {tp.name}")
                # counted before any is made: 1000000(0) must not build a million values
                given = sum(1 if item.count is None else item.count for item in init.items)
                if given > canon.size:
                    self.fail(init, f"{given} values for {tp.name}, which has {canon.size}")
                values = []
                for item in init.items:
                    count = 1 if item.count is None else item.count
                    if item.value is None:
                        values += [canon.element.copy(canon.element.default) for _ in range(count)]
                    else:
                        one = self.initial(item.value, canon.element)
                        values += [canon.element.copy(one) for _ in range(count)]
                # IEC: the elements not given keep the element type's initial value
                return values + [canon.element.copy(canon.element.default)
                                 for _ in range(canon.size - len(values))]
            if isinstance(init, A.StructInit):
                if not isinstance(canon, t.StructType):
                    self.fail(init, f"a structure initialiser for {tp.name}")
                out = canon.copy(tp.default)
                for f in init.fields:
                    try:
                        k = canon.field_index(f.name)
                    except KeyError as e:
                        self.fail(f, str(e.args[0]))
                    out[k] = self.initial(f.value, canon.fields[k].type)
                return out
            if isinstance(init, A.EnumLiteral) or (isinstance(init, A.Name) and canon.kind is t.Kind.ENUM):
                value = init.value if isinstance(init, A.EnumLiteral) else init.name
                if canon.kind is not t.Kind.ENUM:
                    self.fail(init, f"{value} is an enumerated value, not a {tp.name}")
                if value.upper() not in (v.upper() for v in canon.values):
                    self.fail(init, f"{tp.name} has no value {value} (its values: "
                                    f"{', '.join(canon.values)})")
                return canon.code_of(value)
            if isinstance(init, A.Literal):
                return self.literal(init, tp)
            if isinstance(init, A.Unary) and init.op == "-" and isinstance(init.operand, A.Literal):
                return self.literal(init.operand, tp, negate=True)
        except t.InvalidValue as e:
            self.fail(init, str(e))
        self.fail(init, "an initial value must be a literal")

    def literal(self, lit: A.Literal, tp: t.DataType, negate: bool = False):
        value = lit.value
        if negate:
            value = -value
        kind = tp.canonical.kind
        ok = _LITERALS_OF.get(kind, ())
        if lit.kind == "wstring":
            self.fail(lit, WSTRING_LITERAL_REFUSED)
        if lit.kind not in ok:
            self.fail(lit, f"{lit.text or value!r} is not a value of type {tp.name}")
        if kind is t.Kind.BOOL:
            if value not in (0, 1):
                self.fail(lit, f"{value} is not a BOOL")
            return bool(value)
        if kind is t.Kind.REAL:   # a REAL's is rounded to single precision (a C float)
            try:
                return tp.canonical.coerce(float(value))
            except t.InvalidValue:
                self.fail(lit, f"{lit.text or value} is out of range for {tp.name}")
        if kind is t.Kind.STRING:
            return value[:tp.capacity]
        if kind in (t.Kind.INT, t.Kind.BITS):
            value = int(value)
            lo, hi = getattr(tp, "lo", None), getattr(tp, "hi", None)
            if lo is not None and not lo <= value <= hi:
                self.fail(lit, f"{value} is out of range for {tp.name} ({lo}..{hi})")
            c = tp.canonical
            if not c.min <= value <= c.max:
                self.fail(lit, f"{value} is out of range for {c.name} ({c.min}..{c.max})")
        return value


#: the kinds of literal a variable of each kind of type takes
_LITERALS_OF = {t.Kind.BOOL: ("bool", "int"), t.Kind.INT: ("int",), t.Kind.BITS: ("int", "bool"),
                t.Kind.REAL: ("real", "int"), t.Kind.TIME: ("time", "ltime"),
                t.Kind.STRING: ("string",), t.Kind.DATE: ("date",), t.Kind.TOD: ("tod",),
                t.Kind.DT: ("dt",)}


def _given(tp: t.DataType, raw):
    """A run-time value as the types' constructors take an initial value: in the
    public form (:meth:`fbd.types.DataType.to_python`), which they check and turn
    back (a TIME's ns would be refused there as a number without a unit)."""
    return None if raw is None else tp.to_python(raw)


def declarations(types: dict) -> tuple:
    """TypeDecls standing for DataTypes made elsewhere (a PLCopen file's dataTypes),
    so that the semantic layer knows their names and members; the compiler then
    uses the given objects themselves (:class:`TypeMap`'s ``extra``)."""
    out = []
    for name, tp in types.items():
        spec = _spec_of(tp)
        if spec is not None:
            out.append(A.TypeDecl(name=name, spec=spec))
    return tuple(out)


def _named(tp: t.DataType):
    if isinstance(tp, t.SizedString):
        return A.StringType(wide=False, length=tp.length)
    return A.NamedType(name=tp.name)


def _spec_of(tp: t.DataType):
    if isinstance(tp, t.SubrangeType):
        return A.SubrangeType(base=A.NamedType(name=tp.base.name), range=A.Subrange(low=tp.lo, high=tp.hi))
    if isinstance(tp, t.DerivedType):
        return _named(tp.base)
    if isinstance(tp, t.EnumType):
        return A.EnumType(members=tuple(A.EnumMember(name=v) for v in tp.values))
    if isinstance(tp, t.ArrayType):
        return A.ArrayType(ranges=tuple(A.Subrange(low=lo, high=hi) for lo, hi in tp.dims),
                           element=_named(tp.element))
    if isinstance(tp, t.StructType):
        return A.StructType(members=tuple(A.VarDecl(name=f.name, spec=_named(f.type))
                                          for f in tp.fields))
    return None


def check_value(tp: t.DataType, value, where: str):
    try:
        return tp.coerce(value, where)
    except (t.InvalidValue, FbdError) as e:
        raise FbdError(str(e)) from None


__all__ = ["TypeMap", "declarations", "elementary"]
