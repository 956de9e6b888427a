"""``fbd run|info|export`` take a .st file as they take a PLCopen .xml one."""

import json

from fbd.tools import cli

PROGRAM = """PROGRAM Main
VAR
  x AT %IX0.0 : BOOL;
  y AT %QX0.0 : BOOL;
  n : INT;
END_VAR
VAR_EXTERNAL g : INT; END_VAR
  y := NOT x;
  n := n + 1;
  g := g + 2;
END_PROGRAM
CONFIGURATION Config0
  VAR_GLOBAL g : INT := 5; END_VAR
  RESOURCE Res0 ON PLC
    TASK task0(INTERVAL := T#20ms, PRIORITY := 0);
    PROGRAM inst0 WITH task0 : Main;
  END_RESOURCE
END_CONFIGURATION
"""


def test_run_a_st_configuration(tmp_path, capsys):
    path = tmp_path / "prog.st"
    path.write_text(PROGRAM)
    assert cli.main(["run", str(path), "--scans", "3", "--format", "csv", "--watch", "inst0.n",
                     "--watch", "inst0.y", "--watch", "inst0.G", "--watch", "g"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["scan,time_s,inst0.n,inst0.y,inst0.G,g",
                                "1,0.000000,1,1,7,7", "2,0.020000,2,1,9,9", "3,0.040000,3,1,11,11"]
    assert "inst0 (Main) every T#20ms: 3 scans" in err


def test_the_older_spellings_of_a_configurations_paths_name_the_same_variables(tmp_path, capsys):
    path = tmp_path / "prog.st"
    path.write_text(PROGRAM)
    assert cli.main(["run", str(path), "--scans", "3", "--format", "csv", "--watch", "Main.n",
                     "--watch", "inst0:Main.n", "--watch", "Config0.Res0.inst0.n"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["1,0.000000,1,1,1", "2,0.020000,2,2,2",
                                                       "3,0.040000,3,3,3"]


def test_one_program_of_a_st_file(tmp_path, capsys):
    path = tmp_path / "prog.st"
    path.write_text(PROGRAM)
    assert cli.main(["run", f"{path}:Main", "--scans", "2", "--set", "x=TRUE", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2,0.005000,0"


def test_an_error_is_one_line_and_exit_status_2(tmp_path, capsys):
    path = tmp_path / "bad.st"
    path.write_text("PROGRAM Main\nVAR a : INT; d : DINT; END_VAR\n  d := a;\nEND_PROGRAM\n")
    assert cli.main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"fbd: error: {path}:3:3: in PROGRAM Main: ")


def test_a_run_time_fault_ends_the_run_in_one_line_naming_the_scan_and_the_line(tmp_path,
                                                                                capsys):
    path = tmp_path / "idx.st"
    path.write_text("PROGRAM Main\nVAR i AT %IW0 : INT; o AT %QW0 : INT;\n"
                    "  a : ARRAY[0..2] OF INT := [7, 8, 9]; END_VAR\n  o := a[i];\nEND_PROGRAM\n")
    assert cli.main(["run", f"{path}:Main", "--scans", "5", "--set", "i=3@3", "--format",
                     "csv"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["1,0.000000,7", "2,0.005000,7"]   # the scans before it
    assert err == (f"fbd: error: fault at scan 3 of task main: {path}:4: in PROGRAM Main: "
                   f"array index 3 is outside 0..2\n")


def test_export_writes_an_st_program_that_runs_the_same_from_the_file(tmp_path, capsys):
    path = tmp_path / "prog.st"
    path.write_text(PROGRAM)
    out = tmp_path / "out.xml"
    assert cli.main(["export", f"{path}:Main", "-o", str(out), "--validate"]) == 0
    capsys.readouterr()
    assert cli.main(["run", f"{out}:Main", "--scans", "2", "--set", "x=TRUE", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2,0.005000,0"


TWO_ON_ONE_TASK = """PROGRAM counter
  VAR n : INT; END_VAR
  n := n + 1;
END_PROGRAM
CONFIGURATION conf
  RESOURCE res ON PLC
    TASK t(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM inst0 WITH t : counter;
    PROGRAM inst1 WITH t : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_a_row_is_taken_after_every_program_of_the_tick_has_run(tmp_path, capsys):
    """inst1 runs after inst0, the main task: its n is 1, 2, 3 after the ticks, as
    plc.scan() and matiec give (oracle.py two.st --scans 3 --watch inst1.n)."""
    path = tmp_path / "two.st"
    path.write_text(TWO_ON_ONE_TASK)
    vcd = tmp_path / "two.vcd"
    assert cli.main(["run", str(path), "--scans", "3", "--format", "csv", "--watch", "inst1.n",
                     "--vcd", str(vcd)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "scan,time_s,inst1.n", "1,0.000000,1", "2,0.010000,2", "3,0.020000,3"]
    assert [line for line in vcd.read_text().splitlines() if line.endswith("!")] == [
        "b1 !", "b10 !", "b11 !"]
    assert cli.main(["run", str(path), "--scans", "2", "--format", "json", "--watch", "inst1.n",
                     "--watch", "inst0.n"]) == 0
    rows = [r["values"] for r in json.loads(capsys.readouterr().out)["rows"]]
    assert rows == [{"inst1.n": 1, "inst0.n": 1}, {"inst1.n": 2, "inst0.n": 2}]
