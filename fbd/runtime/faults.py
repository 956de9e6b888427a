"""The PLC's operating state, RUN, STOP or FAULT, and the record of a fault.

A scan that raises (an array index out of bounds, the loop watchdog, a trap
of the native engine, any error of a block) stops the *program*, never the
process: the PLC goes to FAULT with a :class:`Fault` saying what stopped it
and where, runs no scan until it is restarted, and everything around it (a
Modbus server, the HMI, the debugger) goes on, as CODESYS stops an
application that raises an exception, shows it and keeps communicating. A
fault in one task's program stops every task, as matiec's single runtime
and CODESYS's application do.

The outputs hold the values the last complete scan published (the faulting
scan never published), unless the PLC was made with ``on_fault="zero"``:
then every output not forced goes to its type's initial value (FALSE, 0,
0.0, T#0s, ''), the de-energised state of a real output card. The choices
and their reasons: docs/faults.md.

The transitions (:class:`fbd.Plc`)::

    RUN  --stop()-->  STOP  --start()-->  RUN
    RUN  --a scan raises-->  FAULT
    any  --restart(cold=True|False, origin=False|True)-->  RUN

``stop()`` in FAULT leaves the fault in place, ``start()`` in FAULT is refused:
the scan that raised left its variables half done, so only a restart (every
variable from its initial value) runs the program again.
"""

from __future__ import annotations

import enum
import traceback
from collections import deque
from dataclasses import dataclass

from ..errors import FbdError, ScanError

__all__ = ["PlcState", "Fault", "PlcFault", "Operation", "FAULT_CODES", "ON_FAULT",
           "REQUESTS"]


class PlcState(str, enum.Enum):
    """The PLC's operating state (a ``str``: ``plc.state == "RUN"`` holds)."""
    RUN = "RUN"
    STOP = "STOP"
    FAULT = "FAULT"

    def __str__(self) -> str:
        return self.value


#: A fault's kind -> the number a Modbus client reads for it (0: no fault).
FAULT_CODES = {"index": 1, "watchdog": 2, "trap": 3, "error": 4, "exception": 5}
#: What the outputs do in FAULT: hold the last scan's values, or go to zero.
ON_FAULT = ("hold", "zero")
#: What another thread may ask of the PLC (:meth:`Operation.request`).
REQUESTS = ("start", "stop", "warm restart", "cold restart")


@dataclass(frozen=True)
class Fault:
    """What stopped the PLC, and where.

    ``kind``: ``"index"`` (an array index out of bounds), ``"watchdog"`` (a loop
    over its budget of iterations), ``"trap"`` (the native engine met what the
    Python engine raises on), ``"error"`` (any other :class:`~fbd.errors.FbdError`
    of a block), ``"exception"`` (a Python exception that is not one: a bug of
    a block or of fbd, reported rather than crashing). ``scan`` is the number
    the failed scan of ``task`` would have had; ``time_us`` the PLC time it ran
    at. ``block`` is the path of the block that raised, when it is known;
    ``pou``, ``file`` and ``line`` the text POU and its line, when the fault
    comes from one (``"PROGRAM prg"``, ``"prog.st"``, 7).
    """
    kind: str
    message: str
    scan: int
    task: str
    time_us: int
    block: str | None = None
    pou: str | None = None
    file: str | None = None
    line: int | None = None

    @classmethod
    def of(cls, error: BaseException, *, scan: int, task: str, time_us: int,
           block: str | None = None) -> Fault:
        """The fault a scan of ``task`` raising ``error`` makes."""
        if isinstance(error, ScanError):
            kind, pou, file, line = error.kind, error.pou, error.file, error.line
        else:
            kind, pou, file, line = _kind(error), None, None, None
        block = block or getattr(error, "path", None)
        message = str(error) if isinstance(error, FbdError) else \
            f"{type(error).__name__}: {error}" + _origin(error)
        return cls(kind, " ".join(message.split()), scan, task, time_us, block, pou, file, line)

    @property
    def code(self) -> int:
        return FAULT_CODES[self.kind]

    @property
    def place(self) -> str:
        """Where it happened: ``prog.st:7, PROGRAM prg`` or a block's path, or ''."""
        if self.file is not None:
            return f"{self.file}:{self.line}, {self.pou}"
        return self.block or ""

    def describe(self) -> str:
        """One line: the scan, the task, the message (which names the place)."""
        where = "" if self.file is not None or not self.block else f" in block {self.block}"
        return f"scan {self.scan:,} of task {self.task}{where}: {self.message}"


class PlcFault(FbdError):
    """A scan raised, or the PLC is in FAULT; ``fault`` is the :class:`Fault`.
    Raised from the error that made the fault (its ``__cause__``)."""

    def __init__(self, fault: Fault, message: str):
        self.fault = fault
        super().__init__(message)


def _kind(error: BaseException) -> str:
    # an error class may name its kind (the native engine's trap does)
    return getattr(error, "fault_kind", None) or (
        "error" if isinstance(error, FbdError) else "exception")


def _origin(error: BaseException) -> str:
    """`` (at file:line)``: the innermost frame of an exception that is not ours to
    word, so a bug report can say where it came from."""
    frames = traceback.extract_tb(error.__traceback__)
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


class Operation:
    """The state half of :class:`fbd.Plc` (a base class of it): the transitions
    between RUN, STOP and FAULT, and the requests other threads make. The
    scheduler, in :mod:`.plc`, calls :meth:`_enter_fault` when a scan raises
    and stops the run there."""

    def _init_operation(self, on_fault: str) -> None:
        if on_fault not in ON_FAULT:
            raise FbdError(f"on_fault {on_fault!r}: choose {' or '.join(ON_FAULT)}")
        #: what the outputs do in FAULT: "hold" their last values, or go to "zero"
        self.on_fault = on_fault
        #: RUN, STOP or FAULT; ``fault`` says why in FAULT
        self.state = PlcState.RUN
        self.fault: Fault | None = None
        #: called as ``listener(plc, change)`` after "fault", "stop", "start", "warm
        #: restart", "cold restart", on the thread that made the change
        self.state_listeners: list = []
        self._requests: deque[str] = deque()   # from other threads (request)
        self._failed: PlcFault | None = None     # raised when the run in progress ends
        self._resumed = None                     # the simpy event a faulted scheduler awaits

    def restart(self, cold: bool = True, origin: bool = False) -> None:
        """Restart every task, from any state, and run: every variable from its
        initial value, as in a new Plc, except that a warm restart (``cold=False``)
        keeps the RETAIN and PERSISTENT variables, a cold one the PERSISTENT ones,
        and a reset to origin (``origin=True``) nothing (docs/retain.md). Kept: the
        forces, the inputs the process last gave, the scan counters and the clock.
        A scan being stepped into is abandoned; a fault is cleared."""
        self._stepping = None
        for task in self.tasks:
            task.restart(cold or origin, origin)
        for restart in self.restarts:
            restart(cold or origin, origin)
        self.fault = None
        self.state = PlcState.RUN
        if self._resumed is not None and not self._resumed.triggered:
            self._resumed.succeed()     # the scheduler takes up the scan that failed
        self._notify("cold restart" if cold else "warm restart")

    def stop(self) -> None:
        """RUN -> STOP: no scan runs until :meth:`start` (or a restart); the variables
        keep their values. In FAULT the fault stays. Meant between scans: from
        inside one (a recorder), the run in progress ends first."""
        if self.state is PlcState.RUN:
            self.state = PlcState.STOP
            self._notify("stop")

    def start(self) -> None:
        """STOP -> RUN, the program going on where it stopped. In FAULT it is refused:
        the scan that raised left its variables half done; restart instead."""
        if self.state is PlcState.FAULT:
            raise PlcFault(self.fault, f"the PLC is in FAULT since {self.fault.describe()}; "
                                       f"restart it (restart()) to run it again")
        if self.state is PlcState.STOP:
            self.state = PlcState.RUN
            self._notify("start")

    def request(self, action: str) -> None:
        """Ask, from any thread, for ``action`` (one of :data:`REQUESTS`): carried out
        between scans by the thread that runs the PLC (:meth:`serve_requests`)."""
        if action not in REQUESTS:
            raise FbdError(f"request {action!r}: choose one of {', '.join(REQUESTS)}")
        self._requests.append(action)

    def serve_requests(self) -> None:
        """Carry out the requests made since the last call, in order (call it between
        scans, on the thread that runs the PLC; :meth:`scan` does)."""
        while self._requests:
            action = self._requests.popleft()
            if action == "start":
                if self.state is PlcState.STOP:     # a client cannot clear a fault this way
                    self.start()
            elif action == "stop":
                self.stop()
            else:
                self.restart(cold=action == "cold restart")

    def require_running(self, doing: str) -> None:
        """Raise what a scan would while the PLC is not in RUN (:class:`PlcFault` in
        FAULT), saying it cannot ``doing``; serve the requests waiting first."""
        if self._requests:
            self.serve_requests()
        if self.state is PlcState.RUN:
            return
        if self.state is PlcState.FAULT:
            raise PlcFault(self.fault, f"cannot {doing}: the PLC is in FAULT since "
                                       f"{self.fault.describe()}; restart it (restart()) to "
                                       f"run it again")
        raise FbdError(f"cannot {doing}: the PLC is in STOP; start() runs it again")

    def _enter_fault(self, failed: PlcFault) -> None:
        """A scan raised: FAULT, the outputs as ``on_fault`` says (the listeners are
        told once the run in progress has ended)."""
        self.state = PlcState.FAULT
        self.fault = failed.fault
        if self.on_fault == "zero":
            for task in self.tasks:
                program = task.program
                for name, slot in program.outputs.items():
                    if slot not in task.forces:
                        tp = program.output_types[name]
                        task.s[slot] = tp.copy(tp.default)

    def _notify(self, change: str) -> None:
        for listener in list(self.state_listeners):
            listener(self, change)
