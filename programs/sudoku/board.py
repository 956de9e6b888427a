"""The board-wide macros built from the group map: *Peers* and *Groups*.

Both take the 81 cells' masks ``M_r_c`` (WORD: bit v set for value v, see
*Cell*) and are wired from :func:`programs.sudoku.groups.groups`, the one
place where classic and jigsaw differ.

*Peers* (81 ORs): ``P_r_c`` is the OR of the masks of the cells sharing a
group with (r, c), for the cell's conflict output.

*Groups* (27 ORs, 27 EQs, 1 AND): a group is complete when the OR of its 9
masks is 2#1111111110, i.e. its 9 cells hold the 9 digits 1..9: no zero (bit
0) and, 9 cells showing 9 distinct bits, no repeat. This is the example's
``isOK()`` for each group; ``Solved`` is the AND of all 27 (``isSolved()``).
"""

from __future__ import annotations

from blocks import AND, EQ, OR
from fbd import WORD, Network

from .cell import DIGITS
from .groups import CELLS, groups, peers


def _masks(net: Network) -> dict:
    return {(r, c): net.input(f"M_{r}_{c}", WORD, 0) for r, c in CELLS}


def peers_macro(regions=None) -> Network:
    """Build the *Peers* macro (81 ORs) for ``regions`` (None: 3x3 boxes)."""
    net = Network("Peers", doc="OR of the masks of each cell's peers")
    masks = _masks(net)
    for (r, c), mates in peers(regions).items():
        any_ = net.add(f"peers_{r}_{c}", OR(WORD, n=len(mates)),
                       **{f"IN{i}": masks[m] for i, m in enumerate(mates, 1)})
        net.output(f"P_{r}_{c}", any_.OUT)
    return net


def groups_macro(regions=None) -> Network:
    """Build the *Groups* macro (55 blocks) for ``regions`` (None: 3x3 boxes)."""
    net = Network("Groups", doc="27 groups complete: the grid is solved")
    masks = _masks(net)
    names = [f"row_{k}" for k in range(9)] + [f"col_{k}" for k in range(9)] + \
            [f"region_{k}" for k in range(9)]
    complete = []
    for name, group in zip(names, groups(regions)):
        seen = net.add(f"{name}_digits", OR(WORD, n=9),
                       **{f"IN{i}": masks[m] for i, m in enumerate(group, 1)})
        complete.append(net.add(f"{name}_ok", EQ(WORD), IN1=seen.OUT, IN2=DIGITS).OUT)
    solved = net.add("solved", AND(n=len(complete)),
                     **{f"IN{i}": ok for i, ok in enumerate(complete, 1)})
    net.output("Solved", solved.OUT)
    return net
