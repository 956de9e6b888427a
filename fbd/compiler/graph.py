"""Graph algorithms the compiler and the PLCopen export share."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

__all__ = ["loops"]


def loops(nodes: Iterable[Hashable], neighbours: Callable[[Hashable], Iterable]) -> list[list]:
    """The strongly connected components of a directed graph that hold a cycle
    (two nodes or more, or one wired to itself), each sorted, in sorted order.

    ``neighbours(v)`` lists the nodes ``v`` leads to, or the nodes leading to
    ``v``: the components are the same either way. Nodes must be sortable, so
    the answer does not depend on set order. Iterative Tarjan: programs of
    100k blocks would overflow Python's recursion limit.
    """
    index: dict = {}
    low: dict = {}
    on: set = set()
    stack: list = []
    comps: list[list] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, 0, None)]
        while work:
            v, i, nexts = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
                nexts = list(neighbours(v))
            recurse = False
            while i < len(nexts):
                w = nexts[i]
                i += 1
                if w not in index:
                    work.append((v, i, nexts))
                    work.append((w, 0, None))
                    recurse = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in nexts:
                    comps.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(comps)
