"""Sudoku and Jigsaw Sudoku: Qt's "SCXML Sudoku" as a block program.

The program (:func:`build`) is wired from macros, each in its own module:

==================  ===============================================================
module              macro
==================  ===============================================================
``control``         the events (CMD values) for *Command*, the selector
                    (:mod:`programs.common.command`)
``move``            *Move*: tap, enter, clear, undo; the LIFO undo stack
``cell``            *Cell* (81 instances): initial and current value, conflict
``board``           *Peers*, *Groups*: from the group map (classic or jigsaw)
==================  ===============================================================

*Machine*, the states idle (unsolved, solved) and playing, is shared with
Hidato (:mod:`programs.common.machine`). ``groups`` holds the group map;
:class:`SudokuGame` plays the program through the PLC's inputs and outputs.
"""

from .files import GridFileError, bundled_puzzles, read_grid, write_grid
from .game import SudokuGame, check_grid
from .generator import generate
from .groups import check_regions, groups
from .program import build
from .regions import four_colouring, jigsaw_regions
from .solver import count_solutions, solve

__all__ = ["build", "SudokuGame", "check_grid", "check_regions", "groups"]

# puzzle tools (files, dlx, solver, grader, generator, regions, cli, bench)
__all__ += ["read_grid", "write_grid", "GridFileError", "bundled_puzzles", "solve", "count_solutions",
            "generate", "jigsaw_regions", "four_colouring"]
