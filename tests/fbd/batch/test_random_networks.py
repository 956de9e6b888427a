"""BatchHarness(n) equals n scalar Harness runs on random networks, on both
batch engines against both scalar engines: every signal of every instance,
every scan, with inputs that differ per instance (17 instances on the native
batch engine: a tile of 16 and one more).

The networks are :func:`fbd.batch.bench.mixed_network`'s: the synthetic
generator's BOOL/INT mix with timers (presets 0-100 ms), counters, edges,
flip-flops, memories, MUX, MAX/MIN/LIMIT, and feedback wires (loops and
one-scan delays).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blocks  # noqa: F401  (registers the library the generator draws from)
from fbd import BOOL
from fbd.batch import BatchHarness
from fbd.batch.bench import mixed_network
from fbd.testing import Harness
from fbd.tools.synthetic import control_network
from tests.fbd.batch.agreement import BATCH_ENGINES, SCALAR_ENGINES, same

LANES = {"numpy": 5, "native": 17}
SCANS = 14


def scalar_runs(net, lanes: int) -> list:
    """A Harness per instance on each scalar engine (the native one forced, however
    small the network)."""
    return [Harness(net, engine=engine) for engine in SCALAR_ENGINES for _ in range(lanes)]


def _draw_inputs(rng, net, lanes: int) -> dict:
    out = {}
    for name, (tp, _default) in net.inputs.items():
        if rng.random() < 0.5:
            continue
        if tp is BOOL:
            out[name] = rng.random(lanes) < 0.5
        else:
            out[name] = rng.choice([-32768, -100, -1, 0, 1, 2, 7, 100, 32767], lanes).astype(np.int16)
    return out


@pytest.mark.parametrize("engine", BATCH_ENGINES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(blocks_=st.integers(10, 160), seed=st.integers(0, 10 ** 6),
       feedback=st.sampled_from([0.0, 0.03, 0.15]))
def test_a_batch_equals_n_scalar_harness_runs(engine, blocks_, seed, feedback):
    lanes = LANES[engine]
    net = mixed_network(blocks_, seed, feedback=feedback)
    batch = BatchHarness(net, n=lanes, engine=engine)
    scalar = scalar_runs(net, lanes)
    paths = scalar[0].plc.signals()
    rng = np.random.default_rng(seed)
    for k in range(1, SCANS + 1):
        inputs = _draw_inputs(rng, net, lanes)
        batch.set(inputs)
        for i, h in enumerate(scalar):
            h.set({name: v[i % lanes].item() for name, v in inputs.items()})
        batch.scan()
        for h in scalar:
            h.scan()
        assert batch.scans == scalar[0].scans == k and batch.time == scalar[0].time
        for path in paths:
            got = batch.get_raw(path).tolist()
            for i, h in enumerate(scalar):
                want = h.plc.get_raw(path)
                assert same(got[i % lanes], want), (
                    f"scan {k}, instance {i % lanes}: {path} is {got[i % lanes]!r} in the "
                    f"batch, {want!r} in its Harness on the {h.plc.engine} engine")


@pytest.mark.parametrize("engine", BATCH_ENGINES)
def test_real_control_loops_equal_n_scalar_runs_scan_by_scan(engine):
    """REAL filters with feedback, float32 in the batch and single-precision floats
    in the scalar engines, with inputs whose doubles single precision rounds."""
    lanes = LANES[engine]
    net = control_network(240, 5)
    batch = BatchHarness(net, n=lanes, engine=engine)
    scalar = scalar_runs(net, lanes)
    paths = scalar[0].plc.signals()
    rng = np.random.default_rng(5)
    for k in range(1, 41):
        inputs = {f"X{j}": rng.choice([0.1, 16777217.0, -3.3, 1e6 / 3, 250.0], lanes)
                  for j in range(4) if rng.random() < 0.4}
        batch.set(inputs)
        for i, h in enumerate(scalar):
            h.set({name: float(v[i % lanes]) for name, v in inputs.items()})
        batch.scan()
        for h in scalar:
            h.scan()
        for path in paths:
            got = batch.get_raw(path).tolist()
            for i, h in enumerate(scalar):
                assert same(got[i % lanes], h.plc.get_raw(path)), (k, i, path, h.plc.engine)
