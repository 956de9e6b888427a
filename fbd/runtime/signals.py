"""Reading, writing, forcing and tracing the PLC's signals by path (a mixin of
:class:`~fbd.runtime.plc.Plc`).

A path is a configuration's IEC name (``inst.var``, :mod:`fbd.runtime.names`),
else one of the main task's (``Q``, ``ff.Q1``) or ``task:path`` for another
task's. ``set`` writes a program input, latched at the next scan's start;
``write`` a value once, now; ``force`` holds it until ``unforce``. A trace
records signals after every scan of the main task, or once every task of
the instant has run when they belong to several (``record_ticks``).
"""

from __future__ import annotations

from ..compiler.pycode import ScanProgram
from ..errors import FbdError, UnknownSignal
from .task import Task
from .trace import Trace


class SignalAccess:
    """The signals of a :class:`~fbd.runtime.plc.Plc` by path: its ``tasks``,
    ``main`` task, ``names`` and tick recorders are the Plc's."""

    # -- signals -----------------------------------------------------------------
    def _locate(self, path: str):
        if self.names is not None:
            found = self.names.locate(path)
            if found is not None:
                return found
        task = self.main
        if ":" in path:
            name, path = path.split(":", 1)
            task = self.task(name)
        try:
            return task, task.program.signal(path)
        except UnknownSignal:
            if self.names is None or task is not self.main:
                raise
            raise UnknownSignal(path, self.names.paths()) from None   # suggest IEC names

    def _locate_value(self, path: str, doing: str):
        """As _locate, for a signal that must hold an IEC value (not a block's
        internal storage, such as a LIFO's element list)."""
        task, info = self._locate(path)
        if info.type is None:
            raise FbdError(f"{path} is a block's internal storage, not an IEC value; "
                           f"it cannot be {doing}")
        return task, info

    def signals(self) -> list[str]:
        """Every path: a configuration's IEC names (``inst.var``), else the main
        task's and each other task's as ``task:path``."""
        if self.names is not None:
            return self.names.paths()
        names = list(self.main.program.signals)
        for task in self.tasks:
            if task is not self.main:
                names += [f"{task.name}:{p}" for p in task.program.signals]
        return names

    def get(self, path: str):
        """The value of any signal by its path (``Q``, ``ff.Q1``, ``cell_0_0.memory.OUT``)."""
        task, info = self._locate(path)
        raw = info.const if info.slot is None else task.s[info.slot]
        return info.type.to_python(raw) if info.type is not None else raw

    def get_raw(self, path: str):
        """As :meth:`get` but TIME stays integer ns (what blocks compute with)."""
        task, info = self._locate(path)
        return info.const if info.slot is None else task.s[info.slot]

    def set(self, name: str, value) -> None:
        """Write a program input; it is latched at the start of the next scan. A
        configuration's global is written at once (its programs read it when their
        scans start)."""
        task, info = self._locate(name)
        if info.kind == "global":
            task.s[info.slot] = info.type.coerce(value, name)
            return
        if info.kind != "input":
            raise FbdError(f"{name!r} is not an input of {task.program.name} (its inputs: "
                           f"{', '.join(task.program.inputs) or 'none'}); use write() "
                           f"or force() for internal signals")
        task.pending[info.slot] = task.image[info.slot] = info.type.coerce(value, name)

    def write(self, path: str, value) -> None:
        """Write a value once, now. A block that computes the signal overwrites it
        in its next scan; a memory keeps it (CODESYS 'write value')."""
        task, info = self._locate_value(path, "written")
        if info.slot is None:
            raise FbdError(f"{path} is wired to the constant {info.const!r}; nothing to write")
        value = info.type.coerce(value, path)
        if info.slot in task.forces:
            raise FbdError(f"{path} is forced; unforce it before writing")
        task.s[info.slot] = value
        if info.kind == "input":
            task.pending.pop(info.slot, None)
            task.image[info.slot] = value
        linked = task.bound.get(info.slot)
        if linked is not None:     # a VAR_EXTERNAL, loaded from its global before each scan
            table, g = linked
            table.s[g] = value

    def force(self, path: str, value) -> None:
        """Hold a signal at ``value`` until :meth:`unforce`: whatever drives it,
        everything reading it sees the forced value (a PLC force)."""
        task, info = self._locate_value(path, "forced")
        if info.slot is None:
            raise FbdError(f"{path} is wired to the constant {info.const!r}; nothing to force")
        if info.kind == "global":
            raise FbdError(f"{path} is a global variable: force it where a program uses it "
                           f"(instance.{info.path}), or write it")
        value = info.type.coerce(value, path)
        new = not task.forces.keys() & {info.slot}
        task.forces[info.slot] = value
        if new:
            self._reforce(task)
        task.s[info.slot] = value

    def unforce(self, path: str | None = None) -> None:
        """Release one force, or every force when ``path`` is None."""
        if path is None:
            for task in self.tasks:
                for slot in list(task.forces):
                    self._release(task, slot)
            return
        task, info = self._locate(path)
        if info.slot not in task.forces:
            raise FbdError(f"{path} is not forced")
        self._release(task, info.slot)

    def _release(self, task: Task, slot: int) -> None:
        del task.forces[slot]
        if slot in task.program.inputs.values():
            # The input returns to the value the process last gave it.
            task.pending[slot] = task.image[slot]
        self._reforce(task)

    def _reforce(self, task: Task) -> None:
        program = task.program
        # Inputs are overwritten by the latch, outputs by the publish step: only
        # block-written slots need their writer redirected; but a block's own
        # state (an ST POU's variable) is read by the block that writes it, which
        # must see the force: it is applied again after each scan (Task.forced_state).
        state = {info.slot for info in program.signals.values() if info.kind == "state"}
        task.forced_state = tuple(s for s in task.forces if s in state)
        new_slots = program.set_forced({s for s in task.forces if s not in state and (
            s in program.writer or s in program.outputs.values())})
        for slot in new_slots:
            task.s.append(task.s[_scratch_source(program, slot)])

    @property
    def forces(self) -> dict:
        """Forced paths and their values (each slot under its canonical path)."""
        out = {}
        for task in self.tasks:
            by_slot = {}
            for path, info in task.program.signals.items():
                if info.slot in task.forces and info.kind in ("input", "output", "out", "state"):
                    by_slot.setdefault(info.slot, path)
            instance = self.names.instance_of(task) if self.names is not None else None
            for slot, value in task.forces.items():
                path = by_slot.get(slot, f"#{slot}")
                if instance is not None:
                    path = instance.iec_path(path)
                elif task is not self.main:
                    path = f"{task.name}:{path}"
                info = task.program.signals.get(by_slot.get(slot, ""))
                out[path] = info.type.to_python(value) if info else value
        return out

    # -- tracing -----------------------------------------------------------------
    def trace(self, paths, capacity: int | None = None) -> Trace:
        """Record ``paths`` after every scan of the main task into numpy arrays (the
        last ``capacity`` scans, or all of them). Signals of other tasks are taken
        once every task due at that instant has run. Detach with :meth:`untrace`."""
        task = self.main
        located = [self._locate_value(p, "traced") for p in paths]
        # another task's signal keeps the name it was asked by (second:N); a
        # configuration's names are their IEC names already
        infos = [info if owner is task or self.names is not None else info._replace(path=p)
                 for p, (owner, info) in zip(paths, located)]
        alone = all(owner is task for owner, _info in located)
        slots = [i.slot if alone or i.slot is None else (owner, i.slot)
                 for (owner, _info), i in zip(located, infos)]
        tr = Trace(task.program.name, [i.path for i in infos], [i.type for i in infos],
                   slots, [i.const for i in infos], capacity, task.cycle_us)
        if alone:
            task.traces.append(tr)
        else:
            self.record_ticks(tr)
        return tr

    def record_ticks(self, recorder) -> None:
        """Call ``recorder.record(view, scan, now_us)`` once every task due at an
        instant of the main task has run (``scan``: the main task's count);
        ``view[(task, slot)]`` reads a slot of that task's table."""
        if len(self.tasks) == 1 and self.main.trigger is None:
            self.main.traces.append(_AfterScan(recorder, self._view))   # no cost to the others
        else:
            self.tick_recorders.append(recorder)

    def _wait_for_every_task(self) -> None:
        """A second task is added: the tick recorders of the main task alone now wait
        for every task of the instant."""
        bridges = [tr for tr in self.main.traces if isinstance(tr, _AfterScan)]
        self.main.traces[:] = [tr for tr in self.main.traces if tr not in bridges]
        self.tick_recorders += [bridge.recorder for bridge in bridges]

    def untrace(self, trace) -> None:
        """Detach a trace (or a recorder given to :meth:`record_ticks`)."""
        if trace in self.tick_recorders:
            self.tick_recorders.remove(trace)
        for task in self.tasks:
            task.traces[:] = [tr for tr in task.traces
                              if tr is not trace and getattr(tr, "recorder", None) is not trace]


def _scratch_source(program: ScanProgram, scratch: int) -> int:
    for real, sc in program._scratch.items():
        if sc == scratch:
            return real
    return scratch


class _AfterScan:
    """A tick recorder of a PLC of one task: called after each of its scans."""

    def __init__(self, recorder, view):
        self.recorder = recorder
        self.view = view

    def record(self, s, scan: int, now_us: int) -> None:
        self.recorder.record(self.view, scan, now_us)


class _TaskSlots:
    """What a recorder of several tasks reads: ``view[(task, slot)]`` is the slot
    of that task's table (a table a restart replaces, so looked up each time)."""

    def __getitem__(self, key):
        task, slot = key
        return task.s[slot]
