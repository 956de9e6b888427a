"""The PLC: process image, scan cycle on simpy, forcing, watchdog, traces.

Time is simulated, in integer microseconds (so 5 ms cycles never drift), and
advances only through simpy: headless it runs as fast as the host can; with
``realtime=True`` simpy's real-time environment paces it against the wall
clock (``speed`` scales it). NOW and the timers read this clock, never the
wall clock, so the same program with the same inputs gives the same scans,
bit for bit.

One scan of a task:

1. latch: pending input writes (``set``) enter the input slots; forced
   inputs are re-applied;
2. execute: the compiled scan runs every block once in execution order
   (feedback wires read the previous scan's value);
3. publish: outputs are copied to the output image;
4. record: the watchdog times the scan, traces take their sample.

:meth:`Task.run_scan` does the four steps in one go (the hot path).
:meth:`Plc.step_into` does the same scan one block at a time for a debugger
(:class:`SteppedScan`); the scheduler then skips the scan it would have run,
so a stepped scan and a normal one leave the same table, counters and clock.

A run (:meth:`Plc.scan`, :meth:`Plc.run_for`, :meth:`Plc.run_until`) can be
ended early from inside a scan with :meth:`Plc.halt` (a debugger's
breakpoint): the scan completes and the clock advances to the end of its
cycle, exactly as if the run had been asked for that many scans.

Several tasks (:meth:`Plc.add_task`, a configuration's program instances):
those due at the same instant run by priority, then in the order they were
added; an event task (one with a ``trigger``) runs only in the instants its
trigger fires, and every trigger of an instant is asked before any task of
that instant runs. A recorder of signals of several tasks (:meth:`Plc.trace`,
``fbd run``'s rows) samples them after every task of the instant has run.
A configuration names its variables as IEC does (``plc.names``,
:mod:`fbd.runtime.names`).
The PLC is in one of three states (:mod:`.faults`): RUN; STOP (:meth:`Plc.stop`,
:meth:`Plc.start`); FAULT, where a scan that raised put it. The run in
progress ends at the failed scan's time, that one call raises
:class:`~.faults.PlcFault` (the error's own message first, then where), and
every later call that would run a scan raises it too, saying to restart
(:meth:`Plc.restart`), until one does. Nothing runs while the PLC is not in
RUN, so its clock stands still. Another thread (a Modbus client) asks for a
change with :meth:`Plc.request`, carried out between scans by the thread that
runs the PLC (:meth:`Plc.serve_requests`; :meth:`Plc.scan` calls it first).
"""

from __future__ import annotations

import datetime
import logging
import time as _time
from collections.abc import Callable

import simpy
import simpy.rt
from simpy.core import StopSimulation
from simpy.events import URGENT

from .. import types as t
from ..compiler.pycode import ScanProgram, compile_network
from ..errors import FbdError, UnknownSignal
from ..network import Network
from ..values import NS_PER_US, nearest_us
from .fastforward import batchable, run_scans
from .faults import Operation, PlcFault
from .retain import retained
from .signals import SignalAccess, _TaskSlots
from .stepped import SteppedScan
from .task import ScanStats, Task

log = logging.getLogger("fbd")


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


class Plc(SignalAccess, Operation):
    """A simulated controller running one program (and optionally more tasks).

    >>> plc = Plc(net, cycle=0.005)           # doctest: +SKIP
    >>> plc.set("S", True); plc.scan(3); plc.get("Q")
    """

    def __init__(self, program: Network | ScanProgram, cycle=0.005, *, realtime: bool = False,
                 speed: float = 1.0, clock_start=0.0, dump: str | None = None,
                 task_name: str = "main", engine: str = "auto", on_fault: str = "hold",
                 clock: Callable[[], int] = _time.perf_counter_ns):
        self.engine_reason = "compiled before"
        if isinstance(program, Network):
            program, self.engine_reason = _build(program, engine, dump,
                                                 to_us(clock_start, "clock_start") >= 0)
        elif not _is_program(program):
            raise FbdError(f"Plc needs a Network or a compiled ScanProgram, not "
                           f"{type(program).__name__}")
        #: the engine running the main task, "python" or "native" (``engine_reason`` says why)
        self.engine = getattr(program, "engine", "python")
        #: the engine asked for (what an online change of a configuration compiles with)
        self.engine_choice = engine
        cycle_us = to_us(cycle, "cycle")
        if cycle_us <= 0:
            raise FbdError(f"cycle must be positive, not {cycle!r}")
        self._init_operation(on_fault)
        self.clock = clock
        self.realtime = realtime
        if realtime:
            self.env = simpy.rt.RealtimeEnvironment(factor=1e-6 / speed, strict=False)
        else:
            self.env = simpy.Environment()
        self.clock_start_us = to_us(clock_start, "clock_start")
        self.tasks: list[Task] = []
        # Recorders sampling signals of several tasks (record_ticks), called once
        # every task due at an instant of the main task has run.
        self.tick_recorders: list = []
        self._view = _TaskSlots()
        self.names = None       # a configuration's IEC names (fbd.runtime.names)
        self.globals = None     # a configuration's globals (fbd.runtime.configuration)
        self.restarts: list = []   # called by a cold restart, after the tasks'
        #: called as ``listener(plc, change)`` after an online change (replace_program)
        self.replaced: list = []
        self._retained: tuple = (None, [])
        self._runs = 0  # odd while a run is in progress; identifies its stop events
        self._stepping: SteppedScan | None = None
        self.main = self.add_task(task_name, program, f"T#{cycle_us}us", priority=0)
        self.env.process(self._scheduler())

    # -- tasks ---------------------------------------------------------------
    def add_task(self, name: str, program, cycle, priority: int = 1,
                 engine: str = "auto") -> Task:
        """Add a cyclic task every ``cycle`` (seconds, a timedelta or an IEC
        duration such as ``'T#10ms'``, as ``Plc``'s own cycle). Tasks due at the
        same instant run by priority (lower number first), then in the order
        they were added."""
        if isinstance(program, Network):
            program = _build(program, engine, None, self.clock_start_us >= 0)[0]
        if any(task.name == name for task in self.tasks):
            raise FbdError(f"a task named {name!r} already exists")
        cycle_us = to_us(cycle, "cycle")
        if cycle_us <= 0:
            raise FbdError(f"task {name}: the cycle must be positive, not {cycle!r}")
        task = Task(name, program, cycle_us, priority, self.clock)
        task.next_due = self.env.now if self.tasks else 0
        task.on_overrun.append(self._report_overrun)
        if self.tasks:
            self._wait_for_every_task()
        self.tasks.append(task)
        self.tasks.sort(key=lambda tk: tk.priority)
        return task

    def task(self, name: str) -> Task:
        for task in self.tasks:
            if task.name == name:
                return task
        raise UnknownSignal(name, [tk.name for tk in self.tasks], "task")

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

    def _report_overrun(self, task: Task, scan: int, us: float) -> None:
        if self.realtime:
            log.warning("task %s: scan %d took %.0f us, longer than its %d us cycle",
                        task.name, scan, us, task.cycle_us)

    # -- running ---------------------------------------------------------------
    @property
    def cycle(self) -> float:
        return self.main.cycle_us / 1e6

    @property
    def scans(self) -> int:
        return self.main.scans

    @property
    def time(self) -> float:
        """Simulated seconds since start."""
        return self.env.now / 1e6

    @property
    def now_us(self) -> int:
        return self.env.now

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

    # -- retained variables, online change ----------------------------------------
    @property
    def retained(self) -> list:
        """The main task's RETAIN and PERSISTENT variables
        (:class:`~fbd.runtime.retain.Variable`: path, type, slot, qualifier)."""
        main = self.main
        if self._retained[0] is not main.program:
            self._retained = (main.program, retained(main.program, held=main.held))
        return self._retained[1]

    def replace_program(self, new, task: str | None = None, engine: str = "auto"):
        """Online change: run ``new`` (a Network or a compiled program) instead of the
        main task's program (or ``task``'s) from the next scan on, keeping every
        variable whose path and type are unchanged; returns the
        :class:`~fbd.runtime.online.Change` report. A program that does not compile
        raises and changes nothing. Between scans, on the PLC's thread
        (:mod:`fbd.runtime.online`; docs/retain.md)."""
        from .online import replace_program
        return replace_program(self, new, None if task is None else self.task(task), engine)

    def replace_configuration(self, project):
        """Online change of a configuration's PLC (:meth:`fbd.project.Project.plc`):
        run ``project``'s programs (a changed :class:`~fbd.project.Project`, or one
        :func:`~fbd.runtime.online_configuration.prepare` made ready) in every task
        from the next scan on, keeping every variable and global whose path and
        type are unchanged; returns the
        :class:`~fbd.runtime.online_configuration.ConfigurationChange`. A project
        that does not compile, or whose tasks differ, raises and changes nothing.
        Between scans, on the PLC's thread (:mod:`fbd.runtime.online_configuration`)."""
        from .online_configuration import Prepared, prepare, replace_configuration
        if not isinstance(project, Prepared):
            project = prepare(self, project)
        return replace_configuration(self, project)

    @property
    def stats(self) -> ScanStats:
        return self.main.stats

    @property
    def program(self) -> ScanProgram:
        return self.main.program

    def __repr__(self) -> str:
        return (f"<Plc {self.main.program.name}: {self.scans} scans, "
                f"t={self.time:.3f}s, cycle {self.main.cycle_us} us>")


def _build(net: Network, engine: str, dump, clock_from_zero: bool):
    """(program, why this engine): see fbd.native.engines."""
    if engine == "python":
        return compile_network(net, dump=dump), "asked for"
    from ..native.engines import build_program
    return build_program(net, engine, dump, clock_from_zero=clock_from_zero)


def _is_program(program) -> bool:
    if isinstance(program, ScanProgram):
        return True
    from ..native import NativeProgram
    return isinstance(program, NativeProgram)
