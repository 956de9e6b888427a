"""The *Control* macro of the Hidato program: the event selector and its one-scan lock.

As the Sudoku program's (:mod:`programs.sudoku.control`, where the lock is
explained): ``Cmd`` selects the event, **1 start, 2 stop, 3 setup, 4 enter,
5 clear, 6 undo** (:data:`EVENTS`), and a change of ``Seq`` issues it. An
event is taken unless one was taken on the previous scan, so the undo
stacks' push and pop pulses never come on neighbouring scans.

Inputs: ``Cmd``, ``Seq`` (INT). Outputs: ``Start``, ``Stop``, ``Setup``,
``Enter``, ``Clear``, ``Undo`` (one-scan pulses, at most one TRUE), ``Busy``
and ``Taken`` (INT: the ``Seq`` of the last event taken).
"""

from __future__ import annotations

from blocks import AND, EQ, MEMORY, NE, NOT
from fbd import INT, Network

#: The selector's values, as written to the ``CMD`` input.
EVENTS = {"start": 1, "stop": 2, "setup": 3, "enter": 4, "clear": 5, "undo": 6}


def control_macro() -> Network:
    """Build the *Control* macro (16 blocks: NE, NOT, AND, MEMORY, 6 EQ, 6 AND)."""
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
