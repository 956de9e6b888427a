"""The fbd command: each verb, each user error as one line with status 2."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fbd.loading import LoadError
from fbd.tools import cli
from tests.fbd import standins

ROOT = Path(__file__).resolve().parents[3]
P = "tests.fbd.cli_programs"


def fbd(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def error_line(capsys, *argv) -> str:
    status, out, err = fbd(capsys, *argv)
    assert status == 2, (out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fbd: error: ")
    assert "Traceback" not in err
    return lines[0]


def table(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()]


# -------------------------------------------------------------------------- run
def test_run_prints_a_row_per_scan_and_stats_on_stderr(capsys):
    status, out, err = fbd(capsys, "run", f"{P}:latch", "--scans", "3")
    assert status == 0
    assert table(out) == [["scan", "time", "s", "Q"], ["1", "0.000", "FALSE"],
                          ["2", "0.005", "FALSE"], ["3", "0.010", "FALSE"]]
    assert "3 scans of latch" in err and "overrun" in err


def test_run_shows_a_real_as_the_shortest_text_of_its_single_precision_value(capsys, tmp_path):
    source = tmp_path / "reals.st"
    source.write_text("PROGRAM prg\nVAR a : REAL := 0.1; b : REAL := 0.2; c : REAL; l : LREAL; "
                      "END_VAR\nc := a + b;\nl := REAL_TO_LREAL(c);\nEND_PROGRAM\n")
    watch = ["--watch", "prg.c", "--watch", "prg.l", "--scans", "1"]
    status, out, _ = fbd(capsys, "run", str(source), *watch, "--format", "csv")
    assert status == 0 and out.splitlines()[1] == "1,0.000000,0.3,0.30000001192092896"
    status, out, _ = fbd(capsys, "run", str(source), *watch)
    assert table(out)[1][2:] == ["0.3", "0.30000001192092896"]
    status, out, _ = fbd(capsys, "run", str(source), *watch, "--format", "json")
    assert json.loads(out)["rows"][0]["values"]["prg.c"] == 0.30000001192092896


def test_set_applies_before_the_scan_it_names(capsys):
    status, out, _ = fbd(capsys, "run", f"{P}:latch", "--scans", "8", "--set", "S=TRUE@3",
                         "--set", "S=FALSE@4", "--set", "R=1@6", "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["Q"] for r in rows] == ["0", "0", "1", "1", "1", "0", "0", "0"]
    assert [r["scan"] for r in rows] == [str(i) for i in range(1, 9)]
    assert float(rows[2]["time_s"]) == pytest.approx(0.010)


def test_set_writes_a_text_programs_var_input_before_the_scan_it_names(capsys, tmp_path):
    """A PROGRAM's VAR_INPUT without an address is a variable of the program (not
    an input of the network), set as the debugger writes it."""
    path = tmp_path / "double.st"
    path.write_text("PROGRAM prg\nVAR_INPUT x : INT; END_VAR\nVAR y : INT; END_VAR\n"
                    "y := x * 2;\nEND_PROGRAM\n")
    status, out, _ = fbd(capsys, "run", str(path), "--scans", "3", "--set", "prg.x=5@2",
                         "--watch", "prg.y", "--format", "csv")
    assert status == 0
    assert [r["prg.y"] for r in csv.DictReader(io.StringIO(out))] == ["0", "10", "10"]


def test_set_without_scan_applies_before_the_first(capsys):
    _, out, _ = fbd(capsys, "run", f"{P}:latch", "--scans", "2", "--set", "S=true")
    assert [row[-1] for row in table(out)[1:]] == ["TRUE", "TRUE"]


def test_values_are_parsed_by_the_inputs_type_and_json_parses_back(capsys):
    status, out, _ = fbd(capsys, "run", f"{P}:passthrough", "--scans", "2", "--format", "json",
                         "--set", "N=16#FF", "--set", "W=2#1010", "--set", "T=T#1s500ms@2",
                         "--set", "X=1.5", "--set", "B=TRUE", "--set", "S='a b'",
                         "--cycle", "10ms")
    assert status == 0
    doc = json.loads(out)
    assert doc["network"] == "passthrough" and doc["cycle_us"] == 10_000
    assert doc["signals"]["OT"] == "TIME"
    first, second = doc["rows"]
    assert first == {"scan": 1, "time_s": 0.0, "values": {
        "OB": True, "ON": 255, "OW": 10, "OT": 0.0, "OX": 1.5, "OS": "a b"}}
    assert second["time_s"] == 0.01 and second["values"]["OT"] == 1.5


def test_table_shows_iec_literals(capsys):
    _, out, _ = fbd(capsys, "run", f"{P}:passthrough", "--scans", "1", "--set", "T=2s",
                    "--watch", "OT", "--watch", "T")
    assert table(out)[1] == ["1", "0.000", "T#2s", "T#2s"]


def test_watch_internal_signals_and_csv(capsys):
    _, out, _ = fbd(capsys, "run", f"{P}:counter", "--scans", "3", "--format", "csv",
                    "--watch", "inc.OUT", "--watch", "inc.IN", "--cycle", "T#1ms")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows == [["scan", "time_s", "inc.OUT", "inc.IN"], ["1", "0.000000", "1", "1"],
                    ["2", "0.001000", "2", "2"], ["3", "0.002000", "3", "3"]]


def test_a_network_object_instead_of_a_function(capsys):
    status, out, _ = fbd(capsys, "run", f"{P}:LATCH", "--scans", "1")
    assert status == 0 and "Q" in out


def test_vcd_and_dump_files(capsys, tmp_path):
    vcd, dump = tmp_path / "run.vcd", tmp_path / "scan.py"
    status, _, _ = fbd(capsys, "run", f"{P}:latch", "--scans", "4", "--set", "S=1@2",
                       "--vcd", str(vcd), "--dump", str(dump))
    assert status == 0
    text = vcd.read_text()
    assert "$var wire 1" in text and " Q $end" in text and "#5000" in text
    assert "def scan(s, now):" in dump.read_text()


def test_file_path_module(capsys):
    path = ROOT / "tests" / "fbd" / "cli_programs.py"
    status, out, _ = fbd(capsys, "run", f"{path}:counter", "--scans", "2")
    assert status == 0 and table(out)[-1][-1] == "2"


def test_long_runs_report_progress(capsys, monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_OVER", 5)
    status, out, err = fbd(capsys, "run", f"{P}:counter", "--scans", "20", "--format", "csv")
    assert status == 0
    assert "scan 20/20 (100%)" in err
    assert len(out.splitlines()) == 21


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize("argv, message", [
    (["run", "no_such_module_xyz:build"], "no module named 'no_such_module_xyz'"),
    (["run", f"{P}:lach"], "did you mean latch?"),
    (["run", f"{P}"], "MODULE:FUNCTION"),
    (["run", f"{P}:not_a_network"], "returned int, not a Network"),
    (["run", f"{P}:NUMBER"], "neither a Network nor a function"),
    (["run", f"{P}:buggy"], "raised ZeroDivisionError: division by zero"),
    (["run", f"{P}:miswired"], "AND2 has no port 'C'"),
    (["run", "/no/such/file.py:f"], "no file /no/such/file.py"),
    (["run", f"{P}:latch", "--set", "S"], "write NAME=VALUE"),
    (["run", f"{P}:latch", "--set", "S=maybe"], "--set S: 'maybe' is not a BOOL"),
    (["run", f"{P}:latch", "--set", "SS=1"], "unknown signal 'SS'; did you mean S?"),
    (["run", f"{P}:latch", "--set", "Q=1"], "not an input or a variable of latch (its inputs: S, R)"),
    (["run", f"{P}:latch", "--set", "S=1@x"], "the scan after @ must be a number"),
    (["run", f"{P}:latch", "--set", "S=1@0"], "outside this run's scans 1..10"),
    (["run", f"{P}:latch", "--set", "S=1@11"], "outside this run's scans 1..10"),
    (["run", f"{P}:passthrough", "--set", "N=40000"], "out of range for INT"),
    (["run", f"{P}:passthrough", "--set", "T=soon"], "not a TIME literal"),
    (["run", f"{P}:latch", "--watch", "hold.OUTT"], "unknown signal 'hold.OUTT'"),
    (["run", f"{P}:latch", "--cycle", "5"], "give a unit, e.g. 5ms"),
    (["run", f"{P}:latch", "--cycle", "fast"], "not a duration"),
    (["run", f"{P}:latch", "--scans", "-1"], "negative"),
    (["run", f"{P}:latch", "--scans", "many"], "invalid int value"),
    (["run", f"{P}:latch", "--bogus"], "unrecognized arguments: --bogus"),
    (["run", f"{P}:latch", "--vcd", "/no/such/dir/x.vcd"], "no directory"),
    (["frobnicate"], "invalid choice"),
    ([], "required"),
    (["info", f"{P}:invalid"], "network 'invalid' is not valid (2 problems): a.A: input is not "
                               "connected and AND2 gives it no default; a.B:"),
    (["blocks", "ANDD"], "unknown block type 'ANDD'; did you mean AND"),
    (["bench", "--sizes", "ten"], "--sizes: 'ten' is not a number of blocks"),
])
def test_user_errors_are_one_line_and_status_2(capsys, argv, message):
    assert message in error_line(capsys, *argv)


def test_many_problems_are_cut_short(capsys):
    line = error_line(capsys, "run", f"{P}:many_problems")
    assert line.startswith("fbd: error: network 'many' is not valid (10 problems): inv0.IN: ")
    assert line.endswith("; ... and 7 more (--traceback lists them)")


def test_traceback_flag_shows_the_exception(capsys):
    with pytest.raises(LoadError):
        cli.main(["--traceback", "run", "no_such_module_xyz:f"])


def test_help_and_version_exit_zero(capsys):
    status, out, _ = fbd(capsys, "run", "--help")
    assert status == 0 and "--set NAME=VALUE[@SCAN]" in out
    status, out, _ = fbd(capsys, "--version")
    assert status == 0 and out.startswith("fbd ")


# -------------------------------------------------------------------------- info
def test_info_text_and_json(capsys):
    status, out, _ = fbd(capsys, "info", f"{P}:latch")
    assert status == 0
    assert "network latch: 3 blocks" in out
    assert "inputs:      S: BOOL, R: BOOL" in out
    assert "block types: AND2 x1, INV x1, OR2 x1" in out
    assert out.index("set_or") < out.index("hold")
    status, out, _ = fbd(capsys, "info", f"{P}:latch", "--json")
    doc = json.loads(out)
    assert doc["blocks"] == 3 and doc["order"] == ["set_or", "inv", "hold"]
    assert doc["outputs"] == {"Q": "BOOL"} and doc["macros"] == {}


def test_info_counts_macros(capsys):
    _, out, _ = fbd(capsys, "info", f"{P}:two_latches")
    assert "macros:      latch x2" in out and "b.hold" in out


# ------------------------------------------------------------------------ blocks
def test_blocks_table_and_one_block(capsys, monkeypatch):
    lib = {"SEL": standins.SEL, "AND": standins.AND}
    monkeypatch.setattr(cli, "load_libraries", lambda: [])
    monkeypatch.setattr(cli, "registry", lambda: dict(lib))
    status, out, _ = fbd(capsys, "blocks")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["family", "name", "ports", "summary"]
    assert "IN1..INn → OUT" in lines[1] and "OUT = IN1 AND ... (BOOL, extensible)." in lines[1]
    assert "G, IN0, IN1 → OUT" in lines[2]
    status, out, _ = fbd(capsys, "blocks", "sel")
    assert status == 0
    assert out.startswith("SEL (no family)") and "Ports::" in out and "IN0" in out
    _, out, _ = fbd(capsys, "blocks", "--json")
    assert [b["name"] for b in json.loads(out)] == ["AND", "SEL"]


def test_blocks_lists_the_installed_library(capsys):
    status, out, _ = fbd(capsys, "blocks")
    assert status == 0
    assert any(line.split()[:2] == ["logic", "AND"] for line in out.splitlines())


# ------------------------------------------------------------------------- bench
def test_bench_json_and_table(capsys):
    status, out, err = fbd(capsys, "bench", "--sizes", "150,300", "--quick", "--json")
    assert status == 0
    doc = json.loads(out)
    assert [s["blocks"] for s in doc["sizes"]] == [150, 300]
    # figures, not verdicts: how fast is the benchmark's business, not the test's
    assert all(s["ns_per_block"] > 0 and s["speedup"] > 0 for s in doc["sizes"])
    assert all(s["export_s"] > 0 and s["export_cpu_s"] > 0 for s in doc["sizes"])
    assert doc["overhead"]["bare_us"] > 0
    by = {tg["target"]: tg for tg in doc["targets"]}
    assert by["cycle"]["status"] == "n/a" and by["speedup"]["at_blocks"] == 300
    assert "bench: 300 blocks: timing the interpreter" in err
    from fbd.tools.bench_report import BenchResult, Overhead, SizeResult, format_report
    result = BenchResult(1, True, "3", "AND", [SizeResult(10_000, 0.1, 0.5, 400.0, 40.0, 3, 10,
                                                          8000.0, 800.0, 3, 20.0)],
                         Overhead(100, 10, 3, 6.0, 5.0, 1.0))
    text = format_report(result)
    assert "compiled scan <= 50 ns/block at 10k blocks" in text
    assert [line.split()[-1] for line in text.splitlines()[-5:]] == [
        "PASS", "n/a", "PASS", "n/a", "PASS"]


def test_bench_times_real_control_loops_with_mix_real_in_cpu_time_if_asked(capsys):
    status, out, _ = fbd(capsys, "bench", "--sizes", "120", "--quick", "--mix", "real",
                         "--engine", "python", "--program", "none", "--json", "--cpu")
    assert status == 0
    doc = json.loads(out)
    assert doc["mix"].startswith("REAL control loops of SUB, MUL, ADD") and doc["clock"] == "cpu"
    assert doc["sizes"][0]["blocks"] == 120 and doc["sizes"][0]["scan_us"] > 0


def test_bench_judges_the_plcopen_export_against_its_targets():
    from fbd.tools.bench_report import BenchResult, SizeResult, format_report, targets
    result = BenchResult(1, False, "3", "AND", [
        SizeResult(10_000, 0.1, 0.5, 400.0, 40.0, 3, 10, export_s=3.2, export_cpu_s=3.0),
        SizeResult(100_000, 0.9, 1.5, 4000.0, 40.0, 3, 10, export_s=75.0, export_cpu_s=50.0)])
    by = {tg["target"]: tg for tg in targets(result)}
    assert (by["export_10k"]["status"], by["export_100k"]["status"]) == ("PASS", "MISS")
    text = format_report(result)
    assert "wall-clock (CPU) seconds: 10,000 blocks 3.20 (3.00); 100,000 blocks 75.00 (50.00)" \
        in text
    assert "PLCopen export < 60 s at 100k blocks" in text


def test_bench_reports_the_spread_of_its_runs_and_warns_when_it_is_wide(capsys):
    status, out, _ = fbd(capsys, "bench", "--sizes", "200", "--quick", "--json")
    assert status == 0
    size = json.loads(out)["sizes"][0]
    fastest, slowest = size["scan_range_us"]
    assert 0 < fastest <= size["scan_us"] <= slowest
    assert size["compiles"] == 1  # --quick compiles once; the full bench takes the median of 3
    from fbd.tools.bench_report import BenchResult, SizeResult, format_report

    def report(scan_range, compile_range):
        return format_report(BenchResult(1, False, "3", "AND", [SizeResult(
            100_000, 0.7, 1.8, 4500.0, 45.0, 7, 20, scan_range_us=scan_range,
            compile_range_s=compile_range, compiles=3)]))
    calm = report((4400.0, 4700.0), (1.75, 1.85))
    assert "100,000 blocks: scan 4,400.0-4,700.0 µs over 7 runs; compile 1.75-1.85 s over 3" in calm
    assert "differ by more than 30%" not in calm
    busy = report((4400.0, 6900.0), (1.75, 1.85))
    assert "the runs at 100,000 blocks differ by more than 30%" in busy


# ---------------------------------------------------------------------- plug-ins
class _EP:
    def __init__(self, name, fn):
        self.name, self.value, self._fn = name, f"tests:{name}", fn

    def load(self):
        return self._fn()


def test_plugin_verbs(capsys, monkeypatch):
    def register(sub):
        p = sub.add_parser("hello", help="say hello")
        p.add_argument("who")
        p.set_defaults(func=lambda args: print(f"hello {args.who}") or 3)

    def broken():
        raise ImportError("no Qt here")
    monkeypatch.setattr(cli, "command_plugins",
                        lambda: [_EP("hello", lambda: register), _EP("hmi", broken)])
    status, out, err = fbd(capsys, "hello", "world")
    assert (status, out) == (3, "hello world\n")
    assert "plug-in command 'hmi' (tests:hmi) not loaded: ImportError: no Qt here" in err
    status, _, _ = fbd(capsys, "info", f"{P}:latch")
    assert status == 0


# ------------------------------------------------------------- the installed command
def test_installed_console_script():
    exe = Path(sys.executable).with_name("fbd")
    assert exe.exists(), "pip install -e . installs the fbd console script"
    done = subprocess.run([str(exe), "run", f"{P}:counter", "--scans", "2", "--format", "csv"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "2,0.005000,2"
    done = subprocess.run([str(exe), "run", f"{P}:lach"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"fbd: error: {P} has no attribute 'lach'; did you mean latch?"]
