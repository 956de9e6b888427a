"""A scan stepped into block by block, or statement by statement, for the debugger.

The PLC begins the scan (inputs latched, nothing run) and runs one block per
call; after each block the breakpoints that block made true fire, and the
block that is the scan's last also ends it as a normal scan ends, when the
breakpoints are checked once more (each fires once per scan). What a hit
does (pause, tell the views) is the :class:`~.debugger.Debugger`'s.

An ST block runs statement by statement (:class:`~.lines.LeafRun`) when a
line breakpoint may fire inside it (its POU, or one it calls, has one
enabled) or when stepping by line; otherwise with its compiled code. Either
way its outputs and state reach the table when it returns. A line breakpoint
fires whatever runs the statement: a run, a step of scans, step into, finish
or step line.

A scan stepped into belongs to the PLC, not to one debugger: a debugger made on
a PLC whose scan another left half-run takes it over (:func:`stepped_scan`),
so *Finish* there finishes it; :meth:`BlockStepper.complete` runs it to its
end with no stop, which a debugger does as it closes so the PLC can run on.
"""

from __future__ import annotations

from ..runtime.plc import SteppedScan
from ..values import NS_PER_US
from .breakpoints import Breakpoints, Hit
from .lines import Frame, LeafRun, LineBreakpoints, leaf_generator, st_info

_PAUSED = object()      # _block stopped at a statement because stepping by line asked


def stepped_scan(plc) -> SteppedScan | None:
    """The PLC's scan being stepped into, if any (whoever began it)."""
    # Plc keeps it private: the debuggers are the only ones that step into scans
    scan = getattr(plc, "_stepping", None)
    return scan if isinstance(scan, SteppedScan) and scan.active else None


class BlockStepper:
    """The scan in progress, if any, the block it ran last, and the ST block call
    paused inside (its frames)."""

    def __init__(self, plc, breakpoints: Breakpoints, lines: LineBreakpoints):
        self.plc = plc
        self.breakpoints = breakpoints
        self.lines = lines
        self._scan: SteppedScan | None = stepped_scan(plc)
        self._run: LeafRun | None = None
        self.last_leaf: int | None = None
        self._generators: dict = {}      # (leaf, forced slots) -> the leaf's stepped code
        self._reach: dict[int, set[str]] = {}   # leaf -> fn_name of every POU it may run
        self._written: dict[int, object] = {}   # slot -> value written while paused inside

    @property
    def active(self) -> bool:
        st = self._scan
        if st is not None and not st.active:  # finished, or abandoned by a restart
            self._scan = st = None
            self._run = None
        return st is not None

    @property
    def next_leaf(self) -> int | None:
        return self._scan.next_leaf if self.active else None

    @property
    def position(self) -> int:
        return self._scan.position if self.active else 0

    @property
    def frames(self) -> list[Frame]:
        """The POU calls paused at a statement, outermost first ([] between blocks)."""
        run = self._run
        return list(run.frames) if run is not None and self.active and not run.done else []

    def written(self, slot: int) -> None:
        """A value was written into ``slot`` while a call is paused inside: the call's
        return would overwrite it with what the call holds, so it is written again then."""
        if self.frames:
            self._written[slot] = self.plc.main.s[slot]

    def begin(self) -> None:
        self._scan = self.plc.step_into()
        self._run = None
        self.last_leaf = None
        self.breakpoints.begin_scan(self.plc.main.s)

    def abandon(self) -> None:
        self._scan = None
        self._run = None
        self._written.clear()
        self.last_leaf = None

    def complete(self) -> None:
        """Run the rest of the scan in progress to its end, with no stop (no breakpoint
        fires, nothing is counted as a hit): the rest of an ST call paused inside, then
        the blocks left as compiled, then the scan's end."""
        st = self._scan
        run = self._run
        if run is not None:
            while self._resume(run):
                pass
            self._returned(run)
        st.finish()
        self.abandon()

    # -- stepping -------------------------------------------------------------------------
    def step(self) -> tuple[bool, Hit | None]:
        """Run the current block (the rest of it, if paused inside): (whether that ended
        the scan, the hit if any)."""
        st = self._scan
        if not st.done:
            hit = self._block(None)
            if hit is not None:
                return False, hit
        if st.done:
            return True, self._end()
        return False, self._after_block()

    def finish(self) -> tuple[bool, Hit | None]:
        """Run the rest of the scan, stopping after the block where a breakpoint fires
        (or before the statement where a line breakpoint does)."""
        st = self._scan
        while not st.done:
            hit = self._block(None)
            if hit is not None:
                return False, hit
            if not st.done:
                hit = self._after_block()
                if hit is not None:
                    return False, hit
        return True, self._end()

    def step_line(self, over: bool) -> tuple[bool, Hit | None]:
        """Run to the next statement of an ST POU (``over``: not one inside a POU the
        current statement calls, unless a line breakpoint fires there), or to the end
        of the scan if no statement is left in it."""
        st = self._scan
        depth = len(self.frames) if over and self.frames else None
        while not st.done:
            outcome = self._block(_stop_at(depth), stepping=True)
            if outcome is _PAUSED:
                return False, None
            if outcome is not None:
                return False, outcome
            depth = None            # the block returned: the next statement anywhere
            if not st.done:
                hit = self._after_block()
                if hit is not None:
                    return False, hit
        return True, self._end()

    def run_scans(self, n: int) -> tuple[int, Hit | None]:
        """``n`` whole scans, ST blocks statement by statement where a line breakpoint
        may fire; conditions are checked after each scan (as in a compiled run).
        Returns (scans completed, the hit that paused it)."""
        for k in range(n):
            self.begin()
            st = self._scan
            while not st.done:
                hit = self._block(None)
                if hit is not None:
                    return k, hit
            hit = self._end()
            if hit is not None:
                return k + 1, hit
        return n, None

    # -- one block ------------------------------------------------------------------------
    def _block(self, stop, stepping: bool = False):
        """Run (or go on with) the current block. An ST block that may stop runs
        statement by statement: a line breakpoint's hit, or ``_PAUSED`` where
        ``stop(frames)`` holds, leaves it paused at that statement; None: it returned."""
        st = self._scan
        run = self._run
        if run is None:
            index = st.next_leaf
            leaf = self.plc.main.program.leaves[index]
            info = st_info(leaf.block)
            if info is None or not (stepping or self._may_break(index, info)):
                self.last_leaf = st.step()
                return None
            gen = self._generator(index)(self.plc.main.s, st.now_us * NS_PER_US)
            run = self._run = LeafRun(gen, info, leaf.path)
        while self._resume(run):
            frame = run.frames[-1]
            fired = self.lines.fired(frame) if self.lines.armed else None
            if fired:
                return Hit(tuple(fired), self.plc.scans + 1, st.now_us,
                           self.plc.main.program.leaves[st.next_leaf].path,
                           line=frame.line, instance=frame.instance, pou=frame.pou.label)
            if stop is not None and stop(run.frames):
                return _PAUSED
        self._returned(run)
        return None

    def _returned(self, run: LeafRun) -> None:
        """An ST block's call returned: counted as run, writes made while paused inside
        it applied again, forces re-applied."""
        self._run = None
        self.last_leaf = self._scan.ran(run.ns)
        task = self.plc.main
        for slot, value in self._written.items():
            task.s[slot] = value
        self._written.clear()
        for slot, value in task.forces.items():     # a force set while paused inside holds
            task.s[slot] = value

    def _resume(self, run: LeafRun) -> bool:
        try:
            return run.resume()
        except Exception as e:
            # the POU stopped the scan (a watchdog, an index out of bounds): the PLC
            # is in FAULT, as when a compiled scan raises
            self._run = None
            self._written.clear()
            raise self._scan.fail(e) from e

    def _may_break(self, index: int, info) -> bool:
        if not self.lines.armed:
            return False
        reach = self._reach.get(index)
        if reach is None:
            from ..st.debugcode import pou_functions
            reach, todo = set(), [info]
            while todo:
                pou = todo.pop()
                if pou.fn_name not in reach:
                    reach.add(pou.fn_name)
                    todo.extend(pou_functions(pou).values())
            self._reach[index] = reach
        return not reach.isdisjoint(self.lines.pous())

    def _generator(self, index: int):
        program = self.plc.main.program
        key = (index, frozenset(program.forced))
        fn = self._generators.get(key)
        if fn is None:
            fn = self._generators[key] = leaf_generator(program, index)
        return fn

    def _after_block(self) -> Hit | None:
        fired = self.breakpoints.after_block(self.plc.main.s)
        if not fired:
            return None
        path = self.plc.main.program.leaves[self.last_leaf].path
        return Hit(tuple(fired), self.plc.scans + 1, self._scan.now_us, path)

    def _end(self) -> Hit | None:
        st = self._scan
        st.finish()
        self.abandon()
        fired = self.breakpoints.after_scan(self.plc.main.s, self.plc.scans)
        return Hit(tuple(fired), self.plc.scans, st.now_us) if fired else None


def _stop_at(depth: int | None):
    """Stop at any statement (None), or at one of a call at most ``depth`` deep."""
    if depth is None:
        return lambda _frames: True
    return lambda frames: len(frames) <= depth


__all__ = ["BlockStepper", "stepped_scan"]
