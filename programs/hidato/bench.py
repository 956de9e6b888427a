"""Timings of the Hidato solver and generator: ``python -m programs.hidato.bench``.

Solver: each puzzle of ``tests/benchmark/hidato`` (published ones: Rosetta
Code's example, Gyora Benedek's book problems, hidato.com's 7x7; generated
10x10 ones) and each bundled puzzle (``programs/hidato/puzzles``) is solved
``--repeat`` times and the median and max time per puzzle group are reported,
with the search nodes; then the worst case of the solver's bounds, open boards
(only the first and the last number given: one guess per number) up to 20x20,
the largest board it takes. Generator: ``generate`` at each size and
difficulty over ``--seeds`` seeds, median and max (``--sizes ''`` skips it).
Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from .board import Board
from .catalog import bundled
from .generator import generate
from .solver import solve_stats

OPEN_SIZES = (10, 15, 20)

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tests" / "benchmark" / "hidato"


def _time(fn, repeat: int) -> float:
    best = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best.append(time.perf_counter() - t)
    return min(best)


def _row(name: str, times: list[float], extra: str = "") -> str:
    return (f"{name:<34} {len(times):>3}  {statistics.median(times) * 1000:>9.1f}  "
            f"{max(times) * 1000:>9.1f}  {extra}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m programs.hidato.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per solve, the fastest counts")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per generator size")
    ap.add_argument("--sizes", default="5,6,8,10",
                    help="generator sizes (square), comma-separated; '' for none")
    ap.add_argument("--difficulties", default="easy,medium,hard")
    args = ap.parse_args(argv)

    groups: dict[str, list[tuple[str, Board]]] = {}
    for path in sorted(BENCH.glob("*.txt")):
        board = Board.read(path)
        kind = "published" if path.name.startswith("published") else "generated"
        rows, cols = board.shape
        size = "8x8" if (rows, cols) == (8, 8) else f"{rows}x{cols}" if kind == "generated" else "other"
        groups.setdefault(f"solve {kind} {size}", []).append((path.name, board))
    for name, board in bundled().items():
        groups.setdefault("solve bundled (5x5..10x10)", []).append((name, board))
    lines = [f"{'what':<34} {'n':>3}  {'median ms':>9}  {'max ms':>9}  notes", "-" * 80]
    for group, boards in sorted(groups.items()):
        times, nodes = [], []
        for name, board in boards:
            print(f"solving {name}", file=sys.stderr, flush=True)
            _, stats = solve_stats(board, 2)
            assert stats.solutions == 1, f"{name} is not unique"
            times.append(_time(lambda b=board: solve_stats(b, 1), args.repeat))
            nodes.append(stats.nodes)
        lines.append(_row(group, times, f"nodes (proving uniqueness): median {statistics.median(nodes):.0f}, "
                                        f"max {max(nodes)}"))
    for n in OPEN_SIZES:
        grid = [[0] * n for _ in range(n)]
        grid[0][0], grid[-1][-1] = 1, n * n
        board = Board.from_rows(grid)
        print(f"solving the open {n}x{n} board", file=sys.stderr, flush=True)
        _, stats = solve_stats(board, 1)
        times = [_time(lambda b=board: solve_stats(b, 1), args.repeat)]
        lines.append(_row(f"solve open {n}x{n} (ends given)", times,
                          f"nodes: {stats.nodes}, guesses {stats.guesses}"))
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        for difficulty in args.difficulties.split(","):
            times, share = [], []
            for seed in range(args.seeds):
                print(f"generating {size}x{size} {difficulty} seed {seed}", file=sys.stderr, flush=True)
                t = time.perf_counter()
                board = generate(size, size, seed=seed, difficulty=difficulty)
                times.append(time.perf_counter() - t)
                share.append(len(board.givens()) / board.cells)
            lines.append(_row(f"generate {size}x{size} {difficulty}", times,
                              f"givens {min(share):.0%}..{max(share):.0%}"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
