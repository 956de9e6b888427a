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

import datetime
import math

from ..errors import FbdError, UnknownSignal, quote
from .globaltable import EventTrigger, GlobalsLink, GlobalTable
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


__all__ = ["configuration_plc", "GlobalTable", "GlobalsLink", "EventTrigger", "NO_TASK_PRIORITY"]
