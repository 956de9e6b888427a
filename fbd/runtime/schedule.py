"""The real-time schedule of a PLC, measured while something loads it: what the
servers' benchmarks (``python -m fbd.modbus.bench``, ``python -m fbd.opcua.bench``)
report next to their own figures.

:func:`measure` runs the PLC in real time on a thread of its own (a
:class:`~.realtime.RealtimeRunner`) while a load runs, and returns the wall-clock
period between scan starts (mean and 99th percentile), the scans that started
late, the cycles skipped and the drift of simulated time against the wall clock.
"""

from __future__ import annotations

import threading
import time

__all__ = ["ScanStarts", "measure"]


class ScanStarts:
    """A ``before_scan`` hook noting the wall-clock time each scan starts."""

    def __init__(self):
        self.ns: list[int] = []

    def __call__(self, _task) -> None:
        self.ns.append(time.perf_counter_ns())


def measure(plc, policy: str, seconds: float, during=None, priority: int | None = None) -> dict:
    """Run ``plc`` in real time for ``seconds`` (or while ``during()`` runs, if
    given), its thread at the real-time ``priority`` if one is given; returns its
    schedule's figures and what ``during`` returned."""
    from .realtime import RealtimeRunner
    st = plc.stats
    before = (st.count, st.late, st.skipped, plc.now_us, st.total_ns)
    starts = ScanStarts()
    plc.main.before_scan.append(starts)
    stop = threading.Event()
    runner = threading.Thread(target=RealtimeRunner(plc, policy, priority=priority).run, args=(stop,))
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    runner.start()
    try:
        result = None
        if during is None:
            time.sleep(seconds)
        else:
            result = during()
    finally:
        stop.set()
        runner.join()
        wall_us = (time.perf_counter() - t0) * 1e6
        cpu = time.process_time() - cpu0
        plc.main.before_scan.remove(starts)
    periods = sorted(b - a for a, b in zip(starts.ns, starts.ns[1:]))
    sim_us = plc.now_us - before[3]
    scans = st.count - before[0]
    return {"scans": scans, "late": st.late - before[1],
            "skipped": st.skipped - before[2],
            "scan_us": (st.total_ns - before[4]) / scans / 1000 if scans else 0.0,
            "period_ms": sum(periods) / len(periods) / 1e6 if periods else 0.0,
            "period_p99_ms": periods[int(0.99 * (len(periods) - 1))] / 1e6 if periods else 0.0,
            "drift": (sim_us - wall_us) / wall_us, "cpu": cpu / (wall_us / 1e6),
            "result": result}
