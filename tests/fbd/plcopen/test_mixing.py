"""Text POUs holding and calling FBD and LD POUs of their project, as matiec runs them.

An ST program that holds an FBD function block or calls an FBD function runs
the ST Beremiz's generator writes for the drawing (``fbd.plcopen.graphical_pou``);
the values are matiec's, running that ST by hand (``_TMP_`` variables, ``EN :=``
and ``ENO =>`` as the generator writes them). And every FBD and LD POU of the
real projects vendored here runs the same scans as its network and as that ST.
"""

from __future__ import annotations

import random

import pytest

from fbd import types as t
from fbd.plcopen import PlcOpenError, load_project
from fbd.plcopen.textpous import program_network
from fbd.testing import Harness
from tests.fbd.plcopen import files as f
from tests.fbd.plcopen.test_languages import _st_pou

#: FBD: Sum := ADD(Sum, I); Last := MOVE(EN := Go, IN := I), written only while enabled
ACC = f.pou("Acc", f.group("inputVars", f.var("I", "INT"), f.var("Go", "BOOL"))
            + f.group("outputVars", f.var("Sum", "INT"), f.var("Last", "INT")),
            f.inv(2, "Sum") + f.inv(3, "I", y=40) + f.inv(5, "Go", y=80)
            + f.block(1, "ADD", {"IN1": (2, None), "IN2": (3, None)}, ["OUT"])
            + f.outv(6, "Sum", 1, pin="OUT")
            + f.block(4, "MOVE", {"EN": (5, None), "IN": (3, None)}, ["ENO", "OUT"], y=80)
            + f.outv(7, "Last", 4, pin="OUT", y=80), kind="functionBlock")
INC = f.pou("Inc", "<returnType><INT/></returnType>" + f.group("inputVars", f.var("X", "INT")),
            f.inv(2, "X") + f.inv(3, "1", y=40)
            + f.block(1, "ADD", {"IN1": (2, None), "IN2": (3, None)}, ["OUT"])
            + f.outv(4, "Inc", 1, pin="OUT"), kind="function")
USER = _st_pou("User", f.group("localVars", f.var("go", "BOOL", at="%IX0.0"))
               + f.group("localVars", '<variable name="a"><type><derived name="Acc"/></type>'
                         "</variable>", f.var("s", "INT"), f.var("l", "INT"), f.var("q", "INT"),
                         f.var("k", "INT")),
               "k := k + 1;\na(I := k, Go := go);\ns := a.Sum;\nl := a.Last;\nq := Inc(s);")
#: go before scan -> (s, l, q, a._TMP_MOVE4_ENO): matiec, go TRUE at scan 3, FALSE at 5
USER_SCANS = [(False, (1, 0, 2, False)), (False, (3, 0, 4, False)), (True, (6, 3, 7, True)),
              (True, (10, 4, 11, True)), (False, (15, 4, 16, False)), (False, (21, 4, 22, False))]


def test_st_holds_an_fbd_function_block_and_calls_an_fbd_function_as_matiec_runs_them(
        tmp_path):
    project = load_project(f.write(tmp_path, ACC, INC, USER))
    assert not project.errors, project.errors
    h = Harness(project.network("User"))
    for k, (go, expected) in enumerate(USER_SCANS, 1):
        h.set(go=go).scan()
        got = (h.get("User.s"), h.get("User.l"), h.get("User.q"), h.get("User.a._TMP_MOVE4_ENO"))
        assert got == expected, f"scan {k}"
    # the FBD POUs still run as networks, and FBD may still place them
    h = Harness(project.network("Acc"))
    h.set(I=2, Go=True).scan(2)
    assert (h.get("Sum"), h.get("Last")) == (4, 2)


def test_a_function_read_before_its_call_gives_the_previous_calls_result(tmp_path):
    """executionOrderId runs the MOVE before the ADD feeding it: a block with an order
    pulls nothing, so Beremiz's MOVE reads _TMP_ADD1_OUT before the ADD computes it,
    and O lags a scan (0, 1, 2)."""
    lag = f.pou("Lag", f.group("inputVars", f.var("I", "INT"))
                + f.group("outputVars", f.var("O", "INT")),
                f.inv(2, "I") + f.inv(3, "0", y=40)
                + f.block(1, "ADD", {"IN1": (2, None), "IN2": (3, None)}, ["OUT"], order=2)
                + f.block(5, "MOVE", {"IN": (1, "OUT")}, ["OUT"], order=1)
                + f.outv(4, "O", 5, pin="OUT"), kind="functionBlock")
    user = _st_pou("User", f.group("localVars", '<variable name="g"><type><derived name="Lag"/>'
                                   "</type></variable>", f.var("k", "INT"), f.var("o", "INT")),
                   "k := k + 1; g(I := k); o := g.O;")
    project = load_project(f.write(tmp_path, lag, user))
    h = Harness(project.network("User"))
    seen = []
    for _ in range(3):
        h.scan()
        seen.append(h.get("User.o"))
    assert seen == [0, 1, 2]
    h = Harness(project.network("Lag"))     # the network lags the same way
    seen = []
    for k in (1, 2, 3):
        h.set(I=k).scan()
        seen.append(h.get("O"))
    assert seen == [0, 1, 2]


def test_what_the_st_of_a_drawing_cannot_say_is_refused_naming_the_pou_and_element(tmp_path):
    none = f.pou("Nothing", "<returnType><INT/></returnType>" + f.group("inputVars",
                                                                        f.var("X", "INT")),
                 f.block(1, "ADD", {}, ["OUT"]) + f.outv(4, "Nothing", 1, pin="OUT"),
                 kind="function")
    user = _st_pou("User", f.group("localVars", f.var("q", "INT")), "q := Nothing(1);")
    project = load_project(f.write(tmp_path, none, user))
    with pytest.raises(PlcOpenError, match=r"POU 'Nothing', element localId 1: this function "
                                           r"has no input connected"):
        project.network("User")


# ------------------------------------------------ the network and the ST agree, on real POUs
#: (project, POU): FBD and LD POUs of the vendored projects, EN wired, executionOrderId,
#: edges, LD set and reset coils, timers, functions POUs; each runs 300 scans
REAL_POUS = [
    ("beremiz_first_steps", "CounterFBD"), ("beremiz_first_steps", "CounterLD"),
    ("beremiz_first_steps", "plc_prg"),
    ("openplc_multi_language", "CounterLD"), ("openplc_multi_language", "plc_prg"),
    ("openplc_blink", "Blink"), ("openplc_traffic_light_fbd", "Trafic_light"),
    ("openplc_arduino_serial_print", "ArduinoPrint"),
    ("matiec_ld_test", "MAIN_TEST"), ("matiec_std_test", "TEST_STRINGS_OPS"),
    ("dancinglights", "program0"), ("spemmcra_dnp3test", "DNP3test"),
    ("beremiz_modbus_test_tcp", "program0"), ("beremiz_mqtt_ssl", "program0"),
]


def _value(tp, rnd):
    if tp is t.BOOL:
        return rnd.random() < 0.3
    if tp is not None and tp.kind is t.Kind.INT:
        return rnd.randint(0, 40)
    return None


@pytest.mark.parametrize("stem, name", REAL_POUS)
def test_an_fbd_or_ld_pou_runs_the_same_scans_as_its_network_and_as_beremizs_st(stem, name):
    project = load_project(f.example(stem))
    net = project.network(name)
    block = project._importer.text.as_text_block(name)
    text_net = program_network(name, block())
    a, b = Harness(net), Harness(text_net)
    inputs = [i for i in net.inputs if i in text_net.inputs]
    watched = list(net.outputs)
    assert watched
    rnd = random.Random(stem + name)
    for scan in range(1, 301):
        for i in inputs:
            value = _value(net.inputs[i][0], rnd)
            if value is not None:
                a.set(**{i: value})
                b.set(**{i: value})
        a.scan()
        b.scan()
        for o in watched:
            there = o if o in text_net.outputs else f"{name}.{o}"
            assert a.get(o) == b.get(there), f"scan {scan}: {o}"


# ------------------------------------------------------------- vendored mixed projects
#: Beremiz's BACnet test project: an ST Simulator (a TON, MOD, REAL arithmetic) placed
#: twice in the FBD program0, which writes its %I variables. scan -> (EnergyCounter,
#: Temperature, Humidity, TempSimulation.seconds), matiec at 20 ms
#: (REAL in single precision there: EnergyCounter, a sum of 3,000 steps, agrees to 1e-4).
#: Temperature, Humidity, Cooler and Heater are %I inputs the body writes, and hold
#: what it wrote, as matiec's located variables do (matiec: Cooler TRUE and Heater
#: FALSE throughout, the set point being 0.0).
BACNET = {1: (0.00131, 18.0, 55.0, 0), 2: (0.00262, 18.0, 55.0, 0),
          51: (0.06680996, 18.1, 55.396553, 1), 500: (0.65499765, 18.9, 58.568966, 9),
          1000: (1.3099931, 19.9, 62.53448, 19), 1501: (1.9662986, 21.0, 66.89655, 30),
          2000: (2.6200404, 21.9, 70.465515, 39), 2951: (3.865955, 23.9, 55.396553, 59),
          3001: (3.9314606, 24.0, 55.793102, 60)}


def test_beremiz_bacnet_runs_as_matiec_runs_it():
    project = load_project(f.example("beremiz_bacnet"))
    assert not project.errors, project.errors
    plc = project.plc()
    for scan in range(1, max(BACNET) + 1):
        plc.scan()
        if scan in BACNET:
            got = tuple(plc.get(f"instance0:{n}") for n in (
                "EnergyCounter", "Temperature", "Humidity", "TempSimulation.seconds",
                "Cooler", "Heater"))
            want = BACNET[scan]
            assert got[0] == pytest.approx(want[0], rel=1e-4), f"scan {scan}"
            assert got[1:3] == pytest.approx(want[1:3], rel=1e-6), f"scan {scan}"
            assert got[3:] == (want[3], True, False), f"scan {scan}"
