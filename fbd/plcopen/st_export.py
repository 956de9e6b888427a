"""The POUs of a ``.st`` file as PLCopen TC6 XML, written as their author wrote them.

A POU compiled from a ``.st`` file runs here as the block it compiles to, as
one read from a PLCopen file does; the export writes both back as text, not
as blocks (:mod:`.carry`). For a POU read from XML that text is its
``<pou>`` element; for one read from a ``.st`` file this module makes that
element from the syntax tree and the file's text:

* the ``<interface>`` from its declarations (:mod:`.st_declarations`);
* an ST or IL body as ``<ST>`` / ``<IL>`` holding the body's text as written,
  comments and layout kept (:mod:`.st_source`); an SFC body as a graphical
  ``<SFC>`` chart with its actions and named transitions (:mod:`.st_sfc`);
* the file's TYPE declarations as ``<dataTypes>``, the globals its
  VAR_EXTERNALs name from the CONFIGURATION.

:func:`pous_of` makes those elements for a loaded ``.st`` file (each block
type of it names the file as ``st_file``; :func:`.carry.carried` asks when an
export first meets one), so ``fbd export prog.st:main`` and a network placing
an ST block write it as :mod:`.writer` writes any carried POU.
:func:`project_xml` writes the whole file: every POU, the data types, and
each CONFIGURATION with its resources, tasks and globals
(``fbd export prog.st``); a file without a configuration and with one
PROGRAM runs it in a cyclic task, as the export of one network does.
"""

from __future__ import annotations

import copy
import datetime as _dt
import weakref
from pathlib import Path

from lxml import etree

from ..st import ast as A
from .emit import NS_URI, XHTML_URI, CarriedPou, P, sub
from .st_declarations import Declarations
from .st_sfc import ChartWriter, text_el
from .st_source import SourceText

POU_TYPES = {"PROGRAM": "program", "FUNCTION_BLOCK": "functionBlock", "FUNCTION": "function"}


class StPous:
    """The ``<pou>`` elements of one parsed ``.st`` file, made on demand."""

    def __init__(self, unit: A.CompilationUnit, filename: str):
        self.unit, self.filename = unit, filename
        self.source = SourceText(unit.source)
        self.decls = Declarations(filename)
        self.by_name = {p.name.upper(): p for p in unit.pous}
        self._carried: dict = {}
        self._types = None
        self._globals = None

    # ------------------------------------------------------------------- POUs
    def pou_xml(self, pou: A.Pou):
        el = etree.Element(P + "pou", nsmap={None: NS_URI, "xhtml": XHTML_URI})
        el.set("name", pou.name)
        el.set("pouType", POU_TYPES[pou.kind])
        self.decls.interface(el, pou)
        body = sub(el, "body")
        label = f"{pou.kind} {pou.name}"
        if isinstance(pou.body, A.SfcBody):
            ChartWriter(pou, self.source, label, self.filename).write(sub(body, "SFC"), el)
        else:
            text_el(body, pou.language, self.source.pou_body(pou))
        return el

    def data_types(self) -> list:
        if self._types is None:
            holder = etree.Element(P + "dataTypes")
            self._types = [self.decls.data_type(holder, d) for d in self.unit.types]
        return self._types

    def globals(self) -> dict:
        """NAME -> (<variable>, constant) for every global of the configurations."""
        if self._globals is not None:
            return self._globals
        out = self._globals = {}
        for conf in self.unit.configurations:
            blocks = list(conf.var_blocks)
            for res in conf.resources:
                blocks.extend(res.var_blocks)
            for vb in blocks:
                holder = etree.Element(P + "globalVars")
                for d in vb.decls:
                    var = self.decls.variable(holder, d, f"CONFIGURATION {conf.name}")
                    out.setdefault((d.name or "").upper(), (var, vb.qualifier == "CONSTANT"))
        return out

    def carried(self, name: str) -> CarriedPou:
        """POU ``name`` as :mod:`.carry` writes it: its element, the POUs it uses,
        the data types, the globals its VAR_EXTERNALs name."""
        key = name.upper()
        if key not in self._carried:
            pou = self.by_name[key]
            externals = {(d.name or "").upper() for vb in pou.var_blocks
                         if vb.kind == "VAR_EXTERNAL" for d in vb.decls}
            found = self.globals()
            src = CarriedPou(pou.name, self.pou_xml(pou), data_types=self.data_types(),
                             globals=[found[g] for g in sorted(externals) if g in found])
            self._carried[key] = src
            src.needs = [self.carried(used) for used in self.uses(pou)]
        return self._carried[key]

    def uses(self, pou: A.Pou) -> list:
        """The file's other POUs ``pou`` places or calls, in the order first named."""
        out = []
        for node in A.iter_nodes(pou):
            used = None
            if isinstance(node, A.NamedType):
                used = node.name
            elif isinstance(node, (A.Call, A.Invoke, A.IlFunction, A.IlFormalCall)):
                used = node.name
            if used is not None:
                other = self.by_name.get(used.upper())
                if other is not None and other is not pou and other.name not in out:
                    out.append(other.name)
        return out


#: each loaded ``.st`` file's elements, made once (a file's POUs are written once
#: per export, however many blocks of it the exported network places)
_MADE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def pous_of(source) -> StPous:
    """The ``<pou>`` elements of a loaded ``.st`` file (:class:`fbd.st.project.SourceFile`)."""
    pous = _MADE.get(source)
    if pous is None:
        pous = _MADE[source] = StPous(source.unit, source.path)
    return pous


def project_xml(project, *, cycle: str = "T#5ms", company: str = "fbd"):
    """The whole ``.st`` file as a PLCopen project (see the module docstring)."""
    pous: StPous = pous_of(project.source)
    unit = pous.unit
    root = etree.Element(P + "project", nsmap={None: NS_URI, "xhtml": XHTML_URI})
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    sub(root, "fileHeader", companyName=company, productName="fbd-sim", productVersion="1",
        creationDateTime=now)
    ch = sub(root, "contentHeader", name=Path(pous.filename).stem, modificationDateTime=now)
    ci = sub(ch, "coordinateInfo")
    for lang in ("fbd", "ld", "sfc"):
        sub(sub(ci, lang), "scaling", x="1", y="1")
    types_el = sub(root, "types")
    data_types = sub(types_el, "dataTypes")
    for dt in pous.data_types():
        data_types.append(copy.deepcopy(dt))
    pous_el = sub(types_el, "pous")
    for pou in unit.pous:
        pous_el.append(pous.pou_xml(pou))
    configs = sub(sub(root, "instances"), "configurations")
    for conf in unit.configurations:
        pous.decls.configuration(configs, conf)
    programs = [p for p in unit.pous if p.kind == "PROGRAM"]
    if not unit.configurations and len(programs) == 1:
        conf = sub(configs, "configuration", name="config")
        task = sub(sub(conf, "resource", name="resource1"), "task", name="task0", priority="0",
                   interval=cycle)
        sub(task, "pouInstance", name="instance0", typeName=programs[0].name)
    return etree.ElementTree(root)


__all__ = ["StPous", "pous_of", "project_xml"]
