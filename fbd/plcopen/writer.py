"""Export a :class:`~fbd.network.Network` to PLCopen TC6 XML (v2.01).

``fbd.plcopen.save(network, path)`` (or ``fbd export MODULE:FUNCTION -o out.xml``)
writes a whole project that Beremiz and OpenPLC Editor open:

* every macro the network places becomes a ``functionBlock`` POU (one per
  distinct body: two macros of the same name whose bodies differ become
  ``Name`` and ``Name_2``), the network itself a ``program`` POU, and a
  configuration runs it in a 5 ms cyclic task;
* inputs and outputs become ``inputVars``/``outputVars`` with their types,
  defaults (``initialValue``) and locations (``address="%IX0.0"``); stateful
  blocks and macro instances are declared as ``localVars`` of their type, as
  the editors want;
* a literal wired to an input becomes an ``inVariable`` holding it (typed,
  ``DINT#5``, where the port's type is known);
* every element carries ``executionOrderId`` (the network's data-flow order),
  so the file runs in the order this simulator runs it;
* a feedback wire (the previous scan's value) becomes a local variable
  ``fb_N``: an ``outVariable`` writes the source's value into it after
  everything else has run, an ``inVariable`` reads it where the wire went, so
  the reader sees the value of the previous scan, as the wire did;
* block parameters this library adds to IEC (``first_scan_pulse``,
  ``depth``) and explicitly bound types travel in the block's ``addData``
  (``urn:fbd-sim:block``), which other tools preserve or ignore;
* a block this library adds to IEC's (MEMORY, LIFO, FIFO, NEG, F_TRIG without
  its first-scan pulse) becomes a function block POU written in ST, one per
  concrete configuration (``FBD_MEMORY_DINT``, ``FBD_LIFO_INT_16``), that the
  editors compile and that does exactly what the block does; the POU's
  ``addData`` (``urn:fbd-sim:native``) names the block, its types and
  parameters, so :func:`fbd.plcopen.load` maps it back to the block without
  reading the ST. MUL_TIME and DIV_TIME are written as MULTIME and DIVTIME,
  their edition-2 names that Beremiz and matiec know. NOW (the PLC's clock)
  has no IEC equivalent and stays as it is: the editors do not know it.

IEC runs a function block call as a whole, where this simulator may
interleave the blocks of two macros that feed each other (control ->
processing -> control in 2048). Such a level has no order of whole calls, so
the macros on such a loop are inlined into the exported POU (their blocks
named ``<instance>_<block>``) until one exists; the behaviour is unchanged.

Positions come from the debugger's layout (:mod:`fbd.debug.layout`): layers by
data flow, boxes ordered to keep crossings few, wires routed in the channels
between layers, and a wire over more than a few layers drawn as a connector
pair, as the editors draw long wires (see :mod:`.diagram`).
Importing the file again (:func:`fbd.plcopen.load`) gives a network that runs
identically scan for scan. :func:`validate` checks a file against the TC6
v2.01 schema, which ships with the package (:func:`schema_path`).
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import tempfile
from importlib import resources
from pathlib import Path

from lxml import etree

from ..compiler import flatten
from ..compiler.front import count_instances, quiet_gc
from ..library import load_libraries
from ..network import Network
from .carry import carried_program, renamespaced, write_carried_globals
from .emit import NS_URI, XHTML_URI, ExportError, P, sub
from .names import make_buildable
from .native_st import native_st
from .pou_writer import Exporter


def save(network: Network, path, *, cycle: str = "T#5ms", company: str = "fbd") -> None:
    """Write ``network`` and the macros it uses as a PLCopen project file. A regular
    file is written whole or not at all (a full disk leaves the old file as it was)."""
    write_tree(to_xml(network, cycle=cycle, company=company), path)


def write_tree(tree, path) -> None:
    """Write the project ``tree`` to ``path``, whole or not at all."""
    _unindented(tree.getroot() if hasattr(tree, "getroot") else tree)
    data = etree.tostring(tree, xml_declaration=True, encoding="utf-8", pretty_print=True)
    path = Path(path)
    try:
        if path.exists() and not path.is_file():     # a device or a pipe: straight in
            with open(path, "wb") as f:
                f.write(data)
            return
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.",
                                         delete=False) as f:
            tmp = Path(f.name)
            try:
                f.write(data)
            except BaseException:
                f.close()
                tmp.unlink(missing_ok=True)
                raise
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        os.chmod(tmp, mode)        # as plain open() would have made it, not the temp's 0600
        os.replace(tmp, path)
    except OSError as e:
        raise ExportError(f"{path}: cannot write the project: {e.strerror or e}") from None


def _unindented(root) -> None:
    """Drop the layout a POU carried from a file brought (blank text between
    PLCopen elements), so the whole file is indented alike and writing it again
    gives the same bytes; text inside XHTML (bodies, documentation) is kept."""
    for el in root.iter():
        if not isinstance(el.tag, str) or not el.tag.startswith(P):
            continue
        if el.text is not None and not el.text.strip():
            el.text = None
        for c in el:
            if c.tail is not None and not c.tail.strip():
                c.tail = None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def schema_path() -> Path:
    """The PLCopen TC6 XML v2.01 schema (``tc6_xml_v201.xsd``), package data of ``fbd``
    (found through the package, not this module's place in it)."""
    return Path(str(resources.files("fbd").joinpath("data", "tc6_xml_v201.xsd")))


@functools.cache
def _schema():
    return etree.XMLSchema(etree.parse(str(schema_path())))


def validate(path) -> None:
    """Check the project file ``path`` against the TC6 v2.01 schema; an
    :class:`ExportError` names the file, the line and the first rule it breaks."""
    from .source import PlcOpenError, parse  # the import's safe parser: no DTD, no network
    try:
        root, _ns = parse(path)
    except PlcOpenError as e:
        raise ExportError(str(e)) from None
    schema = _schema()
    if not schema.validate(root):
        first = schema.error_log[0]
        message = " ".join(first.message.replace(P, "").split())
        raise ExportError(f"{path}:{first.line}: not valid PLCopen TC6 XML v2.01: {message}")


def to_xml(network: Network, *, cycle: str = "T#5ms", company: str = "fbd"):
    """The project as an lxml ElementTree (see the module docstring)."""
    if not isinstance(network, Network):
        raise ExportError(f"export needs a Network, not {type(network).__name__}")
    load_libraries()
    with quiet_gc(count_instances(network)):     # a big export only allocates
        program = flatten(network)   # types, initial values, order; validates too
        ex = Exporter(program)
        top = carried_program(network, ex) or ex.pou(network, "", "program")
    root = etree.Element(P + "project", nsmap={None: NS_URI, "xhtml": XHTML_URI})
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    sub(root, "fileHeader", companyName=company, productName="fbd-sim", productVersion="1",
         creationDateTime=now)
    ch = sub(root, "contentHeader", name=network.name, modificationDateTime=now)
    ci = sub(ch, "coordinateInfo")
    for lang in ("fbd", "ld", "sfc"):
        sub(sub(ci, lang), "scaling", x="1", y="1")
    types_el = sub(root, "types")
    data_types = sub(types_el, "dataTypes")
    for dt in ex.carried_types.values():
        data_types.append(renamespaced(dt))
    pous = sub(types_el, "pous")
    for el in ex.pous.values():
        pous.append(el)
    configs = sub(sub(root, "instances"), "configurations")
    conf = sub(configs, "configuration", name="config")
    res = sub(conf, "resource", name="resource1")
    task = sub(res, "task", name="task0", priority="0", interval=cycle)
    sub(task, "pouInstance", name="instance0", typeName=top)
    write_carried_globals(conf, ex)
    make_buildable(root, fixed=ex.carried_elements)
    return etree.ElementTree(root)


__all__ = ["save", "to_xml", "native_st", "schema_path", "validate", "ExportError"]
