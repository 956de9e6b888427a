"""Orthogonal wire routing in the channels between layers of a layered placement.

Each gap between two layers is a channel. A net (the wires from one output
port, or one dummy of a long wire) that must change height in a gap gets a
vertical *track* of its own there; horizontal runs go from the left layer's
port to the track at the port's height and from the track to each target
port at the target's height. The order of the tracks decides the crossings
in the gap, and it is chosen to keep them few: for two nets A and B whose
vertical runs overlap, A left of B costs a crossing where B's run from the
left meets A's track and where each of A's runs to the right meets B's
track (the classic channel-routing cost), and the nets are inserted one by
one where they add least, then improved by adjacent swaps. Tracks are
shared by nets whose runs do not overlap (left-edge packing in that order),
so a gap is as wide as its busiest height needs.
"""

from __future__ import annotations

from .layered import Edge, Layout

__all__ = ["GapPlan", "plan_gaps", "route_points"]

EPS = 0.5


class GapNet:
    __slots__ = ("net", "s", "ts", "lo", "hi", "track")

    def __init__(self, net, s: float):
        self.net = net
        self.s = s
        self.ts: set[float] = set()
        self.lo = self.hi = s
        self.track: int | None = None

    def add(self, t: float) -> None:
        self.ts.add(t)
        self.lo, self.hi = min(self.lo, t), max(self.hi, t)

    @property
    def bends(self) -> bool:
        return self.hi - self.lo > EPS


class GapPlan:
    """The tracks of one gap: ``tracks`` in use, each bending net's track index."""

    def __init__(self):
        self.nets: dict = {}
        self.tracks = 0

    def track_of(self, net) -> int | None:
        g = self.nets.get(net)
        return None if g is None else g.track


def plan_gaps(layout: Layout) -> list[GapPlan]:
    """Choose the tracks of every gap (from the nodes' y; x comes later)."""
    plans = [GapPlan() for _ in range(max(len(layout.layers) - 1, 0))]
    for e in layout.edges:
        plan = plans[e.src.layer]
        s = e.src.y + e.src.out_ports[e.src_port]
        g = plan.nets.get(e.net)
        if g is None:
            g = plan.nets[e.net] = GapNet(e.net, s)
        g.add(e.dst.y + e.dst.in_ports[e.dst_port])
    for plan in plans:
        _assign_tracks(plan)
    return plans


def _cost(a: GapNet, b: GapNet) -> int:
    """Crossings in the gap when ``a``'s track is left of ``b``'s."""
    if a.hi < b.lo - EPS or b.hi < a.lo - EPS:
        return 0
    c = 1 if a.lo + EPS < b.s < a.hi - EPS else 0
    for t in a.ts:
        if b.lo + EPS < t < b.hi - EPS:
            c += 1
    return c


def _overlapping(nets: list[GapNet], margin: float):
    """Each pair of nets whose vertical runs come within ``margin`` of each other,
    once, found by a sweep in the order of their tops (a busy gap of a large level
    has hundreds of nets, few of them overlapping)."""
    active: list[GapNet] = []
    for g in sorted(nets, key=lambda g: g.lo):
        active = [a for a in active if not a.hi < g.lo - margin]
        for a in active:
            yield a, g
        active.append(g)


def _assign_tracks(plan: GapPlan) -> None:
    nets = [g for g in plan.nets.values() if g.bends]
    if not nets:
        return
    # a start that is often right: nets going down first, the lower source leftmost
    nets.sort(key=lambda g: (max(g.ts) <= g.s, -g.s if max(g.ts) > g.s else g.s))
    # (a, b) -> crossings with a left of b, for the pairs that can cross at all
    cost: dict = {}
    crossing: dict = {g: [] for g in nets}
    for a, b in _overlapping(nets, EPS):
        cost[a, b], cost[b, a] = _cost(a, b), _cost(b, a)
        crossing[a].append(b)
        crossing[b].append(a)
    order: list[GapNet] = []
    placed: set = set()
    for g in nets:
        # the cost of g at i (right of order[:i], left of order[i:]) changes only past
        # the nets it can cross: the first cheapest place is 0 or just after one of them
        theirs = sorted((order.index(o), o) for o in crossing[g] if o in placed)
        here = best_c = sum(cost[g, o] for _i, o in theirs)
        best_i = 0
        for i, o in theirs:
            here += cost[o, g] - cost[g, o]
            if here < best_c:
                best_i, best_c = i + 1, here
        order.insert(best_i, g)
        placed.add(g)
    for _ in range(3):
        swapped = False
        for i in range(len(order) - 1):
            a, b = order[i], order[i + 1]
            if cost.get((b, a), 0) < cost.get((a, b), 0):
                order[i], order[i + 1] = b, a
                swapped = True
        if not swapped:
            break
    # left-edge packing that keeps the chosen order between overlapping nets
    position = {g: i for i, g in enumerate(order)}
    earlier: dict = {g: [] for g in order}
    for a, b in _overlapping(order, EPS + 6):
        first, then = (a, b) if position[a] < position[b] else (b, a)
        earlier[then].append(first)
    for g in order:
        g.track = max((prev.track + 1 for prev in earlier[g]), default=0)
    plan.tracks = max(g.track for g in order) + 1


def route_points(chain: list[Edge], plans: list[GapPlan], track_x, left_x, right_x
                 ) -> list[tuple[float, float]]:
    """The polyline of one wire through its chain of one-layer edges.

    ``track_x(gap, track)`` is a track's x; ``left_x(node, port)`` where a wire
    leaves a node on its right side; ``right_x(node, port)`` where it enters."""
    pts: list[tuple[float, float]] = []
    for e in chain:
        s = e.src.y + e.src.out_ports[e.src_port]
        t = e.dst.y + e.dst.in_ports[e.dst_port]
        x0 = left_x(e.src, e.src_port)
        x1 = right_x(e.dst, e.dst_port)
        seg = [(x0, s)]
        track = plans[e.src.layer].track_of(e.net)
        if abs(s - t) > EPS and track is not None:
            x = track_x(e.src.layer, track)
            seg += [(x, s), (x, t)]
        elif abs(s - t) > EPS:       # cannot happen: a bending net has a track
            seg += [(x1, s)]
        seg.append((x1, t))
        pts += seg
    return _simplify(pts)


def _simplify(pts):
    out = []
    for p in pts:
        if out and abs(out[-1][0] - p[0]) < 1e-9 and abs(out[-1][1] - p[1]) < 1e-9:
            continue
        if len(out) >= 2:
            (ax, ay), (bx, by) = out[-2], out[-1]
            if (abs(ax - bx) < 1e-9 and abs(bx - p[0]) < 1e-9) or \
                    (abs(ay - by) < 1e-9 and abs(by - p[1]) < 1e-9):
                out[-1] = p
                continue
        out.append(p)
    return out
