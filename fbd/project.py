"""A project: the POUs of one source file and the configuration that runs them.

Both front ends give this one model, whichever text they read: :mod:`fbd.st`
a ``.st`` file, :mod:`fbd.plcopen` a PLCopen TC6 file (``fbd.load`` picks)::

    project = fbd.load("plant.st")
    project.pous                   # PROGRAM name -> Network
    project.blocks                 # POU name -> the Block type it compiled to
    project.network("Main")        # one program alone (Harness, Plc)
    project.configuration          # Configuration: tasks, globals, VAR_CONFIG
    plc = project.plc()            # the configuration running (fbd.runtime.configuration)
    plc.get("inst.n")              # a variable of program instance inst

The model is data: a :class:`Configuration` lists its program instances
(:class:`TaskSpec`, one per instance, with the task that runs it), its
globals and its instance-specific initial values (:class:`InstanceInit`, IEC's
VAR_CONFIG). :meth:`Project.plc` hands it to
:func:`fbd.runtime.configuration.configuration_plc`, which asks the front end
for each program's network through ``_importer.for_configuration(program)``
(a :class:`ProgramSource`). Nothing here knows a file format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, NamedTuple

from .errors import FbdError, quote
from .network import Network
from .types import DataType

#: how deep POUs may hold or call one another (a program holding an FB holding an FB
#: ..., a function calling a function ...), in every front end: each level is a
#: nested call when the scan runs
MAX_POU_DEPTH = 64


@dataclass
class TaskSpec:
    """One program instance of a configuration, with the task that runs it."""
    name: str                 # the program instance's name (the PLC task's name)
    program: str              # the PROGRAM it instantiates
    task: str | None          # the configuration's task ("" when the instance has none)
    interval_us: int | None   # the task's INTERVAL; None: none given
    priority: int
    resource: str
    single: str | None = None  # the BOOL global whose rising edge runs the task (SINGLE)
    retain: str | None = None  # PROGRAM RETAIN (or NON_RETAIN) inst: its variables' default


@dataclass
class GlobalVar:
    """A VAR_GLOBAL of the configuration or of one of its resources. A front end
    may keep its own declaration objects in :attr:`Configuration.variables`
    instead, with these attributes."""
    name: str
    type: DataType
    start: Any                # the run-time initial value
    constant: bool = False
    retain: str | None = None  # VAR_GLOBAL RETAIN or PERSISTENT (docs/retain.md)
    location: Any = None      # an Address (``g AT %IW0``): served over Modbus as a port is

    @property
    def type_name(self) -> str:
        return self.type.name


@dataclass
class InstanceInit:
    """One line of VAR_CONFIG: the initial value of a variable of one program
    instance (``RES.INST.VAR`` or deeper, into FB instances)."""
    path: tuple                          # the names as written: resource, instance, variable...
    type: DataType | None                # as declared; None for a member of an FB initialiser
    value: Callable[[DataType], Any]     # the run-time value for the variable's type
    where: str                           # how an error names the line (file:line:col: in ...)


@dataclass
class Configuration:
    name: str
    tasks: list = field(default_factory=list)       # TaskSpec, in declaration order
    globals: dict = field(default_factory=dict)     # name -> initial value (run-time form)
    variables: dict = field(default_factory=dict)   # name -> GlobalVar (or the front end's)
    inits: list = field(default_factory=list)       # InstanceInit, in declaration order
    resources: list = field(default_factory=list)   # resource names, in declaration order


class ProgramSource(NamedTuple):
    """What the front end gives for one PROGRAM of a configuration run."""
    network: Network
    globals: dict        # {global: ("input", input name) | ("state", path)}: how its externals bind
    body: str | None     # the block holding its variables (text POUs: ``Main`` in ``Main.n``);
                         # None: the network's own paths are its variables (FBD, LD)


@dataclass
class Project:
    """The POUs of a file. ``pous`` maps name -> Network for every program (and,
    from PLCopen, every FBD or LD POU) that compiles; ``errors`` maps the others
    to why they do not."""
    path: str
    pous: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    blocks: dict = field(default_factory=dict)     # POU name -> the library block it is
    languages: dict = field(default_factory=dict)  # POU name -> body language
    configuration: Configuration | None = None      # the first configuration, if any
    configuration_error: FbdError | None = None     # why it cannot run, if it cannot
    data_types: Any = None
    _importer: Any = None                           # the front end: for_configuration(program)

    #: the error this project's problems are raised as
    error: ClassVar[type] = FbdError

    def network(self, name: str) -> Network:
        if name in self.pous:
            return self.pous[name]
        if name in self.blocks:
            raise self.error(f"{self.path}: POU {quote(name)} is the library block "
                             f"{self.blocks[name]!r} (written in ST for the editors), "
                             f"not a network; place it in one")
        if name in self.errors:
            raise self.errors[name]
        raise self.error(f"{self.path}: no POU named {quote(name)} (POUs: "
                         f"{', '.join(self.languages) or 'none'})")

    def plc(self, cycle=0.005, **plc_options):
        """A :class:`~fbd.runtime.Plc` running the configuration: one task per program
        instance (``cycle`` is the tick when no task gives an INTERVAL), the globals
        shared between them, VAR_CONFIG's initial values set; read a variable as
        ``instance.path`` (see :mod:`fbd.runtime.configuration`)."""
        from .runtime.configuration import configuration_plc
        if self.configuration_error is not None:
            raise self.configuration_error
        conf = self.configuration
        if conf is None or not conf.tasks:
            raise self.error(f"{self.path}: no configuration with a program instance to "
                             f"run; run one POU instead (POUs: "
                             f"{', '.join(self.languages) or 'none'})")
        return configuration_plc(conf, self._importer.for_configuration, cycle=cycle,
                                 where=self.path, error=self.error, **plc_options)


__all__ = ["Project", "Configuration", "TaskSpec", "GlobalVar", "InstanceInit", "ProgramSource"]
