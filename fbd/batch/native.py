"""The native batch backend: one scan of n instances as machine code, through LLVM.

The table is a row of W lanes per slot in tiles of W instances
(:mod:`.layout`). Each block configuration's code is the native engine's
translation of its Python code (:mod:`.forms`), widened to W lanes and
optimised once (:mod:`.vector`), or run lane by lane (:mod:`.lanes`); every
instance formats it with the offsets of its rows. As in the native scan
engine, the blocks are cut into functions of :data:`CHUNK` and basic blocks
of :data:`BASIC_BLOCK`, each chunk is compiled to an object file (half of
them in a forked child), and a driver links them: for each tile, the
feedback copies, every chunk, then the published outputs. The scan is one
call from Python, a built-in function (:mod:`fbd.native.entry`).

The object quacks like :class:`~.program.BatchProgram` (``new_table``,
``scan``, ``read``, ``write``, ``set_forced``, ``regrown``, ``check_value``,
``per_instance``), so :class:`~.harness.BatchHarness` takes either.
"""

from __future__ import annotations

import ctypes
import re
import threading
from typing import NamedTuple

import numpy as np

from ..compiler.forkmap import map_in_two
from ..errors import FbdError
from ..native.entry import DECLARATIONS as ENTRY_DECLARATIONS
from ..native.entry import builtin, entry_source, python_api
from ..native.lower import DECLARATIONS, TRAP_REASONS
from ..native.program import NativeProgram, NativeTrap, NotNative
from ..native.stores import store_kind
from .forms import CLOCK_SLACK, BatchTemplates, assumptions, forms, pending
from .layout import (
    INSTANCES,
    LIVE,
    NARROW_RANGE,
    TABLE,
    TILES,
    TRAP,
    TRAP_LANE,
    WIDTH,
    Layout,
    Records,
    TileTable,
    internal_row,
    narrowed_row,
    row_of,
)
from .program import _slot_types

CHUNK = 512         # blocks per function; a force recompiles one
BASIC_BLOCK = 50    # blocks per basic block: LLVM's code generation stays linear
#: LLVM's code generation level for the chunks: the vector code needs its
#: register allocator and instruction combining (docs/batch.md)
CODEGEN_OPT = 0

_ATTRIBUTES = re.compile(r" #\d+")
#: llvmlite's global context is not safe to use from two threads at once
_LLVM_LOCK = threading.Lock()


def _llvm():
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


class NativeBatchProgram:
    """The code of one scan of ``flat`` over :class:`~.layout.TileTable` s of ``n``
    instances. Raises :class:`~fbd.native.NotNative` where a block or signal has
    no native form (the numpy engine then runs it)."""

    engine = "native"
    skips_retired = True

    def __init__(self, flat, n: int, width: int = WIDTH, narrow: bool = True):
        self.narrow = narrow
        self._templates = BatchTemplates(flat, narrow)
        # the scalar engine's check (NotNative, naming them), translating each
        # configuration once, into the templates the batch code is made of
        NativeProgram(flat, build=False, templates=self._templates)
        # the scalar engine runs ST, IL and SFC POUs as functions of their own, which
        # have no form over a batch's lanes: the numpy engine runs them per instance
        procedures = {leaf.block.name: f"{leaf.block.procedure.label} is compiled from a "
                                       f"text language (ST, IL or SFC)"
                      for leaf in flat.leaves if leaf.block.procedure is not None}
        if procedures:
            raise NotNative(flat.name, procedures)
        self.flat = flat
        self.n = n
        self.name = flat.name
        self.width = width
        self.forced: set[int] = set()
        self._scratch: dict[int, int] = {}
        self.slot_types = _slot_types(flat)
        self._output_bounds, self._clock_slots = assumptions(flat, self._templates)
        self.layout = self._layout()
        # a configuration is its scalar template and its slots' rows: a reader of a
        # narrowed TIME row and one of a 64-bit row are two (the same code, widened
        # from other lanes)
        self._configs: dict[tuple, int] = {}   # (id(scalar template), rows) -> config number
        self._config_of: list[int] = []        # leaf index -> config number
        waiting = []
        for leaf in flat.leaves:
            tpl = self._templates.of(leaf)
            rows = self._rows_of(leaf)
            key = (id(tpl), tuple(rows))
            k = self._configs.get(key)
            if k is None:
                k = self._configs[key] = len(waiting)
                waiting.append(pending(leaf, tpl, rows))
            self._config_of.append(k)
        self._pending = waiting
        self.state_bounds = self._bounds()
        with _LLVM_LOCK:
            self._build()

    # -- layout ------------------------------------------------------------------------
    def _layout(self) -> Layout:
        flat = self.flat
        regions = {}
        for leaf in flat.leaves:
            fifo = store_kind(leaf.block)
            if fifo is not None:
                regions[leaf.state["DATA"]] = (int(leaf.block.p["depth"]), fifo,
                                               row_of(leaf.types.get("T")))
        rows = []
        for slot, tp in enumerate(self.slot_types):
            if slot in regions:
                rows.append(None)
            elif tp is None:
                rows.append(internal_row(flat.slot_init[slot]))
            else:
                rows.append(row_of(tp))
        lo, hi = NARROW_RANGE
        for slot, (_path, (low, high)) in self._output_bounds.items():
            if lo <= low and high <= hi and rows[slot].ir == "i64":
                rows[slot] = narrowed_row(rows[slot])
        return Layout(rows, regions, self.width)

    def _leaf_slots(self, index: int) -> list:
        """The slots of a leaf's placeholders: wired inputs as read, then outputs
        and state as written (a forced slot's scratch)."""
        leaf = self.flat.leaves[index]
        ins = self._templates.reads[index][0]
        return [*ins, *(self._place(s) for s in (*leaf.outputs.values(), *leaf.state.values()))]

    def _rows_of(self, leaf) -> list:
        rows = self.layout.rows
        return [rows[s] for s in self._leaf_slots(leaf.index)]

    def _bounds(self) -> dict:
        """slot -> (path, (lo, hi)): integer state its block keeps within a narrower
        interval than its type's, which the code relies on (:meth:`check_value`)."""
        out = {}
        for leaf in self.flat.leaves:
            tpl = self._templates.of(leaf)
            for sv, bounds in self._templates.state_bounds.get(id(tpl), {}).items():
                out[leaf.state[sv]] = (leaf.path + "." + sv, bounds)
        return out

    @property
    def per_instance(self) -> dict:
        """Block configurations that run lane by lane, each with the reason."""
        out = {}
        for leaf, k in zip(self.flat.leaves, self._config_of):
            form = self._forms[k]
            if not form.vector:
                out.setdefault(repr(leaf.block), form.reason)
        return out

    @property
    def slot_dtypes(self) -> list:
        """The numpy dtype of each slot's values (``object``: a LIFO's or FIFO's lists)."""
        return [row.dtype if row is not None else "object" for row in self.layout.rows]

    @property
    def n_slots(self) -> int:
        return self.flat.n_slots + len(self._scratch)

    def bytes_per_instance(self) -> int:
        return -(-self.layout.tile // self.width)

    # -- tables ----------------------------------------------------------------------------
    def new_table(self) -> TileTable:
        """A fresh table: every slot's initial value in every instance."""
        table = TileTable(self.layout, self.n)
        table.fill_from(self._initial_tile)
        if self._clock_slots:
            table.clock_floor = max(self._clock_slots.values()) - CLOCK_SLACK
        return table

    def _first_tile(self) -> np.ndarray:
        one = TileTable(self.layout, 1)
        flat = self.flat
        for slot, init in enumerate(flat.new_table()):
            if slot in self.layout.regions or self.layout.rows[slot] is None:
                continue    # a LIFO's or FIFO's elements: an empty region is zeros
            if init is None:
                init = self.slot_types[slot].default
            one.write(slot, init)
        for real in sorted(self._scratch, key=self._scratch.get):
            one.write(self._scratch[real], one.read(real)[0])
        return one.buf.copy()

    def read(self, table: TileTable, slot: int) -> np.ndarray:
        return table.read(slot)

    def write(self, table: TileTable, slot: int, values) -> None:
        bound = self._output_bounds.get(slot)
        if bound is not None:
            lo, hi = bound[1]
            if np.min(values) < lo or np.max(values) > hi:
                self._widen(table)    # the rare path: beyond what the code assumes
        elif slot in self._clock_slots:
            table.clock_floor = max(table.clock_floor, int(np.max(values)) - CLOCK_SLACK)
        table.write(slot, values)

    def regrown(self, table: TileTable, new: list) -> TileTable:
        """``table`` with the scratch rows ``new`` (:meth:`set_forced`'s) added, each
        holding what its real slot holds."""
        if not new:
            return table
        table = table.regrown(self.layout)
        for real, scratch in self._scratch.items():
            if scratch in new:
                table.write(scratch, table.read(real))
        self._initial_tile = self._first_tile()
        return table

    def check_value(self, slot: int, values: np.ndarray) -> None:
        """Refuse a value written into a state slot outside what its block keeps
        there (the code's integer widths rely on it)."""
        bound = self.state_bounds.get(slot)
        if bound is None:
            return
        path, (lo, hi) = bound
        if values.size and (values.min() < lo or values.max() > hi):
            raise FbdError(f"{path}: the batch engine keeps this state within {lo}..{hi} "
                           f"(what its block ever stores there); {values.min()}..{values.max()} "
                           f"is outside")

    # -- retired instances --------------------------------------------------------------
    def freeze(self, table: TileTable, frozen, instances: np.ndarray):
        """Keep the values of ``instances`` (new ones, in order) as they are now, in
        ``frozen`` (None the first time: made here, and returned), and scan them
        no more (:meth:`TileTable.retire`)."""
        if frozen is None:
            plan = Records(self.layout, range(self.flat.n_slots))
            frozen = _Frozen(plan, plan.empty(self.n), {})
        elif frozen.plan.layout is not self.layout:     # the rows were widened since
            plan = Records(self.layout, range(self.flat.n_slots))
            frozen = _Frozen(plan, frozen.plan.moved(frozen.records, plan, self.n), frozen.lists)
        for size, values in table.records(instances, frozen.plan).items():
            frozen.records[size][instances] = values
        for slot in self.layout.regions:
            lists = frozen.lists.setdefault(slot, np.empty(self.n, dtype=object))
            lists[instances] = table.read(slot)[instances]   # lists of their own
        table.retire(instances)
        return frozen

    def read_frozen(self, frozen, slot: int, instances: np.ndarray) -> np.ndarray:
        """The values of ``slot`` :meth:`freeze` kept for ``instances``."""
        if slot in frozen.lists:
            return frozen.lists[slot][instances]
        return frozen.plan.values(frozen.records, instances, slot)

    # -- code -------------------------------------------------------------------------------
    def _place(self, slot: int) -> int:
        if slot in self.forced and slot in self.flat.writer:
            scratch = self._scratch.get(slot)
            if scratch is None:
                scratch = self._scratch[slot] = self.layout.add(slot)
                self.slot_types.append(self.slot_types[slot])
            return scratch
        return slot

    def _instance(self, index: int) -> str:
        form = self._forms[self._config_of[index]]
        offsets = self.layout.offsets
        args = [offsets[s] for s in self._leaf_slots(index)]
        if self._pending[self._config_of[index]].region is not None:
            args.append(offsets[self.flat.leaves[index].state["DATA"]])
        return form.fmt.format(f"b{index}", index, *args)

    def _chunk_source(self, c: int, fname: str) -> str:
        w = self.width
        order = self.flat.order[c * CHUNK:(c + 1) * CHUNK]
        lanes = ", ".join(f"i64 {k}" for k in range(w))
        out = [f"define void @{fname}(ptr %tile, i64 %now, i64 %base, i64 %lanes, i64 %live, "
               f"ptr %trap) {{",
               "entry:",
               f"  %now1 = insertelement <{w} x i64> poison, i64 %now, i64 0",
               f"  %nowv = shufflevector <{w} x i64> %now1, <{w} x i64> poison, "
               f"<{w} x i32> zeroinitializer",
               f"  %lanes1 = insertelement <{w} x i64> poison, i64 %lanes, i64 0",
               f"  %lanesv = shufflevector <{w} x i64> %lanes1, <{w} x i64> poison, "
               f"<{w} x i32> zeroinitializer",
               f"  %held = icmp ult <{w} x i64> <{lanes}>, %lanesv",
               # the lanes of retired instances are computed, their traps not reported
               f"  %livew = trunc i64 %live to i{w}",
               f"  %livev = bitcast i{w} %livew to <{w} x i1>",
               f"  %valid = and <{w} x i1> %held, %livev"]
        cells = max((self._forms[self._config_of[i]].cells for i in order), default=0)
        if cells:
            out += [f"  %s = alloca [{cells} x i64], align 8", "  %lanei = alloca i64, align 8"]
        for pos, index in enumerate(order):
            if pos and pos % BASIC_BLOCK == 0:
                out += [f"  br label %L{pos}", f"L{pos}:"]
            out.append(self._instance(index))
        out += ["  ret void", "}"]
        return "\n".join(out)

    def _driver_source(self, fname: str) -> str:
        w, layout, flat = self.width, self.layout, self.flat
        out = [f"define i64 @{fname}(ptr %ctl, i64 %now) {{", "entry:",
               f"  %trapp = getelementptr i64, ptr %ctl, i64 {TRAP}",
               "  store i64 0, ptr %trapp",
               f"  %lanep = getelementptr i64, ptr %ctl, i64 {TRAP_LANE}",
               "  store i64 -1, ptr %lanep",
               f"  %tablep = getelementptr i64, ptr %ctl, i64 {TABLE}",
               "  %table = load ptr, ptr %tablep",
               f"  %tilesp = getelementptr i64, ptr %ctl, i64 {TILES}",
               "  %tiles = load i64, ptr %tilesp",
               f"  %np = getelementptr i64, ptr %ctl, i64 {INSTANCES}",
               "  %n = load i64, ptr %np",
               f"  %livetp = getelementptr i64, ptr %ctl, i64 {LIVE}",
               "  %livet = load ptr, ptr %livetp",
               "  br label %loop", "loop:",
               "  %t = phi i64 [ 0, %entry ], [ %t1, %next ]",
               "  %livep = getelementptr i64, ptr %livet, i64 %t",
               "  %live = load i64, ptr %livep",
               "  %idle = icmp eq i64 %live, 0",    # every instance of the tile retired
               "  br i1 %idle, label %next, label %body", "body:",
               f"  %off = mul i64 %t, {layout.tile}",
               "  %tile = getelementptr inbounds i8, ptr %table, i64 %off",
               f"  %base = mul i64 %t, {w}",
               "  %rest = sub i64 %n, %base",
               f"  %few = icmp ult i64 %rest, {w}",
               f"  %lanes = select i1 %few, i64 %rest, i64 {w}"]
        k = 0

        def copy(dst: int, src: int) -> None:
            nonlocal k
            k += 1
            size = layout.rows[src].size(w)
            out.extend([f"  %d{k} = getelementptr inbounds i8, ptr %tile, i64 {layout.offsets[dst]}",
                        f"  %s{k} = getelementptr inbounds i8, ptr %tile, i64 {layout.offsets[src]}",
                        f"  call void @llvm.memcpy.p0.p0.i64(ptr %d{k}, ptr %s{k}, i64 {size}, "
                        f"i1 false)"])
        for src, prev in flat.snapshots.items():
            copy(prev, src)
        for name in self._chunk_names:
            out.append(f"  call void @{name}(ptr %tile, i64 %now, i64 %base, i64 %lanes, "
                       f"i64 %live, ptr %ctl)")
        for slot, src in flat.publish:
            if slot not in self.forced:
                copy(slot, src)
        out += ["  br label %next", "next:",
                "  %t1 = add i64 %t, 1", "  %more = icmp ult i64 %t1, %tiles",
                "  br i1 %more, label %loop, label %done", "done:",
                "  %r = load i64, ptr %trapp", "  ret i64 %r", "}",
                "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)"]
        return "\n".join(out)

    def _optimise(self, text: str) -> tuple[dict, list]:
        """Optimise the template functions of one module (see :mod:`.vector`): their
        texts by name, and the declarations they need."""
        llvm = self._llvm
        module = llvm.parse_assembly(text)
        builder = llvm.create_pass_builder(self._target,
                                           llvm.create_pipeline_tuning_options(speed_level=2))
        passes = llvm.create_new_function_pass_manager()
        passes.add_instruction_combine_pass()
        passes.add_new_gvn_pass()
        passes.add_instruction_combine_pass()
        passes.add_aggressive_dce_pass()
        texts, declarations = {}, []
        for fn in module.functions:
            if fn.is_declaration:
                continue
            passes.run(fn, builder)
            texts[fn.name] = str(fn)
        for fn in module.functions:
            if fn.is_declaration:
                declarations.append(_ATTRIBUTES.sub("", str(fn).strip()))
        return texts, declarations

    def _build(self) -> None:
        llvm = self._llvm = _llvm()
        self._target = llvm.Target.from_default_triple().create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
            opt=CODEGEN_OPT, codemodel="jitdefault")
        self._forms, declarations = forms(self._pending, self.width, self._optimise)
        self._declarations = "\n".join(sorted({*declarations, *DECLARATIONS.split("\n")}))
        self._initial_tile = self._first_tile()
        self._version = 0
        self._type_error = python_api(llvm)
        self._entries: list = []
        n_chunks = max(1, -(-len(self.flat.order) // CHUNK))
        self._chunk_names = [f"c{c}_v0" for c in range(n_chunks)]
        built = map_in_two(self._compile_chunk, list(range(n_chunks)))
        self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self._target)
        self._objects, self._chunk_src = [], []
        for src, obj in built:
            self._chunk_src.append(src)
            self._objects.append(llvm.ObjectFileRef.from_data(obj))
            self._engine.add_object_file(self._objects[-1])
        self._add_driver("scan_v0", [])

    def _compile_chunk(self, c: int) -> tuple[str, bytes]:
        src = self._chunk_source(c, self._chunk_names[c])
        module = self._llvm.parse_assembly(self._declarations + "\n" + src)
        return src, self._target.emit_object(module)

    def _add_driver(self, driver: str, chunks: list) -> None:
        """Link the driver ``driver`` (and the chunk sources ``chunks``, new or
        recompiled) into the engine, and make :meth:`scan` call it."""
        llvm = self._llvm
        rebuilt = {self._chunk_names[c] for c in chunks}
        parts = [self._declarations, *(self._chunk_src[c] for c in chunks)]
        parts += [f"declare void @{name}(ptr, i64, i64, i64, i64, ptr)" for name in self._chunk_names
                  if name not in rebuilt]
        self._driver_src = self._driver_source(driver)
        parts.append(self._driver_src)
        if self._type_error is not None:
            parts += [ENTRY_DECLARATIONS, entry_source(driver, self._type_error)]
        self._engine.add_module(llvm.parse_assembly("\n".join(parts)))
        self._engine.finalize_object()
        addr = self._engine.get_function_address(driver)
        cfn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)(addr)
        self._cfn = cfn
        if self._type_error is not None:
            cfn, definition = builtin(self._engine.get_function_address(f"py_{driver}"),
                                      f"{self.name}_{driver}")
            self._entries.append(definition)   # CPython reads it at every call
        trap, layout, clocks = self._raise_trap, self.layout, bool(self._clock_slots)

        def scan(s: TileTable, now: int) -> None:
            """One scan of every instance of table ``s`` at PLC time ``now`` (ns)."""
            if now < s.clock_floor or s.layout is not layout:
                # a clock reading would be more than the slack past the clock (a clock
                # before the readings' initial values, or a START written ahead): widen;
                # or this program was widened since this function was taken
                if s.layout is layout:
                    self._widen(s)
                return self.scan(s, now)
            if cfn(s.address, now):
                trap(s)
            if clocks and now - CLOCK_SLACK > s.clock_floor:   # (the clock may go back)
                s.clock_floor = now - CLOCK_SLACK
        self.scan = scan

    def _widen(self, table: TileTable) -> None:
        """Become the program without narrowed rows or assumptions on the clock
        (``narrow=False``), ``table`` converted in place: the rare path where a
        value written, or the clock, is beyond what this code assumes (:mod:`.forms`)."""
        wide = NativeBatchProgram(self.flat, self.n, self.width, narrow=False)
        if self.forced:
            wide.set_forced(set(self.forced))
            wide._initial_tile = wide._first_tile()
        new = wide.new_table()
        table.copy_into(new, range(self.flat.n_slots),
                        {self._scratch[real]: scratch for real, scratch in wide._scratch.items()})
        vars(table).update(vars(new))
        vars(self).update(vars(wide))

    def source(self) -> str:
        """The LLVM IR of the scan, as compiled."""
        return "\n".join([self._declarations, *self._chunk_src, self._driver_src])

    def _raise_trap(self, table: TileTable) -> None:
        index, reason = divmod(table.trap, 10)
        leaf = self.flat.leaves[index]
        raise NativeTrap(f"{leaf.path} ({leaf.block!r}), instance {table.trap_instance}: "
                         f"{TRAP_REASONS.get(reason, 'a trap')} in this scan; the Python engine "
                         f"raises here (or keeps a value the signal's type cannot hold): run a "
                         f"Harness of that instance's inputs with engine='python' to look",
                         leaf.path)

    def set_forced(self, slots: set[int]) -> list[int]:
        """As :meth:`.program.BatchProgram.set_forced`: the blocks writing ``slots``
        write scratch rows instead; recompiles their chunks and the driver. The
        table must then be :meth:`regrown`."""
        before = self.n_slots
        changed = set(slots) ^ self.forced
        self.forced = set(slots)
        position, writer = self.flat.position, self.flat.writer
        chunks = sorted({position[writer[s]] // CHUNK for s in changed if s in writer})
        with _LLVM_LOCK:
            self._version += 1
            for c in chunks:
                self._chunk_names[c] = f"c{c}_v{self._version}"
                self._chunk_src[c] = self._chunk_source(c, self._chunk_names[c])
            self._add_driver(f"scan_v{self._version}", chunks)
        return list(range(before, self.n_slots))

    def __repr__(self) -> str:
        return (f"<NativeBatchProgram {self.name}: {len(self.flat.leaves)} blocks, {self.n} "
                f"instances in tiles of {self.width}>")


class _Frozen(NamedTuple):
    """What :meth:`NativeBatchProgram.freeze` keeps: a line of elements per
    instance and element size (``plan`` says where each slot's value lies), and
    the LIFO's and FIFO's lists."""
    plan: Records
    records: dict
    lists: dict


__all__ = ["NativeBatchProgram", "CHUNK", "BASIC_BLOCK"]
