"""The *Won* macro: a 2048 tile exists (play goes on, as in the original game).

``largest`` (MAX of the 16 cells) compared with 2048 (``won``, a GE). It
stays TRUE while the tile is on the board, also after it merges further.
"""

from __future__ import annotations

from blocks import GE, MAX
from fbd import DINT, Network

SIZE = 4
GOAL = 2048


def won_macro() -> Network:
    """Build the *Won* macro (2 blocks). Inputs ``V_r_c`` (DINT); output ``Won``."""
    net = Network("Won", doc="a 2048 tile exists")
    v = [net.input(f"V_{r}_{c}", DINT, 0) for r in range(SIZE) for c in range(SIZE)]
    largest = net.add("largest", MAX(DINT, n=SIZE * SIZE),
                      **{f"IN{k + 1}": x for k, x in enumerate(v)})
    won = net.add("won", GE(DINT), IN1=largest.OUT, IN2=GOAL)
    net.output("Won", won.OUT)
    return net
