"""Hidato boards and their text format.

A board is a rectangle of cells. A cell is a *hole* (not part of the board, -1
in lists of rows, so any shape fits in a rectangle), *empty* (0) or holds a *given*
number. Numbers run from ``first`` to ``last``, one per cell of the board, so
``last - first + 1`` equals the number of cells that are not holes; both
``first`` and ``last`` must be given. ``first`` defaults to 1 and ``last`` to
``first + cells - 1`` (the number of cells when ``first`` is 1); a board whose
numbers start elsewhere says so (``Board.from_rows(rows, first=5)`` or a
``first: 5`` line in the text format).

Text format (:meth:`Board.parse`, :meth:`Board.read`, ``str(board)``,
:meth:`Board.write`)::

    # a comment; blank lines are ignored
    first: 1          (optional; also "last: 40", checked against the cells)
    _  33 35 _  _  .  .  .
    _  _  24 22 _  .  .  .

One row per line, cells separated by spaces (or commas or tabs). An empty cell
is ``0`` or a run of underscores (``_``, ``__``), a hole is ``-1``, a run of
dots (``.``, ``..``) or ``x``; anything else must be a number. That reads the
usual published layouts (Rosetta Code's ``__ 33 35 __ .. ..``, the ``0``/``-1``
grids of the seed). ``str(board)`` writes ``_`` and ``.`` padded to one width.

Every malformed board raises :class:`BoardError` naming the file, the line
and the problem: non-numbers, ragged rows, two equal givens, a given out of
range, ``first`` or ``last`` missing, more than :data:`MAX_SIDE` rows or
columns, ``first`` beyond :data:`MAX_FIRST`. A file is read as
:func:`~programs.common.textfile.read_puzzle_text` reads it: at most 1 MiB,
UTF-8 with or without a byte order mark.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from fbd.errors import FbdError
from programs.common.textfile import (
    PuzzleFileError,
    quote,
    read_puzzle_stream,
    read_puzzle_text,
    shorten,
)

__all__ = ["Board", "BoardError", "EMPTY", "HOLE", "NEIGHBOURS", "MAX_SIDE", "MAX_FIRST"]

EMPTY = 0
HOLE = -1
#: The most rows, and the most columns, a board may have.
MAX_SIDE = 100
#: The largest first number (so that every number prints in a few digits).
MAX_FIRST = 1_000_000
NEIGHBOURS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))

_EMPTY_TOKEN = re.compile(r"_+")
_HOLE_TOKEN = re.compile(r"\.+|[xX]")
_HEADER = re.compile(r"^\s*(first|last)\s*[:=]\s*(\S+)\s*$", re.IGNORECASE)


class BoardError(FbdError, ValueError):
    """A malformed Hidato board; the message names the line (or row) and the problem."""


class Board:
    """A Hidato board: ``rows`` of -1 (hole), 0 (empty) or a given number.

    Boards are immutable values. Equality and hashing go by the cells and ``first``.
    """

    __slots__ = ("_rows", "first", "last", "_cells")

    def __init__(self, rows: Sequence[Sequence[int]], first: int | None = None,
                 last: int | None = None, *, _where=None, _name: str | None = None):
        where = _where or (lambda i: f"row {i + 1}")
        named = f"{_name}: " if _name else ""   # errors about no line in particular
        grid: list[tuple[int, ...]] = []
        for i, row in enumerate(rows):
            if i >= MAX_SIDE:
                raise BoardError(f"{where(i)}: more than {MAX_SIDE} rows")
            try:
                values = tuple(int(v) for v in row)
            except (TypeError, ValueError):
                raise BoardError(f"{where(i)}: cells must be integers, got "
                                 f"{quote(repr(row))}") from None
            if len(values) > MAX_SIDE:
                raise BoardError(f"{where(i)}: {len(values)} cells; a row has at most {MAX_SIDE}")
            grid.append(values)
        if not grid or not grid[0]:
            raise BoardError(f"{named}the board has no cells")
        width = len(grid[0])
        for i, row in enumerate(grid):
            if len(row) != width:
                raise BoardError(f"{where(i)}: ragged rows: {len(row)} cells where row 1 has {width}")
        cells = sum(v != HOLE for row in grid for v in row)
        if cells < 2:
            raise BoardError(f"{named}the board needs at least 2 cells that are not holes, "
                             f"has {cells}")
        try:
            first = 1 if first is None else int(first)
        except (TypeError, ValueError):
            raise BoardError(f"{named}first must be an integer, got {quote(repr(first))}") from None
        if not 1 <= first <= MAX_FIRST:
            raise BoardError(f"{named}first must be 1..{MAX_FIRST:,}, got {shorten(str(first))}")
        expected_last = first + cells - 1
        if last is not None and int(last) != expected_last:
            raise BoardError(f"{named}last is {shorten(str(last))} but the board has {cells} "
                             f"cells, so numbers {first}..{expected_last}")
        last = expected_last
        seen: dict[int, tuple[int, int]] = {}
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if v in (EMPTY, HOLE):
                    continue
                if v < first or v > last:
                    raise BoardError(f"{where(i)}, column {j + 1}: given {shorten(str(v))} is "
                                     f"out of range {first}..{last}"
                                     + (" (holes are -1)" if v < 0 else ""))
                if v in seen:
                    r0, c0 = seen[v]
                    raise BoardError(f"{where(i)}, column {j + 1}: {v} is given twice (also at "
                                     f"{where(r0)}, column {c0 + 1})")
                seen[v] = (i, j)
        for name, v in (("first", first), ("last", last)):
            if v not in seen:
                raise BoardError(f"{named}the {name} number {v} is missing: both {first} and "
                                 f"{last} must be given")
        self._rows = tuple(grid)
        self.first = first
        self.last = last
        self._cells = cells

    # ------------------------------------------------------------ construction
    @classmethod
    def from_rows(cls, rows: Iterable[Iterable[int]], first: int | None = None,
                  last: int | None = None) -> Board:
        """A board from lists of cells: 0 empty, -1 hole, givens positive."""
        return cls([list(r) for r in rows], first, last)

    @classmethod
    def parse(cls, text: str, name: str = "<text>") -> Board:
        """A board from the text format (see the module docstring); ``name`` prefixes errors."""
        grid: list[list[int]] = []
        lines: list[int] = []
        header: dict[str, int] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = _HEADER.match(line)
            if m:
                if grid:
                    raise BoardError(f"{name}: line {number}: '{m.group(1)}:' must come before "
                                     f"the rows")
                try:
                    header[m.group(1).lower()] = int(m.group(2))
                except ValueError:
                    raise BoardError(f"{name}: line {number}: {m.group(1)} must be a number, "
                                     f"got {quote(m.group(2))}") from None
                continue
            if len(grid) >= MAX_SIDE:
                raise BoardError(f"{name}: line {number}: more than {MAX_SIDE} rows")
            row = []
            for token in re.split(r"[\s,;]+", line):
                if not token:
                    continue
                if _EMPTY_TOKEN.fullmatch(token):
                    row.append(EMPTY)
                elif _HOLE_TOKEN.fullmatch(token):
                    row.append(HOLE)
                else:
                    try:
                        value = int(token)
                    except ValueError:   # not digits, or more digits than int() converts
                        raise BoardError(f"{name}: line {number}: {quote(token)} is not a "
                                         f"number (use _ or 0 for an empty cell, . or -1 for "
                                         f"a hole)") from None
                    if value < -1:
                        raise BoardError(f"{name}: line {number}: {shorten(str(value))} is "
                                         f"out of range (holes are -1)")
                    row.append(value)
            grid.append(row)
            lines.append(number)
        if not grid:
            raise BoardError(f"{name}: no rows (an empty file?)")
        return cls(grid, header.get("first"), header.get("last"),
                   _where=lambda i: f"{name}: line {lines[i]}", _name=name)

    @classmethod
    def read(cls, path: str | os.PathLike) -> Board:
        """Read a board file in the text format; errors name the file and the line."""
        try:
            text = read_puzzle_text(path)
        except PuzzleFileError as e:
            raise BoardError(str(e)) from None
        return cls.parse(text, str(path))

    @classmethod
    def read_stream(cls, stream, name: str = "<stdin>") -> Board:
        """Read a board from an open binary stream (``sys.stdin.buffer``), as :meth:`read`."""
        try:
            text = read_puzzle_stream(stream, name)
        except PuzzleFileError as e:
            raise BoardError(str(e)) from None
        return cls.parse(text, name)

    def write(self, path: str | os.PathLike) -> None:
        """Write the board in the text format (``Board.read`` gives it back)."""
        Path(path).write_text(str(self), encoding="utf-8")

    # ------------------------------------------------------------ access
    @property
    def rows(self) -> list[list[int]]:
        """The cells as lists (a fresh copy): -1 hole, 0 empty, else the number."""
        return [list(r) for r in self._rows]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self._rows), len(self._rows[0])

    @property
    def cells(self) -> int:
        """How many cells are part of the board (not holes) = how many numbers."""
        return self._cells

    def __getitem__(self, rc: tuple[int, int]) -> int:
        r, c = rc
        return self._rows[r][c]

    def givens(self) -> dict[int, tuple[int, int]]:
        """Number → (row, column) of every number on the board."""
        return {v: (r, c) for r, row in enumerate(self._rows) for c, v in enumerate(row) if v > 0}

    def positions(self) -> list[tuple[int, int]]:
        """The (row, column) of every cell that is not a hole, row by row."""
        return [(r, c) for r, row in enumerate(self._rows) for c, v in enumerate(row) if v != HOLE]

    def is_full(self) -> bool:
        return all(v != EMPTY for row in self._rows for v in row)

    def is_solution(self) -> bool:
        """Every cell filled, all numbers present, consecutive numbers adjacent (8 neighbours)."""
        if not self.is_full():
            return False
        where = self.givens()
        return all(max(abs(where[n][0] - where[n + 1][0]), abs(where[n][1] - where[n + 1][1])) == 1
                   for n in range(self.first, self.last))

    def solves(self, puzzle: Board) -> bool:
        """A solution that keeps every given of ``puzzle``."""
        return (self.shape == puzzle.shape and self.first == puzzle.first and self.is_solution()
                and all(p in (EMPTY, s) for pr, sr in zip(puzzle._rows, self._rows)
                        for p, s in zip(pr, sr)))

    # ------------------------------------------------------------ text
    def __str__(self) -> str:
        width = len(str(self.last))
        out = [] if self.first == 1 else [f"first: {self.first}"]
        for row in self._rows:
            out.append(" ".join(("_" if v == EMPTY else "." if v == HOLE else str(v)).rjust(width)
                                for v in row).rstrip())
        return "\n".join(out) + "\n"

    def __repr__(self) -> str:
        extra = "" if self.first == 1 else f", first={self.first}"
        return f"Board.from_rows({self.rows!r}{extra})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Board) and self._rows == other._rows and self.first == other.first

    def __hash__(self) -> int:
        return hash((self._rows, self.first))
