"""The reference 2048 the tests compare the program with: it lives in
:mod:`programs.game2048.reference` (the Monte-Carlo study plays it too)."""

from programs.game2048.reference import (  # noqa: F401
    DIRECTIONS,
    game_over,
    move,
    play,
    random_board,
    slide_line,
    spawn,
)
