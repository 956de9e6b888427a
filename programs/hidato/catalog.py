"""The bundled puzzles (``programs/hidato/puzzles/*.txt``, package data).

Each file is named ``SIZE-DIFFICULTY-NAME.txt`` and holds one board in the text
format with a comment line saying where it comes from. All were made by
:func:`~.generator.generate` (seed in the comment), except ``8x8-published-rosetta``
(Rosetta Code's task example); every one is checked unique by
:func:`~.solver.count_solutions` in the tests.
"""

from __future__ import annotations

from importlib import resources

from .board import Board

__all__ = ["bundled"]


def bundled() -> dict[str, Board]:
    """Name (the file name without ``.txt``) → board, sorted by size then name."""
    folder = resources.files(__package__) / "puzzles"
    boards = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".txt"):
            boards[entry.name[:-4]] = Board.parse(entry.read_text(encoding="utf-8"), entry.name)
    return dict(sorted(boards.items(), key=lambda kv: (kv[1].cells, kv[0])))
