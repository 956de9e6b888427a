"""Every real PLCopen project of the test data runs native with the Python engine's
values, slot by slot, for hundreds of scans of changing inputs, its POUs written
in ST, IL or SFC included; a POU the native engine cannot take falls back to the
Python engine under ``auto``, naming why."""

import random

import pytest

from fbd import Plc
from fbd.errors import ValidationError
from fbd.native import NotNative, engines
from fbd.plcopen import load_project
from tests.fbd.native.agreement import compare_runs, random_value
from tests.fbd.plcopen import files

pytest.importorskip("llvmlite")

PROJECTS = sorted([*files.DATA.glob("*.plc.xml"), *files.MORE.glob("*.plc.xml")])
#: POUs that import but are not valid networks on either engine (matiec's test of
#: conversions from STRING wires a BOOL into an INT MUX input)
INVALID = {("matiec_std_test", "TEST_FROM_STRINGS"), ("matiec_std_test", "MAIN_TEST")}
#: POUs with blocks or signals the native engine has no form for, and what they hold
NOT_NATIVE = {
    ("beremiz_iec61131_lang_test", "TEMPO_TEST"): "STRING",
    ("beremiz_mqtt_ssl", "program0"): "STRING",
    ("beremiz_svghmi_foreach", "PumpControl"): "CONCAT",
    ("beremiz_svghmi_foreach", "MainStuff"): "CONCAT",
    ("matiec_std_test", "TEST_STRINGS_OPS"): "CONCAT",
    ("matiec_std_test", "TEST_TO_STRINGS"): "BOOL_TO_STRING",
    ("openplc_arduino_serial_print", "ArduinoPrint"): "STRING",
    ("beremiz_iec61131_lang_test", "CONVERSION_TEST"):
        "FUNCTION_BLOCK CONVERSION_TEST, line 23: the STRING variable RESULT has no native form",
}
SCANS = 300


def _pous():
    out = []
    for path in PROJECTS:
        stem = path.name.removesuffix(".plc.xml")
        for name in load_project(path).pous:
            out.append(pytest.param(path, name, id=f"{stem}:{name}"))
    return out


def _changing_inputs(input_types: dict, seed: int):
    """Per scan, each input changes with probability 0.3 to a random (often an edge) value."""
    rng = random.Random(seed)
    for _ in range(SCANS):
        yield {name: random_value(tp, rng) for name, tp in input_types.items()
               if rng.random() < 0.3}


@pytest.mark.parametrize("path, pou", _pous())
def test_every_pou_of_every_project_agrees_on_both_engines_or_falls_back_saying_why(
        path, pou, monkeypatch):
    key = (path.name.removesuffix(".plc.xml"), pou)
    net = load_project(path).pous[pou]
    if key in INVALID:
        with pytest.raises(ValidationError):
            Plc(net, engine="python")
        return
    # auto weighs the program's size first; without that rule it must choose by the blocks
    monkeypatch.setattr(engines, "AUTO_MIN_BLOCKS", 0)
    auto = Plc(net, engine="auto")
    if key in NOT_NATIVE:
        with pytest.raises(NotNative) as refused:
            Plc(net, engine="native")
        assert NOT_NATIVE[key] in str(refused.value)
        assert auto.engine == "python"
        for what in refused.value.reasons:
            assert what in auto.engine_reason
        return
    if any(leaf.block.no_native_form for leaf in auto.program.flat.leaves):
        # a POU written in ST, IL or SFC (or placing one) runs on the Python engine
        with pytest.raises(NotNative) as refused:
            Plc(net, engine="native")
        assert auto.engine == "python"
        for what in refused.value.reasons:
            assert what in auto.engine_reason
        return
    assert auto.engine == "native", auto.engine_reason
    inputs = Plc(net, engine="python").program.input_types
    py, na = compare_runs(net, _changing_inputs(inputs, seed=len(pou)))
    assert na.engine == "native" and na.scans == py.scans == SCANS


def test_the_projects_hold_enough_native_pous_to_mean_something():
    native = [p for p in _pous() if (p.values[0].name.removesuffix(".plc.xml"), p.values[1])
              not in INVALID | set(NOT_NATIVE)]
    assert len(native) >= 25
