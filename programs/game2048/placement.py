"""Tile placement: the two modes, and the *SmartPlacement* macro.

``article``
    As in the article: the *Random* macro's row and column go straight to
    *Install*; if the cell they name is occupied, nothing is placed and the
    next scan tries the next random coordinates. The wait grows as the board
    fills and is unbounded in the limit.

``smart``
    The article's proposal, in blocks: number the 16 cells, count the empty
    ones and draw an index among those only, so the tile is always placed on
    the first attempt. *SmartPlacement* does it with prefix counts instead
    of moving the occupied cells aside (the same result, fewer blocks):
    ``empty_k`` (EQ) and ``one_k`` (BOOL_TO_INT) mark the empty cells,
    ``count_k`` (ADD) counts the empty cells among cells 0..k (cell k = 4 *
    row + column), so ``count_15`` is how many there are. ``index`` =
    TRUNC(Fraction * count) is the draw, 0..count-1, from *Random*'s
    6th-decimal remainder. The chosen cell is the (index+1)-th empty one,
    whose number is how many cells have ``count_k <= index`` (``before_k``,
    summed by ``cell``); ``row`` and ``col`` divide it by 4 with remainder,
    for *Install*, exactly as *Random* does.
"""

from __future__ import annotations

from blocks import ADD, BOOL_TO_INT, DIV, EQ, INT_TO_LREAL, LE, MOD, MUL, TRUNC
from fbd import DINT, INT, LREAL, Network

PLACEMENTS = ("article", "smart")
SIZE = 4


def smart_placement_macro() -> Network:
    """Build the *SmartPlacement* macro (83 blocks).

    Inputs: ``V_r_c`` (DINT, the cells), ``Fraction`` (LREAL in [0, 1)).
    Outputs: ``Row``, ``Col`` (INT: an empty cell, uniformly drawn; cell 0 when
    the board is full) and ``Count`` (INT, the number of empty cells).
    """
    net = Network("SmartPlacement", doc="count the empty cells and draw one of them")
    values = [net.input(f"V_{r}_{c}", DINT, 0) for r in range(SIZE) for c in range(SIZE)]
    fraction = net.input("Fraction", LREAL, 0.0)
    counts = []
    for k, v in enumerate(values):
        empty = net.add(f"empty_{k}", EQ(DINT), IN1=v, IN2=0)
        one = net.add(f"one_{k}", BOOL_TO_INT(), IN=empty.OUT)
        if k == 0:
            counts.append(one.OUT)
        else:
            counts.append(net.add(f"count_{k}", ADD(INT), IN1=counts[-1], IN2=one.OUT).OUT)
    count = counts[-1]
    count_real = net.add("count_real", INT_TO_LREAL(), IN=count)
    draw = net.add("draw", MUL(LREAL), IN1=fraction, IN2=count_real.OUT)
    index = net.add("index", TRUNC(INT), IN=draw.OUT)
    before = []
    for k, c in enumerate(counts[:-1]):  # count_15 = count > index: never before
        le = net.add(f"before_{k}", LE(INT), IN1=c, IN2=index.OUT)
        before.append(net.add(f"before_{k}_n", BOOL_TO_INT(), IN=le.OUT).OUT)
    cell = net.add("cell", ADD(INT, n=len(before)),
                   **{f"IN{i}": b for i, b in enumerate(before, start=1)})
    row = net.add("row", DIV(INT), IN1=cell.OUT, IN2=SIZE)
    col = net.add("col", MOD(INT), IN1=cell.OUT, IN2=SIZE)
    net.output("Row", row.OUT)
    net.output("Col", col.OUT)
    net.output("Count", count)
    return net
