"""A textual SFC chart exported as a graphical PLCopen ``<SFC>`` body: the steps,
transitions, divergences, convergences, jumps, action blocks and actions it
draws, and the chart read back from them runs as the text ran, as matiec runs
the text (its rows are recorded here: iec2c 6bb2c339df6f, 5 ms cycle)."""

from __future__ import annotations

import pytest
from lxml import etree

import fbd
from fbd.plcopen.textual import PouText
from fbd.st import dump, parse
from tests.fbd.plcopen.roundtrip import export

NS = {"p": "http://www.plcopen.org/xml/tc6_0201", "x": "http://www.w3.org/1999/xhtml"}

CHART = """PROGRAM main
  VAR
    go : BOOL;
    n : INT;
    lit : INT;
    lcount : INT;
    rcount : INT;
  END_VAR

  INITIAL_STEP Idle:
    Count(N);
  END_STEP

  TRANSITION FROM Idle TO Fork := go; END_TRANSITION
  TRANSITION Skip (PRIORITY := 1) FROM Idle TO Done := n > 100; END_TRANSITION

  STEP Fork:
    Lamp(S);
  END_STEP

  TRANSITION FROM Fork TO (Left, Right) := TRUE; END_TRANSITION

  STEP Left:
    CountLeft(P1);
  END_STEP
  STEP Right:
    CountRight(P0);
  END_STEP

  TRANSITION FROM (Left, Right) TO Done :
    LD go
    NOT
  END_TRANSITION

  STEP Done:
    Lamp(R);
  END_STEP

  TRANSITION FROM Done TO Idle := TRUE; END_TRANSITION

  ACTION Count:
    (* one per scan while idle *)
    n := n + 1;
  END_ACTION
  ACTION Lamp:
    lit := lit + 1;
  END_ACTION
  ACTION CountLeft:
    lcount := lcount + 1;
  END_ACTION
  ACTION CountRight:
    rcount := rcount + 1;
  END_ACTION
END_PROGRAM
"""
#: matiec's n, lit, lcount, rcount for 12 scans, go TRUE before scan 3, FALSE before 6
CHART_ROWS = [(1, 0, 0, 0), (2, 0, 0, 0), (2, 1, 0, 0), (2, 2, 1, 0), (2, 3, 1, 0), (2, 3, 1, 1),
              (3, 3, 1, 1), (4, 3, 1, 1), (5, 3, 1, 1), (6, 3, 1, 1), (7, 3, 1, 1), (8, 3, 1, 1)]


def exported(tmp_path, source):
    src, out = tmp_path / "chart.st", tmp_path / "chart.xml"
    src.write_text(source)
    export(src, out)                                  # valid against the schema
    return src, out, etree.parse(str(out)).getroot()


def run(project, columns, sets, scans):
    plc = project.plc()
    task = project.configuration.tasks[0].name
    rows = []
    for k in range(1, scans + 1):
        for name, value in sets.get(k, {}).items():
            plc.write(f"{task}:main.{name}", value)
        plc.scan()
        rows.append(tuple(plc.get_raw(f"{task}:main.{c}") for c in columns))
    return rows


def test_a_chart_read_back_runs_as_matiec_runs_the_text(tmp_path):
    src, out, _root = exported(tmp_path, CHART)
    columns, sets = ("n", "lit", "lcount", "rcount"), {3: {"go": True}, 6: {"go": False}}
    assert run(fbd.load(src), columns, sets, 12) == CHART_ROWS
    assert run(fbd.load(out), columns, sets, 12) == CHART_ROWS


def test_divergences_convergences_and_jumps_are_drawn(tmp_path):
    _src, _out, root = exported(tmp_path, CHART)
    sfc = root.find(".//p:SFC", NS)
    kinds = [etree.QName(el).localname for el in sfc]
    for kind in ("selectionDivergence", "simultaneousDivergence", "simultaneousConvergence",
                 "selectionConvergence"):
        assert kinds.count(kind) == 1, kinds
    steps = {el.get("name"): el for el in sfc.iterfind("p:step", NS)}
    assert list(steps) == ["Idle", "Fork", "Left", "Done", "Right"]
    assert steps["Idle"].get("initialStep") == "true"
    # Skip and the join of Left and Right meet above Done; Done -> Idle loops back: a jump
    assert [j.get("targetName") for j in sfc.iterfind("p:jumpStep", NS)] == ["Idle"]
    ids = {el.get("localId") for el in sfc}
    assert len(ids) == len(sfc)
    for conn in sfc.iterfind(".//p:connection", NS):
        assert conn.get("refLocalId") in ids and len(conn) == 2


def test_a_step_entered_by_two_transitions_joins_them_in_a_selection_convergence(tmp_path):
    _src, out, root = exported(tmp_path, """PROGRAM main
VAR a : BOOL; b : BOOL; END_VAR
INITIAL_STEP S0: END_STEP
TRANSITION FROM S0 TO S1 := a; END_TRANSITION
TRANSITION FROM S0 TO S2 := b; END_TRANSITION
STEP S1: END_STEP
TRANSITION FROM S1 TO S3 := TRUE; END_TRANSITION
STEP S3: END_STEP
STEP S2: END_STEP
TRANSITION FROM S2 TO S3 := TRUE; END_TRANSITION
TRANSITION FROM S3 TO S0 := NOT a AND NOT b; END_TRANSITION
END_PROGRAM
""")
    # S2's way to S3 is written after S3: a jump, as the loop back to S0
    assert len(root.findall(".//p:selectionConvergence", NS)) == 0
    assert [j.get("targetName") for j in root.iterfind(".//p:jumpStep", NS)] == ["S0", "S3"]


def test_transitions_written_before_their_step_meet_in_a_selection_convergence(tmp_path):
    _src, out, root = exported(tmp_path, """PROGRAM main
VAR a : BOOL; END_VAR
INITIAL_STEP S0: END_STEP
TRANSITION FROM S0 TO (S1, S2) := a; END_TRANSITION
STEP S1: END_STEP
STEP S2: END_STEP
TRANSITION FROM S1 TO S3 := TRUE; END_TRANSITION
TRANSITION FROM S2 TO S3 := TRUE; END_TRANSITION
STEP S3: END_STEP
TRANSITION FROM S3 TO S0 := NOT a; END_TRANSITION
END_PROGRAM
""")
    conv = root.find(".//p:selectionConvergence", NS)
    assert conv is not None and len(conv.findall("p:connectionPointIn", NS)) == 2
    back = PouText(out).pou(root.find(".//p:pou", NS)).body
    assert sorted((t.sources, t.targets) for t in back.transitions) == sorted(
        (t.sources, t.targets) for t in parse(_src.read_text()).pous[0].body.transitions)


def test_conditions_and_actions_keep_their_text(tmp_path):
    _src, _out, root = exported(tmp_path, CHART)
    inline = [el.text for el in root.iterfind(".//p:condition/p:inline/*/x:p", NS)]
    assert inline == ["go", "TRUE", "LD go\nNOT", "TRUE"]
    assert root.find(".//p:condition/p:inline/p:IL", NS) is not None
    named = root.find(".//p:transitions/p:transition[@name='Skip']/p:body/p:ST/x:p", NS)
    assert named.text == ":= n > 100;"
    skip = root.find(".//p:transition[@priority='1']/p:condition/p:reference", NS)
    assert skip.get("name") == "Skip"
    count = root.find(".//p:actions/p:action[@name='Count']/p:body/p:ST/x:p", NS)
    assert count.text == "(* one per scan while idle *)\nn := n + 1;"


QUALIFIED = """PROGRAM main
  VAR
    go : BOOL;
    runs : INT;
  END_VAR
  INITIAL_STEP Idle:
    {setup}
  END_STEP
  TRANSITION FROM Idle TO Busy := go; END_TRANSITION
  STEP Busy:
    {association};
  END_STEP
  TRANSITION FROM Busy TO Idle := NOT go; END_TRANSITION
  ACTION A:
    runs := runs + 1;
  END_ACTION
END_PROGRAM
"""
#: matiec's runs for 12 scans, go TRUE before scan 2 and FALSE before scan 8
QUALIFIER_RUNS = {
    "N": [0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6],
    "R": [1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6],      # Idle sets A (S), Busy resets it
    "S": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    "P": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "P0": [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1],
    "P1": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "L": [0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "D": [0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4, 4],
    "SD": [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    "DS": [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    "SL": [0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
}


@pytest.mark.parametrize("qualifier", sorted(QUALIFIER_RUNS))
def test_each_qualifier_and_duration_survives(tmp_path, qualifier):
    timed = qualifier in ("L", "D", "SD", "DS", "SL")
    association = f"A({qualifier}, T#10ms)" if timed else f"A({qualifier})"
    src, out, root = exported(tmp_path, QUALIFIED.format(
        setup="A(S);" if qualifier == "R" else "", association=association))
    actions = root.findall(".//p:actionBlock/p:action", NS)
    busy = actions[-1]
    assert busy.get("qualifier") == qualifier
    assert busy.get("duration") == ("T#10ms" if timed else None)
    assert busy.find("p:reference", NS).get("name") == "A"
    back = PouText(out).pou(root.find(".//p:pou", NS)).body
    original = parse(src.read_text()).pous[0].body
    assert dump(back.steps[-1].actions) == dump(original.steps[-1].actions)
    sets = {2: {"go": True}, 8: {"go": False}}
    expected = [(r,) for r in QUALIFIER_RUNS[qualifier]]
    assert run(fbd.load(src), ("runs",), sets, 12) == expected
    assert run(fbd.load(out), ("runs",), sets, 12) == expected


def test_actions_the_chart_would_run_in_another_order_are_refused(tmp_path):
    src = tmp_path / "chart.st"
    src.write_text("""PROGRAM main
VAR go : BOOL; x : INT; END_VAR
INITIAL_STEP S0: Second(N); END_STEP
TRANSITION FROM S0 TO S1 := go; END_TRANSITION
STEP S1: First(N); END_STEP
TRANSITION FROM S1 TO S0 := NOT go; END_TRANSITION
ACTION First: x := 1; END_ACTION
ACTION Second: x := x * 2; END_ACTION
END_PROGRAM
""")
    with pytest.raises(fbd.FbdError, match=r"chart.st:8:1: PROGRAM main: the actions First and "
                                           r"Second both use X"):
        export(src, tmp_path / "chart.xml")
