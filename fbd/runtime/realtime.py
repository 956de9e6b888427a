"""Scanning a PLC against the wall clock, and what happens when the host falls behind.

:class:`RealtimeRunner` runs one scan of the main task per cycle of wall-clock
time, on the calling thread, sleeping between scans (``fbd serve`` runs its PLC
this way; the HMI paces its PLC from the Qt event loop instead, see
``hmi/loop.py``). The PLC's clock stays simulated: each scan advances it by
exactly one cycle, so NOW and the timers read whole cycles.

When the host is busy (other threads holding the interpreter, a long scan, a
suspended laptop), the runner wakes up after the scan was due. What it does
then is the *policy*:

``skip`` (the default)
    A cycle whose time has passed entirely is not scanned: the runner skips it
    (:meth:`fbd.Plc.skip`), so the PLC's clock still advances by it and NOW
    and every timer keep wall-clock time, as on a real PLC whose cyclic task
    could not start in time. Fewer scans run than cycles passed; the
    difference is ``stats.skipped``. Chosen as the default because a served
    PLC is watched in wall-clock time (a 5 s TON is 5 s on the SCADA's
    screen) and because running missed scans back to back under a sustained
    load only adds to the load.
``catch-up``
    Every cycle is scanned: after a stall the missed scans run back to back
    until the schedule is met again. Simulated time and the scan count are
    those of an undisturbed run, at the price of bursts; under a load the
    host cannot carry, the runner falls further and further behind
    (:attr:`RealtimeRunner.lag_us`).

Either way nothing is lost silently: a scan that starts more than half a
cycle after it was due counts in ``stats.late`` (the worst lateness in
``stats.max_late_us``), every cycle skipped in ``stats.skipped``.

A PLC in STOP or FAULT (:mod:`.faults`) runs no scan: the runner keeps
serving its requests (:meth:`fbd.Plc.serve_requests`, a Modbus client's
restart) every cycle, at most every :data:`IDLE_POLL_NS`, and takes up the
schedule afresh when the PLC runs again. A scan that raises puts the PLC in
FAULT and the runner goes on waiting: the process never stops for it.

With a ``priority`` (1-99, ``fbd serve --realtime-priority``) the thread that
runs the scans is a real-time thread while it runs them (Linux's SCHED_FIFO,
for which the process needs root or CAP_SYS_NICE), as a soft PLC's cyclic
tasks are: on a machine whose cores are busy, an ordinary thread that wakes for
its scan waits for its turn, up to several ms under Linux's scheduler
(docs/realtime.md, *A real-time priority*).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

from ..errors import FbdError
from .faults import PlcFault, PlcState
from .plc import Plc

__all__ = ["RealtimeRunner", "run_realtime", "check_priority", "SKIP", "CATCH_UP",
           "POLICIES"]

SKIP = "skip"
CATCH_UP = "catch-up"
POLICIES = (SKIP, CATCH_UP)
#: how often a stopped or faulted PLC's requests are looked at, at most (ns)
IDLE_POLL_NS = 50_000_000


class RealtimeRunner:
    """Scans ``plc`` once per cycle of wall-clock time (see the module's text).

    >>> runner = RealtimeRunner(plc, policy="skip")       # doctest: +SKIP
    >>> runner.run(stop)                                   # until stop.set()

    ``clock`` (integer nanoseconds) and ``sleep`` (seconds; returns True to
    stop) are the wall clock and the wait between scans; tests replace them.
    """

    def __init__(self, plc: Plc, policy: str = SKIP, *, clock=time.perf_counter_ns,
                 sleep=None, priority: int | None = None):
        if policy not in POLICIES:
            raise FbdError(f"real-time policy {policy!r}: choose {' or '.join(POLICIES)}")
        self.plc = plc
        self.policy = policy
        self.priority = priority
        self.clock = clock
        self._sleep = sleep
        self.cycle_ns = plc.main.cycle_us * 1000
        self.lag_us = 0.0       # how far behind its schedule the runner is (catch-up)
        self.started_ns: int | None = None

    def run(self, stop: threading.Event, scans: int | None = None) -> int:
        """Scan until ``stop`` is set (or ``scans`` scans have run); returns the scans run.
        A PLC in STOP or FAULT is waited on, however long, until it runs again."""
        with _thread_priority(self.priority):
            return self._run(stop, scans)

    def _run(self, stop: threading.Event, scans: int | None) -> int:
        sleep = self._sleep or stop.wait
        clock, cycle, plc = self.clock, self.cycle_ns, self.plc
        stats = plc.stats
        half = cycle // 2
        skip = self.policy == SKIP
        due = clock()
        if self.started_ns is None:
            self.started_ns = due
        done = 0
        while not stop.is_set() and (scans is None or done < scans):
            plc.serve_requests()
            if plc.state is not PlcState.RUN:
                if sleep(min(cycle, IDLE_POLL_NS) / 1e9):
                    break
                due = clock()          # running again: a fresh schedule, nothing owed
                continue
            behind = clock() - due
            if behind > half:
                stats.late += 1
                if behind / 1000 > stats.max_late_us:
                    stats.max_late_us = behind / 1000
                if skip and behind >= cycle:
                    missed = behind // cycle
                    plc.skip(missed)
                    due += missed * cycle
                    behind -= missed * cycle
            self.lag_us = max(behind, 0) / 1000
            try:
                plc.scan()
            except PlcFault:
                continue               # in FAULT: plc.fault says why; wait for a restart
            done += 1
            due += cycle
            delay = due - clock()
            if delay > 0 and sleep(delay / 1e9):
                break
        return done


def check_priority(priority: int) -> None:
    """Raise, in one line, why this process cannot run a thread at the real-time
    ``priority``; try it on a thread of its own, which then ends."""
    errors = []

    def attempt() -> None:
        try:
            with _thread_priority(priority):
                pass
        except FbdError as e:
            errors.append(e)
    thread = threading.Thread(target=attempt, name="fbd-priority-check")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


@contextlib.contextmanager
def _thread_priority(priority: int | None):
    """The calling thread at SCHED_FIFO ``priority`` inside the block (nothing if
    None). Threads it starts meanwhile inherit it; processes it starts do not."""
    if priority is None:
        yield
        return
    if not 1 <= priority <= 99:
        raise FbdError(f"real-time priority {priority}: 1 (lowest) to 99")
    if not hasattr(os, "sched_setscheduler"):
        raise FbdError("a real-time priority needs Linux (SCHED_FIFO)")
    before = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK,
                              os.sched_param(priority))
    except PermissionError:
        raise FbdError(f"real-time priority {priority}: not permitted (run as root, or give "
                       f"Python CAP_SYS_NICE or an RLIMIT_RTPRIO of {priority})") from None
    try:
        yield
    finally:
        os.sched_setscheduler(0, *before)


def run_realtime(plc: Plc, stop: threading.Event, scans: int | None = None,
                 policy: str = SKIP) -> int:
    """Scan ``plc`` in real time until ``stop`` is set (or ``scans`` scans have run),
    with a :class:`RealtimeRunner`; returns the scans run."""
    return RealtimeRunner(plc, policy).run(stop, scans)
