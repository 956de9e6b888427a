"""``fbd bench``: how fast the compiled scan is, against the targets we set.

On synthetic networks (:func:`fbd.tools.synthetic.random_network`) of each size it
measures, in one run and on one machine:

* **build**: making the Network (not a target; shown so a slow build is seen);
* **compile**: ``compile_network`` plus making the first :class:`~fbd.runtime.Plc`,
  the median of three compiles from scratch (one with ``--quick``);
* **scan**: the compiled ``program.scan(s, now)`` called in a bare loop, as the
  median over several runs of the mean time per scan, and that per block;
* **interp**: the same program run by :class:`fbd.compiler.interp.Interpreter`, the
  object-per-block baseline, timed the same way, and the speedup of the
  compiled scan over it;

* **native**: the same network on the native engine (:mod:`fbd.native`):
  compile plus first Plc, and the scan called the same way (one ctypes call
  per scan), side by side with the Python engine's figures;
* **export**: the network written as a PLCopen project file, as ``fbd export``
  writes it (its layout included), once, wall-clock and CPU time (the export
  runs in one thread: on a busy machine its CPU time is what it costs);

and on a shipped program (``--program``, by default ``2048`` when the games
are installed) the scan on both engines, and what reading one signal
through Python (``s[slot]``) costs on each engine's table; and once, on a
small network of its own (so the scan itself adds little
noise), the per-scan cost of running through :meth:`Plc.scan` (simpy's event
loop, the latch and the watchdog) over the bare loop on the same program,
split into the PLC's scan step alone (``Task.run_scan`` called in a loop)
and what simpy adds on top.

Timed loops run with the garbage collector off, as :mod:`timeit` does. The
figures are wall-clock times on a machine that may be busy with other work;
medians make them robust to a few disturbed runs, not to a loaded machine, so
the report also gives the spread of the runs (fastest to slowest) and says
when it is wide. ``--cpu`` times the scans in the process's CPU time instead
(compiles stay wall-clock: half of a big one runs in a forked child), which
a machine shared with other work disturbs far less: what to compare two
versions of the code with.

This module measures; the timing loops are :mod:`fbd.tools.bench_timing`'s,
the results, the targets they are judged on and the report
:mod:`fbd.tools.bench_report`'s.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import time

from ..compiler.interp import Interpreter
from ..compiler.pycode import compile_network
from ..errors import FbdError
from ..runtime.plc import Plc
from .bench_report import BenchResult, Overhead, ProgramResult, SizeResult, format_report, targets
from .bench_timing import (
    CYCLE_US,
    set_scan_clock,
    time_bare,
    time_export,
    time_interp,
    time_plc,
    time_reads,
    time_task,
    timed_runs,
)
from .synthetic import CONTROL_LOOP, control_network, random_network, usable_kinds

__all__ = ["run_bench", "bench_program", "parse_sizes", "add_arguments", "main"]

SIZES = (1000, 10_000, 100_000)
#: the synthetic networks ``--mix`` chooses: BOOL and INT logic and arithmetic, or
#: REAL control loops (what REAL arithmetic costs)
MIXES = ("default", "real")
COMPILES = 3      # compiles timed per size (1 with --quick)
OVERHEAD_BLOCKS = 100


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


#: the largest network the benchmark builds (a million blocks take about 2 GB)
MAX_SIZE = 1_000_000


def parse_sizes(text: str) -> list[int]:
    """``"1000,10k,1e5"`` → ``[1000, 10000, 100000]``."""
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        try:
            if part.endswith("k"):
                n = int(float(part[:-1]) * 1000)
            else:
                n = int(float(part))
        except (ValueError, OverflowError):
            raise FbdError(f"--sizes: {part[:40]!r} is not a number of blocks "
                           f"(write e.g. 1000,10000 or 1k,10k)") from None
        if n < 1:
            raise FbdError(f"--sizes: {n} blocks is too few")
        if n > MAX_SIZE:
            raise FbdError(f"--sizes: {n:,} blocks is more than the benchmark builds "
                           f"(at most {MAX_SIZE:,}: about 2 GB of memory)")
        sizes.append(n)
    if not sizes:
        raise FbdError("--sizes: give at least one size")
    return sizes



# -------------------------------------------------------------------------- bench
def _native_engine(engines) -> tuple[bool, str]:
    """Whether to measure the native engine, and why not."""
    if "native" not in engines:
        return False, "not asked for"
    from ..native import unavailable_reason
    why = unavailable_reason()
    return why is None, why or ""


def _bench_native(r: SizeResult, net, python_scan_us: float, budget: float, runs: int,
                  compiles: int, progress) -> None:
    from ..native.engines import build_program
    comps, program = [], None
    for k in range(compiles):
        progress(f"bench: {r.blocks} blocks: native compile {k + 1} of {compiles}")
        program = None
        gc.collect()
        t0 = time.perf_counter()
        program = build_program(net, "native")[0]
        Plc(program)
        comps.append(time.perf_counter() - t0)
    r.native_compile_s = statistics.median(comps)
    r.native_compile_range_s = (min(comps), max(comps))
    progress(f"bench: {r.blocks} blocks: timing the native scan "
             f"(compiled in {r.native_compile_s:.2f} s)")
    s = program.new_table()
    r.native_scan_us, _, r.native_scan_range_us = timed_runs(
        lambda k, s=s, p=program: time_bare(p, s, k, 0), budget, runs, max_scans=10_000_000)
    r.native_ns_per_block = r.native_scan_us * 1000 / r.blocks
    r.native_speedup = python_scan_us / r.native_scan_us



def bench_program(target: str, *, native: bool, budget: float, runs: int,
                  progress=_stderr) -> ProgramResult:
    """A program (``MODULE:FUNCTION``) on both engines: scan time and signal reads."""
    from ..loading import load_network
    from ..native.engines import build_program
    progress(f"bench: program {target}: compiling")
    net = load_network(target)
    py = compile_network(net)
    s = py.new_table()
    us, _, spread = timed_runs(lambda k: time_bare(py, s, k, 0), budget, runs)
    slots = list(range(py.flat.n_slots)) * max(1, 20_000 // max(1, py.flat.n_slots))
    out = ProgramResult(target, len(py.leaves), us, spread, read_python_ns=time_reads(s, slots))
    if native:
        progress(f"bench: program {target}: the native engine (Python scan {us:.1f} µs)")
        nat = build_program(net, "native")[0]
        ns = nat.new_table()
        out.native_us, _, out.native_range_us = timed_runs(lambda k: time_bare(nat, ns, k, 0),
                                                      budget, runs, max_scans=10_000_000)
        out.speedup = us / out.native_us
        out.read_native_ns = time_reads(ns, slots)
    return out


def _default_program() -> str | None:
    """The 2048 game, where the programs are installed (fbd imports none by name)."""
    from importlib.metadata import entry_points
    for ep in entry_points(group="fbd.programs"):
        if ep.name == "2048":
            return ep.value
    return None



def run_bench(sizes=SIZES, *, quick: bool = False, seed: int = 1, library: dict | None = None,
              progress=_stderr, interp_limit: int | None = None,
              engines=("python", "native"), target: str | None = "",
              mix: str = "default", cpu: bool = False, export: bool = True) -> BenchResult:
    """Measure every size; ``progress(text)`` is told what is being done.

    ``interp_limit``: the largest size the interpreter is run at (default: all
    sizes, with as few scans as its time budget allows; 10k when ``quick``).
    ``engines``: which engines to time ("python", "native"); ``target``: a
    ``MODULE:FUNCTION`` to time on both ("" for 2048 where installed, None for none);
    ``mix``: one of :data:`MIXES`; ``cpu``: time the scans in CPU time;
    ``export``: time the PLCopen export of each size.
    """
    set_scan_clock(cpu)
    budget = 0.02 if quick else 0.1
    runs = 3 if quick else 7
    compiles = 1 if quick else COMPILES
    interp_runs = 3 if quick else 5
    if interp_limit is None:
        interp_limit = 10_000 if quick else max(sizes)
    build_network = random_network if mix == "default" else control_network
    result = BenchResult(seed, quick, platform.python_version(),
                         ", ".join(k.label for k in usable_kinds(library=library))
                         if mix == "default" else
                         f"REAL control loops of {', '.join(CONTROL_LOOP)} (REAL but SR)")
    result.clock = "cpu" if cpu else "wall"
    native, result.native_note = _native_engine(engines)
    if hasattr(os, "getloadavg"):  # other work on the machine slows every figure
        result.load = f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    result.engines = ("python", "native") if native else ("python",)
    for n in sizes:
        progress(f"bench: {n} blocks: building the network")
        t0 = time.perf_counter()
        net = build_network(n, seed, library=library)
        build = time.perf_counter() - t0
        comps = []
        program = None
        for k in range(compiles):
            progress(f"bench: {n} blocks: compiling"
                     + (f" (built in {build:.2f} s)" if k == 0 else f", {k + 1} of {compiles}"))
            program = None  # each compile starts from nothing, as a user's first one does
            gc.collect()
            t0 = time.perf_counter()
            program = compile_network(net)
            Plc(program)
            comps.append(time.perf_counter() - t0)
        comp = statistics.median(comps)
        progress(f"bench: {n} blocks: timing the compiled scan (compiled in {comp:.2f} s)")
        s = program.new_table()
        scan_us, per_run, spread = timed_runs(lambda k, s=s, p=program: time_bare(p, s, k, 0),
                                         budget, runs)
        r = SizeResult(n, build, comp, scan_us, scan_us * 1000 / n, runs, per_run,
                       feedback_copies=program.info()["feedback_copies"],
                       scan_range_us=spread, compile_range_s=(min(comps), max(comps)),
                       compiles=compiles)
        if n <= interp_limit:
            progress(f"bench: {n} blocks: timing the interpreter "
                     f"(compiled scan {scan_us:.1f} µs)")
            it = Interpreter(program)
            r.interp_scan_us, r.interp_scans, _ = timed_runs(lambda k, it=it: time_interp(it, k),
                                                        budget, interp_runs)
            r.interp_ns_per_block = r.interp_scan_us * 1000 / n
            r.speedup = r.interp_scan_us / scan_us
            del it
        if native:
            _bench_native(r, net, scan_us, budget, runs, compiles, progress)
        del program, s
        if export:
            progress(f"bench: {n} blocks: exporting to PLCopen XML")
            r.export_s, r.export_cpu_s = time_export(net)
        result.sizes.append(r)
        del net
        gc.collect()
    if target == "":
        target = _default_program()
    if target:
        result.program = bench_program(target, native=native, budget=budget, runs=runs,
                                       progress=progress)
    progress(f"bench: simpy overhead on a {OVERHEAD_BLOCKS}-block network")
    result.overhead = _overhead(seed, library, quick)
    return result


def _overhead(seed: int, library, quick: bool) -> Overhead:
    """Plc.scan(k) against the bare loop on the same program, interleaved rounds."""
    program = compile_network(random_network(OVERHEAD_BLOCKS, seed, library=library))
    plc = Plc(program, cycle=CYCLE_US / 1e6)
    s = program.new_table()
    scans = 2000 if quick else 20_000
    rounds = 3 if quick else 7
    plc.scan(10)
    time_bare(program, s, 10, 0)
    lone = Plc(program, cycle=CYCLE_US / 1e6)  # its task is stepped without simpy
    plc_t, bare_t, task_t = [], [], []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            plc_t.append(time_plc(plc, scans))
            bare_t.append(time_bare(program, s, scans, 0))
            task_t.append(time_task(lone, scans))
    finally:
        if gc_was_on:
            gc.enable()
    diff = statistics.median(p - b for p, b in zip(plc_t, bare_t))
    return Overhead(OVERHEAD_BLOCKS, scans, rounds, statistics.median(plc_t),
                    statistics.median(bare_t), diff, statistics.median(task_t))



# ---------------------------------------------------------------------------- CLI
def add_arguments(p) -> None:
    p.add_argument("--sizes", default=None, metavar="N,N,...",
                   help="network sizes in blocks (default 1000,10000,100000; 1k,10k work)")
    p.add_argument("--quick", action="store_true",
                   help="shorter timing runs; the interpreter only up to 10k blocks")
    p.add_argument("--seed", type=int, default=1, help="seed of the synthetic networks")
    p.add_argument("--mix", choices=MIXES, default="default",
                   help="the synthetic networks: random BOOL and INT logic and arithmetic "
                        "(default), or REAL control loops (real)")
    p.add_argument("--cpu", action="store_true",
                   help="time the scans in the process's CPU time, which other work on the "
                        "machine disturbs less than the wall clock")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--check", action="store_true",
                   help="exit with status 1 when a measured target is missed")
    p.add_argument("--engine", choices=("both", "python", "native"), default="both",
                   help="which engines to time (default both, side by side)")
    p.add_argument("--no-export", action="store_true",
                   help="leave out the PLCopen export's timing")
    p.add_argument("--program", default="", metavar="MODULE:FUNCTION",
                   help="a program to time on both engines (default: the 2048 game, "
                        "where installed; 'none' for none)")


def main(args) -> int:
    """``fbd bench``: the block libraries must be loaded (the CLI does it)."""
    sizes = parse_sizes(args.sizes) if args.sizes else list(SIZES)
    engines = ("python", "native") if args.engine == "both" else ("python",) if \
        args.engine == "python" else ("python", "native")
    result = run_bench(sizes, quick=args.quick, seed=args.seed, engines=engines,
                       target=None if args.program == "none" else args.program,
                       mix=args.mix, cpu=args.cpu, export=not args.no_export)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(format_report(result))
    if args.check and any(tg["status"] == "MISS" for tg in targets(result)):
        return 1
    return 0
