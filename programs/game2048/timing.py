"""The timing study: scans and milliseconds per command, as the article measured them.

``python -m programs.game2048.timing [--moves N] [--seed S] [--cycle MS] [--timed-scans N]``

For each processing variant and placement mode, random play (the *player* is
Python's ``random``; the game is the block program) until ``N`` moves have
been made, starting a new game at game over. For every move it reads from
the PLC:

* **processing**: scans from the one that took the command to the one at
  whose end the cells hold the slid and merged board (both included);
* **with placement**: scans until the new tile is placed and the lock
  released (the whole command).

Presses that change nothing are counted apart (they place no tile). It
prints mean, p95 and max of each in scans and in milliseconds (scans x the
cycle, 5 ms by default), the program's block count, and the median wall-clock
time of one scan of the whole program (5,000 scans each, timed one by one
after play as the runtime's watchdog measures them, the four programs in
turns; every block runs on every scan, so a scan costs about the same in any
state). Progress goes to stderr.

The article (5 ms scans, retry placement, the multi-scan processing): at
most 5 scans of processing, about 80 ms per command on average, 150 ms the
worst it saw, unbounded in principle.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

from .game import Game2048
from .order import DIRECTIONS
from .placement import PLACEMENTS
from .processing import VARIANTS

#: Scans timed one by one, after play, for the median scan time.
SCANS_TIMED = 5000


def percentile(values, q: float):
    """The q-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def play(processing: str, placement: str, moves: int, seed: int, cycle_ms: float = 5.0,
         progress=None):
    """Random play until ``moves`` moves: returns (processing scans, total scans,
    no-op presses, games, the PLC)."""
    g = Game2048(seed=seed, processing=processing, placement=placement, cycle=cycle_ms / 1000)
    player = random.Random(seed)
    proc, total, noops, games = [], [], 0, 0
    while len(total) < moves:
        if games == 0 or g.game_over:
            g.start()
            games += 1
        r = g.press(player.choice(DIRECTIONS))
        if r.moved:
            proc.append(r.processing_scans)
            total.append(r.scans)
            if progress and len(total) % 500 == 0:
                progress(len(total))
        else:
            noops += 1
    return proc, total, noops, games, g.plc


def median_scan_us(plcs: list, scans: int = SCANS_TIMED, rounds: int = 10) -> list[float]:
    """The median wall-clock µs of one scan of each PLC (``scans`` each), timed
    in interleaved rounds so that a busy moment of the machine does not favour
    one of them."""
    times = [[] for _ in plcs]
    for _ in range(rounds):
        for plc, seen in zip(plcs, times):
            for _ in range(max(1, scans // rounds)):
                plc.scan()
                seen.append(plc.stats.last_ns / 1000)
    return [statistics.median(seen) for seen in times]


def summary(values, cycle_ms: float) -> str:
    mean, p95, top = statistics.fmean(values), percentile(values, 95), max(values)
    return (f"{mean:5.2f} {p95:4d} {top:4d}   {mean * cycle_ms:6.1f} {p95 * cycle_ms:6.1f} "
            f"{top * cycle_ms:6.1f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m programs.game2048.timing",
                                     description="The timing study of the 2048 block "
                                                 "program: scans and ms per command.")
    parser.add_argument("--moves", type=int, default=2000,
                        help="moves of random play per configuration (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and the player")
    parser.add_argument("--cycle", type=float, default=5.0, help="scan cycle in ms (default 5)")
    parser.add_argument("--timed-scans", type=int, default=SCANS_TIMED,
                        help=f"scans timed per program for the median (default {SCANS_TIMED})")
    args = parser.parse_args(argv)
    if args.moves < 1:
        parser.error("--moves must be at least 1")
    if args.cycle <= 0:
        parser.error("--cycle must be positive")
    cycle_ms = args.cycle

    rows = []
    for processing in VARIANTS:
        for placement in PLACEMENTS:
            label = f"{processing}/{placement}"
            t0 = time.perf_counter()
            print(f"timing: {label}: playing {args.moves} moves", file=sys.stderr, flush=True)
            proc, total, noops, games, plc = play(
                processing, placement, args.moves, args.seed, cycle_ms,
                lambda n, label=label: print(f"timing: {label}: {n} moves", file=sys.stderr,
                                             flush=True))
            blocks = len(plc.program.leaves)
            rows.append([label, blocks, plc, len(total), noops, games, proc, total])
            print(f"timing: {label}: done in {time.perf_counter() - t0:.1f} s", file=sys.stderr,
                  flush=True)

    print("timing: scan times", file=sys.stderr, flush=True)
    for row, median_us in zip(rows, median_scan_us([row[2] for row in rows], args.timed_scans)):
        row[2] = median_us
    print(f"2048 from blocks: scans per command at {cycle_ms:g} ms cycles, random play, "
          f"seed {args.seed}")
    print()
    head = (f"{'processing/placement':<22} {'blocks':>6} {'scan µs':>8} {'moves':>6} "
            f"{'no-op':>5} {'games':>5}")
    print(head)
    for label, blocks, median_us, moves, noops, games, _p, _t in rows:
        print(f"{label:<22} {blocks:>6} {median_us:>8.0f} {moves:>6} {noops:>5} {games:>5}")
    print()
    print(f"{'':<22} {'scans: mean  p95  max':>22}   {'ms: mean    p95    max':>22}")
    for label, *_rest, proc, total in rows:
        print(f"{label:<22} processing  {summary(proc, cycle_ms)}")
        print(f"{'':<22} + placement {summary(total, cycle_ms)}")
    print()
    print("processing: from the scan that takes the command to the one that leaves the "
          "slid and merged board in the cells;\n+ placement: until the new tile is placed and "
          "the lock released (moves only; presses that change nothing are counted apart).\n"
          "scan µs: median wall-clock time of one scan of the whole program on this machine.")
    print("The article (multi-scan processing, retry placement, 5 ms): processing at most "
          "5 scans (25 ms);\nwith placement about 80 ms on average, 150 ms the worst seen, "
          "unbounded in principle.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
