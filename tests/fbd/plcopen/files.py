"""Small PLCopen files written by the tests, and where the real ones are.

The builders return XML text for one element; ``write(tmp_path, *pous)`` wraps
POUs into a project file. Positions matter (Beremiz orders output variables
and blocks by them), so every builder takes ``x`` and ``y``.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from fbd.plcopen import load_project

DATA = Path(__file__).resolve().parents[2] / "data" / "plcopen"
MORE = DATA / "more"
#: the schema: the package's copy once it ships one, else the tests' copy
XSD = next(p for p in (Path(__file__).resolve().parents[3] / "fbd" / "data" / "tc6_xml_v201.xsd",
                       DATA / "tc6_xml_v201.xsd") if p.is_file())
NS = "{http://www.plcopen.org/xml/tc6_0201}"

HEAD = """<?xml version="1.0" encoding="utf-8"?>
<project xmlns="http://www.plcopen.org/xml/tc6_0201">
  <fileHeader companyName="t" productName="t" productVersion="1" creationDateTime="nope"/>
  <contentHeader name="t"><coordinateInfo><fbd><scaling x="1" y="1"/></fbd>
  <ld><scaling x="1" y="1"/></ld><sfc><scaling x="1" y="1"/></sfc></coordinateInfo>
  </contentHeader>
  <types><dataTypes/><pous>
"""
TAIL = "</pous></types><instances><configurations/></instances></project>\n"
#: the points of a wire (the editors always write them; Beremiz's generator needs one)
WIRE = '<position x="0" y="0"/><position x="0" y="0"/>'
OUT_POINT = '<connectionPointOut><relPosition x="0" y="0"/></connectionPointOut>'


def schema():
    return etree.XMLSchema(etree.parse(str(XSD)))


def example(stem):
    """A vendored real project: tests/data/plcopen/<stem>.plc.xml, or more/<stem>.plc.xml."""
    for folder in (DATA, MORE):
        path = folder / f"{stem}.plc.xml"
        if path.is_file():
            return path
    raise FileNotFoundError(stem)


def pou(name, iface, body, kind="program", lang="FBD"):
    return (f'<pou name="{name}" pouType="{kind}"><interface>{iface}</interface>'
            f"<body><{lang}>{body}</{lang}></body></pou>")


def st_pou(name, iface, text, kind="program"):
    """A POU whose body is Structured Text ``text``."""
    return (f'<pou name="{name}" pouType="{kind}"><interface>{iface}</interface><body><ST>'
            f'<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml"><![CDATA[{text}]]></xhtml:p>'
            f"</ST></body></pou>")


def var(name, tp, init=None, at=None):
    iv = f'<initialValue><simpleValue value="{init}"/></initialValue>' if init is not None else ""
    address = f' address="{at}"' if at else ""
    inner = f'<derived name="{tp[1:]}"/>' if tp.startswith("@") else f"<{tp}/>"
    return f'<variable name="{name}"{address}><type>{inner}</type>{iv}</variable>'


def group(kind, *variables, attrs=""):
    return f"<{kind}{attrs}>{''.join(variables)}</{kind}>"


def inv(lid, expr, y=0, negated="false", x=0):
    return (f'<inVariable localId="{lid}" negated="{negated}"><position x="{x}" y="{y}"/>'
            f"{OUT_POINT}<expression>{expr}</expression></inVariable>")


def outv(lid, expr, ref, y=0, pin=None, attrs="", x=500):
    fp = f' formalParameter="{pin}"' if pin else ""
    return (f'<outVariable localId="{lid}"{attrs}><position x="{x}" y="{y}"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"{fp}>{WIRE}</connection></connectionPointIn>'
            f"<expression>{expr}</expression></outVariable>")


def inoutv(lid, expr, ref, y=0, attrs="", x=400, pin=None):
    fp = f' formalParameter="{pin}"' if pin else ""
    return (f'<inOutVariable localId="{lid}"{attrs}><position x="{x}" y="{y}"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"{fp}>{WIRE}</connection></connectionPointIn>'
            f"{OUT_POINT}<expression>{expr}</expression></inOutVariable>")


def _pins(ins, extra):
    iv = ""
    for pin, (ref, rpin) in ins.items():
        fp = f' formalParameter="{rpin}"' if rpin else ""
        iv += (f'<variable formalParameter="{pin}"{extra.get(pin, "")}><connectionPointIn>'
               f'<connection refLocalId="{ref}"{fp}>{WIRE}</connection></connectionPointIn>'
               f'{OUT_POINT if pin.startswith("&") else ""}</variable>')
    return iv.replace('formalParameter="&', 'formalParameter="')


def block(lid, tp, ins, outs, inst=None, y=0, extra=None, inouts=None, x=200, order=None):
    """A block; ``ins`` maps a pin to (source localId, source pin); ``inouts`` are
    VAR_IN_OUT pins; ``order`` its executionOrderId; ``extra`` attributes by pin."""
    extra = extra or {}
    name = f' instanceName="{inst}"' if inst else ""
    eo = f' executionOrderId="{order}"' if order else ""
    iv = _pins(ins, extra)
    io = _pins({"&" + k: v for k, v in (inouts or {}).items()}, extra)
    ov = "".join(f'<variable formalParameter="{o}"{extra.get(o, "")}><connectionPointOut>'
                 f'<relPosition x="60" y="{20 * k + 20}"/></connectionPointOut></variable>'
                 for k, o in enumerate(outs))
    return (f'<block localId="{lid}" typeName="{tp}"{name}{eo}><position x="{x}" y="{y}"/>'
            f"<inputVariables>{iv}</inputVariables><inOutVariables>{io}</inOutVariables>"
            f"<outputVariables>{ov}</outputVariables></block>")


def connector(lid, name, ref, pin=None):
    fp = f' formalParameter="{pin}"' if pin else ""
    return (f'<connector name="{name}" localId="{lid}"><position x="0" y="0"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"{fp}>{WIRE}</connection></connectionPointIn></connector>')


def continuation(lid, name):
    return (f'<continuation name="{name}" localId="{lid}"><position x="0" y="0"/>'
            f"<connectionPointOut/></continuation>")


# -- Ladder ----------------------------------------------------------------------------
def rail(lid, x=0, y=0, right=False, refs=()):
    if right:
        conns = "".join(f'<connection refLocalId="{r}">{WIRE}</connection>' for r in refs)
        return (f'<rightPowerRail localId="{lid}"><position x="{x}" y="{y}"/>'
                f"<connectionPointIn>{conns}</connectionPointIn></rightPowerRail>")
    return (f'<leftPowerRail localId="{lid}"><position x="{x}" y="{y}"/>'
            f'<connectionPointOut formalParameter=""/></leftPowerRail>')


def _conns(refs):
    out = ""
    for r in (refs if isinstance(refs, (list, tuple)) else [refs]):
        ref, pin = r if isinstance(r, tuple) else (r, None)
        fp = f' formalParameter="{pin}"' if pin else ""
        out += f'<connection refLocalId="{ref}"{fp}>{WIRE}</connection>'
    return out


def contact(lid, variable, refs, x=100, y=0, negated=False, edge=None):
    e = f' edge="{edge}"' if edge else ""
    return (f'<contact localId="{lid}" negated="{str(negated).lower()}"{e}>'
            f'<position x="{x}" y="{y}"/><connectionPointIn>{_conns(refs)}</connectionPointIn>'
            f"<connectionPointOut/><variable>{variable}</variable></contact>")


def coil(lid, variable, refs, x=300, y=0, negated=False, storage=None, edge=None):
    s = f' storage="{storage}"' if storage else ""
    e = f' edge="{edge}"' if edge else ""
    return (f'<coil localId="{lid}" negated="{str(negated).lower()}"{s}{e}>'
            f'<position x="{x}" y="{y}"/><connectionPointIn>{_conns(refs)}</connectionPointIn>'
            f"<connectionPointOut/><variable>{variable}</variable></coil>")


def configuration(tasks, globals_=""):
    """``tasks``: (task, priority, interval, instance, POU) tuples."""
    conf = "".join(
        f'<task name="{task}" priority="{prio}" interval="{interval}">'
        f'<pouInstance name="{inst}" typeName="{p}"/></task>'
        for task, prio, interval, inst, p in tasks)
    return ("</pous></types><instances><configurations>"
            f'<configuration name="cfg">{globals_}<resource name="r">{conf}</resource>'
            "</configuration></configurations></instances></project>")


def write(tmp_path, *pous, tail=TAIL, name="t.plc.xml"):
    path = tmp_path / name
    path.write_text(HEAD + "".join(pous) + tail)
    return path


def net(tmp_path, *pous, name="Main"):
    return load_project(write(tmp_path, *pous)).network(name)
