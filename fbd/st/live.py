"""An ST POU's source with the live values of its variables, line by line: what
a debugger view shows beside the code (``fbd.st.live_source``).

::

    rows = live_source(block_type, plc.get, "Main")     # or harness.get, "inst:Main"
    for line, text, values in rows:                     # values: {"c.count": 3, "n": 3}
        print(f"{line:4} {text:<40} {values}")

Each row is one line of the POU's text (from its header to its END line),
with the value now of every variable the line names: a variable, an FB
instance's variable (``T1.Q``), a structure member. ``get`` reads a path as
:meth:`fbd.Plc.get` does; ``instance`` is the block instance's path.
"""

from __future__ import annotations

from . import ast as A


def _path(node) -> str | None:
    """``a``, ``T1.Q``, ``p.x``: a name with members (an index stops it)."""
    if isinstance(node, A.Name):
        return node.name
    if isinstance(node, A.Member):
        base = _path(node.base)
        return None if base is None else f"{base}.{node.member}"
    return None


def referenced(pou: A.Pou) -> dict[int, list[str]]:
    """Line -> the variable paths named on it, in order, each once."""
    out: dict[int, list[str]] = {}
    inner: set[int] = set()
    for node in A.iter_nodes(pou.body):
        if isinstance(node, A.Member):
            inner.add(id(node.base))
    for node in A.iter_nodes(pou.body):
        if id(node) in inner or not isinstance(node, (A.Name, A.Member)):
            continue
        path = _path(node)
        if path is not None:
            names = out.setdefault(node.line, [])
            if path not in names:
                names.append(path)
    return out


def live_source(block_type, get, instance: str) -> list[tuple[int, str, dict]]:
    """(line number, source text, {variable path: value}) for each line of the POU."""
    info = block_type.st_info
    pou = info.node
    lines = info.st_source.splitlines()
    last = pou.line
    for node in A.iter_nodes(pou.body):
        last = max(last, node.line)
    end = "END_" + pou.kind
    while last < len(lines) and not lines[last - 1].strip().upper().startswith(end):
        last += 1
    known = {v.upper() for v in _paths(info)}
    refs = referenced(pou)
    rows = []
    for n in range(pou.line, min(last, len(lines)) + 1):
        values = {}
        for path in refs.get(n, ()):
            if path.upper() in known:
                try:
                    values[path] = get(f"{instance}.{path}")
                except Exception:       # a path the block does not show (a temporary)
                    continue
        rows.append((n, lines[n - 1], values))
    return rows


def _paths(info) -> list[str]:
    paths = [v.path for v in info.inputs] + [v.path for v in info.outputs]
    paths += [e.path for e in info.state]
    for e in info.state:        # structure members of a variable: p.x
        parts = e.path.split(".")
        paths += [".".join(parts[:k]) for k in range(1, len(parts))]
    return paths


__all__ = ["live_source", "referenced"]
