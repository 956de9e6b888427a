"""``python -m fbd.batch.bench``: the batch engine against the scalar one, side by side.

On a random network mixing BOOL and INT logic, arithmetic, comparisons,
selection, memories, timers (TON, TOF, TP with presets of 0-100 ms),
counters and edges (:func:`mixed_network`, 2,000 blocks by default), it
measures in one run, alternating the two so that a busy machine slows both
alike:

* the **scalar** engine: the compiled scan (:mod:`fbd.compiler.pycode`) on
  one signal table, in a bare loop: ns per block and scan;
* the **batch** engine at n instances (4,096 by default): ns per block per
  instance, and the per-instance **speedup** (scalar time of one instance's
  scan / batch time per instance);
* the **build** time of the batch program (templates, code generation and the
  first table), and the scalar compile for comparison.

Each engine's figure is the median of several timed rounds, in CPU time of
this process (``time.process_time``: on a machine shared with other work the
wall clock also counts the time others had the core). The inputs change
every scan (random per instance), so the timers, counters and edges work.
The C limit quoted in the report (0.6 ns per block per instance, measured on
the project's machine) is a scalar C program doing the same network's kind
of work; the batch engine is judged against the 20x target.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time

import numpy as np

from ..compiler.front import flatten
from ..compiler.pycode import compile_network
from ..errors import FbdError
from ..library import load_libraries
from ..tools.synthetic import DEFAULT_MIX, random_network, usable_kinds
from .harness import BatchHarness

#: The benchmark's mix: the synthetic default plus timers, counters and edges.
MIXED = DEFAULT_MIX + (
    ("TON", None, 1.0), ("TOF", None, 0.5), ("TP", None, 0.5),
    ("CTU", None, 0.6), ("CTD", None, 0.3), ("CTUD", None, 0.3),
    ("R_TRIG", None, 1.0), ("F_TRIG", None, 0.5), ("RS", None, 0.5),
    ("NE", "INT", 0.5), ("GE", "INT", 0.3), ("LT", "INT", 0.3), ("MUL", "INT", 0.3),
    ("MAX", "INT", 0.3), ("MIN", "INT", 0.3), ("LIMIT", "INT", 0.3), ("MUX", "INT", 0.3),
)
C_LIMIT_NS = 0.6       # ns per block per instance: a C program, on the project's machine
TARGET_SPEEDUP = 20.0
TARGET_BUILD_S = 1.0
_TIMERS = ("TON", "TOF", "TP")


def mixed_network(n_blocks: int, seed: int = 0, **options):
    """:func:`fbd.tools.synthetic.random_network` with :data:`MIXED`, each
    timer given a preset of 0 to 100 ms (a multiple of 5 ms, from ``seed``)."""
    net = random_network(n_blocks, seed, mix=MIXED, **options)
    rng = np.random.default_rng(seed)
    for inst in net.instances.values():
        if inst.type_name in _TIMERS and "PT" not in inst.bindings:
            net.connect(f"T#{5 * int(rng.integers(0, 21))}ms", inst.port("PT"))
    return net


def _inputs(flat, n: int, scans: int, seed: int) -> list[dict]:
    """Random inputs per instance for ``scans`` scans, made before timing."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(scans):
        step = {}
        for name, tp in flat.input_types.items():
            if tp.name == "BOOL":
                step[name] = rng.random(n) < 0.5
            else:
                step[name] = rng.integers(-100, 100, n).astype(np.int16)
        out.append(step)
    return out


def run(n_blocks: int = 2000, n: int = 4096, seed: int = 1, scans: int = 20, rounds: int = 5,
        progress=None) -> dict:
    """Measure (see the module docstring); returns the figures."""
    say = progress or (lambda text: None)
    load_libraries()
    say(f"building a {n_blocks}-block network")
    net = mixed_network(n_blocks, seed)
    flat = flatten(net)
    say("compiling the scalar scan")
    t0 = time.perf_counter()
    scalar = compile_network(net)
    scalar_compile = time.perf_counter() - t0
    say(f"building the batch program for {n} instances")
    gc.collect()
    t0 = time.perf_counter()
    h = BatchHarness(flat, n=n)
    build = time.perf_counter() - t0
    steps = _inputs(flat, n, scans, seed)
    lanes = [{name: v[0].item() for name, v in step.items()} for step in steps]
    table = scalar.new_table()
    inputs = scalar.inputs
    batch_times, scalar_times = [], []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds + 1):             # the first round warms both up
            say(f"timing, round {r} of {rounds}")
            t0 = time.process_time_ns()
            for step in steps:
                h.set(step).scan()
            tb = (time.process_time_ns() - t0) / scans
            reps = 10
            t0 = time.process_time_ns()
            for _ in range(reps):
                for k, step in enumerate(lanes):
                    for name, value in step.items():
                        table[inputs[name]] = value
                    scalar.scan(table, k * 5000)
            ts = (time.process_time_ns() - t0) / (scans * reps)
            if r:
                batch_times.append(tb)
                scalar_times.append(ts)
    finally:
        if gc_was_on:
            gc.enable()
    batch_ns = statistics.median(batch_times)
    scalar_ns = statistics.median(scalar_times)
    blocks = len(flat.leaves)
    per_instance = batch_ns / n
    return {
        "blocks": blocks, "instances": n, "seed": seed, "scans": scans, "rounds": rounds,
        "per_instance_blocks": sum(1 for t in h.program._leaf_templates if not t.vector),
        "mix": ", ".join(k.label for k in usable_kinds(MIXED)),
        "scalar_scan_us": scalar_ns / 1000, "scalar_ns_per_block": scalar_ns / blocks,
        "batch_scan_us": batch_ns / 1000, "batch_ns_per_block_instance": per_instance / blocks,
        "speedup": scalar_ns / per_instance, "build_s": build, "scalar_compile_s": scalar_compile,
        "batch_spread_us": (min(batch_times) / 1000, max(batch_times) / 1000),
        "scalar_spread_us": (min(scalar_times) / 1000, max(scalar_times) / 1000),
        "memory_mib": h.memory_needed() / (1 << 20),
    }


def report(r: dict) -> str:
    ns = r["batch_ns_per_block_instance"]
    lines = [
        f"fbd batch bench: a {r['blocks']:,}-block random network, {r['instances']:,} instances, "
        f"seed {r['seed']}",
        f"mix: {r['mix']}; timers with 0-100 ms presets",
        f"{r['per_instance_blocks']} blocks run per instance, the rest on arrays",
        "",
        f"scalar engine  one scan {r['scalar_scan_us']:10,.1f} µs   {r['scalar_ns_per_block']:7.1f} "
        f"ns per block              (spread {r['scalar_spread_us'][0]:,.1f}-"
        f"{r['scalar_spread_us'][1]:,.1f} µs)",
        f"batch engine   one scan {r['batch_scan_us']:10,.1f} µs   {ns:7.2f} ns per block "
        f"per instance  (spread {r['batch_spread_us'][0]:,.1f}-{r['batch_spread_us'][1]:,.1f} µs)",
        "",
        f"speedup per instance  {r['speedup']:6.1f}x   (target >= {TARGET_SPEEDUP:.0f}x: "
        f"{'PASS' if r['speedup'] >= TARGET_SPEEDUP else 'MISS'})",
        f"vs the C limit        {ns / C_LIMIT_NS:6.2f}x the {C_LIMIT_NS} ns per block per instance "
        f"of C",
        f"batch build           {r['build_s']:6.2f} s    (target < {TARGET_BUILD_S:.0f} s: "
        f"{'PASS' if r['build_s'] < TARGET_BUILD_S else 'MISS'}; the scalar compile took "
        f"{r['scalar_compile_s']:.2f} s)",
        f"memory                {r['memory_mib']:6.1f} MiB of signals",
        "",
        f"CPU time, median of {r['rounds']} rounds of {r['scans']} scans each, the engines "
        f"alternating; inputs random per instance, every scan",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fbd.batch.bench", description=__doc__.split("\n")[0])
    p.add_argument("--blocks", type=int, default=2000, help="blocks in the network (2000)")
    p.add_argument("-n", "--instances", type=int, default=4096, help="instances (4096)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scans", type=int, default=20, help="scans per timed round (20)")
    p.add_argument("--rounds", type=int, default=5, help="timed rounds (5)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    try:
        r = run(args.blocks, args.instances, args.seed, args.scans, args.rounds,
                progress=lambda text: print(f"bench: {text}", file=sys.stderr, flush=True))
    except FbdError as err:
        print(f"fbd: error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(r, indent=2) if args.json else report(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
