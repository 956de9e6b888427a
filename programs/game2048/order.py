"""The order converters: the board's cells as the lines of one direction, and back.

*Processing* is written for "right" (elements move from the 1st toward the
4th); the article feeds "left" the row reversed and "up"/"down" the columns.
In FBD that is wiring, so these macros hold no blocks: ``Order{Dir}`` takes
the 16 cells ``C_r_c`` and presents them as ``L{l}_{p}`` (line l, element p, p
= 4 the far end in the direction of the move); ``Reorder{Dir}`` takes a
*Move*'s results ``R{l}_{p}`` back to the cells ``V_r_c``. Being macros, the
debugger shows every converted signal by name (``order_left.L0_4``).

=========  ========  ==================================
direction  line l    element p (1..4) is the cell
=========  ========  ==================================
up         column l  row 4 - p (row 0 is the far end)
right      row l     column p - 1 (column 3 is far)
down       column l  row p - 1 (row 3 is far)
left       row l     column 4 - p (column 0 is far)
=========  ========  ==================================
"""

from __future__ import annotations

from fbd import DINT, Network

DIRECTIONS = ("up", "right", "down", "left")
SIZE = 4


def cell_of(direction: str, line: int, position: int) -> tuple[int, int]:
    """(row, column) of element ``position`` (1..4) of ``line`` (0..3) moving ``direction``."""
    if direction == "up":
        return 4 - position, line
    if direction == "right":
        return line, position - 1
    if direction == "down":
        return position - 1, line
    if direction == "left":
        return line, 4 - position
    raise ValueError(f"unknown direction {direction!r}; choose one of {', '.join(DIRECTIONS)}")


def _name(direction: str) -> str:
    return direction.capitalize()


def order_macro(direction: str) -> Network:
    """``Order{Direction}``: cells ``C_r_c`` in, lines ``L{l}_{p}`` out (no blocks)."""
    cell_of(direction, 0, 1)  # validates the direction
    net = Network(f"Order{_name(direction)}", doc=f"the cells as the lines of a move {direction}")
    cells = {(r, c): net.input(f"C_{r}_{c}", DINT, 0) for r in range(SIZE) for c in range(SIZE)}
    for l in range(SIZE):
        for p in range(1, SIZE + 1):
            net.output(f"L{l}_{p}", cells[cell_of(direction, l, p)])
    return net


def reorder_macro(direction: str) -> Network:
    """``Reorder{Direction}``: lines ``R{l}_{p}`` in, cells ``V_r_c`` out (no blocks)."""
    cell_of(direction, 0, 1)
    net = Network(f"Reorder{_name(direction)}", doc=f"the lines of a move {direction} as cells")
    where = {cell_of(direction, l, p): (l, p) for l in range(SIZE) for p in range(1, SIZE + 1)}
    lines = {(l, p): net.input(f"R{l}_{p}", DINT, 0)
             for l in range(SIZE) for p in range(1, SIZE + 1)}
    for r in range(SIZE):
        for c in range(SIZE):
            net.output(f"V_{r}_{c}", lines[where[(r, c)]])
    return net
