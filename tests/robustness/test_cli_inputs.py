"""Hostile command-line input: one clear line and exit 2, in bounded time and memory."""

import sys
import textwrap

import pytest

import blocks
from fbd import INT, Network
from fbd.compiler.front import MAX_MACRO_DEPTH
from fbd.errors import WiringError
from fbd.tools.cli import main

DEMO = "programs.demo:traffic_light"


def fbd(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(status, err, *words):
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fbd: error:"), err
    assert "Traceback" not in err and len(lines[0]) < 1100, lines[0][:300]
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("argv, words", [
    (["--cycle", "T#" + "9" * 300 + "d"], ["--cycle", "..."]),          # hundreds of digits
    (["--set", "ENABLE=16#" + "F" * 5000], ["ENABLE"]),       # Python's 4,300-digit limit
    (["--set", "ENABLE=TRUE@" + "9" * 5000], ["--set"]),
    (["--cycle", "1e999ms"], ["--cycle"]),
    (["--watch", "x" * 10_000], ["unknown signal"]),
])
def test_huge_values_are_one_short_line(capsys, argv, words):
    one_line_error(*fbd(capsys, "run", DEMO, "--scans", "3", *argv)[::2], *words)


def test_a_vcd_path_that_cannot_be_written_fails_before_the_run(capsys, tmp_path):
    # a billion scans would take hours: the error must come first
    status, _out, err = fbd(capsys, "run", DEMO, "--scans", str(10**9), "--vcd", str(tmp_path))
    one_line_error(status, err, "--vcd")


def test_rows_are_written_as_the_run_goes_not_kept(capsys, tmp_path):
    vcd = tmp_path / "run.vcd"
    status, out, err = fbd(capsys, "run", DEMO, "--scans", "3000", "--format", "csv",
                           "--set", "ENABLE=TRUE", "--vcd", str(vcd))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("scan,time_s") and len(lines) == 3001
    assert lines[1].startswith("1,0.000000") and vcd.read_text().startswith("$date")


def test_an_export_to_a_full_disk_is_one_line(capsys):
    if sys.platform != "linux":
        pytest.skip("/dev/full is Linux's")
    one_line_error(*fbd(capsys, "export", DEMO, "-o", "/dev/full")[::2], "/dev/full")


def test_the_benchmark_refuses_sizes_it_cannot_build(capsys):
    one_line_error(*fbd(capsys, "bench", "--sizes", "1e9")[::2], "at most")
    one_line_error(*fbd(capsys, "bench", "--sizes", "1e999")[::2], "not a number")


def test_an_extensible_block_has_at_most_1024_inputs():
    blocks.ADD(INT, n=1024)
    with pytest.raises(WiringError, match="from 2 to 1024, not 5000"):
        blocks.ADD(INT, n=5000)


def test_macros_nested_beyond_the_limit_are_refused_by_name(tmp_path, capsys, monkeypatch):
    (tmp_path / "deep_macros.py").write_text(textwrap.dedent(f"""
        import blocks
        from fbd import INT, Network

        def build(depth={MAX_MACRO_DEPTH + 50}):
            inner = Network("M0")
            inner.output("B", inner.add("inc", blocks.ADD(INT), IN1=inner.input("A", INT),
                                        IN2=1).OUT)
            for k in range(1, depth):
                outer = Network(f"M{{k}}")
                outer.output("B", outer.add("m", inner, A=outer.input("A", INT)).B)
                inner = outer
            top = Network("top")
            top.output("Y", top.add("m", inner, A=top.input("X", INT)).B)
            return top
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    status, _out, err = fbd(capsys, "run", "deep_macros:build", "--scans", "1")
    one_line_error(status, err, f"nested more than {MAX_MACRO_DEPTH} deep")


def test_macros_nested_to_the_limit_still_run():
    inner = Network("M0")
    inner.output("B", inner.add("inc", blocks.ADD(INT), IN1=inner.input("A", INT), IN2=1).OUT)
    for k in range(1, MAX_MACRO_DEPTH - 1):
        outer = Network(f"M{k}")
        outer.output("B", outer.add("m", inner, A=outer.input("A", INT)).B)
        inner = outer
    top = Network("top")
    top.output("Y", top.add("m", inner, A=top.input("X", INT)).B)
    from fbd.testing import Harness
    h = Harness(top)
    h.set(X=1).scan()
    assert h.get("Y") == 2
