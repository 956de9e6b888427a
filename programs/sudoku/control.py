"""The *Control* macro: the event selector and its one-scan lock.

Qt's example submits events to the state machine (``submitEvent("tap",
{x, y})``); the PLC has inputs instead. ``Cmd`` is the selector: **1 start,
2 stop, 3 setup, 4 tap, 5 undo, 6 enter, 7 clear** (:data:`EVENTS`), and
``Seq`` a sequence number. An event is *pending* while ``Seq`` differs from
``Taken`` (the ``Seq`` of the last event taken, ``taken``, read through a
feedback wire), so a panel never has to release a button and the same event
twice is two events.

The lock. A pending event is taken (``issue``) unless one was taken on the
previous scan (``issue`` itself through a feedback wire into ``free``). The
undo stack, the library's LIFO, pushes and pops on *rising* edges, so two
moves must never come on neighbouring scans: with the lock, every push or
pop pulse is followed by a scan with the pulse FALSE. An event written while
locked is not lost: it is still pending and is taken on the next scan
(:class:`~programs.sudoku.SudokuGame` waits for ``Taken`` to equal ``Seq``).
Only an event overwritten before it was taken is lost, as a second click
would be if a GUI replaced the first before the machine saw it.

Inputs: ``Cmd``, ``Seq`` (INT). Outputs: ``Start``, ``Stop``, ``Setup``,
``Tap``, ``Undo``, ``Enter``, ``Clear`` (one-scan pulses, at most one TRUE),
``Busy`` (an event was taken this scan, so none is taken on the next) and
``Taken`` (INT).
"""

from __future__ import annotations

from blocks import AND, EQ, MEMORY, NE, NOT
from fbd import INT, Network

#: The selector's values, as written to the ``CMD`` input.
EVENTS = {"start": 1, "stop": 2, "setup": 3, "tap": 4, "undo": 5, "enter": 6, "clear": 7}


def control_macro() -> Network:
    """Build the *Control* macro (18 blocks: NE, NOT, AND, MEMORY, 7 EQ, 7 AND)."""
    net = Network("Control", doc="event selector with a sequence number and a one-scan lock")
    cmd = net.input("Cmd", INT, 0)
    seq = net.input("Seq", INT, 0)

    pending = net.add("pending", NE(INT), IN1=seq)
    free = net.add("free", NOT())
    issue = net.add("issue", AND(), IN1=pending.OUT, IN2=free.OUT)
    net.connect(issue.OUT, free.IN, feedback=True)
    taken = net.add("taken", MEMORY(INT), IN=seq, SET=issue.OUT)
    net.connect(taken.OUT, pending.IN2, feedback=True)

    for name, k in EVENTS.items():
        selected = net.add(f"is_{name}", EQ(INT), IN1=cmd, IN2=k)
        pulse = net.add(name, AND(), IN1=issue.OUT, IN2=selected.OUT)
        net.output(name.capitalize(), pulse.OUT)
    net.output("Busy", issue.OUT)
    net.output("Taken", taken.OUT)
    return net
