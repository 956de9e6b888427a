"""Online change of a running configuration: every program instance changed at
one scan boundary, the globals carried over, the tasks as they were.

A configuration's PLC (:meth:`fbd.project.Project.plc`) runs one task per
program instance, with globals shared between them (:mod:`.configuration`).
Changing one instance's program alone would leave the others bound to the
old globals, so the whole project changes at once, as CODESYS and TwinCAT
download an online change of an application:

* :func:`prepare` builds the changed project's configuration and compiles
  every program, off the PLC's thread and changing nothing: a project that
  does not load, compile or run (an unknown program, a type error) raises,
  and so does one whose **tasks** differ from the running ones (a task or an
  instance added, removed or renamed, an INTERVAL, PRIORITY or SINGLE
  changed): like those controllers, a change of the task configuration needs
  a restart, and the error says which task changed and how.
* :func:`replace_configuration` applies it between two scans. Each task keeps
  its clock, statistics and listeners, and runs its instance's new program
  with the values of every variable still there, as
  :func:`fbd.runtime.online.replace_program` carries a program's (path and
  type, lossless widenings converted, forces, traces and unlatched input
  writes following their paths). A new variable starts from its initial
  value, VAR_CONFIG's included. Globals are carried by name the same way; a
  CONSTANT global takes its new value. An event task's edge detector keeps
  what it last saw, so a SINGLE global that stayed TRUE does not fire again.

Listeners in ``plc.replaced`` are then called once, as
``listener(plc, change)`` with a :class:`ConfigurationChange`: an OPC UA or
Modbus server rebuilds its address space from the changed PLC there.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from ..errors import FbdError, quote
from .globaltable import GlobalsLink
from .online import Change, _change
from .retain import Carried, Variable, carry, variables

__all__ = ["ConfigurationChange", "Prepared", "prepare", "preview", "replace_configuration"]


@dataclass
class ConfigurationChange:
    """What an online change of a configuration did, instance by instance."""
    configuration: str
    instances: dict[str, Change] = field(default_factory=dict)
    globals: Carried = field(default_factory=Carried)
    #: instance -> its program's path -> the IEC name (``counter.n`` -> ``a.n``)
    names: dict = field(default_factory=dict, repr=False)

    def lines(self) -> list[str]:
        """One line for everything that did not simply carry over, each variable by
        its IEC name."""
        out = [f"global {line}" for line in self.globals.lines()]
        for name, change in self.instances.items():
            iec = self.names.get(name)
            for line in change.lines():
                path, colon, rest = line.partition(": ")
                out.append(f"{iec(path) if iec else f'{name}.{path}'}{colon}{rest}")
        return out

    def summary(self) -> str:
        kept = sum(len(c.carried.kept) for c in self.instances.values()) + len(self.globals.kept)
        changed = sum(len(c.carried.converted) + len(c.carried.initialised)
                      + len(c.carried.dropped) for c in self.instances.values())
        changed += (len(self.globals.converted) + len(self.globals.initialised)
                    + len(self.globals.dropped))
        return (f"online change of configuration {self.configuration}: "
                f"{len(self.instances)} program instances, {kept:,} variables kept, "
                f"{changed:,} not (listed below)")


@dataclass
class Prepared:
    """A changed project's configuration, compiled and checked against the running
    PLC's tasks, ready for :func:`replace_configuration`."""
    running: object      # the PLC it was prepared for
    built: object        # the changed configuration's own PLC, never scanned


def prepare(plc, project) -> Prepared:
    """Build and compile ``project``'s configuration for ``plc`` (see the module's
    text); raises FbdError, changing nothing, when it cannot replace the running one."""
    if plc.names is None:
        raise FbdError("this PLC runs a program, not a configuration; change it with "
                       "replace_program")
    options = dict(engine=plc.engine_choice, on_fault=plc.on_fault,
                   clock_start=datetime.timedelta(microseconds=plc.clock_start_us))
    # the tick of tasks without an INTERVAL: what the running PLC was given
    cycle = datetime.timedelta(microseconds=plc.tick_us)
    built = project.plc(cycle=cycle, **options)
    _same_tasks(plc, built)
    for task in built.tasks:
        variables(task.program)     # made now, not at the scan boundary
    return Prepared(plc, built)


def _same_tasks(plc, built) -> None:
    def shape(p):
        return {tk.name.upper(): tk for tk in p.tasks}
    old, new = shape(plc), shape(built)
    where = f"configuration {plc.names.configuration}"
    for name in old.keys() - new.keys():
        raise FbdError(f"{where}: program instance {quote(old[name].name)} is gone; an "
                       f"online change keeps the tasks and their instances: restart to load it")
    for name in new.keys() - old.keys():
        raise FbdError(f"{where}: program instance {quote(new[name].name)} is new; an online "
                       f"change keeps the tasks and their instances: restart to load it")
    for name, was in old.items():
        now = new[name]
        for what, a, b in (("period", was.cycle_us, now.cycle_us),
                           ("priority", was.priority, now.priority),
                           ("SINGLE", _single(plc, was), _single(built, now))):
            if a != b:
                raise FbdError(f"{where}: program instance {quote(was.name)}: its task's "
                               f"{what} changed ({_show(what, a)} -> {_show(what, b)}); an "
                               f"online change keeps the tasks: restart to load it")
    if plc.main.name.upper() != built.main.name.upper():
        raise FbdError(f"{where}: the main task is now {quote(built.main.name)}, was "
                       f"{quote(plc.main.name)}; restart to load it")


def _single(plc, task):
    trigger = task.trigger
    if trigger is None:
        return None
    return plc.globals.names[trigger.slot].upper(), trigger.interval_us


def _show(what: str, value) -> str:
    if what == "period":      # the scheduler's µs
        return f"T#{value // 1000}ms" if value % 1000 == 0 else f"T#{value}us"
    if what == "SINGLE":
        return "none" if value is None else value[0]
    return str(value)


def preview(plc, project) -> ConfigurationChange:
    """What :func:`replace_configuration` would do with ``project`` (a Project or
    what :func:`prepare` made), changing nothing in ``plc``."""
    prepared = project if isinstance(project, Prepared) else prepare(plc, project)
    return _changes(plc, prepared, apply=False)


def replace_configuration(plc, prepared: Prepared) -> ConfigurationChange:
    """Run ``prepared`` (see :func:`prepare`) from the next scan on, keeping what
    matches (see the module's text). Call it between scans, on the PLC's thread."""
    if prepared.running is not plc:
        raise FbdError("this change was prepared for another PLC")
    if plc._stepping is not None:
        raise FbdError(f"scan {plc.main.scans + 1} is being stepped into, block by block; "
                       f"finish it before an online change")
    change = _changes(plc, prepared, apply=True)
    for listener in list(plc.replaced):
        listener(plc, change)
    return change


def _changes(plc, prepared: Prepared, apply: bool) -> ConfigurationChange:
    """Carry the running values into the prepared PLC's tables (applied: and run
    them); a preview's carried values are carried again when it is applied."""
    built = prepared.built
    change = ConfigurationChange(plc.names.configuration)
    change.globals = _carry_globals(plc.globals, built.globals)
    change.names = {instance.name: instance.iec_path
                    for instance in built.names.instances.values()}
    by_name = {tk.name.upper(): tk for tk in built.tasks}
    for task in plc.tasks:
        new = by_name[task.name.upper()]
        change.instances[task.name] = _without_globals(
            _change(plc, new.program, task, apply=apply, table=new.s), task, new)
        if not apply:
            continue
        task.follow(new.program, new.held)
        task.bound, task.starts = new.bound, new.starts
        _relink(task, new)
        if task.trigger is not None:
            new.trigger.last = task.trigger.last
            task.trigger = new.trigger
    if not apply:
        return change
    plc.restarts[plc.restarts.index(plc.globals.restart)] = built.globals.restart
    plc.globals = built.globals
    names = built.names
    for instance in names.instances.values():
        instance.task = next(tk for tk in plc.tasks if tk.name == instance.task.name)
    plc.names = names
    return change


def _without_globals(change: Change, task, new) -> Change:
    """``change`` without the VAR_EXTERNALs: the globals' report says what became
    of them, and each scan loads them from the globals anyway."""
    bound = {v.path.upper() for v in variables(task.program) if v.slot in task.bound}
    bound |= {v.path.upper() for v in variables(new.program) if v.slot in new.bound}
    carried = change.carried
    carried.kept = [p for p in carried.kept if p.upper() not in bound]
    carried.converted = [c for c in carried.converted if c[0].upper() not in bound]
    carried.initialised = [c for c in carried.initialised if c[0].upper() not in bound]
    carried.dropped = [p for p in carried.dropped if p.upper() not in bound]
    return change


def _carry_globals(old, new) -> Carried:
    values = {name: (tp, value) for name, tp, value, constant
              in zip(old.names, old.types, old.s, old.constant) if not constant}
    carried = carry(values, [Variable(name, tp, i) for i, (name, tp, constant)
                             in enumerate(zip(new.names, new.types, new.constant))
                             if not constant], new.s)
    carried.dropped = [name for name in carried.dropped if name.upper() not in new.index]
    return carried


def _relink(task, new) -> None:
    """The task's VAR_EXTERNALs bound to the new globals: the old link's hooks out,
    the new one's in, every other hook (a server's, a watcher's) kept."""
    task.before_scan[:] = [hook for hook in task.before_scan
                           if not isinstance(getattr(hook, "__self__", None), GlobalsLink)]
    task.traces[:] = [trace for trace in task.traces if not isinstance(trace, GlobalsLink)]
    for link in (trace for trace in new.traces if isinstance(trace, GlobalsLink)):
        task.before_scan.append(link.before_scan)
        task.traces.append(link)
