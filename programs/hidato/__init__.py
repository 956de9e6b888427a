"""Hidato (seed 001): boards and their text format, a fast solver, a unique-puzzle generator.

``Board`` (:mod:`.board`), ``solve`` and ``count_solutions`` (:mod:`.solver`),
``generate`` (:mod:`.generator`); bundled puzzles in ``puzzles/``
(:func:`~.catalog.bundled`); ``fbd hidato solve|generate`` (:mod:`.cli`);
``python -m programs.hidato.bench`` times the solver and the generator.
"""

from .board import Board, BoardError
from .catalog import bundled
from .generator import DIFFICULTIES, generate
from .solver import count_solutions, solve

__all__ = ["Board", "BoardError", "solve", "count_solutions", "generate", "DIFFICULTIES", "bundled"]
