"""2048 as a PLC program built only from function blocks.

The program (:func:`build`) is wired from the article's macros, each in its
own module and each unit-tested alone:

==================  ===============================================================
module              macro
==================  ===============================================================
``rng``             *Random*: NOW, a sawtooth, remainders of a quotient → row,
                    column, four-flag
``install``         *Install*: 16 ANDs of work, row = i, column = j
``cell``            *Cell* (16 instances): Memory, four Selects, Compare, AND, OR
``processing``      *Processing*: one line, ``single_pass`` or ``multi_scan``
``move``            *Move*: one direction (four *Processing* lines)
``order``           *Order*/*Reorder*: the order converters of the four directions
``control``         *Control*: one-of-N selector, lock, move and placement sequence
``placement``       *SmartPlacement*: draw among the empty cells (``smart`` mode)
``game_over``       *GameOver*: full and no equal neighbours
``won``             *Won*: a 2048 tile exists
``score``           *Score*: the score accumulator
==================  ===============================================================

:class:`Game2048` plays it through the PLC's inputs and outputs, blocking
(:meth:`~Game2048.press`) or from a GUI loop (:meth:`~Game2048.command`).
``python -m programs.game2048.timing`` is the timing study.
"""

from .game import MAX_TILE, Game2048, PressResult, check_board
from .order import DIRECTIONS
from .placement import PLACEMENTS
from .processing import VARIANTS
from .program import build

__all__ = ["build", "Game2048", "PressResult", "check_board", "DIRECTIONS", "VARIANTS",
           "PLACEMENTS", "MAX_TILE"]
