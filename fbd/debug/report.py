"""How readable the debugger's diagram of a program is, level by level.

    python -m fbd.debug.report programs.game2048:build

prints, for each level of the program (each macro type once, at its first
instance), its boxes and wires, the wire crossings, the drawn wire length and
the wires drawn as connector pairs (:func:`fbd.debug.layout.measure`), and
the time the layout took. ``docs/debugger.md`` records these figures for 2048.
"""

from __future__ import annotations

import argparse
import sys
import time

from ..compiler.pycode import compile_network
from .layout import layout_level, measure

__all__ = ["levels", "report", "main"]


def levels(net):
    """(prefix, network) of the top level, then each macro type once, breadth first."""
    out, seen, todo = [], set(), [("", net)]
    while todo:
        prefix, level = todo.pop(0)
        out.append((prefix, level))
        for name, inst in level.instances.items():
            if inst.is_macro and inst.element.name not in seen:
                seen.add(inst.element.name)
                todo.append((f"{prefix}{name}.", inst.element))
    return out


def report(net, out=sys.stdout) -> list[dict]:
    prog = compile_network(net)
    order = [prog.leaves[i].path for i in prog.order]
    rows = []
    print(f"{'level':28} {'type':16} {'boxes':>5} {'wires':>5} {'crossings':>9} {'length':>9} "
          f"{'pairs':>5} {'ms':>6}", file=out)
    for prefix, level in levels(net):
        start = time.perf_counter()
        lv = layout_level(level, prefix, order, prog.signals)
        ms = (time.perf_counter() - start) * 1000
        m = measure(lv)
        row = {"level": prefix or "(top)", "type": level.name, "boxes": len(lv.boxes),
               "wires": sum(1 for w in lv.wires if w.src is not None), "crossings": m.crossings,
               "length": m.length, "pairs": m.connectors, "ms": ms}
        rows.append(row)
        print(f"{row['level']:28} {row['type']:16} {row['boxes']:5} {row['wires']:5} "
              f"{m.crossings:9,} {m.length:9,} {m.connectors:5} {ms:6.0f}", file=out)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fbd.debug.report",
                                     description="Crossings and wire length of a program's "
                                                 "diagram, level by level.")
    parser.add_argument("target", metavar="MODULE:FUNCTION")
    args = parser.parse_args(argv)
    from ..errors import FbdError
    from ..loading import load_network
    try:
        net = load_network(args.target)
    except FbdError as e:
        print(f"fbd: error: {e}", file=sys.stderr)
        return 2
    report(net)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
