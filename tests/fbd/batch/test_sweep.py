"""The Dask sweep: batch jobs on a LocalCluster of two workers give what the
same jobs give run here, in the order of their specs."""

import threading

import numpy as np
import pytest

import blocks
from fbd import BOOL, Network
from fbd.batch import BatchHarness

distributed = pytest.importorskip("distributed")

from fbd.batch.sweep import sweep  # noqa: E402


def counter_job(spec: dict) -> np.ndarray:
    """One batch: 64 counters with random pulses from the spec's seed, 50 scans."""
    net = Network("Counter")
    pulse = net.input("PULSE", BOOL)
    ctu = net.add("ctu", blocks.CTU(), CU=pulse, PV=spec["limit"])
    net.output("CV", ctu.CV)
    h = BatchHarness(net, n=64)
    rng = np.random.default_rng(spec["seed"])
    for _ in range(50):
        h.set(PULSE=rng.random(64) < 0.5).scan()
    return h.get("CV")


def test_a_sweep_on_a_local_cluster_of_two_workers_equals_the_jobs_run_here():
    specs = [{"seed": s, "limit": 3 + s} for s in range(6)]
    seen = []
    threads = threading.active_count()
    results = sweep(counter_job, specs, workers=2, processes=False, progress=seen.append)
    assert threading.active_count() == threads   # nothing left running
    for spec, got in zip(specs, results):
        assert got.tolist() == counter_job(spec).tolist()
    assert seen[0].startswith("starting a local Dask cluster of 2 workers")
    assert seen[-1].startswith("6 of 6 jobs done")


def test_an_unreachable_scheduler_is_one_clear_error():
    from fbd import FbdError
    with pytest.raises(FbdError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        sweep(counter_job, [{"seed": 0, "limit": 1}], scheduler="tcp://127.0.0.1:1", timeout=1)
