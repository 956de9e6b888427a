"""Real ST programs' scans on fbd's engines, beside matiec's C for the same
programs (``python -m fbd.st.bench --programs``); how long an hour of PLC
time takes; compiling big programs.

Each program runs through the public API, ``plc.scan(n)`` for a large ``n``
(where the fast-forward runs the scans in one call), on the native engine
and on the Python engine, and as matiec's C compiled with ``gcc -O2``
(:mod:`.matiec`), in alternating rounds of about a fifth of a second each,
so that the machine's load weighs on all alike; the figure is the median
CPU time per scan over the rounds (the machine is shared: its wall clock
counts other work too). The programs: a compute kernel (a bubble sort of
100 INTs and a 16x16 REAL matrix product each scan, written here) and four
programs of tests/data/st (read from the repository; left out, saying so,
when it is not there).
"""

from __future__ import annotations

import gc
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

KERNEL = """PROGRAM prg
  VAR
    a : ARRAY[0..99] OF INT;
    m1, m2, m3 : ARRAY[0..15, 0..15] OF REAL;
    i, j, k, tmp, seed : INT;
    acc : REAL;
    checksum : DINT;
  END_VAR
  seed := seed + 1;
  FOR i := 0 TO 99 DO
    seed := seed * 75 + 74;
    a[i] := seed;
  END_FOR;
  FOR i := 0 TO 98 DO
    FOR j := 0 TO 98 - i DO
      IF a[j] > a[j + 1] THEN
        tmp := a[j]; a[j] := a[j + 1]; a[j + 1] := tmp;
      END_IF;
    END_FOR;
  END_FOR;
  FOR i := 0 TO 15 DO
    FOR j := 0 TO 15 DO
      m1[i, j] := INT_TO_REAL(i - j) * 0.5 + m3[i, j] * 0.001;
      m2[i, j] := INT_TO_REAL(i + j) * 0.25;
    END_FOR;
  END_FOR;
  FOR i := 0 TO 15 DO
    FOR j := 0 TO 15 DO
      acc := 0.0;
      FOR k := 0 TO 15 DO
        acc := acc + m1[i, k] * m2[k, j];
      END_FOR;
      m3[i, j] := acc;
    END_FOR;
  END_FOR;
  checksum := INT_TO_DINT(a[0]) + INT_TO_DINT(a[99]) + REAL_TO_DINT(m3[3, 5]);
END_PROGRAM
"""

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "st"
#: (name, file under tests/data/st or None for the kernel, PROGRAM when there is no
#: configuration)
PROGRAMS = [
    ("bubble sort + 16x16 REAL matrix", None, "prg"),
    ("water_level", "openplc_samples/water_level.st", None),
    ("logic_game_31", "openplc_samples/logic_game_31.st", None),
    ("PPU_13 (three FBs)", "openplc_samples/successed_ST/PPU_13.st", None),
    ("Crane (a CASE state machine)", "openplc_samples/successed_ST/Crane.st", "CRANE"),
]
ROUND_S = 0.2


def source(entry) -> tuple[str, str] | None:
    """(text, file name) of a program of :data:`PROGRAMS`, None if it is not here."""
    _name, rel, _program = entry
    if rel is None:
        return KERNEL, "kernel.st"
    path = DATA / rel
    return (path.read_text(encoding="latin-1"), path.name) if path.exists() else None


def make_plc(text: str, name: str, program: str | None, engine: str):
    from .project import load
    project = load(name, text=text)
    if project.configuration is not None:
        return project.plc(engine=engine)
    from ..runtime.plc import Plc
    return Plc(project.network(program or next(iter(project.pous))), engine=engine)


def cpu_per_scan(plc, scans: int) -> float:
    t0 = time.process_time_ns()
    plc.scan(scans)
    return (time.process_time_ns() - t0) / scans


def sized(measure, first: int = 10) -> int:
    """Scans making a round of about :data:`ROUND_S`."""
    per = max(measure(first), 1.0)
    return max(first, int(ROUND_S * 1e9 / per))


def compare(entry, matiec, rounds: int) -> dict:
    """Per engine, the median CPU ns a scan took (and the native compile time)."""
    text, name = source(entry)
    program = entry[2]
    out = {"program": entry[0]}
    t0 = time.perf_counter()
    native = make_plc(text, name, program, "native")
    native.scan(1)
    out["native_compile_s"] = time.perf_counter() - t0
    python = make_plc(text, name, program, "python")
    # a run too (a scan, then a run of two): the Python engine writes its held
    # fast-forward at the first run, which would make the first round's size
    python.scan(3)
    c = None
    if matiec is not None:
        from .matiec import CProgram
        try:
            c = CProgram(matiec, text, program or "", native.main.cycle_us)
        except RuntimeError as e:
            out["c_error"] = str(e)
    runs = {"native": [], "python": [], "c": []}
    sizes = {"native": sized(lambda n: cpu_per_scan(native, n)),
             "python": sized(lambda n: cpu_per_scan(python, n))}
    if c is not None:
        sizes["c"] = max(10, int(ROUND_S * 1e9 / max(c.time(10, 1)[0], 1.0)))
    try:
        for _ in range(rounds):
            if c is not None:
                runs["c"] += c.time(sizes["c"], 1)
            runs["native"].append(cpu_per_scan(native, sizes["native"]))
            runs["python"].append(cpu_per_scan(python, sizes["python"]))
    finally:
        if c is not None:
            c.close()
    for key, values in runs.items():
        if values:
            out[key] = statistics.median(values)
            out[key + "_spread"] = (min(values), max(values))
    return out


def verdict(native: float, c: float | None) -> str:
    """The target: within 3x of matiec's C, or under 20 ns where the C takes under 7."""
    if c is None:
        return "(no C)"
    ok = native <= 3 * c or (c < 7 and native < 20)
    return "PASS" if ok else "MISS"


def _ns(x: float) -> str:
    return f"{x / 1000:,.2f} us" if x >= 1000 else f"{x:.1f} ns"


def programs(matiec_dir: str | None = None, rounds: int = 5) -> None:
    from . import matiec as M
    matiec, why = M.find(matiec_dir)
    if matiec is None:
        print(f"matiec's C: left out ({why})")
    print(f"{'program':32} {'C -O2':>11} {'native':>11} {'ratio':>6} {'target':>6} "
          f"{'Python':>11} {'native compile':>15}")
    for entry in PROGRAMS:
        if source(entry) is None:
            print(f"{entry[0]:32} not found under {DATA} (run from the repository)")
            continue
        r = compare(entry, matiec, rounds)
        c = r.get("c")
        print(f"{r['program']:32} {_ns(c) if c else '-':>11} {_ns(r['native']):>11} "
              f"{(r['native'] / c if c else 0):>5.2f}x {verdict(r['native'], c):>6} "
              f"{_ns(r['python']):>11} {r['native_compile_s']:>13.2f} s", flush=True)
        if "c_error" in r:
            print(f"    C: {r['c_error']}")
    print(f"(median CPU time per scan over {rounds} alternating rounds of about {ROUND_S} s; "
          "plc.scan(n) with the fast-forward)")


def an_hour(rounds: int = 3) -> None:
    """An hour of PLC time of Crane (at its task's cycle), on each engine."""
    entry = PROGRAMS[-1]
    if source(entry) is None:
        return
    text, name = source(entry)
    for engine in ("native", "python"):
        times = []
        for _ in range(rounds):
            plc = make_plc(text, name, entry[2], engine)
            t0 = time.perf_counter()
            plc.run_for(3600)
            times.append(time.perf_counter() - t0)
        print(f"an hour of Crane at {plc.main.cycle_us / 1000:g} ms a scan ({plc.scans:,} scans),"
              f" {engine}: {1000 * statistics.median(times):.1f} ms wall (median of {rounds})",
              flush=True)


def statements(n: int) -> str:
    """A PROGRAM of ``n`` statements: assignments with arithmetic, IFs, a CASE."""
    body = []
    for k in range(n // 4):
        body += [f"  a{k % 50} := a{(k + 1) % 50} + {k % 7} * b;",
                 f"  IF a{k % 50} > {k % 100} THEN b := b + 1; ELSE b := b - 1; END_IF;",
                 f"  r := r * 0.5 + INT_TO_REAL(a{(k + 3) % 50});",
                 "  CASE b MOD 4 OF 0: c := c + 1; 1, 2: c := c - 1; ELSE c := 0; END_CASE;"]
    decls = "".join(f"    a{k} : INT;\n" for k in range(50))
    return (f"PROGRAM big\n  VAR\n{decls}    b, c : INT;\n    r : REAL;\n  END_VAR\n"
            + "\n".join(body) + "\nEND_PROGRAM\n")


def _build(kind: str, n: int, engine: str) -> None:
    """In a process of its own (its peak memory is the figure): load and compile."""
    from ..library import load_libraries
    from . import bench
    from .project import load
    load_libraries()
    text = bench.program(n) if kind == "lines" else statements(n)
    gc.collect()
    t0, c0 = time.perf_counter(), _cpu()
    project = load("big.st", text=text)
    t1, c1 = time.perf_counter(), _cpu()
    if project.configuration is not None:
        plc = project.plc(engine=engine)
    else:
        from ..runtime.plc import Plc
        plc = Plc(project.network("big" if kind == "statements" else next(iter(project.pous))),
                  engine=engine)
    plc.scan(1)
    t2, c2 = time.perf_counter(), _cpu()
    peak, child_peak = (resource.getrusage(w).ru_maxrss / 1024
                        for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(f"{t2 - t0:.3f} {peak:.0f} {c1 - c0:.3f} {c2 - c1:.3f} {t2 - t1:.3f} {child_peak:.0f}")


def _cpu() -> float:
    """CPU seconds of this process and its children (a forked compile's share)."""
    own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                       resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def big(kind: str, n: int, engine: str) -> tuple[float, ...]:
    """(seconds, peak MiB, CPU seconds to load, CPU seconds for ``Plc`` and the
    first scan, their seconds, the forked compile's peak MiB, shared pages
    counted) to load, compile and run one scan of a big program."""
    run = subprocess.run([sys.executable, "-c", f"from fbd.st.progbench import _build; "
                          f"_build({kind!r}, {n}, {engine!r})"],
                         capture_output=True, text=True, check=True)
    return tuple(float(x) for x in run.stdout.split()[-6:])


def compiles(rounds: int = 3) -> None:
    for kind, n, engine, target in (("lines", 10_000, "native", "compile + first Plc < 1 s"),
                                    ("statements", 100_000, "python", "< 5 s and 500 MB"),
                                    ("statements", 100_000, "native", "")):
        runs = [big(kind, n, engine) for _ in range(rounds)]
        took = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        load, plc, plc_wall = (statistics.median(r[k] for r in runs) for k in (2, 3, 4))
        child_peak = max(r[5] for r in runs)
        print(f"{n:,} ST {kind} ({engine}): load + compile + first scan {took:.2f} s "
              f"(spread {min(r[0] for r in runs):.2f}-{max(r[0] for r in runs):.2f}), "
              f"of which Plc + first scan {plc_wall:.2f} s; "
              f"CPU: load {load:.2f} s, Plc + first scan {plc:.2f} s (a forked compile's "
              f"included); peak {peak:.0f} MiB, the forked compile's {child_peak:.0f} MiB "
              f"(pages shared with this process counted)  {target}", flush=True)


__all__ = ["programs", "an_hour", "compiles", "statements", "KERNEL", "PROGRAMS"]
