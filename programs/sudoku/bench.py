"""Benchmark of the puzzle tools: ``python -m programs.sudoku.bench [--runs N]``.

Solver: every puzzle of ``puzzles/top95.txt`` (95 well-known hard classic
puzzles), median and worst. Generator: ``--runs`` seeded puzzles per kind and
difficulty, median and worst (each includes the uniqueness check; jigsaw
includes making and checking the layout). A last row times ``sum(range(10**6))``
to calibrate the machine (about 15 ms for CPython 3.11 on a current desktop).
Progress on stderr, a table on stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from .files import PUZZLE_DIR
from .generator import generate
from .grader import DIFFICULTIES
from .solver import is_valid_solution, solve


def hard_set() -> list[list[list[int]]]:
    lines = (PUZZLE_DIR / "top95.txt").read_text(encoding="utf-8").splitlines()
    puzzles = []
    for ln in lines:
        ln = ln.strip()
        if ln and not ln.startswith("#"):
            puzzles.append([[0 if ch == "." else int(ch) for ch in ln[r * 9:r * 9 + 9]] for r in range(9)])
    return puzzles


def _timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m programs.sudoku.bench", description=__doc__)
    ap.add_argument("--runs", type=int, default=15, help="puzzles per generator row (default 15)")
    args = ap.parse_args(argv)
    rows = []
    times = []
    cpu = []
    for k, p in enumerate(hard_set(), 1):
        c0 = time.process_time()
        dt, sol = _timed(solve, p)
        cpu.append(time.process_time() - c0)
        assert sol is not None and is_valid_solution(sol)
        times.append(dt)
        print(f"\rsolver: {k}/95", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows.append(("solver, top95 hard set", len(times), statistics.median(times), max(times), "5 / 100"))
    rows.append(("solver, top95, CPU time only", len(cpu), statistics.median(cpu), max(cpu), "5 / 100"))
    for jigsaw in (False, True):
        kind = "jigsaw (layout + puzzle)" if jigsaw else "classic"
        for d in DIFFICULTIES:
            ts = []
            for seed in range(args.runs):
                ts.append(_timed(generate, d, jigsaw=jigsaw, seed=seed)[0])
                print(f"\rgenerate {kind} {d}: {seed + 1}/{args.runs}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            rows.append((f"generate {kind}, {d}", len(ts), statistics.median(ts), max(ts),
                         "1000 median" if jigsaw else "200 median"))
    ref = min(_timed(sum, range(10**6))[0] for _ in range(5))
    rows.append(("machine reference: sum(range(10**6))", 5, ref, ref, "(~15 on a PC)"))
    print(f"{'what':<40} {'n':>4} {'median ms':>10} {'worst ms':>10}  {'bar ms':<12}")
    for what, n, med, worst, bar in rows:
        print(f"{what:<40} {n:>4} {med * 1000:>10.1f} {worst * 1000:>10.1f}  {bar:<12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
