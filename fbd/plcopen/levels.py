"""The levels of an exported network: each POU's instances, their wires, and an
order of whole function block calls.

A level is a network seen at a prefix: its block and macro instances with their
input wires (:class:`Node`), and its outputs. IEC runs a function block call as a
whole, where this simulator may interleave the blocks of two macros that feed
each other (control -> processing -> control in 2048). Such a level has no order
of whole calls, so :func:`call_order` inlines the macros on such a loop (their
blocks named ``<instance>_<block>``) until one exists; the behaviour is unchanged.
"""

from __future__ import annotations

import heapq

from ..block import REQUIRED
from ..compiler.graph import loops
from ..network import Network, Ref
from .emit import ExportError


class Node:
    """An instance of the exported level: a block or a macro, with its input wires.
    A source is ("in", input) | ("out", node, port) | ("lit", value)."""

    __slots__ = ("name", "element", "path", "bindings")

    def __init__(self, name, element, path, bindings):
        self.name = name
        self.element = element
        self.path = path
        self.bindings = bindings   # port -> (source, feedback)


def source_of(source):
    if isinstance(source, Ref):
        if source.kind == "netin":
            return ("in", source.port)
        return ("out", source.owner.name, source.port)
    return ("lit", source)


def level_of(net: Network, prefix: str):
    nodes = {}
    for name, inst in net.instances.items():
        bindings = {port: (source_of(bs[0].source), bs[0].feedback)
                    for port, bs in inst.bindings.items() if bs}
        nodes[name] = Node(name, inst.element, prefix + name, bindings)
    # A program's outputs are published at the end of the scan, so a feedback mark
    # on one changes nothing (the compiler ignores it); a macro's matters.
    outputs = {name: (source_of(o.source), o.feedback and prefix != "")
               for name, o in net.outputs.items()}
    return nodes, outputs


def inline(nodes: dict, outputs: dict, m: str) -> None:
    """Replace the macro node ``m`` by the instances of its body (one level)."""
    M = nodes.pop(m)
    body: Network = M.element
    names = {}
    for inner in body.instances:
        base = f"{m}_{inner}"
        name, k = base, 1
        while name in nodes or name in names.values():
            k += 1
            name = f"{base}_{k}"
        names[inner] = name

    def tr(src, fb):
        if src[0] == "in":
            outer = M.bindings.get(src[1])
            if outer is None:
                default = body.inputs[src[1]][1]
                if default is REQUIRED:
                    raise ExportError(f"{M.path}.{src[1]}: input not connected")
                return ("lit", default), False
            return outer[0], outer[1] or fb
        if src[0] == "out":
            return ("out", names[src[1]], src[2]), fb
        return src, False

    for inner, inst in body.instances.items():
        bindings = {}
        for port, bs in inst.bindings.items():
            if bs:
                bindings[port] = tr(source_of(bs[0].source), bs[0].feedback)
        nodes[names[inner]] = Node(names[inner], inst.element, f"{M.path}.{inner}", bindings)

    def through(src, fb):
        for _ in range(1000):
            if src[0] != "out" or src[1] != m:
                return src, fb
            o = body.outputs[src[2]]
            s2, fb2 = tr(source_of(o.source), o.feedback)
            src, fb = s2, fb or fb2
        raise ExportError(f"{M.path}: a loop through macro ports with no block in it")

    for node in nodes.values():
        for port, (src, fb) in list(node.bindings.items()):
            node.bindings[port] = through(src, fb)
    for name, (src, fb) in list(outputs.items()):
        outputs[name] = through(src, fb)


def _break(nodes, outputs, loop) -> None:
    """Inline the macro of ``loop`` whose inlining leaves the fewest of the loop's
    other instances on a loop (a macro whose outputs do not depend on the inputs
    the loop feeds frees them all); of those, the smallest."""
    macros = sorted((n for n in loop if isinstance(nodes[n].element, Network)),
                    key=lambda n: (_size(nodes[n].element), n))
    if not macros:
        raise ExportError(f"a loop without a feedback mark through "
                          f"{' -> '.join(sorted(loop))}")
    # A trial looks at the loop's instances only: inlining a macro only removes
    # dependencies, so no instance outside the loop can join a loop with them.
    members = set(loop)
    best = None
    for m in macros:
        trial = {n: Node(x.name, x.element, x.path, dict(x.bindings))
                 for n, x in nodes.items() if n in members}
        inline(trial, {}, m)
        still = set().union(*_loops(_graph(trial)))
        left = len((set(loop) - {m}) & still)
        if best is None or left < best[0]:
            best = (left, m)
        if left == 0:
            break
    inline(nodes, outputs, best[1])


def call_order(nodes: dict, outputs: dict, first: dict) -> list[str]:
    """Inline macros on loops until the level has an order of whole calls; that
    order, as close to the compiled one as the wires allow."""
    for _ in range(10_000):
        graph = _graph(nodes)
        found = _loops(graph)
        if found:
            _break(nodes, outputs, found[0])
            continue
        succ = {name: [] for name in nodes}
        indeg = {name: len(deps) for name, deps in graph.items()}
        for name, deps in graph.items():
            for d in deps:
                succ[d].append(name)
        key = {name: (first.get(nodes[name].path, 1 << 60), name) for name in nodes}
        ready = [key[n] for n, d in indeg.items() if d == 0]
        heapq.heapify(ready)
        out = []
        while ready:
            _, n = heapq.heappop(ready)
            out.append(n)
            for s in succ[n]:
                indeg[s] -= 1
                if indeg[s] == 0:
                    heapq.heappush(ready, key[s])
        return out
    raise ExportError("too many macros to inline")  # pragma: no cover


def _loops(graph: dict) -> list[list]:
    return loops(graph, lambda v: sorted(graph[v]))


def _graph(nodes) -> dict:
    """Instance -> the instances it reads this scan, among ``nodes``."""
    graph = {name: set() for name in nodes}
    for name, node in nodes.items():
        for src, fb in node.bindings.values():
            if src[0] == "out" and not fb and src[1] in graph:
                graph[name].add(src[1])
    return graph


def _size(net: Network) -> int:
    return sum(_size(i.element) if i.is_macro else 1 for i in net.instances.values())


__all__ = ["Node", "source_of", "level_of", "inline", "call_order"]
