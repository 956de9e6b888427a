"""An FBD body as the editors draw it: each element placed where the debugger's
layout (:mod:`fbd.debug.layout`) puts it, numbered with ``executionOrderId`` so
Beremiz and OpenPLC run it in our order, and its wires routed.

Boxes go in columns by data flow, ordered to keep crossings few; wires are routed
in the channels between the columns. The variables ``fb_N`` that carry feedback
wires are written last (their readers see the previous scan) and placed beside
their source, clear of what is already drawn. :class:`DiagramMixin` is part of
:class:`~.pou_writer.PouWriter`.
"""

from __future__ import annotations

import json

from lxml import etree

from ..block import Block
from ..debug.layout import INPUTS, OUTPUTS, PORT_H, layout_level
from ..network import Network, Ref
from .emit import DATA_NAME, DATA_NS, P, literal_text, sub

#: IEC edition-3 names written with the edition-2 names Beremiz and matiec know
EDITION2_NAMES = {"MUL_TIME": "MULTIME", "DIV_TIME": "DIVTIME"}

VAR_H = PORT_H                     # the height of an in/out variable box
#: the layers a wire may cross before it is drawn as a connector pair. More than the
#: debugger's 3: Beremiz's generator looks each continuation's connector up through
#: every element of the POU, so pairs cost it more than wires (Sudoku has 670 pairs
#: at 3, 90 at 8), while a longer wire costs the layout a node per layer it crosses
MAX_SPAN = 8


class DiagramMixin:
    def draw_body(self) -> None:
        """The elements of the POU's FBD body (``self.fbd``), placed and wired."""
        self.positions = []
        self._body()
        _into_view(self.positions)

    def _body(self):
        net = self.net
        lay_net = Network(net.name)
        for name, (tp, _d) in net.inputs.items():
            lay_net.input(name, tp)
        insts = {}
        for name in self.order:
            insts[name] = lay_net.add(name, self.nodes[name].element)

        def ref(src):
            if src[0] == "in":
                return Ref(lay_net, src[1], "netin")
            if src[0] == "out":
                return insts[src[1]].port(src[2])
            return src[1]

        for name in self.order:
            for port, (src, fb) in self.nodes[name].bindings.items():
                if not fb or src[0] == "lit":
                    lay_net.connect(ref(src), insts[name].port(port))
        for name, (src, fb) in self.outputs.items():
            lay_net.output(name, ref(src) if not fb or src[0] == "lit" else 0)
        # A wire over more than MAX_SPAN columns is a connector pair, as the editors draw
        # long wires: routed across, it would take a track in every column between (the
        # layout grew with wires x columns, quadratic in size).
        level = layout_level(lay_net, "", list(self.order), {}, connectors=True,
                             max_span=MAX_SPAN)
        routes = {w.dst: w.points for w in level.wires if w.points}
        self.level = level

        ids = {}       # source -> localId of the element it comes from
        self.placed = _Occupied()   # what is drawn so far, for the feedback variables
        # inputs, at the layout's inputs box
        if INPUTS in level.boxes:
            box = level.boxes[INPUTS]
            for name in net.inputs:
                x, y = box.out_port(name)
                ids[("in", name)] = self._in_var(name, x, y, right=True)
        order_id = 0
        pins = {}      # (node, port) -> absolute position of its pin
        blocks = {}
        for name in self.order:
            node = self.nodes[name]
            box = level.boxes[name]
            order_id += 1
            blk = sub(self.fbd, "block", localId=self.lid(), typeName=self._type_name(node),
                       instanceName=self.iname[name], executionOrderId=order_id,
                       width=_n(box.w), height=_n(box.h))
            blocks[name] = blk
            self._at(blk, box.x, box.y)
            self.placed.add((box.x, box.y - 14, box.w, box.h + 14))   # with its name
            sub(blk, "inputVariables")
            sub(blk, "inOutVariables")
            outs = sub(blk, "outputVariables")
            for port in box.outputs:
                v = sub(outs, "variable", formalParameter=port)
                px, py = box.out_port(port)
                sub(sub(v, "connectionPointOut"), "relPosition", x=_n(px - box.x),
                     y=_n(py - box.y))
                pins[(name, port)] = (px, py)
            data = None if isinstance(node.element, Network) or name in self.native \
                else _block_data(node.element)
            if data is not None:
                ad = sub(blk, "addData")
                d = sub(ad, "data", name=DATA_NAME, handleUnknown="preserve")
                etree.SubElement(d, "{%s}block" % DATA_NS, nsmap={"fbd": DATA_NS}, **data)
        continuations = self._connectors(level, ids, blocks)
        # wires into the blocks
        fb_readers = []
        for name in self.order:
            node, box, blk = self.nodes[name], level.boxes[name], blocks[name]
            ins = blk.find(P + "inputVariables")
            for port in box.inputs:
                v = sub(ins, "variable", formalParameter=port)
                cpi = sub(v, "connectionPointIn")
                px, py = box.in_port(port)
                sub(cpi, "relPosition", x=_n(px - box.x), y=_n(py - box.y))
                if port not in node.bindings:
                    continue
                src, fb = node.bindings[port]
                if (name, port) in continuations:
                    lid, stub = continuations[(name, port)]
                    self._points(sub(cpi, "connection", refLocalId=lid), list(reversed(stub)))
                    continue
                self._connect(cpi, src, fb, (px, py), routes.get((name, port)), ids, pins,
                              self.ex.target_type(node, port), blocks)
                if fb and src[0] != "lit":
                    fb_readers.append(src)
        # outputs, at the layout's outputs box
        if OUTPUTS in level.boxes:
            box = level.boxes[OUTPUTS]
            for name, (src, fb) in self.outputs.items():
                x, y = box.in_port(name)
                order_id += 1
                ov = sub(self.fbd, "outVariable", localId=self.lid(), executionOrderId=order_id,
                          height=VAR_H, width=_n(_text_w(name)))
                self._at(ov, x, y - VAR_H / 2)
                self.placed.add((x, y - VAR_H / 2, _text_w(name), VAR_H))
                cpi = sub(ov, "connectionPointIn")
                sub(cpi, "relPosition", x="0", y=_n(VAR_H / 2))
                if (OUTPUTS, name) in continuations:
                    lid, stub = continuations[(OUTPUTS, name)]
                    self._points(sub(cpi, "connection", refLocalId=lid), list(reversed(stub)))
                else:
                    self._connect(cpi, src, fb, (x, y), routes.get((OUTPUTS, name)), ids, pins,
                                  self._output_type(name), blocks)
                sub(ov, "expression").text = name
        # feedback variables are written last: their readers see the previous scan; so
        # are the inputs a block writes (Network.store: the block runs last of all)
        stores = self.net.stores.items() if self.prefix == "" else ()
        for src, var in [*self.fb.items(), *((("out", *at), name) for name, at in stores)]:
            if src[0] == "in":
                sx, sy = level.boxes[INPUTS].out_port(src[1])
            else:
                sx, sy = pins[(src[1], src[2])]
            w = _text_w(var)
            x, y = self._free_spot(sx + 8, sy, w)   # beside its source, clear of the rest
            order_id += 1
            ov = sub(self.fbd, "outVariable", localId=self.lid(), executionOrderId=order_id,
                      height=VAR_H, width=_n(w))
            self._at(ov, x, y - VAR_H / 2)
            cpi = sub(ov, "connectionPointIn")
            sub(cpi, "relPosition", x="0", y=_n(VAR_H / 2))
            c = sub(cpi, "connection", refLocalId=ids[src] if src[0] == "in"
                     else blocks[src[1]].get("localId"))
            if src[0] == "out":
                c.set("formalParameter", src[2])
            self._points(c, [(x, y), (sx + 4, y), (sx + 4, sy), (sx, sy)])
            sub(ov, "expression").text = var

    def _connectors(self, level, ids, blocks) -> dict:
        """The connector and continuation elements of the wires the layout drew as
        pairs: each net's connector beside its source, wired to it, a continuation
        beside each target. Returns (target box, port) -> (continuation localId, its
        stub from the continuation to the pin)."""
        names = {}         # net -> the pair's name: an identifier, unique in the POU
        taken = set()
        out = {}
        for c in level.connectors:
            if c.src not in names:
                base = c.src[1] if c.src[0] == INPUTS else f"{c.src[0]}_{c.src[1]}"
                name, k = base, 1
                while name.upper() in taken:
                    k += 1
                    name = f"{base}_{k}"
                taken.add(name.upper())
                names[c.src] = name
            name = names[c.src]
            top = c.y - c.h / 2
            self.placed.add((c.x, top, c.w, c.h))
            lid = self.lid()
            el = sub(self.fbd, c.kind, name=name, localId=lid, height=_n(c.h), width=_n(c.w))
            self._at(el, c.x, top)
            if c.kind == "continuation":
                sub(sub(el, "connectionPointOut"), "relPosition", x=_n(c.w), y=_n(c.h / 2))
                out[c.dst] = (lid, c.stub)
                continue
            cpi = sub(el, "connectionPointIn")
            sub(cpi, "relPosition", x="0", y=_n(c.h / 2))
            if c.src[0] == INPUTS:
                conn = sub(cpi, "connection", refLocalId=ids[("in", c.src[1])])
            else:
                conn = sub(cpi, "connection", refLocalId=blocks[c.src[0]].get("localId"),
                           formalParameter=c.src[1])
            self._points(conn, list(reversed(c.stub)))
        return out

    def _free_spot(self, x, y, w):
        """The nearest (x, y) at or below the given point where a variable box of width
        ``w`` overlaps nothing already drawn."""
        for k in range(2000):
            yy = y + k * (VAR_H + 2)
            rect = (x, yy - VAR_H / 2, w, VAR_H)
            if not self.placed.overlaps(rect):
                self.placed.add(rect)
                return x, yy
        return x, y  # pragma: no cover - a column of 2000 variables

    def _type_name(self, node) -> str:
        if isinstance(node.element, Network):
            return self.sub_names[node.name]
        if node.name in self.native:
            return self.native[node.name]
        return EDITION2_NAMES.get(node.element.name, node.element.name)

    def _in_var(self, expr, x, y, right=False) -> int:
        """An inVariable whose connection point is at (x, y) (its right edge)."""
        lid = self.lid()
        w = _text_w(expr)
        iv = sub(self.fbd, "inVariable", localId=lid, height=VAR_H, width=_n(w))
        self._at(iv, x - w, y - VAR_H / 2)
        self.placed.add((x - w, y - VAR_H / 2, w, VAR_H))
        sub(sub(iv, "connectionPointOut"), "relPosition", x=_n(w), y=_n(VAR_H / 2))
        sub(iv, "expression").text = expr
        return lid

    def _connect(self, cpi, src, fb, at, points, ids, pins, tp, blocks) -> None:
        x, y = at
        if src[0] == "lit":
            text = literal_text(src[1], tp)
            lid = self._in_var(text, x - 8, y)
            c = sub(cpi, "connection", refLocalId=lid)
            self._points(c, [(x, y), (x - 8, y)])
            return
        if fb:
            var = self.fb[src]
            lid = self._in_var(var, x - 8, y)
            c = sub(cpi, "connection", refLocalId=lid)
            self._points(c, [(x, y), (x - 8, y)])
            return
        if src[0] == "in":
            c = sub(cpi, "connection", refLocalId=ids[src])
            start = self.level.boxes[INPUTS].out_port(src[1])
        else:
            c = sub(cpi, "connection", refLocalId=blocks[src[1]].get("localId"),
                     formalParameter=src[2])
            start = pins[(src[1], src[2])]
        if points:
            pts = list(reversed(points))
        else:   # an orthogonal route: along the consumer's row, across, to the source
            mx = (x + start[0]) / 2 if start[0] < x else x - 8
            pts = [(x, y), (mx, y), (mx, start[1]), start]
        self._points(c, pts)

    def _points(self, c, pts) -> None:
        for px, py in pts:
            self._at(c, px, py)

    def _at(self, parent, x, y) -> None:
        """A ``position`` at (x, y), written with the others once the body is drawn."""
        self.positions.append((sub(parent, "position"), x, y))



def _into_view(positions, margin: float = 20) -> None:
    """Write the body's absolute positions, shifted so none is above or left of
    ``margin``: wires routed around the top row can go negative, and an editor's
    canvas starts at 0 (relative pin positions stay as they are)."""
    if not positions:
        return
    dx = max(0.0, margin - min(x for _el, x, _y in positions))
    dy = max(0.0, margin - min(y for _el, _x, y in positions))
    for el, x, y in positions:
        el.set("x", _n(x + dx))
        el.set("y", _n(y + dy))


class _Occupied:
    """Rectangles (x, y, w, h) in buckets of a grid, so a test for overlap looks at
    the few near it, not at every element of a large body."""

    CELL = 200.0

    def __init__(self):
        self.cells: dict[tuple[int, int], list] = {}

    def _keys(self, rect):
        x, y, w, h = rect
        for i in range(int(x // self.CELL), int((x + w) // self.CELL) + 1):
            for j in range(int(y // self.CELL), int((y + h) // self.CELL) + 1):
                yield i, j

    def add(self, rect) -> None:
        for key in self._keys(rect):
            self.cells.setdefault(key, []).append(rect)

    def overlaps(self, rect) -> bool:
        return any(_overlap(rect, r) for key in self._keys(rect) for r in self.cells.get(key, ()))


def _overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]



def _block_data(block: Block):
    """Attributes for the addData of a block: bound types and non-default parameters."""
    data = {}
    if block.bound_types:
        data["types"] = ",".join(f"{k}={v.name}" for k, v in block.bound_types.items())
    params = {k: v for k, v in block.p.items() if type(block).params.get(k) != v}
    if params:
        data["params"] = json.dumps(params, sort_keys=True)
    return data or None


def _text_w(text: str) -> float:
    return max(30.0, 7.0 * len(text) + 12)


def _n(x) -> str:
    """A coordinate as the XSD's decimal (no exponent)."""
    v = round(float(x), 1)
    return str(int(v)) if v == int(v) else f"{v:.1f}"


__all__ = ["DiagramMixin", "EDITION2_NAMES"]
