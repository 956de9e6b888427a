"""What ``fbd bench`` measured, the targets it is judged on, and the report
that shows both (:mod:`fbd.tools.bench` measures).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

WIDE_SPREAD = 1.3  # slowest run / fastest beyond this: something else slowed the runs

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

