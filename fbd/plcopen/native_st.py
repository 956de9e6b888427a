"""This library's own blocks as ST function blocks, for the editors.

MEMORY, LIFO, FIFO, NEG (on unsigned types too) and F_TRIG without its
first-scan pulse are not IEC's; the export writes each, once per concrete
configuration (``FBD_MEMORY_DINT``, ``FBD_LIFO_INT_16``), as an ST function
block that does exactly what the block does, so Beremiz and OpenPLC Editor
compile the project. The POU's ``addData`` (``urn:fbd-sim:native``) names the
block, its types and parameters: the importer (:mod:`.native`) places the
block again without reading the ST.
"""

from __future__ import annotations

import json

from lxml import etree

from .. import types as t
from ..block import REQUIRED
from .emit import DATA_NS, NATIVE_NAME, XHTML_URI, P, sub, type_el, value_el


def _st_default(tp) -> str:
    """The type's initial value as an ST literal (what OUT holds when cleared)."""
    return {"bool": "FALSE", "real": "0.0", "time": "T#0s", "string": "''"}.get(tp.kind, "0")


def _st_memory(block, types):
    return [], f"""\
IF RST THEN
  OUT := {_st_default(types["T"])};
ELSIF SET THEN
  OUT := IN;
END_IF;"""


def _st_neg(block, types):
    tp = types["T"]
    # ST's unary minus is for signed types; 0 - IN wraps an unsigned one alike
    return [], "OUT := -IN;" if tp.signed else "OUT := 0 - IN;"


def _st_f_trig(block, types):
    # CODESYS's F_TRIG: no pulse before CLK has been TRUE (IEC ed. 2's fires on scan 1)
    return [("M", t.BOOL)], """\
Q := NOT CLK AND M;
M := CLK;"""


def _st_store(block, types):
    """LIFO and FIFO: the elements in ARRAY[0..depth-1]; a stack grows from DATA[0],
    a queue is a ring from HEAD (its front) to TAIL (where the next PUSH goes)."""
    depth, tp, fifo = block.p["depth"], types["T"], type(block).fifo
    local = [("DATA", ("array", depth, tp)), ("PUSH_M", t.BOOL), ("POP_M", t.BOOL),
             ("PUSH_E", t.BOOL), ("POP_E", t.BOOL)]
    if fifo:
        local += [("HEAD", t.INT), ("TAIL", t.INT)]
        clear = "  COUNT := 0;\n  HEAD := 0;\n  TAIL := 0;"
        pop = f"""\
      HEAD := HEAD + 1;
      IF HEAD >= {depth} THEN
        HEAD := 0;
      END_IF;
      COUNT := COUNT - 1;"""
        push = f"""\
      DATA[TAIL] := IN;
      TAIL := TAIL + 1;
      IF TAIL >= {depth} THEN
        TAIL := 0;
      END_IF;
      COUNT := COUNT + 1;"""
        top = "DATA[HEAD]"
    else:
        clear = "  COUNT := 0;"
        pop = "      COUNT := COUNT - 1;"
        push = "      DATA[COUNT] := IN;\n      COUNT := COUNT + 1;"
        top = "DATA[COUNT - 1]"
    return local, f"""\
PUSH_E := PUSH AND NOT PUSH_M;
POP_E := POP AND NOT POP_M;
PUSH_M := PUSH;
POP_M := POP;
IF RST THEN
{clear}
  OVERFLOW := FALSE;
  UNDERFLOW := FALSE;
ELSIF PUSH_E OR POP_E THEN
  OVERFLOW := FALSE;
  UNDERFLOW := FALSE;
  IF POP_E THEN
    IF COUNT > 0 THEN
{pop}
    ELSE
      UNDERFLOW := TRUE;
    END_IF;
  END_IF;
  IF PUSH_E THEN
    IF COUNT < {depth} THEN
{push}
    ELSE
      OVERFLOW := TRUE;
    END_IF;
  END_IF;
END_IF;
EMPTY := COUNT = 0;
FULL := COUNT >= {depth};
IF COUNT > 0 THEN
  OUT := {top};
ELSE
  OUT := {_st_default(tp)};
END_IF;"""


#: the blocks this library adds to IEC that an ST function block does exactly:
#: type name -> (block, concrete types) -> (local variables, ST body). NOW reads the
#: PLC's clock, which IEC gives no function to read: it stays an unknown block.
NATIVE_ST = {"MEMORY": _st_memory, "NEG": _st_neg, "F_TRIG": _st_f_trig,
              "LIFO": _st_store, "FIFO": _st_store}


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
    return NATIVE_ST[block.name](block, types)[1]


def native_pou(block, types):
    local, st = NATIVE_ST[block.name](block, types)

    def port_type(port):
        return types[port.type] if isinstance(port.type, str) else port.type

    pou = etree.Element(P + "pou", name="", pouType="functionBlock")
    iface = sub(pou, "interface")
    for tag, ports in (("inputVars", block.input_ports()), ("outputVars", block.output_ports())):
        group = sub(iface, tag)
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
            if isinstance(tp, tuple):            # ("array", depth, element type)
                arr = sub(sub(v, "type"), "array")
                sub(arr, "dimension", lower="0", upper=str(tp[1] - 1))
                type_el(arr, tp[2], "baseType")
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



__all__ = ["NATIVE_ST", "native_name", "native_st", "native_pou"]
