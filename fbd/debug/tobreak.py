"""Running until a breakpoint holds, in slices the caller can watch and stop.

*To break* may run for a long time: a breakpoint that never holds, a program
whose ST blocks run statement by statement. So it is a run like *Run* (the
GUI timer's :meth:`~.debugger.Debugger.advance` does the scans, as many as
fit its wall-time budget per call, and the window stays live), at the
fastest speed, that stops by itself at a hit or after :data:`TO_BREAK_LIMIT`
scans, or when paused. :class:`ToBreak` counts it and says what happened in
the user's terms: scans and PLC time.
"""

from __future__ import annotations

#: the scans *To break* runs at most before it gives up
TO_BREAK_LIMIT = 1_000_000


class ToBreak:
    """One run to a breakpoint: its limit and where it began."""

    def __init__(self, limit: int, scans: int, time_us: int):
        self.limit = limit
        self.first_scan = scans
        self.start_us = time_us

    def done(self, scans: int) -> int:
        """Scans run so far."""
        return scans - self.first_scan

    def left(self, scans: int) -> int:
        return max(0, self.limit - self.done(scans))

    def progress(self, scans: int, time_us: int) -> str:
        return (f"to break: {self.done(scans):,} of {self.limit:,} scans "
                f"({plc_duration(time_us - self.start_us)} of PLC time)")

    def gave_up(self, scans: int, time_us: int) -> str:
        return (f"no breakpoint hit in {self.done(scans):,} scans "
                f"({plc_duration(time_us - self.start_us)} of PLC time); To break stops "
                f"there so a condition that never holds cannot run forever")

    def stopped(self, scans: int, time_us: int) -> str:
        return (f"To break stopped after {self.done(scans):,} scans "
                f"({plc_duration(time_us - self.start_us)} of PLC time), no breakpoint hit")


def plc_duration(us: int) -> str:
    """A span of simulated time for a person: ``40 ms``, ``5.2 s``, ``1.2 min``, ``83 min``, ``2 h 5 min``."""
    if us < 1_000_000:
        return f"{us / 1000:g} ms"
    seconds = us / 1e6
    if seconds < 60:
        return f"{seconds:.3g} s"
    if seconds < 600:
        return f"{seconds / 60:.2g} min"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


__all__ = ["ToBreak", "TO_BREAK_LIMIT", "plc_duration"]
