"""Names matiec refuses, renamed in an export and restored by the import.

A network may name a port ``Right`` or ``Add`` and a macro ``Score`` beside an
output ``Score``: fine here, but matiec, which Beremiz and OpenPLC compile
with, refuses a variable named like an IEC keyword or a function of its
library, and any variable named like a POU or a data type of the project (it
reads such a name as the type, whatever the POU). So the export renames, in
the POUs it writes itself:

* a POU named like a variable, a global, a data type, a keyword, a name of
  matiec's library or one of its parameter names (iec2c's ``-p``, which
  Beremiz passes, reads ``P``, ``IN``, ``G`` as those): ``Score`` ->
  ``Score_FB`` (``_PRG`` for the program);
* a variable of an FBD POU (a port, an instance, a feedback variable) named
  like a keyword, a name of matiec's library, or a POU or data type it cannot
  rename: ``Right`` -> ``Right_VAR``;

with its references (the variable's reads and writes in its body, the pins of
the blocks placing its POU, the blocks' and instances' types). Each renamed
element carries ``<addData>`` ``urn:fbd-sim:name`` with the name it was
written under and the one it had, and :func:`restore` (run by the import)
puts the original back wherever the written name still stands: export then
import gives back the network's own names. POUs brought from a file (ST, IL,
SFC, FBD) keep their names, which their text uses: :func:`refused` lists what
matiec will refuse there, for the user to rename.
"""

from __future__ import annotations

import functools
import re

from lxml import etree

from .emit import DATA_NS, NAME_MARK
from .source import child, children, tag

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
POU_SUFFIX = {"functionBlock": "FB", "program": "PRG", "function": "FUN"}
VAR_SUFFIX = "VAR"
#: the interface groups whose variables a POU's callers name as pins
PIN_GROUPS = ("inputVars", "outputVars", "inOutVars")


@functools.cache
def _matiec():
    """(keywords and type names, matiec's library, its parameter names), from the ST
    front end, which knows them as matiec has them (imported here when first used:
    fbd.st imports this package)."""
    from ..st.lexer import RESERVED
    from ..st.stdlib import ELEMENTARY_TYPES, STANDARD, TYPE_ALIASES
    return (frozenset(RESERVED) | ELEMENTARY_TYPES | frozenset(TYPE_ALIASES), STANDARD,
            STANDARD.parameter_names())


def keyword_or_library(name: str) -> str | None:
    """Why matiec cannot take ``name`` for a variable of its own, or None."""
    keywords, library, _parameters = _matiec()
    if name.upper() in keywords:
        return "an IEC keyword"
    if name in library:
        return "a function or function block of matiec's library"
    return None


def pou_clash(name: str) -> str | None:
    """Why matiec cannot take ``name`` for a POU whatever the project holds, or None."""
    why = keyword_or_library(name)
    if why is None and name.upper() in _matiec()[2]:
        why = "a parameter of matiec's library (iec2c -p, as Beremiz runs it)"
    return why


class _Project:
    """The POUs, variables, globals and data types of a project tree, by upper-case name."""

    def __init__(self, root):
        self.pous = [p for t in children(root, "types") for ps in children(t, "pous")
                     for p in children(ps, "pou")]
        self.types = {(d.get("name") or "").upper() for t in children(root, "types")
                      for ds in children(t, "dataTypes") for d in children(ds, "dataType")}
        self.globals = {(v.get("name") or "").upper() for g in root.iter("{*}globalVars")
                        for v in children(g, "variable")}

    def variables(self, pou):
        return [v for g in child(pou, "interface") if isinstance(g.tag, str)
                for v in children(g, "variable")] if child(pou, "interface") is not None else []

    def variable_names(self) -> set[str]:
        return {(v.get("name") or "").upper() for p in self.pous for v in self.variables(p)}

    def pou_names(self) -> set[str]:
        return {(p.get("name") or "").upper() for p in self.pous}


def make_buildable(root, fixed=()) -> None:
    """Rename, in the project tree ``root`` the writer made, what matiec refuses
    (see the module docstring); ``fixed`` names the POUs brought from a file,
    which keep their names and variables."""
    proj = _Project(root)
    fixed = {n.upper() for n in fixed}
    ours = [p for p in proj.pous if (p.get("name") or "").upper() not in fixed]
    variables = proj.variable_names() | proj.globals | proj.types
    taken = proj.pou_names() | variables
    renamed = {}
    for pou in ours:
        name = pou.get("name") or ""
        if pou_clash(name) or name.upper() in variables:
            renamed[name] = _fresh(f"{name}_{POU_SUFFIX.get(pou.get('pouType'), 'POU')}", taken)
            _mark(pou, name, renamed[name])
    _rename_pous(root, renamed)
    pous = proj.pou_names() | proj.types
    renames = {}
    for pou in ours:
        if child(child(pou, "body"), "FBD") is None:
            continue        # this library's blocks in ST: their names are chosen to build
        names = {(v.get("name") or "").upper() for v in proj.variables(pou)}
        for var in proj.variables(pou):
            name = var.get("name") or ""
            if keyword_or_library(name) or name.upper() in pous:
                new = _fresh(f"{name}_{VAR_SUFFIX}", names | pous)
                names.add(new.upper())
                renames.setdefault(id(pou), (pou, {}))[1][name] = (var, new)
                _mark(var, name, new)
    _rename_variables(proj, list(renames.values()))


def restore(root) -> None:
    """Give back the names an export renamed (its ``urn:fbd-sim:name`` marks), where
    the written name still stands and the original is an identifier free in its
    place; anything else is left as the file has it."""
    proj = _Project(root)
    free = proj.pou_names() | proj.types | proj.globals
    renamed = {}
    for pou in proj.pous:
        written, original = _marked(pou)
        if original and pou.get("name") == written and original.upper() not in free:
            renamed[written] = original
            free.add(original.upper())
    _rename_pous(root, renamed)
    renames = []
    for pou in proj.pous:
        variables = proj.variables(pou)
        names = {(v.get("name") or "").upper() for v in variables}
        back = {}
        for var in variables:
            written, original = _marked(var)
            if original and var.get("name") == written and original.upper() not in names:
                back[written] = (var, original)
                names.add(original.upper())
        if back:
            renames.append((pou, back))
    _rename_variables(proj, renames)


def refused(root) -> list[str]:
    """What matiec will refuse in the project tree ``root`` (once renamed): the names
    in POUs brought from a file, each with the reason, for the user to rename."""
    proj = _Project(root)
    pous = proj.pou_names() | proj.types
    variables = proj.variable_names() | proj.globals
    found = []
    todo = "matiec refuses it, so Beremiz and OpenPLC cannot build the project: rename it"
    for kind, name in [*(("data type", d.get("name") or "") for t in children(root, "types")
                         for ds in children(t, "dataTypes") for d in children(ds, "dataType")),
                       *(("POU", p.get("name") or "") for p in proj.pous)]:
        why = pou_clash(name) or ("a variable" if name.upper() in variables else None)
        if why:
            found.append(f"the {kind} {name} is named like {why}; {todo}")
    for pou in proj.pous:
        for var in proj.variables(pou):
            vname = var.get("name") or ""
            why = keyword_or_library(vname) or ("a POU or data type" if vname.upper() in pous
                                                else None)
            if why:
                found.append(f"the variable {pou.get('name')}.{vname} is named like {why}; {todo}")
    return found


# ------------------------------------------------------------------------ renaming
def _fresh(base: str, taken: set) -> str:
    name, k = base, 1
    while name.upper() in taken:
        k += 1
        name = f"{base}{k}"
    taken.add(name.upper())
    return name


def _rename_pous(root, renamed: dict) -> None:
    """POUs ``old -> new``, with every block, instance and derived type naming them."""
    if not renamed:
        return
    for el in root.iter("{*}pou", "{*}derived", "{*}block", "{*}pouInstance"):
        local = tag(el)
        if local == "pou" or local == "derived":
            key = "name"
        elif local in ("block", "pouInstance"):
            key = "typeName"
        else:
            continue
        new = renamed.get(el.get(key))
        if new is not None:
            el.set(key, new)


def _rename_variables(proj: _Project, renames: list) -> None:
    """For each (POU, {old: (variable, new)}): the variables, their reads and writes
    in the POU's body (and its instances' blocks), and the pins naming them on the
    blocks that place the POU."""
    pins = {}           # POU name -> {old pin: new pin}
    for pou, names in renames:
        for old, (var, new) in names.items():
            var.set("name", new)
            if tag(var.getparent()) in PIN_GROUPS:
                pins.setdefault(pou.get("name"), {})[old] = new
        body = child(pou, "body")
        for el in body.iter("{*}expression", "{*}block") if body is not None else ():
            local = tag(el)
            if local == "expression" and el.text in names:
                el.text = names[el.text][1]
            elif local == "block" and el.get("instanceName") in names:
                el.set("instanceName", names[el.get("instanceName")][1])
    if not pins:
        return
    for pou in proj.pous:
        placed = {}     # localId -> the pin names of a block placing a renamed POU
        for blk in pou.iter("{*}block"):
            if blk.get("typeName") in pins:
                placed[blk.get("localId")] = pins[blk.get("typeName")]
        if not placed:
            continue
        for el in pou.iter("{*}block", "{*}connection"):
            if tag(el) == "block":
                mapping = placed.get(el.get("localId"))
                for pin in el.iter("{*}variable") if mapping else ():
                    if pin.get("formalParameter") in mapping:
                        pin.set("formalParameter", mapping[pin.get("formalParameter")])
            elif el.get("refLocalId") in placed:
                # a wire from one of its outputs names the output
                mapping = placed[el.get("refLocalId")]
                if el.get("formalParameter") in mapping:
                    el.set("formalParameter", mapping[el.get("formalParameter")])


# ------------------------------------------------------------------------- marks
def _mark(el, original: str, written: str) -> None:
    """``<addData><data name="urn:fbd-sim:name"><fbd:name written=... original=.../>``,
    where the schema has an element's addData (before its documentation)."""
    ns = el.tag.split("}", 1)[0] + "}" if el.tag.startswith("{") else ""
    add = child(el, "addData")
    if add is None:
        add = etree.Element(ns + "addData")
        doc = child(el, "documentation")
        if doc is not None:
            doc.addprevious(add)
        else:
            el.append(add)
    data = etree.SubElement(add, ns + "data", name=NAME_MARK, handleUnknown="discard")
    etree.SubElement(data, "{%s}name" % DATA_NS, nsmap={"fbd": DATA_NS}, written=written,
                     original=original)


def _marked(el) -> tuple[str | None, str | None]:
    """(written, original) of an element's name mark, or (None, None); an original
    that is not an identifier (a file edited by hand, or hostile) is ignored."""
    for d in children(child(el, "addData"), "data"):
        if d.get("name") == NAME_MARK and len(d) and isinstance(d[0].tag, str):
            written, original = d[0].get("written"), d[0].get("original")
            if written and original and IDENTIFIER.fullmatch(original):
                return written, original
    return None, None


__all__ = ["make_buildable", "restore", "refused", "keyword_or_library", "pou_clash",
           "NAME_MARK"]
