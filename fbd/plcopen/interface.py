"""Variables: a POU's interface and a configuration's globals.

A :class:`Var` is one declared variable with its kind (the PLCopen group it
is declared in: ``inputVars``, ``localVars``, ...), its type (elementary or a
user data type, see :mod:`.datatypes`; None for a function block instance),
its initial value in run-time form and its location. An ARRAY or STRUCT
variable with an initial value of its own gets a type of its own, derived
from the declared one (wires still join them), whose initial value it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import types as t
from .datatypes import DataTypes, string_type
from .emit import FEEDBACK_NAME
from .source import PlcOpenError, child, children, has_data, quote, tag, true
from .values import elementary, initial_value, run_value

#: the variable groups of a POU interface, and what IEC calls them
GROUPS = {"inputVars": "VAR_INPUT", "outputVars": "VAR_OUTPUT", "inOutVars": "VAR_IN_OUT",
          "localVars": "VAR", "tempVars": "VAR_TEMP", "externalVars": "VAR_EXTERNAL",
          "globalVars": "VAR_GLOBAL", "accessVars": "VAR_ACCESS"}


#: a group's retentive attribute and the qualifier it gives (persistent first: TC6 lets
#: a group say both, as CODESYS's RETAIN PERSISTENT, which is PERSISTENT)
RETENTIVE = (("PERSISTENT", "persistent"), ("RETAIN", "retain"), ("NON_RETAIN", "nonretain"))


@dataclass
class Var:
    name: str
    kind: str                 # a key of GROUPS, or "return" (a function's result)
    type: t.DataType | None   # None: a function block instance (or an unknown type)
    type_name: str
    init: object = None       # initial value as a network port takes it, or None
    address: str | None = None
    constant: bool = False
    retain: str | None = None  # RETAIN, NON_RETAIN or PERSISTENT as its group says
    feedback: bool = False    # our export's carrier of a feedback wire (not an output)
    location: object = None   # a located global's parsed address (what Modbus serves)

    @property
    def start(self):
        """The value the variable holds before anything writes it."""
        if self.init is not None:
            return self.init
        return run_value(self.type.copy(self.type.default), self.type)

    @property
    def structured(self) -> bool:
        """An ARRAY or STRUCT: its values are lists, which no literal wire carries."""
        return self.type is not None and self.type.kind in (t.Kind.ARRAY, t.Kind.STRUCT)


def type_of(type_el, where: str, dtypes: DataTypes | None):
    """(type or None, type name) of a ``<type>``: None for a name that is no data type
    (a function block's, or any derived type when ``dtypes`` is not given)."""
    if type_el is None or len(type_el) == 0:
        raise PlcOpenError(f"{where}: no type")
    inner = type_el[0]
    kind = tag(inner)
    name = (inner.get("name") or "") if kind == "derived" else kind.upper()
    if dtypes is None:
        if kind == "string":
            return string_type(inner, where), name
        return (elementary(name) if kind == "derived" else elementary(kind)), name
    return dtypes.type_of(type_el, where), name


def read_var(v, kind: str, owner: str, dtypes: DataTypes | None = None) -> Var:
    """One ``<variable>`` of the group ``kind`` (``owner`` names its POU for errors)."""
    name = v.get("name") or ""
    where = f"{owner}: variable {quote(name)}"
    tp, tname = type_of(child(v, "type"), where, dtypes)
    init = None
    iv = child(v, "initialValue")
    if iv is not None and tp is not None:
        if dtypes is not None:
            raw = dtypes.value(iv, tp, where)
            if tp.kind in (t.Kind.ARRAY, t.Kind.STRUCT):
                tp = t.DerivedType.of(tp.name, tp, tp.to_python(raw))
            init = run_value(raw, tp)
        else:
            sv = child(iv, "simpleValue")
            if sv is None:
                raise PlcOpenError(f"{where}: only simple initial values of elementary "
                                   f"types are supported")
            init = initial_value(sv.get("value", ""), tp, where)
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
            tp, tname = type_of(rt, f"{where} return type", dtypes)
            out[name] = Var("OUT", "return", tp, tname)
            seen[name.upper()] = name
    for group in (iface if iface is not None else []):
        kind = tag(group)
        if kind not in GROUPS:
            continue
        constant = true(group.get("constant"))
        retain = next((q for q, attribute in RETENTIVE if true(group.get(attribute))), None)
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


__all__ = ["Var", "read_var", "read_interface", "type_of", "GROUPS", "FEEDBACK_NAME"]
