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
    guard), both paused and synchronous. :meth:`~Debugger.run_to_break` is
    the same run in slices, for a window: ``advance`` runs it as fast as its
    budget allows until a hit, :data:`TO_BREAK_LIMIT` scans or a pause;
    ``to_break`` (a :class:`~.tobreak.ToBreak`) says how far it is, and when
    it ends without a hit ``to_break_outcome`` says why (event
    ``"to_break"``). :meth:`~Debugger.restart` is the
    warm restart, ``restart(cold=True)`` the cold one (see there for what
    each keeps). The debugger owns the PLC's pacing: while it is open,
    nothing else should call ``plc.scan`` (an application shell pauses its
    own loop), and during a scan stepped into the PLC refuses to run.
    :meth:`~Debugger.close` finishes a scan stepped into and detaches it (a
    fault while finishing it puts the PLC in FAULT, as below).

A fault
    A scan that raises (an index out of bounds, the watchdog, ...) puts the
    PLC in FAULT (:mod:`fbd.runtime.faults`): the debugger pauses, abandons a
    scan stepped into and tells the views (``"fault"``); :attr:`~Debugger.fault`
    says what and where. Nothing runs until :meth:`~Debugger.restart` (a run
    or a step raises :class:`~fbd.runtime.faults.PlcFault` saying so).

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

ST, IL and SFC POUs
    Line breakpoints (:meth:`~Debugger.add_line_breakpoint`, in ``breakpoints``
    with the others), :meth:`~Debugger.step_line`, the calls paused inside a POU
    (``frames``, ``current_line``) and their values (:meth:`~Debugger.live`),
    the source view's rows (:meth:`~Debugger.source`) and an SFC chart's steps
    (:meth:`~Debugger.sfc_steps`): see :mod:`fbd.debug.source`.

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
    (a block was stepped), ``"to_break"`` (a run to a breakpoint ended
    without a hit), ``"hit"``, ``"breakpoints"``, ``"watch"``,
    ``"forces"``, ``"trend"``, ``"restart"``, ``"fault"``, and ``"touched"`` just before
    ``"forces"`` when a value was written or forced (a game's host marks the
    game: it sets no record). Called synchronously, on the caller's thread; a
    Qt view forwards them to a signal.

Breakpoint conditions are parsed and compiled by :mod:`fbd.debug.condition`.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable

from ..compiler.pycode import ScanProgram
from ..errors import FbdError
from ..runtime.faults import Fault, PlcFault
from ..runtime.plc import Plc
from ..runtime.task import ScanStats
from .breakpoints import Breakpoint, Breakpoints, Hit
from .condition import FUNCTIONS, Condition, ConditionError, compile_condition
from .lines import Frame, LineBreakpoint, LineBreakpoints
from .pacing import MAX, Pacer
from .probe import MainSignals, PathCompleter, Probe, WatchRow, format_value, literal_text
from .signals import SignalAccess
from .source import SourceDebugging, SourceLine, StepState
from .stepping import BlockStepper
from .tobreak import TO_BREAK_LIMIT, ToBreak
from .trend import TREND_CAPACITY, Trend, Trending

__all__ = ["Debugger", "Breakpoint", "Hit", "Probe", "WatchRow", "ConditionError",
           "Condition", "compile_condition", "format_value", "literal_text", "MAX",
           "TREND_CAPACITY", "TO_BREAK_LIMIT", "FUNCTIONS", "LineBreakpoint", "Frame",
           "SourceLine", "StepState"]

# =========================================================================== the model
class Debugger(SignalAccess, SourceDebugging, Trending):
    """The debugger's model over a running :class:`~fbd.runtime.Plc` (see the
    module's docstring for the whole API; signals by path, the watch list and
    forces are :class:`~.signals.SignalAccess`'s, the ST side, line breakpoints
    and stepping by statement, :class:`~.source.SourceDebugging`'s, the trend
    :class:`~.trend.Trending`'s).

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
        self.plc = plc
        self._pacer = Pacer(max_scans, budget_s, clock)
        self.listeners: list[Callable[[str], None]] = []
        self.state = "paused"
        self._breakpoints = Breakpoints(self.table, plc.scans)
        self._lines = LineBreakpoints(self._breakpoints.new_id)
        self._stepping = BlockStepper(plc, self._breakpoints, self._lines)
        self.last_hit: Hit | None = None
        self.to_break: ToBreak | None = None       # a run to a breakpoint in progress
        self.to_break_outcome: str | None = None   # how the last one ended, without a hit
        self._watches: list[str] = []
        self._trend = Trend(plc)
        self._completer: PathCompleter | None = None
        self._signals = MainSignals(plc)
        plc.state_listeners.append(self._plc_changed)

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
    def run_state(self) -> str:
        """What the PLC is doing, in the words a status bar shows: ``RUNNING``, ``RUNNING
        TO BREAK``, ``PAUSED IN SCAN`` (a scan stepped into), ``PAUSED``, or ``FAULT``
        (:attr:`fault` says why). The one place the views read it from."""
        if self.fault is not None:
            return "FAULT"
        if self.state == "running":
            return "RUNNING TO BREAK" if self.to_break is not None else "RUNNING"
        return "PAUSED IN SCAN" if self.in_scan else "PAUSED"

    @property
    def speed(self) -> float:
        """Simulated seconds per wall second while running: 1.0 real time, 10.0,
        or :data:`MAX` (as fast as the ``budget_s`` allows)."""
        return self._pacer.speed

    @speed.setter
    def speed(self, value: float) -> None:
        self._pacer.speed = value
        self._emit("state")

    @property
    def dropped_scans(self) -> int:
        """Scans due at the set speed but not run (over a cap of :meth:`advance`)."""
        return self._pacer.dropped_scans

    @property
    def fault(self) -> Fault | None:
        """What put the PLC in FAULT (None while it is not)."""
        return self.plc.fault

    @property
    def in_scan(self) -> bool:
        """A scan is being stepped into."""
        return self._stepping.active

    @property
    def current_block(self) -> str | None:
        """The block the next :meth:`step_into` runs (None outside a scan)."""
        leaf = self._stepping.next_leaf
        return None if leaf is None else self.program.leaves[leaf].path

    @property
    def last_block(self) -> str | None:
        """The block the last :meth:`step_into` ran, in the scan in progress."""
        leaf = self._stepping.last_leaf if self.in_scan else None
        return None if leaf is None else self.program.leaves[leaf].path

    @property
    def block_position(self) -> tuple[int, int]:
        """(blocks run, blocks in the scan) of the scan stepped into; (0, n) outside."""
        n = len(self.program.order)
        return (self._stepping.position, n)

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
        self.plc.require_running("run")
        hit = self._finish_stepped() if self.in_scan else None
        if hit is None:
            self.state = "running"
            self._pacer.debt_ns = 0
            self._emit("state")
        return hit

    def run_to_break(self, max_scans: int = TO_BREAK_LIMIT) -> Hit | None:
        """Run until a breakpoint holds, in slices: each :meth:`advance` runs as many
        scans as fit its budget (at any :attr:`speed`), until a hit, ``max_scans``
        scans (then ``to_break_outcome`` says so) or :meth:`pause`. A scan stepped
        into is finished first; if a breakpoint holds in it, nothing more runs."""
        if max_scans < 1:
            raise FbdError(f"cannot run to a breakpoint for {max_scans} scans")
        hit = self.run()
        if hit is None:
            self.to_break = ToBreak(max_scans, self.scans, self.time_us)
            self.to_break_outcome = None
        return hit

    def pause(self) -> None:
        if self.to_break is not None:
            self._end_to_break(self.to_break.stopped(self.scans, self.time_us))
        if self.state != "paused":
            self.state = "paused"
            self._pacer.debt_ns = 0
            self._emit("state")

    def advance(self, wall_seconds: float) -> Hit | None:
        """Run the scans due after ``wall_seconds`` of wall time at :attr:`speed`
        (the GUI timer's call; nothing while paused), within ``max_scans`` and
        ``budget_s`` (see :mod:`.pacing`); running to a breakpoint, as many as the
        budget allows. Returns the hit that paused it."""
        if self.state != "running":
            return None
        to_break = self.to_break
        if to_break is not None:
            due = min(self._pacer.max_scans, to_break.left(self.scans))
        else:
            due = self._pacer.due(wall_seconds, self.plc.main.cycle_us)
        if due == 0:
            return None
        try:
            hit = self._pacer.run(due, self._counted_scans, owed=to_break is None)
        except PlcFault:
            return None      # paused, and the views told, by _plc_changed
        self._emit("scan")
        if hit is not None:
            self._pause_at(hit)
        elif to_break is not None and to_break.left(self.scans) == 0:
            self._end_to_break(to_break.gave_up(self.scans, self.time_us))
            self.pause()
        return hit

    def _end_to_break(self, outcome: str) -> None:
        self.to_break = None
        self.to_break_outcome = outcome
        self._emit("to_break")

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
            self._stepping.begin()
            self._emit("block")
            return None
        return self._stepped(*self._stepping.step())

    def finish_scan(self) -> Hit | None:
        """Run the rest of the scan stepped into, block by block, checking the
        breakpoints after each; stop at the block where one holds."""
        if not self.in_scan:
            raise FbdError("no scan is being stepped into, so there is nothing to finish "
                           "(Step into begins one)")
        self.pause()
        return self._finish_stepped()

    def restart(self, cold: bool = False) -> None:
        """Pause and restart the program.

        Warm (the default): every variable of the program returns to its initial
        value but the RETAIN and PERSISTENT ones, which keep theirs (a cold
        restart keeps the PERSISTENT ones only: docs/retain.md); a scan stepped
        into is abandoned. Kept: the forces (re-applied), the inputs
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
        if cold:
            for task in self.plc.tasks:
                task.stats = ScanStats(task.cycle_us)
            self._trend.clear()
            self.last_hit = None
            self._breakpoints.clear_hits()
            self._lines.clear_hits()
        self.plc.restart(cold=cold)      # _plc_changed does the rest

    def _plc_changed(self, _plc, change: str) -> None:
        """The PLC changed state, from here or elsewhere (a Modbus client's restart)."""
        if change == "fault":
            self._stepping.abandon()
            self.pause()
            self._emit("fault")
        elif change.endswith("restart"):
            self._stepping.abandon()
            self._breakpoints.restarted(self.table, self.plc.scans)
            self._emit("restart")
        else:
            self._emit("state")

    # -- running: internals ------------------------------------------------------------
    def _sync_prev(self) -> None:
        self._breakpoints.sync_prev(self.table, self.plc.scans)

    def _counted_scans(self, n: int) -> tuple[int, Hit | None]:
        before = self.plc.scans
        hit = self._run_scans(n)
        return self.plc.scans - before, hit

    def _run_scans(self, n: int) -> Hit | None:
        """``n`` whole scans in one batched run; with breakpoints, a recorder checks
        them after every scan and halts the run at the first hit. With a line
        breakpoint enabled, scan by scan, ST blocks statement by statement."""
        if self._lines.armed:
            self._sync_prev()
            return self._stepping.run_scans(n)[1]
        checker = self._breakpoints.checker(self.plc)
        if checker is None:
            self.plc.scan(n)
            return None
        self._sync_prev()
        traces = self.plc.main.traces
        traces.append(checker)
        try:
            self.plc.scan(n)
        finally:
            traces.remove(checker)
        return checker.hit

    def _finish_stepped(self) -> Hit | None:
        return self._stepped(*self._stepping.finish())

    def _stepped(self, ended: bool, hit: Hit | None) -> Hit | None:
        """Tell the views what stepping did: the scan ended, a breakpoint fired at
        a block or at the scan's end."""
        if ended:
            self._emit("scan")
        if hit is not None:
            self._pause_at(hit)
        if not ended:
            self._emit("block")
        return hit

    def _pause_at(self, hit: Hit) -> None:
        for bp in hit.breakpoints:
            bp.hits += 1
        self.last_hit = hit
        self.to_break = None
        self.state = "paused"
        self._pacer.debt_ns = 0
        self._emit("hit")

    # -- breakpoints -------------------------------------------------------------------
    @property
    def breakpoints(self) -> list:
        """Every breakpoint, on a condition or on a line, in the order they were added."""
        return sorted(self._breakpoints.all() + self._lines.all(), key=lambda bp: bp.id)

    def check_condition(self, text: str) -> Condition:
        """Parse and compile ``text`` without adding it (a view validating as the
        user types); raises :class:`ConditionError`."""
        return Breakpoints.check(text, self._signals, self.table)

    def add_breakpoint(self, text: str, *, edge: bool = False,
                       enabled: bool = True) -> Breakpoint:
        """Add a breakpoint on condition ``text`` (see the module docstring's grammar);
        ``edge=True`` fires only where the condition turns true."""
        self._sync_prev()
        bp = self._breakpoints.add(text, self._signals, self.table, edge, enabled)
        self._emit("breakpoints")
        return bp

    def remove_breakpoint(self, bp: Breakpoint | LineBreakpoint | int) -> None:
        if self._lines.owns(bp):
            self._lines.remove(bp)
        else:
            self._breakpoints.remove(bp)
        self._emit("breakpoints")

    def enable_breakpoint(self, bp: Breakpoint | LineBreakpoint | int,
                          enabled: bool = True) -> None:
        if self._lines.owns(bp):
            self._lines.enable(bp, enabled)
        else:
            self._breakpoints.enable(bp, enabled, self.table)
        self._emit("breakpoints")

    # -- online change -------------------------------------------------------------------
    def preview_change(self, new):
        """What :meth:`online_change` would keep, convert, initialise and drop
        (a :class:`~fbd.runtime.online.Change`); changes nothing."""
        from .online import preview_change
        return preview_change(self, new)

    def online_change(self, new):
        """Pause and load ``new`` (a Network or a compiled program) into the PLC at a
        scan boundary, keeping what matches; breakpoints, watches and the trend
        follow (:mod:`fbd.debug.online`). Emits ``"program"``."""
        from .online import online_change
        return online_change(self, new)

    def close(self) -> None:
        """Detach from the PLC (the trend recorder) so it can run on without the
        debugger. A scan stepped into is finished first, to its end, with no stop
        (breakpoints do not fire): a PLC left in the middle of a scan could not run.
        If finishing it fails (a block's run-time fault), the PLC is in FAULT, which
        says why, and the scan is abandoned; a restart runs the PLC again."""
        try:
            if self.in_scan:
                self._stepping.complete()
        except PlcFault:
            pass        # the PLC is in FAULT and tells its listeners; nothing is half run
        finally:
            self._trend.close()
            if self._plc_changed in self.plc.state_listeners:
                self.plc.state_listeners.remove(self._plc_changed)
            self.listeners.clear()

    def __repr__(self) -> str:
        where = f", in scan at {self.current_block}" if self.in_scan else ""
        return (f"<Debugger {self.program.name}: {self.state}{where}, {self.scans} scans, "
                f"t={self.time:.3f}s, {len(self._breakpoints)} breakpoints>")
