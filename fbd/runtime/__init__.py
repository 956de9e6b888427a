"""Running a compiled program: the :class:`Plc` (scan cycle on simpy, tasks,
forcing, real time; RUN, STOP and FAULT, :mod:`.faults`) and
:class:`~fbd.runtime.trace.Trace` (signals recorded per scan)."""

from .faults import Fault, PlcFault, PlcState
from .plc import Plc, ScanStats, SteppedScan, Task, to_us
from .trace import Trace

__all__ = ["Plc", "PlcState", "PlcFault", "Fault", "Task", "ScanStats", "SteppedScan", "Trace",
           "to_us"]
