"""Hidato: boards and their text format, a fast solver, a unique-puzzle generator.

``Board`` (:mod:`.board`), ``solve`` and ``count_solutions`` (:mod:`.solver`),
``generate`` (:mod:`.generator`); bundled puzzles in ``puzzles/``
(:func:`~.catalog.bundled`); ``fbd hidato solve|generate`` (:mod:`.cli`);
``python -m programs.hidato.bench`` times the solver and the generator.
The block program: :func:`~.program.build` (rule checks in :mod:`.rules`) and
its facade :class:`~.game.HidatoGame`.
"""

from .board import Board, BoardError
from .catalog import bundled
from .game import HidatoGame
from .generator import DIFFICULTIES, generate
from .program import build
from .solver import count_solutions, solve

__all__ = ["HidatoGame", "build", "Board", "BoardError", "solve", "count_solutions", "generate",
           "DIFFICULTIES", "bundled"]
