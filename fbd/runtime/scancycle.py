"""The scan cycle of :class:`~fbd.runtime.plc.Plc` on simpy (a mixin of it): the
scheduler that runs each task when it falls due, the fast-forward that runs
the main task's scans with no simpy event while nothing else can observe them
(:mod:`.fastforward`), and the runs a caller asks for (``scan``, ``skip``,
``run_for``, ``run_until``), ended early by ``halt`` or by a scan that raises
(the PLC is then in FAULT, :mod:`.faults`). The order of events within an
instant and why: the text of :mod:`fbd.runtime.plc`.
"""

from __future__ import annotations

import datetime

import simpy
from simpy.core import StopSimulation
from simpy.events import URGENT

from .. import types as t
from ..errors import FbdError
from ..values import NS_PER_US, nearest_us
from .fastforward import batchable, run_scans
from .faults import PlcFault
from .stepped import SteppedScan
from .task import Task


def to_us(value, what: str = "time") -> int:
    """Seconds (float), a timedelta or an IEC literal ('T#5ms', '5ms') -> µs (the
    scheduler's unit; a literal's ns rounded to the nearest µs)."""
    if isinstance(value, datetime.timedelta):
        return t.TIME.coerce(value) // NS_PER_US
    if isinstance(value, str):
        text = value.strip()
        if "#" not in text:
            text = "T#" + text
        return nearest_us(t.parse_time(text, what))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(value * 1_000_000)
    raise FbdError(f"{what}: {value!r} is not a duration (give seconds, a timedelta or 'T#5ms')")


class _StopAt(simpy.events.Event):
    """The end of a run at a given time, scheduled URGENT so that it comes before
    the scans due at that instant, as ``env.run(until=...)``'s own end event does.
    An event triggered when made, the way simpy's own ``Timeout`` is written,
    which is what its documentation asks of custom events; ``run`` is the run it
    may stop (a later run ignores it)."""

    def __init__(self, env, delay: int, run: int):
        super().__init__(env)
        self._ok = True
        self._value = None
        self.run = run
        env.schedule(self, URGENT, delay)


class ScanCycle:
    """Running the tasks of a :class:`~fbd.runtime.plc.Plc` on its simpy clock."""

    def _scheduler(self):
        while True:
            try:
                yield from self._cycles()
            except PlcFault as failed:
                # The run ends at the failed scan's time (the fast path below may have
                # run ahead of simpy's clock), before anything else due then; that
                # scan is due again after a restart.
                due = failed.fault.time_us - self.clock_start_us
                self.task(failed.fault.task).next_due = due
                self._stop_at(due)
                self._enter_fault(failed)
                self._failed = failed
                self._resumed = self.env.event()
                yield self._resumed

    def _cycles(self):
        env = self.env
        tasks = self.tasks
        offset = self.clock_start_us
        ticks = self.tick_recorders
        if len(tasks) == 1 and tasks[0].trigger is None:
            # The common case, kept lean (its tick recorders are the task's traces).
            task = tasks[0]
            cycle = task.cycle_us
            while len(tasks) == 1:
                now = env.now
                due = task.next_due
                if due <= now:  # else a debugger has run this scan by hand (step_into)
                    task.run_scan(now + offset)
                    due = now + cycle
                    if not self.realtime:
                        # While nothing else is scheduled before the next scan (no other
                        # process, not the end of this run), the next scans cannot be
                        # observed or preceded by anything: run them now instead of
                        # paying one simpy event per scan, many in one call where the
                        # task allows (fast-forward). Same scans, same times.
                        due = self._run_ahead(task, due, cycle)
                    task.next_due = due
                yield env.timeout(due - now)
        while True:
            now = env.now
            # an event task's trigger is sampled before any task of the instant runs
            gated = {task for task in tasks if task.trigger is not None
                     and task.next_due <= now and not task.trigger.fires(now)}
            main_due = self.main.next_due <= now
            for task in tasks:
                if task.next_due <= now:
                    if task not in gated:
                        task.run_scan(now + offset)
                    task.next_due = now + task.cycle_us
            if main_due and ticks:
                for recorder in ticks:
                    recorder.record(self._view, self.main.scans, now + offset)
            yield env.timeout(min(tk.next_due for tk in tasks) - now)

    def _run_ahead(self, task: Task, due: int, cycle: int) -> int:
        """Run the main task's scans due before the next simpy event (the only task);
        the next due time after them."""
        env, tasks = self.env, self.tasks
        while due < env.peek() and len(tasks) == 1:
            n = -(-(env.peek() - due) // cycle)      # the scans due before it
            if n > 1 and batchable(task):
                run_scans(task, due + self.clock_start_us, cycle, n)
                due += n * cycle
            else:                                   # a recorder may halt the run: one by one
                task.run_scan(due + self.clock_start_us)
                due += cycle
        return due

    def scan(self, n: int = 1) -> None:
        """Run exactly ``n`` scans of the main task (other tasks run as they fall due);
        fewer if :meth:`halt` ends the run, or a scan raises: then the PLC is in
        FAULT and this raises :class:`~.faults.PlcFault` (see the module's text)."""
        if n < 0:
            raise FbdError(f"cannot run {n} scans")
        self.require_running("run a scan")
        if n == 0:
            return
        until = self.main.next_due + n * self.main.cycle_us
        if self.main.scans == 0 and self.env.now == 0:
            until = n * self.main.cycle_us
        self._run(until)

    def skip(self, n: int) -> None:
        """Let ``n`` cycles of the main task pass without its scan: the clock, NOW and
        every timer advance ``n`` cycles, as on a PLC whose task could not start in
        time; other tasks run as they fall due. Counted in ``stats.skipped``. What a
        real-time runner does when the host falls whole cycles behind."""
        if n < 0:
            raise FbdError(f"cannot skip {n} cycles")
        self.require_running("skip cycles")
        if n == 0:
            return
        if self._stepping is not None:
            raise FbdError(f"scan {self.main.scans + 1} is being stepped into, block by "
                           f"block; finish it (SteppedScan.finish) before skipping cycles")
        task = self.main
        task.next_due += n * task.cycle_us     # the scheduler finds it not yet due, and waits
        task.stats.skipped += n
        self._run(task.next_due)

    def run_for(self, duration) -> None:
        """Advance simulated time by ``duration`` (seconds, timedelta or 'T#1s')."""
        self.require_running("run")
        self._run(self.env.now + to_us(duration, "duration"))

    def _run(self, until: int) -> None:
        """Run simpy up to simulated time ``until`` (µs), or to where :meth:`halt` says.

        The end is an urgent event at ``until`` (before any scan due then), as
        ``env.run(until=...)`` makes, but one that stops only the run it was
        made for: a run that :meth:`halt` ends early leaves it in the queue,
        where it must not end the next run.
        """
        if self._stepping is not None:
            raise FbdError(f"scan {self.main.scans + 1} is being stepped into, block by "
                           f"block; finish it (SteppedScan.finish) before running the PLC")
        env = self.env
        if until <= env.now:
            raise ValueError(f"until ({until}) must be greater than the current "
                             f"simulation time")
        self._runs += 1
        self._stop_at(until)
        try:
            env.run()
        finally:
            self._runs += 1  # this run's stop events are stale from now on
        failed, self._failed = self._failed, None
        if failed is not None:
            self._notify("fault")
            raise failed

    def _stop_at(self, at: int) -> None:
        event = _StopAt(self.env, at - self.env.now, self._runs)
        event.callbacks.append(self._stop)

    def _stop(self, event) -> None:
        if event.run == self._runs:
            raise StopSimulation(None)

    def halt(self, scan_us: int) -> None:
        """End the run in progress after the main-task scan that runs at
        ``scan_us`` (the time recorders are given): that scan completes, and the
        clock advances to the end of its cycle, as if the run had been asked for
        exactly that many scans. Meant for a recorder (a debugger's breakpoint);
        outside a run it does nothing."""
        at = scan_us - self.clock_start_us + self.main.cycle_us
        if self._runs % 2 and at > self.env.now:
            self._stop_at(at)

    def step_into(self) -> SteppedScan:
        """Begin the main task's next scan, to run it one block at a time
        (a debugger's *step into*); see :class:`SteppedScan`."""
        if self._stepping is not None:
            raise FbdError(f"scan {self.main.scans + 1} is already being stepped into")
        self.require_running("step into a scan")
        task = self.main
        if self.env.now < task.next_due:  # run what comes before the scan (other tasks, processes)
            self._run(task.next_due)
        self._stepping = SteppedScan(self, task)
        return self._stepping

    def run_until(self, condition, max_scans: int = 1_000_000) -> int:
        """Scan until ``condition(plc)`` holds; return the scans it took.
        Raises FbdError after ``max_scans`` so a wrong condition cannot hang a test."""
        for i in range(1, max_scans + 1):
            self.scan()
            if condition(self):
                return i
        raise FbdError(f"condition still false after {max_scans} scans")
