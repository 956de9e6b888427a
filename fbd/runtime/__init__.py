"""Running a compiled program: the :class:`Plc` (scan cycle on simpy, tasks,
forcing, real time; RUN, STOP and FAULT, :mod:`.faults`),
:class:`~fbd.runtime.trace.Trace` (signals recorded per scan), and a project's
configuration run as one Plc (:mod:`fbd.runtime.configuration`, its names in
:mod:`fbd.runtime.names`)."""

from .faults import Fault, PlcFault, PlcState
from .plc import Plc, SteppedScan, to_us
from .task import ScanStats, Task
from .trace import Trace

__all__ = ["Plc", "PlcState", "PlcFault", "Fault", "Task", "ScanStats", "SteppedScan", "Trace",
           "to_us"]
