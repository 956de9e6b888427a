"""Import of PLCopen TC6 XML (v2.01) FBD POUs (fbd.plcopen)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from fbd.compiler.pycode import compile_network
from fbd.errors import FbdError
from fbd.plcopen.reader import PlcOpenError, load_project
from fbd.testing import Harness
from tests.paths import PLCOPEN, plcopen_example

# The real projects in tests/data/plcopen/ (see its README for their origins).
EXAMPLES = ("beremiz_first_steps", "beremiz_iec61131_lang_test", "beremiz_logging_tof_beat",
            "beremiz_svghmi_xy_counter_sincos", "openplc_traffic_light_fbd")

# What each example POU with an FBD body does: imports, or the reason it does not.
EXPECTED = {
    ("beremiz_first_steps", "CounterFBD"): None,
    ("beremiz_first_steps", "plc_prg"): "CounterST",  # places an ST function block
    ("beremiz_iec61131_lang_test", "main_test"): "CONVERSION_TEST",
    ("beremiz_iec61131_lang_test", "TEMPO_TEST"): "unknown block type 'RTC'",
    ("beremiz_logging_tof_beat", "program0"): "unknown block type 'LOGGER'",
    ("beremiz_svghmi_xy_counter_sincos", "program0"): None,
    ("openplc_traffic_light_fbd", "Trafic_light"): None,
}


def _example(stem):
    return load_project(plcopen_example(stem))


def test_the_examples_tested_are_the_projects_in_the_data_folder():
    assert sorted(p.name.removesuffix(".plc.xml") for p in PLCOPEN.glob("*.plc.xml")) == list(EXAMPLES)


@pytest.mark.parametrize("stem", EXAMPLES)
def test_every_example_loads_and_each_fbd_pou_imports_or_says_why(stem):
    project = _example(stem)
    assert project.languages, "no POUs found"
    for name, lang in project.languages.items():
        if name in project.pous:
            assert lang == "FBD"
            compile_network(project.pous[name])  # a real, valid network
            assert EXPECTED.get((stem, name), None) is None
            continue
        err = project.errors[name]
        assert isinstance(err, PlcOpenError)
        assert f"POU {name!r}" in str(err)
        if lang != "FBD":
            assert f"body language {lang}" in str(err)
            with pytest.raises(PlcOpenError, match=f"body language {lang}"):
                project.network(name)
        else:
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
    """CounterFBD: Cnt := SEL(Reset, Cnt + 1, ResetCounterValue); OUT := Cnt.
    ADD reads Cnt before SEL writes it: the previous scan's value."""
    project = _example("beremiz_first_steps")
    net = project.network("CounterFBD")
    h = Harness(net)
    # the external constant takes the configuration's global initial value
    assert net.inputs["ResetCounterValue"][1] == 17
    for n in (1, 2, 3):
        h.scan()
        h.expect(OUT=n, Cnt=n)
    h.set(Reset=True).scan()
    h.expect(OUT=17)
    h.set(Reset=False).scan()
    h.expect(OUT=18)


def test_svghmi_counter_runs():
    net = _example("beremiz_svghmi_xy_counter_sincos").network("program0")
    h = Harness(net)
    h.scan(5)  # runs without error; its outputs are numbers
    for name in net.outputs:
        assert isinstance(h.get(name), (int, float))


# -- small files written here ------------------------------------------------------

HEAD = """<?xml version="1.0" encoding="utf-8"?>
<project xmlns="http://www.plcopen.org/xml/tc6_0201">
  <fileHeader companyName="t" productName="t" productVersion="1" creationDateTime="nope"/>
  <contentHeader name="t"><coordinateInfo><fbd><scaling x="1" y="1"/></fbd>
  <ld><scaling x="1" y="1"/></ld><sfc><scaling x="1" y="1"/></sfc></coordinateInfo>
  </contentHeader>
  <types><dataTypes/><pous>
"""
TAIL = "</pous></types><instances><configurations/></instances></project>\n"


def _pou(name, iface, body, kind="program"):
    return (f'<pou name="{name}" pouType="{kind}"><interface>{iface}</interface>'
            f"<body><FBD>{body}</FBD></body></pou>")


def _var(name, tp, init=None, at=None):
    iv = f'<initialValue><simpleValue value="{init}"/></initialValue>' if init else ""
    address = f' address="{at}"' if at else ""
    return f'<variable name="{name}"{address}><type><{tp}/></type>{iv}</variable>'


def _in(lid, expr, y=0, negated="false"):
    return (f'<inVariable localId="{lid}" negated="{negated}"><position x="0" y="{y}"/>'
            f"<connectionPointOut/><expression>{expr}</expression></inVariable>")


def _out(lid, expr, ref, y=0, pin=None, attrs="", x=500):
    fp = f' formalParameter="{pin}"' if pin else ""
    return (f'<outVariable localId="{lid}"{attrs}><position x="{x}" y="{y}"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"{fp}/></connectionPointIn>'
            f"<expression>{expr}</expression></outVariable>")


def _pins(ins, extra):
    iv = ""
    for pin, (ref, rpin) in ins.items():
        fp = f' formalParameter="{rpin}"' if rpin else ""
        iv += (f'<variable formalParameter="{pin}"{extra.get(pin, "")}><connectionPointIn>'
               f'<connection refLocalId="{ref}"{fp}/></connectionPointIn>'
               f'{"<connectionPointOut/>" if pin.startswith("&") else ""}</variable>')
    return iv.replace('formalParameter="&', 'formalParameter="')


def _block(lid, tp, ins, outs, inst=None, y=0, extra=None, inouts=None, x=200, order=None):
    """A block; ``inouts`` are VAR_IN_OUT pins; ``order`` its executionOrderId."""
    extra = extra or {}
    name = f' instanceName="{inst}"' if inst else ""
    eo = f' executionOrderId="{order}"' if order else ""
    iv = _pins(ins, extra)
    io = _pins({"&" + k: v for k, v in (inouts or {}).items()}, extra)
    ov = "".join(f'<variable formalParameter="{o}"{extra.get(o, "")}><connectionPointOut/>'
                 f"</variable>" for o in outs)
    return (f'<block localId="{lid}" typeName="{tp}"{name}{eo}><position x="{x}" y="{y}"/>'
            f"<inputVariables>{iv}</inputVariables><inOutVariables>{io}</inOutVariables>"
            f"<outputVariables>{ov}</outputVariables></block>")


def _write(tmp_path, *pous):
    path = tmp_path / "t.plc.xml"
    path.write_text(HEAD + "".join(pous) + TAIL)
    return path


def test_negated_and_edge_pins_connectors_literals_and_macros(tmp_path):
    fb = _pou("Gate", "<inputVars>" + _var("A", "BOOL") + _var("B", "BOOL") + "</inputVars>"
              "<outputVars>" + _var("Y", "BOOL") + "</outputVars>",
              _in(1, "A") + _in(2, "B")
              + _block(3, "AND", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"],
                       extra={"IN2": ' negated="true"'})
              + _out(4, "Y", 3, pin="OUT"),
              kind="functionBlock")
    prog = _pou("Main",
                "<inputVars>" + _var("X", "BOOL") + _var("Z", "BOOL") + "</inputVars>"
                "<outputVars>" + _var("G", "BOOL") + _var("P", "BOOL") + _var("T", "TIME")
                + "</outputVars>",
                _in(1, "X") + _in(2, "Z")
                + _block(3, "Gate", {"A": (1, None), "B": (2, None)}, ["Y"], inst="g1")
                + '<connector name="c1" localId="4"><connectionPointIn>'
                  '<connection refLocalId="3" formalParameter="Y"/></connectionPointIn></connector>'
                + '<continuation name="c1" localId="5"><connectionPointOut/></continuation>'
                + _out(6, "G", 5, y=10)
                + _block(7, "R_TRIG", {"CLK": (1, None)}, ["Q"], inst="rt", y=20,
                         extra={"CLK": ""})
                + _block(8, "OR", {"IN1": (2, None), "IN2": (1, None)}, ["OUT"], y=30,
                         extra={"IN2": ' edge="rising"'})
                + _out(9, "P", 8, y=30, pin="OUT")
                + _in(10, "T#1s500ms") + _out(11, "T", 10, y=40))
    project = load_project(_write(tmp_path, fb, prog))
    assert set(project.pous) == {"Gate", "Main"}
    h = Harness(project.network("Main"))
    h.set(X=True, Z=False).scan()
    h.expect(G=True, P=True, T=timedelta(seconds=1.5))
    h.scan()
    h.expect(G=True, P=False)   # the rising-edge pin fired once
    h.set(Z=True).scan()
    h.expect(G=False, P=True)   # B is negated inside the macro


def test_initial_value_read_before_write_and_a_counter_loop(tmp_path):
    prog = _pou("Main", "<localVars>" + _var("N", "INT", "10") + "</localVars>"
                "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "N") + _in(2, "1")
                + _block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"], y=0)
                + _out(4, "O", 3, y=10, pin="OUT") + _out(5, "N", 3, y=20, pin="OUT"))
    h = Harness(load_project(_write(tmp_path, prog)).network("Main"))
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
    with pytest.raises(PlcOpenError, match="declares XML entities") as e:
        load_project(path)
    assert "TOP SECRET" not in str(e.value)


def test_a_billion_laughs_file_is_an_error_not_a_hang(tmp_path):
    lol = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1)) * 10}">' for i in range(1, 10)]
    path = tmp_path / "laughs.xml"
    path.write_text('<?xml version="1.0"?><!DOCTYPE p [' + "".join(lol) + ']>'
                    '<project xmlns="http://www.plcopen.org/xml/tc6_0201">'
                    '<fileHeader companyName="&lol9;"/></project>')
    with pytest.raises(PlcOpenError, match="not well-formed XML|declares XML entities"):
        load_project(path)


def test_an_external_dtd_is_neither_loaded_nor_fetched(tmp_path):
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY x "expanded">')
    for system in (str(dtd), "http://192.0.2.1/evil.dtd"):   # a file, and no network
        path = tmp_path / "ext.xml"
        path.write_text(f'<?xml version="1.0"?><!DOCTYPE project SYSTEM "{system}">'
                        + HEAD.split("?>", 1)[1] + TAIL)
        project = load_project(path)
        assert project.pous == {} and project.configuration is None


def test_unknown_block_type_and_unsupported_things_name_pou_and_element(tmp_path):
    prog = _pou("Main", "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "1") + _block(7, "FROBNICATE", {"IN": (1, None)}, ["OUT"])
                + _out(2, "O", 7, pin="OUT"))
    st = ('<pou name="S" pouType="program"><interface/><body><ST>'
          '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">x := 1;</xhtml:p></ST></body></pou>')
    expr = _pou("E", "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "a.b + 1") + _out(2, "O", 1))
    project = load_project(_write(tmp_path, prog, st, expr))
    with pytest.raises(PlcOpenError) as e:
        project.network("Main")
    assert "POU 'Main', element localId 7: unknown block type 'FROBNICATE'" in str(e.value)
    assert isinstance(e.value, FbdError)
    with pytest.raises(PlcOpenError, match="POU 'S': body language ST is not supported"):
        project.network("S")
    with pytest.raises(PlcOpenError, match=r"POU 'E', element localId 1: expression 'a.b \+ 1'"):
        project.network("E")
    with pytest.raises(PlcOpenError, match="no POU named 'Nope'"):
        project.network("Nope")


def test_cli_runs_a_pou_of_a_plcopen_file(capsys):
    from fbd.tools.cli import load_network
    path = plcopen_example("beremiz_first_steps")
    assert load_network(f"{path}:CounterFBD").name == "CounterFBD"
    with pytest.raises(PlcOpenError, match="body language ST"):
        load_network(f"{path}:CounterST")


def _inout(lid, expr, ref, y=0, attrs=""):
    return (f'<inOutVariable localId="{lid}"{attrs}><position x="400" y="{y}"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"/></connectionPointIn><connectionPointOut/>'
            f"<expression>{expr}</expression></inOutVariable>")


def _net(tmp_path, *pous, name="Main"):
    return load_project(_write(tmp_path, *pous)).network(name)


# -- EN/ENO, storage, in-out variables -------------------------------------------------
def test_en_false_skips_the_block_outputs_hold_and_eno_follows_en(tmp_path):
    """IEC 61131-3 2.5.1.2: a block with EN FALSE does not execute, ENO is FALSE and
    its outputs keep their values; a counter does not count meanwhile."""
    prog = _pou("Main", "<inputVars>" + _var("E", "BOOL") + _var("C", "BOOL") + _var("N", "INT")
                + "</inputVars><outputVars>" + _var("SUM", "INT") + _var("OK", "BOOL")
                + _var("CV", "INT") + "</outputVars>",
                _in(1, "E") + _in(2, "N") + _in(3, "C")
                + _block(4, "ADD", {"EN": (1, None), "IN1": (2, None), "IN2": (2, None)},
                         ["ENO", "OUT"])
                + _out(5, "SUM", 4, pin="OUT") + _out(6, "OK", 4, y=10, pin="ENO")
                + _block(7, "CTU", {"EN": (1, None), "CU": (3, None), "R": (1, None),
                                    "PV": (2, None)}, ["ENO", "Q", "CV"], inst="ctu", y=50,
                         extra={"R": ' negated="true"'})
                + _out(8, "CV", 7, y=50, pin="CV"))
    h = Harness(_net(tmp_path, prog))
    h.set(E=True, N=3, C=True).scan()
    h.expect(SUM=6, OK=True, CV=1)
    h.set(E=False, N=5, C=False).scan()
    h.expect(SUM=6, OK=False, CV=1)          # held, not 10
    h.set(C=True).scan()
    h.set(C=False).scan()
    h.expect(CV=1)                           # the edge while disabled is not counted
    h.set(E=True).scan()
    h.expect(SUM=10, OK=True, CV=1)


def test_set_and_reset_coils_latch_a_variable(tmp_path):
    prog = _pou("Main", "<inputVars>" + _var("S", "BOOL") + _var("R", "BOOL") + "</inputVars>"
                "<localVars>" + _var("L", "BOOL") + "</localVars>"
                "<outputVars>" + _var("Q", "BOOL") + "</outputVars>",
                _in(1, "S") + _in(2, "R") + _in(3, "L", y=40)
                + _out(4, "L", 1, y=0, attrs=' storage="set"')
                + _out(5, "L", 2, y=20, attrs=' storage="reset"')
                + _out(6, "Q", 3, y=40))
    h = Harness(_net(tmp_path, prog))
    h.run([({"S": True}, {"Q": True}), ({"S": False}, {"Q": True}),
           ({"R": True}, {"Q": False}), ({"R": False}, {"Q": False}),
           ({"S": True, "R": True}, {"Q": False})])   # the reset coil is written last


def test_an_in_out_variable_writes_and_passes_on_the_new_value(tmp_path):
    prog = _pou("Main", "<localVars>" + _var("N", "INT") + "</localVars>"
                "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "N") + _in(2, "2")
                + _block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + _inout(4, "N", 3, y=10) + _out(5, "O", 4, y=10))
    h = Harness(_net(tmp_path, prog))
    h.scan()
    h.expect(O=2, N=2)
    h.scan(2)
    h.expect(O=6, N=6)


def test_a_var_in_out_of_a_function_block_writes_back_to_the_callers_variable(tmp_path):
    fb = _pou("Inc", "<inOutVars>" + _var("X", "INT") + "</inOutVars>",
              _in(1, "X") + _in(2, "1")
              + _block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
              + _out(4, "X", 3), kind="functionBlock")
    prog = _pou("Main", "<localVars>" + _var("V", "INT", "10") + "</localVars>"
                "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "V") + _block(2, "Inc", {}, [], inst="inc", inouts={"X": (1, None)})
                + _in(3, "V", y=30) + _out(4, "O", 3, y=30))
    project = load_project(_write(tmp_path, fb, prog))
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
    prog = _pou("Main", "<localVars>" + _var("B", "BOOL", at="%IX0.0")
                + _var("W", "INT", at="%MW0") + _var("L", "BOOL", at="%QX0.0")
                + _var("M", "INT", at="%MW2") + _var("Q", "INT", at="%QW1") + "</localVars>"
                "<inputVars>" + _var("A", "INT", at="%IW3") + "</inputVars>",
                _in(1, "B") + _out(2, "L", 1) + _in(3, "W") + _out(4, "M", 3, y=10))
    net = _net(tmp_path, prog)
    assert {k: str(v) for k, v in net.addresses.items()} == {
        "A": "%IW3", "B": "%IX0.0", "W": "%MW0", "L": "%QX0.0", "M": "%MW2", "Q": "%QW1"}
    assert set(net.inputs) == {"A", "B", "W"}
    assert set(net.outputs) == {"L", "M", "Q"}
    h = Harness(net)
    h.set(B=True, W=7).scan()
    h.expect(L=True, M=7, Q=0)


def test_constants_are_literals_and_temporaries_start_each_scan_afresh(tmp_path):
    prog = _pou("Main", '<localVars constant="true">' + _var("K", "INT", "5") + "</localVars>"
                "<tempVars>" + _var("T", "INT", "1") + "</tempVars>"
                "<outputVars>" + _var("O", "INT") + _var("P", "INT") + "</outputVars>",
                _in(1, "T") + _in(2, "K")
                + _block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + _out(4, "T", 3, y=10) + _in(5, "T", y=20) + _out(6, "O", 5, y=20)
                + _out(7, "P", 2, y=30))
    net = _net(tmp_path, prog)
    assert "K" not in net.inputs and "T" not in net.outputs
    h = Harness(net)
    h.scan(3)
    h.expect(O=6, P=5)   # T := 1 + 5 each scan, never 11


# -- execution order ------------------------------------------------------------------------
def _reader_writer(y_write, y_read, orders=None):
    """X := IN written by one output variable; O := X + 0 through a block pulled by
    another output variable. Who runs first decides whether O sees this scan's X."""
    o = orders or {}
    return _pou("Main", "<inputVars>" + _var("IN", "INT") + "</inputVars>"
                "<localVars>" + _var("X", "INT") + "</localVars>"
                "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "IN") + _in(2, "X") + _in(3, "0")
                + _out(4, "X", 1, y=y_write, attrs=f' executionOrderId="{o.get("w", 0)}"')
                + _block(5, "ADD", {"IN1": (2, None), "IN2": (3, None)}, ["OUT"], y=y_read,
                         order=o.get("b"))
                + _out(6, "O", 5, y=y_read, pin="OUT",
                       attrs=f' executionOrderId="{o.get("r", 0)}"'))


@pytest.mark.parametrize("y_write, y_read, current", [
    (0, 100, True),      # the writer is above: it runs first
    (100, 0, False),     # the reader is above: it reads the previous scan's X
])
def test_without_execution_order_ids_outputs_run_top_to_bottom(tmp_path, y_write, y_read,
                                                               current):
    h = Harness(_net(tmp_path, _reader_writer(y_write, y_read)))
    h.set(IN=4).scan()
    h.expect(O=4 if current else 0)
    h.scan()
    h.expect(O=4)


def test_rows_closer_than_10_run_left_to_right(tmp_path):
    prog = _pou("Main", "<inputVars>" + _var("IN", "INT") + "</inputVars>"
                "<localVars>" + _var("X", "INT") + "</localVars>"
                "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "IN") + _in(2, "X")
                + _out(4, "X", 1, y=5, x=600)   # lower by 5 but right: runs second
                + _out(6, "O", 2, y=0, x=300))
    h = Harness(_net(tmp_path, prog))
    h.set(IN=4).scan()
    h.expect(O=0)


def test_outputs_run_before_blocks_no_output_pulls(tmp_path):
    """Beremiz first generates the output variables (pulling their blocks), then the
    other blocks: a counter above the writer of its input still sees this scan's value."""
    prog = _pou("Main", "<inputVars>" + _var("IN", "BOOL") + "</inputVars>"
                "<localVars>" + _var("X", "BOOL") + "</localVars>",
                _in(1, "IN", y=100) + _out(2, "X", 1, y=100) + _in(3, "X")
                + _block(4, "CTU", {"CU": (3, None)}, ["Q", "CV"], inst="ctu", y=0))
    h = Harness(_net(tmp_path, prog))
    h.set(IN=True).scan()
    assert h.get("ctu.CV") == 1


def test_execution_order_ids_come_first_and_decide(tmp_path):
    h = Harness(_net(tmp_path, _reader_writer(0, 100, {"w": 3, "b": 1, "r": 2})))
    h.set(IN=4).scan()
    h.expect(O=0)           # the block (1) and its output (2) run before the writer (3)
    h = Harness(_net(tmp_path, _reader_writer(100, 0, {"w": 1, "b": 2, "r": 3})))
    h.set(IN=4).scan()
    h.expect(O=4)


def test_a_ton_tof_chain_with_an_edge_pin(tmp_path):
    """TOF fed through a rising-edge pin from TON.Q: one pulse when TON fires, so
    TOF.Q stays TRUE for its PT after it and then falls although TON.Q stays TRUE."""
    prog = _pou("Main", "<inputVars>" + _var("GO", "BOOL") + "</inputVars>"
                "<outputVars>" + _var("ON", "BOOL") + _var("HOLD", "BOOL") + "</outputVars>",
                _in(1, "GO") + _in(2, "T#30ms") + _in(3, "T#20ms")
                + _block(4, "TON", {"IN": (1, None), "PT": (2, None)}, ["Q", "ET"], inst="ton")
                + _block(5, "TOF", {"IN": (4, "Q"), "PT": (3, None)}, ["Q", "ET"], inst="tof",
                         y=50, extra={"IN": ' edge="rising"'})
                + _out(6, "ON", 4, pin="Q") + _out(7, "HOLD", 5, y=50, pin="Q"))
    h = Harness(_net(tmp_path, prog), cycle=0.01)
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
    return _pou(name, "<localVars>" + _var("N", "INT") + "</localVars>",
                _in(1, "N") + _in(2, "1")
                + _block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + _out(4, "N", 3, y=10))


def _with_configuration(tmp_path, *pous, tasks):
    conf = "".join(
        f'<task name="{task}" priority="{prio}" interval="{interval}">'
        f'<pouInstance name="{inst}" typeName="{pou}"/></task>'
        for task, prio, interval, inst, pou in tasks)
    path = tmp_path / "conf.xml"
    path.write_text(HEAD + "".join(pous) + "</pous></types><instances><configurations>"
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
    assert out.splitlines()[0] == "scan,time_s,fast:N,slow:N"
    assert out.splitlines()[-1].split(",")[2:] == ["4", "2"]
    assert "fast (Fast) every T#10ms: 4 scans" in err
    assert cli.main(["run", str(path), "--program", "Slow", "--scans", "2"]) == 0
    out, _ = capsys.readouterr()
    assert out.split() == ["scan", "time", "s", "N", "1", "0.000", "1", "2", "0.005", "2"]
    assert cli.main(["run", f"{path}:Slow", "--scans", "1"]) == 0
    capsys.readouterr()
    assert cli.main(["run", str(path), "--set", "fast:Q=1"]) == 2
    assert "fbd: error:" in capsys.readouterr().err
    # where one network is wanted, a bare project is told which POUs it could name
    assert cli.main(["info", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"fbd: error: {path}: name the POU, as in {path}:Fast (its FBD POUs: Fast, Slow)")


def test_cli_runs_a_real_configuration_and_names_what_cannot_run(capsys):
    from fbd.tools import cli
    path = plcopen_example("openplc_traffic_light_fbd")
    assert cli.main(["run", str(path), "--scans", "2", "--watch", "O_LEDRed"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].split() == ["scan", "time", "s", "instance0:O_LEDRed"]
    assert "instance0 (Trafic_light) every T#20ms" in err
    assert cli.main(["run", str(plcopen_example("beremiz_first_steps"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("fbd: error: POU 'plc_prg', element localId 1: block 'CounterST' cannot be "
                   "placed: POU 'CounterST': body language ST is not supported "
                   "(only FBD POUs import)")


# -- every error, naming the POU and the element -------------------------------------------
_IO = "<inputVars>" + _var("A", "BOOL") + _var("N", "INT") + "</inputVars>"
ERRORS = [
    ("undeclared variable read", "<localVars>" + _var("L", "INT") + "</localVars>",
     _in(1, "Z") + _out(2, "L", 1),
     "element localId 1: 'Z' is not a declared variable"),
    ("undeclared variable written", _IO, _in(1, "A") + _out(2, "Z", 1),
     "element localId 2: outVariable writes 'Z', which is not a declared variable"),
    ("an input written", _IO, _in(1, "TRUE") + _out(2, "A", 1),
     "element localId 2: the input 'A' is written; inputs are read-only"),
    ("a constant written", '<localVars constant="true">' + _var("K", "INT", "1")
     + "</localVars>", _in(1, "2") + _out(2, "K", 1),
     "element localId 2: the constant 'K' is written"),
    ("a continuation without its connector", "<localVars>" + _var("L", "BOOL") + "</localVars>",
     '<continuation name="c9" localId="1"><connectionPointOut/></continuation>'
     + _out(2, "L", 1), "element localId 1: continuation 'c9' has no connector"),
    ("an open connector", "<localVars>" + _var("L", "BOOL") + "</localVars>",
     '<connector name="c1" localId="1"><connectionPointIn/></connector>'
     '<continuation name="c1" localId="3"><connectionPointOut/></continuation>'
     + _out(2, "L", 3), "element localId 1: connector 'c1' is not connected"),
    ("a loop of connectors", "<localVars>" + _var("L", "BOOL") + "</localVars>",
     '<connector name="c1" localId="1"><connectionPointIn><connection refLocalId="3"/>'
     '</connectionPointIn></connector>'
     '<continuation name="c1" localId="3"><connectionPointOut/></continuation>'
     + _out(2, "L", 3), "element localId 2: a loop of connectors with nothing driving it"),
    ("a wire from nowhere", "<localVars>" + _var("L", "BOOL") + "</localVars>",
     _out(2, "L", 99), "element localId 2: connection to unknown localId 99"),
    ("a set coil on an INT", "<localVars>" + _var("L", "INT") + "</localVars>",
     _in(1, "1") + _out(2, "L", 1, attrs=' storage="set"'),
     "element localId 2: a set coil on 'L', which is INT, not BOOL"),
    ("a bad storage modifier", "<localVars>" + _var("L", "BOOL") + "</localVars>",
     _in(1, "TRUE") + _out(2, "L", 1, attrs=' storage="toggle"'),
     "element localId 2: storage='toggle' is not a storage modifier"),
    ("an input location written", "<localVars>" + _var("B", "BOOL", at="%IX0.0")
     + "</localVars>", _in(1, "TRUE") + _out(2, "B", 1),
     "element localId 2: 'B' is located at %IX0.0, an input, and cannot be written"),
    ("a location that is not one", "<localVars>" + _var("B", "BOOL", at="%QX9")
     + "</localVars>", _in(1, "TRUE") + _out(2, "B", 1),
     "variable 'B': B: '%QX9' names a bit, so it needs one"),
    ("a location of the wrong size", "<inputVars>" + _var("B", "BOOL", at="%IW0")
     + "</inputVars>", "", "variable 'B': P.B: %IW0 holds 16 bits but BOOL needs %IX"),
    ("a jump", _IO, '<jump localId="5" label="x"><position x="0" y="0"/></jump>',
     "element localId 5: <jump> is not supported in FBD"),
    ("a duplicate localId", _IO, _in(1, "A") + _in(1, "N"),
     "element localId 1: two elements have this localId"),
    ("EN fed by its own ENO", "<outputVars>" + _var("O", "INT") + "</outputVars>",
     _in(1, "1") + _block(2, "ADD", {"EN": (2, "ENO"), "IN1": (1, None), "IN2": (1, None)},
                          ["ENO", "OUT"]) + _out(3, "O", 2, pin="OUT"),
     "element localId 2: EN depends on this block's own ENO"),
    ("a derived type read", "<localVars><variable name=\"tm\"><type><derived name=\"TON\"/>"
     "</type></variable>" + _var("L", "INT") + "</localVars>", _in(1, "tm") + _out(2, "L", 1),
     "element localId 1: reading 'tm' of type TON is not supported"),
    ("bad block data", "<outputVars>" + _var("O", "INT") + "</outputVars>",
     _block(2, "MOVE", {}, ["OUT"]).replace(
         "</outputVariables>", '</outputVariables><addData><data name="urn:fbd-sim:block" '
         'handleUnknown="preserve"><b types="T=QUUX"/></data></addData>'),
     "element localId 2: block MOVE: bad types 'T=QUUX' in addData"),
    ("an initial value that is not a literal", "<localVars>" + _var("L", "INT", "soon")
     + "</localVars>", "", "variable 'L'"),
    ("an array initial value", '<localVars><variable name="L"><type><INT/></type>'
     '<initialValue><arrayValue/></initialValue></variable></localVars>', "",
     "variable 'L': only simple initial values"),
]


@pytest.mark.parametrize("iface, body, message", [e[1:] for e in ERRORS],
                         ids=[e[0] for e in ERRORS])
def test_each_import_error_names_the_pou_and_the_element(tmp_path, iface, body, message):
    project = load_project(_write(tmp_path, _pou("P", iface, body)))  # the file still loads
    with pytest.raises(PlcOpenError) as e:
        project.network("P")
    assert str(e.value).startswith("POU 'P'")
    assert message in str(e.value)


@pytest.mark.parametrize("lang", ["ST", "IL", "LD", "SFC"])
def test_other_languages_load_and_fail_only_when_run_or_placed(tmp_path, lang):
    body = ('<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">x</xhtml:p>'
            if lang in ("ST", "IL") else "")
    other = (f'<pou name="Other" pouType="functionBlock"><interface/><body><{lang}>{body}'
             f"</{lang}></body></pou>")
    user = _pou("User", "", _block(1, "Other", {}, [], inst="o"))
    fine = _pou("Fine", "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "3") + _out(2, "O", 1))
    project = load_project(_write(tmp_path, other, user, fine))
    assert Harness(project.network("Fine")).scan().get("O") == 3
    assert project.languages["Other"] == lang
    with pytest.raises(PlcOpenError, match=f"POU 'Other': body language {lang} is not "):
        project.network("Other")
    with pytest.raises(PlcOpenError, match=f"POU 'User', element localId 1: block 'Other' "
                                           f"cannot be placed: .*body language {lang}"):
        project.network("User")


def test_a_pou_that_places_itself_is_named(tmp_path):
    rec = _pou("R", "", _block(1, "R", {}, [], inst="r"), kind="functionBlock")
    with pytest.raises(PlcOpenError, match="POU 'R' uses itself"):
        load_project(_write(tmp_path, rec)).network("R")


@pytest.mark.parametrize("task, message", [
    ('<task name="t" priority="0" single="trig"><pouInstance name="i" typeName="Main"/></task>',
     "task 't': tasks triggered by an event (single='trig') are not supported"),
    ('<task name="t" priority="0" interval="soon"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': interval 'soon' is not a duration"),
    ('<task name="t" priority="0" interval="T#0s"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': interval 'T#0s' must be positive"),
    ('<task name="t" priority="high" interval="T#1s"><pouInstance name="i" typeName="Main"/>'
     "</task>", "task 't': priority 'high' is not a number"),
    ("", "no configuration with a program instance to run"),
])
def test_configuration_errors_come_when_it_is_run(tmp_path, task, message):
    main = _pou("Main", "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "3") + _out(2, "O", 1))
    path = tmp_path / "c.xml"
    path.write_text(HEAD + main + "</pous></types><instances><configurations>"
                    f'<configuration name="c"><resource name="r">{task}</resource>'
                    "</configuration></configurations></instances></project>")
    project = load_project(path)       # loads; its POUs run alone
    assert Harness(project.network("Main")).scan().get("O") == 3
    with pytest.raises(PlcOpenError, match=re.escape(message)):
        project.plc()


def test_lenient_with_the_quirks_of_real_files(tmp_path):
    """An invalid creationDateTime (HEAD has "nope"), xs:boolean "1", lower-case type
    names, documentation and vendor addData are all accepted."""
    prog = _pou("Main", _IO + "<outputVars>" + _var("O", "BOOL") + "</outputVars>"
                "<addData><data name='x' handleUnknown='discard'><v/></data></addData>",
                _in(1, "A") + _block(2, "not", {"IN": (1, None)}, ["OUT"])
                + _out(3, "O", 2, pin="OUT", attrs=' negated="1"'))
    h = Harness(_net(tmp_path, prog))
    h.set(A=True).scan()
    h.expect(O=True)


# What running each example's configuration gives: None (it runs) or the error's start.
CONFIGURATIONS = {
    "beremiz_first_steps": "POU 'plc_prg', element localId 1: block 'CounterST' cannot be "
                           "placed: POU 'CounterST': body language ST",
    "beremiz_iec61131_lang_test": "POU 'main_test', element localId 4: block "
                                  "'CONVERSION_TEST' cannot be placed",
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
        assert str(e.value).startswith(expected)
        return
    plc = project.plc()
    spec = project.configuration.tasks[0]
    assert plc.main.name == spec.name and plc.main.cycle_us == spec.interval_us
    plc.scan(50)
    assert plc.scans == 50


def test_an_imported_function_block_is_a_macro_for_python_networks(tmp_path):
    from fbd import BOOL, Network
    fb = _pou("Gate", "<inputVars>" + _var("A", "BOOL") + _var("B", "BOOL") + "</inputVars>"
              "<outputVars>" + _var("Y", "BOOL") + "</outputVars>",
              _in(1, "A") + _in(2, "B")
              + _block(3, "AND", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"],
                       extra={"IN2": ' negated="true"'})
              + _out(4, "Y", 3, pin="OUT"), kind="functionBlock")
    gate = load_project(_write(tmp_path, fb)).pous["Gate"]
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
          "<inputVars>" + _var("X", "INT") + "</inputVars></interface><body><FBD>"
          + _in(1, "X") + _block(2, "ADD", {"IN1": (1, None), "IN2": (1, None)}, ["OUT"])
          + _out(3, "twice", 2, pin="OUT") + "</FBD></body></pou>")   # case ignored
    prog = _pou("Main", "<inputVars>" + _var("N", "INT") + "</inputVars>"
                "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "N") + _block(2, "Twice", {"X": (1, None)}, ["OUT"])
                + _out(3, "O", 2))
    project = load_project(_write(tmp_path, fn, prog))
    assert list(project.pous["Twice"].outputs) == ["OUT"]
    h = Harness(project.network("Main"))
    h.set(N=21).scan()
    h.expect(O=42)
