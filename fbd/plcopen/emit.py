"""Writing PLCopen elements: the namespace, literals, types and initial values.

Shared by the writer (:mod:`.writer`), the ST function blocks that stand
for this library's own blocks (:mod:`.native_st`), and the POUs an export
writes again as they were read (:class:`CarriedPou`, :mod:`.carry`,
:mod:`.st_export`).
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field

from lxml import etree

from .. import types as t
from .. import values as fv
from ..errors import FbdError
from ..values import Kind

NS_URI = "http://www.plcopen.org/xml/tc6_0201"
XHTML_URI = "http://www.w3.org/1999/xhtml"
DATA_NAME = "urn:fbd-sim:block"   # addData carrying block parameters and bound types
DATA_NS = "urn:fbd-sim"
NATIVE_NAME = "urn:fbd-sim:native"  # addData marking a POU that is one of our blocks
FEEDBACK_NAME = "urn:fbd-sim:feedback"  # addData marking a variable that only carries a feedback wire
NAME_MARK = "urn:fbd-sim:name"      # addData of an element the export renamed: its own name
P = "{%s}" % NS_URI


class ExportError(FbdError):
    """A network that cannot be written as PLCopen XML."""


@dataclass(eq=False)
class CarriedPou:
    """A POU element to write again as it is, with those it needs (:mod:`.carry`)."""
    name: str
    element: object                                   # the <pou>
    needs: list = field(default_factory=list)         # CarriedPou
    data_types: list = field(default_factory=list)    # <dataType> elements of its file
    globals: list = field(default_factory=list)       # (<variable>, constant) its externals name


def sub(parent, tag, **attrs):
    el = etree.SubElement(parent, P + tag)
    for k, v in attrs.items():
        if v is not None:
            el.set(k, str(v))
    return el


def literal_text(value, tp) -> str:
    """A literal as the file spells it: through the value codec, typed where the
    type is a number (``INT#5``, ``REAL#1.5``, ``WORD#16#FF``), so a reader needs
    no context to know it."""
    if tp is None:
        if isinstance(value, str):
            return fv.quote_string(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise ExportError(f"the literal {value!r} has no IEC spelling")
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if isinstance(value, _dt.timedelta):
            return fv.format_time(t.TIME.coerce(value))
        if isinstance(value, (int, float)):
            return fv.format_real(value) if isinstance(value, float) else str(value)
        raise ExportError(f"the literal {value!r} has no IEC spelling")
    try:
        raw = tp.coerce(value, "literal")
    except t.InvalidValue as e:
        raise ExportError(str(e)) from None
    if tp.kind is Kind.REAL and not math.isfinite(raw):
        raise ExportError(f"the literal {value!r} has no IEC spelling")
    text = fv.format_value(tp, raw)
    return f"{tp.name}#{text}" if tp.kind in (Kind.INT, Kind.BITS, Kind.REAL) and tp is not t.BOOL else text


def type_el(parent, tp, tag="type"):
    el = sub(parent, tag)
    if tp is None:
        raise ExportError("a port of undetermined type")
    if tp.kind is Kind.STRING:   # a STRING[n] keeps its length
        sub(el, "string", length=None if tp.capacity == t.STRING_MAX else tp.capacity)
    else:
        sub(el, tp.name)
    return el


def value_el(parent, value, tp):
    iv = sub(parent, "initialValue")
    sub(iv, "simpleValue", value=literal_text(value, tp).split("#", 1)[-1]
         if tp is not None and tp.kind in (Kind.INT, Kind.BITS, Kind.REAL) else literal_text(value, tp))
    return iv


__all__ = ["ExportError", "CarriedPou", "sub", "literal_text", "type_el", "value_el", "NS_URI",
           "XHTML_URI", "DATA_NAME", "DATA_NS", "NATIVE_NAME", "FEEDBACK_NAME", "NAME_MARK", "P"]
