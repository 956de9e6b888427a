"""Export a :class:`~fbd.network.Network` to PLCopen TC6 XML (v2.01).

``fbd.plcopen.save(network, path)`` (or ``fbd export MODULE:FUNCTION -o out.xml``)
writes a whole project that Beremiz and OpenPLC Editor open and build:

* every macro the network places becomes a ``functionBlock`` POU, the network
  itself a ``program`` POU, and a configuration runs it in a 5 ms cyclic task
  (:mod:`.pou_writer`; the order of whole calls, macros on a loop inlined:
  :mod:`.levels`);
* inputs and outputs become ``inputVars``/``outputVars`` with their types and
  defaults; a located port of the program becomes a local with its address,
  where IEC and matiec allow ``AT``; stateful blocks and macro instances are
  declared as ``localVars`` of their type, as the editors want;
* every element carries ``executionOrderId`` (the network's data-flow order),
  placed by the debugger's layout, long wires as connector pairs
  (:mod:`.diagram`); a feedback wire becomes a local ``fb_N`` written after
  everything else;
* block parameters this library adds to IEC (``first_scan_pulse``, ``depth``)
  and explicitly bound types travel in the block's ``addData``
  (``urn:fbd-sim:block``);
* a block this library adds to IEC's (MEMORY, LIFO, FIFO, NEG, NOW, F_TRIG
  without its first-scan pulse), or a shift whose count matiec leaves
  undefined, becomes a function block POU written in ST that does exactly what
  the block does, marked ``urn:fbd-sim:native`` so :func:`fbd.plcopen.load`
  maps it back to the block (:mod:`.native_st`);
* names matiec refuses are renamed, marked, and restored by the import
  (:mod:`.names`).

Importing the file again (:func:`fbd.plcopen.load`) gives a network that runs
identically scan for scan; what each decision is for: docs/plcopen.md.
:func:`validate` checks a file against the TC6 v2.01 schema, which ships with
the package (:func:`schema_path`).
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
