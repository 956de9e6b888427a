"""Many scans in one call: the PLC's fast-forward.

A headless PLC of one task runs the scans due before the next simpy event
back to back (see :class:`~.plc.Plc`); each of those scans is one call of
:meth:`Task.run_scan` (latch, scan, timing, recorders). When nothing needs
Python between them, this module runs them all in one call of the
program's ``scan_many(s, now, cycle, n)`` (the native engine's is one call
into machine code that loops; the Python engine's a loop in generated
code), with the clock and the schedule exactly as the scans one by one
would leave them: scan k at ``now + k * cycle``, the task's count, its next
due time.

Nothing needs Python between two scans when the task has no recorder (a
trace, ``fbd run``'s rows, a debugger's breakpoints: they sample each scan),
its scans are timed by the real clock (a clock the caller drives, as a test
does, says how long each scan took, which a run timed whole cannot honour)
and it has no ``before_scan`` hook, except those that say calling them around the
whole run is the same (``per_scan = False``: a configuration's only task
loading its globals before and handing them back after). Writes made
before the run (``plc.set``, a force) are latched by its first scan and
nothing can change them during it. A scan's wall time is then the run's
mean (``ScanStats.add_run``).

A fault in scan k (an exception, a native trap) leaves the k - 1 scans
before it counted, and is raised as the scan one by one would raise it: a
:class:`~.faults.PlcFault` naming that scan and its time, which puts the PLC
in FAULT.
"""

from __future__ import annotations

import time as _time

from ..errors import ScansDone
from ..values import NS_PER_US

#: scans from which a run is worth one call (a lone scan goes the usual way)
MIN_RUN = 2


def batchable(task) -> bool:
    """Whether ``task``'s scans may run many in one call (see the module docstring)."""
    if getattr(task.program, "scan_many", None) is None or task.forced_state:
        return False     # a state force is applied again after each scan
    if task.clock is not _time.perf_counter_ns:
        # a clock the caller drives (a test's) times each scan; a run is timed whole
        return False
    for hook in task.before_scan:
        if getattr(getattr(hook, "__self__", hook), "per_scan", True):
            return False
    return all(not getattr(tr, "per_scan", True) for tr in task.traces)


def run_scans(task, first_us: int, cycle: int, n: int) -> None:
    """``n`` scans of ``task`` at ``first_us``, ``first_us + cycle``, ... (PLC
    time, µs), in one call where :func:`batchable`, else one by one."""
    if n < MIN_RUN or not batchable(task):
        for k in range(n):
            task.run_scan(first_us + k * cycle)
        return
    task.latch()
    clock = task.clock
    t0 = clock()
    try:
        done = task.program.scan_many(task.s, first_us * NS_PER_US, cycle * NS_PER_US, n)
    except ScansDone as stop:
        _count(task, stop.done, clock() - t0, first_us, cycle)
        error = stop.__cause__
        raise task.failed(error, first_us + stop.done * cycle) from error
    _count(task, done, clock() - t0, first_us, cycle)


def _count(task, done: int, ns: int, first_us: int, cycle: int) -> None:
    if not done:
        return
    first = task.scans + 1
    task.scans += done
    if task.stats.add_run(task.scans, done, ns):    # each scan overran: each is reported
        for scan in range(first, task.scans + 1):
            for callback in task.on_overrun:
                callback(task, scan, ns / done / 1000)
    last = first_us + (done - 1) * cycle
    for tr in task.traces:          # per_scan = False: once for the run
        tr.record(task.s, task.scans, last)


__all__ = ["run_scans", "batchable", "MIN_RUN"]
