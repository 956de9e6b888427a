"""A PLCopen project: its POUs as networks, its configuration as PLC tasks.

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

Configuration
-------------
Each program instance of each task becomes a :class:`TaskSpec`: the
simulator runs one program per PLC task, so an instance is a task of its
own, with its task's interval and priority (instances of one task run in
declaration order, as matiec runs them). An instance declared in a resource
without a task runs at the default cycle. Event tasks (``single``) are
refused.

The configuration's and resources' ``globalVars`` are shared by all program
instances: in :meth:`Project.plc` a program's ``externalVars`` are bound to
them, so a value one program writes is what the next program to run reads,
within the same tick. Each program starts its scan from the globals' current
values and hands its writes back when the scan ends. A program run alone
(:meth:`Project.network`) keeps a copy of its own instead.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from ..errors import FbdError
from ..library import load_libraries
from ..network import Network
from .builder import PouBuilder, body_of
from .carry import CarriedPou
from .datatypes import DataTypes, read_data_types
from .interface import read_interface, read_var
from .names import restore as restore_names
from .native import marker, native_block
from .source import NS_100, PlcOpenError, child, children, documentation, in_file, parse, quote, tag
from .values import interval_us

#: body languages compiled by the ST compiler (fbd.st); the rest are networks
TEXT_LANGUAGES = ("ST", "IL", "SFC")
#: how deep POUs may place one another (a program placing a block placing ...)
MAX_POU_DEPTH = 64


@dataclass
class TaskSpec:
    """One program instance of a configuration, as the PLC task that runs it."""
    name: str                 # the program instance's name (the PLC task's name)
    program: str              # the POU it instantiates
    task: str | None          # the configuration's task ("" when the instance has none)
    interval_us: int | None   # None: no interval given (runs at the default cycle)
    priority: int
    resource: str


@dataclass
class Configuration:
    name: str
    tasks: list = field(default_factory=list)       # TaskSpec, in file order
    globals: dict = field(default_factory=dict)     # name -> initial value (run-time form)
    variables: dict = field(default_factory=dict)   # name -> Var


@dataclass
class Project:
    """The POUs of a PLCopen file. ``pous`` maps name → Network for every POU that
    imports (an ST, IL or SFC one: a network of one instance of its block);
    ``errors`` maps the others to why they do not."""
    path: str
    pous: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    blocks: dict = field(default_factory=dict)     # POU name -> the library block it is
    languages: dict = field(default_factory=dict)  # POU name -> body language
    configuration: Configuration | None = None      # the first configuration, if any
    configuration_error: PlcOpenError | None = None  # why it cannot run, if it cannot
    data_types: DataTypes | None = None
    _importer: object = None

    def network(self, name: str) -> Network:
        if name in self.pous:
            return self.pous[name]
        if name in self.blocks:
            raise PlcOpenError(f"{self.path}: POU {quote(name)} is the library block "
                               f"{self.blocks[name]!r} (written in ST for the editors), "
                               f"not a network; place it in one")
        if name in self.errors:
            raise self.errors[name]
        raise PlcOpenError(f"{self.path}: no POU named {quote(name)} (POUs: "
                           f"{', '.join(self.languages) or 'none'})")

    def plc(self, cycle=0.005, **plc_options):
        """A :class:`~fbd.runtime.Plc` running the configuration: one task per program
        instance, with its task's interval and priority (``cycle`` for an instance
        without an interval), the globals shared between them. The first instance
        is the PLC's main task (what :meth:`Plc.scan` counts); read a signal of any
        as ``"instance:path"``."""
        from ..runtime.plc import Plc, to_us
        if self.configuration_error is not None:
            raise self.configuration_error
        conf = self.configuration
        if conf is None or not conf.tasks:
            raise PlcOpenError(f"{self.path}: no configuration with a program instance to "
                               f"run; run one POU instead (POUs: "
                               f"{', '.join(self.languages) or 'none'})")
        shared = {name: var.type.coerce(var.start) for name, var in conf.variables.items()
                  if var.type is not None}
        plc = None
        for spec in conf.tasks:
            net, links = self._importer.for_configuration(spec.program)
            us = spec.interval_us if spec.interval_us is not None else to_us(cycle, "cycle")
            try:
                if plc is None:
                    plc = Plc(net, datetime.timedelta(microseconds=us), task_name=spec.name,
                              **plc_options)
                    task = plc.main
                    task.priority = spec.priority
                else:
                    task = plc.add_task(spec.name, net, f"T#{us}us", spec.priority)
            except FbdError as e:
                raise PlcOpenError(f"{self.path}: program instance {quote(spec.name)}: "
                                   f"{e}") from None
            links = {g: how for g, how in links.items() if g in shared}
            if links:
                link = _GlobalsLink(shared, task, links)
                task.before_scan.append(link.before_scan)
                task.traces.append(link)
        plc.tasks.sort(key=lambda tk: tk.priority)
        plc.globals = shared
        return plc


class _GlobalsLink:
    """Binds one task's copies of the globals to the shared values: before each of
    its scans they are loaded (where the scan starts from), after it the values
    the program wrote are handed back. A value written into the program's own
    input from outside (``plc.set("inst:G", ...)``) writes the global."""

    def __init__(self, shared: dict, task, links: dict):
        self.shared = shared
        program = task.program
        self.inputs, self.states = [], []
        for name, (kind, path) in links.items():
            if kind == "input":
                self.inputs.append((name, program.inputs[path]))
            else:
                self.states.append((name, program.signal(path).slot))

    def before_scan(self, task) -> None:
        s, shared, pending = task.s, self.shared, task.pending
        for name, slot in self.inputs:
            if slot in pending:
                shared[name] = pending[slot]
            s[slot] = task.image[slot] = shared[name]
        for name, slot in self.states:
            s[slot] = shared[name]

    def record(self, s, scan, now_us) -> None:
        for name, slot in self.states:
            self.shared[name] = s[slot]


def load_project(path) -> Project:
    """Read a PLCopen TC6 file (2.01, 2.0 or 1.0) and import every FBD and LD POU."""
    load_libraries()
    root, ns = parse(path)
    restore_names(root)          # what our export renamed for matiec (fbd.plcopen.names)
    project = Project(str(path))
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
        project.configuration = _configuration(root, path, ns, project.data_types)
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
        # fbd.st loads this module (a .st file is a Project too): imported when used
        from .textpous import TextPous
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
        from .textpous import program_network
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

    def for_configuration(self, name: str):
        """The network of program ``name`` for a configuration run, and how its
        globals bind: {global: ("input", input name) | ("state", final value path)}."""
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
        return self._bound[name]


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


def _configuration(root, path, ns, dtypes) -> Configuration | None:
    for insts in children(root, "instances"):
        for confs in children(insts, "configurations"):
            for conf in children(confs, "configuration"):
                return _read_configuration(conf, path, ns, dtypes)
    return None


def _read_configuration(conf, path, ns, dtypes) -> Configuration:
    c = Configuration(conf.get("name") or "config")
    where = f"{path}: configuration {quote(c.name)}"

    def add_globals(el, owner):
        for group in children(el, "globalVars"):
            for v in children(group, "variable"):
                var = read_var(v, "globalVars", owner, dtypes)
                var.constant = (group.get("constant") or "").strip().lower() in ("true", "1")
                if var.name.upper() in {k.upper() for k in c.variables}:
                    raise PlcOpenError(f"{where}: the global {quote(var.name)} is declared "
                                       f"twice")
                c.variables[var.name] = var
                if var.init is not None:
                    c.globals[var.name] = var.init

    add_globals(conf, where)
    instances = set()
    for res in children(conf, "resource"):
        rname = res.get("name") or "resource"
        add_globals(res, f"{where}, resource {quote(rname)}")
        for task in children(res, "task"):
            twhere = f"{path}: task {quote(task.get('name') or '')}"
            interval = task.get("interval")
            if task.get("single") and not interval:
                raise PlcOpenError(f"{twhere}: tasks triggered by an event "
                                   f"(single={quote(task.get('single'))}) are not "
                                   f"supported; give it an interval")
            us = None
            if interval:
                try:
                    us = interval_us(interval, twhere)
                except PlcOpenError as e:
                    raise PlcOpenError(f"{twhere}: interval {quote(interval)} is not a "
                                       f"duration ({str(e).split(': ', 2)[-1]})") from None
                if us <= 0:
                    raise PlcOpenError(f"{twhere}: interval {quote(interval)} must be positive")
            prio_text = (task.get("priority") or "0").strip()
            if not prio_text.lstrip("+-").isdigit() or len(prio_text) > 9:
                raise PlcOpenError(f"{twhere}: priority {quote(task.get('priority'))} is not "
                                   f"a number from 0 to 99999999")
            for inst in children(task, "pouInstance"):
                c.tasks.append(_instance(inst, ns, task.get("name"), us, int(prio_text), rname,
                                         where, instances))
        for inst in children(res, "pouInstance"):
            c.tasks.append(_instance(inst, ns, "", None, 0, rname, where, instances))
    return c


def _instance(inst, ns, task, us, prio, rname, where, seen) -> TaskSpec:
    name = inst.get("name") or ""
    # TC6 1.0 (matiec's tests) names the program in "type"
    program = inst.get("typeName") or (inst.get("type") if ns == NS_100 else None) or ""
    if name.upper() in seen:
        raise PlcOpenError(f"{where}: two program instances are named {quote(name)}")
    seen.add(name.upper())
    return TaskSpec(name, program, task, us, prio, rname)


__all__ = ["Project", "Configuration", "TaskSpec", "load_project", "load", "Importer",
           "MAX_POU_DEPTH"]
