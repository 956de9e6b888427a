"""Where a POU's variables live in its native function (see :mod:`.pou`).

A place is memory: cell ``off`` from the pointer ``ptr`` (``%s``, the table,
for an instance's variables; a stack slot for a FUNCTION's, a variable a
loop keeps in a register, a temporary), 8 bytes a cell; an ARRAY or
STRUCT is the first cell of its region (:mod:`.regions`). A value that is
only read (an input the body does not write, the clock) is a :class:`V`.
"""

from __future__ import annotations

from ..st.model import LibraryFb, kept_name
from . import regions
from .values import I64, B, V, slot_kind


class Place:
    """Memory: ``off`` cells (an int, or a V for a computed one) after ``ptr``;
    ``single``: a stack slot of its own holding a REAL as a ``float`` (a table
    cell holds it as a double, exactly)."""
    __slots__ = ("ptr", "off", "tp", "single")

    def __init__(self, ptr: str, off, tp, single: bool = False):
        self.ptr, self.off, self.tp, self.single = ptr, off, tp, single


class Frame:
    """A POU instance's variables in the table: ``slots`` path (upper) -> slot,
    ``cells`` slot -> its first cell (an ARRAY's or STRUCT's region, else the
    slot), ``globals`` NAME -> slot, ``args`` the variables passed in:
    NAME -> the parameter (a V read as is, or a pointer for an aggregate or a
    VAR_IN_OUT)."""

    def __init__(self, info, slots: dict, cells: dict, globals_: dict, name: str):
        self.info = info
        self.slots = slots
        self.cells = cells
        self.globals = globals_
        self.name = name
        self.args: dict = {}
        self.params: list = []      # LLVM parameters after ptr %s, i64 %now
        self.inputs = None          # a block's: (Var, what its parameter gives), in port order

    def cell(self, path: str) -> int:
        slot = self.slots[path.upper()]
        return self.cells.get(slot, slot)

    def inner(self, var, info) -> "Frame":
        prefix = var.path.upper() + "."
        slots = {k[len(prefix):]: v for k, v in self.slots.items() if k.startswith(prefix)}
        frame = Frame(info, slots, self.cells, self.globals,
                      f"{self.name}.{var.path.replace('.', '_')}")
        for k, v in enumerate(info.in_outs):
            frame.args[v.name.upper()] = Place(f"%io{k}", 0, v.type)
            frame.params.append(f"ptr %io{k}")
        return frame


def leaf_frame(info, places: dict, cells: dict, name: str) -> Frame:
    """The frame of a POU's block in a network (``places``: its outputs' and
    state's slots by name; ``cells``: the first cell of each aggregate's region)."""
    slots = {k.upper(): v for k, v in places.items()}
    globals_ = {g.upper(): slots[g.upper()] for g in info.externals}
    kept = {v.name.upper() for v in info.kept_inputs}
    for v in info.kept_inputs:
        slots[v.name.upper()] = slots[kept_name(v.name).upper()]
    frame = Frame(info, slots, cells, globals_, name)
    frame.inputs = []
    for k, v in enumerate(info.inputs):
        param, value = param_of(v.type, f"%in{k}")
        frame.params.append(param)
        frame.inputs.append((v, value))
        if v.name.upper() not in kept:
            frame.args[v.name.upper()] = value
    return frame


def param_of(tp, name: str):
    """(LLVM parameter, what the body reads) of an input of type ``tp``."""
    if regions.aggregate(tp):
        return f"ptr {name}", Place(name, 0, tp)
    kind = slot_kind(tp)
    if kind == "d":
        return f"double {name}", V("f", name)
    if kind == "b":
        return f"i64 {name}", B(name, 64)
    if kind == "Q":     # an unsigned 64-bit value: the body works on it widened
        return f"i64 {name}", Place(name + ".q", 0, tp)
    c = tp.canonical
    return f"i64 {name}", V("i", name, c.min, c.max, 64)


def storage_of(frame: Frame, var, cached: dict, edges: dict):
    """A variable's place in an instance's function (a Place, or a V only read)."""
    path = var.path.upper()
    if path == "__CURRENT_TIME":
        return V("i", "%now", 0, I64[1], 64)
    local = cached.get(path) or edges.get(path)
    if local is not None:
        return local
    if var.section == "VAR_EXTERNAL":
        slot = frame.globals[var.name.upper()]
        return Place("%s", frame.cells.get(slot, slot), var.type)
    arg = frame.args.get(path)
    if arg is not None:
        return arg
    return Place("%s", frame.cell(path), var.type)


def table_variable(frame: Frame, path: str):
    """The table slot of an own variable a call may hold in a register (None if it
    may not: an input passed in, a global, an inner instance's)."""
    name = path.upper()
    if name in frame.args:
        return None
    var = frame.info.variables.get(name.split(".")[0])
    if var is None or var.section == "VAR_EXTERNAL":
        return None
    if "." in name and not isinstance(var.fb, LibraryFb):
        return None
    if "." not in name and regions.aggregate(var.type):
        return None     # its region stays in the table
    return frame.slots.get(name)


__all__ = ["Place", "Frame", "leaf_frame", "param_of", "storage_of", "table_variable"]
