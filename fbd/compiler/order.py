"""The execution order of a flat program's blocks."""

from __future__ import annotations

import heapq

from .graph import loops


def execution_order(b) -> list[int]:
    """The leaves in a deterministic topological order of the forward wires
    (``b.succ``/``b.indeg``), ties broken by leaf index (the order blocks were
    added); every loop of forward wires is reported on ``b`` with its blocks."""
    n = len(b.leaves)
    succ, indeg = b.succ, list(b.indeg)
    ready = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(ready, j)
    if len(order) < n:
        left = {i for i in range(n) if indeg[i] > 0}
        for comp in loops(left, lambda v: [w for w in succ[v] if w in left]):
            names = " -> ".join(b.leaves[i].path for i in comp)
            b.problem(f"loop without a feedback mark through {len(comp)} block"
                      f"{'s' if len(comp) > 1 else ''}: {names} -> {b.leaves[comp[0]].path}; "
                      f"mark one of its wires with feedback=True")
    return order
