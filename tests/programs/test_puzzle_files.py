"""Hostile puzzle files for every reader of programs/ (Sudoku grids, Hidato boards):
refused in bounded time with the file (and line) named, a BOM accepted, and on the
command line one line and exit 2, never a traceback. The files are made here."""

import io
import os
import sys
from pathlib import Path

import pytest

from fbd.errors import FbdError
from fbd.tools.cli import main as fbd_main
from programs.common.textfile import MAX_PUZZLE_BYTES, PuzzleFileError, read_puzzle_text
from programs.hidato import Board, BoardError
from programs.sudoku import read_grid
from programs.sudoku.files import GridFileError

HIDATO = "1 _ .\n_ 5 _\n"
SUDOKU_LINE = "4" + "." * 80 + "\n"
SUDOKU_QT = "4, 0, 0, 0, 0, 0, 0, 0, 0\n" + "0, 0, 0, 0, 0, 0, 0, 0, 0\n" * 8
#: The longest error line we accept: the file's name plus a sentence, not the file.
SHORT = 300


def read_hidato(path):
    return Board.read(path)


READERS = {
    "sudoku": (read_grid, GridFileError),
    "hidato": (read_hidato, BoardError),
}


def one_line_error(capsys, argv, *words):
    assert fbd_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and err.count("\n") == 1, err[:500]
    assert len(err) < SHORT + 100, err[:500]
    for w in words:
        assert w in err, err
    return err


# ------------------------------------------------------------------ every reader
@pytest.fixture(params=list(READERS))
def reader(request):
    return READERS[request.param]


def test_a_huge_file_is_refused_without_being_read(reader, tmp_path):
    read, error = reader
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:                 # sparse: 4 GiB on disk costs nothing
        f.truncate(4 << 30)
    with pytest.raises(error, match=r"huge\.txt: 4,294,967,296 bytes is too large .*at most 1 MiB"):
        read(path)


def test_just_over_the_limit_is_refused_and_at_the_limit_is_read(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"#" * MAX_PUZZLE_BYTES)
    assert read_puzzle_text(path) == "#" * MAX_PUZZLE_BYTES
    path.write_bytes(b"#" * (MAX_PUZZLE_BYTES + 1))
    with pytest.raises(PuzzleFileError, match="too large"):
        read_puzzle_text(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_before_any_read(reader):
    read, error = reader
    with pytest.raises(error, match=r"/dev/zero: cannot read it \(not a regular file: a character device\)"):
        read("/dev/zero")


@pytest.mark.parametrize("data, words", [
    (b"1 \x00 2\n", "line 1: not a text file (a NUL byte at offset 2)"),
    (b"ok\n\xff\xfe x\n", "line 2: not a text file (byte 0xff at offset 3 is not UTF-8)"),
])
def test_binary_files_are_refused_naming_file_and_line(reader, tmp_path, data, words):
    read, error = reader
    path = tmp_path / "bin.data"
    path.write_bytes(data)
    with pytest.raises(error) as e:
        read(path)
    assert str(e.value).startswith(str(path)) and words in str(e.value)


@pytest.mark.parametrize("make, words", [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "is a directory"),
])
def test_missing_files_and_directories_are_named(reader, tmp_path, make, words):
    read, error = reader
    path = tmp_path / "x.txt"
    make(path)
    with pytest.raises(error, match=f"{path}: {words}"):
        read(path)


def test_a_utf8_bom_is_accepted(tmp_path):
    bom = "\ufeff"
    for name, text in (("a.txt", SUDOKU_LINE), ("b.data", SUDOKU_QT),
                       ("c.jigsaw", "# comment\n" + ("." * 9 + "\n") * 9)):
        path = tmp_path / name
        path.write_text(bom + text, encoding="utf-8")
        assert read_grid(path)[0][0][0] == (4 if name != "c.jigsaw" else 0), name
    path = tmp_path / "h.txt"
    path.write_text(bom + HIDATO, encoding="utf-8")
    assert Board.read(path).rows == [[1, 0, -1], [0, 5, 0]]


def test_every_error_is_an_fbd_error_and_a_value_error():
    for error in (PuzzleFileError, GridFileError, BoardError):
        assert issubclass(error, FbdError) and issubclass(error, ValueError)


# ------------------------------------------------------------------ Sudoku
def test_blank_lines_around_a_grid_cost_one_pass(tmp_path):
    path = tmp_path / "blank.txt"
    path.write_text("\n" * 400_000 + SUDOKU_LINE + "\n" * 100_000)
    assert read_grid(path)[0][0][0] == 4         # it was quadratic: 12 s for this


@pytest.mark.parametrize("text, line", [
    ("1" * 500_000 + "\n", 1),                                        # one enormous line
    (("." * 9 + "\n") * 9 + "\n" + "abcdefghi" * 50_000 + "\n", 11),  # an enormous region row
])
def test_errors_quote_a_few_characters_not_the_line(tmp_path, text, line):
    path = tmp_path / "long.txt"
    path.write_text(text)
    with pytest.raises(GridFileError) as e:
        read_grid(path)
    assert e.value.line == line and len(str(e.value)) < SHORT


def test_qt_items_with_thousands_of_digits_are_zero_as_in_qt(tmp_path):
    path = tmp_path / "digits.data"
    path.write_text("1, " + "9" * 10_000 + ", -" + "7" * 5_000 + "\n")
    assert read_grid(path)[0][0][:3] == [1, 0, 0]  # QString::toInt fails: 0, not a traceback


# ------------------------------------------------------------------ Hidato
@pytest.mark.parametrize("text, words", [
    ("1 " + "9" * 5000 + "\n_ 3\n", "line 1: '9999"),                 # int() refuses it
    ("1 " + "9" * 4000 + "\n_ 3\n", "line 1, column 2: given 9999"),  # int() takes it
    ("first: " + "7" * 5000 + "\n1 _\n", "line 1: first must be a number"),
    ("first: 10000000\n1 _\n", "first must be 1..1,000,000"),
    ("_ " * 101 + "\n", "line 1: 101 cells; a row has at most 100"),
    ("1 _\n" + "_ _\n" * 100 + "_ 202\n", "line 101: more than 100 rows"),
    ("_ _ _\n", "the first number 1 is missing"),
    ("\n\n# nothing\n", "no rows"),
])
def test_hidato_errors_name_the_file_and_stay_short(tmp_path, text, words):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(BoardError) as e:
        Board.read(path)
    message = str(e.value)
    assert message.startswith(f"{path}: ") and words in message and len(message) < SHORT


# ------------------------------------------------------------------ the command line
@pytest.mark.parametrize("verb", [["sudoku", "solve"], ["hidato", "solve"],
                                  ["hidato", "solve", "--count"]])
def test_the_cli_refuses_hostile_files_in_one_line(capsys, tmp_path, verb):
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as f:
        f.truncate(3 << 30)
    one_line_error(capsys, [*verb, str(huge)], "huge.txt", "too large")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(bytes(range(256)) * 4)
    one_line_error(capsys, [*verb, str(binary)], "bin.txt, line 1: not a text file")
    long_line = tmp_path / "long.txt"
    long_line.write_text("x" * 200_000 + "\n")
    one_line_error(capsys, [*verb, str(long_line)], "long.txt")
    one_line_error(capsys, [*verb, str(tmp_path)], "is a directory")


def test_hidato_reads_stdin_bounded_too(capsys, monkeypatch):
    def stdin(data: bytes):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    stdin(b"\xef\xbb\xbf" + HIDATO.encode())
    assert fbd_main(["hidato", "solve", "-"]) == 0
    assert Board.parse(capsys.readouterr().out).solves(Board.parse(HIDATO))
    stdin(b"#" * (MAX_PUZZLE_BYTES + 10))
    one_line_error(capsys, ["hidato", "solve", "-"], "<stdin>: more than 1 MiB")


def test_the_bundled_files_are_all_within_bounds():
    root = Path(__file__).resolve().parents[2] / "programs"
    files = [p for p in root.rglob("puzzles/*") if p.is_file()]
    assert len(files) > 30
    for path in files:
        assert path.stat().st_size < MAX_PUZZLE_BYTES, path
        read_puzzle_text(path)
