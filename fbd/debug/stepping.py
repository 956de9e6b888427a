"""A scan stepped into block by block, for the debugger.

The PLC begins the scan (inputs latched, nothing run) and runs one block per
call; after each block the breakpoints that block made true fire, and the
block that is the scan's last also ends it as a normal scan ends, when the
breakpoints are checked once more (each fires once per scan). What a hit
does (pause, tell the views) is the :class:`~.debugger.Debugger`'s.
"""

from __future__ import annotations

from ..runtime.plc import SteppedScan
from .breakpoints import Breakpoints, Hit


class BlockStepper:
    """The scan in progress, if any, and the block it ran last."""

    def __init__(self, plc, breakpoints: Breakpoints):
        self.plc = plc
        self.breakpoints = breakpoints
        self._scan: SteppedScan | None = None
        self.last_leaf: int | None = None

    @property
    def active(self) -> bool:
        st = self._scan
        if st is not None and not st.active:  # finished, or abandoned by a restart
            self._scan = st = None
        return st is not None

    @property
    def next_leaf(self) -> int | None:
        return self._scan.next_leaf if self.active else None

    @property
    def position(self) -> int:
        return self._scan.position if self.active else 0

    def begin(self) -> None:
        self._scan = self.plc.step_into()
        self.last_leaf = None
        self.breakpoints.begin_scan(self.plc.main.s)

    def abandon(self) -> None:
        self._scan = None
        self.last_leaf = None

    def step(self) -> tuple[bool, Hit | None]:
        """Run the current block: (whether that ended the scan, the hit if any)."""
        st = self._scan
        if not st.done:
            self.last_leaf = st.step()
        if st.done:
            return True, self._end()
        return False, self._after_block()

    def finish(self) -> tuple[bool, Hit | None]:
        """Run the rest of the scan, stopping after the block where a breakpoint fires."""
        st = self._scan
        while not st.done:
            self.last_leaf = st.step()
            if not st.done:
                hit = self._after_block()
                if hit is not None:
                    return False, hit
        return True, self._end()

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


__all__ = ["BlockStepper"]
