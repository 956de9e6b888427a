"""The debugger's trend: the signals it records after every scan, the last
:data:`TREND_CAPACITY` scans, and their export (CSV, VCD for GTKWave)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
            raise FbdError("nothing is trended yet, so there is nothing to export: choose the "
                           "signals to record first (type a path on the Trends tab, then Trend)")
        return self.trace

    def export_csv(self, out: str | TextIO) -> None:
        self.recording().to_csv(out)

    def export_vcd(self, out: str | TextIO) -> None:
        self.recording().to_vcd(out)

    def close(self) -> None:
        if self.trace is not None:
            self.plc.untrace(self.trace)
            self.trace = None


class Trending:
    """The debugger's trend API (a base class of :class:`~.debugger.Debugger`,
    over its ``_trend`` and ``_emit``)."""

    _trend: Trend
    canonical: Callable[[str], str]
    locate: Callable[[str], tuple]

    @property
    def trace(self) -> Trace | None:
        """The recording of the trended signals (None if none)."""
        return self._trend.trace

    @property
    def trend_paths(self) -> list[str]:
        return self._trend.paths

    def trend(self, paths: Iterable[str]) -> Trace | None:
        """Record ``paths`` after every scan from now on, the last
        :data:`TREND_CAPACITY` scans (a new recording: earlier samples go). The
        signals are the main task's (a trend samples after its scans)."""
        paths = list(paths)
        other = [self.canonical(p) for p in paths if self.locate(p)[0] is not self.plc.main]
        paths = [self.canonical(p) for p in paths]
        if other:
            raise FbdError(f"{other[0]} is another task's signal; a trend records the main "
                           f"task's (watch it instead)")
        new = self._trend.record(paths)
        self._emit("trend")
        return new

    def add_trend(self, path: str) -> Trace:
        path = self.canonical(path)
        if path not in self.trend_paths:
            self.trend([*self.trend_paths, path])
        return self.trace

    def remove_trend(self, path: str) -> None:
        path = self.canonical(path)
        if path not in self.trend_paths:
            raise FbdError(f"{path} is not trended")
        self.trend([p for p in self.trend_paths if p != path])

    def export_csv(self, out: str | TextIO) -> None:
        """The trend as CSV: one row per scan (scan, time in s, each signal)."""
        self._trend.export_csv(out)

    def export_vcd(self, out: str | TextIO) -> None:
        """The trend as a Value Change Dump (GTKWave)."""
        self._trend.export_vcd(out)


__all__ = ["TREND_CAPACITY", "Trend", "Trending"]
