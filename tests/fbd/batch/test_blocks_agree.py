"""Every block of the library, in every type it accepts: its vector form (or its
per-instance form) gives what its scalar form gives, instance by instance,
scan by scan, on inputs hypothesis chooses, on both batch engines.

One network per family holds one instance of each configuration: every
binding of the block's type variables, extensible blocks at their smallest
size and one more, both settings of F_TRIG's first-scan pulse, LIFO and FIFO
two deep (so that they fill). The native batch engine's network holds the
configurations with a native form (no STRING, ARRAY or STRUCT); 20 instances
make it a tile of 16 and a tile of 4 with 12 lanes of padding. Hypothesis draws, per IEC type, a few values
besides the type's edges (its limits, 0, 1, -1; for REAL and LREAL NaN, the
infinities, -0.0, the smallest subnormal, 2**24 or 2**53 plus 2, and for REAL
the single-precision 0.1, whose sums expose a double's extra bits; for TIME
small multiples of the
cycle as well as the extremes; for STRING literals of every kind), and a
seed that spreads them over the instances and scans.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blocks
from fbd import Network
from fbd import types as t
from fbd.block import Extensible, registry
from fbd.compiler import flatten
from fbd.native import NativeProgram, NotNative, available
from fbd.real32 import FLT_MAX, round_real32
from tests.fbd.batch.agreement import BATCH_ENGINES, SCALAR_ENGINES, Pair

LANES = {"numpy": 16, "native": 20}
SCANS = 6
#: families none of whose configurations has a native form
NOT_NATIVE = {"strings": "STRING values", "access": "ARRAY and STRUCT values"}
CASES = [pytest.param(family, engine.values[0], marks=engine.marks) for engine in BATCH_ENGINES
         for family in blocks.FAMILIES
         if engine.values[0] == "numpy" or family not in NOT_NATIVE]


def configurations(cls) -> list:
    """Every block ``cls`` can be made as, for the agreement test."""
    group = next((p for p in cls.inputs if isinstance(p, Extensible)), None)
    sizes = [None] if group is None else [group.min, group.min + 1]
    params = [{}]
    if "first_scan_pulse" in cls.params:
        params = [{"first_scan_pulse": True}, {"first_scan_pulse": False}]
    if "depth" in cls.params:
        params = [{"depth": 2}]
    variables = list(cls.types)
    families = [sorted(cls.types[v].members, key=t.ELEMENTARY.index) for v in variables]
    out = []
    for combo in itertools.product(*families):
        for n, p in itertools.product(sizes, params):
            out.append(cls(types=dict(zip(variables, combo)), n=n, **p))
    return out


def _wired(net: Network, label: str, block) -> None:
    """``block`` placed in ``net``, each input wired to a network input of its own."""
    wires = {}
    for port in block.input_ports():
        tp = block.bound_types[port.type] if isinstance(port.type, str) else port.type
        wires[port.name] = net.input(f"{label}_{port.name}", tp)
    net.add(label, block, **wires)


def has_native_form(block) -> bool:
    alone = Network("alone")
    _wired(alone, "b", block)
    try:
        NativeProgram(flatten(alone), build=False)
    except NotNative:
        return False
    return True


@lru_cache(maxsize=None)
def family_pair(family: str, engine: str) -> Pair:
    net = Network(f"agree_{family}")
    k = 0
    for name, cls in sorted(registry().items()):
        if cls.family != family:
            continue
        for block in configurations(cls):
            if engine == "native" and not has_native_form(block):
                continue
            _wired(net, f"b{k}_{name}", block)
            k += 1
    # the native batch network has native forms only: both scalar engines take it
    return Pair(net, LANES[engine], engine,
                scalar=SCALAR_ENGINES if engine == "native" else ("python",))


def _edges(tp) -> list:
    if tp is t.BOOL:
        return [False, True]
    if tp is t.TIME:
        return [0, 5000, 10000, 12000, 15000, -5000, 1, t.TIME.max, t.TIME.min, 10 ** 12]
    if tp.is_integral:
        values = {tp.min, tp.max, 0, 1, 2, tp.min + 1, tp.max - 1, 7}
        if tp.signed:
            values |= {-1, -2}
        return sorted(values)
    if tp is t.REAL:   # its values are single-precision ones
        return [round_real32(x) for x in (
            0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1.5, float("nan"), float("inf"), -float("inf"),
            1e-45, FLT_MAX, 2.0 ** 24 + 2, 0.1, 0.2, 1e19, -1e19, 3.0)]
    if tp.kind == "real":
        return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1.5, float("nan"), float("inf"), -float("inf"),
                5e-324, 1.7976931348623157e308, 2.0 ** 53 + 2, 1e19, -1e19, 3.0]
    return ["", "TRUE", "false", "1", "0", "16#FF", "2#1010", "-7", "40000", "1.5", "-2.5E3",
            "T#1s500ms", "2m", "INT#5", "abc", "ab", "x" * 126, " 12 "]


def _drawn(tp):
    if tp is t.BOOL:
        return st.just([])
    if tp.is_integral:
        return st.lists(st.integers(tp.min, tp.max), max_size=3)
    if tp.kind == "real":
        return st.lists(st.floats(width=tp.bits), max_size=3)
    return st.lists(st.text(alphabet="0123456789#.-+eETtRUFASLs_ xyz", max_size=8), max_size=3)


@pytest.mark.parametrize("family, engine", CASES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(data=st.data())
def test_every_block_of_the_family_agrees_with_its_scalar_form(family, engine, data):
    pair = family_pair(family, engine)
    lanes = pair.lanes
    types = {tp for tp in pair.program.input_types.values()}
    pools = {tp: _edges(tp) + data.draw(_drawn(tp), label=str(tp)) for tp in
             sorted(types, key=t.ELEMENTARY.index)}
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    change = data.draw(st.sampled_from([0.2, 0.5, 1.0]), label="change")
    pair.reset()
    for _scan in range(SCANS):
        for name, tp in pair.program.input_types.items():
            if rng.random() < change:
                pool = pools[tp]
                pair.set(name, [pool[i] for i in rng.integers(0, len(pool), lanes)])
        pair.scan()
        wrong = pair.mismatches()
        assert not wrong, "\n".join(wrong)


@pytest.mark.skipif(not available(), reason="llvmlite is not installed")
def test_the_native_families_leave_out_only_what_has_no_native_form():
    for family, what in NOT_NATIVE.items():
        assert not family_pair(family, "native").program.flat.leaves, what
    pair = family_pair("memory", "native")
    assert pair.batch.engine == "native"
    assert {"LIFO(INT, depth=2)", "FIFO(REAL, depth=2)"} <= set(pair.batch.per_instance)
