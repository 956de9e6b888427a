"""The address space a PLC is served as: a tree of objects and typed variables,
laid out as a PLC engineer expects it (docs/opcua.md).

``Objects/<configuration>/<resource>/<program instance>/<variable>``: a
configuration's names, or for a program run alone (a Python network, one POU)
Beremiz's defaults, ``config/resource1/<program>``. An FB instance, a macro and
an FBD block are objects holding their variables; a structure is an object of
its fields, an array of structures an object of its elements; every other
variable is one node, an array an array node.

:func:`build_space` makes it from a running :class:`~fbd.Plc` alone, so a new
program (an online change) gets its space by calling it again. It knows no
OPC UA library: :mod:`.server` turns it into nodes.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from ..types import DataType
from ..values import Kind

#: a program run alone is served under Beremiz's default names
DEFAULT_CONFIGURATION = "config"
DEFAULT_RESOURCE = "resource1"

#: how a kind of signal reads as a declaration (an FBD program's, whose
#: variables are its ports and its blocks' pins)
_SECTION_OF_KIND = {"input": "VAR_INPUT", "output": "VAR_OUTPUT", "out": "VAR_OUTPUT",
                    "in": "VAR_INPUT", "state": "VAR", "port": "VAR_IN_OUT",
                    "global": "VAR_GLOBAL"}
#: kinds whose slot is the variable's own, so a write to it stays until the
#: program changes it (an ``out`` is computed by its block every scan, an
#: ``in`` or ``port`` is an alias of what drives it)
_OWN_SLOT = {"input", "state", "global"}


@dataclass(eq=False)
class Variable:
    """One variable node: where its value is (``owner.s[slot]``, then ``steps``
    into a structure or array) and what a client may do with it."""
    name: str
    path: str               # the dotted path from Objects, also the node's id
    type: DataType
    description: str
    owner: object           # the Task (or the configuration's GlobalTable) whose table holds it
    slot: int
    steps: tuple = ()       # indices into the slot's structure or array
    kind: str = "state"     # the signal's kind (fbd.compiler.flat.SignalKind, or "global")
    writable: bool = False


@dataclass(eq=False)
class Folder:
    """An object node: a configuration, a resource, a program instance, an FB
    instance, a structure. ``type_name`` is what it is an instance of, if anything."""
    name: str
    path: str
    description: str = ""
    type_name: str = ""
    children: dict = field(default_factory=dict)     # name -> Folder | Variable

    def folder(self, name: str, description: str = "", type_name: str = "") -> "Folder":
        child = self.children.get(name)
        if not isinstance(child, Folder):
            child = self.children[name] = Folder(name, f"{self.path}.{name}", description,
                                                 type_name)
        return child


@dataclass(eq=False)
class Space:
    """The tree (``root``, the configuration's object) and every variable in it."""
    root: Folder
    variables: list


def build_space(plc, expose=None, writable=None, readonly=None) -> Space:
    """The address space of ``plc``. ``expose``, ``writable`` and ``readonly`` are
    glob patterns on a variable's dotted path below the configuration
    (``res.inst.*``, ``*.SPEED``; case ignored, as IEC names): only variables
    matching ``expose`` are served (default: all), those matching ``writable``
    become writable where the program keeps their value, those matching
    ``readonly`` read-only. By default VAR_INPUTs, located inputs and plain VARs
    are writable; outputs, constants and located outputs are not."""
    names = plc.names
    conf = names.configuration if names is not None else DEFAULT_CONFIGURATION
    root = Folder(conf, conf, "configuration", "CONFIGURATION")
    variables: list[Variable] = []
    rules = _Rules(expose, writable, readonly, len(conf) + 1)
    if names is not None:
        table = names.globals
        for i, name in enumerate(table.names):
            tp = table.types[i]
            section = "VAR_GLOBAL CONSTANT" if table.constant[i] else "VAR_GLOBAL"
            _add(root, name, tp, f"{section} {name} : {tp.name}", table, i, (), "global",
                 not table.constant[i], rules, variables)
        for instance in names.instances.values():
            parent = root.folder(instance.resource, "resource", "RESOURCE") \
                if instance.resource else root
            _instance(parent, instance.name, instance.task, instance.body, rules, variables)
    else:
        resource = root.folder(DEFAULT_RESOURCE, "resource", "RESOURCE")
        for task in plc.tasks:
            name = task.program.name if task is plc.main else task.name
            _instance(resource, name, task, _body_of(task.program), rules, variables)
    return Space(root, variables)


def _body_of(program) -> str | None:
    """The block holding a text program's variables, when the network is that one
    PROGRAM (``prog.st:prg``), else None: an FBD network's paths are its variables."""
    if len(program.leaves) != 1:
        return None
    leaf = program.leaves[0]
    info = getattr(leaf.block, "st_info", None)
    return leaf.path if info is not None and info.kind == "PROGRAM" else None


def _instance(parent: Folder, name: str, task, body: str | None, rules, variables) -> None:
    program = task.program
    info = program.leaves[0].block.st_info if body is not None else None
    source_lines = info.st_source.splitlines() if info is not None and info.st_source else []
    folder = parent.folder(name, f"PROGRAM {name} : {program.name}", "PROGRAM")
    seen = set()
    signals = program.signals
    blocks = {leaf.path: leaf.block.name for leaf in program.leaves}
    cut = len(folder.path) + 1
    for path in signals:
        if body is not None:
            if path.startswith(body + "."):
                rest = path[len(body) + 1:]
            elif path in program.inputs:
                rest = path        # a located input: the network's input, and the body's
            else:
                continue           # the output image: the body's variable is served
        else:
            rest = path
        key = rest.upper()
        if key in seen:
            continue
        seen.add(key)
        sig = signals[_resolve(program, body, rest)]
        if sig.type is None or sig.slot is None:
            continue               # a block's internal storage, or a pin wired to a constant
        decl = _declaration(info, rest, source_lines) if info is not None else None
        if decl is not None:
            section, constant, location, comment = decl
        else:
            section, constant, location, comment = _SECTION_OF_KIND[sig.kind], False, "", ""
        located = location.upper()
        own = sig.kind in _OWN_SLOT and not constant and not located.startswith("%Q") \
            and section != "VAR_OUTPUT"
        if sig.slot in task.bound:
            # a VAR_EXTERNAL: loaded from its global before every scan, so written there
            section, own = "VAR_EXTERNAL", False
        parts = rest.split(".")
        holder = folder
        for part in parts[:-1]:
            known = holder.children.get(part)
            holder = known if isinstance(known, Folder) else holder.folder(
                part, _holder_description(blocks, body, f"{holder.path}.{part}"[cut:]))
        where = f" AT {location}" if location else ""
        described = (f"{section}{' CONSTANT' if constant else ''} {parts[-1]}{where} : "
                     f"{sig.type.name}" + (f" ({comment})" if comment else ""))
        _add(holder, parts[-1], sig.type, described, task, sig.slot, (), sig.kind, own, rules,
             variables)


def _resolve(program, body, rest: str) -> str:
    """The network path serving IEC variable ``rest``: a text program's located
    input is the network's input (what a write must reach, as
    :meth:`fbd.runtime.names.Instance.program_path` says), the rest the body's."""
    if body is None:
        return rest
    port = next((p for p in program.inputs if p.upper() == rest.upper()), None)
    return port or f"{body}.{rest}"


def _holder_description(blocks: dict, body, path: str) -> str:
    if body is not None:
        return "FB instance"
    block = blocks.get(path)
    return f"{block} block" if block is not None else "macro"


def _add(holder: Folder, name: str, tp: DataType, description: str, owner, slot: int,
         steps: tuple, kind: str, own: bool, rules, variables) -> None:
    """A variable, or for a structure (an array of structures) an object of its
    fields (elements), each field a variable of its own."""
    path = f"{holder.path}.{name}"
    if tp.kind is Kind.STRUCT:
        folder = holder.folder(name, description, tp.name)
        for i, fld in enumerate(tp.fields):
            _add(folder, fld.name, fld.type, f"{fld.name} : {fld.type.name}", owner, slot,
                 steps + (i,), kind, own, rules, variables)
        return
    if tp.kind is Kind.ARRAY and tp.element.kind is Kind.STRUCT:
        folder = holder.folder(name, description, tp.name)
        for k in range(tp.size):
            _add(folder, _index_name(tp, k), tp.element, f"element of {name}", owner, slot,
                 steps + (k,), kind, own, rules, variables)
        return
    if not rules.exposed(path):
        return
    var = Variable(name, path, tp, description, owner, slot, steps, kind,
                   rules.writable(path, own, kind))
    holder.children[name] = var
    variables.append(var)


def _index_name(tp, k: int) -> str:
    """``[lo]``, ``[i,j]``: an element's name by its IEC indices."""
    indices = []
    for lo, hi in reversed(tp.dims):
        n = hi - lo + 1
        indices.append(lo + k % n)
        k //= n
    return "[" + ",".join(map(str, reversed(indices))) + "]"


class _Rules:
    """The user's patterns (see :func:`build_space`)."""

    def __init__(self, expose, writable, readonly, cut: int):
        self.cut = cut      # the configuration's name and its dot: patterns start below it
        self._expose = _patterns(expose)
        self._writable = _patterns(writable)
        self._readonly = _patterns(readonly)

    def exposed(self, path: str) -> bool:
        return self._expose is None or bool(self._expose.match(path[self.cut:].upper()))

    def writable(self, path: str, own: bool, kind: str) -> bool:
        below = path[self.cut:].upper()
        if self._readonly is not None and self._readonly.match(below):
            return False
        if self._writable is not None and self._writable.match(below):
            return kind in _OWN_SLOT
        return own


def _patterns(globs):
    if not globs:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(g.upper())})" for g in globs))


# -- declarations of text POUs -----------------------------------------------------------
_COMMENT = re.compile(r"\(\*(.*?)\*\)|//(.*)$")


def _declaration(info, rest: str, lines: list[str]):
    """(section, constant, location, comment) of a text POU's variable by its path
    (``c.cv``: the output of FB instance ``c``), or None when not declared in text."""
    parts = rest.upper().split(".")
    var = info.variables.get(parts[0])
    for part in parts[1:]:
        if var is None or var.fb is None:
            return None
        inner = var.fb
        if hasattr(inner, "variables"):
            var = inner.variables.get(part)
        else:     # a library block: its ports
            entry = inner.ports.get(part)
            if entry is None:
                return None
            section = {"input": "VAR_INPUT", "output": "VAR_OUTPUT"}.get(entry[0], "VAR")
            return section, False, "", ""
    if var is None:
        return None
    node = var.node
    location = getattr(getattr(node, "location", None), "text", "")
    comment = ""
    line = getattr(node, "line", 0)
    if len(parts) == 1 and 0 < line <= len(lines):
        found = _COMMENT.search(lines[line - 1][getattr(node, "col", 1) - 1:])
        if found:
            comment = (found.group(1) or found.group(2) or "").strip()
    return var.section, bool(var.constant), str(location), comment


__all__ = ["build_space", "Space", "Folder", "Variable", "DEFAULT_CONFIGURATION",
           "DEFAULT_RESOURCE"]
