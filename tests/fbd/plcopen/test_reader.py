"""Import of PLCopen TC6 XML FBD and LD POUs (fbd.plcopen): the rules, one file each,
and the five example projects of tests/data/plcopen/."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from fbd.compiler.pycode import compile_network
from fbd.errors import FbdError
from fbd.plcopen import PlcOpenError, load_project
from fbd.testing import Harness
from tests.fbd.plcopen import files as f

EXAMPLES = ("beremiz_first_steps", "beremiz_iec61131_lang_test", "beremiz_logging_tof_beat",
            "beremiz_svghmi_xy_counter_sincos", "openplc_traffic_light_fbd")

# What each example POU with an FBD body does: imports, or the reason it does not.
EXPECTED = {
    ("beremiz_first_steps", "CounterFBD"): None,
    ("beremiz_first_steps", "plc_prg"): None,   # places counters in all five languages
    ("beremiz_iec61131_lang_test", "main_test"): "unknown block type 'LOGGER'",
    ("beremiz_iec61131_lang_test", "TEMPO_TEST"): None,     # matiec's RTC, a SUB of two DTs
    ("beremiz_logging_tof_beat", "program0"): "unknown block type 'LOGGER'",
    ("beremiz_svghmi_xy_counter_sincos", "program0"): None,
    ("openplc_traffic_light_fbd", "Trafic_light"): None,
}


def _example(stem):
    return load_project(f.example(stem))


def test_the_examples_tested_are_the_projects_in_the_data_folder():
    """The five examples; the other real projects are in more/ (see MORE.md)."""
    assert sorted(p.name.removesuffix(".plc.xml") for p in f.DATA.glob("*.plc.xml")) == \
        list(EXAMPLES)


@pytest.mark.parametrize("stem", EXAMPLES)
def test_every_example_loads_and_each_fbd_or_ld_pou_imports_or_says_why(stem):
    project = _example(stem)
    assert project.languages, "no POUs found"
    for name, lang in project.languages.items():
        if name in project.pous:
            compile_network(project.pous[name])  # a real, valid network
            assert EXPECTED.get((stem, name), None) is None
            continue
        err = project.errors[name]
        assert isinstance(err, PlcOpenError)
        assert lang in ("FBD", "LD"), err     # ST, IL and SFC POUs all compile
        assert "localId" in str(err)
        assert EXPECTED[(stem, name)] in str(err)


def test_traffic_light_runs_as_drawn():
    """OpenPLC's traffic light: red (First_cycle) 6 s after its trigger, then green
    6 s, then orange 4 s, then red again; each lamp starts on the fall of the last."""
    net = _example("openplc_traffic_light_fbd").network("Trafic_light")
    h = Harness(net, cycle=0.1)
    h.scan()
    # first scan: First_cycle (initially TRUE, read before it is cleared) lights red;
    # F_TRIG1 sees a FALSE CLK on its first scan, as IEC's F_TRIG does, so orange too
    assert h.get("O_LEDRed") is True
    assert h.get("O_LEDOrange") is True
    assert h.get("First_cycle") is False
    changes, prev = [], (True, True, False)
    for _ in range(600):
        h.scan()
        state = tuple(h.get(n) for n in ("O_LEDRed", "O_LEDOrange", "O_LEDGreen"))
        if state != prev:
            changes.append((round(h.time, 1), state))
            prev = state
    lit = [(tm, s) for tm, s in changes if any(s)]
    R, O, G = (True, False, False), (False, True, False), (False, False, True)
    # red alone once orange's first-scan pulse ends, then green, orange, red, ...
    assert [s for _, s in lit[:8]] == [R, G, O, R, G, O, R, G]
    starts = [tm for tm, _ in lit]
    assert starts[2] - starts[1] == pytest.approx(6.1, abs=0.25)  # green for 6 s
    assert starts[3] - starts[2] == pytest.approx(4.1, abs=0.25)  # orange for 4 s
    assert starts[4] - starts[3] == pytest.approx(6.1, abs=0.25)  # red for 6 s
    assert starts[7] - starts[4] == pytest.approx(starts[4] - starts[1], abs=0.25)


def test_beremiz_counter_fbd_loops_through_a_variable():
    """CounterFBD, as Beremiz generates it: ``OUT := Cnt; _TMP_ADD4_OUT := ADD(1, Cnt);
    _TMP_SEL7_OUT := SEL(Reset, _TMP_ADD4_OUT, ResetCounterValue); Cnt := _TMP_SEL7_OUT;``
    OUT is listed first, so it shows Cnt as the previous scan left it."""
    project = _example("beremiz_first_steps")
    net = project.network("CounterFBD")
    h = Harness(net)
    # the external constant takes the configuration's global initial value
    assert net.inputs["ResetCounterValue"][1] == 17
    for n in (1, 2, 3):
        h.scan()
        h.expect(OUT=n - 1, Cnt=n)
    h.set(Reset=True).scan()
    h.expect(OUT=3, Cnt=17)
    h.set(Reset=False).scan()
    h.expect(OUT=17, Cnt=18)


def test_svghmi_counter_runs():
    net = _example("beremiz_svghmi_xy_counter_sincos").network("program0")
    h = Harness(net)
    h.scan(5)  # runs without error; its outputs are numbers
    for name in net.outputs:
        assert isinstance(h.get(name), (int, float))


# -- small files written here ------------------------------------------------------


def test_negated_and_edge_pins_connectors_literals_and_macros(tmp_path):
    fb = f.pou("Gate", "<inputVars>" + f.var("A", "BOOL") + f.var("B", "BOOL") + "</inputVars>"
              "<outputVars>" + f.var("Y", "BOOL") + "</outputVars>",
              f.inv(1, "A") + f.inv(2, "B")
              + f.block(3, "AND", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"],
                       extra={"IN2": ' negated="true"'})
              + f.outv(4, "Y", 3, pin="OUT"),
              kind="functionBlock")
    prog = f.pou("Main",
                "<inputVars>" + f.var("X", "BOOL") + f.var("Z", "BOOL") + "</inputVars>"
                "<outputVars>" + f.var("G", "BOOL") + f.var("P", "BOOL") + f.var("T", "TIME")
                + "</outputVars>",
                f.inv(1, "X") + f.inv(2, "Z")
                + f.block(3, "Gate", {"A": (1, None), "B": (2, None)}, ["Y"], inst="g1")
                + '<connector name="c1" localId="4"><connectionPointIn>'
                  '<connection refLocalId="3" formalParameter="Y"/></connectionPointIn></connector>'
                + '<continuation name="c1" localId="5"><connectionPointOut/></continuation>'
                + f.outv(6, "G", 5, y=10)
                + f.block(7, "R_TRIG", {"CLK": (1, None)}, ["Q"], inst="rt", y=20,
                         extra={"CLK": ""})
                + f.block(8, "OR", {"IN1": (2, None), "IN2": (1, None)}, ["OUT"], y=30,
                         extra={"IN2": ' edge="rising"'})
                + f.outv(9, "P", 8, y=30, pin="OUT")
                + f.inv(10, "T#1s500ms") + f.outv(11, "T", 10, y=40))
    project = load_project(f.write(tmp_path, fb, prog))
    assert set(project.pous) == {"Gate", "Main"}
    h = Harness(project.network("Main"))
    h.set(X=True, Z=False).scan()
    h.expect(G=True, P=True, T=timedelta(seconds=1.5))
    h.scan()
    h.expect(G=True, P=False)   # the rising-edge pin fired once
    h.set(Z=True).scan()
    h.expect(G=False, P=True)   # B is negated inside the macro


def test_initial_value_read_before_write_and_a_counter_loop(tmp_path):
    prog = f.pou("Main", "<localVars>" + f.var("N", "INT", "10") + "</localVars>"
                "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "N") + f.inv(2, "1")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"], y=0)
                + f.outv(4, "O", 3, y=10, pin="OUT") + f.outv(5, "N", 3, y=20, pin="OUT"))
    h = Harness(load_project(f.write(tmp_path, prog)).network("Main"))
    h.scan()
    h.expect(O=11)  # N starts at its initial value 10 ...
    h.scan(2)
    h.expect(O=13, N=13)  # ... and then reads the previous scan's N


def test_malformed_xml(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<project><types>")
    with pytest.raises(PlcOpenError, match="not well-formed XML"):
        load_project(path)
    path.write_text("<foo/>")
    with pytest.raises(PlcOpenError, match="not a PLCopen <project>"):
        load_project(path)
    with pytest.raises(PlcOpenError, match="cannot read"):
        load_project(tmp_path / "missing.xml")


def test_an_external_entity_is_refused_and_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    path = tmp_path / "evil.xml"
    path.write_text(f'<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM "file://{secret}">]>'
                    '<project xmlns="http://www.plcopen.org/xml/tc6_0201">&x;</project>')
    with pytest.raises(PlcOpenError, match="declares a DTD internal subset") as e:
        load_project(path)
    assert "TOP SECRET" not in str(e.value)


def test_a_billion_laughs_file_is_an_error_not_a_hang(tmp_path):
    lol = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1)) * 10}">' for i in range(1, 10)]
    path = tmp_path / "laughs.xml"
    path.write_text('<?xml version="1.0"?><!DOCTYPE p [' + "".join(lol) + ']>'
                    '<project xmlns="http://www.plcopen.org/xml/tc6_0201">'
                    '<fileHeader companyName="&lol9;"/></project>')
    with pytest.raises(PlcOpenError, match="not well-formed XML|declares a DTD internal subset"):
        load_project(path)


def test_an_external_dtd_is_neither_loaded_nor_fetched(tmp_path):
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY x "expanded">')
    for system in (str(dtd), "http://192.0.2.1/evil.dtd"):   # a file, and no network
        path = tmp_path / "ext.xml"
        path.write_text(f'<?xml version="1.0"?><!DOCTYPE project SYSTEM "{system}">'
                        + f.HEAD.split("?>", 1)[1] + f.TAIL)
        project = load_project(path)
        assert project.pous == {} and project.configuration is None


def test_unknown_block_type_and_unsupported_things_name_pou_and_element(tmp_path):
    prog = f.pou("Main", "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "1") + f.block(7, "FROBNICATE", {"IN": (1, None)}, ["OUT"])
                + f.outv(2, "O", 7, pin="OUT"))
    st = ('<pou name="S" pouType="program"><interface/><body><ST>'
          '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">x := 1;</xhtml:p></ST></body></pou>')
    expr = f.pou("E", "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "a.b + 1") + f.outv(2, "O", 1))
    project = load_project(f.write(tmp_path, prog, st, expr))
    with pytest.raises(PlcOpenError) as e:
        project.network("Main")
    assert "POU 'Main', element localId 7: unknown block type 'FROBNICATE'" in str(e.value)
    assert isinstance(e.value, FbdError)
    with pytest.raises(PlcOpenError, match=r"t.plc.xml:\d+:\d+: in PROGRAM S: x is not declared"):
        project.network("S")
    with pytest.raises(PlcOpenError, match=r"POU 'E', element localId 1: expression 'a.b \+ 1'"):
        project.network("E")
    with pytest.raises(PlcOpenError, match="no POU named 'Nope'"):
        project.network("Nope")


def test_cli_runs_a_pou_of_a_plcopen_file(capsys):
    from fbd.loading import load_network
    path = f.example("beremiz_first_steps")
    assert load_network(f"{path}:CounterFBD").name == "CounterFBD"
    assert load_network(f"{path}:CounterST").name == "CounterST"     # an ST POU runs too
    assert load_network(f"{path}:CounterIL").name == "CounterIL"     # and IL, lowered to ST


# -- EN/ENO, storage, in-out variables -------------------------------------------------
def test_en_false_skips_the_block_and_its_variables_keep_what_they_held(tmp_path):
    """IEC 61131-3 2.5.1.2: a block with EN FALSE does not execute. Beremiz writes an
    output variable fed by such a block only IF its ENO: SUM, OK and CV keep their
    values (OK, written from ENO itself, stays TRUE); a function's own output reads
    its type's initial value (0) meanwhile, and the counter does not count.
    Expected scans from matiec (the ST Beremiz generates for this body)."""
    prog = f.pou("Main", "<inputVars>" + f.var("E", "BOOL") + f.var("C", "BOOL") + f.var("N", "INT")
                 + "</inputVars><outputVars>" + f.var("SUM", "INT") + f.var("OK", "BOOL")
                 + f.var("CV", "INT") + "</outputVars>",
                 f.inv(1, "E") + f.inv(2, "N") + f.inv(3, "C")
                 + f.block(4, "ADD", {"EN": (1, None), "IN1": (2, None), "IN2": (2, None)},
                           ["ENO", "OUT"])
                 + f.outv(5, "SUM", 4, pin="OUT") + f.outv(6, "OK", 4, y=10, pin="ENO")
                 + f.block(7, "CTU", {"EN": (1, None), "CU": (3, None), "R": (1, None),
                                      "PV": (2, None)}, ["ENO", "Q", "CV"], inst="ctu", y=50,
                           extra={"R": ' negated="true"'})
                 + f.outv(8, "CV", 7, y=50, pin="CV"))
    h = Harness(f.net(tmp_path, prog))
    h.run([({"E": True, "N": 3, "C": True}, {"SUM": 6, "OK": True, "CV": 1, "ADD_4.OUT": 6}),
           ({"E": False, "N": 5, "C": False}, {"SUM": 6, "OK": True, "CV": 1}),
           ({"C": True}, {"SUM": 6, "OK": True, "CV": 1, "ctu.CV": 1}),
           ({"C": False}, {"CV": 1}),               # the edge while disabled is not counted
           ({"E": True}, {"SUM": 10, "OK": True, "CV": 1})])


def test_set_and_reset_coils_latch_a_variable(tmp_path):
    prog = f.pou("Main", "<inputVars>" + f.var("S", "BOOL") + f.var("R", "BOOL") + "</inputVars>"
                "<localVars>" + f.var("L", "BOOL") + "</localVars>"
                "<outputVars>" + f.var("Q", "BOOL") + "</outputVars>",
                f.inv(1, "S") + f.inv(2, "R") + f.inv(3, "L", y=40)
                + f.outv(4, "L", 1, y=0, attrs=' storage="set"')
                + f.outv(5, "L", 2, y=20, attrs=' storage="reset"')
                + f.outv(6, "Q", 3, y=40))
    h = Harness(f.net(tmp_path, prog))
    h.run([({"S": True}, {"Q": True}), ({"S": False}, {"Q": True}),
           ({"R": True}, {"Q": False}), ({"R": False}, {"Q": False}),
           ({"S": True, "R": True}, {"Q": False})])   # the reset coil is written last


def test_an_in_out_variable_writes_and_passes_on_the_new_value(tmp_path):
    prog = f.pou("Main", "<localVars>" + f.var("N", "INT") + "</localVars>"
                "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "N") + f.inv(2, "2")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + f.inoutv(4, "N", 3, y=10) + f.outv(5, "O", 4, y=10))
    h = Harness(f.net(tmp_path, prog))
    h.scan()
    h.expect(O=2, N=2)
    h.scan(2)
    h.expect(O=6, N=6)


def test_a_var_in_out_of_a_function_block_writes_back_to_the_callers_variable(tmp_path):
    fb = f.pou("Inc", "<inOutVars>" + f.var("X", "INT") + "</inOutVars>",
              f.inv(1, "X") + f.inv(2, "1")
              + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
              + f.outv(4, "X", 3), kind="functionBlock")
    prog = f.pou("Main", "<localVars>" + f.var("V", "INT", "10") + "</localVars>"
                "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "V") + f.block(2, "Inc", {}, [], inst="inc", inouts={"X": (1, None)})
                + f.inv(3, "V", y=30) + f.outv(4, "O", 3, y=30))
    project = load_project(f.write(tmp_path, fb, prog))
    inc = project.network("Inc")
    assert list(inc.inputs) == ["X"] and list(inc.outputs) == ["X_OUT"]
    h = Harness(project.network("Main"))
    h.scan()
    # Beremiz's order: the output variable O := V runs before the block (blocks no
    # output pulls come last), so O shows V as the previous scan left it
    h.expect(O=10)
    h.scan(4)
    h.expect(O=14)


# -- variables: located, constants, temporaries ----------------------------------------------
def test_located_variables_keep_their_addresses_on_ports(tmp_path):
    """A located local becomes an input (%I, or %M that the body only reads) or an
    output (%Q, or %M that it writes), with its address kept (net.addresses)."""
    prog = f.pou("Main", "<localVars>" + f.var("B", "BOOL", at="%IX0.0")
                + f.var("W", "INT", at="%MW0") + f.var("L", "BOOL", at="%QX0.0")
                + f.var("M", "INT", at="%MW2") + f.var("Q", "INT", at="%QW1") + "</localVars>"
                "<inputVars>" + f.var("A", "INT", at="%IW3") + "</inputVars>",
                f.inv(1, "B") + f.outv(2, "L", 1) + f.inv(3, "W") + f.outv(4, "M", 3, y=10))
    net = f.net(tmp_path, prog)
    assert {k: str(v) for k, v in net.addresses.items()} == {
        "A": "%IW3", "B": "%IX0.0", "W": "%MW0", "L": "%QX0.0", "M": "%MW2", "Q": "%QW1"}
    assert set(net.inputs) == {"A", "B", "W"}
    assert set(net.outputs) == {"L", "M", "Q"}
    h = Harness(net)
    h.set(B=True, W=7).scan()
    h.expect(L=True, M=7, Q=0)


def test_constants_are_literals_and_temporaries_start_each_scan_afresh(tmp_path):
    prog = f.pou("Main", '<localVars constant="true">' + f.var("K", "INT", "5") + "</localVars>"
                "<tempVars>" + f.var("T", "INT", "1") + "</tempVars>"
                "<outputVars>" + f.var("O", "INT") + f.var("P", "INT") + "</outputVars>",
                f.inv(1, "T") + f.inv(2, "K")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + f.outv(4, "T", 3, y=10) + f.inv(5, "T", y=20) + f.outv(6, "O", 5, y=20)
                + f.outv(7, "P", 2, y=30))
    net = f.net(tmp_path, prog)
    assert "K" not in net.inputs and "T" not in net.outputs
    h = Harness(net)
    h.scan(3)
    h.expect(O=6, P=5)   # T := 1 + 5 each scan, never 11


# -- execution order ------------------------------------------------------------------------
def _reader_writer(y_write, y_read, orders=None):
    """X := IN written by one output variable; O := X + 0 through a block pulled by
    another output variable. Who runs first decides whether O sees this scan's X."""
    o = orders or {}
    return f.pou("Main", "<inputVars>" + f.var("IN", "INT") + "</inputVars>"
                "<localVars>" + f.var("X", "INT") + "</localVars>"
                "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "IN") + f.inv(2, "X") + f.inv(3, "0")
                + f.outv(4, "X", 1, y=y_write, attrs=f' executionOrderId="{o.get("w", 0)}"')
                + f.block(5, "ADD", {"IN1": (2, None), "IN2": (3, None)}, ["OUT"], y=y_read,
                         order=o.get("b"))
                + f.outv(6, "O", 5, y=y_read, pin="OUT",
                       attrs=f' executionOrderId="{o.get("r", 0)}"'))


@pytest.mark.parametrize("y_write, y_read", [(0, 100), (100, 0)])
def test_without_execution_order_ids_outputs_run_in_the_order_of_the_file(tmp_path, y_write,
                                                                          y_read):
    """Beremiz's generator means to sort output variables by position, but its
    comparison is operator.eq (since the Python 3 port, in Beremiz and OpenPLC Editor
    alike), so the sort keeps the file's order: here the writer X := IN is listed
    first, and the reader O := X + 0 sees this scan's X wherever either is drawn.
    (Beremiz generates ``X := IN; _TMP_ADD5_OUT := ADD(X, 0); O := _TMP_ADD5_OUT;``.)"""
    h = Harness(f.net(tmp_path, _reader_writer(y_write, y_read)))
    h.set(IN=4).scan()
    h.expect(O=4)


def test_a_reader_listed_before_the_writer_sees_the_previous_scan(tmp_path):
    prog = f.pou("Main", "<inputVars>" + f.var("IN", "INT") + "</inputVars>"
                 "<localVars>" + f.var("X", "INT") + "</localVars>"
                 "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                 f.inv(1, "IN") + f.inv(2, "X")
                 + f.outv(6, "O", 2, y=100, x=300)    # listed first, drawn below
                 + f.outv(4, "X", 1, y=0, x=600))
    h = Harness(f.net(tmp_path, prog))
    h.set(IN=4).scan()
    h.expect(O=0, X=4)
    h.scan()
    h.expect(O=4)


def test_outputs_run_before_blocks_no_output_pulls(tmp_path):
    """Beremiz first generates the output variables (pulling their blocks), then the
    other blocks: an edge detector above the writer of its input still sees this scan's value."""
    prog = f.pou("Main", "<inputVars>" + f.var("IN", "BOOL") + "</inputVars>"
                "<localVars>" + f.var("X", "BOOL") + "</localVars>",
                f.inv(1, "IN", y=100) + f.outv(2, "X", 1, y=100) + f.inv(3, "X")
                + f.block(4, "R_TRIG", {"CLK": (3, None)}, ["Q"], inst="trig", y=0))
    h = Harness(f.net(tmp_path, prog))
    h.set(IN=True).scan()
    assert h.get("trig.Q") is True


def test_execution_order_ids_come_first_and_decide(tmp_path):
    h = Harness(f.net(tmp_path, _reader_writer(0, 100, {"w": 3, "b": 1, "r": 2})))
    h.set(IN=4).scan()
    h.expect(O=0)           # the block (1) and its output (2) run before the writer (3)
    h = Harness(f.net(tmp_path, _reader_writer(100, 0, {"w": 1, "b": 2, "r": 3})))
    h.set(IN=4).scan()
    h.expect(O=4)


def test_a_ton_tof_chain_with_an_edge_pin(tmp_path):
    """TOF fed through a rising-edge pin from TON.Q: one pulse when TON fires, so
    TOF.Q stays TRUE for its PT after it and then falls although TON.Q stays TRUE."""
    prog = f.pou("Main", "<inputVars>" + f.var("GO", "BOOL") + "</inputVars>"
                "<outputVars>" + f.var("ON", "BOOL") + f.var("HOLD", "BOOL") + "</outputVars>",
                f.inv(1, "GO") + f.inv(2, "T#30ms") + f.inv(3, "T#20ms")
                + f.block(4, "TON", {"IN": (1, None), "PT": (2, None)}, ["Q", "ET"], inst="ton")
                + f.block(5, "TOF", {"IN": (4, "Q"), "PT": (3, None)}, ["Q", "ET"], inst="tof",
                         y=50, extra={"IN": ' edge="rising"'})
                + f.outv(6, "ON", 4, pin="Q") + f.outv(7, "HOLD", 5, y=50, pin="Q"))
    h = Harness(f.net(tmp_path, prog), cycle=0.01)
    h.set(GO=True)
    seen = []
    for _ in range(10):
        h.scan()
        seen.append((h.get("ON"), h.get("HOLD")))
    assert seen[:3] == [(False, False)] * 3
    first_on = next(i for i, (on, _) in enumerate(seen) if on)
    assert seen[first_on] == (True, True)
    assert all(on for on, _ in seen[first_on:])
    assert [hold for _, hold in seen[first_on:first_on + 4]] == [True, True, True, False]


# -- configurations ------------------------------------------------------------------------
def _counter_pou(name):
    return f.pou(name, "<localVars>" + f.var("N", "INT") + "</localVars>",
                f.inv(1, "N") + f.inv(2, "1")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + f.outv(4, "N", 3, y=10))


def _with_configuration(tmp_path, *pous, tasks):
    conf = "".join(
        f'<task name="{task}" priority="{prio}" interval="{interval}">'
        f'<pouInstance name="{inst}" typeName="{pou}"/></task>'
        for task, prio, interval, inst, pou in tasks)
    path = tmp_path / "conf.xml"
    path.write_text(f.HEAD + "".join(pous) + "</pous></types><instances><configurations>"
                    f'<configuration name="cfg"><resource name="r">{conf}</resource>'
                    "</configuration></configurations></instances></project>")
    return path


def test_configuration_tasks_run_as_plc_tasks_with_their_intervals(tmp_path):
    path = _with_configuration(tmp_path, _counter_pou("Fast"), _counter_pou("Slow"),
                               tasks=[("t_fast", 1, "T#10ms", "fast", "Fast"),
                                      ("t_slow", 0, "T#30ms", "slow", "Slow")])
    project = load_project(path)
    conf = project.configuration
    assert conf.name == "cfg"
    assert [(s.name, s.program, s.task, s.interval_us, s.priority) for s in conf.tasks] == [
        ("fast", "Fast", "t_fast", 10_000, 1), ("slow", "Slow", "t_slow", 30_000, 0)]
    plc = project.plc()
    plc.scan(6)                      # the first instance is the main task
    assert plc.get("fast:N") == 6
    assert plc.get("slow:N") == 2    # at 0 and 30 ms
    assert [tk.name for tk in plc.tasks] == ["slow", "fast"]   # by priority


def test_cli_runs_the_configuration_or_one_program(tmp_path, capsys):
    from fbd.tools import cli
    path = _with_configuration(tmp_path, _counter_pou("Fast"), _counter_pou("Slow"),
                               tasks=[("t_fast", 1, "T#10ms", "fast", "Fast"),
                                      ("t_slow", 0, "T#30ms", "slow", "Slow")])
    assert cli.main(["run", str(path), "--scans", "4", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "scan,time_s,fast.N,slow.N"
    assert out.splitlines()[-1].split(",")[2:] == ["4", "2"]
    assert "fast (Fast) every T#10ms: 4 scans" in err
    assert cli.main(["run", str(path), "--program", "Slow", "--scans", "2"]) == 0
    out, _ = capsys.readouterr()
    assert out.split() == ["scan", "time", "s", "N", "1", "0.000", "1", "2", "0.005", "2"]
    assert cli.main(["run", f"{path}:Slow", "--scans", "1"]) == 0
    capsys.readouterr()
    assert cli.main(["run", str(path), "--set", "fast.Q=1"]) == 2
    assert "fbd: error:" in capsys.readouterr().err
    # where one network is wanted, a bare project is told which POUs it could name
    assert cli.main(["info", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"fbd: error: {path}: name the POU, as in {path}:Fast (its FBD POUs: Fast, Slow)")


def test_cli_runs_a_real_configuration_and_names_what_cannot_run(capsys):
    from fbd.tools import cli
    path = f.example("openplc_traffic_light_fbd")
    assert cli.main(["run", str(path), "--scans", "2", "--watch", "instance0.O_LEDRed"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].split() == ["scan", "time", "s", "instance0.O_LEDRed"]
    assert "instance0 (Trafic_light) every T#20ms" in err
    assert cli.main(["run", str(f.example("beremiz_first_steps"))]) == 0   # all five languages
    capsys.readouterr()
    assert cli.main(["run", str(f.example("beremiz_logging_tof_beat"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (f"fbd: error: {f.example('beremiz_logging_tof_beat')}: POU 'program0', "
                   f"element localId 11: unknown block type 'LOGGER' (neither a standard block "
                   f"nor a POU of this project)")


# -- every error, naming the POU and the element -------------------------------------------
_IO = "<inputVars>" + f.var("A", "BOOL") + f.var("N", "INT") + "</inputVars>"
ERRORS = [
    ("undeclared variable read", "<localVars>" + f.var("L", "INT") + "</localVars>",
     f.inv(1, "Z") + f.outv(2, "L", 1),
     "element localId 1: 'Z' is not a declared variable"),
    ("undeclared variable written", _IO, f.inv(1, "A") + f.outv(2, "Z", 1),
     "element localId 2: outVariable writes 'Z', which is not a declared variable"),
    ("a constant written", '<localVars constant="true">' + f.var("K", "INT", "1")
     + "</localVars>", f.inv(1, "2") + f.outv(2, "K", 1),
     "element localId 2: the constant 'K' is written"),
    ("a continuation without its connector", "<localVars>" + f.var("L", "BOOL") + "</localVars>",
     '<continuation name="c9" localId="1"><connectionPointOut/></continuation>'
     + f.outv(2, "L", 1), "element localId 1: continuation 'c9' has no connector"),
    ("an open connector", "<localVars>" + f.var("L", "BOOL") + "</localVars>",
     '<connector name="c1" localId="1"><connectionPointIn/></connector>'
     '<continuation name="c1" localId="3"><connectionPointOut/></continuation>'
     + f.outv(2, "L", 3), "element localId 1: connector 'c1' is not connected"),
    ("a loop of connectors", "<localVars>" + f.var("L", "BOOL") + "</localVars>",
     '<connector name="c1" localId="1"><connectionPointIn><connection refLocalId="3"/>'
     '</connectionPointIn></connector>'
     '<continuation name="c1" localId="3"><connectionPointOut/></continuation>'
     + f.outv(2, "L", 3), "element localId 3: a loop of connectors with nothing driving it"),
    ("a wire from nowhere", "<localVars>" + f.var("L", "BOOL") + "</localVars>",
     f.outv(2, "L", 99), "element localId 2: connection to unknown localId 99"),
    ("a set coil on an INT", "<localVars>" + f.var("L", "INT") + "</localVars>",
     f.inv(1, "1") + f.outv(2, "L", 1, attrs=' storage="set"'),
     "element localId 2: a set coil on 'L', which is INT, not BOOL"),
    ("a bad storage modifier", "<localVars>" + f.var("L", "BOOL") + "</localVars>",
     f.inv(1, "TRUE") + f.outv(2, "L", 1, attrs=' storage="toggle"'),
     "element localId 2: storage='toggle' is not a storage modifier"),
    ("a location that is not one", "<localVars>" + f.var("B", "BOOL", at="%QX9.")
     + "</localVars>", f.inv(1, "TRUE") + f.outv(2, "B", 1),
     "variable 'B': B: '%QX9.' is not a located address"),
    ("a location of the wrong size", "<inputVars>" + f.var("B", "BOOL", at="%IW0")
     + "</inputVars>", "", "variable 'B': P.B: %IW0 holds 16 bits but BOOL needs %IX"),
    ("a jump", _IO, '<jump localId="5" label="x"><position x="0" y="0"/></jump>',
     "element localId 5: <jump> is not supported: jumps (control flow) are not imported"),
    ("a duplicate localId", _IO, f.inv(1, "A") + f.inv(1, "N"),
     "element localId 1: two elements have this localId"),
    ("a derived type read", "<localVars><variable name=\"tm\"><type><derived name=\"TON\"/>"
     "</type></variable>" + f.var("L", "INT") + "</localVars>", f.inv(1, "tm") + f.outv(2, "L", 1),
     "element localId 1: reading 'tm' of type TON is not supported"),
    ("bad block data", "<outputVars>" + f.var("O", "INT") + "</outputVars>",
     f.block(2, "MOVE", {}, ["OUT"]).replace(
         "</outputVariables>", '</outputVariables><addData><data name="urn:fbd-sim:block" '
         'handleUnknown="preserve"><b types="T=QUUX"/></data></addData>'),
     "element localId 2: block MOVE: bad types 'T=QUUX' in addData"),
    ("an initial value that is not a literal", "<localVars>" + f.var("L", "INT", "soon")
     + "</localVars>", "", "variable 'L'"),
    ("an array initial value", '<localVars><variable name="L"><type><INT/></type>'
     '<initialValue><arrayValue/></initialValue></variable></localVars>', "",
     "variable 'L': an array initial value for INT"),
]


@pytest.mark.parametrize("iface, body, message", [e[1:] for e in ERRORS],
                         ids=[e[0] for e in ERRORS])
def test_each_import_error_names_the_pou_and_the_element(tmp_path, iface, body, message):
    path = f.write(tmp_path, f.pou("P", iface, body))
    project = load_project(path)  # the file still loads
    with pytest.raises(PlcOpenError) as e:
        project.network("P")
    assert str(e.value).startswith(f"{path}: POU 'P'")
    assert message in str(e.value)


TEXT_BODIES = {
    "ST": '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">x := x + 1;</xhtml:p>',
    "IL": '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">LD x\nADD 1\nST x</xhtml:p>',
    "SFC": ('<step localId="1" name="S0" initialStep="true"/><transition localId="2">'
            '<connectionPointIn><connection refLocalId="1"/></connectionPointIn><condition>'
            '<inline name=""><ST><xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">x &gt; 2'
            '</xhtml:p></ST></inline></condition></transition>'
            '<jumpStep localId="3" targetName="S0"><connectionPointIn><connection refLocalId="2"/>'
            '</connectionPointIn></jumpStep>'),
}


@pytest.mark.parametrize("lang", ["ST", "IL", "SFC"])
def test_other_languages_run_alone_and_placed_in_fbd(tmp_path, lang):
    """An FB in ST, IL or SFC is placed in an FBD program like any block."""
    other = (f'<pou name="Other" pouType="functionBlock"><interface><outputVars>'
             f'{f.var("x", "INT")}</outputVars></interface><body><{lang}>{TEXT_BODIES[lang]}'
             f"</{lang}></body></pou>")
    user = f.pou("User", "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                 f.block(1, "Other", {}, ["x"], inst="o") + f.outv(2, "O", 1, pin="x"))
    fine = f.pou("Fine", "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "3") + f.outv(2, "O", 1))
    project = load_project(f.write(tmp_path, other, user, fine))
    assert Harness(project.network("Fine")).scan().get("O") == 3
    assert project.languages["Other"] == lang
    assert not project.errors, project.errors
    h = Harness(project.network("User"))
    h.scan(3)
    assert h.get("O") == (3 if lang != "SFC" else 0)


def test_a_text_pou_that_does_not_parse_or_check_says_where_in_the_file(tmp_path):
    st = ('<pou name="Bad" pouType="functionBlock"><interface/><body><ST>'
          '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">y := 1;</xhtml:p></ST></body></pou>')
    path = f.write(tmp_path, st)
    line = next(i for i, s in enumerate(path.read_text().split("\n"), 1) if "y := 1;" in s)
    with pytest.raises(PlcOpenError, match=rf"{path}:{line}:\d+: in FUNCTION_BLOCK Bad: y is not declared"):
        load_project(path).network("Bad")


def test_a_pou_that_places_itself_is_named(tmp_path):
    rec = f.pou("R", "", f.block(1, "R", {}, [], inst="r"), kind="functionBlock")
    with pytest.raises(PlcOpenError, match="POU 'R' uses itself"):
        load_project(f.write(tmp_path, rec)).network("R")


@pytest.mark.parametrize("task, message", [
    ('<task name="t" priority="0" single="trig"><pouInstance name="i" typeName="Main"/></task>',
     "task 't': SINGLE := trig: no global variable of that name"),
    ('<task name="t" priority="0" single="[a, b]"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': single='[a, b]': an event task is triggered by the name of a BOOL "
                "global variable"),
    ('<task name="t" priority="0" interval="soon"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': interval 'soon' is not a duration"),
    ('<task name="t" priority="0" interval="T#0s"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': interval 'T#0s' must be positive"),
    ('<task name="t" priority="high" interval="T#1s"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': priority 'high' is not a number"),
    ("", "no configuration with a program instance to run"),
])
def test_configuration_errors_come_when_it_is_run(tmp_path, task, message):
    main = f.pou("Main", "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "3") + f.outv(2, "O", 1))
    path = tmp_path / "c.xml"
    path.write_text(f.HEAD + main + "</pous></types><instances><configurations>"
                    f'<configuration name="c"><resource name="r">{task}</resource>'
                    "</configuration></configurations></instances></project>")
    project = load_project(path)       # loads; its POUs run alone
    assert Harness(project.network("Main")).scan().get("O") == 3
    with pytest.raises(PlcOpenError, match=re.escape(message)):
        project.plc()


def test_lenient_with_the_quirks_of_real_files(tmp_path):
    """An invalid creationDateTime (HEAD has "nope"), xs:boolean "1", lower-case type
    names, documentation and vendor addData are all accepted."""
    prog = f.pou("Main", _IO + "<outputVars>" + f.var("O", "BOOL") + "</outputVars>"
                "<addData><data name='x' handleUnknown='discard'><v/></data></addData>",
                f.inv(1, "A") + f.block(2, "not", {"IN": (1, None)}, ["OUT"])
                + f.outv(3, "O", 2, pin="OUT", attrs=' negated="1"'))
    h = Harness(f.net(tmp_path, prog))
    h.set(A=True).scan()
    h.expect(O=True)


# What running each example's configuration gives: None (it runs) or the error's start.
CONFIGURATIONS = {
    "beremiz_first_steps": None,
    "beremiz_iec61131_lang_test": "POU 'main_test', element localId 8: unknown block type "
                                  "'LOGGER'",
    "beremiz_logging_tof_beat": "POU 'program0', element localId 11: unknown block type "
                                "'LOGGER'",
    "beremiz_svghmi_xy_counter_sincos": None,
    "openplc_traffic_light_fbd": None,
}


@pytest.mark.parametrize("stem", EXAMPLES)
def test_every_example_configuration_runs_or_names_what_cannot(stem):
    project = _example(stem)
    expected = CONFIGURATIONS[stem]
    if expected is not None:
        with pytest.raises(PlcOpenError) as e:
            project.plc()
        assert e.value.detail.startswith(expected)
        return
    plc = project.plc()
    spec = project.configuration.tasks[0]
    assert plc.main.name == spec.name and plc.main.cycle_us == spec.interval_us
    plc.scan(50)
    assert plc.scans == 50


def test_an_imported_function_block_is_a_macro_for_python_networks(tmp_path):
    from fbd import BOOL, Network
    fb = f.pou("Gate", "<inputVars>" + f.var("A", "BOOL") + f.var("B", "BOOL") + "</inputVars>"
              "<outputVars>" + f.var("Y", "BOOL") + "</outputVars>",
              f.inv(1, "A") + f.inv(2, "B")
              + f.block(3, "AND", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"],
                       extra={"IN2": ' negated="true"'})
              + f.outv(4, "Y", 3, pin="OUT"), kind="functionBlock")
    gate = load_project(f.write(tmp_path, fb)).pous["Gate"]
    net = Network("Mine")
    x = net.input("X", BOOL)
    g1 = net.add("g1", gate, A=x, B=False)
    g2 = net.add("g2", gate, A=x, B=g1.Y)
    net.output("Q", g2.Y)
    h = Harness(net)
    h.set(X=True).scan()
    h.expect(Q=False)        # g1: TRUE AND NOT FALSE; g2: TRUE AND NOT TRUE
    assert h.get("g1.Y") is True


def test_a_function_returns_through_its_name_and_is_placed_by_other_pous(tmp_path):
    fn = ('<pou name="Twice" pouType="function"><interface><returnType><INT/></returnType>'
          "<inputVars>" + f.var("X", "INT") + "</inputVars></interface><body><FBD>"
          + f.inv(1, "X") + f.block(2, "ADD", {"IN1": (1, None), "IN2": (1, None)}, ["OUT"])
          + f.outv(3, "twice", 2, pin="OUT") + "</FBD></body></pou>")   # case ignored
    prog = f.pou("Main", "<inputVars>" + f.var("N", "INT") + "</inputVars>"
                "<outputVars>" + f.var("O", "INT") + "</outputVars>",
                f.inv(1, "N") + f.block(2, "Twice", {"X": (1, None)}, ["OUT"])
                + f.outv(3, "O", 2))
    project = load_project(f.write(tmp_path, fn, prog))
    assert list(project.pous["Twice"].outputs) == ["OUT"]
    h = Harness(project.network("Main"))
    h.set(N=21).scan()
    h.expect(O=42)
