"""A configuration running: its program instances as the tasks of one Plc.

:func:`configuration_plc` runs a :class:`fbd.project.Configuration` as matiec
(and so Beremiz and OpenPLC) runs one, and as IEC 61131-3 says where matiec
departs from it (docs/st.md's table records each case, with matiec's rows in
the tests):

* **The tick** is the greatest common divisor of the tasks' INTERVALs
  (matiec's ``common_ticktime``), or ``cycle`` when no task has one. A task
  with an INTERVAL runs every INTERVAL; a task with neither INTERVAL nor
  SINGLE, and an instance declared without a task, runs every tick, as
  matiec runs them (IEC would never schedule the first, which makes it dead
  code; it gives the second the lowest priority).
* **SINGLE** makes an event task: its BOOL global is sampled at the start of
  every tick, before any program of the tick runs (matiec's ``R_TRIG`` at the
  top of the resource's run function), and the task runs in each tick where
  the global rose, so a program writing the global starts the task in the
  next tick. With an INTERVAL as well, the task also runs every INTERVAL
  while the global is FALSE (IEC 61131-3, 2.7.2; matiec ignores the INTERVAL
  of a SINGLE task).
* **Order in a tick**: by PRIORITY (0 first), then in declaration order;
  instances without a task after every task (IEC's lowest priority). matiec
  ignores PRIORITY and runs every program in declaration order; the two agree
  when priorities follow the declarations.
* **Globals** live in one table (:class:`GlobalTable`): each program's
  VAR_EXTERNALs are loaded from it before its scan and handed back after, so
  a value one program writes is what the next one to run reads in the tick.
* **VAR_CONFIG** sets an instance's variable's initial value, a cold restart
  included (IEC; matiec parses VAR_CONFIG and generates no code for it): a
  variable held in the task's table, which every variable of a text POU is;
  an FBD or LD program's variable starts from a value its network holds, and
  is refused. Globals go back to their initial values on a cold restart too.
* **The main task**, what :meth:`Plc.scan` counts and ``fbd run`` prints a
  row for, is the first instance of a task that runs periodically.

Variables are named as IEC names them (``inst.var``): :mod:`.names`.
"""

from __future__ import annotations

import copy
import datetime
import math

from ..compiler.flat import SignalInfo
from ..errors import FbdError, UnknownSignal, quote
from ..values import Kind
from .names import ConfigurationNames, Instance
from .plc import Plc, to_us

#: an instance without a task runs after every task of the tick (IEC: lowest priority)
NO_TASK_PRIORITY = 1 << 31


def configuration_plc(conf, program_source, *, cycle=0.005, where: str = "",
                      error=FbdError, **plc_options) -> Plc:
    """A Plc running ``conf``; ``program_source(name)`` gives each PROGRAM's
    :class:`fbd.project.ProgramSource`. Errors name ``where`` (the file)."""
    specs = conf.tasks
    tick = _tick_us(specs, cycle)
    table = GlobalTable(conf.variables)
    main = _main(specs)
    order = {spec.name: i for i, spec in enumerate(specs)}
    plc = None
    names = ConfigurationNames(conf.name, conf.resources, table)
    for spec in [main] + [s for s in specs if s is not main]:
        source = program_source(spec.program)
        period = spec.interval_us if spec.interval_us and spec.single is None else tick
        priority = spec.priority if spec.task else NO_TASK_PRIORITY
        try:
            if plc is None:
                plc = Plc(source.network, datetime.timedelta(microseconds=period),
                          task_name=spec.name, **plc_options)
                task = plc.main
                task.priority = priority
            else:
                task = plc.add_task(spec.name, source.network, f"T#{period}us", priority)
        except FbdError as e:
            raise error(f"{where}: program instance {quote(spec.name)}: {e}") from None
        if getattr(spec, "retain", None):     # PROGRAM RETAIN inst: every variable's default
            task.follow(task.program, spec.retain)
        if spec.single is not None:
            task.trigger = EventTrigger(table, _trigger_slot(table, spec, where, error),
                                        spec.interval_us)
        links = {g: how for g, how in source.globals.items() if g.upper() in table.index}
        if links:
            link = GlobalsLink(table, task, links)
            task.before_scan.append(link.before_scan)
            task.traces.append(link)
        names.add(Instance(spec.name, task, source.body, spec.resource))
    plc.tasks.sort(key=lambda tk: (tk.priority, order[tk.name]))
    plc.globals = table
    plc.names = names
    plc.tick_us = tick
    plc.restarts.append(table.restart)
    for init in conf.inits:
        _initialise(names, init, error)
    return plc


def _tick_us(specs, cycle) -> int:
    intervals = [s.interval_us for s in specs if s.interval_us]
    return math.gcd(*intervals) if intervals else to_us(cycle, "cycle")


def _main(specs):
    """The first instance of a task that runs periodically (not only on an event)."""
    return next((s for s in specs if s.single is None or s.interval_us), specs[0])


def _trigger_slot(table, spec, where, error) -> int:
    slot = table.index.get(spec.single.upper())
    what = f"{where}: task {quote(spec.task)}: SINGLE := {spec.single}"
    if slot is None:
        raise error(f"{what}: no global variable of that name (SINGLE takes a BOOL global "
                    f"of the configuration or its resource)")
    if table.types[slot].name != "BOOL":
        raise error(f"{what}: the global is {table.types[slot].name}; SINGLE takes a BOOL")
    return slot


def _initialise(names: ConfigurationNames, init, error) -> None:
    """One VAR_CONFIG line: the variable's initial value, checked against its
    declaration."""
    dotted = ".".join(init.path)
    head = init.path[0].upper()
    rest = init.path[1:] if head in names.resources else init.path
    if len(rest) < 2 or rest[0].upper() not in names.instances:
        raise error(f"{init.where}: VAR_CONFIG {dotted}: no program instance "
                    f"{quote(rest[0] if rest else dotted)} (a VAR_CONFIG path is "
                    f"RESOURCE.INSTANCE.VARIABLE)")
    instance = names.instances[rest[0].upper()]
    try:
        info = instance.signal(".".join(rest[1:]))
    except UnknownSignal as e:
        raise error(f"{init.where}: VAR_CONFIG {dotted}: {e}") from None
    if info.slot is None or info.type is None or info.kind not in ("input", "state", "out"):
        # an FBD or LD POU's variable starts from a value its network holds, not its table
        raise error(f"{init.where}: VAR_CONFIG {dotted}: the variable's initial value is part "
                    f"of its FBD or LD network, which VAR_CONFIG cannot change (it can for "
                    f"programs and function blocks written in ST, IL or SFC, and for inputs)")
    if info.slot in instance.task.bound:
        raise error(f"{init.where}: VAR_CONFIG {dotted}: a VAR_EXTERNAL; give the VAR_GLOBAL "
                    f"its initial value instead")
    if init.type is not None and init.type.name.upper() != info.type.name.upper():
        raise error(f"{init.where}: VAR_CONFIG {dotted} : {init.type.name} does not match "
                    f"the variable's type {info.type.name}")
    instance.task.set_start(info.slot, init.value(info.type))


def _start(tp, start):
    """A global's initial value in run-time form. A front end gives it as run-time
    (ST: a TIME in ns) or as a port takes it (PLCopen: a TIME as a timedelta); an
    ARRAY's or STRUCT's is the run-time list itself, which coerce would check again
    as a user's value (and refuse a TIME element, a number without a unit)."""
    if tp.mutable:
        return tp.copy(start)
    if tp.kind is Kind.TIME and isinstance(start, int) and not isinstance(start, bool):
        return start
    return tp.coerce(start)


class GlobalTable:
    """The configuration's VAR_GLOBALs in one table, read and written by name as
    a task's signals are (``plc.get("g")``, ``plc.set("CONF.G", v)``), and a
    mapping of name to run-time value (``plc.globals["g"]``)."""

    name = "globals"

    def __init__(self, variables: dict):
        self.names = [name for name, var in variables.items() if var.type is not None]
        self.types = [variables[n].type for n in self.names]
        self.constant = [bool(getattr(variables[n], "constant", False)) for n in self.names]
        self._starts = [_start(tp, variables[n].start) for n, tp in zip(self.names, self.types)]
        self.index = {n.upper(): i for i, n in enumerate(self.names)}
        qualifiers = [getattr(variables[n], "retain", None) for n in self.names]
        #: VAR_GLOBAL RETAIN and PERSISTENT: their indices, and the PERSISTENT ones'
        self.retained = tuple(i for i, q in enumerate(qualifiers) if q in ("RETAIN", "PERSISTENT"))
        self.persistent = tuple(i for i, q in enumerate(qualifiers) if q == "PERSISTENT")
        self.qualifiers = qualifiers
        self.s = [copy.deepcopy(v) for v in self._starts]
        self.forces: dict = {}        # what Plc.write checks: a global is never forced
        self.program = self           # what Plc's messages name

    def signal(self, name: str) -> SignalInfo:
        i = self.index.get(name.upper())
        if i is None:
            raise UnknownSignal(name, self.names, "global variable")
        return SignalInfo(self.names[i], self.types[i], "global", i)

    def restart(self, cold: bool = True, origin: bool = False) -> None:
        """Every global back to its initial value but those the restart keeps: the
        RETAIN and PERSISTENT ones (warm), the PERSISTENT ones (cold), none (origin)."""
        old, self.s = self.s, [copy.deepcopy(v) for v in self._starts]
        for i in () if origin else self.persistent if cold else self.retained:
            self.s[i] = old[i]

    # -- a mapping of name to value ------------------------------------------------
    def __getitem__(self, name: str):
        i = self.index.get(name.upper())
        if i is None:
            raise KeyError(name)
        return self.s[i]

    def __setitem__(self, name: str, value) -> None:
        self.s[self.signal(name).slot] = value

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and name.upper() in self.index

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"<globals {dict(zip(self.names, self.s))}>"


class GlobalsLink:
    """Binds one task's VAR_EXTERNALs to the global table: before each of its
    scans they are loaded (where the scan starts from), after it the values the
    program wrote are handed back. A value written into the program's own input
    from outside (``plc.set("inst.G", ...)``) writes the global. With no other
    task, loading before a run of scans and handing back after it is the same
    (``per_scan``: the fast-forward runs them in one call), unless a global is
    one of its inputs, which each scan's latch sets again."""

    @property
    def per_scan(self) -> bool:
        return bool(self.inputs)

    def __init__(self, table: GlobalTable, task, links: dict):
        self.table = table
        program = task.program
        self.inputs, self.states = [], []
        for name, (kind, path) in links.items():
            g = table.index[name.upper()]
            if kind == "input":
                self.inputs.append((g, program.inputs[path]))
            else:
                self.states.append((g, program.signal(path).slot))
        task.bound.update((slot, (table, g)) for g, slot in self.inputs + self.states)

    def before_scan(self, task) -> None:
        s, shared, pending = task.s, self.table.s, task.pending
        for g, slot in self.inputs:
            if slot in pending:
                shared[g] = pending[slot]
            s[slot] = task.image[slot] = shared[g]
        for g, slot in self.states:
            s[slot] = shared[g]

    def record(self, s, scan, now_us) -> None:
        shared = self.table.s
        for g, slot in self.states:
            shared[g] = s[slot]


class EventTrigger:
    """An event task's gate (SINGLE): :meth:`fires` is asked once a tick, before
    any program of the tick runs; it says whether the task runs in this one."""

    def __init__(self, table: GlobalTable, slot: int, interval_us: int | None):
        self.table = table
        self.slot = slot
        self.interval_us = interval_us
        self.last = False       # matiec's R_TRIG starts FALSE: a global TRUE at start fires

    def fires(self, now_us: int) -> bool:
        value = bool(self.table.s[self.slot])
        rising = value and not self.last
        self.last = value
        if rising:
            return True
        return (self.interval_us is not None and not value
                and now_us % self.interval_us == 0)

    def restart(self) -> None:
        self.last = False


__all__ = ["configuration_plc", "GlobalTable", "GlobalsLink", "EventTrigger", "NO_TASK_PRIORITY"]
