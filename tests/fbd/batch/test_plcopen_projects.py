"""Every POU of the real PLCopen projects that the native engine takes runs in a
native batch, each instance with inputs of its own, and equals scalar runs of
those inputs on both scalar engines, every signal every scan; a POU the native
engine cannot take runs on the numpy batch engine under ``auto``, naming why."""

import random

import pytest

from fbd.batch import BatchHarness
from fbd.native import NotNative
from fbd.plcopen import load_project
from fbd.real32 import round_real32
from tests.fbd.batch.agreement import SCALAR_ENGINES, Pair
from tests.fbd.native.agreement import random_value
from tests.fbd.native.test_plcopen_projects import INVALID, NOT_NATIVE, _pous

pytest.importorskip("llvmlite")

LANES = 17
SCANS = 60


def _value(tp, rng: random.Random):
    value = random_value(tp, rng)
    return round_real32(value) if tp.kind == "real" and tp.bits == 32 else value


@pytest.mark.parametrize("path, pou", _pous())
def test_every_native_pou_agrees_in_a_batch_or_runs_on_numpy_saying_why(path, pou):
    key = (path.name.removesuffix(".plc.xml"), pou)
    if key in INVALID:
        return
    net = load_project(path).pous[pou]
    try:
        pair = Pair(net, LANES, "native", scalar=SCALAR_ENGINES)
    except NotNative as refused:
        auto = BatchHarness(net, n=2)
        assert auto.engine == "numpy"
        for what in refused.reasons:
            assert what in auto.engine_reason
        # a POU in ST, IL or SFC (or placing one) has no form over a batch's lanes
        assert key in NOT_NATIVE or any(leaf.block.no_native_form or leaf.block.procedure
                                        for leaf in auto.flat.leaves)
        return
    rng = random.Random(pou)
    types = pair.program.input_types
    for _ in range(SCANS):
        for name, tp in types.items():
            if rng.random() < 0.3:
                pair.set(name, [_value(tp, rng) for _lane in range(LANES)])
        pair.scan()
        wrong = pair.mismatches()
        assert not wrong, "\n".join(wrong)
