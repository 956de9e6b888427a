"""``python -m fbd.batch.bench``: every engine timed in one run, and the native
batch engine judged against its targets from the figures (never from this
machine's speed: the verdicts are checked on figures made up here)."""

from __future__ import annotations

import json

from fbd.batch import bench
from fbd.native import available


def figures(native_batch_ns: float, build_s: float = 0.5) -> dict:
    """Made-up figures; ``build_s`` the native batch build's CPU time (its wall
    clock is 9 s, a loaded machine's: the verdict takes the CPU time)."""
    def engine(ns, build=0.1, batch=False):
        out = {"scan_us": 1.0, "ns_per_block": ns, "spread_us": (1.0, 1.0), "build_s": 9.0,
               "build_cpu_s": build}
        if batch:
            out |= {"per_instance_blocks": 0, "memory_mib": 1.0}
        return out
    return {"blocks": 2000, "instances": 4096, "seed": 1, "scans": 20, "rounds": 5, "mix": "AND",
            "load": 3.0, "engines": {
                "python": engine(50.0), "native": engine(2.0),
                "numpy batch": engine(1.5, batch=True),
                "native batch": engine(native_batch_ns, build_s, batch=True)}}


def verdicts(text: str) -> list[str]:
    return [line.split()[-1] for line in text.splitlines() if line.endswith(("PASS", "MISS"))]


def test_the_report_passes_targets_met_and_misses_each_one_missed():
    assert verdicts(bench.report(figures(0.1))) == ["PASS", "PASS", "PASS"]
    # 0.16 ns: 12.5x the scalar native engine's 2.0, but 9.4x the numpy batch's 1.5
    assert verdicts(bench.report(figures(0.16))) == ["PASS", "MISS", "PASS"]
    assert verdicts(bench.report(figures(0.1, build_s=2.5))) == ["PASS", "PASS", "MISS"]
    assert "load average 3.0" in bench.report(figures(0.1))


def test_a_small_run_times_every_engine_per_block_and_per_instance(capsys):
    assert bench.main(["--blocks", "60", "-n", "40", "--scans", "2", "--rounds", "1",
                       "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    expected = {"python", "numpy batch"} | ({"native", "native batch"} if available() else set())
    assert set(r["engines"]) == expected
    assert r["instances"] == 40 and r["blocks"] >= 60
    for name, e in r["engines"].items():
        assert e["ns_per_block"] > 0 and e["build_s"] > 0 and e["build_cpu_s"] >= 0, name
        assert ("memory_mib" in e) == ("batch" in name)
    assert bench.report(r).count("PASS") + bench.report(r).count("MISS") == (
        3 if available() else 0)
