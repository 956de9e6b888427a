"""What RETAIN and online change cost: ``python -m fbd.tools.retain_bench [--quick]``.

Prints, each the best of several runs (wall clock, on whatever else the
machine is doing; figures and their reading: docs/performance.md):

* finding the slots a restart keeps (``kept_slots``), which every task does
  when it is made: on the 2048 program and on a random network of 20,000
  blocks with every tenth block marked RETAIN;
* a retain file's snapshot taken between scans (``snapshot.take``, what the
  PLC's thread pays), and written (``snapshot.write``: encode, write, fsync,
  rename, fsync of the directory: the writer thread's), for the random
  network's retained variables;
* an online change of 2048 from ``single_pass`` to ``multi_scan``
  processing: compiling the new program (done before the scan boundary, off
  the PLC's thread in ``fbd serve``), and the change itself at the boundary
  (``replace_program`` of the compiled program, both programs' variables made
  beforehand as ``fbd serve --reload-on-change`` makes them: matching,
  carrying, swapping).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from importlib import import_module

from ..compiler.pycode import compile_network
from ..loading import load_network
from ..runtime import snapshot
from ..runtime.online import compile_for
from ..runtime.plc import Plc
from ..runtime.retain import kept_slots, variables
from .synthetic import random_network


def best_of(runs: int, fn) -> float:
    """The shortest of ``runs`` calls of ``fn``, in ms."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fbd.tools.retain_bench")
    parser.add_argument("--quick", action="store_true", help="smaller programs, fewer runs")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else 7
    blocks = 2_000 if args.quick else 20_000
    from ..library import load_libraries
    from ..modbus.serve import program_names
    load_libraries()
    game = program_names()["2048"]

    big = random_network(blocks, seed=1)
    for k, name in enumerate(list(big.instances)):
        if k % 10 == 0:
            big.retain(name)
    big_program = compile_network(big)
    game_program = compile_network(load_network(game))
    print(f"kept_slots, 2048 ({len(game_program.leaves):,} blocks): "
          f"{best_of(runs, lambda: kept_slots(game_program)):.2f} ms")
    warm, _cold = kept_slots(big_program)
    print(f"kept_slots, random network ({blocks:,} blocks, {len(warm):,} retained slots): "
          f"{best_of(runs, lambda: kept_slots(big_program)):.2f} ms")

    plc = Plc(big_program)
    plc.scan(3)
    print(f"snapshot.take, {len(plc.retained):,} retained variables: "
          f"{best_of(runs, lambda: snapshot.take(plc)):.2f} ms")
    snap = snapshot.take(plc)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.retain")
        ms = best_of(runs, lambda: snapshot.write(path, snap))
        print(f"snapshot.write, the same ({os.path.getsize(path):,} bytes, fsynced): {ms:.2f} ms")

    module, _, attr = game.partition(":")
    build = getattr(import_module(module), attr)      # 2048's build(processing, ...)
    compile_ms = best_of(runs, lambda: compile_for(plc, build("multi_scan")))
    plcs = [Plc(build("single_pass")) for _ in range(runs)]
    news = [compile_for(p, build("multi_scan")) for p in plcs]
    for p in plcs:
        p.scan(10)
        variables(p.main.program)       # as fbd serve's watcher makes them when it starts
    swaps = []
    for p, new in zip(plcs, news):
        t0 = time.perf_counter()
        change = p.replace_program(new)
        swaps.append((time.perf_counter() - t0) * 1000)
    print(f"online change of 2048 to multi_scan: compile {compile_ms:.0f} ms (before the "
          f"boundary), change {min(swaps):.1f} ms at the boundary ({change.carried.summary()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
