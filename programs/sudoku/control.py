"""The Sudoku program's events: the *Command* selector with a one-scan lock.

Qt's example submits events to the state machine (``submitEvent("tap",
{x, y})``); the PLC has inputs instead: ``CMD`` selects the event, **1
start, 2 stop, 3 setup, 4 tap, 5 undo, 6 enter, 7 clear** (:data:`EVENTS`),
and a new ``CMD_SEQ`` issues it (the handshake of
:mod:`programs.common.command`). The lock is the one-scan kind: the undo
stack, the library's LIFO, pushes and pops on *rising* edges, so two moves
must never come on neighbouring scans; with the lock, every push or pop pulse
is followed by a scan with the pulse FALSE. An event written while locked is
still pending and is taken on the next scan.
"""

from __future__ import annotations

from fbd import Network
from programs.common.command import command_macro

#: The selector's values, as written to the ``CMD`` input.
EVENTS = {"start": 1, "stop": 2, "setup": 3, "tap": 4, "undo": 5, "enter": 6, "clear": 7}


def control_macro() -> Network:
    """The *Command* macro for :data:`EVENTS` (18 blocks: NE, NOT, AND, MEMORY, 7 EQ, 7 AND)."""
    return command_macro(EVENTS, lock="scan")
