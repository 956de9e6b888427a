"""``blocks`` exports every registered block type by name, with plain imports; what
its blocks compute into a REAL is a REAL."""

import math
import random

import blocks
from fbd import Plc
from fbd import types as t
from fbd.block import registry
from fbd.real32 import is_real32
from tests.fbd.native.agreement import api_value, every_block_network, native_blocks, random_value


def test_the_package_names_exactly_the_registered_blocks():
    ours = {name for name, cls in registry().items() if cls.__module__.startswith("blocks.")}
    assert set(blocks.__all__) == ours
    for name in ours:
        assert getattr(blocks, name) is registry()[name]


def test_every_real_a_block_computes_is_a_single_precision_value():
    """REAL is IEEE single precision: whatever a block of the library computes into
    a REAL output or state (every configuration binding a type variable to REAL, or
    with a REAL port) is a value binary32 holds, from inputs that expose a double's
    extra bits (sums of 0.1, 16777217, a third)."""
    configs = [(label, block) for label, block in native_blocks()
               if t.REAL in block.bound_types.values()
               or any(p.type is t.REAL for p in (*block.input_ports(), *block.output_ports()))]
    assert len(configs) > 80
    net, inputs = every_block_network(configs, "reals")
    plc = Plc(net, engine="python")
    reals = [p for p, info in plc.program.signals.items()
             if info.type is t.REAL and not p.startswith(tuple(inputs))]
    rng = random.Random(7)
    values = [0.1, 0.2, 1 / 3, 16777217.0, 3e38, -3e38, 1e-45, 0.5, -2.5, 1e10, 7.0, math.inf,
              math.nan, -0.0]
    for _ in range(12):
        for name, tp in inputs.items():
            plc.set(name, api_value(tp, rng.choice(values) if tp.kind == "real"
                                    else random_value(tp, rng)))
        plc.scan()
        wrong = [(p, plc.get(p)) for p in reals if not is_real32(plc.get(p))]
        assert not wrong, wrong[:5]
