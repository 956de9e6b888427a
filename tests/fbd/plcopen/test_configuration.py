"""Configurations: globals shared by every program instance and task, the TC6
namespaces older editors write, and what a configuration refuses."""

from __future__ import annotations

import re

import pytest

from fbd.plcopen import PlcOpenError, load_project
from fbd.testing import Harness
from tests.fbd.plcopen import files as f

COUNTER = f.pou("Counter", f.group("externalVars", f.var("G", "INT"))
                + f.group("outputVars", f.var("SEEN", "INT")),
                f.inv(1, "G") + f.inv(2, "1")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + f.outv(4, "SEEN", 1) + f.outv(5, "G", 3, pin="OUT"))
READER = f.pou("Reader", f.group("externalVars", f.var("G", "INT"))
               + f.group("outputVars", f.var("O", "INT")), f.inv(1, "G") + f.outv(2, "O", 1))


def _config(tmp_path, *pous, globals_, tasks):
    tail = ('</pous></types><instances><configurations><configuration name="cfg">'
            f'<resource name="r">{tasks}</resource>{globals_}</configuration>'
            "</configurations></instances></project>")
    return f.write(tmp_path, *pous, tail=tail)


SHARED = ('<task name="fast" priority="0" interval="T#20ms">'
          '<pouInstance name="count" typeName="Counter"/>'
          '<pouInstance name="read" typeName="Reader"/></task>'
          '<task name="slow" priority="1" interval="T#60ms">'
          '<pouInstance name="late" typeName="Reader"/></task>')


def test_globals_are_shared_by_every_program_and_task(tmp_path):
    """count writes G := G + 1 every 20 ms; read (same task, after it) sees this tick's
    G, late (a 60 ms task) sees it when it runs. Scans from matiec running the ST
    Beremiz generates for this configuration (one scan = one 20 ms tick)."""
    path = _config(tmp_path, COUNTER, READER, globals_=f.group("globalVars",
                                                                f.var("G", "INT", "10")),
                   tasks=SHARED)
    plc = load_project(path).plc()
    expected = [(11, 10, 11, 11), (12, 11, 12, 11), (13, 12, 13, 11), (14, 13, 14, 14),
                (15, 14, 15, 14), (16, 15, 16, 14), (17, 16, 17, 17)]
    for k, (g, seen, read, late) in enumerate(expected, 1):
        plc.scan()
        got = (plc.globals["G"], plc.get("count:SEEN"), plc.get("read:O"), plc.get("late:O"))
        assert got == (g, seen, read, late), f"scan {k}"


def test_a_program_run_alone_keeps_its_own_copy_of_a_global(tmp_path):
    path = _config(tmp_path, COUNTER, READER, globals_=f.group("globalVars",
                                                                f.var("G", "INT", "10")),
                   tasks=SHARED)
    h = Harness(load_project(path).network("Counter"))
    h.scan(3)
    h.expect(G=13, SEEN=12)


def test_writing_a_global_from_outside_writes_it_for_every_program(tmp_path):
    path = _config(tmp_path, READER, globals_=f.group("globalVars", f.var("G", "INT", "1")),
                   tasks='<task name="t" priority="0" interval="T#10ms">'
                         '<pouInstance name="a" typeName="Reader"/>'
                         '<pouInstance name="b" typeName="Reader"/></task>')
    plc = load_project(path).plc()
    plc.scan()
    assert (plc.get("a:O"), plc.get("b:O")) == (1, 1)
    plc.set("a:G", 7)
    plc.scan()
    assert (plc.get("a:O"), plc.get("b:O"), plc.globals["G"]) == (7, 7, 7)


@pytest.mark.parametrize("external, global_, message", [
    (f.var("G", "INT"), f.var("G", "DINT"), "VAR_EXTERNAL 'G' is INT, but the global is DINT"),
    (f.var("G", "INT"), f.var("G", "INT"), "the global 'G' is CONSTANT; declare its "
                                           "VAR_EXTERNAL CONSTANT too"),
])
def test_an_external_that_does_not_match_its_global_is_refused(tmp_path, external, global_,
                                                              message):
    prog = f.pou("Main", f.group("externalVars", external)
                 + f.group("outputVars", f.var("O", "INT")), f.inv(1, "3") + f.outv(2, "O", 1))
    attrs = ' constant="true"' if "CONSTANT" in message else ""
    path = _config(tmp_path, prog, globals_=f.group("globalVars", global_, attrs=attrs),
                   tasks='<task name="t" priority="0" interval="T#10ms">'
                         '<pouInstance name="m" typeName="Main"/></task>')
    with pytest.raises(PlcOpenError, match=message):
        load_project(path).plc()


def test_a_constant_global_cannot_be_written(tmp_path):
    prog = f.pou("Main", f.group("externalVars", f.var("K", "INT"), attrs=' constant="true"'),
                 f.inv(1, "3") + f.outv(2, "K", 1))
    path = _config(tmp_path, prog, globals_=f.group("globalVars", f.var("K", "INT", "5"),
                                                     attrs=' constant="true"'), tasks="")
    with pytest.raises(PlcOpenError, match="element localId 2: the constant 'K' is written"):
        load_project(path).network("Main")


# -- namespaces --------------------------------------------------------------------------
MAIN = f.pou("Main", f.group("outputVars", f.var("O", "INT")), f.inv(1, "3") + f.outv(2, "O", 1))


def test_the_tc6_2_0_namespace_imports_as_2_01_does(tmp_path):
    path = tmp_path / "old.xml"
    path.write_text((f.HEAD + MAIN + f.configuration([("t", 0, "T#10ms", "i", "Main")]))
                    .replace("tc6_0201", "tc6_0200"))
    plc = load_project(path).plc()
    plc.scan()
    assert plc.get("O") == 3 and plc.main.cycle_us == 10_000


def test_a_tc6_1_0_file_names_its_program_in_type_and_times_its_task_as_xs_time(tmp_path):
    """matiec's own test projects: ``<pouInstance type=...>``, ``interval="00:00:00.100000"``
    and a program instance declared in the resource, without a task."""
    tail = ('</pous></types><instances><configurations><configuration name="c">'
            '<resource name="r"><task name="t" interval="00:00:00.100000" priority="0">'
            '<pouInstance name="i" type="Main"/></task>'
            '<pouInstance name="j" type="Main"/></resource></configuration>'
            "</configurations></instances></project>")
    path = tmp_path / "v1.xml"
    path.write_text((f.HEAD + MAIN + tail).replace("tc6_0201", "tc6.xsd"))
    conf = load_project(path).configuration
    assert [(s.name, s.program, s.interval_us) for s in conf.tasks] == [
        ("i", "Main", 100_000), ("j", "Main", None)]


def test_matiecs_own_test_projects_load_with_their_configuration():
    project = load_project(f.example("matiec_std_test"))
    assert [s.program for s in project.configuration.tasks] == ["MAIN_TEST"]


# -- event tasks and configVars -----------------------------------------------------------
def test_a_task_with_single_runs_when_its_global_rises_as_matiec_runs_beremizs_st(tmp_path):
    """count's task has single="GO" (as Beremiz writes an event task): it runs in
    the ticks where GO rose, sampled before read runs. matiec's rows for the ST
    Beremiz generates (Counter: SEEN := G; G := G + 1; Reader: O := G):
    oracle.py ev.st --scans 6 --set GO=TRUE@2 --set GO=FALSE@4 --set GO=TRUE@5
    --watch GO --watch G --watch count.SEEN --watch read.O"""
    tasks = ('<task name="fast" priority="0" interval="T#10ms">'
             '<pouInstance name="read" typeName="Reader"/></task>'
             '<task name="ev" priority="1" single="GO">'
             '<pouInstance name="count" typeName="Counter"/></task>')
    path = _config(tmp_path, COUNTER, READER, tasks=tasks, globals_=f.group(
        "globalVars", f.var("G", "INT", "10"), f.var("GO", "BOOL")))
    plc = load_project(path).plc()
    rows = []
    for k in range(1, 7):
        if k in (2, 4, 5):
            plc.set("GO", k != 4)
        plc.run_for("T#10ms")
        rows.append(tuple(plc.get(p) for p in ("GO", "G", "count.SEEN", "read.O")))
    assert rows == [(False, 10, 0, 10), (True, 11, 10, 10), (True, 11, 10, 11),
                    (False, 11, 10, 11), (True, 12, 11, 11), (True, 12, 11, 12)]
    assert plc.main.name == "read"


ACC = f.st_pou("Acc", f.group("localVars", f.var("N", "INT", "1"))
               + f.group("outputVars", f.var("O", "INT")), "N := N + 1; O := N;")
ACC_FBD = f.pou("AccFbd", f.group("localVars", f.var("N", "INT", "1"))
                + f.group("outputVars", f.var("O", "INT")),
                f.inv(1, "N") + f.inv(2, "1")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + f.outv(4, "N", 3, pin="OUT") + f.outv(5, "O", 3, pin="OUT"))
TWO_ACCS = ('<task name="t" priority="0" interval="T#10ms"><pouInstance name="a" typeName="Acc"/>'
            '<pouInstance name="b" typeName="Acc"/><pouInstance name="d" typeName="AccFbd"/>'
            '</task>')


def _config_vars(*lines):
    return "<configVars>" + "".join(
        f'<configVariable instancePathAndName="{path}"{attrs}><type><{tp}/></type>'
        f'<initialValue><simpleValue value="{value}"/></initialValue></configVariable>'
        for path, tp, value, attrs in lines) + "</configVars>"


def test_config_vars_give_one_instance_its_own_initial_value(tmp_path):
    """TC6's configVars are IEC's VAR_CONFIG (no editor writes them, and matiec
    generates nothing for VAR_CONFIG): here b starts at 40, a at its declared 1."""
    path = _config(tmp_path, ACC, ACC_FBD, tasks=TWO_ACCS,
                   globals_=_config_vars(("r.b.N", "INT", "40", ""), ("r.a.O", "INT", "7", "")))
    plc = load_project(path).plc()
    assert plc.get("a.O") == 7
    plc.scan(2)
    assert (plc.get("a.O"), plc.get("b.O"), plc.get("b.N"), plc.get("d.O")) == (3, 42, 42, 3)


@pytest.mark.parametrize("line, message", [
    (("r.b.N", "DINT", "40", ""), "VAR_CONFIG r.b.N : DINT does not match the variable's type INT"),
    (("r.c.N", "INT", "40", ""), "VAR_CONFIG r.c.N: no program instance 'c'"),
    (("N", "INT", "40", ""), "configVariable 'N': give the variable as RESOURCE.INSTANCE.VARIABLE"),
    (("r.b.N", "INT", "40", ' address="%MW1"'), "a location given in VAR_CONFIG (address='%MW1') "
                                                 "is not supported"),
    (("r.d.N", "INT", "40", ""), "VAR_CONFIG r.d.N: the variable's initial value is part of its "
                                 "FBD or LD network"),
])
def test_a_config_variable_that_cannot_apply_is_one_error(tmp_path, line, message):
    path = _config(tmp_path, ACC, ACC_FBD, tasks=TWO_ACCS, globals_=_config_vars(line))
    with pytest.raises(PlcOpenError, match=re.escape(message)):
        load_project(path).plc()
