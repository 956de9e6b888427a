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
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..compiler.interp import Interpreter
from ..compiler.pycode import compile_network
from ..errors import FbdError
from ..runtime.plc import Plc
from .synthetic import CONTROL_LOOP, control_network, random_network, usable_kinds

__all__ = ["run_bench", "targets", "format_report", "parse_sizes", "add_arguments", "main",
           "time_export"]

SIZES = (1000, 10_000, 100_000)
#: the synthetic networks ``--mix`` chooses: BOOL and INT logic and arithmetic, or
#: REAL control loops (what REAL arithmetic costs)
MIXES = ("default", "real")
CYCLE_US = 5000
COMPILES = 3      # compiles timed per size (1 with --quick)
WIDE_SPREAD = 1.3  # slowest run / fastest beyond this: something else slowed the runs
OVERHEAD_BLOCKS = 100

#: (key, text, limit, unit, the size it is judged at)
TARGETS = (
    ("native_ns_10k", "native scan <= 1 ns/block at 10k blocks", 1.0, "ns", 10_000),
    ("native_ns_100k", "native scan <= 2 ns/block at 100k blocks", 2.0, "ns", 100_000),
    ("native_compile_10k", "native compile + first Plc < 0.5 s at 10k", 0.5, "s", 10_000),
    ("native_compile_100k", "native compile + first Plc < 4 s at 100k", 4.0, "s", 100_000),
    ("native_program", "the program's scan >= 20x faster native", 20.0, "x", None),
    ("export_10k", "PLCopen export < 5 s at 10k blocks", 5.0, "s", 10_000),
    ("export_100k", "PLCopen export < 60 s at 100k blocks", 60.0, "s", 100_000),
    ("ns_per_block", "compiled scan <= 50 ns/block at 10k blocks", 50.0, "ns", 10_000),
    ("cycle", "100k blocks scan within one 5 ms cycle", 5000.0, "µs", 100_000),
    ("speedup", ">= 8x faster than the interpreter", 8.0, "x", 10_000),
    ("compile", "compile + first Plc < 2 s at 100k blocks", 2.0, "s", 100_000),
    ("overhead", "simpy overhead <= 2 µs/scan", 2.0, "µs", None),
)


@dataclass
class SizeResult:
    blocks: int
    build_s: float
    compile_s: float
    scan_us: float
    ns_per_block: float
    runs: int
    scans_per_run: int
    interp_scan_us: float | None = None
    interp_ns_per_block: float | None = None
    interp_scans: int = 0
    speedup: float | None = None
    feedback_copies: int = 0
    scan_range_us: tuple | None = None     # (fastest, slowest) run of the compiled scan
    compile_range_s: tuple | None = None   # (fastest, slowest) compile
    compiles: int = 1
    native_compile_s: float | None = None
    native_compile_range_s: tuple | None = None
    native_scan_us: float | None = None
    native_ns_per_block: float | None = None
    native_scan_range_us: tuple | None = None
    native_speedup: float | None = None    # Python engine's scan / the native scan
    export_s: float | None = None          # fbd export to a file: wall-clock seconds
    export_cpu_s: float | None = None      # ... and the CPU seconds it took


@dataclass
class ProgramResult:
    """A shipped program's scan on both engines, and a signal read through Python."""
    target: str
    blocks: int
    python_us: float
    python_range_us: tuple
    native_us: float | None = None
    native_range_us: tuple | None = None
    speedup: float | None = None
    read_python_ns: float | None = None    # one s[slot] on the Python engine's list
    read_native_ns: float | None = None    # ... on the native engine's table


@dataclass
class Overhead:
    blocks: int
    scans: int
    rounds: int
    plc_us: float
    bare_us: float
    overhead_us: float
    task_us: float = 0.0  # Task.run_scan in a loop: latch + watchdog, no simpy


@dataclass
class BenchResult:
    seed: int
    quick: bool
    python: str
    mix: str
    sizes: list = field(default_factory=list)
    overhead: Overhead | None = None
    engines: tuple = ("python",)
    native_note: str = ""
    load: str = ""   # the machine's load average at the start, and its cores
    clock: str = "wall"   # what the scans were timed with: wall or cpu
    program: ProgramResult | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["targets"] = targets(self)
        return d


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


# ------------------------------------------------------------------- timing loops
#: what scans are timed with: the wall clock, or with --cpu the process's CPU time
_scan_clock = time.perf_counter_ns


def _time_bare(program, s, scans: int, now: int) -> float:
    """Mean µs per scan of ``program.scan`` in a bare loop."""
    scan = program.scan
    t0 = _scan_clock()
    for _ in range(scans):
        scan(s, now)
        now += CYCLE_US
    return (_scan_clock() - t0) / scans / 1000


def _time_interp(it: Interpreter, scans: int) -> float:
    scan = it.scan
    t0 = _scan_clock()
    for _ in range(scans):
        scan()
    return (_scan_clock() - t0) / scans / 1000


def _time_task(plc: Plc, scans: int) -> float:
    """Mean µs per scan of the PLC's own scan step (latch, scan, watchdog), no simpy."""
    run_scan = plc.main.run_scan
    now = 0
    t0 = _scan_clock()
    for _ in range(scans):
        run_scan(now)
        now += CYCLE_US
    return (_scan_clock() - t0) / scans / 1000


def _time_plc(plc: Plc, scans: int) -> float:
    t0 = _scan_clock()
    plc.scan(scans)
    return (_scan_clock() - t0) / scans / 1000


def _runs(timer, budget_s: float, runs: int, max_scans: int = 1_000_000) -> tuple:
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
    r.native_scan_us, _, r.native_scan_range_us = _runs(
        lambda k, s=s, p=program: _time_bare(p, s, k, 0), budget, runs, max_scans=10_000_000)
    r.native_ns_per_block = r.native_scan_us * 1000 / r.blocks
    r.native_speedup = python_scan_us / r.native_scan_us


def _time_reads(s, slots, rounds: int = 5) -> float:
    """ns per ``s[slot]`` read from Python, best of ``rounds``."""
    best = None
    for _ in range(rounds):
        t0 = _scan_clock()
        for k in slots:
            s[k]
        ns = (_scan_clock() - t0) / len(slots)
        best = ns if best is None else min(best, ns)
    return best


def bench_program(target: str, *, native: bool, budget: float, runs: int,
                  progress=_stderr) -> ProgramResult:
    """A program (``MODULE:FUNCTION``) on both engines: scan time and signal reads."""
    from ..loading import load_network
    from ..native.engines import build_program
    progress(f"bench: program {target}: compiling")
    net = load_network(target)
    py = compile_network(net)
    s = py.new_table()
    us, _, spread = _runs(lambda k: _time_bare(py, s, k, 0), budget, runs)
    slots = list(range(py.flat.n_slots)) * max(1, 20_000 // max(1, py.flat.n_slots))
    out = ProgramResult(target, len(py.leaves), us, spread, read_python_ns=_time_reads(s, slots))
    if native:
        progress(f"bench: program {target}: the native engine (Python scan {us:.1f} µs)")
        nat = build_program(net, "native")[0]
        ns = nat.new_table()
        out.native_us, _, out.native_range_us = _runs(lambda k: _time_bare(nat, ns, k, 0),
                                                      budget, runs, max_scans=10_000_000)
        out.speedup = us / out.native_us
        out.read_native_ns = _time_reads(ns, slots)
    return out


def _default_program() -> str | None:
    """The 2048 game, where the programs are installed (fbd imports none by name)."""
    from importlib.metadata import entry_points
    for ep in entry_points(group="fbd.programs"):
        if ep.name == "2048":
            return ep.value
    return None


def time_export(net) -> tuple[float, float]:
    """Wall-clock and CPU seconds of writing ``net`` as a PLCopen project file, as
    ``fbd export`` writes it."""
    from ..plcopen import to_xml, write_tree
    with tempfile.TemporaryDirectory() as folder:
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        write_tree(to_xml(net), Path(folder) / "export.xml")
        return time.perf_counter() - wall, time.process_time() - cpu


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
    global _scan_clock
    _scan_clock = time.process_time_ns if cpu else time.perf_counter_ns
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
        scan_us, per_run, spread = _runs(lambda k, s=s, p=program: _time_bare(p, s, k, 0),
                                         budget, runs)
        r = SizeResult(n, build, comp, scan_us, scan_us * 1000 / n, runs, per_run,
                       feedback_copies=program.info()["feedback_copies"],
                       scan_range_us=spread, compile_range_s=(min(comps), max(comps)),
                       compiles=compiles)
        if n <= interp_limit:
            progress(f"bench: {n} blocks: timing the interpreter "
                     f"(compiled scan {scan_us:.1f} µs)")
            it = Interpreter(program)
            r.interp_scan_us, r.interp_scans, _ = _runs(lambda k, it=it: _time_interp(it, k),
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
    _time_bare(program, s, 10, 0)
    lone = Plc(program, cycle=CYCLE_US / 1e6)  # its task is stepped without simpy
    plc_t, bare_t, task_t = [], [], []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            plc_t.append(_time_plc(plc, scans))
            bare_t.append(_time_bare(program, s, scans, 0))
            task_t.append(_time_task(lone, scans))
    finally:
        if gc_was_on:
            gc.enable()
    diff = statistics.median(p - b for p, b in zip(plc_t, bare_t))
    return Overhead(OVERHEAD_BLOCKS, scans, rounds, statistics.median(plc_t),
                    statistics.median(bare_t), diff, statistics.median(task_t))


# ------------------------------------------------------------------------ targets
def targets(result: BenchResult) -> list[dict]:
    """Each target with the figure it is judged on and PASS, MISS or n/a (not measured)."""
    by_size = {r.blocks: r for r in result.sizes}
    out = []
    for key, text, limit, unit, size in TARGETS:
        measured, at = None, size
        if key == "ns_per_block" and size in by_size:
            measured = by_size[size].ns_per_block
        elif key == "cycle" and size in by_size:
            measured = by_size[size].scan_us
        elif key == "compile" and size in by_size:
            measured = by_size[size].compile_s
        elif key == "speedup":
            with_interp = [r for r in result.sizes if r.speedup is not None]
            pick = by_size.get(size) if by_size.get(size) in with_interp else (
                max(with_interp, key=lambda r: r.blocks) if with_interp else None)
            if pick is not None:
                measured, at = pick.speedup, pick.blocks
        elif key == "overhead" and result.overhead is not None:
            measured, at = result.overhead.overhead_us, result.overhead.blocks
        elif key.startswith("native_ns") and size in by_size:
            measured = by_size[size].native_ns_per_block
        elif key.startswith("native_compile") and size in by_size:
            measured = by_size[size].native_compile_s
        elif key == "native_program" and result.program is not None:
            measured, at = result.program.speedup, result.program.blocks
        elif key.startswith("export") and size in by_size:
            measured = by_size[size].export_s
        if measured is None:
            status = "n/a"
        elif key in ("speedup", "native_program"):
            status = "PASS" if measured >= limit else "MISS"
        else:
            status = "PASS" if measured <= limit else "MISS"
        out.append({"target": key, "text": text, "limit": limit, "unit": unit,
                    "measured": measured, "at_blocks": at, "status": status})
    return out


def _fmt(v, digits: int = 1, suffix: str = "") -> str:
    return "-" if v is None else f"{v:,.{digits}f}{suffix}"


def _spread_lines(result: BenchResult) -> list[str]:
    """Fastest and slowest run of each size, and a warning where they differ
    so much that the machine, not the program, set the figures."""
    lines, wide = [], []
    for r in result.sizes:
        parts = []
        if r.scan_range_us:
            lo, hi = r.scan_range_us
            parts.append(f"scan {lo:,.1f}-{hi:,.1f} µs over {r.runs} runs")
            if lo > 0 and hi / lo > WIDE_SPREAD:
                wide.append(f"{r.blocks:,}")
        if r.compile_range_s and r.compiles > 1:
            lo, hi = r.compile_range_s
            parts.append(f"compile {lo:.2f}-{hi:.2f} s over {r.compiles} compiles")
            if lo > 0 and hi / lo > WIDE_SPREAD:
                wide.append(f"{r.blocks:,}")
        if parts:
            lines.append(f"  {r.blocks:>9,} blocks: " + "; ".join(parts))
    if lines:
        lines.insert(0, "spread, fastest to slowest:")
    if wide:
        lines.append(f"  the runs at {', '.join(dict.fromkeys(wide))} blocks differ by more than "
                     f"{WIDE_SPREAD - 1:.0%}: other work on the machine slowed some of "
                     f"them, so their medians are less certain than they look")
    return lines


def format_report(result: BenchResult) -> str:
    lines = [f"fbd bench: synthetic networks, seed {result.seed}"
             f"{', quick' if result.quick else ''}; Python {result.python}"
             f"{'; load average ' + result.load if result.load else ''}",
             f"mix: {result.mix}", ""]
    head = ("blocks", "build s", "compile s", "scan µs", "ns/block", "interp µs",
            "interp ns/block", "speedup")
    rows = [head]
    for r in result.sizes:
        rows.append((f"{r.blocks:,}", _fmt(r.build_s, 2), _fmt(r.compile_s, 2),
                     _fmt(r.scan_us), _fmt(r.ns_per_block), _fmt(r.interp_scan_us),
                     _fmt(r.interp_ns_per_block), _fmt(r.speedup, 1, "x")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for row in rows:
        lines.append("  ".join(c.rjust(w) for c, w in zip(row, widths)))
    lines.append("")
    lines.append("scan µs: median over runs of the mean compiled scan (bare loop); interp: "
                 "the object-per-block interpreter on the same program"
                 + ("; scans timed in the process's CPU time" if result.clock == "cpu" else ""))
    lines += _spread_lines(result)
    if "native" in result.engines:
        lines += ["", "native engine, side by side:"]
        rows = [("blocks", "compile s", "native s", "scan µs", "native µs", "ns/block",
                 "native ns/block", "native x")]
        for r in result.sizes:
            rows.append((f"{r.blocks:,}", _fmt(r.compile_s, 2), _fmt(r.native_compile_s, 2),
                         _fmt(r.scan_us), _fmt(r.native_scan_us, 2), _fmt(r.ns_per_block),
                         _fmt(r.native_ns_per_block, 2), _fmt(r.native_speedup, 1, "x")))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            lines.append("  ".join(c.rjust(w) for c, w in zip(row, widths)))
        for r in result.sizes:
            if r.native_scan_range_us:
                (lo, hi), (clo, chi) = r.native_scan_range_us, r.native_compile_range_s
                lines.append(f"  {r.blocks:>9,} blocks: native scan {lo:,.2f}-{hi:,.2f} µs, "
                             f"compile {clo:.2f}-{chi:.2f} s (fastest-slowest)")
    elif result.native_note:
        lines.append(f"native engine not measured: {result.native_note}")
    exports = [r for r in result.sizes if r.export_s is not None]
    if exports:
        lines.append("PLCopen export (fbd export, layout and file), wall-clock (CPU) seconds: "
                     + "; ".join(f"{r.blocks:,} blocks {r.export_s:.2f} ({r.export_cpu_s:.2f})"
                                 for r in exports))
    pr = result.program
    if pr is not None:
        lines.append(f"program {pr.target} ({pr.blocks:,} blocks): Python engine "
                     f"{pr.python_us:.1f} µs/scan ({pr.python_range_us[0]:.1f}-"
                     f"{pr.python_range_us[1]:.1f})"
                     + (f", native {pr.native_us:.2f} µs/scan ({pr.native_range_us[0]:.2f}-"
                        f"{pr.native_range_us[1]:.2f}): {pr.speedup:.1f}x"
                        if pr.native_us is not None else ""))
        lines.append(f"  reading one signal from Python, s[slot]: {pr.read_python_ns:.0f} ns on "
                     f"the Python engine's list"
                     + (f", {pr.read_native_ns:.0f} ns on the native table"
                        if pr.read_native_ns is not None else ""))
    o = result.overhead
    if o is not None:
        lines.append(f"simpy overhead ({o.blocks}-block network, {o.rounds} x {o.scans:,} scans): "
                     f"Plc.scan {o.plc_us:.2f} µs/scan vs bare loop {o.bare_us:.2f} µs/scan "
                     f"= {o.overhead_us:+.2f} µs/scan")
        lines.append(f"  of which the scan step without simpy (Task.run_scan: latch, watchdog) "
                     f"{o.task_us - o.bare_us:+.2f} µs, simpy's event loop "
                     f"{o.plc_us - o.task_us:+.2f} µs")
    lines.append("")
    rows = [("target", "measured", "status")]
    for tg in targets(result):
        m = tg["measured"]
        if m is None:
            shown = "not measured"
        elif tg["unit"] == "x":
            shown = f"{m:.1f}x at {tg['at_blocks']:,}"
        elif tg["unit"] == "s":
            shown = f"{m:.2f} s"
        else:
            shown = f"{m:,.1f} {tg['unit']}"
        rows.append((tg["text"], shown, tg["status"]))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        lines.append(f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]}")
    return "\n".join(lines)


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
