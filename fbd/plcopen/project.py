"""A PLCopen project: its POUs as networks and block types, its configuration.

::

    project = load_project("plc.xml")
    net = project.network("plc_prg")      # a Network, usable with Harness
    plc = project.plc()                   # the configuration: one task per program instance

``load_project`` reads the file (:mod:`.source`), the data types and
variables (:mod:`.interface`), builds each FBD and LD POU (:mod:`.builder`)
and compiles each ST, IL and SFC one (:mod:`.textpous`), POUs that others
use first, and reads the first configuration. A POU that
does not import does not stop the others: ``project.errors`` says why, and
asking for it (or running a configuration that needs it) raises that error.

The project is :class:`fbd.project.Project`, the model a ``.st`` file gives
too; the first configuration is read by :mod:`.configuration` and runs as
:mod:`fbd.runtime.configuration` says. For that run :meth:`Importer.for_configuration`
builds each program with its ``externalVars`` bound to the configuration's
globals; a program run alone (:meth:`Project.network`) keeps a copy of its
own instead.
"""

from __future__ import annotations

from ..errors import FbdError
from ..library import load_libraries
from ..project import MAX_POU_DEPTH, Configuration, ProgramSource, Project, TaskSpec
from .builder import PouBuilder, body_of
from .carry import CarriedPou
from .configuration import read_configuration
from .datatypes import read_data_types
from .interface import read_interface
from .names import restore as restore_names
from .native import marker, native_block
from .source import PlcOpenError, child, children, documentation, in_file, parse, quote, tag
from .textpous import TEXT_LANGUAGES, TextPous, program_network


class PlcOpenProject(Project):
    """A PLCopen file's project (:class:`fbd.project.Project`): its problems are
    :class:`PlcOpenError` s."""
    error = PlcOpenError


def load_project(path) -> Project:
    """Read a PLCopen TC6 file (2.01, 2.0 or 1.0) and import every FBD and LD POU."""
    load_libraries()
    root, ns = parse(path)
    restore_names(root)          # what our export renamed for matiec (fbd.plcopen.names)
    project = PlcOpenProject(str(path))
    project.data_types = read_data_types(root, path)
    pou_els = {}
    seen = {}
    for types_el in children(root, "types"):
        for pous in children(types_el, "pous"):
            for pou in children(pous, "pou"):
                name = pou.get("name") or ""
                if name.upper() in seen:
                    raise PlcOpenError(f"{path}: two POUs are named {quote(name)}"
                                       + (f" and {quote(seen[name.upper()])} (IEC names "
                                          f"ignore case)" if seen[name.upper()] != name else ""))
                seen[name.upper()] = name
                pou_els[name] = pou
    try:
        project.configuration = read_configuration(root, path, ns, project.data_types)
    except PlcOpenError as e:   # reported when the configuration is run
        project.configuration_error = e
    conf_vars = project.configuration.variables if project.configuration else {}
    importer = Importer(project, pou_els, conf_vars, root)
    project._importer = importer
    importer.build_all()
    return project


load = load_project


class Importer:
    """Builds the project's POUs, each once, those a POU places before it."""

    def __init__(self, project: Project, pou_els: dict, globals_: dict, root=None):
        self.project = project
        self.pou_els = pou_els
        self.globals = globals_
        self.data_types = project.data_types
        self.natives: dict = {}     # POU name -> a function making its library block
        self.compiled: dict = {}    # ST, IL and SFC POU name -> the block class it compiles to
        self.text = TextPous(self, root)
        self._carried: dict = {}
        self.kinds = {name: el.get("pouType") for name, el in pou_els.items()}
        self.inouts: dict[str, set] = {}
        self._upper = {name.upper(): name for name in pou_els}
        self._bound: dict = {}

    def pou_name(self, type_name: str):
        """The POU a block's typeName places (IEC names ignore case), or None."""
        if type_name in self.pou_els:
            return type_name
        return self._upper.get(type_name.upper())

    def placeable(self, name: str):
        """What a block of type ``name`` places: a fresh library block for a POU our
        export wrote for one, else the POU's network (built already)."""
        if name in self.natives:
            return self.natives[name]()
        if name in self.compiled:
            return self.compiled[name]()
        p = self.project
        if name in p.errors:
            raise p.errors[name]
        return p.pous[name]

    def build_all(self):
        p = self.project
        for name, el in self.pou_els.items():
            body_el, lang = body_of(el)
            p.languages[name] = lang
            if marker(el) is not None:       # our blocks first: the other POUs place them
                try:
                    self.natives[name] = native_block(name, el)
                    p.blocks[name] = self.natives[name]()
                except PlcOpenError as e:
                    p.errors[name] = in_file(p.path, e.detail)
        for name in self._build_order():
            if name in self.natives or name in p.errors:
                continue
            try:
                p.pous[name] = self._build(name)
            except PlcOpenError as e:
                p.errors[name] = e

    def _build(self, name, bound_globals=False):
        if self.project.languages.get(name) in TEXT_LANGUAGES:
            return self._build_text(name, bound_globals)
        builder = PouBuilder(self, name, self.pou_els[name], bound_globals)
        try:
            net = builder.build()
        except PlcOpenError as e:
            if str(e) == e.detail:      # said where in the POU, not yet in which file
                raise in_file(self.project.path, e.detail) from None
            raise
        self.inouts[name] = {v.name for v in builder.vars.values() if v.kind == "inOutVars"}
        return (net, builder) if bound_globals else net

    def _build_text(self, name, bound_globals):
        try:
            cls = self.compiled.get(name) or self.text.build(name)
        except PlcOpenError as e:
            if str(e) == e.detail:
                raise in_file(self.project.path, e.detail) from None
            raise
        cls.plcopen_source = self.carried(name)
        self.compiled[name] = cls
        try:
            net = program_network(name, cls(), documentation(self.pou_els[name]))
        except FbdError as e:
            raise in_file(self.project.path, f"POU {quote(name)}: {e}") from None
        if not bound_globals:
            return net
        variables = read_interface(self.pou_els[name], name, self.data_types, f"POU {quote(name)}")
        return net, _TextGlobals(name, variables)

    def carried(self, name) -> CarriedPou:
        """The POU ``name`` as the export writes it again: its element, the POUs it
        uses (each once), the file's data types."""
        if name not in self._carried:
            self._carried[name] = src = CarriedPou(name, self.pou_els[name],
                                                   data_types=self.text.data_type_elements(),
                                                   globals=self.text.global_elements(name))
            src.needs = [self.carried(used) for used in self._uses(name)]
        return self._carried[name]

    def _uses(self, name) -> list:
        body_el, lang = body_of(self.pou_els[name])
        if lang in TEXT_LANGUAGES:
            return self.text.uses(name)
        if lang not in ("FBD", "LD"):
            return []
        out = []
        for el in body_el:
            if tag(el) == "block":
                used = self.pou_name(el.get("typeName") or "")
                if used is not None and used not in out:
                    out.append(used)
        return out

    def _build_order(self) -> list:
        """POUs so that each comes after those it places (a depth-first walk with an
        explicit stack); a POU that places itself, directly or not, or nests deeper
        than :data:`MAX_POU_DEPTH`, gets its error instead."""
        order, state = [], {}          # state: 1 on the walk's path, 2 done
        errors = self.project.errors
        for top in self.pou_els:
            if state.get(top):
                continue
            path, iters = [top], [iter(self._uses(top))]
            state[top] = 1
            while path:
                nxt = next(iters[-1], None)
                if nxt is None:
                    state[path[-1]] = 2
                    order.append(path.pop())
                    iters.pop()
                    continue
                if state.get(nxt) == 1:
                    cycle = path[path.index(nxt):] + [nxt]
                    for pou in cycle[:-1]:
                        errors.setdefault(pou, in_file(self.project.path,
                            f"POU {quote(pou)} uses itself (through {' -> '.join(cycle)})"))
                    continue
                if state.get(nxt) == 2:
                    continue
                if len(path) >= MAX_POU_DEPTH:
                    for pou in path:
                        errors.setdefault(pou, in_file(self.project.path,
                            f"POU {quote(pou)}: POUs placed inside one another more than "
                            f"{MAX_POU_DEPTH} deep ({' -> '.join(path[:4])} -> ...)"))
                    continue
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(self._uses(nxt)))
        return order

    def for_configuration(self, name: str) -> ProgramSource:
        """Program ``name`` for a configuration run: its network, how its globals
        bind ({global: ("input", input name) | ("state", final value path)}), and
        the block holding its variables (a text POU's; an FBD or LD POU has none)."""
        if name not in self._bound:
            if name not in self.pou_els:
                raise PlcOpenError(f"{self.project.path}: a program instance runs "
                                   f"{quote(name)}, which is not a POU of this project")
            net = self.project.network(name)       # raises its error, if it has one
            iface = child(self.pou_els[name], "interface")
            if any(children(g, "variable") for g in children(iface, "externalVars")):
                net, builder = self._build(name, bound_globals=True)
                for var in builder.vars.values():
                    glob = self.globals.get(var.name)
                    if var.kind == "externalVars" and glob is not None and \
                            glob.type_name.upper() != var.type_name.upper():
                        raise in_file(self.project.path, f"POU {quote(name)}: VAR_EXTERNAL "
                                      f"{quote(var.name)} is {var.type_name}, but the global "
                                      f"is {glob.type_name}")
                    if var.kind == "externalVars" and glob is not None and glob.constant \
                            and not var.constant:
                        raise in_file(self.project.path, f"POU {quote(name)}: the global "
                                      f"{quote(var.name)} is CONSTANT; declare its VAR_EXTERNAL "
                                      f"CONSTANT too")
                self._bound[name] = (net, builder.global_slots())
            else:
                self._bound[name] = (net, {})
        net, links = self._bound[name]
        body = name if self.project.languages.get(name) in TEXT_LANGUAGES else None
        return ProgramSource(net, links, body)


class _TextGlobals:
    """How a program written in ST, IL or SFC binds the configuration's globals:
    each VAR_EXTERNAL is a variable of the program's block (see
    :meth:`.textpous.TextPous.with_globals`), loaded from the shared value before
    each scan and handed back after it, as an FBD program's."""

    def __init__(self, name: str, variables: dict):
        self.name = name
        self.vars = variables

    def global_slots(self) -> dict:
        return {v.name: ("state", f"{self.name}.{v.name}") for v in self.vars.values()
                if v.kind == "externalVars" and not v.constant}


__all__ = ["Project", "PlcOpenProject", "Configuration", "TaskSpec", "load_project", "load",
           "Importer", "MAX_POU_DEPTH"]
