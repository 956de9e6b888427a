"""matiec's additional function blocks (PID, RAMP, HYSTERESIS, INTEGRAL, DERIVATIVE,
RTC, SEMA), which Beremiz's and OpenPLC Editor's block libraries offer, in FBD and LD
drawings: they import as the library's blocks and run as matiec runs them, and an
export writes them back as the standard blocks the editors know."""

from __future__ import annotations

import random

import pytest
from lxml import etree

import blocks
from fbd import BOOL, REAL, TIME, Network
from fbd.plcopen import load_project, save
from fbd.testing import Harness
from fbd.types import DT
from tests.blocks.scenario import block_rows
from tests.blocks.test_control import LOOP_ROWS, LOOP_SETS, checkpoints
from tests.fbd.plcopen import files as f
from tests.fbd.plcopen.test_writer import assert_same_scans
from tests.fbd.st import scans

ADDITIONAL = ("PID", "RAMP", "HYSTERESIS", "INTEGRAL", "DERIVATIVE", "RTC", "SEMA")


def test_a_pid_loop_drawn_in_fbd_runs_as_matiec_runs_it(tmp_path):
    """The loop of tests/blocks/test_control.py drawn as Beremiz draws it: a PID
    block, then SUB, DIV and ADD writing PV, which the PID reads on the next scan."""
    iface = (f.group("inputVars", f.var("AUTO", "BOOL"), f.var("SP", "REAL", "50.0"))
             + f.group("outputVars", f.var("PV", "REAL"))
             + f.group("localVars", f.var("ctrl", "@PID"), f.var("lag", "REAL", "20.0")))
    pins = {"AUTO": "AUTO", "PV": "PV", "SP": "SP", "X0": "10.0", "KP": "-0.8", "TR": "2.5",
            "TD": "0.2", "CYCLE": "T#20ms"}
    body = "".join(f.inv(k, expr, y=20 * k) for k, expr in enumerate(pins.values(), 1))
    body += (f.block(10, "PID", {pin: (k, None) for k, pin in enumerate(pins, 1)}, ["XOUT"],
                     inst="ctrl")
             + f.inv(11, "PV", y=200) + f.inv(12, "lag", y=220)
             + f.block(13, "SUB", {"IN1": (10, "XOUT"), "IN2": (11, None)}, ["OUT"], x=300)
             + f.block(14, "DIV", {"IN1": (13, "OUT"), "IN2": (12, None)}, ["OUT"], x=400)
             + f.block(15, "ADD", {"IN1": (11, None), "IN2": (14, "OUT")}, ["OUT"], x=500)
             + f.outv(16, "PV", 15, pin="OUT", x=600))
    net = f.net(tmp_path, f.pou("Main", iface, body))
    assert net.instances["ctrl"].element.name == "PID"
    got = block_rows(net, ["AUTO", "PV", "ctrl.XOUT", "ctrl.ITERM.XOUT"], 3000, LOOP_SETS,
                     cycle_ms=20)
    assert checkpoints(got) == scans.expected(LOOP_ROWS)


def test_a_sema_on_a_rung_is_claimed_and_released_by_contacts(tmp_path):
    """CLAIM from contact A, RELEASE from contact B, BUSY powering coil Q."""
    iface = (f.group("inputVars", f.var("A", "BOOL"), f.var("B", "BOOL"))
             + f.group("outputVars", f.var("Q", "BOOL"))
             + f.group("localVars", f.var("sem", "@SEMA")))
    body = (f.rail(1) + f.contact(2, "A", 1) + f.contact(3, "B", 1, y=40)
            + f.block(4, "SEMA", {"CLAIM": (2, None), "RELEASE": (3, None)}, ["BUSY"],
                      inst="sem", x=150)
            + f.coil(5, "Q", [(4, "BUSY")], x=300) + f.rail(6, x=400, right=True, refs=(5,)))
    h = Harness(f.net(tmp_path, f.pou("Main", iface, body, lang="LD")))
    h.run([({"A": True}, {"Q": True}), ({"A": False}, {"Q": True}), ({"B": True}, {"Q": False}),
           ({"A": True}, {"Q": True}), ({"A": False}, {"Q": False})])


def every_additional_block() -> Network:
    """The seven, each input from an input of the network, each output an output."""
    net = Network("Additional")
    for name in ADDITIONAL:
        block = getattr(blocks, name)()
        inst = net.add(f"{name.lower()}1", block, **{
            p.name: net.input(f"{name}_{p.name}", p.type) for p in block.input_ports()})
        for p in block.output_ports():
            net.output(f"{name}_{p.name}_OUT", inst.port(p.name))
    return net


def random_steps(net: Network, n: int = 300, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    pick = {BOOL: lambda: rng.random() < 0.5, REAL: lambda: rng.choice([0.0, 0.5, -2.25, 3.0,
                                                                         1e30, 0.1]),
            TIME: lambda: rng.choice(["T#0s", "T#20ms", "T#100ms", "T#-10ms"]),
            DT: lambda: rng.choice(["DT#2024-01-31-12:00:00", "DT#1999-12-31-23:59:59.5"])}
    return [{name: pick[tp]() for name, (tp, *_rest) in net.inputs.items() if rng.random() < 0.4}
            for _ in range(n)]


def test_each_exports_as_the_standard_block_and_comes_back_the_same(tmp_path):
    net = every_additional_block()
    path = tmp_path / "additional.xml"
    save(net, path)
    schema = f.schema()
    assert schema.validate(etree.parse(str(path))), schema.error_log
    root = etree.parse(str(path)).getroot()
    assert {b.get("typeName") for b in root.iter(f.NS + "block")} == set(ADDITIONAL)
    assert {p.get("name") for p in root.iter(f.NS + "pou")} == {"Additional"}  # no ST stand-in
    declared = {v.get("name"): v.find(f"{f.NS}type/{f.NS}derived").get("name")
                for v in root.iter(f.NS + "variable") if v.find(f"{f.NS}type/{f.NS}derived")
                is not None}
    assert declared == {f"{name.lower()}1": name for name in ADDITIONAL}
    project = load_project(path)
    imported = project.network(project.configuration.tasks[0].program)
    assert_same_scans(net, imported, random_steps(net))


@pytest.mark.parametrize("name", ADDITIONAL)
def test_a_pou_of_the_project_named_like_one_is_refused_in_st_as_matiec_refuses_it(tmp_path,
                                                                                      name):
    pou = f.st_pou(name, f.group("inputVars", f.var("X", "BOOL"))
                   + f.group("outputVars", f.var("Y", "BOOL")), "Y := X;", kind="functionBlock")
    project = load_project(f.write(tmp_path, pou))
    assert "matiec refuses a second one" in str(project.errors[name])
