"""A program's located input (``AT %IX``, ``%IW``) is memory, as in matiec: what the
program writes into it is what later statements, the end of the scan, a Modbus
client and the next scans read, until the next value is latched. In ST, SFC and
FBD, on every engine."""

import pytest

from fbd import Plc
from fbd.batch import BatchHarness
from fbd.modbus import DISCRETE_INPUTS, HOLDING_REGISTERS, INPUT_REGISTERS, IW_WINDOW, ProcessImage
from fbd.plcopen import load_project
from fbd.st.project import load
from fbd.testing import Harness
from tests.fbd.plcopen import files as f
from tests.fbd.st import scans
from tests.paths import DATA

WRITES = """
PROGRAM main
VAR
  x AT %IX0.0 : BOOL;
  w AT %IW0 : INT;
END_VAR
VAR
  seen1, seen2 : BOOL; n : INT; k : INT;
END_VAR
  seen1 := x;
  k := k + 1;
  IF k = 2 THEN x := TRUE; w := w + 100; END_IF;
  seen2 := x;
  n := w;
END_PROGRAM
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --scans 6 --set W=5@1 --set W=7@4 --set X=FALSE@5
WRITES_ROWS = """
scan,t_ms,x,w,seen1,seen2,n,k
1,0,FALSE,5,FALSE,FALSE,5,1
2,5,TRUE,105,FALSE,TRUE,105,2
3,10,TRUE,105,TRUE,TRUE,105,3
4,15,TRUE,7,TRUE,TRUE,7,4
5,20,FALSE,7,FALSE,FALSE,7,5
6,25,FALSE,7,FALSE,FALSE,7,6
"""
SETS = {1: {"w": 5}, 4: {"w": 7}, 5: {"x": False}}


def test_what_a_program_writes_into_its_input_holds_until_the_next_value_is_latched():
    h = Harness(load("w.st", text=WRITES).network("main"))
    rows = []
    for k in range(1, 7):
        h.set(SETS.get(k, {}))
        h.scan()
        rows.append(",".join([str(k), str((k - 1) * 5)] + [
            scans.text(h.get(p)) for p in ("x", "w", "main.seen1", "main.seen2", "main.n",
                                           "main.k")]))
    assert "\n".join(rows) == scans.expected(WRITES_ROWS)


def test_a_modbus_client_reads_what_the_program_wrote_until_it_writes_the_input_again():
    plc = Plc(load("w.st", text=WRITES).network("main"))
    image = ProcessImage(plc)
    plc.set("w", 5)
    plc.scan(2)                               # scan 2 writes x := TRUE, w := 105
    assert image.read(DISCRETE_INPUTS, 0, 1) == [True]
    assert image.read(INPUT_REGISTERS, 0, 1) == [105]
    plc.scan()
    assert image.read(INPUT_REGISTERS, 0, 1) == [105]
    assert image.write(HOLDING_REGISTERS, IW_WINDOW, [7]) is None     # %IW0, by the input window
    plc.scan()
    assert image.read(INPUT_REGISTERS, 0, 1) == [7] and plc.get("main.n") == 7


# The textual SFC of matiec's SFC_TEST: the actions of steps A1..A3 write IX1, and the
# transitions out of them read it. matiec (iec2c 6bb2c339df6f), 100 ms task, oracle.py
# --scans 14 --set IX2=TRUE@3 --set IX3=TRUE@9 --set IX2=FALSE@12
SFC_ROWS = """
scan,t_ms,IX1,IX2,IX3,QX1,QX2,QX3
1,0,FALSE,FALSE,FALSE,TRUE,TRUE,FALSE
2,100,FALSE,FALSE,FALSE,TRUE,TRUE,FALSE
3,200,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE
4,300,TRUE,TRUE,FALSE,FALSE,FALSE,FALSE
5,400,TRUE,TRUE,FALSE,FALSE,TRUE,FALSE
6,500,FALSE,TRUE,FALSE,FALSE,TRUE,FALSE
7,600,FALSE,TRUE,FALSE,TRUE,FALSE,FALSE
8,700,TRUE,TRUE,FALSE,TRUE,FALSE,FALSE
9,800,TRUE,TRUE,TRUE,TRUE,TRUE,FALSE
10,900,TRUE,TRUE,TRUE,FALSE,FALSE,FALSE
11,1000,TRUE,TRUE,TRUE,TRUE,TRUE,TRUE
12,1100,TRUE,FALSE,TRUE,TRUE,TRUE,TRUE
13,1200,TRUE,FALSE,TRUE,TRUE,TRUE,TRUE
14,1300,TRUE,FALSE,TRUE,TRUE,TRUE,TRUE
"""


def test_matiecs_sfc_test_whose_actions_write_an_input_runs_as_matiec_runs_it():
    project = load(DATA / "st/matiec/tests/syntax/sfc/sfc.txt")
    plc = project.plc()
    spec = project.configuration.tasks[0]
    sets = {3: {"IX2": True}, 9: {"IX3": True}, 12: {"IX2": False}}
    rows = []
    for k in range(1, 15):
        for name, value in sets.get(k, {}).items():
            plc.set(f"{spec.name}:{name}", value)
        plc.scan()
        rows.append(",".join([str(k), str((k - 1) * 100)] + [
            scans.text(plc.get(f"{spec.name}:{name}")) for name in ("IX1", "IX2", "IX3", "QX1",
                                                                     "QX2", "QX3")]))
    assert "\n".join(rows) == scans.expected(SFC_ROWS)


def fbd_program(tmp_path):
    """The same rule in FBD: NB AT %IW0 read, written 5, read again."""
    prog = f.pou("Main", f.group("localVars", f.var("NB", "INT", at="%IW0"))
                 + f.group("outputVars", f.var("BEFORE", "INT"), f.var("AFTER", "INT")),
                 f.inv(1, "NB") + f.outv(2, "BEFORE", 1) + f.inv(3, "5") + f.outv(4, "NB", 3)
                 + f.inv(5, "NB", y=40) + f.outv(6, "AFTER", 5, y=40))
    path = tmp_path / "nb.xml"
    path.write_text(f.HEAD + prog + f.TAIL)
    return load_project(path).network("Main")


# matiec (iec2c 6bb2c339df6f), the ST Beremiz writes for it, NB set to 9 before scans 1
# and 3: NB, BEFORE, AFTER = 5 9 5; 5 5 5; 5 9 5
NB_ROWS = [(5, 9, 5), (5, 5, 5), (5, 9, 5)]


@pytest.mark.parametrize("engine", ["python", "native"])
def test_an_fbd_program_writing_its_input_gives_matiecs_scans_on_each_engine(tmp_path, engine):
    h = Harness(fbd_program(tmp_path), engine=engine)
    seen = []
    for sets in ({"NB": 9}, {}, {"NB": 9}):
        h.set(sets).scan()
        seen.append((h.get("NB"), h.get("BEFORE"), h.get("AFTER")))
    assert seen == NB_ROWS


def test_an_fbd_program_writing_its_input_gives_matiecs_scans_in_every_batch_instance(tmp_path):
    h = BatchHarness(fbd_program(tmp_path), n=2)
    seen = []
    for sets in ({"NB": 9}, {}, {"NB": 9}):
        h.set(sets).scan()
        seen.append(tuple(h.get(p).tolist() for p in ("NB", "BEFORE", "AFTER")))
    assert seen == [tuple([v, v] for v in row) for row in NB_ROWS]
