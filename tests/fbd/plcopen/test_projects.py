"""Real FBD and LD projects (tests/data/plcopen, with their origins in README.md and
MORE.md): each runs a scenario as Beremiz and OpenPLC run it, and comes back
unchanged through an export that validates against the TC6 schema.

Every scenario's expected values were produced by matiec (the compiler in
Beremiz and OpenPLC) running the ST that Beremiz's own PLCGenerator makes of
the project, with the same inputs before each scan; REALs compare to seven
digits (matiec computes REAL in single precision, we in double)."""

from __future__ import annotations

import datetime

import pytest
from lxml import etree

from fbd.plcopen import PlcOpenError, load_project, save
from fbd.runtime.plc import Plc
from tests.fbd.plcopen import files as f


def _dt(seconds: int) -> datetime.datetime:
    """A DATE_AND_TIME so many seconds after 1970-01-01, where the PLC clock starts."""
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)


# (project, POU, cycle in ms, [(inputs set before the scan, outputs after it), ...])
SCENARIOS = [
    ('beremiz_svghmi_xy_counter_sincos', 'program0', 20, [
        ({}, {'counter': 1, 'trendval0': 0.9998477, 'trendval1': 0.0174524}),
        ({}, {'counter': 2, 'trendval0': 0.9993908, 'trendval1': 0.0348995}),
        ({}, {'counter': 3, 'trendval0': 0.9986295, 'trendval1': 0.0523359}),
        ({}, {'counter': 4, 'trendval0': 0.9975641, 'trendval1': 0.0697564}),
    ]),
    ('beremiz_first_steps', 'CounterFBD', 20, [
        ({}, {'OUT': 0, 'Cnt': 1}),
        ({}, {'OUT': 1, 'Cnt': 2}),
        ({'Reset': True}, {'OUT': 2, 'Cnt': 17}),
        ({'Reset': False}, {'OUT': 17, 'Cnt': 18}),
        ({}, {'OUT': 18, 'Cnt': 19}),
    ]),
    ('openplc_multi_language', 'CounterLD', 20, [
        ({}, {'Out': 1, 'Cnt': 1}),
        ({}, {'Out': 2, 'Cnt': 2}),
        ({'Reset': True}, {'Out': 17, 'Cnt': 17}),
        ({'Reset': False}, {'Out': 18, 'Cnt': 18}),
        ({}, {'Out': 19, 'Cnt': 19}),
    ]),
    ('beremiz_svghmi_real', 'MainStuff', 20, [
        ({'var0': -7.31}, {'var1': -7, 'var2': -7, 'var3': -7, 'var5': 0, 'var6': 0, 'var8': 0}),
        ({'var0': 2.5}, {'var1': 2, 'var2': 2, 'var3': 2, 'var5': 2, 'var6': 2, 'var8': 2}),
        ({'var0': 3.5}, {'var1': 4, 'var2': 4, 'var3': 4, 'var5': 4, 'var6': 4, 'var8': 4}),
        ({'var0': 70000.4}, {'var1': 112, 'var2': 4464, 'var3': 70000, 'var5': 112, 'var6': 4464,
                              'var8': 70000}),
        ({'var0': -0.5}, {'var1': 0, 'var2': 0, 'var3': 0, 'var5': 0, 'var6': 0, 'var8': 0}),
    ]),
    ('beremiz_svghmi_i18n', 'MainStuff', 20, [
        ({'TargetPressure': 0}, {'selection': 0}),
        ({'TargetPressure': 7}, {'selection': 7}),
        ({'TargetPressure': -3}, {'selection': -3}),
    ]),
    ('beremiz_svghmi_json_table', 'MainStuff', 20, [
        ({'LocalVar0': 1}, {'LocalVar1': 1}),
        ({'LocalVar0': 41}, {'LocalVar1': 41}),
        ({}, {'LocalVar1': 41}),
    ]),
    ('beremiz_svghmi_pathslider', 'MainStuff', 20, [
        ({'var0': 5}, {'var1': 5}),
        ({'var0': 100}, {'var1': 100}),
        ({}, {'var1': 100}),
    ]),
    ('beremiz_svghmi_references', 'program0', 20, [
        ({'PLCHMIVAR': 3}, {'LocalVar0': 3}),
        ({'PLCHMIVAR': 10}, {'LocalVar0': 10}),
        ({}, {'LocalVar0': 10}),
    ]),
    ('beremiz_svghmi_scrollbar', 'MainStuff', 20, [
        ({'var0': 5}, {'var1': 5}),
        ({'var0': 100}, {'var1': 100}),
        ({}, {'var1': 100}),
    ]),
    ('beremiz_genericmake', 'program0', 20, [
        ({'LocalVara': 2}, {'LocalVarb': 2}),
        ({'LocalVara': 5}, {'LocalVarb': 5}),
        ({}, {'LocalVarb': 5}),
    ]),
    ('beremiz_wamp', 'program0', 20, [
        ({'LocalVar0': 1}, {'PyVar0': 1, 'PyVar1': 1}),
        ({}, {'PyVar0': 2, 'PyVar1': 2}),
        ({'LocalVar0': 10}, {'PyVar0': 12, 'PyVar1': 12}),
        ({}, {'PyVar0': 22, 'PyVar1': 22}),
    ]),
    ('beremiz_mqtt_client', 'plc_prg', 20, [
        ({'LocalVar2': 1}, {'LocalVar0': 1, 'LocalVar1': 666}),
        ({'LocalVar2': 7}, {'LocalVar0': 2, 'LocalVar1': 666}),
        ({}, {'LocalVar0': 3, 'LocalVar1': 666}),
    ]),
    ('kt1260', 'program0', 20, [
        ({'X0': True}, {'Y0': True}),
        ({'X1': True}, {'Y0': True}),
        ({'X0': False, 'Y1': True}, {'Y0': False}),
        ({'X1': False}, {'Y0': False}),
    ]),
    ('openplc_blink', 'Blink', 100, [
        ({}, {'blink_led': False}),
        ({}, {'blink_led': False}),
        ({}, {'blink_led': False}),
        ({}, {'blink_led': False}),
        ({}, {'blink_led': False}),
        ({}, {'blink_led': True}),
        ({}, {'blink_led': True}),
        ({}, {'blink_led': True}),
        ({}, {'blink_led': True}),
        ({}, {'blink_led': True}),
        ({}, {'blink_led': True}),
        ({}, {'blink_led': False}),
        ({}, {'blink_led': False}),
        ({}, {'blink_led': False}),
    ]),
    ('openplc_arduino_7_segments', 'ArduinoSeg', 100, [
        ({}, {'square_wave': False, 'current_count': 0, 'ctu_reset': False}),
        ({}, {'square_wave': False, 'current_count': 0, 'ctu_reset': False}),
        ({}, {'square_wave': True, 'current_count': 1, 'ctu_reset': False}),
        ({}, {'square_wave': True, 'current_count': 1, 'ctu_reset': False}),
        ({}, {'square_wave': True, 'current_count': 1, 'ctu_reset': False}),
        ({}, {'square_wave': False, 'current_count': 1, 'ctu_reset': False}),
        ({}, {'square_wave': False, 'current_count': 1, 'ctu_reset': False}),
        ({}, {'square_wave': False, 'current_count': 1, 'ctu_reset': False}),
        ({}, {'square_wave': True, 'current_count': 2, 'ctu_reset': False}),
        ({}, {'square_wave': True, 'current_count': 2, 'ctu_reset': False}),
        ({}, {'square_wave': True, 'current_count': 2, 'ctu_reset': False}),
        ({}, {'square_wave': False, 'current_count': 2, 'ctu_reset': False}),
    ]),
    # the RTC's date and time when RUN rises, then RTC - START_TIME - T#10s < T#1s once
    # TON0 (10 s) is done: a SUB of two DTs is a TIME. matiec: this body written in ST
    # by the generator's rules (each function with EN writing its variable IF ENO)
    ('beremiz_iec61131_lang_test', 'TEMPO_TEST', 1000, [
        ({}, {'VALID': False, 'RESULT': '', 'START_TIME': _dt(0)}),
        ({}, {'VALID': False, 'RESULT': '', 'START_TIME': _dt(0)}),
        ({'RUN': True}, {'VALID': False, 'RESULT': '', 'START_TIME': _dt(2)}),
        *[({}, {'VALID': False, 'RESULT': '', 'START_TIME': _dt(2)})] * 9,
        ({}, {'VALID': True, 'RESULT': 'OK', 'START_TIME': _dt(2)}),
        ({}, {'VALID': True, 'RESULT': 'OK', 'START_TIME': _dt(2)}),
    ]),
    ('openplc_arduino_serial_print', 'ArduinoPrint', 100, [
        ({}, {'blink_led': False, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': False, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': False, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': False, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': False, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': True, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': True}),
        ({}, {'blink_led': True, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': True, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': True, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': True, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': True, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
        ({}, {'blink_led': False, 'SerialMSG': 'this is a string from ladder', 'PrintMSG': False}),
    ]),
    ('spemmcra_dnp3test', 'DNP3test', 20, [
        ({}, {'PB1': True, 'PB2': False, 'LED': True}),
        ({}, {'PB1': True, 'PB2': False, 'LED': True}),
    ]),
    ('dancinglights', 'program0', 100, [
        ({'AUTO': True}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({'BPON': True}, {'LED1': False, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({'BPON': False}, {'LED1': False, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': True, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': True, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': False, 'LED4': False}),
        ({}, {'LED1': False, 'LED2': False, 'LED3': True, 'LED4': False}),
    ]),
]

#: what the other FBD and LD POUs of the projects do: import, or why not (LOGGER and
#: python_poll are Beremiz's runtime's)
REFUSED = {
    ("beremiz_iec61131_lang_test", "main_test"): "unknown block type 'LOGGER'",
    ("beremiz_logging_tof_beat", "program0"): "unknown block type 'LOGGER'",
    ("beremiz_wxHMI", "ReadGUIdata"): "unknown block type 'python_poll'",
}
PROJECTS = sorted({p.name.removesuffix(".plc.xml") for p in f.DATA.glob("*.plc.xml")}
                  | {p.name.removesuffix(".plc.xml") for p in f.MORE.glob("*.plc.xml")})


def _close(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return a == b


def _run(net, cycle_ms, steps):
    plc = Plc(net, cycle=cycle_ms / 1000)
    for k, (inputs, expected) in enumerate(steps, 1):
        for name, value in inputs.items():
            plc.set(name, value)
        plc.scan()
        got = {name: plc.get(name) for name in expected}
        assert all(_close(got[n], expected[n]) for n in expected), f"scan {k}: {got}"


@pytest.mark.parametrize("stem, pou, cycle, steps", SCENARIOS, ids=[f"{s[0]}:{s[1]}"
                                                                  for s in SCENARIOS])
def test_each_project_runs_as_matiec_runs_beremiz_st(stem, pou, cycle, steps):
    _run(load_project(f.example(stem)).network(pou), cycle, steps)


@pytest.mark.parametrize("stem, pou, cycle, steps", SCENARIOS, ids=[f"{s[0]}:{s[1]}"
                                                                  for s in SCENARIOS])
def test_each_project_round_trips_through_a_valid_export(tmp_path, stem, pou, cycle, steps):
    """LD is exported as FBD; the export validates and runs the same scenario."""
    path = tmp_path / "out.xml"
    save(load_project(f.example(stem)).network(pou), path)
    schema = f.schema()
    assert schema.validate(etree.parse(str(path))), schema.error_log
    project = load_project(path)
    assert not project.errors, project.errors
    _run(project.network(project.configuration.tasks[0].program), cycle, steps)


@pytest.mark.parametrize("stem", PROJECTS)
def test_every_fbd_and_ld_pou_of_every_project_imports_or_says_why(stem):
    project = load_project(f.example(stem))
    for name, lang in project.languages.items():
        if lang not in ("FBD", "LD"):     # ST, IL and SFC: compiled
            assert name in project.pous, project.errors.get(name)
            continue
        if name in project.pous:
            assert (stem, name) not in REFUSED
            continue
        with pytest.raises(PlcOpenError) as e:
            project.network(name)
        assert REFUSED[(stem, name)] in str(e.value), str(e.value)


def test_hierarchical_addresses_are_kept_and_not_served_over_modbus():
    from fbd.compiler import compile_network
    from fbd.modbus.image import unserved
    net = load_project(f.example("beremiz_canopen_master")).network("test_main")
    assert {k: str(v) for k, v in net.addresses.items()} == {
        "PLC_IN": "%IW0.0.2.8192.0", "PLC_OUT": "%QW0.0.2.8193.0"}
    assert [n for n, _ in unserved(compile_network(net))] == ["PLC_IN", "PLC_OUT"]
    net = load_project(f.example("beremiz_mqtt_client")).network("plc_prg")
    assert str(net.addresses["LocalVar1"]) == "%QD0.2"


def test_matiecs_test_project_loads_in_the_tc6_1_0_namespace():
    """matiec's STD_TEST (namespace tc6.xsd, STR1 := 3.456789 unquoted, a STRING at %QB0,
    a %IW it writes): every POU imports; matiec itself no longer compiles it (a MUX of
    BOOLs and INTs), and neither does our compiler."""
    project = load_project(f.example("matiec_std_test"))
    assert set(project.pous) == {"TEST_FROM_STRINGS", "TEST_STRINGS_OPS", "TEST_TO_STRINGS",
                                 "MAIN_TEST"}
    assert project.network("MAIN_TEST").inputs["STR1"][1] == "3.456789"
