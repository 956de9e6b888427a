"""Import of PLCopen TC6 XML (v2.01) FBD POUs (fbd.plcopen)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from fbd.compiler import compile_network
from fbd.errors import FbdError
from fbd.plcopen import PlcOpenError, load_project
from fbd.testing import Harness

SHARED = Path(__file__).resolve().parents[3] / "shared" / "plcopen" / "examples"
EXAMPLES = sorted(SHARED.glob("*.plc.xml")) if SHARED.is_dir() else []
needs_examples = pytest.mark.skipif(not EXAMPLES, reason=f"no PLCopen examples in {SHARED}")

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
    path = SHARED / f"{stem}.plc.xml"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return load_project(path)


@needs_examples
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_loads_and_each_fbd_pou_imports_or_says_why(path):
    project = load_project(path)
    stem = path.name.removesuffix(".plc.xml")
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


def _var(name, tp, init=None):
    iv = f'<initialValue><simpleValue value="{init}"/></initialValue>' if init else ""
    return f'<variable name="{name}"><type><{tp}/></type>{iv}</variable>'


def _in(lid, expr, y=0, negated="false"):
    return (f'<inVariable localId="{lid}" negated="{negated}"><position x="0" y="{y}"/>'
            f"<connectionPointOut/><expression>{expr}</expression></inVariable>")


def _out(lid, expr, ref, y=0, pin=None):
    fp = f' formalParameter="{pin}"' if pin else ""
    return (f'<outVariable localId="{lid}"><position x="500" y="{y}"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"{fp}/></connectionPointIn>'
            f"<expression>{expr}</expression></outVariable>")


def _block(lid, tp, ins, outs, inst=None, y=0, extra=None):
    extra = extra or {}
    name = f' instanceName="{inst}"' if inst else ""
    iv = ""
    for pin, (ref, rpin) in ins.items():
        fp = f' formalParameter="{rpin}"' if rpin else ""
        iv += (f'<variable formalParameter="{pin}"{extra.get(pin, "")}><connectionPointIn>'
               f'<connection refLocalId="{ref}"{fp}/></connectionPointIn></variable>')
    ov = "".join(f'<variable formalParameter="{o}"{extra.get(o, "")}><connectionPointOut/>'
                 f"</variable>" for o in outs)
    return (f'<block localId="{lid}" typeName="{tp}"{name}><position x="200" y="{y}"/>'
            f"<inputVariables>{iv}</inputVariables><inOutVariables/>"
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


def test_entities_are_not_expanded(tmp_path):
    path = tmp_path / "evil.xml"
    path.write_text('<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                    '<project xmlns="http://www.plcopen.org/xml/tc6_0201">&x;</project>')
    project = load_project(path)  # loads nothing, reads no file
    assert project.pous == {}


def test_unknown_block_type_and_unsupported_things_name_pou_and_element(tmp_path):
    prog = _pou("Main", "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "1") + _block(7, "FROBNICATE", {"IN": (1, None)}, ["OUT"])
                + _out(2, "O", 7, pin="OUT"))
    st = ('<pou name="S" pouType="program"><interface/><body><ST>'
          '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">x := 1;</xhtml:p></ST></body></pou>')
    expr = _pou("E", "<outputVars>" + _var("O", "INT") + "</outputVars>",
                _in(1, "a.b + 1") + _out(2, "O", 1))
    two = _pou("W", "<outputVars>" + _var("O", "INT") + "</outputVars>",
               _in(1, "1") + _out(2, "O", 1) + _out(3, "O", 1))
    project = load_project(_write(tmp_path, prog, st, expr, two))
    with pytest.raises(PlcOpenError) as e:
        project.network("Main")
    assert "POU 'Main', element localId 7: unknown block type 'FROBNICATE'" in str(e.value)
    assert isinstance(e.value, FbdError)
    with pytest.raises(PlcOpenError, match="POU 'S': body language ST is not supported"):
        project.network("S")
    with pytest.raises(PlcOpenError, match=r"POU 'E', element localId 1: expression 'a.b \+ 1'"):
        project.network("E")
    with pytest.raises(PlcOpenError, match="localId 3: variable 'O' is written by more"):
        project.network("W")
    with pytest.raises(PlcOpenError, match="no POU named 'Nope'"):
        project.network("Nope")


@needs_examples
def test_cli_runs_a_pou_of_a_plcopen_file(capsys):
    from fbd.cli import load_network
    path = SHARED / "beremiz_first_steps.plc.xml"
    assert load_network(f"{path}:CounterFBD").name == "CounterFBD"
    with pytest.raises(PlcOpenError, match="body language ST"):
        load_network(f"{path}:CounterST")
