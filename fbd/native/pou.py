"""A POU's body (:mod:`fbd.st.ir`) as LLVM IR: what the native engine runs for
an ST, IL or SFC block.

The same compiled body the Python engine's code is written from becomes one
LLVM function per POU instance (:class:`PouLowering`), over the native table:
every variable at a constant cell (:mod:`.pouframe`), an ARRAY or STRUCT a
region of cells, so ``a[i]`` is one computed address; IF and the loops are
branches, CASE a binary search of signed comparisons over its labels' ranges
(:mod:`.poucontrol`); an FB instance inside is its own function, called with
the table, a FUNCTION a function that takes its inputs and writes its result
and outputs to a buffer of the caller's. Each operator, standard function and
standard FB (the body's :class:`~fbd.st.ir.Code` nodes, see :mod:`.pouvalues`)
goes through the translator every block's code goes through (:mod:`.lower`):
one meaning of ``+`` or TON for the whole engine. REAL operations are computed
in double and rounded to single precision, as C's ``float`` gives.

A variable a loop uses lives in a register for the call (written back when
the call returns); the watchdog counts iterations as the Python engine
does. A fault (an index outside its bounds, the watchdog) ends the call:
the variables are written back, the fault's value (the index) goes to a
cell of the table, and the function returns the fault's site number (0:
none), which each caller hands up; the engine raises the Python engine's
error for that site (:attr:`NativeModule.sites`).

What has no native form raises :class:`~.values.NoNativeForm` naming the
POU and the line: a STRING variable, an ARRAY or STRUCT passed to or from a
FUNCTION.
"""

from __future__ import annotations

import itertools

from ..st import ir
from ..st.model import LibraryFb
from ..st.model import Var as StVar
from ..st.pyaccess import fresh_variables, loop_variables
from ..st.ranges import Ranges
from ..st.stmts import WATCHDOG_ITERATIONS
from . import regions
from .apart import Groups
from .builder import ValueBuilder
from .poucalls import PouCalls, _whole, buffer_offsets
from .poucontrol import PouControl, case_segments
from .pouframe import (
    PURE_CALLS,
    Frame,
    Memory,
    Place,
    clobbers,
    reassigned_temps,
    storage_of,
    table_variable,
)
from .pouparts import PouParts
from .pouvalues import PouValues
from .values import B, NoNativeForm, V, slot_kind


class NativeModule(Groups):
    """What the functions of one compiled module share: their definitions (in
    groups, :class:`~.apart.Groups`), the fault sites (shared by the whole
    program), the FUNCTIONs made once."""

    def __init__(self, sites: list, trap_cell: int, fault_cell: int, trap_code: int,
                 base: int = 0, number: int = 0):
        super().__init__()
        self.sites = sites              # (kind, where, lo, hi): fault base + k + 1 is the k-th
        self.base = base
        self.number = number            # the program's number of the module (names made here)
        self.trap_cell = trap_cell
        self.fault_cell = fault_cell
        self.trap_code = trap_code      # what a library block's trap records (the leaf)
        self.functions: dict = {}       # fn_name -> LLVM name of a FUNCTION made here
        self.made: set = set()
        #: a block's code translated (see PouLowering.block_code): its lines, its outputs
        self.lowered: dict = {}
        #: (id of a block, its ports) -> (the block, kept so that its id stays its own;
        #: its inputs; its code's text)
        self.texts: dict = {}
        #: (FB type, layout, globals) -> the function its instances share (see Frame)
        self.shared: dict = {}

    def site(self, kind: str, where: str, lo: int = 0, hi: int = 0) -> int:
        self.sites.append((kind, where, lo, hi))
        return self.base + len(self.sites)

    def function_of(self, info) -> str:
        """The LLVM function of a FUNCTION POU, made in this module once."""
        name = self.functions.get(info.fn_name)
        if name is None:
            # the module's number in the name: code compiled apart links to it by name
            name = self.functions[info.fn_name] = \
                f"@f.{info.fn_name}.{len(self.functions)}.m{self.number}"
            self.define(name, PouLowering(info.code, None, self, name).function())
        return name


class PouLowering(PouValues, PouControl, PouParts, PouCalls, Memory, ValueBuilder):
    """One POU instance's function (``frame`` a :class:`~.pouframe.Frame`), or a
    FUNCTION's (``frame`` None): ``i64 name(ptr %s, i64 %now, ...)``, returning 0
    or the site number of the fault that ended it."""

    PAIR = "{i64, i1}"      # these lines are not a template (see Arithmetic.PAIR)
    overflow_sums = True

    def __init__(self, code: ir.PouCode, frame: Frame | None, module: NativeModule, name: str):
        super().__init__()
        self.code = code
        self.info = code.info
        self.frame = frame
        self.module = module
        self.name = name
        self.ranges = Ranges(code)
        self.allocas: list[str] = []
        self.temps: dict = {}           # temporary name -> its value, or its Place (see set_temp)
        self.reassigned = reassigned_temps(code.body)
        self.cached: dict = {}          # path -> Place of a variable held for the call
        self.edges: dict = {}           # path -> Place of an edge input's value this call
        self.locals: dict = {}          # FUNCTION: path -> Place
        self.loops: list = []           # (continue label, exit label)
        self.items: dict = {}           # CallFunction -> its buffer
        self._labels = itertools.count()
        self.terminated = False
        self.line_node = None           # the statement being written (for messages)
        self.returning = "0"            # what a RETURN returns (see .pouparts)
        # within the current basic block: (pointer, constant offset) -> its address, and
        # pointer -> {offset: what the cell holds} (stored or loaded here; see forget)
        self.addresses: dict = {}
        self.held: dict = {}

    # -- scaffolding ----------------------------------------------------------------
    def tmp(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def emit(self, rhs: str) -> str:
        self.reopen()
        if self.held and rhs.startswith("call ") and not rhs.startswith(PURE_CALLS):
            self.held = {}      # a POU's function writes the table
        return super().emit(rhs)

    def put(self, text: str) -> None:
        """A line that is not a value (see :meth:`~.pouframe.Memory.write` for stores
        the loads after it may take the value of)."""
        self.reopen()
        if self.held and clobbers(text):
            self.held = {}
        self.lines.append(text)

    def reopen(self) -> None:
        if self.terminated:     # code after a jump (after EXIT, RETURN): a block no one enters
            self.forget()
            self.lines.append(f"dead{next(self._labels)}:")
            self.terminated = False

    def forget(self) -> None:
        """A new basic block: what the last one computed is not known to dominate it
        (another path may enter), so cells are loaded and addresses computed anew."""
        self.addresses = {}
        self.held = {}

    def label(self, what: str) -> str:
        return f"{what}{next(self._labels)}"

    def start(self, label: str) -> None:
        if not self.terminated:
            self.lines.append(f"  br label %{label}")
        self.forget()
        self.lines.append(f"{label}:")
        self.terminated = False

    def jump(self, label: str) -> None:
        self.put(f"  br label %{label}")
        self.terminated = True

    def branch(self, cond: V, yes: str, no: str) -> None:
        self.put(f"  br i1 {self.cond(self.truth(cond))}, label %{yes}, label %{no}")
        self.terminated = True

    def alloca(self, ty: str = "i64", count: int = 1) -> str:
        name = f"%a{len(self.allocas)}"
        self.allocas.append(f"  {name} = alloca {ty}" if count == 1 else
                            f"  {name} = alloca [{count} x i64]")
        return name

    def fail(self, what: str):
        node = self.line_node
        at = f", line {node.line}" if node is not None else ""
        raise NoNativeForm(f"{self.info.label}{at}: {what}")

    def trap(self, cond: str, reason: int) -> None:
        old = self.emit("load i64, ptr %trap")
        free = self.emit(f"icmp eq i64 {old}, 0")
        hit = self.emit(f"and i1 {cond}, {free}")
        new = self.emit(f"select i1 {hit}, i64 {self.module.trap_code}{reason}, i64 {old}")
        self.put(f"  store i64 {new}, ptr %trap")

    # -- the function ---------------------------------------------------------------
    def function(self) -> str:
        frame = self.frame
        params = ["ptr %s", "i64 %now"]
        if frame is None:
            params.append("ptr %out")
            params += self.function_params()
        else:
            params += frame.params
        self.lines = []
        self.prologue()
        self.body(params)
        if not self.terminated:
            self.leave("0")
        self.module.declare(self.name, params)
        head = [f"define internal i64 {self.name}({', '.join(params)}) {{", "entry:",
                f"  %trap = getelementptr i64, ptr %s, i64 {self.module.trap_cell}"]
        return "\n".join(head + self.allocas + self.lines + ["}"])

    def function_params(self) -> list[str]:
        info = self.info
        out = []
        for k, v in enumerate(info.inputs):
            if regions.cells(v.type) is None:
                self.fail(f"FUNCTION {info.name}'s input {v.name} is {v.type.name}, which has "
                          f"no native form")
            # an ARRAY or STRUCT: the caller's copy, which the call may change
            ty = "ptr" if regions.aggregate(v.type) else (
                "double" if slot_kind(v.type) == "d" else "i64")
            out.append(f"{ty} %in{k}")
        out += [f"ptr %io{k}" for k in range(len(info.in_outs))]
        return out

    def prologue(self) -> None:
        info, frame = self.info, self.frame
        if self.code.loops:
            self.wd = self.alloca()
            self.put(f"  store i64 {WATCHDOG_ITERATIONS}, ptr {self.wd}")
        if frame is None:
            return self.function_prologue()
        given = {}                      # a block's inputs, as its parameters give them
        for v, value in frame.inputs or ():
            if isinstance(value, Place) and value.ptr.endswith(".q"):   # ULINT: widened
                value = self.widened(value.ptr[:-2], v.type)
                if v.name.upper() in frame.args:
                    frame.args[v.name.upper()] = value
            given[v.name.upper()] = value
        for v in info.inputs:
            name = v.name.upper()
            own = frame.place(v.name, v.type) if name in frame.slots else None
            raw = given[name] if name in given else self.load(own, v.type)
            edge = getattr(v.node, "edge", None)
            if edge is not None:        # TRUE in the call that sees the edge
                last = frame.place(f"{v.path}__{edge}", v.type)
                was = self.load(last, v.type)
                value = (self.both("and", raw, self.negate(was)) if edge == "R_EDGE"
                         else self.both("and", was, self.negate(raw)))
                self.store(last, raw, v.type)
                if name in given and own is not None:       # kept: the instance's input
                    self.store(own, value, v.type)
                else:
                    place = self.edges[v.path.upper()] = Place(self.alloca(), 0, v.type)
                    self.store(place, value, v.type)
            elif name in given and own is not None:         # kept from the call on
                self.assign(own, raw, v.type)
        for v in fresh_variables(info):
            self.constant_into(frame.place(v.path, v.type),
                               v.init if v.init is not None else v.type.default, v.type)
        for path in loop_variables(self.code):
            slot = table_variable(frame, path)
            var = self.var_of(path)
            if slot is None or var is None or var.type is None or slot_kind(var.type) is None:
                continue
            place = self.scalar_local(var.type)
            self.store(place, self.load(frame.at(slot, var.type), var.type), var.type)
            self.cached[path] = place

    def function_prologue(self) -> None:
        info = self.info
        for k, v in enumerate(info.inputs):
            if regions.aggregate(v.type):
                self.locals[v.path.upper()] = Place(f"%in{k}", 0, v.type)
                continue
            place = self.locals[v.path.upper()] = self.new_local(v.type)
            kind = slot_kind(v.type)
            value = V("f", f"%in{k}") if kind == "d" else (
                B(f"%in{k}", 64) if kind == "b" else self.widened(f"%in{k}", v.type))
            self.store(place, value, v.type)
        for k, v in enumerate(info.in_outs):
            self.locals[v.path.upper()] = Place(f"%io{k}", 0, v.type)
        fresh = {id(v) for v in fresh_variables(info)}
        for v in info.variables.values():
            if v.fb is not None or v.path.upper() in self.locals:
                continue
            place = self.locals[v.path.upper()] = self.new_local(v.type)
            if id(v) in fresh or v.section == "RESULT":
                self.constant_into(place, v.init if v.init is not None else v.type.default,
                                   v.type)
        result = info.variables.get(info.name.upper())
        if result is None or result.section != "RESULT":
            place = self.locals[info.name.upper()] = self.new_local(info.result_type)
            self.constant_into(place, info.result_type.default, info.result_type)

    def leave(self, code: str) -> None:
        """Write back what the call holds, then return ``code``."""
        for path, place in self.cached.items():
            var = self.var_of(path)
            slot = self.frame.slots[path]
            self.store(self.frame.at(slot, var.type),
                       self.load(place, var.type), var.type)
        if self.frame is None:
            info = self.info
            values = [(self.locals[info.name.upper()], info.result_type)]
            values += [(self.locals[v.path.upper()], v.type) for v in info.outputs]
            for (place, tp), at in zip(values, buffer_offsets(info)):
                if regions.aggregate(tp):
                    self.assign(Place("%out", at, tp), place, tp)
                else:
                    self.store(Place("%out", at, tp), self.load(place, tp), tp)
        self.put(f"  ret i64 {code}")
        self.terminated = True

    def fault(self, site: int, value: V | None = None) -> None:
        """End the call at a fault of ``site``; ``value`` (an index) for its message."""
        if value is not None:
            cell = self.emit(f"getelementptr i64, ptr %s, i64 {self.module.fault_cell + 1}")
            self.put(f"  store i64 {self.low64(value)}, ptr {cell}")
        self.leave(str(site))

    def low64(self, v: V) -> str:
        """An integer value as an i64 operand (its low 64 bits)."""
        v = self.to_int(v)
        return self.ext(v, 64) if v.w <= 64 else self.emit(f"trunc i128 {v.ref} to i64")

    # -- variables --------------------------------------------------------------------
    def var_of(self, path: str):
        name = path.upper()
        var = self.info.variables.get(name)
        if var is not None:
            return var
        head, _, rest = name.partition(".")
        owner = self.info.variables.get(head)
        if owner is None or owner.fb is None:
            return None
        fb = owner.fb
        if isinstance(fb, LibraryFb):
            member = fb.member_name(rest)
            return StVar(member, path, "", fb.member_type(member)) if member else None
        return None

    def storage(self, var):
        if self.frame is None:
            path = var.path.upper()
            if path == "__CURRENT_TIME":
                return V("i", "%now", 0, (1 << 63) - 1, 64)
            place = self.locals.get(path)
            if place is None:
                self.fail(f"the variable {var.path} has no place")
            return place
        return storage_of(self.frame, var, self.cached, self.edges)

    def address(self, e) -> Place:
        """The place of a variable path (a Ref, an element, a member)."""
        if isinstance(e, ir.Ref):
            where = self.storage(e.var)
            if not isinstance(where, Place):
                self.fail(f"{e.var.path} cannot be written")
            return where
        if isinstance(e, ir.FnCall):
            out, offsets = self.function_call(e.info, e.args)
            return Place(out, offsets[0], e.type)
        if isinstance(e, ir.Item):
            out, offsets = self.items[e.call.name]
            return Place(out, offsets[e.k], e.type)
        if isinstance(e, ir.Copy):
            return self.address(e.a)
        if isinstance(e, ir.Field):
            base = self.address(e.base)
            return Place(base.ptr, self.add_cells(base.off, regions.field_offset(
                e.base.type, e.index)), e.type)
        if isinstance(e, ir.Elem):
            base = self.address(e.base)
            size = regions.cells(e.type)
            if size is None:
                self.fail(f"{e.type.name} elements have no native form")
            off = self.add_cells(base.off, e.constant * size)
            for term, lo, stride in e.terms:
                index = self.to_int(self.expr(term))
                if index.modular or index.w != 64:
                    self.fail("an array index wider than 64 bits")
                scaled = self.emit(f"sub i64 {index.ref}, {lo}")
                if stride * size != 1:
                    scaled = self.emit(f"mul i64 {scaled}, {stride * size}")
                off = self.add_cells(off, V("i", scaled, None, None, 64))
            return Place(base.ptr, off, e.type)
        self.fail(f"{type(e).__name__} is not a variable")

    # -- statements ---------------------------------------------------------------------
    def statements(self, body: list) -> None:
        for s in body:
            self.statement(s)

    def statement(self, s) -> None:
        kind = type(s)
        if kind is ir.Line:
            self.line_node = s.node
        elif kind is ir.Assign:
            tp = s.target.type
            if regions.aggregate(tp):
                self.assign(self.address(s.target), self.address(_whole(s.value)), tp)
            else:
                self.assign(self.address(s.target), self.expr(s.value), tp)
        elif kind is ir.SetTemp:
            self.ranges.assigned(s.temp, s.value)
            self.set_temp(s.temp, self.expr(s.value))
        elif kind is ir.Code:
            self.block_code(s)
        elif kind is ir.Check:
            self.check(s)
        elif kind is ir.Eval:
            self.expr(s.value)
        elif kind is ir.If:
            self.if_(s)
        elif kind is ir.Case:
            self.case(s)
        elif kind is ir.For:
            self.for_(s)
        elif kind is ir.While:
            self.while_(s)
        elif kind is ir.Repeat:
            self.repeat(s)
        elif kind is ir.Exit:
            self.jump(self.loops[-1][1])
        elif kind is ir.Continue:
            self.jump(self.loops[-1][0])
        elif kind is ir.Return:
            self.leave(self.returning)
        elif kind is ir.CallFb:
            self.call_fb(s)
        elif kind is ir.CallFunction:
            self.call_function(s)
        else:
            self.fail(f"the statement {kind.__name__}")

    def returned(self, code: str) -> None:
        """A callee's result: a fault is handed up, after writing back."""
        bad = self.emit(f"icmp ne i64 {code}, 0")
        out, ok = self.label("fault"), self.label("ok")
        self.branch(B(bad), out, ok)
        self.start(out)
        self.leave(code)
        self.start(ok)


__all__ = ["PouLowering", "NativeModule", "case_segments"]
