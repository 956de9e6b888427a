"""BatchHarness(n) equals n scalar Harness runs on random networks: every
signal of every instance, every scan, with inputs that differ per instance.

The networks are :func:`fbd.batch.bench.mixed_network`'s: the synthetic
generator's BOOL/INT mix with timers (presets 0-100 ms), counters, edges,
flip-flops, memories, MUX, MAX/MIN/LIMIT, and feedback wires (loops and
one-scan delays).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blocks  # noqa: F401  (registers the library the generator draws from)
from fbd import BOOL
from fbd.batch import BatchHarness
from fbd.batch.bench import mixed_network
from fbd.testing import Harness
from fbd.tools.synthetic import control_network
from tests.fbd.batch.agreement import same

LANES = 5
SCANS = 14


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


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(blocks_=st.integers(10, 160), seed=st.integers(0, 10 ** 6),
       feedback=st.sampled_from([0.0, 0.03, 0.15]))
def test_a_batch_equals_n_scalar_harness_runs(blocks_, seed, feedback):
    net = mixed_network(blocks_, seed, feedback=feedback)
    batch = BatchHarness(net, n=LANES)
    scalar = [Harness(net) for _ in range(LANES)]
    paths = scalar[0].plc.signals()
    rng = np.random.default_rng(seed)
    for k in range(1, SCANS + 1):
        inputs = _draw_inputs(rng, net, LANES)
        batch.set(inputs)
        for lane, h in enumerate(scalar):
            h.set({name: v[lane].item() for name, v in inputs.items()})
        batch.scan()
        for h in scalar:
            h.scan()
        assert batch.scans == scalar[0].scans == k and batch.time == scalar[0].time
        for path in paths:
            got = batch.get_raw(path).tolist()
            for lane, h in enumerate(scalar):
                want = h.plc.get_raw(path)
                assert same(got[lane], want), (f"scan {k}, instance {lane}: {path} is {got[lane]!r} "
                                               f"in the batch, {want!r} in its Harness")


def test_real_control_loops_equal_n_scalar_runs_scan_by_scan():
    """REAL filters with feedback, float32 in the batch and single-precision floats
    in the scalar engine, with inputs whose doubles single precision rounds."""
    net = control_network(240, 5)
    batch = BatchHarness(net, n=LANES)
    scalar = [Harness(net) for _ in range(LANES)]
    paths = scalar[0].plc.signals()
    rng = np.random.default_rng(5)
    for k in range(1, 41):
        inputs = {f"X{j}": rng.choice([0.1, 16777217.0, -3.3, 1e6 / 3, 250.0], LANES)
                  for j in range(4) if rng.random() < 0.4}
        batch.set(inputs)
        for lane, h in enumerate(scalar):
            h.set({name: float(v[lane]) for name, v in inputs.items()})
        batch.scan()
        for h in scalar:
            h.scan()
        for path in paths:
            got = batch.get_raw(path).tolist()
            for lane, h in enumerate(scalar):
                assert same(got[lane], h.plc.get_raw(path)), (k, lane, path)
