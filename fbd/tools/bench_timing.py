"""How ``fbd bench`` times: a program's scans in a bare loop, the interpreter's,
the PLC's scan step and its simpy loop, the median over runs of a timer, a
signal read from Python, the PLCopen export (:mod:`fbd.tools.bench` says what
is measured and why).
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from pathlib import Path

from ..compiler.interp import Interpreter
from ..runtime.plc import Plc

#: the cycle of the timed scans: each is handed a clock this many µs on from the last
CYCLE_US = 5000
#: what scans are timed with: the wall clock, or with --cpu the process's CPU time
_scan_clock = time.perf_counter_ns


def set_scan_clock(cpu: bool) -> None:
    """Time the scans from now on in the process's CPU time (``cpu``), or on the wall clock."""
    global _scan_clock
    _scan_clock = time.process_time_ns if cpu else time.perf_counter_ns


def time_bare(program, s, scans: int, now: int) -> float:
    """Mean µs per scan of ``program.scan`` in a bare loop."""
    scan = program.scan
    t0 = _scan_clock()
    for _ in range(scans):
        scan(s, now)
        now += CYCLE_US
    return (_scan_clock() - t0) / scans / 1000


def time_interp(it: Interpreter, scans: int) -> float:
    scan = it.scan
    t0 = _scan_clock()
    for _ in range(scans):
        scan()
    return (_scan_clock() - t0) / scans / 1000


def time_task(plc: Plc, scans: int) -> float:
    """Mean µs per scan of the PLC's own scan step (latch, scan, watchdog), no simpy."""
    run_scan = plc.main.run_scan
    now = 0
    t0 = _scan_clock()
    for _ in range(scans):
        run_scan(now)
        now += CYCLE_US
    return (_scan_clock() - t0) / scans / 1000


def time_plc(plc: Plc, scans: int) -> float:
    t0 = _scan_clock()
    plc.scan(scans)
    return (_scan_clock() - t0) / scans / 1000


def timed_runs(timer, budget_s: float, runs: int, max_scans: int = 1_000_000) -> tuple:
    """Median over ``runs`` of ``timer(scans)``, with ``scans`` chosen so one run
    takes about ``budget_s``. Returns (median µs/scan, scans per run, (fastest,
    slowest))."""
    first = timer(1)  # also a warm-up
    scans = max(1, min(max_scans, int(budget_s * 1e6 / max(first, 0.01))))
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        times = [timer(scans) for _ in range(runs)]
    finally:
        if gc_was_on:
            gc.enable()
    return statistics.median(times), scans, (min(times), max(times))


def time_reads(s, slots, rounds: int = 5) -> float:
    """ns per ``s[slot]`` read from Python, best of ``rounds``."""
    best = None
    for _ in range(rounds):
        t0 = _scan_clock()
        for k in slots:
            s[k]
        ns = (_scan_clock() - t0) / len(slots)
        best = ns if best is None else min(best, ns)
    return best


def time_export(net) -> tuple[float, float]:
    """Wall-clock and CPU seconds of writing ``net`` as a PLCopen project file, as
    ``fbd export`` writes it."""
    from ..plcopen import to_xml, write_tree
    with tempfile.TemporaryDirectory() as folder:
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        write_tree(to_xml(net), Path(folder) / "export.xml")
        return time.perf_counter() - wall, time.process_time() - cpu
