"""Names matiec refuses (fbd.plcopen.names): renamed in an export so Beremiz and
OpenPLC build it, each rename marked, and given back by the import."""

from __future__ import annotations

import random

from lxml import etree

import blocks
from fbd import BOOL, INT, Network
from fbd.plcopen import load_project, save, to_xml
from fbd.plcopen.names import refused
from fbd.tools import cli
from tests.fbd.plcopen import files as f
from tests.fbd.plcopen.test_writer import assert_same_scans
from tests.paths import ROOT

NS = f.NS
MARK = "{urn:fbd-sim}name"


def clashing() -> Network:
    """A port named like RIGHT and one like ADD (functions of matiec's library), one
    like the keyword STEP, an instance named like the keyword ON, a macro named like an
    output of the program."""
    score = Network("Score")
    add = score.input("Add", INT)
    keep = score.add("keep", blocks.MEMORY(INT), IN=add, SET=True)
    score.output("Sum", keep.OUT)
    net = Network("Top")
    right = net.input("Right", BOOL)
    step = net.input("STEP", INT, 1)
    on = net.add("on", blocks.SR(), S1=right, R=False)
    total = net.add("total", blocks.ADD(INT), IN2=step)
    points = net.add("points", score, Add=total.OUT)
    net.connect(points.Sum, total.IN1, feedback=True)
    net.output("SCORE", points.Sum)
    net.output("LATCHED", on.Q1)
    return net


def _pous(root) -> dict:
    return {p.get("name"): p for p in root.iter(NS + "pou")}


def _variables(pou) -> list[str]:
    return [v.get("name") for g in pou.find(NS + "interface") for v in g.iter(NS + "variable")]


def test_names_matiec_refuses_are_renamed_and_marked():
    root = to_xml(clashing()).getroot()
    pous = _pous(root)
    assert set(pous) == {"Top", "Score_FB", "FBD_MEMORY_INT"}
    assert {"Right_VAR", "STEP_VAR", "on_VAR", "SCORE"} <= set(_variables(pous["Top"]))
    assert _variables(pous["Score_FB"])[0] == "Add_VAR"
    # the reads in the body, the instance, and the pins of the block placing the macro
    body = pous["Top"].find(f"{NS}body/{NS}FBD")
    assert "Right_VAR" in {e.text for e in body.iter(NS + "expression")}
    blocks_ = {b.get("instanceName"): b for b in body.iter(NS + "block")}
    assert blocks_["on_VAR"].get("typeName") == "SR"
    assert blocks_["points"].get("typeName") == "Score_FB"
    assert "Add_VAR" in {v.get("formalParameter") for v in blocks_["points"].iter(NS + "variable")}
    marks = {(m.get("written"), m.get("original")) for m in root.iter(MARK)}
    assert marks == {("Score_FB", "Score"), ("Right_VAR", "Right"), ("STEP_VAR", "STEP"),
                     ("on_VAR", "on"), ("Add_VAR", "Add")}
    assert refused(root) == []


def test_an_export_whose_names_matiec_refuses_imports_back_under_its_own_names(tmp_path):
    net = clashing()
    path = tmp_path / "top.xml"
    save(net, path)
    assert f.schema().validate(etree.parse(str(path)))
    project = load_project(path)
    assert not project.errors, project.errors
    back = project.network("Top")
    assert list(back.inputs) == ["Right", "STEP"] and list(back.outputs) == ["SCORE", "LATCHED"]
    assert {"on", "total", "points"} <= set(back.instances) and "on_VAR" not in back.instances
    macro = back.instances["points"].element
    assert macro.name == "Score" and list(macro.inputs) == ["Add"]
    rng = random.Random(4)
    assert_same_scans(net, back, [{"Right": rng.random() < 0.3, "STEP": rng.randint(-3, 9)}
                                  for _ in range(40)])


def test_a_name_changed_in_an_editor_is_kept_and_a_bad_mark_is_ignored(tmp_path):
    path = tmp_path / "top.xml"
    save(clashing(), path)
    text = path.read_text()
    # renamed in the editor (its mark kept as it was), and a mark edited to a non-name
    text = text.replace("Right_VAR", "RightKey").replace('written="RightKey"',
                                                         'written="Right_VAR"')
    text = text.replace('original="on"', 'original="on; x"')
    path.write_text(text)
    back = load_project(path).network("Top")
    assert list(back.inputs) == ["RightKey", "STEP"]
    assert "on_VAR" in back.instances
    assert back.instances["points"].element.name == "Score"


def test_names_in_a_pou_brought_from_a_file_are_reported_not_changed(tmp_path, capsys):
    """cex.st names a PROGRAM P, as the parameter P of matiec's MID: iec2c -p refuses the
    file itself; the export keeps the name its text uses and says what to rename."""
    src = ROOT / "tests/data/st/openplc_samples/successed_ST/cex.st"
    out = tmp_path / "cex.xml"
    assert cli.main(["export", str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (f"fbd: warning: {out}: the POU P is named like a parameter of matiec's library "
            f"(iec2c -p, as Beremiz runs it); matiec refuses it, so Beremiz and OpenPLC cannot "
            f"build the project: rename it") in err
    assert "P" in _pous(etree.parse(str(out)).getroot())


def test_our_own_blocks_st_names_are_names_matiec_takes():
    """The variables of the ST function blocks standing for this library's blocks are
    never renamed (their ST uses them): none may be one matiec refuses."""
    net = Network("All")
    x = net.input("X", INT)
    for i, block in enumerate([blocks.MEMORY(INT), blocks.LIFO(INT, depth=3),
                               blocks.FIFO(INT, depth=3), blocks.NEG(INT),
                               blocks.F_TRIG(first_scan_pulse=False), blocks.NOW()]):
        wires = {"IN": x} if any(p.name == "IN" for p in block.input_ports()) else \
            {"CLK": False} if block.name == "F_TRIG" else {}
        net.add(f"b{i}", block, **wires)
    root = to_xml(net).getroot()
    st_pous = [p for p in root.iter(NS + "pou") if p.find(f"{NS}body/{NS}ST") is not None]
    assert len(st_pous) == 6
    assert refused(root) == []
    assert not list(root.iter(MARK))
