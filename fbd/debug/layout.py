"""The diagram layout of one network level, Qt-free (tested with numbers): the debugger
draws it and the PLCopen export (fbd.plcopen.writer) places its elements with it.

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
  so they never overlap; columns are as wide as their widest box;
- wires are routed around the boxes (:attr:`Wire.points`): each source gets a
  vertical channel of its own in the gap after its column (and each wire one
  in the gap before its target's, when it comes from further away); a wire
  that passes columns between, or runs back (feedback), runs horizontally on
  a lane at a y free of those columns' boxes and names (its port's own row if
  that is free, else the nearest free gap between boxes, above or below
  them). A gap is as wide as its channels plus room for the value labels.
  :func:`crossings` checks that no wire passes through a box.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fbd.network import Network, Ref

__all__ = ["Box", "Wire", "Level", "layout_level", "overlaps", "crossings", "PORT_H",
           "HEADER_H", "COL_GAP", "ROW_GAP"]

PORT_H = 18        # the height of one port row
HEADER_H = 22      # the box's title row
COL_GAP = 110      # room between columns for wires and their value labels
ROW_GAP = 40       # room above a box for its name and for lanes of wires
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
    #: the route, scene points from the source's port to the target's (None: a literal)
    points: list[tuple[float, float]] | None = None


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

    # rows: each column stacked top to bottom in execution order (x comes later)
    columns: dict[int, list[Box]] = {}
    for b in boxes:
        columns.setdefault(b.column, []).append(b)
    for stack in columns.values():
        y = 0.0
        for b in stack:
            b.y = y
            y += b.h + ROW_GAP
    routes = _plan_routes(level, columns)

    # columns left to right; each gap as wide as its channels need
    ncols = max(columns, default=-1) + 1
    gap_x: dict[int, float] = {}
    x = CHANNEL_PITCH * len(routes.channels.get(-1, {})) + 2 * CHANNEL_PITCH
    gap_x[-1] = 0.0
    for col in range(ncols):
        stack = columns.get(col, [])
        width = max((b.w for b in stack), default=MIN_W)
        for b in stack:
            b.x = x + (width - b.w) / 2 if b.kind in ("block", "macro") else x
        x += width
        gap_x[col] = x
        x += _gap_width(len(routes.channels.get(col, {})))
    routes.finish(level, gap_x)
    return level


CHANNEL_PITCH = 7    # between the vertical channels of a gap
LANE_PITCH = 6       # between horizontal lanes sharing a gap between boxes
LABEL_ROOM = 62      # the right part of a gap, left free for the value labels
NAME_H = 14          # the instance name above a box
LANE_MARGIN = 5


def _gap_width(channels: int) -> float:
    return max(COL_GAP, 14 + channels * CHANNEL_PITCH + LABEL_ROOM)


class _Routes:
    """Wires as gap channels and lanes, turned into points once the x are known."""

    def __init__(self):
        self.channels: dict[int, dict[object, int]] = {}   # gap -> net key -> index
        self.plans: list[tuple] = []

    def channel(self, gap: int, key) -> tuple[int, object]:
        chans = self.channels.setdefault(gap, {})
        chans.setdefault(key, len(chans))
        return gap, key

    def finish(self, level: Level, gap_x: dict[int, float]) -> None:
        def cx(ch) -> float:
            gap, key = ch
            i = self.channels[gap][key]
            if gap == -1:
                return gap_x[-1] + CHANNEL_PITCH * (len(self.channels[gap]) - i)
            return gap_x[gap] + 12 + i * CHANNEL_PITCH

        for wire, plan in self.plans:
            s = level.boxes[wire.src[0]]
            d = level.boxes[wire.dst[0]]
            sx, sy = s.out_port(wire.src[1])
            dx, dy = d.in_port(wire.dst[1])
            kind = plan[0]
            pts = [(sx, sy)]
            if kind == "adjacent":
                _, ch = plan
                if abs(sy - dy) > 0.5:
                    x1 = cx(ch)
                    pts += [(x1, sy), (x1, dy)]
            else:
                _, ch1, lane, ch2 = plan
                if ch1 is not None:
                    x1 = cx(ch1)
                    pts += [(x1, sy), (x1, lane)]
                if ch2 is not None:
                    x2 = cx(ch2)
                    pts += [(x2, lane), (x2, dy)]
            pts.append((dx, dy))
            wire.points = pts


def _plan_routes(level: Level, columns: dict[int, list[Box]]) -> _Routes:
    """Give each wire its route: a channel (its own x, shared by one source's
    wires) in the gap after its source's column and before its target's, and,
    when it passes columns between, a horizontal lane at a y free of their
    boxes (the port's own row when that is free), feedback wires too."""
    routes = _Routes()
    used: list[tuple[float, int, int]] = []   # lanes taken: y, first and last column

    def blocked(lo: int, hi: int) -> list[tuple[float, float]]:
        spans = []
        for col in range(lo, hi + 1):
            for b in columns.get(col, []):
                spans.append((b.y - NAME_H - LANE_MARGIN, b.y + b.h + LANE_MARGIN))
        return sorted(spans)

    def free(y: float, spans, lo: int, hi: int, net) -> bool:
        if any(a < y < b for a, b in spans):
            return False
        return not any(abs(y - uy) < LANE_PITCH - 0.5 and not (hi < ulo or uhi < lo)
                       and unet != net for uy, ulo, uhi, unet in used)

    def lane(sy: float, dy: float, lo: int, hi: int, net) -> float:
        spans = blocked(lo, hi)
        for y in (sy, dy):
            if free(y, spans, lo, hi, net):
                return y
        bottom = max((b for _a, b in spans), default=0.0) + LANE_PITCH
        tops = [-NAME_H - LANE_MARGIN - LANE_PITCH, bottom] + [b + LANE_PITCH for _a, b in spans]
        best = None
        for top in tops:
            for k in range(1000):
                y = top + k * LANE_PITCH if top >= 0 else top - k * LANE_PITCH
                if not free(y, spans, lo, hi, net):
                    if any(a < y < b for a, b in spans):
                        break
                    continue
                cost = abs(y - sy) + abs(y - dy)
                if best is None or cost < best[0]:
                    best = (cost, y)
                break
        return best[1]

    for wire in level.wires:
        wire.points = None
        if wire.src is None:
            continue
        s = level.boxes[wire.src[0]]
        d = level.boxes[wire.dst[0]]
        sy = s.out_port(wire.src[1])[1]
        dy = d.in_port(wire.dst[1])[1]
        net = wire.src
        if d.column == s.column + 1:
            routes.plans.append((wire, ("adjacent", routes.channel(s.column, net))))
            continue
        if d.column > s.column:              # forward over columns between
            lo, hi = s.column + 1, d.column - 1
        else:                                # feedback: back over both columns
            lo, hi = d.column, s.column
        y = lane(sy, dy, lo, hi, net)
        used.append((y, lo, hi, net))
        ch1 = None if y == sy and d.column > s.column else routes.channel(s.column, net)
        ch2 = None if y == dy and d.column > s.column else \
            routes.channel(d.column - 1, ("in", wire.dst))
        routes.plans.append((wire, ("lane", ch1, y, ch2)))
    return routes


def crossings(level: Level) -> list[tuple[str, str]]:
    """(wire target, box) pairs where a wire's segment passes through the interior
    of a box other than its own source's and target's (for tests; should be empty)."""
    found = []
    for wire in level.wires:
        if not wire.points:
            continue
        ends = {wire.src[0], wire.dst[0]}
        for (x0, y0), (x1, y1) in zip(wire.points, wire.points[1:]):
            lo_x, hi_x, lo_y, hi_y = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
            for b in level.boxes.values():
                if b.name in ends:
                    continue
                if lo_x < b.x + b.w and b.x < hi_x + 1e-9 and lo_y < b.y + b.h \
                        and b.y < hi_y + 1e-9:
                    found.append((f"{wire.dst[0]}.{wire.dst[1]}", b.name))
    return found


def overlaps(level: Level) -> list[tuple[str, str]]:
    """Pairs of boxes whose rectangles intersect (for tests; should be empty)."""
    found = []
    items = list(level.boxes.values())
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h:
                found.append((a.name, b.name))
    return found
