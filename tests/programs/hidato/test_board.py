"""Boards: from_rows/rows, the text format both ways, and errors that name the line."""

import pytest

from programs.hidato import Board, BoardError
from programs.hidato.board import HOLE

ROSETTA = """\
__ 33 35 __ __ .. .. ..
__ __ 24 22 __ .. .. ..
__ __ __ 21 __ __ .. ..
__ 26 __ 13 40 11 .. ..
27 __ __ __  9 __  1 ..
.. .. __ __ 18 __ __ ..
.. .. .. .. __  7 __ __
.. .. .. .. .. ..  5 __
"""


def test_from_rows_and_rows_round_trip():
    rows = [[0, 3, -1], [1, 0, 0], [0, 7, -1]]
    b = Board.from_rows(rows)
    assert b.rows == rows
    assert (b.first, b.last, b.cells, b.shape) == (1, 7, 7, (3, 3))
    assert b[0, 2] == HOLE
    assert b.givens() == {3: (0, 1), 1: (1, 0), 7: (2, 1)}


def test_published_layout_parses_and_round_trips(tmp_path):
    b = Board.parse(ROSETTA)
    assert (b.first, b.last) == (1, 40)
    assert b.rows[0] == [0, 33, 35, 0, 0, -1, -1, -1]
    path = tmp_path / "p.txt"
    b.write(path)
    assert Board.read(path) == b
    assert Board.parse(str(b)) == b


def test_zero_minus_one_commas_comments_and_first_header():
    text = "# a comment\nfirst: 5\n\n5, 0, -1  # trailing comment\n0 x 8\n"
    b = Board.parse(text)
    assert (b.first, b.last) == (5, 8)
    assert b.rows == [[5, 0, -1], [0, -1, 8]]
    assert str(b).startswith("first: 5\n")
    assert Board.parse(str(b)) == b


@pytest.mark.parametrize("text, line, words", [
    ("1 _ _\n_ 2 _\n_ _ 9\n_ 3\n", 4, "ragged"),
    ("1 _ 3\n_ 3 _\n_ _ 9\n", 2, "given twice"),
    ("1 _ 3\n_ 12 _\n_ _ 9\n", 2, "out of range"),
    ("1 _ 3\n_ a _\n_ _ 9\n", 2, "not a number"),
    ("1 _ 3\n_ -4 _\n_ _ 9\n", 2, "out of range"),
    ("first: x\n1 _\n_ 4\n", 1, "must be a number"),
])
def test_malformed_files_name_the_line(tmp_path, text, line, words):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(BoardError, match=rf"bad\.txt: line {line}\b.*{words}"):
        Board.read(path)


@pytest.mark.parametrize("text, words", [
    ("_ _ 3\n_ _ _\n_ _ 9\n", "first number 1 is missing"),
    ("1 _ 3\n_ _ _\n_ _ _\n", "last number 9 is missing"),
    ("", "no rows"),
    ("last: 12\n1 _ 3\n_ _ _\n_ _ 9\n", "last is 12"),
])
def test_missing_first_or_last(text, words):
    with pytest.raises(BoardError, match=words):
        Board.parse(text)


def test_board_error_is_an_fbd_error():
    from fbd.errors import FbdError
    assert issubclass(BoardError, FbdError)


def test_is_solution_and_solves():
    puzzle = Board.from_rows([[1, 0], [0, 4]])
    good = Board.from_rows([[1, 2], [3, 4]])
    bad = Board.from_rows([[1, 3], [2, 4]])  # all adjacent on 2x2: still a solution
    assert good.solves(puzzle) and bad.is_solution()
    line = Board.from_rows([[1, 3, 2, 4]])
    assert not line.is_solution()
