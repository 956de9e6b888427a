"""The native engine gives the Python engine's values, bit for bit: every block
configuration of the library with random and edge-case inputs, and random
networks with feedback loops, compared slot by slot after every scan."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blocks  # noqa: F401  (the library the networks are made of)
from fbd import Plc
from fbd.tools.synthetic import DEFAULT_MIX, control_network, random_network
from tests.fbd.native.agreement import (
    api_value,
    compare_runs,
    differences,
    every_block_network,
    native_blocks,
    random_value,
)

pytest.importorskip("llvmlite")


@pytest.fixture(scope="module")
def every_block():
    """One network of every block configuration, on both engines, compiled once."""
    net, inputs = every_block_network()
    return Plc(net, engine="python"), Plc(net, engine="native"), inputs


def test_every_block_configuration_but_strings_runs_native():
    labels = {block.name for _label, block in native_blocks()}
    assert {"ADD", "DIV", "MOD", "EXPT", "TON", "TOF", "TP", "CTUD", "LIFO", "FIFO", "MUX",
            "SHL", "ROR", "REAL_TO_INT", "TIME_TO_LREAL", "LREAL_TO_ULINT", "TRUNC",
            "F_TRIG", "NOW", "LIMIT"} <= labels
    assert len(native_blocks()) > 1000


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), scans=st.integers(5, 40), change=st.floats(0.05, 0.9))
def test_every_block_agrees_scan_by_scan(every_block, seed, scans, change):
    py, na, inputs = every_block
    py.restart()
    na.restart()
    rng = random.Random(seed)
    names = list(inputs)
    for scan in range(1, scans + 1):
        for name in names:
            if rng.random() < change:
                value = api_value(inputs[name], random_value(inputs[name], rng))
                py.set(name, value)
                na.set(name, value)
        py.scan()
        na.scan()
        diff = differences(py, na)
        assert not diff, f"seed {seed}, scan {scan}: (path, python, native) {diff}"


@pytest.mark.parametrize("seed", [1, 2])
def test_every_block_agrees_with_constants_on_some_inputs(seed):
    """Literal inputs are translated as constants (folded, divided by, shifted by)."""
    net, inputs = every_block_network(literals=0.4, seed=seed)
    rng = random.Random(seed)
    steps = ({n: random_value(tp, rng) for n, tp in inputs.items() if rng.random() < 0.5}
             for _ in range(25))
    compare_runs(net, steps)


#: every block kind the synthetic generator can wire with BOOL and INT
WIDE_MIX = DEFAULT_MIX + (
    ("MUL", "INT", 1), ("DIV", "INT", 1), ("MOD", "INT", 1), ("ABS", "INT", 1),
    ("NEG", "INT", 1), ("LIMIT", "INT", 1), ("MAX", "INT", 1), ("MIN", "INT", 1),
    ("MUX", "INT", 1), ("NE", "INT", 1), ("GE", "INT", 1), ("LT", "INT", 1), ("LE", "INT", 1),
    ("RS", None, 1), ("R_TRIG", None, 1), ("F_TRIG", None, 1), ("CTU", None, 1),
    ("CTD", None, 1), ("CTUD", None, 1), ("TON", None, 1), ("TOF", None, 1), ("TP", None, 1),
    ("MEMORY", "BOOL", 1), ("LIFO", "INT", 1), ("FIFO", "BOOL", 1), ("INT_TO_BOOL", None, 1),
    ("BOOL_TO_INT", None, 1), ("SHL", "INT", 0), ("MOVE", "BOOL", 1),
)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(20, 400), feedback=st.floats(0.0, 0.2))
def test_random_networks_with_feedback_agree(seed, n, feedback):
    net = random_network(n, seed, mix=WIDE_MIX, feedback=feedback)
    rng = random.Random(seed)
    py = Plc(net, engine="python")
    ins = py.program.input_types

    def steps():
        for _ in range(60):
            yield {name: random_value(tp, rng) for name, tp in ins.items() if rng.random() < 0.3}

    compare_runs(net, steps())


def test_the_benchmark_networks_agree():
    net = random_network(3000, 7)
    rng = random.Random(7)
    py = Plc(net, engine="python")
    ins = py.program.input_types
    compare_runs(net, ({n: random_value(tp, rng) for n, tp in ins.items()} for _ in range(100)))


def test_real_control_loops_agree_as_their_single_precision_rounding_accumulates():
    """Filters with feedback (y := y + k * (x - y)) round every step to single
    precision: any difference in one rounding would grow scan by scan."""
    net = control_network(600, 3)
    rng = random.Random(3)
    inputs = [f"X{j}" for j in range(4)]
    steps = ({name: rng.choice([0.1, 16777217.0, -3.3, 1e6 / 3, rng.uniform(-200, 200)])
              for name in inputs if rng.random() < 0.3} for _ in range(120))
    py, _na = compare_runs(net, steps)
    assert py.get("l0.OUT") != 0.0
