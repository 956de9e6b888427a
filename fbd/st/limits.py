"""How big a unit may be, checked on its declarations before any code is made.

Nothing here is IEC's: these are the simulator's limits, each far beyond what a
controller's program holds, each there because past it a walk would overflow
Python's stack or a value would take gigabytes before the first scan
(docs/st.md, "Limits"):

* POUs hold or call one another at most :data:`fbd.project.MAX_POU_DEPTH` deep
  (an FB instance inside an FB inside ..., a function calling a function ...):
  each level is a nested call at run time, and its variables' paths grow with
  the depth (1,000 nested FBs took a minute and 2.5 GB before failing);
* a POU instance holds at most :data:`fbd.types.DATA_MAX` elementary values
  in all (every element of its arrays and structures, its FB instances'
  variables), and so does a configuration (its globals and program
  instances): a STRUCT of a thousand of the largest arrays ran for a minute
  and took 1.5 GB before this.

A type's own depth and size (:data:`fbd.types.MAX_TYPE_DEPTH`, :data:`~fbd.types.ARRAY_MAX`)
are checked where the type is made (:mod:`fbd.types`); this module counts
what the declarations ask for without making any value.
"""

from __future__ import annotations

from .. import types as t
from ..project import MAX_POU_DEPTH
from . import ast as A
from .errors import Reporter
from .stdlib import LibraryPou
from .symbols import Analysis, key

__all__ = ["check_limits", "MAX_POU_DEPTH"]

# the sections whose variables a POU instance holds (a VAR_IN_OUT refers to the
# caller's, a VAR_EXTERNAL to a global: counted where they live)
_HELD = {"VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_TEMP", "VAR_GLOBAL"}


def check_limits(analysis: Analysis, report: Reporter) -> None:
    deep = _check_depth(analysis, report)
    if deep:        # the counts below would follow the same chains
        return
    sizes = _Sizes(analysis)
    for scope in analysis.pous.values():
        _check_total(sizes, scope.pou.var_blocks, scope.label, "a POU", report, scope.label)
        sizes.pou(scope.pou)
    for conf in analysis.unit.configurations:
        label = f"CONFIGURATION {conf.name}"
        blocks = list(conf.var_blocks) + [b for r in conf.resources for b in r.var_blocks]
        total = _check_total(sizes, blocks, label, "a configuration", report, label)
        for res in conf.resources:
            for prog in res.programs:
                pou = analysis.pous.get(key(prog.type_name))
                total += sizes.pou(pou.pou) if pou is not None else 0
                if total > t.DATA_MAX:
                    report.error(prog, _too_many(label, total, "a configuration", prog.name), label)
                    return


def _too_many(label: str, total: int, holder: str, last: str) -> str:
    return (f"the variables of {label} hold {total:,} elementary values in all (arrays, "
            f"structures and FB instances counted whole), more than the {t.DATA_MAX:,} "
            f"{holder} may hold; {last} takes them past it")


def _check_total(sizes, blocks, label: str, holder: str, report: Reporter, pou: str) -> int:
    total = 0
    for vb in blocks:
        if vb.kind not in _HELD:
            continue
        for d in vb.decls:
            total += sizes.spec(d.spec)
            if total > t.DATA_MAX:
                report.error(d, _too_many(label, total, holder, d.name or d.location.text), pou)
                return total
    return total


class _Sizes:
    """How many elementary values a type spec or a POU instance holds, counted on
    the declarations (memoised; chains are bounded by the depth checks)."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        self._pous: dict[str, int] = {}
        self._busy: set[str] = set()

    def spec(self, spec, hops: int = 0) -> int:
        if isinstance(spec, A.ArrayType):
            n = 1
            for r in spec.ranges:
                n *= max(0, r.high - r.low + 1)
            return n * self.spec(spec.element, hops + 1) if n else 0
        if isinstance(spec, A.StructType):
            return sum(self.spec(m.spec, hops + 1) for m in spec.members)
        if not isinstance(spec, A.NamedType) or hops > t.MAX_TYPE_DEPTH:
            return 1        # past the depth, fbd.types refuses the type itself
        target = self.analysis.resolve_type(spec.name)
        if isinstance(target, A.TypeDecl):
            return self.spec(target.spec, hops + 1)
        if isinstance(target, A.Pou) and target.kind == "FUNCTION_BLOCK":
            return self.pou(target)
        if isinstance(target, LibraryPou):
            return max(1, len(target.inputs) + len(target.outputs) + len(target.internals))
        return 1

    def pou(self, pou: A.Pou) -> int:
        k = key(pou.name)
        if k not in self._pous:
            if k in self._busy:         # recursion: the compiler names it
                return 0
            self._busy.add(k)
            total = 0
            for vb in pou.var_blocks:
                if vb.kind in _HELD:
                    total += sum(self.spec(d.spec) for d in vb.decls)
            self._busy.discard(k)
            self._pous[k] = total
        return self._pous[k]


def _uses(analysis: Analysis, pou: A.Pou) -> list[tuple[str, object]]:
    """The POUs of the unit that ``pou`` holds an instance of or calls, each with
    the node that does (a declaration, a call), in source order."""
    out, seen = [], set()
    decls = [d for vb in pou.var_blocks for d in vb.decls]
    calls = sorted(analysis.pou_calls.get(key(pou.name), ()), key=lambda n: (n.line, n.col))
    for node in decls + calls:
        if isinstance(node, A.VarDecl):
            if not isinstance(node.spec, A.NamedType):
                continue
            found = analysis.globals.get(key(node.spec.name))
            target = found.node if found is not None and found.kind == "pou" else None
        else:
            target = analysis.resolved[node].node
        if isinstance(target, A.Pou) and key(target.name) not in seen:
            seen.add(key(target.name))
            out.append((key(target.name), node))
    return out


def _check_depth(analysis: Analysis, report: Reporter) -> bool:
    """Each POU's longest chain of POUs it holds or calls, itself included, is at
    most MAX_POU_DEPTH; the POU where a chain first passes it is named (an
    iterative walk: the chains are what could overflow a recursive one)."""
    pous = {key(p.name): p for p in analysis.unit.pous}
    uses = {k: _uses(analysis, p) for k, p in pous.items()}
    depth: dict[str, int] = {}
    below: dict[str, str | None] = {}       # the next POU of the longest chain
    too_deep = False
    for top in pous:
        if top in depth:
            continue
        path, iters = [top], [iter(uses[top])]
        on_path = {top}
        while path:
            nxt = next(iters[-1], None)
            if nxt is not None:
                callee = nxt[0]
                if callee in on_path or callee in depth:   # recursion: the compiler names it
                    continue
                path.append(callee)
                on_path.add(callee)
                iters.append(iter(uses[callee]))
                continue
            done = path.pop()
            iters.pop()
            on_path.discard(done)
            best, via = 0, None
            for callee, node in uses[done]:
                if depth.get(callee, 0) > best:
                    best, via = depth[callee], (callee, node)
            depth[done] = best + 1
            below[done] = via[0] if via else None
            if depth[done] == MAX_POU_DEPTH + 1:
                too_deep = True
                chain = [done]
                while below[chain[-1]] is not None and len(chain) < 4:
                    chain.append(below[chain[-1]])
                names = " -> ".join(pous[c].name for c in chain)
                pou = pous[done]
                report.error(via[1], f"POUs hold or call one another {MAX_POU_DEPTH + 1} deep "
                                     f"from here ({names} -> ...), more than the {MAX_POU_DEPTH} "
                                     f"a chain may be", f"{pou.kind} {pou.name}")
    return too_deep
