"""Hostile and broken PLCopen files: each is refused with one clear line (or, where it
is legal, imported), in bounded time and memory, never with a traceback.

The files come from :mod:`tests.robustness.plcopen_corpus`."""

from __future__ import annotations

import os

import pytest

from fbd.errors import FbdError
from fbd.plcopen import PlcOpenError, load_project
from fbd.testing import Harness
from fbd.tools import cli
from tests.robustness.plcopen_corpus import cases

CASES = list(cases())
MAX_MESSAGE = 1200     # the longest one-line error a case may give


def _attempt(path, case):
    """Do what the case's stage says; return the error, or None when it succeeds."""
    try:
        project = load_project(path)
        if case.stage == "pou":
            net = project.network(case.pou)
            Harness(net).scan(3)
        elif case.stage == "plc":
            project.plc().scan(3)
    except FbdError as e:
        return e
    return None


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_hostile_file_is_refused_in_one_line_or_imports(tmp_path, case):
    path = tmp_path / f"{case.name}.xml"
    path.write_bytes(case.data)
    error = _attempt(path, case)
    if case.expect is None:
        assert error is None, error
        return
    assert isinstance(error, PlcOpenError), error
    message = str(error)
    assert case.expect in message
    assert "\n" not in message and len(message) <= MAX_MESSAGE, message[:300]


@pytest.mark.parametrize("case", [c for c in CASES if c.expect is not None],
                         ids=[c.name for c in CASES if c.expect is not None])
def test_the_command_line_says_one_line_and_exits_2(tmp_path, capsys, case):
    path = tmp_path / f"{case.name}.xml"
    path.write_bytes(case.data)
    target = str(path) if case.stage in ("load", "plc") else f"{path}:{case.pou}"
    status = cli.main(["run", target, "--scans", "2"])
    out, err = capsys.readouterr()
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fbd: error: "), err[:500]
    assert "Traceback" not in err


def test_a_dtd_cannot_turn_an_and_into_an_or(tmp_path):
    """The attack the internal-subset rule stops: declared attribute defaults would
    negate every variable read, with the <pou> text unchanged."""
    case = next(c for c in CASES if c.name == "attlist-default")
    path = tmp_path / "f.xml"
    path.write_bytes(case.data)
    with pytest.raises(PlcOpenError, match="internal subset"):
        load_project(path)


def test_a_connector_chain_a_thousand_deep_runs(tmp_path):
    case = next(c for c in CASES if c.name == "connector-chain-1000")
    path = tmp_path / "f.xml"
    path.write_bytes(case.data)
    assert Harness(load_project(path).network("Main")).scan().get("O") == 1


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_an_endless_file_is_refused_before_any_read():
    with pytest.raises(PlcOpenError, match="cannot read: not a regular file: a character device"):
        load_project("/dev/zero")


def test_a_directory_is_not_a_project(tmp_path):
    with pytest.raises(PlcOpenError, match="cannot read"):
        load_project(tmp_path)


def test_export_to_a_full_disk_is_one_line(capsys):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o", "/dev/full"])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.strip() == "fbd: error: /dev/full: cannot write the project: No space left on device"
