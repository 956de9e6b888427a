"""The *Score* macro: the score accumulator (the article's missing item 1).

Each *Processing* line outputs the sum of its merges; *Move* sums its four
lines and *Control* picks the commanded direction's sum (``Gain``). Here
``total`` (a MEMORY) takes ``sum`` = total + Gain on every scan in which
``Add`` (the move is applied: *Control*'s Go) is TRUE; ``Clear`` (a new game
or a reset) zeroes it. The sum reads the total through a feedback wire.
"""

from __future__ import annotations

from blocks import ADD, MEMORY
from fbd import BOOL, DINT, Network


def score_macro() -> Network:
    """Build the *Score* macro (2 blocks). Inputs ``Gain`` (DINT), ``Add``,
    ``Clear`` (BOOL); output ``Total`` (DINT)."""
    net = Network("Score", doc="the running sum of the merges")
    gain = net.input("Gain", DINT, 0)
    add = net.input("Add", BOOL, False)
    clear = net.input("Clear", BOOL, False)
    total_sum = net.add("sum", ADD(DINT), IN2=gain)
    total = net.add("total", MEMORY(DINT), IN=total_sum.OUT, SET=add, RST=clear)
    net.connect(total.OUT, total_sum.IN1, feedback=True)
    net.output("Total", total.OUT)
    return net
