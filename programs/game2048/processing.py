"""The *Processing* macro: one line of four elements, pushed toward the 4th.

Written, as in the article, for "right": elements shift from the 1st toward
the 4th. The other directions feed their lines in another order (see
:mod:`programs.game2048.order`).

Inputs: ``Command`` (BOOL, a pulse) and ``E1``..``E4`` (DINT, 0 = empty).
Outputs: ``O1``..``O4`` (the processed line), ``Done`` (the processing of this
command has finished: a one-scan pulse), ``Worked`` (at least one element
moved or merged; otherwise the press is not a move) and ``Score`` (the sum of
this command's merges: the article's missing item 1).

Both variants are built only from blocks and give identical results:

``single_pass`` (the article's update, "UPD.1")
    Head-on compaction in one scan, no memories and no feedback: six
    compare-and-exchange steps (an EQ and two SELs each) in bubble order move
    every empty cell to the front while keeping the tiles in order. Done is
    the Command itself. (The article kept four memories at the outputs only
    to show the values on its HMI; here the cells show them, so they are
    left out.)

``multi_scan`` (the original)
    On the rising edge of Command (``edge``, an R_TRIG) the four elements are
    stored in memories (``m1``..``m4``). While an empty cell lies before a
    tile in the shift direction, the elements up to the last such cell shift
    by one (a cyclic shift: the empty cell goes to the front), one pass per
    scan through feedback wires, up to three passes. When the line is packed,
    ``merge`` (a one-scan pulse) is Done: the merged line and Score are read
    from the memories, which keep the packed line until the next command (so
    they need no output memories). Worked is the original's: at least one
    pass was needed (``passed``, an SR set while ``shifting``, reset by the
    edge) or at least one pair merged (``merged``: Score > 0). A line needing
    p passes is Done p scans after the Command's scan.

The merge half is the same in both: compare the 4th and 3rd; if equal, the
4th becomes their sum, the rest shift down by one, and the old 2nd and 1st
(now 3rd and 2nd) are compared the same way; if not, the 3rd and 2nd are
compared, and so on. Each tile merges at most once, starting from the far end:
``[2, 2, 2, 2]`` gives ``[0, 0, 4, 4]``.
"""

from __future__ import annotations

from blocks import ADD, AND, EQ, GT, MEMORY, NE, NOT, OR, R_TRIG, RS, SEL, SR
from fbd import BOOL, DINT, Network

VARIANTS = ("single_pass", "multi_scan")


def processing_macro(variant: str = "single_pass") -> Network:
    """Build the *Processing* macro in one of :data:`VARIANTS`.

    Blocks: 43 for ``single_pass``, 53 for ``multi_scan``.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown processing variant {variant!r}; choose one of "
                         f"{', '.join(VARIANTS)}")
    net = Network("Processing", doc=f"one line pushed toward its 4th element ({variant})")
    command = net.input("Command", BOOL, False)
    e = [net.input(f"E{i}", DINT, 0) for i in range(1, 5)]
    if variant == "single_pass":
        packed = _compact_head_on(net, e)
        out, score = _merge(net, packed)
        worked = _worked(net, out, e)
        for i, o in enumerate(out, start=1):
            net.output(f"O{i}", o)
        net.output("Done", command)
        net.output("Worked", worked)
        net.output("Score", score)
        return net

    # -- multi_scan: latch, compaction passes over several scans, then the merge pulse
    edge = net.add("edge", R_TRIG(), CLK=command)
    loads = [net.add(f"load{i}", SEL(DINT), G=edge.Q, IN1=e[i - 1]) for i in range(1, 5)]
    write = net.add("write", OR(), IN1=edge.Q)
    m = [net.add(f"m{i}", MEMORY(DINT), IN=loads[i - 1].OUT, SET=write.OUT).OUT
         for i in range(1, 5)]
    shifting, nexts = _compaction_pass(net, m)
    for load, nxt in zip(loads, nexts):
        net.connect(nxt, load.IN0, feedback=True)
    net.connect(shifting, write.IN2, feedback=True)

    active = net.add("active", RS(), S=edge.Q)
    packed_now = net.add("packed", NOT(), IN=shifting)
    merge = net.add("merge", AND(), IN1=active.Q1, IN2=packed_now.OUT)
    net.connect(merge.OUT, active.R1, feedback=True)

    # The packed line stays in the memories until the next command, so the merge
    # (and Score) read from them hold their values after the pulse.
    out, score = _merge(net, m)
    # Worked, as the original: a pass was needed, or a pair merged.
    passed = net.add("passed", SR(), S1=shifting, R=edge.Q)
    merged = net.add("merged", GT(DINT), IN1=score, IN2=0)
    worked = net.add("worked", OR(), IN1=passed.Q1, IN2=merged.OUT)
    for i, o in enumerate(out, start=1):
        net.output(f"O{i}", o)
    net.output("Done", merge.OUT)
    net.output("Worked", worked.OUT)
    net.output("Score", score)
    return net


def _compact_head_on(net: Network, e: list) -> list:
    """Every empty cell to the front in one scan (18 blocks).

    Bubble order over the pairs (1,2) (2,3) (3,4), (1,2) (2,3), (1,2): where
    the later element of a pair is empty, the pair is exchanged. Tiles never
    pass each other, so their order is kept.
    """
    v = list(e)
    steps = [(p, i) for p, last in enumerate((3, 2, 1), start=1) for i in range(last)]
    for p, i in steps:
        name = f"p{p}_{i + 1}{i + 2}"
        gap = net.add(f"gap_{name}", EQ(DINT), IN1=v[i + 1], IN2=0)
        later = net.add(f"later_{name}", SEL(DINT), G=gap.OUT, IN0=v[i + 1], IN1=v[i])
        earlier = net.add(f"earlier_{name}", SEL(DINT), G=gap.OUT, IN0=v[i], IN1=0)
        v[i], v[i + 1] = earlier.OUT, later.OUT
    return v


def _compaction_pass(net: Network, m: list):
    """One pass of the original compaction (17 blocks): find the last empty
    cell with a tile before it, and shift the elements up to it by one, the
    empty cell going to the front.

    Returns (shifting: a pass is needed, [the line after the pass]).
    """
    m1, m2, m3, m4 = m
    full1 = net.add("full1", NE(DINT), IN1=m1, IN2=0)
    empty2 = net.add("empty2", EQ(DINT), IN1=m2, IN2=0)
    empty3 = net.add("empty3", EQ(DINT), IN1=m3, IN2=0)
    empty4 = net.add("empty4", EQ(DINT), IN1=m4, IN2=0)
    full2 = net.add("full2", NOT(), IN=empty2.OUT)
    full3 = net.add("full3", NOT(), IN=empty3.OUT)
    before3 = net.add("tile_before3", OR(), IN1=full1.OUT, IN2=full2.OUT)
    before4 = net.add("tile_before4", OR(), IN1=before3.OUT, IN2=full3.OUT)
    gap2 = net.add("gap2", AND(), IN1=empty2.OUT, IN2=full1.OUT)
    gap3 = net.add("gap3", AND(), IN1=empty3.OUT, IN2=before3.OUT)
    gap4 = net.add("gap4", AND(), IN1=empty4.OUT, IN2=before4.OUT)
    shift3 = net.add("shift3", OR(), IN1=gap4.OUT, IN2=gap3.OUT)
    shifting = net.add("shifting", OR(), IN1=shift3.OUT, IN2=gap2.OUT)
    next4 = net.add("next4", SEL(DINT), G=gap4.OUT, IN0=m4, IN1=m3)
    next3 = net.add("next3", SEL(DINT), G=shift3.OUT, IN0=m3, IN1=m2)
    next2 = net.add("next2", SEL(DINT), G=shifting.OUT, IN0=m2, IN1=m1)
    next1 = net.add("next1", SEL(DINT), G=shifting.OUT, IN0=m1, IN1=0)
    return shifting.OUT, [next1.OUT, next2.OUT, next3.OUT, next4.OUT]


def _merge(net: Network, packed: list):
    """The pairwise merge of a packed line from the far end (20 blocks).

    Returns ([O1..O4], the sum of the merged tiles).
    """
    a, b, c, d = packed
    eq_cd = net.add("eq34", EQ(DINT), IN1=c, IN2=d)
    eq_bc = net.add("eq23", EQ(DINT), IN1=b, IN2=c)
    eq_ab = net.add("eq12", EQ(DINT), IN1=a, IN2=b)
    sum_cd = net.add("sum34", ADD(DINT), IN1=c, IN2=d)
    sum_bc = net.add("sum23", ADD(DINT), IN1=b, IN2=c)
    sum_ab = net.add("sum12", ADD(DINT), IN1=a, IN2=b)
    # 4th: the sum when the 4th and 3rd merge.
    o4 = net.add("merged4", SEL(DINT), G=eq_cd.OUT, IN0=d, IN1=sum_cd.OUT)
    # 3rd: after a 4-3 merge, the old 2nd (or the 2-1 sum); else the 3rd (or the 3-2 sum).
    old2 = net.add("old2_or_sum12", SEL(DINT), G=eq_ab.OUT, IN0=b, IN1=sum_ab.OUT)
    old3 = net.add("old3_or_sum23", SEL(DINT), G=eq_bc.OUT, IN0=c, IN1=sum_bc.OUT)
    o3 = net.add("merged3", SEL(DINT), G=eq_cd.OUT, IN0=old3.OUT, IN1=old2.OUT)
    # 2nd: after a 4-3 merge, the old 1st (0 if it merged); else the 1st after a
    # 3-2 merge, or the 2nd (or the 2-1 sum).
    old1 = net.add("old1_or_0", SEL(DINT), G=eq_ab.OUT, IN0=a, IN1=0)
    shifted2 = net.add("old2_or_old1", SEL(DINT), G=eq_bc.OUT, IN0=old2.OUT, IN1=a)
    o2 = net.add("merged2", SEL(DINT), G=eq_cd.OUT, IN0=shifted2.OUT, IN1=old1.OUT)
    # 1st: empty after any merge.
    any_merge = net.add("any_merge", OR(n=3), IN1=eq_cd.OUT, IN2=eq_bc.OUT, IN3=eq_ab.OUT)
    o1 = net.add("merged1", SEL(DINT), G=any_merge.OUT, IN0=a, IN1=0)
    # Score: the first merge (4-3) plus the second (2-1 after it, else 3-2 or 2-1).
    gain12 = net.add("gain12", SEL(DINT), G=eq_ab.OUT, IN0=0, IN1=sum_ab.OUT)
    gain23 = net.add("gain23_or_12", SEL(DINT), G=eq_bc.OUT, IN0=gain12.OUT, IN1=sum_bc.OUT)
    second = net.add("gain_second", SEL(DINT), G=eq_cd.OUT, IN0=gain23.OUT, IN1=gain12.OUT)
    first = net.add("gain34", SEL(DINT), G=eq_cd.OUT, IN0=0, IN1=sum_cd.OUT)
    score = net.add("score", ADD(DINT), IN1=first.OUT, IN2=second.OUT)
    return [o1.OUT, o2.OUT, o3.OUT, o4.OUT], score.OUT


def _worked(net: Network, out: list, e: list):
    """TRUE when any element changed (5 blocks; the single pass has no memory
    of a pass to ask)."""
    changed = [net.add(f"changed{i}", NE(DINT), IN1=o, IN2=x).OUT
               for i, (o, x) in enumerate(zip(out, e), start=1)]
    return net.add("worked", OR(n=4), **{f"IN{i}": c for i, c in enumerate(changed, start=1)}).OUT
