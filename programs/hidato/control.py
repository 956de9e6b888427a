"""The Hidato program's events: the *Command* selector with a one-scan lock.

As the Sudoku program's (:mod:`programs.sudoku.control`, where the lock is
explained): ``CMD`` selects the event, **1 start, 2 stop, 3 setup, 4 enter,
5 clear, 6 undo** (:data:`EVENTS`), and a new ``CMD_SEQ`` issues it (the
handshake of :mod:`programs.common.command`). An event is taken unless one
was taken on the previous scan, so the undo stacks' push and pop pulses never
come on neighbouring scans.
"""

from __future__ import annotations

from fbd import Network
from programs.common.command import command_macro

#: The selector's values, as written to the ``CMD`` input.
EVENTS = {"start": 1, "stop": 2, "setup": 3, "enter": 4, "clear": 5, "undo": 6}


def control_macro() -> Network:
    """The *Command* macro for :data:`EVENTS` (16 blocks: NE, NOT, AND, MEMORY, 6 EQ, 6 AND)."""
    return command_macro(EVENTS, lock="scan")
