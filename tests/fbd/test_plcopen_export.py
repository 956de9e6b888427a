"""Export to PLCopen TC6 XML (fbd.plcopen.save, fbd export): valid against the
schema, laid out, and importing it back runs identically scan for scan."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest
from lxml import etree

import blocks
from fbd import BOOL, DINT, INT, REAL, STRING, TIME, Network, cli
from fbd.plcopen import load_project, save
from fbd.plcopen_export import ExportError
from fbd.runtime import Plc

XSD = Path(__file__).resolve().parents[3] / "shared" / "plcopen" / "tc6_xml_v201.xsd"
NS = "{http://www.plcopen.org/xml/tc6_0201}"


@pytest.fixture(scope="module")
def schema():
    if not XSD.is_file():
        pytest.skip(f"the PLCopen schema is absent ({XSD})")
    return etree.XMLSchema(etree.parse(str(XSD)))


def _export(net, tmp_path, schema=None):
    path = tmp_path / f"{net.name}.xml"
    save(net, path)
    if schema is not None:
        doc = etree.parse(str(path))
        assert schema.validate(doc), schema.error_log
    return path


def _round_trip(net, tmp_path, schema=None):
    path = _export(net, tmp_path, schema)
    project = load_project(path)
    assert not project.errors, project.errors
    assert project.configuration.tasks[0].program == net.name
    return project.network(project.configuration.tasks[0].program)


def assert_same_scans(original: Network, imported: Network, steps):
    """Both networks, fed the same inputs, give the same outputs after every scan."""
    a, b = Plc(original), Plc(imported)
    for i, inputs in enumerate(steps):
        for name, value in inputs.items():
            a.set(name, value)
            b.set(name, value)
        a.scan()
        b.scan()
        for name in original.outputs:
            assert a.get(name) == b.get(name), f"scan {i + 1}: {name}"


# -- small networks -------------------------------------------------------------------
def latch_macro(name="Latch", reset_wins=False) -> Network:
    net = Network(name)
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    ff = net.add("ff", blocks.RS() if reset_wins else blocks.SR(),
                 **({"S": s, "R1": r} if reset_wins else {"S1": s, "R": r}))
    net.output("Q", ff.Q1)
    return net


def mixed() -> Network:
    """Feedback loops, literals of each kind, timers, edges, an extensible MUX,
    block parameters, two different macros with one name, a located port."""
    net = Network("Mixed", doc="a bit of everything")
    go = net.input("GO", BOOL, at="%IX0.0")
    k = net.input("K", INT, 1)
    count = net.add("count", blocks.ADD(INT), IN2=1)
    net.connect(count.OUT, count.IN1, feedback=True)          # a counter: a loop
    ton = net.add("ton", blocks.TON(), IN=go, PT=timedelta(milliseconds=20))
    tof = net.add("tof", blocks.TOF(), IN=ton.Q, PT="T#15ms")
    edge = net.add("edge", blocks.F_TRIG(first_scan_pulse=False), CLK=tof.Q)
    mux = net.add("mux", blocks.MUX(n=3), K=k, IN0=1.5, IN1=2.25, IN2=-3.0)
    text = net.add("text", blocks.CONCAT(), IN1="it's ", IN2="$5")
    l1 = net.add("l1", latch_macro(), S=edge.Q, R=go)
    l2 = net.add("l2", latch_macro(reset_wins=True), S=go, R=edge.Q)
    big = net.add("big", blocks.MOVE(DINT), IN=70000)
    net.output("COUNT", count.OUT, at="%QW0")
    net.output("PREV", count.OUT, feedback=True)
    net.output("PULSE", edge.Q, at="%QX0.1")
    net.output("M", mux.OUT)
    net.output("TEXT", text.OUT)
    net.output("L1", l1.Q)
    net.output("L2", l2.Q)
    net.output("BIG", big.OUT)
    net.output("GO_ECHO", go)
    net.output("CONST", 7, INT)
    return net


def interleaved() -> Network:
    """Two macros that feed each other without a feedback mark: legal here (the
    blocks interleave), impossible as IEC calls of whole function blocks."""
    a = Network("A")
    x = a.input("X", INT)
    y = a.input("Y", INT)
    inc = a.add("inc", blocks.ADD(INT), IN1=x, IN2=1)
    dbl = a.add("dbl", blocks.MUL(INT), IN1=y, IN2=2)
    a.output("X1", inc.OUT)
    a.output("Y2", dbl.OUT)
    b = Network("B")
    v = b.input("V", INT)
    neg = b.add("neg", blocks.SUB(INT), IN1=v, IN2=3)
    b.output("W", neg.OUT)
    net = Network("Top")
    n = net.input("N", INT)
    ai = net.add("a", a, X=n)
    bi = net.add("b", b, V=ai.X1)
    net.connect(bi.W, ai.Y)
    net.output("OUT", ai.Y2)
    return net


def test_small_network_exports_valid_xml_and_runs_identically(tmp_path, schema):
    net = mixed()
    imported = _round_trip(net, tmp_path, schema)
    steps = [{"GO": i % 9 < 5, "K": i % 3} for i in range(60)]
    assert_same_scans(net, imported, steps)
    assert {n: str(a) for n, a in imported.addresses.items()} == \
        {"GO": "%IX0.0", "COUNT": "%QW0", "PULSE": "%QX0.1"}
    assert imported.inputs["K"] == (INT, 1)
    assert imported.doc == "a bit of everything"


def test_macros_of_one_name_with_different_bodies_become_two_pous(tmp_path):
    root = etree.parse(str(_export(mixed(), tmp_path))).getroot()
    pous = {p.get("name"): p.get("pouType") for p in root.iter(NS + "pou")}
    assert pous == {"Latch": "functionBlock", "Latch_2": "functionBlock", "Mixed": "program"}
    task = root.find(f".//{NS}task")
    assert task.get("interval") == "T#5ms"
    assert task.find(NS + "pouInstance").get("typeName") == "Mixed"


def test_macros_on_a_loop_are_inlined_and_behave_the_same(tmp_path, schema):
    net = interleaved()
    imported = _round_trip(net, tmp_path, schema)
    assert_same_scans(net, imported, [{"N": i} for i in range(5)])
    root = etree.parse(str(tmp_path / "Top.xml")).getroot()
    names = {p.get("name") for p in root.iter(NS + "pou")}
    # A's output X1 does not depend on its input Y, so A cannot run as one call on this
    # loop: it is inlined; B (V -> W) is a whole call on the loop and stays a POU
    assert "B" in names and "A" not in names


def test_a_feedback_wire_becomes_a_variable_written_last(tmp_path):
    root = etree.parse(str(_export(mixed(), tmp_path))).getroot()
    pou = next(p for p in root.iter(NS + "pou") if p.get("name") == "Mixed")
    local = [v.get("name") for v in pou.find(f"{NS}interface/{NS}localVars")]
    assert "fb_1" in local
    orders = {}
    for el in pou.find(f"{NS}body/{NS}FBD"):
        if el.get("executionOrderId"):
            expr = el.find(NS + "expression")
            key = expr.text if expr is not None else el.get("instanceName")
            orders[key] = int(el.get("executionOrderId"))
    assert orders["fb_1"] == max(orders.values())
    # IEC names are case-insensitive: the block "count" is renamed beside the output COUNT
    assert orders["count_2"] < orders["COUNT"]


def test_blocks_do_not_overlap_in_the_exported_diagram(tmp_path):
    root = etree.parse(str(_export(mixed(), tmp_path))).getroot()
    for pou in root.iter(NS + "pou"):
        rects = []
        for blk in pou.iter(NS + "block"):
            p = blk.find(NS + "position")
            rects.append((float(p.get("x")), float(p.get("y")), float(blk.get("width")),
                          float(blk.get("height"))))
        for i, (x, y, w, h) in enumerate(rects):
            for (x2, y2, w2, h2) in rects[i + 1:]:
                assert not (x < x2 + w2 and x2 < x + w and y < y2 + h2 and y2 < y + h)


def test_a_literal_with_no_iec_spelling_is_refused(tmp_path):
    net = Network("Bad")
    m = net.add("m", blocks.MOVE(REAL), IN=float("inf"))
    net.output("O", m.OUT)
    with pytest.raises(ExportError, match="no IEC spelling"):
        save(net, tmp_path / "bad.xml")


def test_types_of_every_kind_round_trip(tmp_path, schema):
    net = Network("Kinds")
    for i, (tp, value) in enumerate([(BOOL, True), (INT, -5), (DINT, 1 << 20), (REAL, 0.5),
                                     (TIME, timedelta(seconds=1.5)), (STRING, "a'b")]):
        x = net.input(f"I{i}", tp, value)
        m = net.add(f"m{i}", blocks.MOVE(tp), IN=x)
        net.output(f"O{i}", m.OUT)
    imported = _round_trip(net, tmp_path, schema)
    assert imported.inputs == net.inputs
    assert_same_scans(net, imported, [{}] * 2)


# -- the whole 2048 program ------------------------------------------------------------
@pytest.mark.parametrize("variant", [("single_pass", "smart"), ("multi_scan", "article")])
def test_2048_exports_valid_xml_and_runs_identically_scan_for_scan(tmp_path, schema, variant):
    from programs.game2048 import build
    net = build(*variant, seed=3)
    imported = _round_trip(net, tmp_path, schema)
    rng = random.Random(7)
    steps, seq = [], 0
    for scan in range(300):
        if scan % 6 == 0:        # a command every 6 scans, as a player would press keys
            seq += 1
            cmd = 5 if scan == 0 else rng.choice([1, 2, 3, 4])
            steps.append({"CMD": cmd, "CMD_SEQ": seq})
        else:
            steps.append({})
    assert_same_scans(net, imported, steps)
    h = Plc(imported)
    for step in steps:
        for k, v in step.items():
            h.set(k, v)
        h.scan()
    assert h.get("SCORE") > 0  # the game was really played
    pous = {p.get("name") for p in etree.parse(str(tmp_path / "Game2048.xml")).iter(NS + "pou")}
    # Control feeds the processing that feeds it back within a scan: it is inlined; the
    # other macros stay function blocks (Move is renamed: IEC names ignore case, MOVE exists)
    assert "Control" not in pous and {"Cell", "Processing", "Move_2", "Random"} <= pous


# -- the command line ------------------------------------------------------------------
def test_fbd_export_writes_a_project(tmp_path, capsys, schema):
    out = tmp_path / "latch.xml"
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o", str(out)])
    _, err = capsys.readouterr()
    assert status == 0, err
    assert schema.validate(etree.parse(str(out))), schema.error_log
    assert "wrote latch" in err


def test_fbd_export_user_errors_are_one_line(tmp_path, capsys):
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o",
                       str(tmp_path / "no" / "x.xml")])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.strip().splitlines()[-1].startswith("fbd: error: -o ")


# -- real programs from the editors -------------------------------------------------------------
EXAMPLES = XSD.parent / "examples"


@pytest.mark.parametrize("stem, pou", [("openplc_traffic_light_fbd", "Trafic_light"),
                                       ("beremiz_first_steps", "CounterFBD"),
                                       ("beremiz_svghmi_xy_counter_sincos", "program0")])
def test_real_fbd_programs_export_and_import_back_unchanged(tmp_path, schema, stem, pou):
    path = EXAMPLES / f"{stem}.plc.xml"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    net = load_project(path).network(pou)
    imported = _round_trip(net, tmp_path, schema)
    inputs = [n for n, (tp, _d) in net.inputs.items() if tp is BOOL]
    steps = [{n: (i // (k + 3)) % 2 == 0 for k, n in enumerate(inputs)} for i in range(300)]
    assert_same_scans(net, imported, steps)
