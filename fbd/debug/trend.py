"""The debugger's trend: the signals it records after every scan, the last
:data:`TREND_CAPACITY` scans, and their export (CSV, VCD for GTKWave)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from ..errors import FbdError
from ..runtime.trace import Trace

#: scans a trend keeps
TREND_CAPACITY = 10_000


class Trend:
    """One recording at a time on a PLC; changing its signals starts a new one."""

    def __init__(self, plc):
        self.plc = plc
        self.trace: Trace | None = None   # None: nothing is trended

    @property
    def paths(self) -> list[str]:
        return list(self.trace.paths) if self.trace is not None else []

    def record(self, paths: Iterable[str]) -> Trace | None:
        """Record ``paths`` from now on (a new recording: earlier samples go)."""
        paths = list(dict.fromkeys(paths))
        new = self.plc.trace(paths, capacity=TREND_CAPACITY) if paths else None
        if self.trace is not None:
            self.plc.untrace(self.trace)
        self.trace = new
        return new

    def clear(self) -> None:
        if self.trace is not None:
            self.trace.clear()

    def recording(self) -> Trace:
        if self.trace is None:
            raise FbdError("nothing is trended; trend(paths) chooses the signals to record")
        return self.trace

    def export_csv(self, out: str | TextIO) -> None:
        self.recording().to_csv(out)

    def export_vcd(self, out: str | TextIO) -> None:
        self.recording().to_vcd(out)

    def close(self) -> None:
        if self.trace is not None:
            self.plc.untrace(self.trace)
            self.trace = None


__all__ = ["TREND_CAPACITY", "Trend"]
