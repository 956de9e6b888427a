"""A program loaded from a ``.st`` file, exported to PLCopen XML, loads back and
runs the same, scan for scan: every vendored program of tests/data/st that
loads (the ST ones, the IL of IEC's Annex F, matiec's SFC and configuration
tests), the file valid against the TC6 schema, and a second export of the file
read back is the first one again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

import fbd
import fbd.testing
from fbd.plcopen import save
from fbd.plcopen.textpous import program_network
from fbd.st.project import load
from fbd.tools import cli
from tests.fbd.plcopen.roundtrip import export, runnable, scans, stateful

DATA = Path(__file__).resolve().parents[2] / "data" / "st"
#: the vendored programs that load here: .st files, and matiec's and IEC's in .txt
PROGRAMS = []
for _path in sorted([*DATA.rglob("*.st"), *DATA.rglob("*.txt")]):
    if "LICENSES" in _path.parts:
        continue
    try:
        load(_path)
    except fbd.FbdError:
        continue            # refused on loading (tests/fbd/st says why): nothing to export
    PROGRAMS.append(str(_path.relative_to(DATA)))


def test_the_corpus_holds_st_il_sfc_and_configurations():
    text = {name: (DATA / name).read_text(errors="replace").upper() for name in PROGRAMS}
    assert len(PROGRAMS) >= 60
    assert any("INITIAL_STEP" in t for t in text.values())
    assert "matiec/AnnexF/cmd_monitor_il.txt" in PROGRAMS
    assert sum("CONFIGURATION" in t for t in text.values()) >= 40


@pytest.mark.parametrize("name", PROGRAMS)
def test_an_exported_program_loads_back_and_runs_the_same(name, tmp_path):
    out = tmp_path / "out.xml"
    project = export(DATA / name, out)            # validated against the schema
    back = fbd.load(out)
    assert not back.errors, back.errors
    alone = [] if runnable(project) else stateful(project)
    assert scans(back, alone=alone) == scans(project, alone=alone)


def _without_dates(path) -> bytes:
    return re.sub(rb'(creation|modification)DateTime="[^"]*"', b"", Path(path).read_bytes())


@pytest.mark.parametrize("name", [n for n in PROGRAMS if "successed_ST" in n][:12]
                         + ["matiec/tests/syntax/sfc/sfc.txt", "matiec/AnnexF/cmd_monitor_il.txt"])
def test_export_of_the_file_read_back_is_the_same_file(name, tmp_path):
    project = load(DATA / name)
    pou = next(iter(project.pous), None) or stateful(project)[0]
    net = project.pous.get(pou) or program_network(pou, project.blocks[pou]())
    first, second = tmp_path / "first.xml", tmp_path / "second.xml"
    save(net, first)
    save(fbd.load(first).network(pou), second)
    assert _without_dates(second) == _without_dates(first)


PROGRAM = """TYPE Mode : (IDLE, RUN); END_TYPE
FUNCTION_BLOCK Counter
VAR_INPUT up : BOOL; END_VAR
VAR_OUTPUT n : INT; END_VAR
  IF up THEN n := n + 1; END_IF;
END_FUNCTION_BLOCK
PROGRAM Main
VAR_INPUT x : BOOL; END_VAR
VAR_EXTERNAL CONSTANT top : INT; END_VAR
VAR c : Counter; state : Mode := RUN; END_VAR
VAR_OUTPUT y : INT; END_VAR
  (* count while x, up to the top *)
  c(up := x AND c.n < top);
  y := c.n;  // the count
END_PROGRAM
CONFIGURATION Conf
  VAR_GLOBAL CONSTANT top : INT := 3; END_VAR
  RESOURCE Res ON PLC
    TASK Fast (INTERVAL := T#10ms, PRIORITY := 1);
    PROGRAM inst WITH Fast : Main;
  END_RESOURCE
END_CONFIGURATION
"""


def test_the_whole_file_is_written_with_its_configuration(tmp_path, capsys):
    src, out = tmp_path / "prog.st", tmp_path / "out.xml"
    src.write_text(PROGRAM)
    assert cli.main(["export", str(src), "-o", str(out), "--validate"]) == 0
    assert "its configuration, valid" in capsys.readouterr().err
    root = etree.parse(str(out)).getroot()
    ns = {"p": "http://www.plcopen.org/xml/tc6_0201"}
    assert [p.get("name") for p in root.iterfind(".//p:pou", ns)] == ["Counter", "Main"]
    task = root.find(".//p:configuration[@name='Conf']/p:resource[@name='Res']/p:task", ns)
    assert (task.get("name"), task.get("interval"), task.get("priority")) == ("Fast", "T#10ms", "1")
    assert task.find("p:pouInstance", ns).attrib == {"name": "inst", "typeName": "Main"}
    assert root.find(".//p:configuration/p:globalVars[@constant='true']/p:variable", ns)\
        .get("name") == "top"
    body = root.find(".//p:pou[@name='Main']/p:body/p:ST/x:p",
                     {**ns, "x": "http://www.w3.org/1999/xhtml"}).text
    assert body == ("(* count while x, up to the top *)\nc(up := x AND c.n < top);\n"
                    "y := c.n;  // the count")
    back = fbd.load(out)
    assert back.configuration.tasks[0].interval_us == 10_000
    assert scans(back) == scans(load(src))


def test_one_program_is_written_with_the_globals_it_names(tmp_path, capsys):
    src, out = tmp_path / "prog.st", tmp_path / "out.xml"
    src.write_text(PROGRAM)
    assert cli.main(["export", f"{src}:Main", "-o", str(out), "--validate", "--cycle", "20ms"]) == 0
    assert "a T#20ms task" in capsys.readouterr().err
    root = etree.parse(str(out)).getroot()
    ns = {"p": "http://www.plcopen.org/xml/tc6_0201"}
    assert [p.get("name") for p in root.iterfind(".//p:pou", ns)] == ["Counter", "Main"]
    assert root.find(".//p:dataType", ns).get("name") == "Mode"
    assert root.find(".//p:globalVars/p:variable", ns).get("name") == "top"
    for origin in (out, src):       # top holds the global's 3, alone as in the configuration
        h = fbd.testing.Harness(fbd.load(origin).network("Main"))
        h.write("Main.x", True)
        h.scan(5)
        assert h.get("Main.y") == 3, origin


def test_a_block_compiled_from_a_string_is_refused_with_its_name(tmp_path):
    from fbd.st import compile_unit, parse
    compiled = compile_unit(parse("FUNCTION_BLOCK Twice\nVAR_INPUT i : INT; END_VAR\n"
                                  "VAR_OUTPUT o : INT; END_VAR\no := i * 2;\nEND_FUNCTION_BLOCK\n"))
    net = fbd.Network("n")
    net.output("o", net.add("t", compiled["Twice"](), i=net.input("i", fbd.types.INT)).port("o"))
    with pytest.raises(fbd.FbdError, match="FUNCTION_BLOCK Twice is compiled from Structured "
                                           "Text given as a string"):
        save(net, tmp_path / "out.xml")


EVENTS = """FUNCTION_BLOCK Acc
VAR_INPUT inc : INT := 1; END_VAR
VAR total : INT; END_VAR
  total := total + inc;
END_FUNCTION_BLOCK
PROGRAM Main
VAR n : INT; a : Acc; END_VAR
  n := n + 1;
  a();
END_PROGRAM
CONFIGURATION Conf
  VAR_GLOBAL go : BOOL; END_VAR
  RESOURCE Res ON PLC
    TASK Fast (INTERVAL := T#10ms, PRIORITY := 0);
    TASK Ev (SINGLE := go, PRIORITY := 1);
    PROGRAM tick WITH Fast : Main;
    PROGRAM once WITH Ev : Main;
  END_RESOURCE
  VAR_CONFIG
    Res.once.n : INT := 40;
    Res.tick.a : Acc := (inc := 5);
  END_VAR
END_CONFIGURATION
"""


def test_an_event_task_and_var_config_are_written_and_run_the_same_read_back(tmp_path, capsys):
    src, out = tmp_path / "events.st", tmp_path / "out.xml"
    src.write_text(EVENTS)
    assert cli.main(["export", str(src), "-o", str(out), "--validate"]) == 0
    capsys.readouterr()
    root = etree.parse(str(out)).getroot()
    ns = {"p": "http://www.plcopen.org/xml/tc6_0201"}
    assert root.find(".//p:task[@name='Ev']", ns).get("single") == "go"
    assert [v.get("instancePathAndName") for v in root.iterfind(".//p:configVariable", ns)] == [
        "Res.once.n", "Res.tick.a"]
    rows = []
    for origin in (src, out):
        plc = fbd.load(origin).plc()
        for k in range(4):
            plc.set("go", k == 2)
            plc.run_for("T#10ms")
        rows.append([plc.get(p) for p in ("tick.n", "once.n", "tick.a.total", "once.a.total")])
    assert rows[0] == rows[1] == [4, 41, 20, 1]
