"""The *Install* macro: random coordinates to 16 "place a tile here" flags.

Sixteen AND blocks, one per cell, each of three conditions: ``Work`` (a new
tile may be placed now), row = i and column = j. The AND whose three
conditions hold outputs TRUE: an attempt to place a tile in that cell (the
cell itself checks that it is empty). The row and column tests are eight EQ
blocks shared by the ANDs of a row or a column.
"""

from __future__ import annotations

from blocks import AND, EQ
from fbd import BOOL, INT, Network

SIZE = 4


def install_macro() -> Network:
    """Build the *Install* macro (24 blocks: 8 EQ, 16 AND).

    Inputs: ``Work`` (BOOL), ``Row``, ``Col`` (INT, 0..3).
    Outputs: ``S_i_j`` (BOOL) for row i and column j: Work AND Row = i AND Col = j.
    """
    net = Network("Install", doc="16 ANDs of work, row = i, column = j")
    work = net.input("Work", BOOL)
    row = net.input("Row", INT)
    col = net.input("Col", INT)
    rows = [net.add(f"row_{i}", EQ(INT), IN1=row, IN2=i) for i in range(SIZE)]
    cols = [net.add(f"col_{j}", EQ(INT), IN1=col, IN2=j) for j in range(SIZE)]
    for i in range(SIZE):
        for j in range(SIZE):
            hit = net.add(f"set_{i}_{j}", AND(n=3), IN1=work, IN2=rows[i].OUT, IN3=cols[j].OUT)
            net.output(f"S_{i}_{j}", hit.OUT)
    return net
