"""A layered (Sugiyama-style) placement of boxes with ports, for the diagram layout.

The four classic phases (Sugiyama, Tagawa and Toda 1981; the names and the
order of the steps as in Gansner et al.'s *dot* paper, 1993), adapted to
function block diagrams, where a wire leaves a box at an output port on its
right edge and enters at an input port on its left edge:

1. **Layers.** The graph is acyclic once feedback wires are left out (the
   caller leaves them out: they are drawn as connector pairs). Every node
   first gets its longest path from the sources (each wire runs at least one
   layer to the right); then nodes are pulled towards the layers of their
   neighbours, where that shortens the wires, without breaking that rule
   (a cheap stand-in for dot's network simplex: it removes most of the
   needless span longest-path layering leaves).
2. **Dummy nodes.** A wire over more than one layer passes each layer between
   on a dummy node, one per net (source port) and layer, so wires from one
   port share their run.
3. **Crossings.** Nodes are ordered in each layer by alternating sweeps
   (left to right, right to left) that sort a layer by the *barycenter* or
   the *median* of its neighbours' port positions in the fixed layer
   (port-aware: a node's position is where its port would have to be to meet
   the wire straight), then adjacent swaps (*transpose*) where they remove
   crossings; the best order seen is kept. A large level gets fewer sweeps
   (:func:`sweeps_for`), so the time stays linear in its size. Crossings
   between two layers are counted exactly at the ports (an inversion count),
   wires of one net never cross each other. A node with ``free_ports`` (the
   level's inputs) may reorder its ports; a block's pins are not.
4. **Coordinates.** In each layer the order is fixed; the y of the nodes is
   chosen so that wires run as straight as they can: each node wants the y
   where its ports meet its neighbours' (the median over its wires, dummy
   chains weighted more so long wires stay straight), and the layer takes the
   least-squares positions that keep the order and the gaps (isotonic
   regression, pool adjacent violators). Sweeps alternate directions.

Routing the wires in the gaps between layers is :mod:`fbd.debug.routing`.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field

__all__ = ["Node", "Edge", "Layout", "assign_layers", "arrange", "count_crossings"]


@dataclass(eq=False)
class Node:
    """A box (or a dummy) to place. Port offsets are from the node's y (its top)."""
    key: object
    height: float = 0.0
    above: float = 0.0                 # room it needs above its y (a box's name)
    below: float = 0.0                 # room it needs below y + height
    in_ports: dict = field(default_factory=dict)    # port -> y offset
    out_ports: dict = field(default_factory=dict)
    free_ports: bool = False           # its ports may be reordered (the level's inputs)
    pin: str | None = None             # "first" or "last": the layer it must be in
    rank: int = 0                      # an order hint: execution order
    dummy: bool = False
    net: object = None                 # a dummy's net (source node key, port)
    layer: int = 0
    y: float = 0.0
    #: side -> (the ports dict, its ports in order): a ports dict is replaced, never
    #: changed in place, so the order is sorted again only when it is replaced
    orders: dict = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class Edge:
    src: Node
    src_port: str
    dst: Node
    dst_port: str

    @property
    def net(self):
        return self.src.net if self.src.dummy else (self.src.key, self.src_port)


@dataclass
class Layout:
    layers: list[list[Node]]
    edges: list[Edge]                  # every edge spans exactly one layer
    chains: dict                       # original (src, src_port, dst, dst_port) -> its edges


PORT_PITCH = 18.0                      # a free box's port spacing (its ports are reordered)
DUMMY_ROOM = 8.0                       # the height a dummy's wire needs in its layer
SWEEPS = 12
#: node-sweeps a level's crossing reduction may spend: a level of more nodes (boxes and
#: dummies) than SWEEP_BUDGET / SWEEPS gets fewer sweeps, down to MIN_SWEEPS, so that
#: its time grows linearly with its size (on a random network of 10,000 blocks, 2
#: sweeps leave 2.5 % more crossings than 4, in three quarters of the time); the
#: placement's sweeps likewise, down to MIN_COORD_SWEEPS
SWEEP_BUDGET = 60_000
MIN_SWEEPS = 2
COORD_SWEEPS = 8
MIN_COORD_SWEEPS = 4


def arrange(nodes: list[Node], edges: list[tuple[Node, str, Node, str]],
            port_pitch: float = PORT_PITCH) -> Layout:
    """Order and place ``nodes`` whose layers :func:`assign_layers` gave, for
    ``edges`` (src, port, dst, port) running left to right; returns the layers
    with their dummies and the edges split into one-layer steps."""
    layout = _split(nodes, edges)
    _order(layout, port_pitch)
    _coordinates(layout)
    return layout


# =========================================================================== layers
def assign_layers(nodes: list[Node], edges) -> None:
    """Give every node its ``layer`` for ``edges`` (src, port, dst, port), a DAG."""
    succ: dict[Node, list[Node]] = {n: [] for n in nodes}
    pred: dict[Node, list[Node]] = {n: [] for n in nodes}
    for s, _sp, d, _dp in edges:
        succ[s].append(d)
        pred[d].append(s)
    topo = _topological(nodes, succ, pred)
    first = [n for n in nodes if n.pin == "first"]
    start = 1 if first else 0
    for n in topo:
        n.layer = 0 if n.pin == "first" else max((p.layer + 1 for p in pred[n]), default=start)
    # pull nodes towards their neighbours where that shortens the wires: a node
    # between its latest predecessor + 1 and its earliest successor - 1 goes to
    # the median of its wires' other ends (moving right first: longest path
    # packs everything to the left)
    for _ in range(4):
        moved = False
        for n in reversed(topo):
            if n.pin is not None:
                continue
            lo = max((p.layer + 1 for p in pred[n]), default=start)
            hi = min((s.layer - 1 for s in succ[n]), default=None)
            if hi is None:
                continue            # a sink stays where it is (next to its inputs)
            wants = sorted([p.layer + 1 for p in pred[n]] + [s.layer - 1 for s in succ[n]])
            target = wants[len(wants) // 2]
            best = min(max(target, lo), hi)
            if best != n.layer and _span(n, best, pred, succ) < _span(n, n.layer, pred, succ):
                n.layer = best
                moved = True
        if not moved:
            break
    last = [n for n in nodes if n.pin == "last"]
    if last:
        top = max((n.layer for n in nodes if n.pin != "last"), default=0)
        for n in last:
            n.layer = top + 1


def _span(n: Node, layer: int, pred, succ) -> int:
    return sum(layer - p.layer for p in pred[n]) + sum(s.layer - layer for s in succ[n])


def _topological(nodes, succ, pred) -> list[Node]:
    indegree = {n: len(pred[n]) for n in nodes}
    # the lowest rank first; of equal ranks, the one that became ready last
    seq = itertools.count()
    ready = [(n.rank, -next(seq), n) for n in nodes if indegree[n] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        n = heapq.heappop(ready)[2]
        out.append(n)
        for s in succ[n]:
            indegree[s] -= 1
            if indegree[s] == 0:
                heapq.heappush(ready, (s.rank, -next(seq), s))
    if len(out) != len(nodes):
        raise ValueError("the wires given to the layered layout form a cycle")
    return out


# =========================================================================== dummies
def _split(nodes: list[Node], edges) -> Layout:
    nlayers = max((n.layer for n in nodes), default=0) + 1
    layers: list[list[Node]] = [[] for _ in range(nlayers)]
    for n in sorted(nodes, key=lambda n: n.rank):
        layers[n.layer].append(n)
    dummies: dict[tuple, Node] = {}
    out: dict[tuple, Edge] = {}
    chains = {}
    for s, sp, d, dp in edges:
        net = (s.key, sp)
        chain = []
        prev, prev_port = s, sp
        for layer in range(s.layer + 1, d.layer):
            dummy = dummies.get((net, layer))
            if dummy is None:
                dummy = Node(("dummy", net, layer), above=DUMMY_ROOM / 2, below=DUMMY_ROOM / 2,
                             in_ports={"": 0.0}, out_ports={"": 0.0}, rank=d.rank,
                             dummy=True, net=net, layer=layer)
                dummies[(net, layer)] = dummy
                layers[layer].append(dummy)
            chain.append(_edge(out, prev, prev_port, dummy, ""))
            prev, prev_port = dummy, ""
        chain.append(_edge(out, prev, prev_port, d, dp))
        chains[(s.key, sp, d.key, dp)] = chain
    return Layout(layers, list(out.values()), chains)


def _edge(out: dict, s: Node, sp: str, d: Node, dp: str) -> Edge:
    key = (id(s), sp, id(d), dp)
    e = out.get(key)
    if e is None:
        e = out[key] = Edge(s, sp, d, dp)
    return e


# =========================================================================== crossings
def _port_order(n: Node, side: str) -> list[str]:
    ports = n.in_ports if side == "in" else n.out_ports
    cached = n.orders.get(side)
    if cached is not None and cached[0] is ports:
        return cached[1]
    order = sorted(ports, key=ports.get)
    n.orders[side] = (ports, order)
    return order


def _stack(layer: list[Node]) -> dict[Node, float]:
    """The y each node of ``layer`` has when stacked tightly in order (for sorting)."""
    y, ys = 0.0, {}
    for n in layer:
        y += n.above
        ys[n] = y
        y += n.height + n.below
    return ys


def _between(layout: Layout) -> list[list[Edge]]:
    """The edges leaving each layer (to the next one)."""
    out: list[list[Edge]] = [[] for _ in layout.layers]
    for e in layout.edges:
        out[e.src.layer].append(e)
    return out


def count_crossings(left: list[Node], right: list[Node], edges: list[Edge]) -> int:
    """Crossings of ``edges`` between two ordered layers, counted at the ports;
    edges from one port (one net) never cross each other."""
    pos_l = _positions(left, "out")
    pos_r = _positions(right, "in")
    pairs = sorted((pos_l[e.src, e.src_port], pos_r[e.dst, e.dst_port]) for e in edges)
    return _inversions(pairs)


def _positions(layer: list[Node], side: str) -> dict:
    pos, k = {}, 0
    for n in layer:
        for p in _port_order(n, side):
            pos[n, p] = k
            k += 1
    return pos


def _inversions(pairs: list[tuple[int, int]]) -> int:
    """Pairs (a1 < a2, b1 > b2): a Fenwick tree over b, a visited in order; pairs
    with the same a (one port) are not counted."""
    if not pairs:
        return 0
    size = max(b for _a, b in pairs) + 2
    tree = [0] * (size + 1)
    total = 0
    seen = 0
    i = 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        for _a, b in pairs[i:j]:       # count against the earlier ports only
            k, below = b + 1, 0
            while k > 0:
                below += tree[k]
                k -= k & -k
            total += seen - below
        for _a, b in pairs[i:j]:
            k = b + 1
            while k <= size:
                tree[k] += 1
                k += k & -k
            seen += 1
        i = j
    return total


def _total(layout: Layout, between) -> int:
    layers = layout.layers
    return sum(count_crossings(layers[i], layers[i + 1], between[i])
               for i in range(len(layers) - 1))


def _order(layout: Layout, pitch: float) -> None:
    layers = layout.layers
    between = _between(layout)
    into: list[list[Edge]] = [[] for _ in layers]
    for e in layout.edges:
        into[e.dst.layer].append(e)
    best = _snapshot(layers)
    best_count = _total(layout, between)
    for sweep in range(sweeps_for(sum(len(layer) for layer in layers))):
        if best_count == 0:
            break
        use_median = sweep % 4 >= 2
        if sweep % 2 == 0:
            for i in range(1, len(layers)):
                _sort_layer(layers[i], layers[i - 1], into[i], "in", use_median, pitch)
        else:
            for i in range(len(layers) - 2, -1, -1):
                _sort_layer(layers[i], layers[i + 1], between[i], "out", use_median, pitch)
        _transpose(layers, between)
        count = _total(layout, between)
        if count < best_count:
            best, best_count = _snapshot(layers), count
    _restore(layers, best)


def sweeps_for(nodes: int) -> int:
    """The sweeps the crossing reduction makes on a level of ``nodes`` nodes (boxes
    and dummies)."""
    return max(MIN_SWEEPS, min(SWEEPS, SWEEP_BUDGET // max(nodes, 1)))


def _snapshot(layers):
    return [(list(layer), [(n, dict(n.in_ports), dict(n.out_ports)) for n in layer if n.free_ports])
            for layer in layers]


def _restore(layers, snap) -> None:
    for layer, (order, ports) in zip(layers, snap):
        layer[:] = order
        for n, ins, outs in ports:
            n.in_ports, n.out_ports = ins, outs


def _sort_layer(layer: list[Node], fixed: list[Node], edges: list[Edge], side: str,
                use_median: bool, pitch: float) -> None:
    """Sort ``layer`` (its ``side`` ports face ``fixed``) by where its nodes' ports
    would meet their wires straight; free ports are reordered first."""
    ys = _stack(fixed)
    wants: dict[Node, list[float]] = {n: [] for n in layer}
    port_wants: dict[tuple[int, str], list[float]] = {}
    for e in edges:
        if side == "in":
            mine, port, other, oport = e.dst, e.dst_port, e.src, e.src_port
            at = ys[other] + other.out_ports[oport]
        else:
            mine, port, other, oport = e.src, e.src_port, e.dst, e.dst_port
            at = ys[other] + other.in_ports[oport]
        port_wants.setdefault((mine, port), []).append(at)
        wants[mine].append((mine, port, at))
    for n in layer:
        if n.free_ports and wants[n]:
            ports = n.in_ports if side == "in" else n.out_ports
            current = sorted(ports, key=ports.get)
            keyed = {p: _centre(port_wants.get((n, p)), use_median, ports[p] + 1e6)
                     for p in current}
            # ports without wires to this side keep their place relative to the rest
            order = sorted(current, key=lambda p: keyed[p])
            base = min(ports.values())
            new = {p: base + i * pitch for i, p in enumerate(order)}
            if side == "in":
                n.in_ports = new
            else:
                n.out_ports = new
    ys_now = _stack(layer)
    keys = {}
    for n in layer:
        if wants[n]:
            ports = n.in_ports if side == "in" else n.out_ports
            keys[n] = _centre([at - ports[port] for _m, port, at in wants[n]], use_median, 0.0)
        else:
            keys[n] = None
    # nodes without wires to the fixed layer keep their place among the others
    placed = [n for n in layer if keys[n] is not None]
    placed.sort(key=lambda n: (keys[n], ys_now[n]))
    it = iter(placed)
    layer[:] = [n if keys[n] is None else next(it) for n in layer]


def _centre(values, use_median: bool, default: float) -> float:
    if not values:
        return default
    if use_median:
        s = sorted(values)
        m = len(s) // 2
        return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2
    return sum(values) / len(values)


def _transpose(layers: list[list[Node]], between: list[list[Edge]]) -> None:
    """Swap neighbours in a layer where that lowers the crossings on both sides.

    Swapping two neighbours changes only the crossings between their own wires:
    with ``u`` above ``v``, a wire of ``u`` and one of ``v`` cross where the
    wire of ``u`` ends lower in the neighbouring layer.

    A layer is looked at again only when it or a neighbour changed since it was
    last looked at without a swap (the same inputs give no swap again), and a
    layer's port positions are kept while it is unchanged: the same swaps as
    looking at every layer every pass, in a fraction of the time on large levels."""
    count = len(layers)
    positions: dict[tuple[int, str], dict] = {}

    def positions_of(i: int, side: str) -> dict:
        pos = positions.get((i, side))
        if pos is None:
            pos = positions[i, side] = _positions(layers[i], side)
        return pos

    todo = [True] * count
    for _ in range(4):
        improved = False
        again = [False] * count
        for i, layer in enumerate(layers):
            if len(layer) < 2 or not todo[i]:
                continue
            ends: dict[Node, list[list[int]]] = {n: [[], []] for n in layer}
            if i > 0:
                pos = positions_of(i - 1, "out")
                for e in between[i - 1]:
                    ends[e.dst][0].append(pos[e.src, e.src_port])
            if i + 1 < count:
                pos = positions_of(i + 1, "in")
                for e in between[i]:
                    ends[e.src][1].append(pos[e.dst, e.dst_port])
            swaps = False
            for k in range(len(layer) - 1):
                u, v = layer[k], layer[k + 1]
                as_is, swapped = _pair_crossings(ends[u], ends[v])
                if swapped < as_is:
                    layer[k], layer[k + 1] = v, u
                    swaps = True
            if swaps:
                improved = True
                positions.pop((i, "in"), None)
                positions.pop((i, "out"), None)
                again[i] = True                 # another pass may swap more here,
                if i > 0:                       # the layer before sees new ends,
                    again[i - 1] = True
                if i + 1 < count:               # and so does the next one, in this pass
                    todo[i + 1] = True
        if not improved:
            break
        todo = again


def _pair_crossings(upper: list[list[int]], lower: list[list[int]]) -> tuple[int, int]:
    """Crossings between the wires of two neighbours: with ``upper`` above ``lower``
    as they are, and with the two swapped."""
    as_is = swapped = 0
    for a_side, b_side in zip(upper, lower):
        if a_side and b_side:
            for a in a_side:
                for b in b_side:
                    if a > b:
                        as_is += 1
                    elif b > a:
                        swapped += 1
    return as_is, swapped


# =========================================================================== coordinates
def _coordinates(layout: Layout) -> None:
    layers = layout.layers
    into: dict[Node, list[Edge]] = {}
    out: dict[Node, list[Edge]] = {}
    for e in layout.edges:
        into.setdefault(e.dst, []).append(e)
        out.setdefault(e.src, []).append(e)
    for layer in layers:
        ys = _stack(layer)
        for n in layer:
            n.y = ys[n]
    size = sum(len(layer) for layer in layers)
    sweeps = max(MIN_COORD_SWEEPS, min(COORD_SWEEPS, SWEEP_BUDGET // max(size, 1)))
    for sweep in range(sweeps):
        order = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        both = sweep >= sweeps - 2
        for i in order:
            _settle(layers[i], into, out, use_in=both or sweep % 2 == 0,
                    use_out=both or sweep % 2 == 1)
    top = min((n.y - n.above for layer in layers for n in layer), default=0.0)
    for layer in layers:
        # whole units, so a port's height is the same sum wherever it is computed
        # (node + offset, box + row); a layer's gaps shrink by under a unit at most
        for n in layer:
            n.y = float(round(n.y - top))


def _settle(layer: list[Node], into, out, use_in: bool, use_out: bool) -> None:
    """Least-squares ys for ``layer`` in its order, each node pulled to where its
    wires would run straight (isotonic regression with gaps: pool adjacent violators)."""
    targets, weights = [], []
    for n in layer:
        wants = []
        if use_in:
            for e in into.get(n, ()):
                w = 2 if e.src.dummy or n.dummy else 1
                wants += [e.src.y + e.src.out_ports[e.src_port] - n.in_ports[e.dst_port]] * w
        if use_out:
            for e in out.get(n, ()):
                w = 2 if e.dst.dummy or n.dummy else 1
                wants += [e.dst.y + e.dst.in_ports[e.dst_port] - n.out_ports[e.src_port]] * w
        if wants:
            targets.append(_centre(wants, True, n.y))
            weights.append(float(len(wants)))
        else:
            targets.append(n.y)
            weights.append(0.05)
    offsets, acc = [], 0.0
    for i, n in enumerate(layer):
        if i:
            prev = layer[i - 1]
            acc += prev.height + prev.below + n.above
        offsets.append(acc)
    z = _isotonic([t - o for t, o in zip(targets, offsets)], weights)
    for n, zi, o in zip(layer, z, offsets):
        n.y = zi + o


def _isotonic(values: list[float], weights: list[float]) -> list[float]:
    """The nondecreasing sequence closest to ``values`` in weighted least squares."""
    blocks: list[list[float]] = []          # [mean, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks[-1]
            blocks[-1] = [(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2]
    out = []
    for m, _w, c in blocks:
        out += [m] * c
    return out
