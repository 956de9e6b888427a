"""Running a compiled program: the :class:`Plc` (scan cycle on simpy, tasks,
forcing, real time) and :class:`~fbd.runtime.trace.Trace` (signals recorded per scan)."""

from .plc import Plc, ScanStats, SteppedScan, Task, to_us
from .trace import Trace

__all__ = ["Plc", "Task", "ScanStats", "SteppedScan", "Trace", "to_us"]
