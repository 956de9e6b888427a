"""``python -m fbd.batch.bench``: the batch engines against the scalar ones, side by side.

On a random network mixing BOOL and INT logic, arithmetic, comparisons,
selection, memories, timers (TON, TOF, TP with presets of 0-100 ms),
counters and edges (:func:`mixed_network`, 2,000 blocks by default), it
measures in one run, the engines taking turns so that a busy machine slows
them alike:

* the **scalar** engines, Python (:mod:`fbd.compiler.pycode`) and native
  (:mod:`fbd.native`): the compiled scan on one signal table, in a bare
  loop: ns per block;
* the **batch** engines, numpy and native (:mod:`.native`), at n instances
  (4,096 by default), inputs set per instance before every scan as a
  :class:`~.harness.BatchHarness` sets them: ns per block per instance;
* the **build** of each batch program (translation, code, the first table)
  and the compile of the scalar ones, in wall-clock time and in CPU time of
  this process and the child it forks to compile half the chunks.

Each figure is the median of several timed rounds, in CPU time of this
process (``time.process_time``: on a machine shared with other work the
wall clock also counts the time others had the core). The inputs change
every scan (random per instance), so the timers, counters and edges work.
The report judges the native batch engine against its targets: ten times
fewer ns per block per instance than the scalar native engine and than the
numpy batch engine, and a build under 2 s. The build is judged in CPU time:
on a busy machine the wall clock counts the time others had the cores, and
on an idle one the build takes no longer than its CPU time, the child and
this process compiling side by side.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

import numpy as np

from ..compiler.front import flatten
from ..compiler.pycode import compile_network
from ..errors import FbdError
from ..library import load_libraries
from ..native import compile_native, unavailable_reason
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
TARGET_VS_SCALAR = 10.0    # native batch against the scalar native engine, per instance
TARGET_VS_NUMPY = 10.0     # native batch against the numpy batch engine
TARGET_BUILD_S = 2.0       # the native batch program's build at 2,000 blocks
_TIMERS = ("TON", "TOF", "TP")
ENGINES = ("python", "native", "numpy batch", "native batch")


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


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _timed(make):
    """``(thing, wall seconds, CPU seconds)`` of ``make()``."""
    w0, c0 = time.perf_counter(), _cpu()
    thing = make()
    return thing, time.perf_counter() - w0, _cpu() - c0


def run(n_blocks: int = 2000, n: int = 4096, seed: int = 1, scans: int = 20, rounds: int = 5,
        progress=None) -> dict:
    """Measure (see the module docstring); returns the figures, per engine."""
    say = progress or (lambda text: None)
    native = unavailable_reason() is None
    load_libraries()
    say(f"building a {n_blocks}-block network")
    net = mixed_network(n_blocks, seed)
    flat = flatten(net)
    builds, build_cpu, scan_of = {}, {}, {}
    say("compiling the scalar scans")
    scalars = {"python": compile_network}
    if native:
        scalars["native"] = compile_native
    for name, compile_ in scalars.items():
        program, builds[name], build_cpu[name] = _timed(lambda c=compile_: c(net))
        scan_of[name] = (program, program.new_table())
    batches = {"numpy batch": "numpy"} | ({"native batch": "native"} if native else {})
    harness = {}
    for name, engine in batches.items():
        say(f"building the {name} program for {n} instances")
        gc.collect()
        harness[name], builds[name], build_cpu[name] = _timed(
            lambda e=engine: BatchHarness(flat, n=n, engine=e))
    steps = _inputs(flat, n, scans, seed)
    lanes = [{name: v[0].item() for name, v in step.items()} for step in steps]
    times: dict = {name: [] for name in (*scan_of, *harness)}
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds + 1):             # the first round warms every engine up
            say(f"timing, round {r} of {rounds}")
            for name, h in harness.items():
                t0 = time.process_time_ns()
                for step in steps:
                    h.set(step).scan()
                if r:
                    times[name].append((time.process_time_ns() - t0) / scans)
            for name, (program, table) in scan_of.items():
                reps = 10 if name == "python" else 200
                inputs = program.inputs
                t0 = time.process_time_ns()
                for _ in range(reps):
                    for k, step in enumerate(lanes):
                        for input_name, value in step.items():
                            table[inputs[input_name]] = value
                        program.scan(table, k * 5000)
                if r:
                    times[name].append((time.process_time_ns() - t0) / (scans * reps))
    finally:
        if gc_was_on:
            gc.enable()
    blocks = len(flat.leaves)
    engines = {}
    for name, runs in times.items():
        ns = statistics.median(runs)
        per = n if name in harness else 1
        engines[name] = {"scan_us": ns / 1000, "ns_per_block": ns / per / blocks,
                         "spread_us": (min(runs) / 1000, max(runs) / 1000),
                         "build_s": builds[name], "build_cpu_s": build_cpu[name]}
        if name in harness:
            h = harness[name]
            engines[name]["per_instance_blocks"] = sum(
                1 for leaf in flat.leaves if repr(leaf.block) in h.per_instance)
            engines[name]["memory_mib"] = h.memory_needed() / (1 << 20)
    return {"blocks": blocks, "instances": n, "seed": seed, "scans": scans, "rounds": rounds,
            "mix": ", ".join(k.label for k in usable_kinds(MIXED)),
            "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "engines": engines}


def _ratio(r: dict, a: str, b: str):
    e = r["engines"]
    if a not in e or b not in e:
        return None
    return e[b]["ns_per_block"] / e[a]["ns_per_block"]


def report(r: dict) -> str:
    e = r["engines"]
    lines = [
        f"fbd batch bench: a {r['blocks']:,}-block random network, {r['instances']:,} instances, "
        f"seed {r['seed']}",
        f"mix: {r['mix']}; timers with 0-100 ms presets",
        "",
        f"{'engine':14s} {'one scan µs':>12s} {'ns per block':>13s} {'spread µs':>21s} "
        f"{'build s':>8s} {'(CPU)':>6s}",
    ]
    for name in ENGINES:
        if name not in e:
            continue
        x = e[name]
        unit = " per instance" if "batch" in name else ""
        lines.append(f"{name:14s} {x['scan_us']:12,.1f} {x['ns_per_block']:13.3f} "
                     f"{x['spread_us'][0]:10,.1f}-{x['spread_us'][1]:<10,.1f} {x['build_s']:8.2f}"
                     f" {x['build_cpu_s']:6.2f}{unit}")
    lines.append("")
    for name in ("numpy batch", "native batch"):
        if name in e:
            lines.append(f"{name}: {e[name]['per_instance_blocks']} blocks run instance by instance; "
                         f"{e[name]['memory_mib']:.1f} MiB of signals")
    lines.append("")
    vs_scalar = _ratio(r, "native batch", "native")
    vs_numpy = _ratio(r, "native batch", "numpy batch")
    numpy_vs_python = _ratio(r, "numpy batch", "python")
    if numpy_vs_python is not None:
        lines.append(f"numpy batch per instance vs the scalar Python engine  {numpy_vs_python:6.1f}x")
    if vs_scalar is None:
        lines.append(f"native engines: not available here ({unavailable_reason()})")
    else:
        build = e["native batch"]["build_cpu_s"]
        lines += [
            "",
            "target (native batch engine)                        measured  status",
            f"per instance >= {TARGET_VS_SCALAR:.0f}x faster than the scalar native   "
            f"{vs_scalar:7.1f}x  {'PASS' if vs_scalar >= TARGET_VS_SCALAR else 'MISS'}",
            f">= {TARGET_VS_NUMPY:.0f}x faster than the numpy batch engine          "
            f"{vs_numpy:7.1f}x  {'PASS' if vs_numpy >= TARGET_VS_NUMPY else 'MISS'}",
            f"build < {TARGET_BUILD_S:.0f} s at {r['blocks']:,} blocks, in CPU time           "
            f"{build:6.2f} s  {'PASS' if build < TARGET_BUILD_S else 'MISS'}",
        ]
    load = f"; load average {r['load']:.1f}" if r["load"] is not None else ""
    lines += ["", f"CPU time, median of {r['rounds']} rounds of {r['scans']} scans each, the engines "
                  f"taking turns; inputs random per instance, every scan{load}"]
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
