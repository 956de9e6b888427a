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

Plc is made of mixins of one job each: the scan cycle (:mod:`.scancycle`),
the signals by path (:mod:`.signals`), the operating state (:mod:`.faults`);
this module holds its tasks and programs (docs/architecture.md).
"""

from __future__ import annotations

import logging
import time as _time
from collections.abc import Callable

import simpy
import simpy.rt

from ..compiler.pycode import ScanProgram
from ..errors import FbdError, UnknownSignal
from ..network import Network
from . import online, online_configuration
from .engine import compile_program, is_program
from .faults import Operation, PlcFault
from .retain import retained
from .scancycle import ScanCycle, to_us
from .signals import SignalAccess, _TaskSlots
from .stepped import SteppedScan
from .task import ScanStats, Task

# what is imported from here, defined in the modules Plc is made of
__all__ = ["Plc", "PlcFault", "SteppedScan", "to_us"]

log = logging.getLogger("fbd")


class Plc(ScanCycle, SignalAccess, Operation):
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
            program, self.engine_reason = compile_program(
                program, engine, dump, to_us(clock_start, "clock_start") >= 0)
        elif not is_program(program):
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
            program = compile_program(program, engine, None, self.clock_start_us >= 0)[0]
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
        return online.replace_program(self, new, None if task is None else self.task(task), engine)

    def replace_configuration(self, project):
        """Online change of a configuration's PLC (:meth:`fbd.project.Project.plc`):
        run ``project``'s programs (a changed :class:`~fbd.project.Project`, or one
        :func:`~fbd.runtime.online_configuration.prepare` made ready) in every task
        from the next scan on, keeping every variable and global whose path and
        type are unchanged; returns the
        :class:`~fbd.runtime.online_configuration.ConfigurationChange`. A project
        that does not compile, or whose tasks differ, raises and changes nothing.
        Between scans, on the PLC's thread (:mod:`fbd.runtime.online_configuration`)."""
        if not isinstance(project, online_configuration.Prepared):
            project = online_configuration.prepare(self, project)
        return online_configuration.replace_configuration(self, project)

    @property
    def stats(self) -> ScanStats:
        return self.main.stats

    @property
    def program(self) -> ScanProgram:
        return self.main.program

    def __repr__(self) -> str:
        return (f"<Plc {self.main.program.name}: {self.scans} scans, "
                f"t={self.time:.3f}s, cycle {self.main.cycle_us} us>")
