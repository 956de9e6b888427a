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
"""

from __future__ import annotations

import datetime
import logging
import time as _time
from collections import deque
from dataclasses import dataclass, field

import simpy
import simpy.rt

from . import types as t
from .compiler import ScanProgram, compile_network
from .errors import FbdError, UnknownSignal
from .network import Network
from .trace import Trace

log = logging.getLogger("fbd")


def to_us(value, what: str = "time") -> int:
    """Seconds (float), a timedelta or an IEC literal ('T#5ms', '5ms') -> µs."""
    if isinstance(value, datetime.timedelta):
        return t.TIME.coerce(value)
    if isinstance(value, str):
        text = value.strip()
        if "#" not in text:
            text = "T#" + text
        return t.parse_time(text, what)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(value * 1_000_000)
    raise FbdError(f"{what}: {value!r} is not a duration (give seconds, a timedelta or 'T#5ms')")


@dataclass
class ScanStats:
    """Wall-clock time of the scans, and overruns against the cycle."""
    cycle_us: int
    count: int = 0
    total_ns: int = 0
    min_ns: int = 0
    max_ns: int = 0
    last_ns: int = 0
    overruns: int = 0
    overrun_log: deque = field(default_factory=lambda: deque(maxlen=100))

    def add(self, scan: int, ns: int) -> bool:
        self.count += 1
        self.total_ns += ns
        self.last_ns = ns
        if self.count == 1 or ns < self.min_ns:
            self.min_ns = ns
        if ns > self.max_ns:
            self.max_ns = ns
        if ns > self.cycle_us * 1000:
            self.overruns += 1
            self.overrun_log.append((scan, ns / 1000))
            return True
        return False

    @property
    def mean_us(self) -> float:
        return self.total_ns / self.count / 1000 if self.count else 0.0

    def summary(self) -> dict:
        return {"scans": self.count, "min_us": self.min_ns / 1000, "mean_us": self.mean_us,
                "max_us": self.max_ns / 1000, "overruns": self.overruns,
                "cycle_us": self.cycle_us}


class Task:
    """One cyclic IEC task: a compiled program with its own signal table and period."""

    def __init__(self, name: str, program: ScanProgram, cycle_us: int, priority: int):
        self.name = name
        self.program = program
        self.cycle_us = cycle_us
        self.priority = priority
        self.s = program.new_table()
        self.pending: dict[int, object] = {}
        # The last value the process gave each input: what an unforce or a restart returns to.
        self.image: dict[int, object] = {slot: self.s[slot] for slot in program.inputs.values()}
        self.forces: dict[int, object] = {}
        self.scans = 0
        self.next_due = 0
        self.stats = ScanStats(cycle_us)
        self.traces: list[Trace] = []
        self.on_overrun: list = []

    def run_scan(self, now_us: int) -> None:
        s = self.s
        if self.pending:
            for slot, value in self.pending.items():
                s[slot] = value
            self.pending.clear()
        if self.forces:
            for slot, value in self.forces.items():
                s[slot] = value
        t0 = _time.perf_counter_ns()
        self.program.scan(s, now_us)
        ns = _time.perf_counter_ns() - t0
        self.scans += 1
        if self.stats.add(self.scans, ns):
            for callback in self.on_overrun:
                callback(self, self.scans, ns / 1000)
        for trace in self.traces:
            trace.record(s, self.scans, now_us)

    def restart(self) -> None:
        """Cold restart: every variable back to its initial value; forces stay."""
        self.s = self.program.new_table()
        self.pending = dict(self.image)
        for slot, value in self.forces.items():
            self.s[slot] = value


class Plc:
    """A simulated controller running one program (and optionally more tasks).

    >>> plc = Plc(net, cycle=0.005)           # doctest: +SKIP
    >>> plc.set("S", True); plc.scan(3); plc.get("Q")
    """

    def __init__(self, program: Network | ScanProgram, cycle=0.005, *, realtime: bool = False,
                 speed: float = 1.0, clock_start=0.0, dump: str | None = None,
                 task_name: str = "main"):
        if isinstance(program, Network):
            program = compile_network(program, dump=dump)
        elif not isinstance(program, ScanProgram):
            raise FbdError(f"Plc needs a Network or a compiled ScanProgram, not "
                           f"{type(program).__name__}")
        cycle_us = to_us(cycle, "cycle")
        if cycle_us <= 0:
            raise FbdError(f"cycle must be positive, not {cycle!r}")
        self.realtime = realtime
        if realtime:
            self.env = simpy.rt.RealtimeEnvironment(factor=1e-6 / speed, strict=False)
        else:
            self.env = simpy.Environment()
        self.clock_start_us = to_us(clock_start, "clock_start")
        self.tasks: list[Task] = []
        self.main = self.add_task(task_name, program, cycle_us, priority=0)
        self.env.process(self._scheduler())

    # -- tasks ---------------------------------------------------------------
    def add_task(self, name: str, program, cycle, priority: int = 1) -> Task:
        """Add a cyclic task. Tasks due at the same instant run by priority
        (lower number first), then in the order they were added."""
        if isinstance(program, Network):
            program = compile_network(program)
        if any(task.name == name for task in self.tasks):
            raise FbdError(f"a task named {name!r} already exists")
        task = Task(name, program, to_us(cycle, "cycle") if not isinstance(cycle, int) or
                    isinstance(cycle, bool) else cycle, priority)
        task.next_due = self.env.now if self.tasks else 0
        task.on_overrun.append(self._report_overrun)
        self.tasks.append(task)
        self.tasks.sort(key=lambda tk: tk.priority)
        return task

    def task(self, name: str) -> Task:
        for task in self.tasks:
            if task.name == name:
                return task
        raise UnknownSignal(name, [tk.name for tk in self.tasks], "task")

    def _scheduler(self):
        env = self.env
        tasks = self.tasks
        offset = self.clock_start_us
        if len(tasks) == 1:
            # The common case, kept lean.
            task = tasks[0]
            cycle = task.cycle_us
            while len(tasks) == 1:
                now = env.now
                task.run_scan(now + offset)
                due = now + cycle
                if not self.realtime:
                    # While nothing else is scheduled before the next scan (no other
                    # process, not the end of this run), the next scan cannot be
                    # observed or preceded by anything: run it now instead of
                    # paying one simpy event per scan. Same scans, same times.
                    while due < env.peek() and len(tasks) == 1:
                        task.run_scan(due + offset)
                        due += cycle
                task.next_due = due
                yield env.timeout(due - now)
        while True:
            now = env.now
            for task in tasks:
                if task.next_due <= now:
                    task.run_scan(now + offset)
                    task.next_due = now + task.cycle_us
            yield env.timeout(min(tk.next_due for tk in tasks) - now)

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
        """Run exactly ``n`` scans of the main task (other tasks run as they fall due)."""
        if n < 0:
            raise FbdError(f"cannot run {n} scans")
        if n == 0:
            return
        until = self.main.next_due + n * self.main.cycle_us
        if self.main.scans == 0 and self.env.now == 0:
            until = n * self.main.cycle_us
        self.env.run(until=until)

    def run_for(self, duration) -> None:
        """Advance simulated time by ``duration`` (seconds, timedelta or 'T#1s')."""
        self.env.run(until=self.env.now + to_us(duration, "duration"))

    def run_until(self, condition, max_scans: int = 1_000_000) -> int:
        """Scan until ``condition(plc)`` holds; return the scans it took.
        Raises FbdError after ``max_scans`` so a wrong condition cannot hang a test."""
        for i in range(1, max_scans + 1):
            self.scan()
            if condition(self):
                return i
        raise FbdError(f"condition still false after {max_scans} scans")

    def restart(self) -> None:
        """Cold restart of every task: variables to their initial values, forces kept."""
        for task in self.tasks:
            task.restart()

    # -- signals -----------------------------------------------------------------
    def _locate(self, path: str):
        task = self.main
        if ":" in path:
            name, path = path.split(":", 1)
            task = self.task(name)
        return task, task.program.signal(path)

    def _locate_value(self, path: str, doing: str):
        """As _locate, for a signal that must hold an IEC value (not a block's
        internal storage, such as a LIFO's element list)."""
        task, info = self._locate(path)
        if info.type is None:
            raise FbdError(f"{path} is a block's internal storage, not an IEC value; "
                           f"it cannot be {doing}")
        return task, info

    def signals(self) -> list[str]:
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
        """As :meth:`get` but TIME stays integer µs (what blocks compute with)."""
        task, info = self._locate(path)
        return info.const if info.slot is None else task.s[info.slot]

    def set(self, name: str, value) -> None:
        """Write a program input; it is latched at the start of the next scan."""
        task, info = self._locate(name)
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

    def force(self, path: str, value) -> None:
        """Hold a signal at ``value`` until :meth:`unforce`: whatever drives it,
        everything reading it sees the forced value (a PLC force)."""
        task, info = self._locate_value(path, "forced")
        if info.slot is None:
            raise FbdError(f"{path} is wired to the constant {info.const!r}; nothing to force")
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
        # block-written slots need their writer redirected.
        new_slots = program.set_forced({s for s in task.forces if s in program.writer
                                        or s in program.outputs.values()})
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
            for slot, value in task.forces.items():
                path = by_slot.get(slot, f"#{slot}")
                if task is not self.main:
                    path = f"{task.name}:{path}"
                info = task.program.signals.get(by_slot.get(slot, ""))
                out[path] = info.type.to_python(value) if info else value
        return out

    # -- tracing -----------------------------------------------------------------
    def trace(self, paths, capacity: int | None = None) -> Trace:
        """Record ``paths`` after every scan into numpy arrays (the last
        ``capacity`` scans, or all of them). Detach with :meth:`untrace`."""
        task = self.main
        infos = [self._locate_value(p, "traced")[1] for p in paths]
        tr = Trace(task.program.name, [i.path for i in infos], [i.type for i in infos],
                   [i.slot for i in infos], [i.const for i in infos], capacity,
                   task.cycle_us)
        task.traces.append(tr)
        return tr

    def untrace(self, trace: Trace) -> None:
        for task in self.tasks:
            if trace in task.traces:
                task.traces.remove(trace)

    @property
    def stats(self) -> ScanStats:
        return self.main.stats

    @property
    def program(self) -> ScanProgram:
        return self.main.program

    def __repr__(self) -> str:
        return (f"<Plc {self.main.program.name}: {self.scans} scans, "
                f"t={self.time:.3f}s, cycle {self.main.cycle_us} us>")



def _scratch_source(program: ScanProgram, scratch: int) -> int:
    for real, sc in program._scratch.items():
        if sc == scratch:
            return real
    return scratch
