"""Which library block a generic ADD, SUB, MUL or DIV of a drawing is.

matiec resolves IEC's overloaded functions by the types of their inputs:
``DIV(TIME, ANY_NUM)`` is a TIME (edition 2's DIVTIME, deprecated in edition 3
and still in real projects), ``ADD(TOD, TIME)`` is ADD_TOD_TIME, and so on
(IEC 61131-3 table 30). This library has one block per overload, so the
importer picks it from the types the drawing shows: a variable's declared
type, a typed literal (``T#1s``, ``D#2024-01-31``), a block's declared output
type, or, through a generic block, the type of what it is wired to (followed
at most :data:`MAX_STEPS` elements back). Where the types do not show, the
generic block stays, and the compiler types it as usual.
"""

from __future__ import annotations

from .. import types as t
from .body import connections
from .source import child, children, tag, text

MAX_STEPS = 64
_PREFIX = {"T": t.TIME, "TIME": t.TIME, "LT": t.TIME, "LTIME": t.TIME, "D": t.DATE,
           "DATE": t.DATE, "TOD": t.TOD, "TIME_OF_DAY": t.TOD, "DT": t.DT,
           "DATE_AND_TIME": t.DT}
#: (block, type of IN1, type of IN2 or None for any) -> the block that does it
OVERLOADS = {
    ("MUL", t.TIME, None): "MUL_TIME", ("DIV", t.TIME, None): "DIV_TIME",
    ("ADD", t.TOD, None): "ADD_TOD_TIME", ("ADD", t.DT, None): "ADD_DT_TIME",
    ("SUB", t.DATE, None): "SUB_DATE_DATE",
    ("SUB", t.TOD, t.TIME): "SUB_TOD_TIME", ("SUB", t.TOD, t.TOD): "SUB_TOD_TOD",
    ("SUB", t.DT, t.TIME): "SUB_DT_TIME", ("SUB", t.DT, t.DT): "SUB_DT_DT",
}
_NEEDS_SECOND = {("SUB", t.TOD), ("SUB", t.DT)}


def resolve(type_name: str, block_el, body, var_type, registry, _budget=None) -> str:
    """The block to place for ``type_name`` (ADD, SUB, MUL, DIV; others unchanged).
    ``var_type(text)`` gives a declared variable's type, or None."""
    if type_name not in ("ADD", "SUB", "MUL", "DIV"):
        return type_name
    budget = [MAX_STEPS] if _budget is None else _budget
    first = pin_type(block_el, "IN1", body, var_type, registry, budget)
    if first is None or first.canonical not in (t.TIME, t.DATE, t.TOD, t.DT):
        return type_name
    first = first.canonical
    if (type_name, first, None) in OVERLOADS:
        return OVERLOADS[(type_name, first, None)]
    if (type_name, first) in _NEEDS_SECOND:
        second = pin_type(block_el, "IN2", body, var_type, registry, budget)
        if second is not None and (type_name, first, second.canonical) in OVERLOADS:
            return OVERLOADS[(type_name, first, second.canonical)]
    return type_name


def pin_type(block_el, pin: str, body, var_type, registry, _budget=None):
    """The type the drawing shows for what drives input ``pin`` of ``block_el``.
    An overloaded block on the way is resolved first (SUB of two DTs gives a
    TIME); the elements followed, in all, are at most :data:`MAX_STEPS`."""
    budget = [MAX_STEPS] if _budget is None else _budget
    el, want = block_el, pin
    while budget[0] > 0:
        budget[0] -= 1
        conns = []
        if tag(el) == "block":
            for g in ("inputVariables", "inOutVariables"):
                for v in children(child(el, g), "variable"):
                    if v.get("formalParameter") == want:
                        conns = connections(v)
        else:
            conns = connections(el)
        if not conns:
            return None
        src = body.elements.get(conns[0].get("refLocalId"))
        if src is None:
            return None
        kind = tag(src)
        if kind in ("inVariable", "inOutVariable"):
            return _expression_type(text(child(src, "expression")), var_type)
        if kind == "continuation":
            el = body.connectors.get(src.get("name") or "")
            if el is None:
                return None
            continue
        if kind != "block":
            return None
        cls = registry.get(resolve(src.get("typeName") or "", src, body, var_type, registry,
                                   budget))
        if cls is None:
            return None
        out = conns[0].get("formalParameter") or "OUT"
        port = next((p for p in cls.outputs if p.name == out), None)
        if port is not None and isinstance(port.type, t.DataType):
            return port.type
        el, want = src, "IN1" if any(getattr(p, "prefix", None) == "IN" or
                                     getattr(p, "name", None) == "IN1"
                                     for p in cls.inputs) else "IN"
    return None


def _expression_type(expr: str, var_type):
    tp = var_type(expr)
    if tp is not None:
        return tp
    if "#" in expr:
        return _PREFIX.get(expr.split("#", 1)[0].strip().upper())
    return None


__all__ = ["resolve", "pin_type", "OVERLOADS"]
