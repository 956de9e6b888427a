"""The *Move* macro: one direction's processing, four *Processing* lines.

The article's command-processing block "consists of 4 parts, since each
command (right, left, up, down) is processed separately": one *Move* per
direction (instances ``processing_up``, ``processing_right``,
``processing_down``, ``processing_left``), each holding four *Processing*
lines ``line_0``..``line_3`` fed in that direction's order by an
:mod:`order converter <programs.game2048.order>`.

Inputs: ``Command`` (BOOL pulse) and ``L{l}_{p}`` (DINT): element p (1..4, 4 =
the far end in the move direction) of line l (0..3).
Outputs: ``R{l}_{p}`` (the processed elements), ``Done`` (a one-scan pulse when
every line has finished), ``Worked`` (any line worked) and ``Score`` (the sum
of the lines' scores).

With ``single_pass`` lines all four finish in the Command's scan: Done is the
AND of their Done, with no memories (the article's update removed "all this
horror" of triggers). With ``multi_scan`` lines finish on different scans, so
as in the original program each line's Done is latched (``done_l``, an SR
reset by the next Command) and ``waiting`` (an RS from Command to Done) makes
Done one pulse when the last line is in. A line keeps its packed elements,
and so its results, Worked and Score, until the next Command, so they are all
valid at that pulse.
"""

from __future__ import annotations

from blocks import ADD, AND, OR, RS, SR
from fbd import BOOL, DINT, Network

from .processing import VARIANTS, processing_macro

LINES = 4
POSITIONS = (1, 2, 3, 4)


def move_macro(variant: str = "single_pass", line: Network | None = None) -> Network:
    """Build the *Move* macro (4 *Processing* lines plus 3 blocks for
    ``single_pass``: 175; plus 9 for ``multi_scan``: 221). ``line`` reuses an already built
    *Processing* macro of the same variant."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown processing variant {variant!r}; choose one of "
                         f"{', '.join(VARIANTS)}")
    line = line if line is not None else processing_macro(variant)
    net = Network("Move", doc=f"one direction: four Processing lines ({variant})")
    command = net.input("Command", BOOL, False)
    lines = []
    for l in range(LINES):
        ins = {f"E{p}": net.input(f"L{l}_{p}", DINT, 0) for p in POSITIONS}
        lines.append(net.add(f"line_{l}", line, Command=command, **ins))
    for l, inst in enumerate(lines):
        for p in POSITIONS:
            net.output(f"R{l}_{p}", inst.port(f"O{p}"))

    dones = {f"IN{l + 1}": inst.Done for l, inst in enumerate(lines)}
    if variant == "single_pass":
        done = net.add("done", AND(n=LINES), **dones)
    else:
        latched = {f"IN{l + 1}": net.add(f"done_{l}", SR(), S1=inst.Done, R=command).Q1
                   for l, inst in enumerate(lines)}
        all_in = net.add("all_done", AND(n=LINES), **latched)
        waiting = net.add("waiting", RS(), S=command)
        done = net.add("done", AND(), IN1=all_in.OUT, IN2=waiting.Q1)
        net.connect(done.OUT, waiting.R1, feedback=True)
    worked = net.add("worked", OR(n=LINES),
                     **{f"IN{l + 1}": inst.Worked for l, inst in enumerate(lines)})
    score = net.add("score", ADD(DINT, n=LINES),
                    **{f"IN{l + 1}": inst.Score for l, inst in enumerate(lines)})
    net.output("Done", done.OUT)
    net.output("Worked", worked.OUT)
    net.output("Score", score.OUT)
    return net
