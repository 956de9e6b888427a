"""The diagram of one network level, laid out without Qt: boxes, wires, connectors.

A *level* is a network seen at a prefix (``""`` the top, ``"cell_0_0."`` inside
a macro instance). Its boxes are the instances placed in it, plus one
pseudo-box for the level's inputs (the leftmost layer) and one for its
outputs (the rightmost). The layout is layered, as FBD editors and Graphviz's
*dot* draw data flow, left to right (:mod:`fbd.debug.layered` places the
boxes, :mod:`fbd.debug.routing` routes the wires in the channels between
layers):

- a wire runs from an output port (a box's right edge) to an input port
  (the left edge), always to a later layer; the graph is acyclic once the
  feedback wires are set apart (and the wires through a macro that run
  against the execution order, which a level of interleaved macros has);
- boxes are ordered in their layer to keep crossings few and placed so that
  wires run straight; the order of the level's inputs in their pseudo-box is
  free and follows the wires, its outputs keep their declaration order (the
  outputs box reads as the POU's declaration);
- wires are orthogonal: each net that bends in a gap has a vertical track of
  its own there (:func:`crossings` checks that no wire passes through a box);
- a **long wire** (over more than :data:`MAX_SPAN` layers), a feedback wire
  and a wire against the execution order are drawn as a named pair, as FBD
  editors draw them and PLCopen stores them (``connector`` and
  ``continuation``): a :class:`Connector` beside the source port carrying
  the net's name and a continuation of the same name beside each target,
  instead of a wire across the diagram.

:func:`measure` counts the wire crossings and the drawn wire length (the
figures in ``docs/debugger.md``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from fbd.network import Network, Ref

from .layered import Node, arrange, assign_layers
from .probe import literal_text
from .routing import plan_gaps, route_points

__all__ = ["Box", "Wire", "Connector", "Level", "layout_level", "overlaps", "crossings",
           "measure", "Metrics", "PORT_H", "HEADER_H", "COL_GAP", "ROW_GAP", "MAX_SPAN",
           "INPUTS", "OUTPUTS"]

PORT_H = 18        # the height of one port row
HEADER_H = 22      # the box's title row
COL_GAP = 110      # the narrowest gap between layers (wires and their value labels)
ROW_GAP = 30       # between boxes stacked in a layer (their names and wires pass there)
CHAR_W = 7.0       # an estimate of a character's width (monospace 9 pt)
MIN_W = 90
INPUTS = "<inputs>"
OUTPUTS = "<outputs>"
#: a wire over more layers than this is drawn as a connector pair
MAX_SPAN = 3

NAME_H = 14        # the instance name above a box
BOX_MARGIN = 8     # around a box, below its name
TRACK_PITCH = 7    # between the vertical tracks of a gap
TRACK_MARGIN = 10  # between a gap's edge zones and its first track
LABEL_ROOM = 62    # the right part of a gap, left free for the value labels
STUB = 8           # the wire between a port and its connector
CONNECTOR_H = 13
CONNECTOR_PAD = 14  # a connector's width beyond its name (the arrow)


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
    column: int = 0           # its layer, left to right
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
class Connector:
    """A named end of a long wire: ``kind`` "connector" beside the source port
    (one per net), "continuation" beside a target port (one per wire)."""
    name: str
    kind: str
    src: tuple[str, str]      # the net: (box, output port)
    x: float
    y: float                  # the middle of its row (the port's height)
    w: float
    h: float = CONNECTOR_H
    feedback: bool = False    # it carries the previous scan's value
    dst: tuple[str, str] | None = None    # a continuation's target port
    #: the short wire between the port and the connector
    stub: list[tuple[float, float]] = field(default_factory=list)

    @property
    def rect(self) -> tuple[float, float, float, float]:
        return self.x, self.y - self.h / 2, self.w, self.h


@dataclass
class Wire:
    """A wire from ``src`` (box name, output port) to ``dst`` (box name, input port),
    or a literal into an input (``src`` None, ``literal`` its value)."""
    src: tuple[str, str] | None
    dst: tuple[str, str]
    path: str | None          # the signal path whose value is shown beside the wire
    feedback: bool = False
    literal: object = None
    #: the route, scene points from the source's port to the target's (None: a
    #: literal, or a wire drawn as a connector pair)
    points: list[tuple[float, float]] | None = None
    #: the name of its connector pair, if it is drawn as one
    connector: str | None = None
    #: where its value label ends (on its right): before the target port, or
    #: before its continuation
    label_at: tuple[float, float] | None = None
    #: a literal's IEC text, as the target's type reads it (``TRUE``, ``T#3s``)
    text: str | None = None


@dataclass
class Level:
    net: Network
    prefix: str
    boxes: dict[str, Box] = field(default_factory=dict)
    wires: list[Wire] = field(default_factory=list)
    connectors: list[Connector] = field(default_factory=list)

    @property
    def width(self) -> float:
        ends = [b.x + b.w for b in self.boxes.values()] + [c.x + c.w for c in self.connectors]
        return max(ends, default=0.0)

    @property
    def height(self) -> float:
        ends = [b.y + b.h for b in self.boxes.values()] + [c.y + c.h for c in self.connectors]
        return max(ends, default=0.0)


def _src_key(ref: Ref) -> tuple[str, str]:
    if isinstance(ref.owner, Network):
        return INPUTS, ref.port
    return ref.owner.name, ref.port


def connector_name(src: tuple[str, str]) -> str:
    """The name a net's connector pair carries: its signal, relative to the level."""
    return src[1] if src[0] == INPUTS else f"{src[0]}.{src[1]}"


def layout_level(net: Network, prefix: str, order: list[str], signals, *,
                 connectors: bool = True, max_span: int = MAX_SPAN) -> Level:
    """Lay out ``net`` seen at ``prefix``; ``order`` is every block path in execution
    order, ``signals`` the program's path -> SignalInfo (for the wire labels).

    With ``connectors=False`` (a file format that has no use for them) long
    wires are routed all the way; feedback wires and wires against the
    execution order are then left without a route (``points`` None)."""
    level = _boxes_and_wires(net, prefix, order, signals)
    _size(level)
    boxes = level.boxes
    nodes = {name: _node(b) for name, b in boxes.items()}
    forward = _acyclic(level)
    assign_layers(list(nodes.values()),
                  [(nodes[w.src[0]], w.src[1], nodes[w.dst[0]], w.dst[1]) for w in forward])
    for name, b in boxes.items():
        b.column = nodes[name].layer
    paired = set()
    if connectors:
        routed = set(map(id, forward))
        for w in level.wires:
            if w.src is None:
                continue
            if id(w) not in routed or boxes[w.dst[0]].column - boxes[w.src[0]].column > max_span:
                w.connector = connector_name(w.src)
                paired.add(id(w))
    drawn = [w for w in forward if id(w) not in paired]
    layout = arrange(list(nodes.values()),
                     [(nodes[w.src[0]], w.src[1], nodes[w.dst[0]], w.dst[1]) for w in drawn])
    for name, b in boxes.items():
        n = nodes[name]
        b.y = n.y
        if n.free_ports:          # the pseudo-boxes' ports in the order found
            if b.kind == "inputs":
                b.outputs = sorted(b.outputs, key=n.out_ports.get)
            else:
                b.inputs = sorted(b.inputs, key=n.in_ports.get)
    _place_columns(level, layout, [w for w in level.wires if id(w) in paired])
    plans = plan_gaps(layout)
    _set_x(level, layout, plans)
    _routes(level, layout, plans, nodes, drawn)
    return level


def _acyclic(level: Level) -> list[Wire]:
    """The wires that run left to right: every wire but the feedback wires, less
    those that would close a loop (a level of macros whose blocks interleave, as
    2048's cells and the processing that reads them). Wires along the execution
    order go first, so it is a wire against it that a loop loses."""
    boxes = level.boxes
    wires = [w for w in level.wires if w.src is not None and not w.feedback
             and w.src[0] != w.dst[0]]
    along = [w for w in wires if boxes[w.src[0]].position < boxes[w.dst[0]].position]
    against = [w for w in wires if boxes[w.src[0]].position >= boxes[w.dst[0]].position]
    succ: dict[str, set[str]] = {name: set() for name in boxes}
    for w in along:
        succ[w.src[0]].add(w.dst[0])
    kept = list(along)
    for w in sorted(against, key=lambda w: boxes[w.src[0]].position - boxes[w.dst[0]].position):
        s, d = w.src[0], w.dst[0]
        if d in succ[s] or not _reaches(succ, d, s):
            succ[s].add(d)
            kept.append(w)
    return kept


def _reaches(succ: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        n = todo.pop()
        if n == goal:
            return True
        for m in succ[n]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return False


def _boxes_and_wires(net: Network, prefix: str, order: list[str], signals) -> Level:
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
                    tp = _literal_type(signals, target, inst, port)
                    level.wires.append(Wire(None, (name, port), None, literal=b.source,
                                            text=literal_text(tp, b.source)))
    for name, out in net.outputs.items():
        target = prefix + name
        if isinstance(out.source, Ref):
            skey = _src_key(out.source)
            spath = prefix + (skey[1] if skey[0] == INPUTS else f"{skey[0]}.{skey[1]}")
            level.wires.append(Wire(skey, (OUTPUTS, name), label(target, spath), out.feedback))
        else:
            info = signals.get(target)
            tp = info.type if info is not None else out.type
            level.wires.append(Wire(None, (OUTPUTS, name), None, literal=out.source,
                                    text=literal_text(tp, out.source)))
    return level


def _literal_type(signals, target: str, inst, port: str):
    """The type a literal is read as: its target's, as the compiler resolved it
    (a block's generic port), else a macro input's declared type."""
    info = signals.get(target)
    if info is not None:
        return info.type
    if inst.is_macro and port in inst.element.inputs:
        return inst.element.inputs[port][0]
    return None


def _size(level: Level) -> None:
    for b in level.boxes.values():
        longest_in = max((len(p) for p in b.inputs), default=0)
        longest_out = max((len(p) for p in b.outputs), default=0)
        title = max(len(b.title), len(b.name)) + 2
        b.w = max(MIN_W, (longest_in + longest_out + 3) * CHAR_W, title * CHAR_W)
        b.h = HEADER_H + max(len(b.inputs), len(b.outputs), 1) * PORT_H + 4


def _node(b: Box) -> Node:
    pseudo = b.kind in ("inputs", "outputs")
    return Node(b.name, height=b.h, above=0.0 if pseudo else NAME_H + BOX_MARGIN,
                below=BOX_MARGIN,
                in_ports={p: HEADER_H + (i + 0.5) * PORT_H for i, p in enumerate(b.inputs)},
                out_ports={p: HEADER_H + (i + 0.5) * PORT_H for i, p in enumerate(b.outputs)},
                free_ports=b.kind == "inputs", pin={"inputs": "first", "outputs": "last"}.get(b.kind),
                rank=b.position)


def _text_w(text: str) -> float:
    return len(text) * CHAR_W + CONNECTOR_PAD


class _Columns:
    """Where each layer's boxes sit in x, relative to the layer's left edge, and
    the zones the connectors need on either side of it."""

    def __init__(self, n: int):
        self.width = [0.0] * n
        self.right_zone = [0.0] * n     # connectors right of the layer's boxes
        self.left_zone = [0.0] * n      # continuations left of them
        self.x = [0.0] * n              # the layer's left edge, once known


def _place_columns(level: Level, layout, paired: list[Wire]) -> None:
    boxes = level.boxes
    cols = _Columns(len(layout.layers))
    for b in boxes.values():
        cols.width[b.column] = max(cols.width[b.column], b.w)
    level._cols = cols                                    # read by _set_x and _routes
    level._paired = paired
    for w in paired:
        s, d = boxes[w.src[0]], boxes[w.dst[0]]
        name_w = _text_w(w.connector)
        s_right = _offset(s, cols) + s.w
        cols.right_zone[s.column] = max(cols.right_zone[s.column],
                                        s_right - cols.width[s.column] + STUB + name_w + 4)
        d_left = _offset(d, cols)
        cols.left_zone[d.column] = max(cols.left_zone[d.column], STUB + name_w + 4 - d_left)


def _offset(b: Box, cols: _Columns) -> float:
    """A box's x from its layer's left edge: blocks centred, pseudo-boxes at the edge."""
    if b.kind == "inputs":
        return cols.width[b.column] - b.w
    if b.kind == "outputs":
        return 0.0
    return (cols.width[b.column] - b.w) / 2


def _gap_width(cols: _Columns, plans, gap: int) -> float:
    tracks = plans[gap].tracks if gap < len(plans) else 0
    inner = 2 * TRACK_MARGIN + max(tracks - 1, 0) * TRACK_PITCH + LABEL_ROOM
    return cols.right_zone[gap] + max(COL_GAP, inner) + \
        (cols.left_zone[gap + 1] if gap + 1 < len(cols.width) else 0.0)


def _set_x(level: Level, layout, plans) -> None:
    cols = level._cols
    x = cols.left_zone[0] if cols.width else 0.0
    for i in range(len(cols.width)):
        cols.x[i] = x
        x += cols.width[i]
        if i + 1 < len(cols.width):
            x += _gap_width(cols, plans, i)
    for b in level.boxes.values():
        b.x = cols.x[b.column] + _offset(b, cols)


def _routes(level: Level, layout, plans, nodes, drawn: list[Wire]) -> None:
    cols = level._cols
    boxes = level.boxes

    def track_x(gap: int, track: int) -> float:
        return cols.x[gap] + cols.width[gap] + cols.right_zone[gap] + TRACK_MARGIN \
            + track * TRACK_PITCH

    def left_x(n: Node, port: str) -> float:
        if n.dummy:
            return cols.x[n.layer] + cols.width[n.layer]
        return boxes[n.key].out_port(port)[0]

    def right_x(n: Node, port: str) -> float:
        if n.dummy:
            return cols.x[n.layer]
        return boxes[n.key].in_port(port)[0]

    for w in level.wires:
        w.points = None
        if w.src is not None and w.connector is None:
            w.label_at = boxes[w.dst[0]].in_port(w.dst[1])
    for w in drawn:
        chain = layout.chains[(w.src[0], w.src[1], w.dst[0], w.dst[1])]
        w.points = route_points(chain, plans, track_x, left_x, right_x)
        # the router works in the nodes' ports: pin both ends to the boxes' exact points
        w.points[0] = boxes[w.src[0]].out_port(w.src[1])
        w.points[-1] = boxes[w.dst[0]].in_port(w.dst[1])
    for w in level.wires:
        if w.src is None:
            w.label_at = boxes[w.dst[0]].in_port(w.dst[1])
    sources: dict[tuple[str, str], Connector] = {}
    for w in level._paired:
        if w.src not in sources:
            sx, sy = boxes[w.src[0]].out_port(w.src[1])
            c = Connector(w.connector, "connector", w.src, sx + STUB, sy, _text_w(w.connector),
                          stub=[(sx, sy), (sx + STUB, sy)])
            sources[w.src] = c
            level.connectors.append(c)
        sources[w.src].feedback = sources[w.src].feedback or w.feedback
        dx, dy = boxes[w.dst[0]].in_port(w.dst[1])
        width = _text_w(w.connector)
        c = Connector(w.connector, "continuation", w.src, dx - STUB - width, dy, width,
                      feedback=w.feedback, dst=w.dst, stub=[(dx - STUB, dy), (dx, dy)])
        level.connectors.append(c)
        w.label_at = (c.x, dy)
    del level._cols, level._paired


# =========================================================================== checks
def crossings(level: Level) -> list[tuple[str, str]]:
    """(wire target, box) pairs where a wire's segment passes through the interior
    of a box other than its own source's and target's, or through a connector
    (for tests; should be empty)."""
    found = []
    rects = [(b.name, b.rect) for b in level.boxes.values()]
    rects += [(f"{c.kind}:{c.name}", c.rect) for c in level.connectors]
    for wire in level.wires:
        if not wire.points:
            continue
        ends = {wire.src[0], wire.dst[0], f"connector:{wire.connector or connector_name(wire.src)}"}
        for (x0, y0), (x1, y1) in zip(wire.points, wire.points[1:]):
            lo_x, hi_x, lo_y, hi_y = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
            for name, (bx, by, bw, bh) in rects:
                if name in ends:
                    continue
                if lo_x < bx + bw and bx < hi_x + 1e-9 and lo_y < by + bh and by < hi_y + 1e-9:
                    found.append((f"{wire.dst[0]}.{wire.dst[1]}", name))
    return found


def overlaps(level: Level) -> list[tuple[str, str]]:
    """Pairs of boxes (and connectors) whose rectangles intersect (for tests;
    should be empty)."""
    found = []
    items = [(b.name, b.rect) for b in level.boxes.values()]
    items += [(f"{c.kind}:{c.name}>{c.dst}", c.rect) for c in level.connectors]
    for i, (an, (ax, ay, aw, ah)) in enumerate(items):
        for bn, (bx, by, bw, bh) in items[i + 1:]:
            if ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah:
                found.append((an, bn))
    return found


@dataclass(frozen=True)
class Metrics:
    """How readable a level's drawing is: ``crossings`` (points where wires of two
    nets cross), ``length`` (the drawn length of all wires, each net's shared
    runs once), ``connectors`` (wires drawn as connector pairs instead)."""
    crossings: int
    length: float
    connectors: int


def _segments(level: Level) -> dict:
    """Per net: its horizontal runs by y and its vertical runs by x."""
    nets: dict = {}

    def add(net, pts):
        h, v = nets.setdefault(net, ({}, {}))
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            if abs(y0 - y1) < 1e-6 and abs(x0 - x1) > 1e-6:
                h.setdefault(round(y0, 3), []).append((min(x0, x1), max(x0, x1)))
            elif abs(x0 - x1) < 1e-6 and abs(y0 - y1) > 1e-6:
                v.setdefault(round(x0, 3), []).append((min(y0, y1), max(y0, y1)))
    for w in level.wires:
        if w.points:
            add(w.src, w.points)
    for c in level.connectors:
        add(c.src, c.stub)
    for h, v in nets.values():
        for runs in (h, v):
            for k, spans in runs.items():
                runs[k] = _merge(spans)
    return nets


def _merge(spans):
    spans = sorted(spans)
    out = [list(spans[0])]
    for a, b in spans[1:]:
        if a <= out[-1][1] + 1e-6:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [tuple(s) for s in out]


def measure(level: Level) -> Metrics:
    """The level's :class:`Metrics` (its crossings counted exactly, segment by segment)."""
    nets = _segments(level)
    horizontal = [(y, a, b, net) for net, (h, _v) in nets.items()
                  for y, spans in h.items() for a, b in spans]
    vertical = [(x, a, b, net) for net, (_h, v) in nets.items()
                for x, spans in v.items() for a, b in spans]
    vertical.sort()
    xs = [v[0] for v in vertical]
    count = 0
    for y, a, b, net in horizontal:
        for _x, lo, hi, vnet in vertical[bisect_right(xs, a + 1e-6):bisect_left(xs, b - 1e-6)]:
            if vnet != net and lo + 1e-6 < y < hi - 1e-6:
                count += 1
    length = sum(b - a for h, v in nets.values() for runs in (h, v)
                 for spans in runs.values() for a, b in spans)
    pairs = sum(1 for c in level.connectors if c.kind == "continuation")
    return Metrics(count, round(length), pairs)
