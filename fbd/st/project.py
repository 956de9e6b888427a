"""A ``.st`` file as a project (:class:`fbd.project.Project`, the model a PLCopen
file gives too): its POUs as block types and networks, its CONFIGURATION.

::

    project = fbd.st.load("program.st")
    project.pous                 # PROGRAM name -> Network (one instance of its block)
    project.blocks               # every POU name -> its Block type
    project.network("Main")      # the Network, usable with Harness
    project.plc(cycle=0.005)     # the configuration's program instances as tasks

A PROGRAM's network has one instance of its block, named like the PROGRAM:
its VAR_INPUTs and ``AT %I..`` variables are the network's inputs (located
ones in the process image at their address), its VAR_OUTPUTs and ``AT %Q..``
/ ``%M..`` variables its outputs; everything else is that instance's state
(``Main.counter``, ``Main.T1.Q``).

The configuration is read as matiec reads it: one
:class:`~fbd.project.TaskSpec` per program instance (``PROGRAM p WITH t :
Main``) with its task's INTERVAL, PRIORITY and SINGLE, the configuration's and
resources' VAR_GLOBALs shared by all program instances (each program's
VAR_EXTERNALs are the state ``Main.G`` the run binds to them), and VAR_CONFIG's
initial values; :mod:`fbd.runtime.configuration` runs it. A file without a
configuration runs with :meth:`Project.plc` only when it has one PROGRAM (a
task at ``cycle``). Connections ``PROGRAM p : Main (x := g)`` are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import address
from ..compiler.front import quiet_gc
from ..errors import FbdError
from ..files import open_regular
from ..library import load_libraries
from ..network import Network
from ..project import Configuration, GlobalVar, InstanceInit, ProgramSource, Project, TaskSpec
from . import ast as A
from .compile import compile_unit
from .errors import StSemanticError
from .parser import parse


@dataclass(eq=False)
class SourceFile:
    """The text a project's POUs were compiled from, as parsed: what an export
    writes back (each block type of the file names it as ``st_file``)."""
    path: str
    unit: A.CompilationUnit


class StProject(Project):
    """A ``.st`` file's project."""

    def network(self, name: str) -> Network:
        if name in self.errors:       # a PROGRAM whose network could not be made says why
            raise self.errors[name]
        if name not in self.pous and name in self.blocks:
            kind = self.blocks[name].st_info.kind
            raise FbdError(f"{self.path}: {kind} {name} is a block type, not a program; place "
                           f"it in a network (project.blocks[{name!r}]()) or run a PROGRAM")
        return super().network(name)


class StImporter:
    """What :meth:`Project.plc` asks of an importer: each program's network and
    how its globals bind."""

    def __init__(self, project: Project, compiled):
        self.project = project
        self.compiled = compiled

    def for_configuration(self, name: str) -> ProgramSource:
        net = self.project.network(name)
        info = self.compiled.infos[name]
        return ProgramSource(net, {g: ("state", f"{name}.{g}") for g in info.externals}, name)


def program_network(name: str, block_cls) -> Network:
    info = block_cls.st_info
    net = Network(name, doc=f"PROGRAM {name}, from Structured Text")
    wires = {}
    for v in info.inputs:
        at = v.node.location.text if v.node is not None and v.node.location is not None else None
        wires[v.name] = net.input(v.name, v.type, v.type.to_python(v.init), at=at)
    inst = net.add(name, block_cls(), **wires)
    keep_written_inputs(net, inst)
    for v in info.outputs:
        at = v.node.location.text if v.node is not None and v.node.location is not None else None
        net.output(v.name, inst.port(v.name), v.type, at=at)
    return net


def keep_written_inputs(net: Network, inst) -> None:
    """A PROGRAM's located inputs that its body writes are memory, as in matiec: each
    is kept in the block (``Network.store``), so what the program wrote is the
    input's value until the next value is latched."""
    info = inst.element.st_info
    if info.kind != "PROGRAM":
        return
    located = {v.name for v in info.inputs if v.node is not None and v.node.location is not None}
    for port, kept in type(inst.element).kept_inputs.items():
        if port in located:
            net.store(port, inst, kept)


#: the largest ``.st`` file read: four times the 100,000 statements python -m
#: fbd.st.bench times (a file of 16 MiB parses in about half a minute)
MAX_SOURCE_BYTES = 16 * 1024 * 1024


def read_source(path: str) -> str:
    """The text of a ``.st`` file: UTF-8 (a byte order mark dropped), else Latin-1,
    line ends as Python's text files give them; a regular file of at most
    :data:`MAX_SOURCE_BYTES` only, else one FbdError naming it."""
    try:
        with open_regular(path) as f:
            data = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as e:
        raise FbdError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise FbdError(f"{path}: larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB, the most "
                       f"a .st file may have")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load(path, text: str | None = None) -> Project:
    """Read and compile a ``.st`` file (see the module docstring)."""
    load_libraries()
    path = str(path)
    if text is None:
        text = read_source(path)
    # a long source is hundreds of thousands of nodes and typed statements made
    # in one go, none of them garbage: the collector would only walk them again
    # and again (a third of loading 20,000 statements)
    with quiet_gc(text.count("\n")):
        return _load(path, text)


def _load(path: str, text: str) -> Project:
    unit = parse(text, path)
    compiled = compile_unit(unit, filename=path)
    project = StProject(path)
    written_in = {pou.name: pou.language for pou in unit.pous}   # before IL and SFC are lowered
    for pou in compiled.context.unit.pous:
        project.languages[pou.name] = written_in.get(pou.name, pou.language)
        if pou.name in compiled.errors:
            project.errors[pou.name] = compiled.errors[pou.name]
            continue
        cls = compiled[pou.name]
        project.blocks[pou.name] = cls
        if pou.kind == "PROGRAM":
            try:
                project.pous[pou.name] = program_network(pou.name, cls)
            except FbdError as e:
                project.errors[pou.name] = FbdError(f"{path}: PROGRAM {pou.name}: {e}")
    project._importer = StImporter(project, compiled)
    project.compiled = compiled
    project.source = SourceFile(path, unit)
    for cls in project.blocks.values():
        cls.st_file = project.source
    try:
        project.configuration = configuration(compiled, path)
    except FbdError as e:
        project.configuration_error = e
    return project


def located_global(d: A.VarDecl, tp, fail):
    """The Address of a located VAR_GLOBAL (``g AT %IW0 : INT``), or None: memory the
    programs share through VAR_EXTERNAL, which ``fbd serve`` serves as it serves a
    program's located ports (an %I global is written by clients, a %Q one read)."""
    if d.location is None:
        return None
    if d.name is None:
        fail(d, f"a located global needs a name (AT {d.location.text} without one can never "
                f"be read)")
    if d.location.partial:
        fail(d, f"{d.name} AT {d.location.text}: a global's location must be complete (%I*, "
                f"%Q* are for a FUNCTION_BLOCK's variables, given by VAR_CONFIG)")
    where = address.parse(d.location.text)
    try:
        address.check(where, tp, "output" if where.area == "Q" else "input", d.name)
    except FbdError as e:
        fail(d, str(e))
    return where


def configuration(compiled, path: str) -> Configuration | None:
    ctx = compiled.context
    unit = ctx.unit
    if not unit.configurations:
        programs = [p for p in unit.pous if p.kind == "PROGRAM"]
        if len(programs) != 1:
            return None
        conf = Configuration("(none)")
        conf.tasks.append(TaskSpec(programs[0].name, programs[0].name, "", None, 0, ""))
        return conf
    node = unit.configurations[0]
    conf = Configuration(node.name)
    label = f"CONFIGURATION {node.name}"

    def fail(at, message):
        raise StSemanticError(message, filename=path, line=at.line, col=at.col,
                              pou=label, source=unit.source)

    def add_globals(blocks):
        for vb in blocks:
            for d in vb.decls:
                tp = ctx.types.spec(d.spec)
                where = located_global(d, tp, fail)
                start = ctx.types.initial(d.init, tp) if d.init is not None else tp.default
                conf.variables[d.name] = GlobalVar(
                    d.name, tp, start, vb.qualifier == "CONSTANT",
                    vb.qualifier if vb.qualifier in ("RETAIN", "PERSISTENT") else None, where)
                conf.globals[d.name] = start

    add_globals(node.var_blocks)
    seen = {}
    for res in node.resources:
        add_globals(res.var_blocks)
        conf.resources.append(res.name or "")
        tasks = {tk.name.upper(): tk for tk in res.tasks}
        for inst in res.programs:
            if inst.connections:
                # matiec's C for them does not compile (its resource assigns a
                # variable's wrapper to a plain value: iec2c 6bb2c339), so Beremiz and
                # OpenPLC cannot run them either: there is no behaviour to follow
                fail(inst.connections[0], "connections of a program instance (x := g, y => g) are "
                                          "not supported (the C matiec generates for them does not "
                                          "compile); use VAR_EXTERNAL in the program")
            if inst.name.upper() in seen:
                fail(inst, f"program instance {inst.name} is declared in resource {seen[inst.name.upper()]} "
                           f"too: a variable is named by its instance ({inst.name}.x), so instances of "
                           f"one configuration need names of their own")
            seen[inst.name.upper()] = res.name
            us, prio, single = None, 0, None
            task = tasks.get(inst.task.upper()) if inst.task else None
            if task is not None:
                prio = task.priority
                if task.interval is not None:
                    if not isinstance(task.interval, A.Literal) or task.interval.kind != "time":
                        fail(task, f"task {task.name}: INTERVAL must be a TIME literal")
                    us = task.interval.value // 1000
                if task.single is not None:
                    single = _single(task, conf, fail)
            type_name = next((p.name for p in unit.pous if p.name.upper() == inst.type_name.upper()),
                             inst.type_name)
            conf.tasks.append(TaskSpec(inst.name, type_name, inst.task or "", us, prio,
                                       res.name or "", single, inst.retain))
    for init in node.var_config:
        conf.inits += _instance_inits(ctx, init, fail, f"{path}:{init.line}:{init.col}: in {label}")
    _rename_globals(conf, compiled)
    return conf


def _single(task, conf: Configuration, fail) -> str:
    """The global whose rising edge runs an event task."""
    source = task.single
    if not isinstance(source, A.Name):
        # matiec's parser refuses a direct variable, and iec2c fails on a constant
        fail(task, f"task {task.name}: SINGLE takes a BOOL global variable (matiec accepts "
                   f"nothing else)")
    glob = next((v for n, v in conf.variables.items() if n.upper() == source.name.upper()), None)
    if glob is not None and glob.type.name != "BOOL":
        fail(task, f"task {task.name}: SINGLE := {source.name}, which is {glob.type.name}; "
                   f"SINGLE takes a BOOL")
    return glob.name if glob is not None else source.name


def _instance_inits(ctx, node: A.ConfigInit, fail, where: str) -> list:
    """The InstanceInits of one VAR_CONFIG line: one, or one per member a function
    block's initialiser names; none without an initial value."""
    dotted = ".".join(node.path)
    if node.location is not None:
        fail(node, f"VAR_CONFIG {dotted} AT {node.location.text}: a location given in VAR_CONFIG "
                   f"is not supported; give the variable its address where the program declares it")
    if node.init is None:
        return []
    spec = node.spec
    if isinstance(spec, A.NamedType) and ctx.fb_type(spec.name, spec, None) is not None:
        if not isinstance(node.init, A.StructInit):
            fail(node, f"VAR_CONFIG {dotted}: {spec.name} is a function block; initialise its "
                       f"members as in {dotted} : {spec.name} := (PT := T#1s, ...)")
        return [InstanceInit(node.path + (f.name,), None,
                             lambda tp, value=f.value: ctx.types.initial(value, tp), where)
                for f in node.init.fields]
    tp = ctx.types.spec(spec)
    value = ctx.types.initial(node.init, tp)      # a literal that does not fit fails here
    return [InstanceInit(node.path, tp, lambda _tp: value, where)]


def _rename_globals(conf: Configuration, compiled) -> None:
    """The programs' state names a global as its VAR_EXTERNAL spells it
    (upper case in the state list): key the shared values the same way."""
    upper = {name.upper(): name for name in conf.variables}
    for spec in conf.tasks:
        info = compiled.infos.get(spec.program)
        if info is None:
            continue
        for g in info.externals:
            if g not in upper:
                raise FbdError(f"{compiled.context.filename}: PROGRAM {spec.program} uses the "
                               f"global {g}, which the configuration does not declare")


__all__ = ["load", "read_source", "MAX_SOURCE_BYTES", "program_network", "keep_written_inputs", "StProject",
           "StImporter"]
