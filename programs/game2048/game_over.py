"""The *GameOver* macro: every cell occupied and no two neighbours equal.

``full``: the smallest cell (MIN of 16) is above 0. ``pair_*``: 24 EQ blocks,
one per pair of neighbouring cells (12 in rows, 12 in columns), ORed into
``mergeable``. ``over`` = full AND NOT mergeable. It reads the cells every
scan, so it is decided from the board after the new tile is placed (between
a move and its tile the board is never full: a move that changes a full
board merges, which frees a cell).
"""

from __future__ import annotations

from blocks import AND, EQ, GT, MIN, NOT, OR
from fbd import DINT, Network

SIZE = 4


def game_over_macro() -> Network:
    """Build the *GameOver* macro (29 blocks). Inputs ``V_r_c`` (DINT); output ``Over``."""
    net = Network("GameOver", doc="all cells occupied and no equal neighbours")
    v = {(r, c): net.input(f"V_{r}_{c}", DINT, 0) for r in range(SIZE) for c in range(SIZE)}
    smallest = net.add("smallest", MIN(DINT, n=SIZE * SIZE),
                       **{f"IN{k + 1}": v[divmod(k, SIZE)] for k in range(SIZE * SIZE)})
    full = net.add("full", GT(DINT), IN1=smallest.OUT, IN2=0)
    pairs = []
    for r in range(SIZE):
        for c in range(SIZE):
            if c + 1 < SIZE:
                pairs.append(net.add(f"pair_{r}_{c}_right", EQ(DINT),
                                     IN1=v[(r, c)], IN2=v[(r, c + 1)]).OUT)
            if r + 1 < SIZE:
                pairs.append(net.add(f"pair_{r}_{c}_down", EQ(DINT),
                                     IN1=v[(r, c)], IN2=v[(r + 1, c)]).OUT)
    mergeable = net.add("mergeable", OR(n=len(pairs)),
                        **{f"IN{i}": p for i, p in enumerate(pairs, start=1)})
    stuck = net.add("stuck", NOT(), IN=mergeable.OUT)
    over = net.add("over", AND(), IN1=full.OUT, IN2=stuck.OUT)
    net.output("Over", over.OUT)
    return net
