"""This library's own blocks as ST function blocks, for the editors.

MEMORY, LIFO, FIFO, NEG (on unsigned types too), NOW and F_TRIG without its
first-scan pulse are not IEC's, and a shift by a count matiec leaves undefined
is not IEC's either; each block says how it reads in ST (``Block.st``, in its
own module, and ``Block.st_needed`` for which literals IEC's own block will
do), and the export writes it, once per concrete configuration
(``FBD_MEMORY_DINT``, ``FBD_LIFO_INT_16``, ``FBD_SHL_LWORD_INT``), as an ST
function block that does exactly what the block does, so Beremiz and OpenPLC
Editor build the project and run it as this simulator does. The POU's
``addData`` (``urn:fbd-sim:native``) names the block, its types and parameters:
the importer (:mod:`.native`) places the block again without reading the ST.
"""

from __future__ import annotations

import json

from lxml import etree

from .. import types as t
from ..block import REQUIRED, Block
from .emit import DATA_NS, NATIVE_NAME, XHTML_URI, P, sub, type_el, value_el


def has_st(block) -> bool:
    """The block is one of this library's own with an ST form (see ``Block.st``)."""
    return type(block).st is not Block.st


def native_name(block, types) -> str:
    """``FBD_<TYPE>[_<T>...][_<depth>]``: IEC names no FBD_ POU, and a user macro of
    that name is told apart (``_2``) by the exporter."""
    parts = ["FBD", block.name, *(tp.name for tp in types.values())]
    if "depth" in block.p:
        parts.append(str(block.p["depth"]))
    if block.name == "F_TRIG":
        parts.append("NO_FIRST_PULSE")
    return "_".join(parts)


def native_st(block, types) -> str:
    """The ST body of the function block standing for ``block`` at ``types``."""
    return block.st(types)[1]


def native_pou(block, types):
    local, st = block.st(types)

    def port_type(port):
        return types[port.type] if isinstance(port.type, str) else port.type

    pou = etree.Element(P + "pou", name="", pouType="functionBlock")
    iface = sub(pou, "interface")
    for tag, ports in (("inputVars", block.input_ports()), ("outputVars", block.output_ports())):
        group = sub(iface, tag) if ports else None
        for port in ports:
            tp = port_type(port)
            v = sub(group, "variable", name=port.name)
            type_el(v, tp)
            if tag == "inputVars" and port.default is not REQUIRED and port.default != tp.default:
                value_el(v, port.default, tp)
    if local:
        group = sub(iface, "localVars")
        for name, tp in local:
            v = sub(group, "variable", name=name)
            if isinstance(tp, str):        # an instance of a library function block (RTC)
                sub(sub(v, "type"), "derived", name=tp)
            elif isinstance(tp, t.ArrayType):
                arr = sub(sub(v, "type"), "array")
                for lo, hi in tp.dims:
                    sub(arr, "dimension", lower=str(lo), upper=str(hi))
                type_el(arr, tp.element, "baseType")
            else:
                type_el(v, tp)
    body = sub(sub(pou, "body"), "ST")
    etree.SubElement(body, "{%s}p" % XHTML_URI).text = etree.CDATA(st)
    ad = sub(pou, "addData")
    d = sub(ad, "data", name=NATIVE_NAME, handleUnknown="preserve")
    etree.SubElement(d, "{%s}native" % DATA_NS, nsmap={"fbd": DATA_NS}, block=block.name,
                     types=",".join(f"{k}={v.name}" for k, v in types.items()),
                     params=json.dumps(block.p, sort_keys=True))
    doc = sub(pou, "documentation")
    p = etree.SubElement(doc, "{%s}p" % XHTML_URI)
    shown = ", ".join([*(tp.name for tp in types.values()),
                       *(f"{k}={v!r}" for k, v in sorted(block.p.items()))])
    p.text = etree.CDATA(f"fbd-sim's block {block.name}({shown}) in ST; fbd-sim imports this POU back "
                         f"as that block (addData {NATIVE_NAME}).")
    return pou



__all__ = ["has_st", "native_name", "native_st", "native_pou"]
