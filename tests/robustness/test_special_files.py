"""A FIFO, a device or a directory named where a file is read: refused at once in
one line (regular files only; standard input where a command documents ``-``).
``fbd sudoku solve fifo`` waited forever for a writer before."""

from __future__ import annotations

import os

import pytest

import fbd
from fbd.errors import FbdError
from fbd.files import open_regular
from fbd.tools.cli import main
from tests.robustness.guards import never_hangs

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX's")


@pytest.fixture
def fifo(tmp_path):
    def make(name: str):
        path = tmp_path / name
        os.mkfifo(path)
        return path
    return make


FIFO = "not a regular file: a FIFO (named pipe)"


@pytest.mark.parametrize("name", ["prog.st", "plc.xml"])
def test_loading_a_project_from_a_fifo_is_one_error(fifo, name):
    path = fifo(name)
    with never_hangs(), pytest.raises(FbdError) as e:
        fbd.load(path)
    assert str(e.value) == f"{path}: cannot read: {FIFO}"


@pytest.mark.parametrize("argv", [
    ["run", "{st}", "--scans", "1"], ["run", "{xml}"], ["run", "{st}:main"], ["info", "{xml}:Main"],
    ["export", "{st}", "-o", "{out}"], ["serve", "{st}", "--map"], ["sudoku", "solve", "{txt}"],
    ["hidato", "solve", "{txt}"], ["hidato", "solve", "--count", "{txt}"],
], ids=lambda argv: " ".join(a for a in argv if "{" not in a))
def test_every_command_reading_a_file_refuses_a_fifo_in_one_line(fifo, tmp_path, capsys, argv):
    paths = {"st": fifo("p.st"), "xml": fifo("p.xml"), "txt": fifo("puzzle.txt"),
             "out": tmp_path / "out.xml"}
    with never_hangs():
        status = main([a.format(**paths) for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("fbd: error: ") and "FIFO (named pipe)" in err and "Traceback" not in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_refused_and_a_directory_is_what_open_says(tmp_path):
    with pytest.raises(OSError, match="not a regular file: a character device"):
        open_regular("/dev/zero")
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path)
    (tmp_path / "f.st").write_text("x")
    with open_regular(tmp_path / "f.st") as f:
        assert f.read() == b"x"
