"""The debugger's model: run, pause, step scans and blocks, break, watch, force, trend.

No Qt here: the views in ``hmi/debugger/`` are built on :class:`Debugger` and
only read it and call it (a model without widgets: the views hold no state the
model needs); everything below is tested headless.

>>> dbg = Debugger(plc)                                   # doctest: +SKIP
>>> dbg.add_breakpoint("cell_0_0.memory.OUT >= 2048")
>>> hit = dbg.run_until_break(max_scans=10_000)
>>> hit.scan, [bp.text for bp in hit.breakpoints]

The API, for the views
======================

State (read after every call, or on an event, see *Events*)
    ``state``: ``"paused"`` or ``"running"``; ``scans`` (the scan counter),
    ``time`` (simulated seconds) and ``time_us``; ``in_scan``: a scan is being
    stepped into, with ``current_block`` (the path of the block the next
    :meth:`~Debugger.step_into` runs: the one to highlight), ``last_block``,
    ``block_position`` (blocks run so far, blocks in the scan); ``order``
    (every block path in execution order); ``last_hit`` (the latest
    :class:`Hit`); :meth:`~Debugger.stats` (scan time min/mean/max in µs,
    overruns).

Running
    :meth:`~Debugger.run` / :meth:`~Debugger.pause`, then the GUI timer calls
    :meth:`~Debugger.advance` with the wall seconds since its last call; it
    runs the scans due at :attr:`~Debugger.speed` (``1.0`` real time,
    ``10.0``, :data:`MAX` as fast as possible), at most ``max_scans`` and
    about ``budget_s`` wall seconds per call, so the UI keeps its thread
    (scans due beyond that are dropped and counted in ``dropped_scans``).
    :meth:`~Debugger.step` runs 1 or N whole scans,
    :meth:`~Debugger.run_until_break` runs until a breakpoint holds (or a
    guard), both paused and synchronous. :meth:`~Debugger.restart` is the
    warm restart, ``restart(cold=True)`` the cold one (see there for what
    each keeps). The debugger owns the PLC's pacing: while it is open,
    nothing else should call ``plc.scan`` (an application shell pauses its
    own loop), and during a scan stepped into the PLC refuses to run.
    :meth:`~Debugger.close` detaches it.

Stepping into a scan
    :meth:`~Debugger.step_into` first begins the next scan (inputs latched,
    nothing run yet), then runs one block per call in execution order; the
    call that runs the last block ends the scan exactly as a normal scan ends
    (outputs published, counted, timed, traced, the clock one cycle on: the
    table is the same as the compiled scan's). :meth:`~Debugger.finish_scan`
    runs the rest of the scan. Run, step and run-until-break finish a scan in
    progress first (that counts as one scan).

Breakpoints
    :meth:`~Debugger.add_breakpoint` parses a condition (grammar below) and
    returns a :class:`Breakpoint` (``enabled`` may be set directly, ``hits``
    counts the pauses it caused), :meth:`~Debugger.enable_breakpoint`,
    :meth:`~Debugger.remove_breakpoint`, :meth:`~Debugger.check_condition`
    (validate as the user types). They are checked after every scan the
    debugger runs, and after every block of a scan stepped into; the run
    pauses on the first scan (or block) where one holds and reports a
    :class:`Hit` (which breakpoints, which scan, which block). After a scan,
    a breakpoint fires whenever its condition holds (as CODESYS and gdb do);
    with ``edge=True`` only where it turns from false (after the previous
    scan) to true. After a block, it fires where that block made it true (it
    did not hold before the block), so the hit names the block responsible;
    a breakpoint that fired at a block does not fire again at the end of the
    same scan. A bad condition raises :class:`ConditionError` (an
    :class:`~fbd.errors.FbdError`) naming the problem and its column.

Signals
    :meth:`~Debugger.complete` ranks paths for a completion box;
    :meth:`~Debugger.get`, :meth:`~Debugger.info`; :meth:`~Debugger.probe`
    makes a reader of many paths at once (a diagram's wire labels, read at
    30 Hz straight from the table); the watch list: :meth:`~Debugger.watch`,
    :meth:`~Debugger.unwatch`, ``watches``, :meth:`~Debugger.watch_values`
    (:class:`WatchRow`: value, IEC text, forced?); :meth:`~Debugger.write`
    (once), :meth:`~Debugger.force`, :meth:`~Debugger.unforce`, ``forces``
    (every force, by path), :meth:`~Debugger.is_forced`. Values may be given
    as IEC text (``"TRUE"``, ``"16#FF"``, ``"T#1s"``); :func:`format_value`
    writes them back. Paths are the main task's.

Trends
    :meth:`~Debugger.trend` (set the recorded signals),
    :meth:`~Debugger.add_trend`, :meth:`~Debugger.remove_trend`,
    ``trend_paths``, ``trace``
    (the :class:`~fbd.runtime.trace.Trace` of the last :data:`TREND_CAPACITY` scans:
    ``trace.scans``, ``trace.times``, ``trace[path]`` as numpy arrays),
    :meth:`~Debugger.export_csv`, :meth:`~Debugger.export_vcd`. Changing the
    set of trended signals starts a new recording.

Events
    ``listeners``: callables called with one word after a change the views
    show: ``"state"`` (run/pause/speed), ``"scan"`` (scans ran), ``"block"``
    (a block was stepped), ``"hit"``, ``"breakpoints"``, ``"watch"``,
    ``"forces"``, ``"trend"``, ``"restart"``, and ``"touched"`` just before
    ``"forces"`` when a value was written or forced (a game's host marks the
    game: it sets no record). Called synchronously, on the caller's thread; a
    Qt view forwards them to a signal.

Breakpoint conditions are parsed and compiled by :mod:`fbd.debug.condition`.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

from ..compiler.pycode import ScanProgram, SignalInfo
from ..errors import FbdError
from ..runtime.plc import Plc, ScanStats, SteppedScan
from ..runtime.trace import Trace
from .condition import FUNCTIONS, Condition, ConditionError, _Prev, compile_condition
from .probe import Probe, WatchRow, format_value, literal_text

__all__ = ["Debugger", "Breakpoint", "Hit", "Probe", "WatchRow", "ConditionError",
           "Condition", "compile_condition", "format_value", "literal_text", "MAX",
           "TREND_CAPACITY", "FUNCTIONS"]

#: ``Debugger.speed`` for "as fast as possible"
MAX = math.inf
#: scans a trend keeps
TREND_CAPACITY = 10_000
# =========================================================================== breakpoints
class Breakpoint:
    """A condition the debugger checks after every scan (and every stepped block).

    ``enabled`` may be set directly; ``hits`` counts the pauses it caused;
    ``paths`` are the signals it reads (for the views to mark).
    """

    def __init__(self, ident: int, condition: Condition, edge: bool, enabled: bool):
        self.id = ident
        self.condition = condition
        self.text = condition.text
        self.paths = condition.paths
        self.edge = edge
        self.enabled = enabled
        self.hits = 0
        self._was = False   # whether it held at the previous check (edge breakpoints)

    def __repr__(self) -> str:
        flags = ("" if self.enabled else ", disabled") + (", edge" if self.edge else "")
        return f"<Breakpoint {self.id} {self.text!r}{flags}, {self.hits} hits>"


@dataclass(frozen=True)
class Hit:
    """Where a run paused because breakpoints held.

    ``scan``: the number of the scan they held in (after it completed, or the
    scan in progress when ``block`` is set); ``time_us``: that scan's simulated
    time as NOW reads it; ``block``: the path of the block after which they
    held when stepping into a scan (None: at the end of a scan).
    """
    breakpoints: tuple[Breakpoint, ...]
    scan: int
    time_us: int
    block: str | None = None

    def describe(self) -> str:
        where = f"after block {self.block} in scan {self.scan}" if self.block else \
            f"after scan {self.scan}"
        return f"{', '.join(bp.text for bp in self.breakpoints)} held {where}"


class _Checker:
    """The recorder the debugger attaches to the main task during its runs: checks
    the enabled breakpoints after each scan, halts the run at the first that holds."""

    def __init__(self, dbg: Debugger, active: list[Breakpoint]):
        self.dbg = dbg
        self.checks = [(bp, bp.condition.fn, bp.edge) for bp in active]
        self.prev = dbg._prev if any(bp.condition.history for bp in active) else None
        self.hit: Hit | None = None

    def record(self, s: list, scan: int, now_us: int) -> None:
        fired = None
        for bp, fn, edge in self.checks:
            if fn(s):
                if not (edge and bp._was):
                    if fired is None:
                        fired = [bp]
                    else:
                        fired.append(bp)
                bp._was = True
            else:
                bp._was = False
        if self.prev is not None:
            self.prev.take(s, scan)
        if fired is not None and self.hit is None:
            self.hit = Hit(tuple(fired), scan, now_us)
            self.dbg.plc.halt(now_us)


# =========================================================================== the model
class Debugger:
    """The debugger's model over a running :class:`~fbd.runtime.Plc` (see the
    module's docstring for the whole API).

    ``max_scans`` and ``budget_s`` cap one :meth:`advance` (scans, and wall
    seconds spent scanning); ``clock`` is the wall clock those are measured
    with (a test passes a fake one).
    """

    def __init__(self, plc: Plc, *, max_scans: int = 10_000, budget_s: float = 0.02,
                 clock: Callable[[], float] = _time.perf_counter):
        if not isinstance(plc, Plc):
            raise FbdError(f"Debugger needs a Plc, not {type(plc).__name__}")
        if plc.realtime:
            raise FbdError("the debugger paces the PLC itself (advance); give it a PLC on "
                           "simulated time: Plc(..., realtime=False)")
        if max_scans < 1:
            raise FbdError(f"max_scans must be at least 1, not {max_scans!r}")
        self.plc = plc
        self.max_scans = max_scans
        self.budget_s = budget_s
        self.clock = clock
        self.listeners: list[Callable[[str], None]] = []
        self.state = "paused"
        self._speed = 1.0
        self._debt_ns = 0
        self.dropped_scans = 0     # scans due at the set speed but not run (over a cap)
        self._batch = 1            # advance(): scans per simpy run, adapted to the budget
        self._stepper: SteppedScan | None = None
        self._last_leaf: int | None = None
        self._held: dict[Breakpoint, bool] = {}        # in a stepped scan: held at the last check
        self._fired_in_scan: set[Breakpoint] = set()
        self._prev = _Prev()
        self._prev.take(self.table, plc.scans)
        self._breakpoints: list[Breakpoint] = []
        self._next_id = 1
        self.last_hit: Hit | None = None
        self._watches: list[str] = []
        self._trace: Trace | None = None
        self._lower: list[tuple[str, str]] | None = None   # (lowercase path, path), for complete()

    # -- plumbing ------------------------------------------------------------------
    def _emit(self, event: str) -> None:
        for listener in list(self.listeners):
            listener(event)

    @property
    def program(self) -> ScanProgram:
        return self.plc.main.program

    @property
    def table(self) -> list:
        """The main task's signal table (replaced by a restart: read it each time)."""
        return self.plc.main.s

    # -- state ---------------------------------------------------------------------
    @property
    def scans(self) -> int:
        return self.plc.scans

    @property
    def time(self) -> float:
        """Simulated seconds since the start (while stepping into a scan: its start)."""
        return self.plc.time

    @property
    def time_us(self) -> int:
        return self.plc.now_us

    @property
    def speed(self) -> float:
        """Simulated seconds per wall second while running: 1.0 real time, 10.0,
        or :data:`MAX` (as fast as :attr:`budget_s` allows)."""
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not (isinstance(value, (int, float)) and value > 0):
            raise FbdError(f"speed must be a positive number (or MAX), not {value!r}")
        self._speed = float(value)
        self._debt_ns = 0
        self._emit("state")

    @property
    def in_scan(self) -> bool:
        """A scan is being stepped into."""
        st = self._stepper
        if st is not None and not st.active:  # finished, or abandoned by a restart
            self._stepper = st = None
        return st is not None

    @property
    def current_block(self) -> str | None:
        """The block the next :meth:`step_into` runs (None outside a scan)."""
        if not self.in_scan:
            return None
        leaf = self._stepper.next_leaf
        return None if leaf is None else self.program.leaves[leaf].path

    @property
    def last_block(self) -> str | None:
        """The block the last :meth:`step_into` ran, in the scan in progress."""
        if not self.in_scan or self._last_leaf is None:
            return None
        return self.program.leaves[self._last_leaf].path

    @property
    def block_position(self) -> tuple[int, int]:
        """(blocks run, blocks in the scan) of the scan stepped into; (0, n) outside."""
        n = len(self.program.order)
        return (self._stepper.position, n) if self.in_scan else (0, n)

    @property
    def order(self) -> list[str]:
        """Every block's path, in execution order."""
        leaves = self.program.leaves
        return [leaves[i].path for i in self.program.order]

    def stats(self) -> dict:
        """Scan time: ``scans``, ``min_us``, ``mean_us``, ``max_us``, ``last_us``,
        ``overruns`` (scans longer than ``cycle_us``)."""
        st = self.plc.stats
        return {**st.summary(), "last_us": st.last_ns / 1000}

    # -- running -------------------------------------------------------------------
    def run(self) -> Hit | None:
        """Run freely from now (:meth:`advance` does the scans). A scan stepped into
        is finished first; if a breakpoint holds in it, the debugger stays paused."""
        hit = self._finish_stepped() if self.in_scan else None
        if hit is None:
            self.state = "running"
            self._debt_ns = 0
            self._emit("state")
        return hit

    def pause(self) -> None:
        if self.state != "paused":
            self.state = "paused"
            self._debt_ns = 0
            self._emit("state")

    def advance(self, wall_seconds: float) -> Hit | None:
        """Run the scans due after ``wall_seconds`` of wall time at :attr:`speed`
        (the GUI timer's call; nothing while paused). Returns the hit that paused it.

        At a finite speed the wall time, scaled, becomes whole cycles; the rest is
        carried to the next call. At most ``max_scans`` scans and about
        ``budget_s`` wall seconds are spent per call: scans due beyond those are
        dropped, not owed (counted in ``dropped_scans``), so a slow program runs
        slower than asked instead of freezing the UI. At :data:`MAX`, it scans
        until the budget or the cap is spent.
        """
        if self.state != "running":
            return None
        if wall_seconds < 0:
            raise FbdError(f"wall time cannot go backwards ({wall_seconds!r} s)")
        if self._speed == MAX:
            due = self.max_scans
        else:
            cycle_ns = self.plc.main.cycle_us * 1000
            self._debt_ns += round(round(wall_seconds * 1e9) * self._speed)
            due, self._debt_ns = divmod(self._debt_ns, cycle_ns)
            if due > self.max_scans:
                self.dropped_scans += due - self.max_scans
                due = self.max_scans
        if due == 0:
            return None
        # Scans run in batches (one simpy run each), the clock read between them:
        # the first batch is the size the last call ended with, then each is what
        # fits in the budget left at the rate seen so far, at most double the last.
        start = self.clock()
        done, batch, hit = 0, self._batch, None
        while done < due:
            k = min(batch, due - done)
            before = self.plc.scans
            hit = self._run_scans(k)
            done += self.plc.scans - before
            if hit is not None:
                break
            self._batch = k
            elapsed = self.clock() - start
            if elapsed >= self.budget_s:
                break
            per_scan = elapsed / done
            fits = int((self.budget_s - elapsed) / per_scan) if per_scan > 0 else 2 * k
            batch = max(1, min(2 * k, fits))
        if hit is None and done < due and self._speed != MAX:
            self.dropped_scans += due - done
        self._emit("scan")
        if hit is not None:
            self._pause_at(hit)
        return hit

    def step(self, n: int = 1) -> Hit | None:
        """Pause, then run ``n`` whole scans (a scan stepped into counts as one and is
        finished first); stop early where a breakpoint holds."""
        if n < 1:
            raise FbdError(f"cannot step {n} scans")
        self.pause()
        hit = None
        if self.in_scan:
            hit = self._finish_stepped()
            n -= 1
        if hit is None and n:
            hit = self._run_scans(n)
            self._emit("scan")
            if hit is not None:
                self._pause_at(hit)
        return hit

    def run_until_break(self, max_scans: int = 1_000_000) -> Hit | None:
        """Pause, then run until a breakpoint holds; the hit, or None after
        ``max_scans`` scans (a guard, so a condition that never holds cannot hang)."""
        return self.step(max_scans)

    def step_into(self) -> Hit | None:
        """Outside a scan: begin the next one (inputs latched, no block run yet).
        In a scan: run its current block, then check the breakpoints; the block
        that is the scan's last also ends the scan (as a normal scan ends)."""
        self.pause()
        if not self.in_scan:
            self._sync_prev()
            self._stepper = self.plc.step_into()
            self._last_leaf = None
            s = self.table
            self._held = {bp: bool(bp.condition.fn(s)) for bp in self._active()}
            self._fired_in_scan = set()
            self._emit("block")
            return None
        st = self._stepper
        if not st.done:
            self._last_leaf = st.step()
        if st.done:
            return self._end_stepped()
        hit = self._check_block()
        self._emit("block")
        return hit

    def finish_scan(self) -> Hit | None:
        """Run the rest of the scan stepped into, block by block, checking the
        breakpoints after each; stop at the block where one holds."""
        if not self.in_scan:
            raise FbdError("no scan is being stepped into; step_into() begins one")
        self.pause()
        return self._finish_stepped()

    def restart(self, cold: bool = False) -> None:
        """Pause and restart the program.

        Warm (the default): every variable of the program returns to its initial
        value (there is no RETAIN yet, so all of them), as after a download; a
        scan stepped into is abandoned. Kept: the forces (re-applied), the inputs
        the process last gave, the watch list, the breakpoints, the trend and its
        samples (the restart shows in it), the scan statistics. The scan counter
        and the simulated clock go on: they are the trend's axis, and the clock
        is shared with any simulated plant on the PLC's simpy environment.

        Cold: as warm, and also every force is released, the trend's samples,
        the scan statistics, the last hit and the breakpoints' hit counts are
        cleared. The watch list, breakpoints and trended signals stay (they are
        the debugger's setup, not the PLC's state).
        """
        self.pause()
        if cold and self.plc.forces:
            self.plc.unforce()
        self.plc.restart()
        self._stepper = None
        self._last_leaf = None
        if cold:
            for task in self.plc.tasks:
                task.stats = ScanStats(task.cycle_us)
            if self._trace is not None:
                self._trace.clear()
            self.last_hit = None
            for bp in self._breakpoints:
                bp.hits = 0
        self._prev.take(self.table, self.plc.scans)
        self._reset_edges()
        self._emit("restart")

    # -- running: internals ------------------------------------------------------------
    def _active(self) -> list[Breakpoint]:
        return [bp for bp in self._breakpoints if bp.enabled]

    def _sync_prev(self) -> None:
        """changed() compares with the previous scan's end: if scans ran that the
        debugger did not see, the table now holds that end."""
        if self._prev.scan != self.plc.scans:
            self._prev.take(self.table, self.plc.scans)

    def _run_scans(self, n: int) -> Hit | None:
        """``n`` whole scans in one batched run; with breakpoints, a recorder checks
        them after every scan and halts the run at the first hit."""
        active = self._active()
        if not active:
            self.plc.scan(n)
            return None
        self._sync_prev()
        checker = _Checker(self, active)
        traces = self.plc.main.traces
        traces.append(checker)
        try:
            self.plc.scan(n)
        finally:
            traces.remove(checker)
        return checker.hit

    @staticmethod
    def _evaluate(active: list[Breakpoint], s: list) -> list[Breakpoint]:
        fired = []
        for bp in active:
            holds = bool(bp.condition.fn(s))
            if holds and not (bp.edge and bp._was):
                fired.append(bp)
            bp._was = holds
        return fired

    def _reset_edges(self) -> None:
        s = self.table
        for bp in self._breakpoints:
            bp._was = bool(bp.condition.fn(s))

    def _check_block(self) -> Hit | None:
        """After a block of a stepped scan: the breakpoints this block made true
        (they did not hold before it)."""
        s = self.table
        held = self._held
        fired = []
        for bp in self._active():
            holds = bool(bp.condition.fn(s))
            if holds and held.get(bp, True) is False:
                fired.append(bp)
                self._fired_in_scan.add(bp)
            held[bp] = holds
        if not fired:
            return None
        hit = Hit(tuple(fired), self.plc.scans + 1, self._stepper.now_us,
                  self.program.leaves[self._last_leaf].path)
        self._pause_at(hit)
        return hit

    def _end_stepped(self) -> Hit | None:
        """Every block of the stepped scan ran: end it, check the breakpoints."""
        st = self._stepper
        st.finish()
        self._stepper = None
        self._last_leaf = None
        fired = [bp for bp in self._evaluate(self._active(), self.table)
                 if bp not in self._fired_in_scan]   # each fires once per scan
        self._fired_in_scan = set()
        self._prev.take(self.table, self.plc.scans)
        self._emit("scan")
        if not fired:
            return None
        hit = Hit(tuple(fired), self.plc.scans, st.now_us)
        self._pause_at(hit)
        return hit

    def _finish_stepped(self) -> Hit | None:
        st = self._stepper
        while not st.done:
            self._last_leaf = st.step()
            if not st.done:
                hit = self._check_block()
                if hit is not None:
                    self._emit("block")
                    return hit
        return self._end_stepped()

    def _pause_at(self, hit: Hit) -> None:
        for bp in hit.breakpoints:
            bp.hits += 1
        self.last_hit = hit
        self.state = "paused"
        self._debt_ns = 0
        self._emit("hit")

    # -- breakpoints -------------------------------------------------------------------
    @property
    def breakpoints(self) -> list[Breakpoint]:
        return list(self._breakpoints)

    def check_condition(self, text: str) -> Condition:
        """Parse and compile ``text`` without adding it (a view validating as the
        user types); raises :class:`ConditionError`."""
        return compile_condition(text, self.program, _Prev(), self.table)

    def add_breakpoint(self, text: str, *, edge: bool = False,
                       enabled: bool = True) -> Breakpoint:
        """Add a breakpoint on condition ``text`` (see the module docstring's grammar);
        ``edge=True`` fires only where the condition turns true."""
        self._sync_prev()
        cond = compile_condition(text, self.program, self._prev, self.table)
        bp = Breakpoint(self._next_id, cond, edge, enabled)
        bp._was = bool(cond.fn(self.table))
        self._next_id += 1
        self._breakpoints.append(bp)
        self._emit("breakpoints")
        return bp

    def remove_breakpoint(self, bp: Breakpoint | int) -> None:
        target = self._find_breakpoint(bp)
        self._breakpoints.remove(target)
        self._emit("breakpoints")

    def enable_breakpoint(self, bp: Breakpoint | int, enabled: bool = True) -> None:
        target = self._find_breakpoint(bp)
        target.enabled = enabled
        target._was = bool(target.condition.fn(self.table))
        self._emit("breakpoints")

    def _find_breakpoint(self, bp: Breakpoint | int) -> Breakpoint:
        for candidate in self._breakpoints:
            if candidate is bp or candidate.id == bp:
                return candidate
        name = bp.id if isinstance(bp, Breakpoint) else bp
        raise FbdError(f"no breakpoint {name!r}; there are "
                       f"{', '.join(str(b.id) for b in self._breakpoints) or 'none'}")

    # -- signals ---------------------------------------------------------------------
    def info(self, path: str) -> SignalInfo:
        """Type, kind, slot of a path (raises UnknownSignal with suggestions)."""
        return self.program.signal(path)

    def get(self, path: str):
        return self.plc.get(path)

    def text(self, path: str) -> str:
        """The value of ``path`` as IEC text."""
        info = self.info(path)
        return format_value(info.type, info.const if info.slot is None else self.table[info.slot])

    def probe(self, paths: Iterable[str]) -> Probe:
        """A reader of ``paths`` straight from the table (see :class:`Probe`)."""
        return Probe(self.plc, [self.info(p) for p in paths])

    def complete(self, text: str, limit: int = 20) -> list[str]:
        """Paths for a completion box, best first: the path itself, then paths
        starting with ``text``, then paths with a part (after a dot) starting with
        it, then paths containing it; in each group the shallowest and shortest
        first. Case-insensitive."""
        if self._lower is None:
            self._lower = [(p.lower(), p) for p in self.program.signals]
        want = text.strip().lower()
        dotted = "." + want
        ranked = []
        for low, path in self._lower:
            if low == want:
                tier = 0
            elif low.startswith(want):
                tier = 1
            elif dotted in low:
                tier = 2
            elif want in low:
                tier = 3
            else:
                continue
            ranked.append((tier, low.count("."), len(path), path))
        ranked.sort()
        return [r[3] for r in ranked[:limit]]

    # -- watch list --------------------------------------------------------------------
    @property
    def watches(self) -> list[str]:
        return list(self._watches)

    def watch(self, path: str) -> None:
        """Add ``path`` to the watch list (once; unknown paths raise UnknownSignal)."""
        info = self.info(path)
        if info.path not in self._watches:
            self._watches.append(info.path)
            self._emit("watch")

    def unwatch(self, path: str) -> None:
        if path not in self._watches:
            raise FbdError(f"{path} is not in the watch list")
        self._watches.remove(path)
        self._emit("watch")

    def watch_values(self) -> list[WatchRow]:
        s = self.table
        forced = self.plc.main.forces
        rows = []
        for path in self._watches:
            info = self.program.signal(path)
            raw = info.const if info.slot is None else s[info.slot]
            rows.append(WatchRow(path, info.type.name if info.type else "storage",
                                 info.type.to_python(raw) if info.type else raw,
                                 format_value(info.type, raw),
                                 info.slot is not None and info.slot in forced))
        return rows

    # -- write and force ---------------------------------------------------------------
    def write(self, path: str, value) -> None:
        """Write a value once, now (a block that computes it overwrites it at its
        next run). ``value`` may be IEC text."""
        self.plc.write(path, value)
        self._emit("touched")
        self._emit("forces")

    def force(self, path: str, value) -> None:
        """Hold ``path`` at ``value`` until :meth:`unforce`, across scans and restarts."""
        self.plc.force(path, value)
        self._emit("touched")
        self._emit("forces")

    def unforce(self, path: str | None = None) -> None:
        """Release one force, or all of them."""
        self.plc.unforce(path)
        self._emit("forces")

    @property
    def forces(self) -> dict:
        """Every force: path -> value."""
        return self.plc.forces

    def is_forced(self, path: str) -> bool:
        info = self.info(path)
        return info.slot is not None and info.slot in self.plc.main.forces

    # -- trends ------------------------------------------------------------------------
    @property
    def trace(self) -> Trace | None:
        """The recording of the trended signals (None if none)."""
        return self._trace

    @property
    def trend_paths(self) -> list[str]:
        return list(self._trace.paths) if self._trace is not None else []

    def trend(self, paths: Iterable[str]) -> Trace | None:
        """Record ``paths`` after every scan from now on, the last
        :data:`TREND_CAPACITY` scans (a new recording: earlier samples go)."""
        paths = list(dict.fromkeys(paths))
        new = self.plc.trace(paths, capacity=TREND_CAPACITY) if paths else None
        if self._trace is not None:
            self.plc.untrace(self._trace)
        self._trace = new
        self._emit("trend")
        return new

    def add_trend(self, path: str) -> Trace:
        if path not in self.trend_paths:
            self.trend([*self.trend_paths, path])
        return self._trace

    def remove_trend(self, path: str) -> None:
        if path not in self.trend_paths:
            raise FbdError(f"{path} is not trended")
        self.trend([p for p in self.trend_paths if p != path])

    def export_csv(self, out: str | TextIO) -> None:
        """The trend as CSV: one row per scan (scan, time in s, each signal)."""
        self._recording().to_csv(out)

    def export_vcd(self, out: str | TextIO) -> None:
        """The trend as a Value Change Dump (GTKWave)."""
        self._recording().to_vcd(out)

    def _recording(self) -> Trace:
        if self._trace is None:
            raise FbdError("nothing is trended; trend(paths) chooses the signals to record")
        return self._trace

    def close(self) -> None:
        """Detach from the PLC (the trend recorder); the PLC runs on unchanged."""
        if self._trace is not None:
            self.plc.untrace(self._trace)
            self._trace = None
        self.listeners.clear()

    def __repr__(self) -> str:
        where = f", in scan at {self.current_block}" if self.in_scan else ""
        return (f"<Debugger {self.program.name}: {self.state}{where}, {self.scans} scans, "
                f"t={self.time:.3f}s, {len(self._breakpoints)} breakpoints>")
