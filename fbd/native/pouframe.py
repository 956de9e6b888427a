"""Where a POU's variables live in its native function (see :mod:`.pou`).

A place is memory: cell ``off`` from the pointer ``ptr`` (``%s``, the table,
for an instance's variables; a stack slot for a FUNCTION's, a variable a
loop keeps in a register, a temporary), 8 bytes a cell; an ARRAY or
STRUCT is the first cell of its region (:mod:`.regions`). A value that is
only read (an input the body does not write, the clock) is a :class:`V`.
"""

from __future__ import annotations

from ..st import ir
from ..st.model import LibraryFb, kept_name
from . import regions
from .values import I64, TRAP_RANGE, B, V, const, slot_kind


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
    VAR_IN_OUT).

    ``bases``: None where the function is this instance's alone (its cells are
    constants from ``%s``), else the first slot and the first region cell of the
    instance whose layout the function was made over: the function then reaches
    its slots from ``%sb`` and its regions from ``%rb``, which each call passes,
    so every instance of one FB type laid out alike shares it."""

    def __init__(self, info, slots: dict, cells: dict, globals_: dict, name: str):
        self.info = info
        self.slots = slots
        self.cells = cells
        self.globals = globals_
        self.name = name
        self.args: dict = {}
        self.params: list = []      # LLVM parameters after ptr %s, i64 %now
        self.inputs = None          # a block's: (Var, what its parameter gives), in port order
        self.bases = None
        self._members = None        # instance name -> {its paths: slot}, made on first use

    def at(self, slot: int, tp) -> Place:
        """The place of one of this instance's slots (its region for an aggregate)."""
        cell = self.cells.get(slot)
        if self.bases is None:
            return Place("%s", slot if cell is None else cell, tp)
        if cell is None:
            return Place("%sb", slot - self.bases[0], tp)
        return Place("%rb", cell - self.bases[1], tp)

    def place(self, path: str, tp) -> Place:
        return self.at(self.slots[path.upper()], tp)

    def slot_pointer(self, slot: int) -> Place:
        """Where slot ``slot`` itself is (never its region)."""
        if self.bases is None:
            return Place("%s", slot, None)
        return Place("%sb", slot - self.bases[0], None)

    def region_pointer(self, cell: int) -> Place:
        if self.bases is None:
            return Place("%s", cell, None)
        return Place("%rb", cell - self.bases[1], None)

    def inner(self, var, info) -> "Frame":
        key = var.path.upper()
        if "." in key:
            prefix = key + "."
            slots = {k[len(prefix):]: v for k, v in self.slots.items() if k.startswith(prefix)}
        else:       # grouped once: a program of 500 instances scanned its slots 500 times
            if self._members is None:
                self._members = {}
                for k, v in self.slots.items():
                    head, dot, rest = k.partition(".")
                    if dot:
                        self._members.setdefault(head, {})[rest] = v
            slots = self._members.get(key, {})
        frame = Frame(info, slots, self.cells, self.globals,
                      f"{self.name}.{var.path.replace('.', '_')}")
        for k, v in enumerate(info.in_outs):
            frame.args[v.name.upper()] = Place(f"%io{k}", 0, v.type)
            frame.params.append(f"ptr %io{k}")
        return frame

    def layout(self):
        """(first slot, first region cell or None, the layout relative to them), or None for
        an instance with no slots: two instances with the same layout can share one
        function taking their bases."""
        if not self.slots:
            return None
        first = min(self.slots.values())
        regions_ = [self.cells[v] for v in self.slots.values() if v in self.cells]
        region = min(regions_) if regions_ else None
        shape = tuple((k, v - first, self.cells[v] - region if v in self.cells else None)
                      for k, v in self.slots.items())
        return first, region, shape


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
    return frame.place(path, var.type)


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


#: calls that read and write no memory of the program's (the math library's)
PURE_CALLS = ("call double @llvm.", "call i64 @llvm.", "call double @log", "call double @sin",
              "call double @cos", "call double @tan", "call double @asin", "call double @acos",
              "call double @atan", "call double @exp", "call double @pow")


def clobbers(line: str) -> bool:
    """Whether an IR line may change a cell of the table or of the stack."""
    if "store " in line:
        return not line.endswith("ptr %trap")      # the trap cell is no variable's
    at = line.find("call ")
    return at >= 0 and not line.startswith(PURE_CALLS, at)


def reassigned_temps(body: list) -> set:
    """The temporaries assigned in more than one place of ``body``."""
    seen, twice = set(), set()
    inputs: dict = {}
    stack = [body]
    while stack:        # ir.walk's order does not matter here, and this is quicker
        for s in stack.pop():
            kind = type(s)
            if kind is ir.Code:
                ports = inputs.get(id(s.block))
                if ports is None:
                    ports = inputs[id(s.block)] = {p.name for p in s.block.input_ports()}
                for port, e in s.names.items():
                    if type(e) is ir.Temp and port not in ports:
                        (twice if e.name in seen else seen).add(e.name)
            elif kind is ir.SetTemp or kind is ir.Check:
                name = s.temp.name
                (twice if name in seen else seen).add(name)
            elif kind in _COMPOUND:
                stack.extend(ir.children(s))
    return twice


_COMPOUND = (ir.If, ir.Case, ir.For, ir.While, ir.Repeat)


def cell_type(tp, single: bool = False) -> str:
    """The IR type a place of ``tp`` holds (``single``: a REAL kept as a float)."""
    if single:
        return "float"
    return "double" if slot_kind(tp) == "d" else "i64"


class Memory:
    """Reading and writing places in a POU's native function (a mixin of
    :class:`~.pou.PouLowering`): a table cell holds a REAL as a double, a stack
    slot of a REAL variable holds it as a float."""

    def new_local(self, tp) -> Place:
        n = regions.cells(tp)
        if n is None:
            self.fail(f"{tp.name} variables have no native form")
        if regions.aggregate(tp):
            return Place(self.alloca(count=n), 0, tp)
        return self.scalar_local(tp)

    def scalar_local(self, tp) -> Place:
        """A stack slot for one value of ``tp``: a REAL as a ``float``, so the
        optimiser computes REAL arithmetic in single precision, as C does (a
        double operation of two floats rounded to float is the float operation)."""
        kind = slot_kind(tp)
        if kind == "d" and tp.canonical.bits == 32:
            return Place(self.alloca("float"), 0, tp, single=True)
        return Place(self.alloca("double" if kind == "d" else "i64"), 0, tp)

    def widened(self, ref: str, tp) -> V:
        if slot_kind(tp) == "Q":
            return V("i", self.emit(f"zext i64 {ref} to i128"), 0, (1 << 64) - 1, 128)
        c = tp.canonical
        return V("i", ref, c.min, c.max, 64)

    def add_cells(self, off, more):
        if isinstance(off, int) and isinstance(more, int):
            return off + more
        a = str(off) if isinstance(off, int) else off.ref
        b = str(more) if isinstance(more, int) else more.ref
        return V("i", self.emit(f"add i64 {a}, {b}"), None, None, 64)

    def pointer(self, place: Place) -> str:
        if self.terminated:     # what was known belongs to the block that ended
            self.reopen()
        off = place.off
        if type(off) is int:
            if off == 0:
                return place.ptr
            key = (place.ptr, off)
            known = self.addresses.get(key)
            if known is None:
                known = self.addresses[key] = self.emit(
                    f"getelementptr i64, ptr {place.ptr}, i64 {off}")
            return known
        return self.emit(f"getelementptr i64, ptr {place.ptr}, i64 {off.ref}")

    def load(self, place, tp) -> V:
        if isinstance(place, V):
            return place
        if self.terminated:
            self.reopen()
        off = place.off
        if type(off) is int:
            cells = self.held.get(place.ptr)
            if cells is None:
                cells = self.held[place.ptr] = {}
            raw = cells.get(off)
            if raw is None:
                raw = cells[off] = self.emit(
                    f"load {cell_type(tp, place.single)}, ptr {self.pointer(place)}")
        else:
            raw = self.emit(f"load {cell_type(tp, place.single)}, ptr {self.pointer(place)}")
        return self.cell_value(raw, tp, place.single)

    def write(self, place: Place, raw: str, ty: str) -> None:
        """Store ``raw`` (of IR type ``ty``) at ``place`` and remember it for the loads
        after it in this basic block (see :meth:`~.pou.PouLowering.forget`)."""
        p = self.pointer(place)
        self.reopen()
        self.lines.append(f"  store {ty} {raw}, ptr {p}")
        ptr, off = place.ptr, place.off
        if not isinstance(off, int):        # any cell of the table: only the stack is known
            self.held = {k: v for k, v in self.held.items() if k.startswith("%a")}
            return
        if not ptr.startswith("%a"):
            # another pointer into the table may reach the same cell: only its own
            # constant offsets (and the stack slots, which nothing else reaches) stay
            self.held = {k: v for k, v in self.held.items() if k == ptr or k.startswith("%a")}
        self.held.setdefault(ptr, {})[off] = raw

    def cell_value(self, raw: str, tp, single: bool = False) -> V:
        """The value a cell holding ``raw`` (as :meth:`cell_operand` writes it) gives."""
        kind = slot_kind(tp)
        if single:
            wide = self.emit(f"fpext float {raw} to double")
            self.float_of[wide] = raw
            return V("f", wide)
        if kind == "d":
            return V("f", raw)
        if kind == "b":
            return B(raw, 64)
        return self.widened(raw, tp)

    def store(self, place: Place, v: V, tp) -> None:
        self.write(place, self.cell_operand(v, tp, place.single), cell_type(tp, place.single))

    def cell_operand(self, v: V, tp, single: bool = False) -> str:
        """``v`` as the operand a cell of ``tp`` holds (``single``: a float)."""
        kind = slot_kind(tp)
        if kind == "d":
            if v.k == "i" and (v.modular or v.lo < -(1 << 53) or v.hi > (1 << 53)):
                self.fail("an integer beyond 2**53 stored in a REAL")
            ref = self.to_float(v).ref
            if not single:
                return ref
            # a REAL value, exact in a float: the float it was widened from, if known
            known = self.float_of.get(ref)
            return known if known is not None else self.emit(f"fptrunc double {ref} to float")
        if kind == "b":
            return self.wide(self.truth(v)).ref
        v = self.to_int(v)
        if v.modular:
            self.fail(f"a {tp.name} value of unknown range")
        if kind == "q":
            c = tp.canonical
            if v.lo < c.min or v.hi > c.max:
                bad = self.emit(f"icmp slt i{v.w} {v.ref}, {c.min}")
                bad2 = self.emit(f"icmp sgt i{v.w} {v.ref}, {c.max}")
                self.trap(self.emit(f"or i1 {bad}, {bad2}"), TRAP_RANGE)
        return v.ref if v.w == 64 else self.emit(f"trunc i128 {v.ref} to i64")

    def assign(self, place: Place, value, tp) -> None:
        """``place := value``: a scalar stored, an ARRAY or STRUCT copied cell by cell."""
        if regions.aggregate(tp):
            if not isinstance(value, Place):
                self.fail(f"a {tp.name} value that is not a variable")
            n = regions.cells(tp)
            self.put(f"  call void @llvm.memmove.p0.p0.i64(ptr {self.pointer(place)}, "
                     f"ptr {self.pointer(value)}, i64 {8 * n}, i1 false)")
            return
        self.store(place, value, tp)

    def constant_into(self, place: Place, value, tp) -> None:
        """Write a constant (an aggregate's nested list too) into ``place``."""
        if regions.aggregate(tp):
            cells: list = []
            regions.write(lambda kind, at, x: cells.append((at, kind, x)), 0, tp, value)
            for at, kind, x in cells:
                sub = Place(place.ptr, self.add_cells(place.off, at), None)
                self.put_constant(sub, kind, x)
            return
        self.put_constant(place, slot_kind(tp), value)

    def put_constant(self, place: Place, kind, x) -> None:
        if place.single:
            self.store(place, const(float(x)), place.tp)
        elif kind == "d":
            self.write(place, const(float(x)).ref, "double")
        else:
            value = int(x)
            if kind == "Q" and value >= 1 << 63:
                value -= 1 << 64
            self.write(place, str(value), "i64")


__all__ = ["Place", "Frame", "Memory", "cell_type", "clobbers", "reassigned_temps", "PURE_CALLS",
           "leaf_frame", "param_of", "storage_of", "table_variable"]
