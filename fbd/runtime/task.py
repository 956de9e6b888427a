"""A PLC task: one compiled program with its own signal table, period and
priority, and the wall-clock statistics of its scans (:class:`ScanStats`).

:class:`~fbd.runtime.plc.Plc` schedules its tasks; a configuration's tasks
(:mod:`fbd.runtime.configuration`) may also carry an event ``trigger``
(SINGLE) and initial values set from outside the program (VAR_CONFIG).
"""

from __future__ import annotations

import copy
import time as _time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..compiler.pycode import ScanProgram
from ..values import NS_PER_US
from .faults import Fault, PlcFault
from .retain import kept_slots
from .trace import Trace

_NEVER = 1 << 62


@dataclass(slots=True)
class ScanStats:
    """Wall-clock time of the scans, and overruns against the cycle.

    ``late``, ``skipped`` and ``max_late_us`` are kept by a real-time runner
    (:class:`fbd.runtime.realtime.RealtimeRunner`): scans that started more
    than half a cycle after they were due, cycles that passed without their
    scan (:meth:`Plc.skip`), and the worst lateness seen. A scan can be short
    (no overrun) and still late: the host was busy elsewhere."""
    cycle_us: int
    count: int = 0
    total_ns: int = 0
    min_ns: int = _NEVER   # no scan yet
    max_ns: int = 0
    last_ns: int = 0
    overruns: int = 0
    overrun_log: deque = field(default_factory=lambda: deque(maxlen=100))
    limit_ns: int = 0      # the cycle in ns: a scan longer than this overran
    late: int = 0
    skipped: int = 0
    max_late_us: float = 0.0

    def __post_init__(self):
        self.limit_ns = self.cycle_us * 1000

    def add(self, scan: int, ns: int) -> bool:
        """Count one scan of ``ns``; True when it overran its cycle."""
        self.count += 1
        self.total_ns += ns
        self.last_ns = ns
        if ns < self.min_ns:
            self.min_ns = ns
        if ns > self.max_ns:
            self.max_ns = ns
        if ns > self.limit_ns:
            self.overruns += 1
            self.overrun_log.append((scan, ns / 1000))
            return True
        return False

    def add_run(self, scan: int, n: int, ns: int) -> bool:
        """Count ``n`` scans run in one call (:mod:`.fastforward`) in ``ns`` together:
        each is taken to have lasted the mean; ``scan`` is the last one's number.
        True when they overran their cycle."""
        mean = ns // n
        self.count += n
        self.total_ns += ns
        self.last_ns = mean
        self.min_ns = min(self.min_ns, mean)
        self.max_ns = max(self.max_ns, mean)
        if mean > self.limit_ns:
            self.overruns += n
            self.overrun_log.append((scan, mean / 1000))
            return True
        return False

    @property
    def mean_us(self) -> float:
        return self.total_ns / self.count / 1000 if self.count else 0.0

    def summary(self) -> dict:
        return {"scans": self.count, "min_us": self.min_ns / 1000 if self.count else 0.0,
                "mean_us": self.mean_us,
                "max_us": self.max_ns / 1000, "overruns": self.overruns,
                "late": self.late, "skipped": self.skipped, "max_late_us": self.max_late_us,
                "cycle_us": self.cycle_us}


class Task:
    """One IEC task: a compiled program with its own signal table, period and priority.

    ``traces`` holds the recorders called after every scan with
    ``record(s, scan, now_us)``: :class:`~fbd.runtime.trace.Trace` objects, and anything
    else with that method (the debugger's breakpoint check), at no cost to a
    scan when the list is empty.
    """

    def __init__(self, name: str, program: ScanProgram, cycle_us: int, priority: int,
                 clock: Callable[[], int] = _time.perf_counter_ns):
        self.name = name
        self.program = program
        self.cycle_us = cycle_us
        self.priority = priority
        self.s = program.new_table()
        self.pending: dict[int, object] = {}
        # The last value the process gave each input: what an unforce or a restart returns to.
        self.image: dict[int, object] = {slot: self.s[slot] for slot in program.inputs.values()}
        self.forces: dict[int, object] = {}
        # Forced slots a block both reads and writes (an ST POU's own variable, a
        # block's state): no writer can be redirected there, so the force is
        # applied again as each scan ends, as CODESYS applies a force at both ends
        # of the cycle; the block sees the forced value from the scan's start.
        self.forced_state: tuple[int, ...] = ()
        self.scans = 0
        self.next_due = 0
        self.stats = ScanStats(cycle_us)
        self.traces: list[Trace] = []
        # Called with the task at the start of every scan, before the latch: where
        # something outside the PLC's thread (a Modbus server) hands over the
        # input writes it has collected, so they make this very scan.
        self.before_scan: list = []
        self.on_overrun: list = []
        # An event task's gate (SINGLE): asked ``trigger.fires(now_us)`` once each
        # tick the task is due, before any task of the tick runs; None: periodic.
        self.trigger = None
        # Slots a configuration binds to its globals (VAR_EXTERNALs), each with
        # its global's (table, index), and the initial values given from outside
        # the program (VAR_CONFIG), which a cold restart restores.
        self.bound: dict[int, tuple] = {}
        self.starts: dict[int, object] = {}
        #: the wall clock scans are timed with (integer ns); a test makes it a fake one
        self.clock = clock
        #: the slots a warm restart keeps: the RETAIN variables', once there are any
        self.retained: tuple[int, ...] = ()
        #: the slots a cold restart keeps: the PERSISTENT variables'
        self.persistent: tuple[int, ...] = ()
        self.follow(program)

    def run_scan(self, now_us: int) -> None:
        """One whole scan at simulated time ``now_us``: the ``before_scan`` hooks,
        :meth:`latch`, the compiled scan (execute and publish), :meth:`record`,
        inlined: this is the hot path."""
        if self.before_scan:
            for hook in self.before_scan:
                hook(self)
        s = self.s
        if self.pending:
            for slot, value in self.pending.items():
                s[slot] = value
            self.pending.clear()
        if self.forces:
            for slot, value in self.forces.items():
                s[slot] = value
        t0 = self.clock()
        try:
            self.program.scan(s, now_us * NS_PER_US)   # programs read the clock as a TIME, in ns
        except Exception as e:
            raise self.failed(e, now_us) from e
        ns = self.clock() - t0
        if self.forced_state:
            self._hold()
        self.scans += 1
        if self.stats.add(self.scans, ns):
            for callback in self.on_overrun:
                callback(self, self.scans, ns / 1000)
        for trace in self.traces:
            trace.record(s, self.scans, now_us)

    def _hold(self) -> None:
        s, forces = self.s, self.forces
        for slot in self.forced_state:
            s[slot] = forces[slot]

    def latch(self) -> None:
        """A scan's first step: pending input writes enter the table, forces are
        re-applied (as :meth:`run_scan` does)."""
        for hook in self.before_scan:
            hook(self)
        s = self.s
        if self.pending:
            for slot, value in self.pending.items():
                s[slot] = value
            self.pending.clear()
        for slot, value in self.forces.items():
            s[slot] = value

    def record(self, now_us: int, ns: int) -> None:
        """A scan's last step, after publish: count it, time it (``ns`` of wall
        time), let the recorders sample it (as :meth:`run_scan` does)."""
        if self.forced_state:
            self._hold()
        self.scans += 1
        if self.stats.add(self.scans, ns):
            for callback in self.on_overrun:
                callback(self, self.scans, ns / 1000)
        for trace in self.traces:
            trace.record(self.s, self.scans, now_us)

    def set_start(self, slot: int, value) -> None:
        """Give a variable another initial value (VAR_CONFIG): it holds it now and
        after every cold restart."""
        self.starts[slot] = value
        self.s[slot] = copy.deepcopy(value)
        if slot in self.image:
            self.image[slot] = value

    def failed(self, error: BaseException, now_us: int, block: str | None = None) -> PlcFault:
        """The :class:`PlcFault` for ``error`` raised by this task's next scan, at
        ``now_us``, naming the block that raised when it can tell."""
        if isinstance(error, PlcFault):
            return error
        if block is None and hasattr(self.program, "block_at"):
            block = self.program.block_at(error.__traceback__)
        fault = Fault.of(error, scan=self.scans + 1, task=self.name, time_us=now_us,
                         block=block)
        where = f", block {fault.block}" if fault.block and fault.file is None else ""
        return PlcFault(fault, f"{fault.message} (scan {fault.scan:,} of task {self.name}"
                               f"{where}: the PLC is in FAULT; restart() runs it again)")

    def follow(self, program, held: str | None = None) -> None:
        """Run ``program`` (at creation, and after an online change): know what its
        restarts keep; ``held``: the qualifier of its instance (``PROGRAM RETAIN
        inst`` in a configuration), every variable's that declares none."""
        self.program = program
        self.held = held
        self.retained, self.persistent = kept_slots(program, held)

    def restart(self, cold: bool = True, origin: bool = False) -> None:
        """Every variable back to its initial value (VAR_CONFIG's included); forces
        stay. A warm restart keeps the :attr:`retained` slots (RETAIN and
        PERSISTENT), a cold one the :attr:`persistent` ones, a reset to origin
        none (docs/retain.md)."""
        old, self.s = self.s, self.program.new_table()
        for slot, value in self.starts.items():
            self.s[slot] = copy.deepcopy(value)
        kept = () if origin else self.persistent if cold else self.retained
        for slot in kept:
            self.s[slot] = old[slot]
        if kept:    # an output of a kept variable shows it before the next scan publishes
            kept = set(kept)
            for out, source in self.program.flat.publish:
                if source in kept:
                    self.s[out] = self.s[source]
        self.pending = dict(self.image)
        for slot, value in self.forces.items():
            self.s[slot] = value
        if self.trigger is not None:
            self.trigger.restart()


__all__ = ["Task", "ScanStats"]
