"""The *Rules* macro: Hidato's rule checks as blocks, built from the board's shape.

Input ``V_r_c`` (INT) per cell of the board (holes have none): 0 empty,
else a number. Outputs ``C_r_c`` (BOOL, the cell's conflict) and ``Solved``.

Blocks per cell (``n`` cells, ``n`` <= 100 numbers first..last):

* **Masks.** The cell's offset ``o = v - first`` as a one-hot 128-bit set in
  two LWORDs: ``lo`` = SHL(1, o) (numbers 0..63 above first) and ``hi`` =
  SHL(1, o - 64). SHL gives 0 for a negative count or one of 64 and more,
  so an empty cell (o < 0) has no bit, and each number exactly one.
* **Duplicates** along a prefix chain: ``seen_k`` = OR of the masks of cells
  0..k, ``twice_k`` = mask_k AND seen_(k-1); ``dup`` = OR of all ``twice``
  is the set of numbers placed twice or more (4 blocks a cell for the two
  words, instead of 4950 pairwise compares at 10x10); ``seen`` of the last
  cell is the set of numbers placed (``placed``). Shifted by one bit
  (across the two words) it gives ``succ_placed`` (bit o: o + 1 is placed)
  and ``pred_placed`` (bit o: o - 1 is placed).
* **Path**: per cell ``key`` = v + 1, or -1 for an empty cell (no cell holds
  -1). For each ordered pair of neighbours (a, b) (8-neighbourhood; 684
  pairs at 10x10), ``link`` = EQ(key_a, v_b): b holds a's successor.
  ``has_succ_a`` = OR of a's outgoing links, ``has_pred_b`` = OR of b's
  incoming links.
* **Conflict**: the cell's mask meets ``bad`` = dup OR (succ_placed unless
  has_succ) OR (pred_placed unless has_pred): its number is duplicated, or
  its successor (predecessor) is placed but not next to it.
* **Solved** = ``first_placed`` AND, for every cell, ``ok`` = (v = last) OR
  has_succ.

Why that ``Solved`` is exact. A solution satisfies it. Conversely suppose
it holds. From any cell, following a neighbour holding the value plus one
gives strictly increasing values, so distinct cells; the walk is finite and
stops only at a cell holding ``last``: so every cell holds a number (an
empty cell has no successor link and is not ``last``), every value is at
most ``last``, and with a cell holding v all of v..last are placed. As
``first`` is placed, all of first..last are: ``n`` distinct values among
``n`` cells, so every cell holds a different one and no cell holds a value
below ``first`` (that would be an (n+1)-th value). The board is a
permutation of first..last in which every v < last has v + 1 next to it: a
Hamiltonian path, the solution. No duplicate check is needed for it (and
the program only ever stores givens and numbers first..last anyway).
"""

from __future__ import annotations

from blocks import ADD, AND, EQ, NE, OR, SEL, SHL, SHR, SUB
from fbd import BOOL, INT, LWORD, Network

NEIGHBOURS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))


def board_cells(rows: int, cols: int, holes=()) -> list[tuple[int, int]]:
    """The cells of the board (not holes), row-major."""
    holes = set(holes)
    return [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in holes]


def _or(net, name, type_, items):
    """OR of ``items`` (one block; a single item is passed through)."""
    if len(items) == 1:
        return items[0]
    return net.add(name, OR(type_, n=len(items)),
                   **{f"IN{i + 1}": x for i, x in enumerate(items)}).OUT


def rules_macro(rows: int, cols: int, holes=(), first: int = 1, last: int | None = None) -> Network:
    """Build the *Rules* macro for a ``rows`` x ``cols`` board with ``holes``
    ((row, col) pairs) numbered ``first..last`` (``last`` defaults to
    ``first + cells - 1``; it must be that)."""
    cells = board_cells(rows, cols, holes)
    n = len(cells)
    if last is None:
        last = first + n - 1
    if not 1 <= n <= 128 or last - first + 1 != n:
        raise ValueError(f"{n} cells need numbers {first}..{first + n - 1} (at most 128), "
                         f"not {first}..{last}")
    net = Network("Rules", doc=f"Hidato rule checks, {rows}x{cols}, {n} cells, {first}..{last}")
    v = {rc: net.input(f"V_{rc[0]}_{rc[1]}", INT, 0) for rc in cells}
    sfx = {rc: f"{rc[0]}_{rc[1]}" for rc in cells}

    # -- masks, duplicates, placed
    masks = {}
    for rc in cells:
        off = net.add(f"off_{sfx[rc]}", SUB(INT), IN1=v[rc], IN2=first)
        off_hi = net.add(f"off_hi_{sfx[rc]}", SUB(INT), IN1=off.OUT, IN2=64)
        lo = net.add(f"lo_{sfx[rc]}", SHL(LWORD, types={"TN": INT}), IN=1, N=off.OUT)
        hi = net.add(f"hi_{sfx[rc]}", SHL(LWORD, types={"TN": INT}), IN=1, N=off_hi.OUT)
        masks[rc] = (lo.OUT, hi.OUT)
    dup, placed = [], []
    for w, word in enumerate(("lo", "hi")):
        seen = masks[cells[0]][w]
        twice = []
        for rc in cells[1:]:
            m = masks[rc][w]
            twice.append(net.add(f"twice_{word}_{sfx[rc]}", AND(LWORD), IN1=m, IN2=seen).OUT)
            seen = net.add(f"seen_{word}_{sfx[rc]}", OR(LWORD), IN1=seen, IN2=m).OUT
        dup.append(_or(net, f"dup_{word}", LWORD, twice) if twice else 0)
        placed.append(seen)
    p_lo, p_hi = placed
    # succ_placed: bit o when o + 1 is placed; pred_placed: bit o when o - 1 is
    s_lo = net.add("succ_lo_low", SHR(LWORD, types={"TN": INT}), IN=p_lo, N=1)
    s_carry = net.add("succ_lo_carry", SHL(LWORD, types={"TN": INT}), IN=p_hi, N=63)
    succ_lo = net.add("succ_lo", OR(LWORD), IN1=s_lo.OUT, IN2=s_carry.OUT)
    succ_hi = net.add("succ_hi", SHR(LWORD, types={"TN": INT}), IN=p_hi, N=1)
    pred_lo = net.add("pred_lo", SHL(LWORD, types={"TN": INT}), IN=p_lo, N=1)
    p_hi_up = net.add("pred_hi_high", SHL(LWORD, types={"TN": INT}), IN=p_hi, N=1)
    p_carry = net.add("pred_hi_carry", SHR(LWORD, types={"TN": INT}), IN=p_lo, N=63)
    pred_hi = net.add("pred_hi", OR(LWORD), IN1=p_hi_up.OUT, IN2=p_carry.OUT)
    first_bit = net.add("first_bit", AND(LWORD), IN1=p_lo, IN2=1)
    first_placed = net.add("first_placed", NE(LWORD), IN1=first_bit.OUT, IN2=0)
    succ_placed = (succ_lo.OUT, succ_hi.OUT)
    pred_placed = (pred_lo.OUT, pred_hi.OUT)

    # -- the path: links between neighbours
    keys = {}
    for rc in cells:
        filled = net.add(f"filled_{sfx[rc]}", NE(INT), IN1=v[rc], IN2=0)
        plus = net.add(f"plus_{sfx[rc]}", ADD(INT), IN1=v[rc], IN2=1)
        keys[rc] = net.add(f"key_{sfx[rc]}", SEL(INT), G=filled.OUT, IN0=-1, IN1=plus.OUT).OUT
    outgoing = {rc: [] for rc in cells}
    incoming = {rc: [] for rc in cells}
    for a in cells:
        for dr, dc in NEIGHBOURS:
            b = (a[0] + dr, a[1] + dc)
            if b in v:
                link = net.add(f"link_{sfx[a]}_{sfx[b]}", EQ(INT), IN1=keys[a], IN2=v[b]).OUT
                outgoing[a].append(link)
                incoming[b].append(link)

    # -- per cell: conflict and ok
    oks = [first_placed.OUT]
    for rc in cells:
        s = sfx[rc]
        has_succ = _or(net, f"has_succ_{s}", BOOL, outgoing[rc]) if outgoing[rc] else False
        has_pred = _or(net, f"has_pred_{s}", BOOL, incoming[rc]) if incoming[rc] else False
        hits = []
        for w, word in enumerate(("lo", "hi")):
            lost_succ = net.add(f"lost_succ_{word}_{s}", SEL(LWORD), G=has_succ,
                                IN0=succ_placed[w], IN1=0)
            lost_pred = net.add(f"lost_pred_{word}_{s}", SEL(LWORD), G=has_pred,
                                IN0=pred_placed[w], IN1=0)
            bad = net.add(f"bad_{word}_{s}", OR(LWORD, n=3), IN1=dup[w], IN2=lost_succ.OUT,
                          IN3=lost_pred.OUT)
            hits.append(net.add(f"hit_{word}_{s}", AND(LWORD), IN1=masks[rc][w],
                                IN2=bad.OUT).OUT)
        hit = net.add(f"hit_{s}", OR(LWORD), IN1=hits[0], IN2=hits[1])
        conflict = net.add(f"conflict_{s}", NE(LWORD), IN1=hit.OUT, IN2=0)
        net.output(f"C_{s}", conflict.OUT)
        is_last = net.add(f"is_last_{s}", EQ(INT), IN1=v[rc], IN2=last)
        oks.append(net.add(f"ok_{s}", OR(), IN1=is_last.OUT, IN2=has_succ).OUT)
    solved = net.add("solved", AND(n=len(oks)), **{f"IN{i + 1}": x for i, x in enumerate(oks)})
    net.output("Solved", solved.OUT)
    return net


__all__ = ["rules_macro", "board_cells", "NEIGHBOURS"]
