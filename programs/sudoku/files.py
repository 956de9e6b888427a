"""Read and write Sudoku grid files in three formats (chosen on reading by content).

* **Qt** (``*.data``, the Qt SCXML Sudoku example): 9 lines of 9 integers separated
  by ", ", 0 = empty. Read as leniently as the example's ``readSudoku``: missing
  rows or items are 0, extra ones are ignored, an item that is not an integer
  (after trimming whitespace) is 0, and values are taken modulo 10 (C remainder).
  The only errors: a negative value (its C remainder is negative, not a cell value)
  and a file that is not text. Chosen for a ``*.data`` file or when any line
  holds a comma.
* **Line**: one line of 81 characters, ``1``-``9`` givens, ``0`` or ``.`` blanks.
* **Jigsaw**: 9 lines of 9 such characters (the grid), a blank line, then 9 lines
  of 9 letters ``a``-``i`` (the region of each cell; each letter on 9 connected
  cells). Without the second block it is a plain classic grid. Example::

      # jigsaw, medium
      5...3..7.
      ...          (9 grid lines)

      aaabbbccc
      ...          (9 region lines)

In the Line and Jigsaw formats, lines starting with ``#`` are comments and
surrounding whitespace is ignored; anything else malformed raises
:class:`GridFileError` naming the file and line. Every format: at most
:data:`~programs.common.textfile.MAX_PUZZLE_BYTES` (1 MiB; a larger file is
refused before it is read), UTF-8 with or without a byte order mark.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from programs.common.textfile import PuzzleFileError, quote, read_puzzle_text

LETTERS = "abcdefghi"
_INT = re.compile(r"[+-]?[0-9]+")
PUZZLE_DIR = Path(__file__).resolve().parent / "puzzles"


class GridFileError(PuzzleFileError):
    """A grid file that cannot be read; the message names the file and line."""


def _qt_int(text: str) -> int:
    """QString::toInt without ``ok``: 0 for anything but a 32-bit decimal integer."""
    text = text.strip()
    if len(text) > 12 or not _INT.fullmatch(text):   # 12: a sign and 11 digits, past 32 bits
        return 0
    v = int(text)
    return v if -2**31 <= v < 2**31 else 0


def _read_qt(path, text: str):
    rows = text.split("\n")
    grid = []
    for i in range(9):
        items = rows[i].split(",") if i < len(rows) else []
        row = []
        for j in range(9):
            v = _qt_int(items[j]) if j < len(items) else 0
            v = v % 10 if v >= 0 else -((-v) % 10)  # C++ remainder
            if v < 0:
                raise GridFileError(path, i + 1, f"item {j + 1} is negative ({items[j].strip()})")
            row.append(v)
        grid.append(row)
    return grid, None


def _digits(path, lineno: int, text: str, width: int) -> list[int]:
    if len(text) != width:
        raise GridFileError(path, lineno, f"expected {width} characters (1-9, and 0 or . for empty), "
                                          f"found {len(text)}")
    bad = [ch for ch in text if ch not in "0123456789."]
    if bad:
        raise GridFileError(path, lineno, f"unexpected character {bad[0]!r} (use 1-9, and 0 or . for empty)")
    return [0 if ch == "." else int(ch) for ch in text]


def read_grid(path):
    """``(grid, regions)`` from a file in any of the three formats; ``regions`` is
    None for a classic grid, else 9x9 region ids 0-8."""
    path = Path(path)
    try:
        text = read_puzzle_text(path)
    except PuzzleFileError as e:
        raise GridFileError(e.path, e.line, e.problem) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # Qt's Text mode
    if "," in text or path.suffix == ".data":
        return _read_qt(path, text)
    lines = [(n, ln.strip()) for n, ln in enumerate(text.split("\n"), 1)]
    lines = [(n, ln) for n, ln in lines if not ln.startswith("#")]
    # Blank lines around the grid do not count (sliced off: popping the front one by
    # one was quadratic, 12 s for 400 KB of blank lines).
    filled = [k for k, (_, ln) in enumerate(lines) if ln]
    lines = lines[filled[0]:filled[-1] + 1] if filled else []
    if not lines:
        raise GridFileError(path, None, "no grid in the file")
    if len(lines) == 1 or len(lines[0][1]) > 9:
        n, ln = lines[0]
        values = _digits(path, n, ln, 81)
        if len(lines) > 1:
            raise GridFileError(path, lines[1][0], "unexpected text after the 81-character grid line")
        return [values[r * 9:r * 9 + 9] for r in range(9)], None
    grid = []
    for k in range(9):
        if k >= len(lines) or not lines[k][1]:
            n = lines[k][0] if k < len(lines) else lines[-1][0] + 1
            raise GridFileError(path, n, f"expected grid row {k + 1} of 9")
        grid.append(_digits(path, lines[k][0], lines[k][1], 9))
    rest = lines[9:]
    if not rest:
        return grid, None
    if rest[0][1]:
        raise GridFileError(path, rest[0][0], "expected a blank line between the grid and the regions")
    rest = rest[1:]
    regions = []
    for k in range(9):
        if k >= len(rest) or not rest[k][1]:
            n = rest[k][0] if k < len(rest) else (rest[-1][0] + 1 if rest else lines[8][0] + 2)
            raise GridFileError(path, n, f"expected region row {k + 1} of 9 (letters a-i)")
        n, ln = rest[k]
        if len(ln) != 9 or any(ch not in LETTERS for ch in ln):
            raise GridFileError(path, n, f"a region row is 9 letters a-i, found {quote(ln)}")
        regions.append([LETTERS.index(ch) for ch in ln])
    if len(rest) > 9:
        raise GridFileError(path, rest[9][0], "unexpected text after the 9 region rows")
    from .regions import is_valid_layout
    if not is_valid_layout(regions):
        sizes = {LETTERS[g]: sum(row.count(g) for row in regions) for g in range(9)}
        raise GridFileError(path, rest[0][0], f"the regions are not 9 connected areas of 9 cells "
                                              f"(sizes {sizes})")
    return grid, regions


def format_grid(grid, regions=None, fmt: str | None = None) -> str:
    """The text of a grid file: ``fmt`` is ``qt``, ``line`` or ``jigsaw`` (the
    default: ``jigsaw`` with regions, else ``line``)."""
    fmt = fmt or ("jigsaw" if regions is not None else "line")
    if regions is not None and fmt != "jigsaw":
        raise ValueError(f"only the jigsaw format carries regions, not {fmt!r}")
    if fmt == "qt":
        return "".join(", ".join(str(int(v)) for v in row) + "\n" for row in grid)
    if fmt == "line":
        return "".join(str(int(v)) if v else "." for row in grid for v in row) + "\n"
    if fmt == "jigsaw":
        text = "".join("".join(str(int(v)) if v else "." for v in row) + "\n" for row in grid)
        if regions is not None:
            text += "\n" + "".join("".join(LETTERS[int(g)] for g in row) + "\n" for row in regions)
        return text
    raise ValueError(f"unknown grid format {fmt!r} (qt, line or jigsaw)")


def write_grid(path, grid, regions=None, fmt: str | None = None) -> None:
    """Write a grid file. Without ``fmt``: jigsaw with regions, Qt for ``*.data``,
    else the one-line format."""
    path = Path(path)
    if fmt is None and regions is None and path.suffix == ".data":
        fmt = "qt"
    path.write_text(format_grid(grid, regions, fmt), encoding="utf-8")


def bundled_puzzles() -> list[dict]:
    """The bundled puzzles: dicts with ``name``, ``kind`` (classic/jigsaw),
    ``difficulty``, ``givens`` and ``path``, from ``puzzles/index.json``."""
    entries = json.loads((PUZZLE_DIR / "index.json").read_text(encoding="utf-8"))
    return [dict(e, path=PUZZLE_DIR / e["file"]) for e in entries]
