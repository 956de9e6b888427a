"""Variables: a POU's interface, a configuration's globals, and the data types they name.

A :class:`Var` is one declared variable with its kind (the PLCopen group it
is declared in: ``inputVars``, ``localVars``, ...), its elementary type when it
has one, its initial value in run-time form and its location.

Data types declared in ``<dataTypes>`` that are a plain alias of an
elementary type (``TYPE Speed : INT := 5; END_TYPE``), and Beremiz's SVGHMI
aliases (``HMI_INT``...), read as that type, with the alias's initial value
where the variable gives none. Structures, arrays, enumerations and subranges
are kept by name (``Var.type`` is None): a body that reads or writes a
variable of such a type is refused where it does so.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import types as t
from .emit import FEEDBACK_NAME
from .source import PlcOpenError, child, children, has_data, quote, tag, true
from .values import elementary, initial_value

#: the variable groups of a POU interface, and what IEC calls them
GROUPS = {"inputVars": "VAR_INPUT", "outputVars": "VAR_OUTPUT", "inOutVars": "VAR_IN_OUT",
          "localVars": "VAR", "tempVars": "VAR_TEMP", "externalVars": "VAR_EXTERNAL",
          "globalVars": "VAR_GLOBAL", "accessVars": "VAR_ACCESS"}
MAX_ALIAS_DEPTH = 32


@dataclass
class Var:
    name: str
    kind: str                 # a key of GROUPS, or "return" (a function's result)
    type: t.DataType | None   # None: a derived type (an FB instance, a structure, ...)
    type_name: str
    init: object = None       # initial value in run-time form, or None (the type's)
    address: str | None = None
    constant: bool = False
    retain: bool = False
    feedback: bool = False    # our export's carrier of a feedback wire (not an output)

    @property
    def start(self):
        """The value the variable holds before anything writes it."""
        from .values import run_value
        return self.init if self.init is not None else run_value(self.type.default, self.type)


@dataclass
class DataTypes:
    """The ``<dataTypes>`` of a project: aliases resolved to elementary types."""
    aliases: dict      # upper-case name -> (DataType, initial text or None)
    others: dict       # upper-case name -> what it is ("STRUCT", "ARRAY", ...)

    def resolve(self, name: str):
        """(elementary type or None, its alias's initial text or None)."""
        tp = elementary(name)
        if tp is not None:
            return tp, None
        return self.aliases.get(name.upper(), (None, None))


def read_data_types(root, path) -> DataTypes:
    decl = {}
    for types_el in children(root, "types"):
        for dts in children(types_el, "dataTypes"):
            for dt in children(dts, "dataType"):
                name = dt.get("name") or ""
                if name.upper() in decl:
                    raise PlcOpenError(f"{path}: two data types are named {quote(name)}")
                decl[name.upper()] = dt
    aliases, others = {}, {}
    for key, dt in decl.items():
        base = child(dt, "baseType")
        init_el = child(child(dt, "initialValue"), "simpleValue")
        init = init_el.get("value") if init_el is not None else None
        seen = [key]
        while True:
            inner = base[0] if base is not None and len(base) else None
            kind = tag(inner) if inner is not None else ""
            if kind == "derived":
                target = (inner.get("name") or "").upper()
                if target in seen or len(seen) > MAX_ALIAS_DEPTH:
                    raise PlcOpenError(f"{path}: data type {quote(dt.get('name'))} is defined "
                                       f"through itself ({' -> '.join(seen + [target])})")
                tp = elementary(target)
                if tp is not None:
                    aliases[key] = (tp, init)
                    break
                seen.append(target)
                nxt = decl.get(target)
                if nxt is None:
                    others[key] = f"an alias of the unknown type {target}"
                    break
                base = child(nxt, "baseType")
                if init is None:
                    nxt_init = child(child(nxt, "initialValue"), "simpleValue")
                    init = nxt_init.get("value") if nxt_init is not None else None
                continue
            tp = elementary("STRING" if kind == "string" else kind)
            if tp is not None:
                aliases[key] = (tp, init)
            else:
                others[key] = {"struct": "a STRUCT", "array": "an ARRAY", "enum": "an enumeration",
                               "subrangeSigned": "a subrange", "subrangeUnsigned": "a subrange",
                               }.get(kind, kind or "empty")
            break
    return DataTypes(aliases, others)


def type_of(type_el, where: str, dtypes: DataTypes | None):
    """(elementary type or None, type name, the alias's initial text) of a ``<type>``."""
    if type_el is None or len(type_el) == 0:
        raise PlcOpenError(f"{where}: no type")
    inner = type_el[0]
    name = tag(inner)
    if name == "derived":
        tname = inner.get("name") or ""
        if dtypes is not None:
            tp, init = dtypes.resolve(tname)
            return tp, tname, init
        return elementary(tname), tname, None
    if name in ("string", "wstring"):
        return (t.STRING if name == "string" else None), name.upper(), None
    if name in ("array", "struct", "enum", "pointer"):
        return None, name.upper(), None
    return elementary(name), name, None


def read_var(v, kind: str, owner: str, dtypes: DataTypes | None = None) -> Var:
    """One ``<variable>`` of the group ``kind`` (``owner`` names its POU for errors)."""
    name = v.get("name") or ""
    where = f"{owner}: variable {quote(name)}"
    tp, tname, alias_init = type_of(child(v, "type"), where, dtypes)
    init = None
    iv = child(v, "initialValue")
    text = None
    if iv is not None:
        sv = child(iv, "simpleValue")
        if tp is not None and sv is None:
            raise PlcOpenError(f"{where}: only simple initial values of elementary "
                               f"types are supported")
        text = sv.get("value", "") if sv is not None else None
    elif alias_init is not None:
        text = alias_init
    if tp is not None and text is not None:
        init = initial_value(text, tp, where)
    return Var(name, kind, tp, tname, init, v.get("address"),
               feedback=kind == "localVars" and has_data(v, FEEDBACK_NAME))


def read_interface(pou_el, name: str, dtypes: DataTypes | None, where: str) -> dict:
    """A POU's variables by name, in declaration order; a function's result under its
    own name (kind "return"). Two variables of one name (IEC names ignore case) are
    refused."""
    out: dict[str, Var] = {}
    seen: dict[str, str] = {}
    iface = child(pou_el, "interface")
    if pou_el.get("pouType") == "function":
        rt = child(iface, "returnType")
        if rt is not None:
            tp, tname, _ = type_of(rt, f"{where} return type", dtypes)
            out[name] = Var("OUT", "return", tp, tname)
            seen[name.upper()] = name
    for group in (iface if iface is not None else []):
        kind = tag(group)
        if kind not in GROUPS:
            continue
        constant, retain = true(group.get("constant")), true(group.get("retain"))
        for v in children(group, "variable"):
            var = read_var(v, kind, where, dtypes)
            var.constant, var.retain = constant, retain
            key = var.name.upper()
            if key in seen:
                raise PlcOpenError(f"{where}: the variable {quote(var.name)} is declared twice"
                                   + (" (IEC names ignore case)" if seen[key] != var.name
                                      else ""))
            seen[key] = var.name
            out[var.name] = var
    return out


__all__ = ["Var", "DataTypes", "read_data_types", "read_var", "read_interface", "type_of",
           "GROUPS", "FEEDBACK_NAME"]
