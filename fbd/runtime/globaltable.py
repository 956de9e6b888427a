"""A configuration's VAR_GLOBALs at run time: the table that holds them, the link
that loads a task's VAR_EXTERNALs from it before each scan and hands them back
after, and an event task's gate on a BOOL global (see :mod:`.configuration`,
which builds them, and :mod:`.online_configuration`, which carries them over
an online change)."""

from __future__ import annotations

import copy

from ..compiler.flat import SignalInfo
from ..errors import UnknownSignal
from ..values import Kind


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
        #: index -> Address of each located global (``g AT %IW0``), what Modbus serves
        self.locations = {i: variables[n].location for i, n in enumerate(self.names)
                          if getattr(variables[n], "location", None) is not None}
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


__all__ = ["GlobalTable", "GlobalsLink", "EventTrigger"]
