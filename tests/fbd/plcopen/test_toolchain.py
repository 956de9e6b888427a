"""Every export builds in the toolchain of Beremiz and OpenPLC, and runs there as here.

The programs fbd ships (2048 in both variants, the traffic light, Sudoku, Hidato),
a network of this library's own blocks, and every program of the ST corpus that
loads are exported; Beremiz's generator writes the ST both editors hand to matiec,
matiec's iec2c compiles it to C, and the C compiles. The shipped programs and the
library's blocks then run 100 scans of scripted play in matiec (matiec-oracle's
harness around iec2c's C) and give, scan for scan, every output fbd gives.

Those tests need the tools (toolchain.py says how to point at them; without them
they are skipped, saying so). What the tools produced is checked in
(tests/data/toolchain): the default suite checks that the ST Beremiz wrote still
declares what today's export declares, and that fbd's scans are still the ones
matiec ran.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest
from lxml import etree

from fbd.plcopen.names import refused
from tests.fbd.plcopen import toolchain as tc

TARGETS = tc.targets()
RUN = sorted(n for n, t in TARGETS.items() if t.play is not None)
GROUPS = {"inputVars": "VAR_INPUT", "outputVars": "VAR_OUTPUT", "inOutVars": "VAR_IN_OUT",
          "localVars": "VAR", "tempVars": "VAR_TEMP", "externalVars": "VAR_EXTERNAL"}


def test_the_targets_are_every_program_fbd_ships_and_the_corpus():
    assert {"2048_single_pass", "2048_multi_scan", "traffic_light", "sudoku", "hidato",
            "library_blocks", "control_blocks"} <= set(RUN)
    assert sum(n.startswith("corpus__") for n in TARGETS) >= 60


# ------------------------------------------------------------ without the tools
_POU = re.compile(r"^\s*(?:(?:FUNCTION_BLOCK|PROGRAM)\s+(\w+)|FUNCTION\s+(\w+)\s*:\s*\w+)\s*$")
_SECTION = re.compile(r"^\s*(VAR_INPUT|VAR_OUTPUT|VAR_IN_OUT|VAR_EXTERNAL|VAR_TEMP|VAR)\b")
_DECLARATION = re.compile(r"^\s*(\w+)(?:\s+AT\s+(%[\w.]+))?\s*:")
_END_POU = re.compile(r"^\s*END_(?:FUNCTION_BLOCK|PROGRAM|FUNCTION)\b")


def _declared_in_st(text: str) -> dict:
    """POU -> {(section, variable, location)} the ST declares; Beremiz's own
    temporaries (``_TMP_...``) left out. Read line by line, as Beremiz writes one
    declaration a line (fbd's ST parser reads the same, in 20 s for Sudoku's)."""
    out: dict = defaultdict(set)
    pou = section = None
    for line in text.splitlines():
        if pou is None:
            m = _POU.match(line)
            if m:
                pou = m.group(1) or m.group(2)
                out[pou] = set()
        elif _END_POU.match(line):
            pou = section = None
        elif section is None:
            m = _SECTION.match(line)
            section = m.group(1) if m else None
        elif line.strip() == "END_VAR":
            section = None
        else:
            m = _DECLARATION.match(line)
            if m and not m.group(1).startswith("_TMP_"):
                out[pou].add((section, m.group(1), m.group(2)))
    return dict(out)


def _declared_in_export(tree) -> dict:
    out = defaultdict(set)
    for pou in tree.getroot().iter(tc.NS + "pou"):
        out[pou.get("name")]        # a POU without variables is declared too
        iface = pou.find(tc.NS + "interface")
        for group in (iface if iface is not None else ()):
            kind = GROUPS.get(etree.QName(group).localname)
            for var in group.iter(tc.NS + "variable") if kind else ():
                out[pou.get("name")].add((kind, var.get("name"), var.get("address")))
    return dict(out)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_the_st_beremiz_wrote_declares_what_the_export_declares(name):
    """The checked-in ST is Beremiz's for today's export: the same POUs, each with the
    same variables in the same sections at the same locations (matiec's names, AT
    where matiec takes it). A change of the export shows here until the toolchain
    tests are run again to write the new ST."""
    target = TARGETS[name]
    assert target.st.is_file(), f"{target.st} is missing: run the toolchain tests with " \
                                f"FBD_TOOLCHAIN_WRITE=1 (docs/plcopen.md)"
    assert _declared_in_st(target.st.read_text()) == _declared_in_export(target.tree())


@pytest.mark.parametrize("name", RUN)
def test_matiec_ran_the_export_as_fbd_runs_the_program(name):
    """Scan for scan, fbd's outputs are those matiec computed from Beremiz's ST, for
    the scripted play recorded with them."""
    target = TARGETS[name]
    recorded = json.loads(target.scans.read_text())
    columns, types, rows = tc.fbd_rows(target.network(), recorded["script"])
    assert (columns, types) == (recorded["columns"], recorded["types"])
    _same(columns, rows, [tc.from_matiec(row, types) for row in recorded["rows"]])


def _same(columns, ours, theirs):
    assert len(ours) == len(theirs) == tc.SCANS
    for k, (a, b) in enumerate(zip(ours, theirs), 1):
        assert a == b, f"scan {k}: " + ", ".join(
            f"{c}: fbd {x!r}, matiec {y!r}" for c, x, y in zip(columns, a, b) if x != y)


# ------------------------------------------------------------ with the tools
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_beremiz_generates_the_checked_in_st(name, tmp_path):
    why = tc.missing("FBD_BEREMIZ_SRC")
    if why:
        pytest.skip(why)
    target = TARGETS[name]
    tc.export(target, tmp_path / "export.xml")
    tc.beremiz_st(tmp_path / "export.xml", tmp_path / "plc.st")
    text = (tmp_path / "plc.st").read_text()
    if tc.writing():
        target.st.parent.mkdir(parents=True, exist_ok=True)
        target.st.write_text(text)
    assert text == target.st.read_text(), \
        f"Beremiz now writes other ST for {name}: FBD_TOOLCHAIN_WRITE=1 writes it"


# The ST these compile and run is the checked-in one, which the test above shows is
# what Beremiz writes for today's export.
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_matiec_compiles_beremiz_st_to_c_that_compiles(name, tmp_path):
    why = tc.missing("FBD_MATIEC_DIR")
    if why:
        pytest.skip(why)
    st = TARGETS[name].st
    if name in tc.REFUSED_AT_THE_SOURCE:
        # matiec refuses the source program itself; the export says what to rename
        with pytest.raises(AssertionError, match="^iec2c: "):
            tc.build(st, tmp_path)
        problems = refused(TARGETS[name].tree().getroot())
        assert any(p.startswith(tc.REFUSED_AT_THE_SOURCE[name]) for p in problems), problems
        return
    tc.build(st, tmp_path)


@pytest.mark.parametrize("name", RUN)
def test_matiec_runs_the_export_as_fbd_runs_the_program(name):
    why = tc.missing("FBD_MATIEC_DIR", "FBD_MATIEC_ORACLE")
    if why:
        pytest.skip(why)
    target = TARGETS[name]
    script = tc.record(target.play)
    network = target.network()
    columns, types, ours = tc.fbd_rows(network, script)
    names = tc.written_names(target.tree(), network.name)
    theirs = tc.oracle_rows(target.st, script, columns, names)
    _same(columns, ours, [tc.from_matiec(row, types) for row in theirs])
    if tc.writing():
        tc.write_scans(target, {"target": name, "tools": tc.versions(), "scans": tc.SCANS,
                                "script": script, "columns": columns, "types": types,
                                "rows": theirs})
    recorded = json.loads(target.scans.read_text())
    assert (recorded["script"], recorded["rows"]) == (script, theirs)
