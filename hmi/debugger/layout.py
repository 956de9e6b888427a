"""The diagram's layout of one network level, Qt-free (so it is tested with numbers).

A level is a :class:`~fbd.network.Network` (the program, or a macro's body)
seen at a path prefix (``""`` at the top, ``"cell_0_0."`` inside a macro
instance). Its boxes are the instances placed in it, plus one pseudo-box for
the level's inputs (leftmost column) and one for its outputs (rightmost).

The layout follows the execution order, left to right, the way CODESYS'
"sort by data flow" reads:

- every instance gets its *position*: the execution-order position of its
  block (of a macro: its first block to run);
- a wire is *forward* when it is not a feedback wire and its source runs
  before its target; the column of a box is its longest path from the level's
  inputs over forward wires only (feedback wires and wires through a macro
  that run "backwards" would make cycles);
- boxes in a column are stacked top to bottom in execution order, with a gap,
  so they never overlap; columns are as wide as their widest box plus room
  for the wire labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fbd.network import Network, Ref

__all__ = ["Box", "Wire", "Level", "layout_level", "PORT_H", "HEADER_H", "COL_GAP", "ROW_GAP"]

PORT_H = 18        # the height of one port row
HEADER_H = 22      # the box's title row
COL_GAP = 150      # room between columns for wires and their value labels
ROW_GAP = 24
CHAR_W = 7.0       # an estimate of a character's width (monospace 9 pt)
MIN_W = 90
INPUTS = "<inputs>"
OUTPUTS = "<outputs>"


@dataclass
class Box:
    """One box: an instance (``kind`` "block" or "macro") or a level's inputs/outputs."""
    name: str                 # the instance name (or INPUTS / OUTPUTS)
    title: str                # the type shown in the header
    kind: str                 # block | macro | inputs | outputs
    path: str                 # the instance's full path ("" for the pseudo-boxes)
    inputs: list[str]
    outputs: list[str]
    position: int = 0         # in execution order
    column: int = 0
    x: float = 0.0
    y: float = 0.0
    w: float = MIN_W
    h: float = HEADER_H + PORT_H

    def in_port(self, port: str) -> tuple[float, float]:
        """The scene point where the wire into ``port`` ends."""
        i = self.inputs.index(port)
        return self.x, self.y + HEADER_H + (i + 0.5) * PORT_H

    def out_port(self, port: str) -> tuple[float, float]:
        i = self.outputs.index(port)
        return self.x + self.w, self.y + HEADER_H + (i + 0.5) * PORT_H

    @property
    def rect(self) -> tuple[float, float, float, float]:
        return self.x, self.y, self.w, self.h


@dataclass
class Wire:
    """A wire from ``src`` (box name, output port) to ``dst`` (box name, input port),
    or a literal into an input (``src`` None, ``literal`` its value)."""
    src: tuple[str, str] | None
    dst: tuple[str, str]
    path: str | None          # the signal path whose value is shown beside the wire
    feedback: bool = False
    literal: object = None


@dataclass
class Level:
    net: Network
    prefix: str
    boxes: dict[str, Box] = field(default_factory=dict)
    wires: list[Wire] = field(default_factory=list)

    @property
    def width(self) -> float:
        return max((b.x + b.w for b in self.boxes.values()), default=0.0)

    @property
    def height(self) -> float:
        return max((b.y + b.h for b in self.boxes.values()), default=0.0)


def _src_key(ref: Ref) -> tuple[str, str]:
    if isinstance(ref.owner, Network):
        return INPUTS, ref.port
    return ref.owner.name, ref.port


def layout_level(net: Network, prefix: str, order: list[str], signals) -> Level:
    """Lay out ``net`` seen at ``prefix``; ``order`` is every block path in execution
    order, ``signals`` the program's path -> SignalInfo (for the wire labels)."""
    level = Level(net, prefix)
    pos_of: dict[str, int] = {}
    for i, path in enumerate(order):
        if not path.startswith(prefix):
            continue
        head = path[len(prefix):].split(".", 1)[0]
        pos_of.setdefault(head, i)
    big = len(order) + 1
    if net.inputs:
        level.boxes[INPUTS] = Box(INPUTS, "inputs", "inputs", prefix.rstrip("."), [],
                                  list(net.inputs), position=-1)
    for name, inst in net.instances.items():
        level.boxes[name] = Box(name, inst.type_name, "macro" if inst.is_macro else "block",
                                prefix + name, [p.name for p in inst.input_ports()],
                                [p.name for p in inst.output_ports()],
                                position=pos_of.get(name, big))
    if net.outputs:
        level.boxes[OUTPUTS] = Box(OUTPUTS, "outputs", "outputs", prefix.rstrip("."),
                                   list(net.outputs), [], position=big + 1)

    def label(*paths: str) -> str | None:
        for p in paths:
            if p in signals:
                return p
        return None

    for name, inst in net.instances.items():
        for port, bindings in inst.bindings.items():
            for b in bindings:
                target = f"{prefix}{name}.{port}"
                if isinstance(b.source, Ref):
                    skey = _src_key(b.source)
                    spath = prefix + (skey[1] if skey[0] == INPUTS else f"{skey[0]}.{skey[1]}")
                    level.wires.append(Wire(skey, (name, port), label(spath, target),
                                            b.feedback))
                else:
                    level.wires.append(Wire(None, (name, port), None, literal=b.source))
    for name, out in net.outputs.items():
        target = prefix + name
        if isinstance(out.source, Ref):
            skey = _src_key(out.source)
            spath = prefix + (skey[1] if skey[0] == INPUTS else f"{skey[0]}.{skey[1]}")
            level.wires.append(Wire(skey, (OUTPUTS, name), label(target, spath), out.feedback))
        else:
            level.wires.append(Wire(None, (OUTPUTS, name), None, literal=out.source))

    # columns: longest path over forward wires, visiting boxes in execution order
    boxes = sorted(level.boxes.values(), key=lambda b: b.position)
    preds: dict[str, list[str]] = {b.name: [] for b in boxes}
    for w in level.wires:
        if w.src is None or w.feedback:
            continue
        s, d = level.boxes[w.src[0]], level.boxes[w.dst[0]]
        if s.position < d.position:
            preds[d.name].append(s.name)
    first = 1 if INPUTS in level.boxes else 0
    for b in boxes:
        if b.kind == "inputs":
            continue
        b.column = max((level.boxes[p].column + 1 for p in preds[b.name]), default=first)
    if OUTPUTS in level.boxes:
        last = max((b.column for b in boxes if b.kind != "outputs"), default=0)
        level.boxes[OUTPUTS].column = last + 1

    # sizes
    for b in boxes:
        longest_in = max((len(p) for p in b.inputs), default=0)
        longest_out = max((len(p) for p in b.outputs), default=0)
        title = max(len(b.title), len(b.name)) + 2
        b.w = max(MIN_W, (longest_in + longest_out + 3) * CHAR_W, title * CHAR_W)
        b.h = HEADER_H + max(len(b.inputs), len(b.outputs), 1) * PORT_H + 4

    # place: columns left to right, stacked in execution order
    columns: dict[int, list[Box]] = {}
    for b in boxes:
        columns.setdefault(b.column, []).append(b)
    x = 0.0
    for col in sorted(columns):
        stack = columns[col]
        width = max(b.w for b in stack)
        y = 0.0
        for b in stack:
            b.x, b.y = x + (width - b.w) / 2 if b.kind in ("block", "macro") else x, y
            y += b.h + ROW_GAP
        x += width + COL_GAP
    return level


def overlaps(level: Level) -> list[tuple[str, str]]:
    """Pairs of boxes whose rectangles intersect (for tests; should be empty)."""
    found = []
    items = list(level.boxes.values())
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h:
                found.append((a.name, b.name))
    return found
