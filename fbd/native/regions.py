"""Arrays and structures in the native table: a region of cells each.

On the Python engine an ARRAY or STRUCT signal is one slot holding a list
(flat, row-major for an array; the fields in order for a structure; nested
for an array of structures). The native table gives it a *region*: one
8-byte cell per scalar element, laid out as that list is read left to right
(an array of structures is its elements' fields one after the other), so
the machine code reaches ``a[i].x`` at a computed cell, and Python reads
``s[slot]`` as the same nested list (:class:`~.table.NativeTable` builds it
from the region and writes it back).
"""

from __future__ import annotations

from ..values import Kind
from .values import slot_kind

#: what copying a region (an ARRAY or STRUCT assigned or passed by value) calls
DECLARATIONS = "declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)"


def cells(tp) -> int | None:
    """How many cells a value of ``tp`` takes (None: no native form, a STRING)."""
    c = tp.canonical
    if c.kind is Kind.ARRAY:
        inner = cells(c.element)
        return None if inner is None else inner * c.size
    if c.kind is Kind.STRUCT:
        total = 0
        for f in c.fields:
            inner = cells(f.type)
            if inner is None:
                return None
            total += inner
        return total
    return 1 if slot_kind(c) is not None else None


def field_offset(tp, index: int) -> int:
    """The cell of field ``index`` within a structure of ``tp``."""
    return sum(cells(f.type) for f in tp.canonical.fields[:index])


def aggregate(tp) -> bool:
    return tp is not None and tp.canonical.kind in (Kind.ARRAY, Kind.STRUCT)


def read(view, base: int, tp):
    """The Python value of the region at ``base`` (``view(kind, cell)`` reads one cell)."""
    c = tp.canonical
    if c.kind is Kind.ARRAY:
        step = cells(c.element)
        return [read(view, base + k * step, c.element) for k in range(c.size)]
    if c.kind is Kind.STRUCT:
        out, at = [], base
        for f in c.fields:
            out.append(read(view, at, f.type))
            at += cells(f.type)
        return out
    return view(slot_kind(c), base)


def write(put, base: int, tp, value) -> None:
    """Write ``value`` into the region at ``base`` (``put(kind, cell, value)``)."""
    c = tp.canonical
    if c.kind is Kind.ARRAY:
        step = cells(c.element)
        for k, x in enumerate(list(value)[:c.size]):
            write(put, base + k * step, c.element, x)
        return
    if c.kind is Kind.STRUCT:
        at = base
        for f, x in zip(c.fields, value):
            write(put, at, f.type, x)
            at += cells(f.type)
        return
    put(slot_kind(c), base, value)


__all__ = ["cells", "field_offset", "aggregate", "read", "write"]
