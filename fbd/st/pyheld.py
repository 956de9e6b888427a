"""A program's scans run back to back with its variables held in Python locals.

The fast-forward (:mod:`fbd.runtime.fastforward`) runs many scans in one call
when nothing reads the signal table between them. The scan over the table
(:class:`~.pyaccess.TableAccess`) reads and writes every variable at its slot
(``s[412]``), a subscript each time; across a run of n scans the variables
may as well live in locals: loaded once before the first scan, written back
once after the last, a fault included (the table then holds what the
statements before the fault wrote, as the scans one by one leave it).

Held: the program's own variables (its outputs, VARs, VAR_TEMPs, the
members of the library FBs it holds, an input's kept value), those of the
instances of its own FBs, whose bodies are written into the scan where the
program calls them (each instance's Python locals renamed apart, so a
caller's loop or temporary is not touched by its callee's), and the globals.
An FB whose body has a RETURN or a VAR_IN_OUT, or holds such an FB, is
called as in the scan one by one, its function reading and writing the
table: its instance's variables stay at their slots, and so do the globals
when it reaches one. A program whose body has a RETURN, a VAR_IN_OUT or more
statements than one function holds (:data:`~.pyemit.PART_STATEMENTS`) has no
held variant: its scans run as they do one by one.
"""

from __future__ import annotations

import io
import tokenize
from typing import NamedTuple

from . import pyemit
from .census import census, release, summary
from .model import LibraryFb
from .pyaccess import TableAccess, leaf_frame
from .pyemit import PyEmitter
from .pyexpr import is_slot
from .stmts import WATCHDOG_ITERATIONS


class HeldScan(NamedTuple):
    """The pieces of a run of scans over held variables (the caller writes the loop)."""
    before: list[str]       # statements before the first scan: the loads, the inputs
    scan: list[str]         # one scan's statements, at the depth asked for
    after: list[str]        # statements writing the held variables back
    local: dict             # slot -> the local holding it during the run


class HeldAccess(TableAccess):
    """A POU instance's variables (see the module docstring) as locals
    ``_h<slot>`` where ``held`` (slot -> local) has them, the rest at their
    slots as :class:`TableAccess` has them; the instances of FBs it can write
    inline, written inline."""

    def __init__(self, frame, held: dict, top: bool, names: list):
        super().__init__(frame, [], {}, top=top)
        self.held = held
        self.names = names      # the suffixes given so far to inlined instances' locals

    def bind(self, emitter) -> None:
        super().bind(emitter)
        self.cached = {}        # a loop's variables are held already

    def at(self, slot: int) -> str:
        local = self.held.get(slot)
        return local if local is not None else f"s[{slot}]"

    def guard(self) -> list[str]:
        return []

    def splittable(self) -> bool:
        return False

    def call_fb(self, s, emit) -> list[str]:
        if not inlined(s.info):
            return super().call_fb(s, emit)
        inner = self.frame.inner(s.var, s.info)
        access = HeldAccess(inner, self.held, False, self.names)
        lines = body_lines(s.info, access, 0)
        self.names.append(inner.name)
        return apart(lines, f"_{len(self.names)}") or ["pass"]


def inlined(info) -> bool:
    """Whether an instance of the FB ``info`` is written into its caller's held
    scan (see the module docstring)."""
    if info.in_outs or summary(info.code).returns:
        return False
    return all(inlined(v.fb) for v in info.variables.values()
               if v.fb is not None and not isinstance(v.fb, LibraryFb))


def held_slots(info, frame) -> set:
    """The slots of the instance of ``info`` (whose variables ``frame`` places)
    that its held scan keeps in locals: all but those of the instances written
    as calls, and the globals when one of those reaches one."""
    slots = set(frame.slots.values()) - set(frame.globals.values())
    called = [v for v in info.variables.values()
              if v.fb is not None and not isinstance(v.fb, LibraryFb) and not inlined(v.fb)]
    for var in called:
        prefix = var.path.upper() + "."
        slots -= {slot for path, slot in frame.slots.items() if path.startswith(prefix)}
    if not any(var.fb.externals for var in called):
        slots.update(frame.globals.values())
    return slots


def body_lines(info, access: HeldAccess, depth: int) -> list[str]:
    """One call's statements of the POU ``info`` with ``access``, at ``depth``: the
    per-call start (an edge's value, VAR_TEMPs afresh), the watchdog's budget,
    the body; nothing handed back (its variables are the caller's locals)."""
    emitter = PyEmitter(info.code, access)
    emitter.out = []
    for text in access.prologue():
        emitter.line(depth, text)
    if info.code.loops:
        emitter.line(depth, f"_wd = {WATCHDOG_ITERATIONS}")
    emitter.body(info.code.body, depth)
    release(info.code)
    return emitter.out


def apart(lines: list[str], suffix: str) -> list[str]:
    """``lines`` (statements at depth 0) with each name they bind as a function's
    locals, but the table, the clock and the held variables, given ``suffix``:
    an inlined instance's temporaries, loop counters and watchdog budget never
    meet its caller's. Which names are locals is CPython's word (the names of
    the compiled function's frame); strings are left as they are."""
    text = "def _inline(s, now):\n" + "".join(f"    {ln}\n" for ln in lines)
    code = compile(text, "<inline>", "exec").co_consts
    fn = next(c for c in code if hasattr(c, "co_varnames"))
    rename = {name for name in (*fn.co_varnames, *fn.co_cellvars)
              if name not in ("s", "now") and not name.startswith("_h")}
    if not rename:
        return lines
    rows = text.splitlines(keepends=True)
    edits: dict = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in rename:
            edits.setdefault(tok.start[0] - 1, []).append(tok.start[1] + len(tok.string))
    for row, ends in edits.items():
        line = rows[row]
        for end in sorted(ends, reverse=True):
            line = line[:end] + suffix + line[end:]
        rows[row] = line
    return [row[4:].rstrip("\n") for row in rows[1:]]


def held_scan(info, places: dict, name: str, args: list[str], steady: set,
              depth: int) -> HeldScan | None:
    """The held variant of the scan of the POU instance whose table function is
    ``name`` (:func:`.pyaccess.table_source`, whose FB instances' functions it
    calls where it does not write them inline), called with ``args`` (the texts
    of its inputs in order: a literal, or a slot ``s[12]``, which only a slot of
    ``steady`` is sure to keep during the run), its scan's statements at
    ``depth``; None where there is none (see the module docstring)."""
    code = info.code
    if info.in_outs or len(code.body) > pyemit.PART_STATEMENTS or census(code).returns:
        return None
    frame = leaf_frame(info, places, name)
    held = {slot: f"_h{slot}" for slot in sorted(held_slots(info, frame))}
    access = HeldAccess(frame, held, True, [])
    edged = {v.local for v, local in access.edge_inputs if local is not None}
    before, lines = [], []
    for param, arg in zip(frame.params, args):
        slot = int(arg[2:-1]) if is_slot(arg) else None
        if slot is None or (slot in steady and slot not in held):
            before.append(f"{param} = {arg}")
            if param not in edged:
                continue    # else its edge's value replaces it in each scan: read again
        # an input the program keeps in its own slot (a located one), or a slot a
        # scan may write: read in each scan
        lines.append(f"{'    ' * depth}{param} = {held.get(slot, arg)}")
    lines += body_lines(info, access, depth)
    before += [f"{local} = s[{slot}]" for slot, local in held.items()]
    after = [f"s[{slot}] = {local}" for slot, local in held.items()]
    return HeldScan(before, lines, after, held)


__all__ = ["HeldScan", "HeldAccess", "held_scan", "held_slots", "inlined"]
