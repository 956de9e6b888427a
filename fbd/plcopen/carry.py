"""POUs carried from the file they were read from into an exported one.

A POU written in ST, IL or SFC runs here as the block it compiles to; the
export writes it back as it was written, not as blocks: its ``<pou>`` element
(interface, body text, actions, transitions) is copied, with the POUs it uses
and the file's data types, so the editors compile it as before and a second
import compiles the same text. Elements are re-created in the TC6 2.01
namespace the writer uses (a 2.0 or 1.0 file's POU is otherwise the same),
XHTML text and other namespaces kept.
"""

from __future__ import annotations

from lxml import etree

from .emit import NS_URI, CarriedPou, ExportError
from .source import NAMESPACES, namespace
from .st_export import pous_of


def carried(block) -> CarriedPou | None:
    """The POU a block was compiled from, if it was read from a file: a PLCopen
    file's element, or one made from the ``.st`` file it names (``st_file``)."""
    cls = type(block)
    source = getattr(cls, "plcopen_source", None)
    if source is None and getattr(cls, "st_file", None) is not None:
        source = pous_of(cls.st_file).carried(cls.type_name)
    return source


def renamespaced(el):
    """A deep copy of ``el`` with every element of a PLCopen namespace in 2.01's."""
    if not isinstance(el.tag, str):
        return None
    ns = namespace(el)
    local = el.tag.split("}", 1)[-1]
    tag = f"{{{NS_URI}}}{local}" if (ns in NAMESPACES or not ns) else el.tag
    out = etree.Element(tag, dict(el.attrib))
    out.text = el.text
    out.tail = el.tail
    for c in el:
        copy = renamespaced(c)
        if copy is not None:
            out.append(copy)
    return out


def write_carried(exporter, src: CarriedPou) -> str:
    """Register ``src`` (and what it needs, first) as POUs of the export; its name."""
    pous, types = exporter.pous, exporter.carried_types
    stack, done = [(src, False)], set()
    while stack:
        item, expanded = stack.pop()
        if id(item) in done:
            continue
        if not expanded:
            stack.append((item, True))
            stack.extend((n, False) for n in item.needs)
            continue
        done.add(id(item))
        present = pous.get(item.name)
        if present is not None and exporter.carried_elements.get(item.name) is not item.element:
            raise ExportError(f"two POUs would be named {item.name!r} in the export: the "
                              f"one read from the file and another the network holds")
        if present is None:
            el = renamespaced(item.element)
            pous[item.name] = el
            exporter.taken.add(item.name.upper())
            exporter.carried_elements[item.name] = item.element
        for dt in item.data_types:
            types.setdefault(dt.get("name") or "", dt)
        for var, constant in item.globals:
            exporter.carried_globals.setdefault((var.get("name") or "").upper(), (var, constant))
    return src.name


def carried_program(network, exporter) -> str | None:
    """A program read from a file and run alone (its network one instance of the
    block it compiles to, named like it) is written as that POU again; None for
    any other network."""
    if len(network.instances) != 1:
        return None
    inst = next(iter(network.instances.values()))
    src = carried(inst.element) if not inst.is_macro else None
    if src is None or inst.name != network.name or src.element.get("pouType") != "program":
        return None
    return write_carried(exporter, src)


def write_carried_globals(conf, exporter) -> None:
    """The configuration's globals the carried POUs' VAR_EXTERNALs name, so they hold
    in the export what they held in the file read."""
    for constant in (False, True):
        chosen = [v for v, c in exporter.carried_globals.values() if c is constant]
        if chosen:
            group = etree.SubElement(conf, f"{{{NS_URI}}}globalVars",
                                     {"constant": "true"} if constant else {})
            for var in chosen:
                group.append(renamespaced(var))


__all__ = ["CarriedPou", "carried", "carried_program", "renamespaced", "write_carried",
           "write_carried_globals"]
