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
A RETURN outside the body's loops ends the one pass the body is written in
(``while True: ... break``); an FB's VAR_IN_OUTs are copied in before its body
and back out after, as its call copies them (matiec's way). An instance of
an FB with a RETURN inside a loop (or holding such an FB), and those past
:data:`INLINE_STATEMENTS`, are called as in the scan one by one, their
functions reading and writing the table: their variables stay at their
slots, and so do the globals when one of them reaches one. A program with a
RETURN inside a loop, a VAR_IN_OUT or more statements at its top level than
one function holds (:data:`~.pyemit.PART_STATEMENTS`) has no held variant:
its scans run as they do one by one.

The clock (``now``) is the loop's, a step of the cycle a scan; the network's
inputs are latched before the run and nothing writes them in it, so an input
is read once, but one the program keeps in its own slot (a located input is
memory) in each scan; the output image is copied to locals after each scan
(a fault in the next leaves the last copy, as the scans one by one leave
the image) and stored once.
"""

from __future__ import annotations

import io
import tokenize

from . import ir, pyemit
from .census import release, summary
from .model import LibraryFb
from .pyaccess import TableAccess, leaf_frame
from .pyemit import PyEmitter
from .pyexpr import is_slot
from .stmts import WATCHDOG_ITERATIONS

#: statements of FB bodies a held scan writes inline at the most (see written_inline)
INLINE_STATEMENTS = 4 * pyemit.PART_STATEMENTS


class HeldAccess(TableAccess):
    """A POU instance's variables (see the module docstring) as locals
    ``_h<slot>`` where ``held`` (slot -> local) has them, the rest at their
    slots as :class:`TableAccess` has them; the instances of FBs it can write
    inline, written inline."""

    def __init__(self, frame, held: dict, top: bool, inline: set, names: list):
        super().__init__(frame, [], {}, top=top)
        self.held = held
        self.inline = inline    # the FB instances written inline (written_inline)
        self.names = names      # the suffixes given so far to inlined instances' locals

    def bind(self, emitter) -> None:
        super().bind(emitter)
        self.cached = {}        # a loop's variables are held already

    def at(self, slot: int) -> str:
        local = self.held.get(slot)
        return local if local is not None else f"s[{slot}]"

    def guard(self) -> list[str]:
        return []

    def returning(self) -> str:
        return "break"      # out of the one pass its body is written in (body_lines)

    def splittable(self) -> bool:
        return False

    def call_fb(self, s, emit) -> list[str]:
        inner = self.frame.inner(s.var, s.info)
        if inner.name not in self.inline:
            return super().call_fb(s, emit)
        self.names.append(inner.name)
        k = len(self.names)
        # its VAR_IN_OUTs, copied in and back out as the call does (matiec's way), in
        # locals of its own that the renaming leaves alone
        inner.args = {name: f"_io{k}_{name}" for name in inner.args}
        places = [emit.expr(p) for p in s.inouts]
        access = HeldAccess(inner, self.held, False, self.inline, self.names)
        body = apart(body_lines(s.info, access, 0), f"_{k}")
        copies = list(zip(inner.args.values(), places))
        return ([f"{local} = {place}" for local, place in copies] + body
                + [f"{place} = {local}" for local, place in copies]) or ["pass"]


def inlined(info) -> bool:
    """Whether an instance of the FB ``info`` is written into its caller's held
    scan (see the module docstring)."""
    if returns_in_loop(info.code):
        return False
    return all(inlined(v.fb) for v in info.variables.values()
               if v.fb is not None and not isinstance(v.fb, LibraryFb))


def returns_in_loop(code: ir.PouCode) -> bool:
    """Whether a RETURN of the body is inside a loop, where the ``break`` that
    ends a body written inline (:func:`body_lines`) would end the loop only."""
    if not summary(code).returns:
        return False
    return any(type(inner) is ir.Return for stmt in ir.walk(code.body)
               if isinstance(stmt, ir.Loop) for lst in ir.children(stmt)
               for inner in ir.walk(lst))


def written_inline(info, frame) -> set:
    """The functions' names (``_p0__c1``, ``_p0__c1__t``) of the FB instances of
    the POU instance ``frame`` places that its held scan writes inline: those
    :func:`inlined` allows, in the order they are declared, while the statements
    written (an FB's body once per call in the text) stay within
    :data:`INLINE_STATEMENTS`; the rest are called (a program that calls a big
    FB many times: CPython's compile of one function grows faster than its
    length)."""
    names, budget = set(), INLINE_STATEMENTS
    cost: dict = {}
    for stmt in ir.walk(info.code.body):
        if type(stmt) is ir.CallFb:
            path = stmt.var.path.upper()
            cost[path] = cost.get(path, 0) + weight(stmt.info)

    def add(info, frame) -> None:
        for var in info.variables.values():
            if var.fb is not None and not isinstance(var.fb, LibraryFb):
                inner = frame.inner(var, var.fb)
                names.add(inner.name)
                add(var.fb, inner)

    for var in info.variables.values():
        if var.fb is None or isinstance(var.fb, LibraryFb) or not inlined(var.fb):
            continue
        statements = cost.get(var.path.upper(), 0)
        if statements <= budget:
            budget -= statements
            inner = frame.inner(var, var.fb)
            names.add(inner.name)
            add(var.fb, inner)
    return names


def weight(info) -> int:
    """The statements a call of the FB ``info`` writes inline, those of the calls
    of its own FB instances included."""
    return sum(1 + (weight(stmt.info) if type(stmt) is ir.CallFb else 0)
               for stmt in ir.walk(info.code.body))


def held_slots(info, frame, inline: set) -> set:
    """The slots of the instance of ``info`` (whose variables ``frame`` places)
    that its held scan keeps in locals: all but those of the FB instances it
    calls (not in ``inline``), and the globals when one of those reaches one."""
    slots = set(frame.slots.values()) - set(frame.globals.values())
    called = [v for v in info.variables.values() if v.fb is not None and not isinstance(
        v.fb, LibraryFb) and frame.inner(v, v.fb).name not in inline]
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
    returns = summary(info.code).returns
    if returns:     # one pass, which a RETURN ends (HeldAccess.returning)
        emitter.line(depth, "while True:")
    emitter.body(info.code.body, depth + 1 if returns else depth)
    if returns:
        emitter.line(depth + 1, "break")
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
              if name not in ("s", "now") and not name.startswith(("_h", "_io"))}
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
              publish: list) -> str | None:
    """The function ``<name>_held(s, now, cycle, n)`` running n scans of the POU
    instance whose table function is ``name`` (:func:`.pyaccess.table_source`,
    whose FB instances' functions it calls where it does not write them inline)
    with its variables held, called with ``args`` (the texts of its inputs in
    order: a literal, or a slot ``s[12]``, which only a slot of ``steady`` is
    sure to keep during the run), copying ``publish`` (output slot, slot) after
    each scan; None where there is none (see the module docstring)."""
    code = info.code
    if info.in_outs or len(code.body) > pyemit.PART_STATEMENTS or returns_in_loop(code):
        return None
    frame = leaf_frame(info, places, name)
    inline = written_inline(info, frame)
    held = {slot: f"_h{slot}" for slot in sorted(held_slots(info, frame, inline))}
    access = HeldAccess(frame, held, True, inline, [])
    edged = {v.local for v, local in access.edge_inputs if local is not None}
    before, scan = [], []
    for param, arg in zip(frame.params, args):
        slot = int(arg[2:-1]) if is_slot(arg) else None
        if slot is None or (slot in steady and slot not in held):
            before.append(f"    {param} = {arg}")
            if param not in edged:
                continue    # else its edge's value replaces it in each scan: read again
        # an input the program keeps in its own slot (a located one), or a slot a
        # scan may write: read in each scan
        scan.append(f"            {param} = {held.get(slot, arg)}")
    scan += body_lines(info, access, 3)
    # the output image as each scan leaves it, in locals too: a fault in the next scan
    # leaves it so, and only the last is stored
    image = {slot: f"_o{slot}" for slot, _src in publish}
    scan += [f"            {image[slot]} = {held.get(src, f's[{src}]')}" for slot, src in publish]
    stores = [f"        s[{slot}] = {local}" for slot, local in (*held.items(), *image.items())]
    # scans run until one raises; the held variables go back to the table either way
    return "\n".join([
        f"def {name}_held(s, now, _cycle, _scans):", *before,
        *(f"    {local} = s[{slot}]" for slot, local in (*held.items(), *image.items())),
        "    _done = 0", "    try:", "        for _done in range(_scans):", *scan,
        "            now += _cycle", "    except Exception as fault:",
        "        raise _ScansDone(_done) from fault", "    finally:", *(stores or ["        pass"]),
        "    return _scans", ""])


__all__ = ["HeldAccess", "held_scan", "held_slots", "inlined", "written_inline",
           "INLINE_STATEMENTS"]
