"""Choosing the engine: without llvmlite (no wheel for the platform) ``auto``
runs the Python engine and says why, ``native`` refuses clearly; the CLI's
``--engine`` and ``fbd info``'s engine line."""

import subprocess
import sys

import pytest

import blocks  # noqa: F401  (the library random networks are made of)
import fbd.native as native
from fbd import Plc
from fbd.errors import FbdError
from fbd.tools import cli
from fbd.tools.synthetic import random_network


@pytest.fixture
def no_llvmlite(monkeypatch):
    monkeypatch.setattr(native, "_IMPORT_ERROR", ["llvmlite is not installed (a test says so)"])


def test_without_llvmlite_auto_runs_python_and_native_refuses(no_llvmlite):
    net = random_network(500, 2)
    plc = Plc(net)
    assert plc.engine == "python" and "llvmlite is not installed" in plc.engine_reason
    with pytest.raises(FbdError, match="native engine is not available: llvmlite"):
        Plc(net, engine="native")
    plc.scan(3)


def test_fbd_info_says_which_engine_auto_picks_and_why(capsys):
    assert cli.main(["info", "programs.game2048:build"]) == 0
    out = capsys.readouterr().out
    engine_line = next(line for line in out.splitlines() if line.startswith("engine:"))
    if native.available():
        assert "native engine: every block and signal has a native form" in engine_line
    else:
        assert "python engine" in engine_line


def test_fbd_info_without_llvmlite(no_llvmlite, capsys):
    assert cli.main(["info", "programs.game2048:build"]) == 0
    assert "python engine: llvmlite is not installed" in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["python", "native"])
def test_fbd_run_on_either_engine_prints_the_same_rows(engine, capsys):
    if engine == "native" and not native.available():
        pytest.skip("llvmlite is not installed")
    args = ["run", "programs.game2048:build", "--scans", "30", "--set", "CMD=1@2",
            "--set", "CMD_SEQ=1@2", "--watch", "SCORE", "--watch", "BUSY", "--format", "csv"]
    assert cli.main(args + ["--engine", engine]) == 0
    out, err = capsys.readouterr()
    assert f"({engine} engine)" in err
    assert cli.main(args + ["--engine", "python"]) == 0
    assert capsys.readouterr().out == out


def test_an_unknown_engine_is_a_one_line_cli_error(capsys):
    assert cli.main(["run", "programs.game2048:build", "--engine", "fast"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error:") and "fast" in err and len(err.splitlines()) == 1


def test_a_network_of_library_blocks_compiles_native_without_importing_the_st_front_end():
    # the front end is a third of a small network's native build; a fresh process,
    # since the test session has it imported already
    code = ("import sys, blocks\n"
            "from fbd import Plc\n"
            "from fbd.tools.synthetic import random_network\n"
            "plc = Plc(random_network(500, 2), engine='native')\n"
            "plc.scan(2)\n"
            "print(plc.engine, sorted(m for m in sys.modules if m.startswith('fbd.st')))\n")
    if not native.available():
        pytest.skip("llvmlite is not installed")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["native", "[]"]


def test_a_build_pauses_the_collector_by_its_sources_lines_without_weighing_the_scan(
        monkeypatch):
    # the pause is for a big source (QUIET_GC_OVER lines); weighing the scan (a census
    # of every FB type) is for auto's choice alone
    import gc

    from fbd.compiler.front import QUIET_GC_OVER
    from fbd.native import engines
    from fbd.native.procedures import Procedures
    from fbd.st.project import load as load_st
    from tests.fbd.native.test_st_instances import APART
    pytest.importorskip("llvmlite")
    enabled = []
    reasons = Procedures.reasons

    def spy(self, chunk):
        enabled.append(gc.isenabled())
        return reasons(self, chunk)
    monkeypatch.setattr(Procedures, "reasons", spy)
    weighed = []
    weight = engines.scan_weight
    monkeypatch.setattr(engines, "scan_weight", lambda flat: weighed.append(1) or weight(flat))
    small = load_st("small.st", text=APART).network("prg")
    big = load_st("big.st", text=APART + "(* a comment *)\n" * QUIET_GC_OVER).network("prg")
    assert engines.build_size(Plc(small, engine="native").main.program.flat) == \
        1 + APART.count("\n")
    Plc(big, engine="native")
    assert enabled == [True, False] and not weighed
    assert Plc(big).engine == "native" and weighed == [1]      # auto weighs it, once
    assert gc.isenabled()
