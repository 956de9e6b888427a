"""The native backend: one scan of a :class:`~fbd.compiler.flat.FlatProgram` as machine code.

Each block configuration's code is translated once (:mod:`.lower`) into an
IR template (:mod:`.templates`); every instance formats it with its slots, in
functions of a bounded size (:mod:`.scansource`). Every value a block reads
comes from the table and every value it assigns goes back to it at the
block's end: any signal is readable between scans, and nothing is kept in a
register across blocks. The IR goes to LLVM's code generator as written, at
-O0 with no IR optimiser: on this straight-line code optimising costs more
compile time than it saves at run time (see docs/native.md).

The object quacks like :class:`~fbd.compiler.pycode.ScanProgram` (``scan``,
``new_table``, ``signals``, ``set_forced``, ``leaf_function``, ``snapshot``,
``publish``, ``info``), so the runtime, the debugger, traces and the Modbus
server take either.
"""

from __future__ import annotations

import ctypes
import os
import struct
from operator import itemgetter

import numpy as np

from ..compiler.forkmap import map_in_two
from ..errors import FbdError, ScansDone
from . import apart, regions
from .entry import DECLARATIONS as ENTRY_DECLARATIONS
from .entry import builtin, entry_source, python_api
from .leaves import LeafFunctions
from .lower import DECLARATIONS, TRAP_REASONS, NoNativeForm, slot_kind
from .objcache import ObjectCache, target_salt
from .regions import DECLARATIONS as POU_DECLARATIONS
from .scansource import CHUNK, FAULT, ScanSource
from .stores import raw_bits, store_kind
from .table import AGGREGATE, KIND_CODES, STORE, NativeTable
from .templates import Templates


class NotNative(FbdError):
    """The program has blocks or signals with no native form; ``reasons`` maps
    each block type (or signal) to why."""

    def __init__(self, name: str, reasons: dict):
        self.reasons = dict(reasons)
        parts = [f"{what} ({why})" for what, why in sorted(self.reasons.items())]
        super().__init__(f"{name} cannot run on the native engine: " + "; ".join(parts))


class NativeTrap(FbdError):
    """The scan hit something Python would raise on (or could not hold); ``path``
    is the block's."""
    fault_kind = "trap"     # what fbd.runtime.faults.Fault calls it

    def __init__(self, message: str, path: str):
        self.path = path
        super().__init__(message)


def _llvm():
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


class NoProcedures:
    """The :class:`~.procedures.Procedures` of a program with no ST, IL or SFC POU:
    none, and the ST front end, which lowering them needs, not imported (it was a
    third of 2048's native build)."""

    def __init__(self):
        self.indices: frozenset = frozenset()
        self.sites: dict = {}
        self.made: dict = {}
        self.ahead = None
        self.none = NoFunctions()

    def reasons(self, chunk: int) -> dict:
        return {}

    def module(self, leaves, number: int) -> "NoFunctions":
        return self.none


class NoFunctions:
    """The functions of a module with no procedure block (see :class:`~.pou.NativeModule`)."""

    def __init__(self):
        self.defs: list = []
        self.sites: list = []
        self.lines = 0

    def apart(self) -> bool:
        return False


def _procedures(program):
    if any(leaf.block.procedure is not None for leaf in program.leaves):
        from .procedures import Procedures
        return Procedures(program)
    return NoProcedures()


class NativeProgram(LeafFunctions, ScanSource):
    """A network compiled to machine code over a :class:`~.table.NativeTable`."""

    engine = "native"

    def __init__(self, flat, dump: str | None = None, build: bool = True, templates=None,
                 ahead: bool | None = None):
        self.flat = flat
        self.network = flat.network
        self.name = flat.name
        self.leaves = flat.leaves
        self.order = flat.order
        self.position = flat.position
        self.inputs = flat.inputs
        self.input_types = flat.input_types
        self.outputs = flat.outputs
        self.output_types = flat.output_types
        self.writer = flat.writer
        self.forced: set[int] = set()
        self._scratch: dict[int, int] = {}
        self._leaf_fns: dict = {}
        self.dump_path = dump if dump is not None else os.environ.get("FBD_DUMP")
        reasons: dict[str, str] = {}
        # LIFO/FIFO: a region of the table each, after the slots and their scratch reserve
        self._regions: dict[int, int] = {}      # leaf index -> its region's first cell
        self._stores: dict[int, tuple] = {}     # DATA slot -> (first cell, depth, fifo, kind)
        base = 2 * flat.n_slots
        for leaf in flat.leaves:
            fifo = store_kind(leaf.block)
            if fifo is not None:
                depth = int(leaf.block.p["depth"])
                kind = slot_kind(leaf.types.get("T"))
                self._regions[leaf.index] = base
                self._stores[leaf.state["DATA"]] = (base, depth, fifo, KIND_CODES.get(kind, 0))
                base += 2 + depth
        self._region_end = base
        # an ARRAY's or STRUCT's elements: a region of the table (fbd.native.regions)
        self._region_base: dict[int, int] = {}    # slot -> the first cell of its region
        self._aggregates: dict[int, tuple] = {}   # slot -> (first cell, type), for the tables
        self._spare_regions: dict[int, int] = {}  # slot -> a second region, for its scratch
        self._kinds = self._slot_kinds(reasons)
        # after the slots and their scratch reserve, the regions; the fault cells (the
        # site a procedure faulted at, its value, the block that called it); the trap
        # cell last
        self._fault_cell = self._region_end
        self.capacity = self._region_end + 4
        self._trap_cell = self.capacity - 1
        self._procedures = _procedures(self)
        if (build if ahead is None else ahead) and self._procedures.indices:
            # the build follows: big procedures' LLVM work starts while they are lowered
            self._code_generator()
            self._procedures.ahead = apart.CompileAhead(self._group_object)
        try:
            reasons.update(self._procedures.reasons(CHUNK))
            self._check_blocks(templates, reasons)
        except BaseException:
            self._cancel_ahead()        # no build follows
            raise
        self._engine = None
        if build:
            self.build()

    def _check_blocks(self, templates, reasons: dict) -> None:
        """Raise NotNative if a block or signal has no native form (``reasons``,
        with the procedures' already)."""
        flat = self.flat
        # the batch engine checks with its own templates, which it then keeps
        self._templates = templates if templates is not None else Templates(flat)
        for leaf in flat.leaves:
            declared = leaf.block.no_native_form
            if declared:              # a block type that knows it has none says why
                reasons.setdefault(leaf.block.name, declared)
                continue
            if leaf.index in self._procedures.indices:
                continue
            try:
                self._templates.of(leaf)
            except NoNativeForm as e:
                reasons.setdefault(leaf.block.name, str(e))
        if reasons:
            raise NotNative(self.name, reasons)

    def build(self) -> "NativeProgram":
        """Generate the IR and compile it (done by the constructor unless ``build=False``:
        a check that the program has a native form costs no LLVM time)."""
        if self._engine is not None:
            return self
        flat = self.flat
        self._init_cells = self._cells(flat.new_table())
        self._version = 0
        self._chunk_names: list[str] = []
        self._chunk_src: list[list[str]] = []    # each chunk's IR, in pieces
        self._code_generator()
        self._type_error = python_api(self._llvm)   # None: ctypes calls the scan
        self._entries: list = []                     # the built-in functions' definitions
        self._target = self._llvm.Target.from_default_triple().create_target_machine(
            opt=0, codemodel="jitdefault")
        try:
            self._build_all()
        finally:
            self._cancel_ahead()
        return self

    def _code_generator(self) -> None:
        """LLVM, the target machine that emits object files and the cache of what it
        made (made before the thread that compiles ahead uses them)."""
        if getattr(self, "_emit_tm", None) is None:
            llvm = self._llvm = _llvm()
            self._emit_tm = llvm.Target.from_default_triple().create_target_machine(
                opt=0, codemodel="jitdefault")
            # the default target machine: the host's triple, a generic CPU
            self._object_cache = ObjectCache(target_salt(llvm, self._emit_tm, "", "",
                                                         "opt=0 codemodel=jitdefault"))

    def _cancel_ahead(self) -> None:
        ahead, self._procedures.ahead = self._procedures.ahead, None
        if ahead is not None:
            ahead.cancel()

    # -- layout ------------------------------------------------------------------------
    def _slot_kinds(self, reasons: dict) -> bytearray:
        flat = self.flat
        types: list = [None] * flat.n_slots
        for name, slot in flat.inputs.items():
            types[slot] = flat.input_types[name]
        for name, slot in flat.outputs.items():
            types[slot] = flat.output_types[name]
        for leaf in flat.leaves:
            for port, slot in leaf.outputs.items():
                types[slot] = leaf.port_type(port)
            if leaf.state:      # state_type looks each name up: quadratic for a big POU
                declared: dict = {}
                for sv in leaf.block.state_vars():
                    declared.setdefault(sv.name, sv.type)
                for name, slot in leaf.state.items():
                    tp = declared[name]
                    types[slot] = leaf.types.get(tp) if isinstance(tp, str) else tp
        for src, copy in flat.snapshots.items():
            types[copy] = types[src]
        kinds = bytearray(flat.n_slots)
        for slot, tp in enumerate(types):
            kind = slot_kind(tp)
            if slot in self._stores:
                kinds[slot] = STORE
                continue
            if regions.aggregate(tp):
                n = regions.cells(tp)
                if n is not None:
                    kinds[slot] = AGGREGATE
                    self._region_base[slot] = self._region_end
                    self._aggregates[slot] = (self._region_end, tp)
                    self._spare_regions[slot] = self._region_end + n
                    self._region_end += 2 * n
                    continue
            if kind is None:
                init = flat.slot_init[slot]
                if tp is None and isinstance(init, (bool, int, float)) and slot not in flat.writer:
                    kind = "b" if isinstance(init, bool) else ("d" if isinstance(init, float) else "q")
                else:
                    leaf = flat.writer.get(slot)
                    where = flat.leaves[leaf].block.name if leaf is not None else f"{tp} signal"
                    reasons.setdefault(where, f"{tp or 'Python object'} values")
                    continue
            kinds[slot] = KIND_CODES[kind]
        return kinds

    def _cells(self, values: list) -> np.ndarray:
        cells = np.zeros(self.capacity, dtype=np.int64)
        kinds = self._kinds
        ints = []
        for slot, v in enumerate(values):
            k = kinds[slot]
            if k == STORE:
                ints.append(0)
            elif k == AGGREGATE:
                ints.append(0)
                base, tp = self._aggregates[slot]
                regions.write(lambda kind, at, x: cells.__setitem__(at, raw_bits(x)), base,
                              tp, v)
            elif k == 1:
                ints.append(struct.unpack("<q", struct.pack("<d", float(v)))[0])
            elif k == 3:
                ints.append(int(v) - (1 << 64) if v >= 1 << 63 else int(v))
            else:
                ints.append(int(v))
        cells[:len(ints)] = ints
        return cells

    def _new_slot(self, like: int) -> int:
        slot = self.flat.n_slots + len(self._scratch)
        self._kinds.append(self._kinds[like])
        if like in self._aggregates:         # a forced ARRAY or STRUCT: the spare region
            base, tp = self._spare_regions[like], self._aggregates[like][1]
            self._aggregates[slot] = (base, tp)
            self._region_base[slot] = base
        return slot

    @property
    def n_slots(self) -> int:
        return self.flat.n_slots + len(self._scratch)

    def new_table(self) -> NativeTable:
        """A fresh signal table holding every initial value (a cold start)."""
        table = NativeTable(self._kinds, self.capacity, self._stores, self._aggregates)
        table._buf[:] = self._init_cells
        table._n = self.flat.n_slots
        for real, _scratch in sorted(self._scratch.items(), key=itemgetter(1)):
            table.append(table[real])
        return table

    @property
    def signals(self):
        return self.flat.signals

    def signal(self, path: str):
        return self.flat.signal(path)

    def info(self) -> dict:
        return self.flat.info()

    def _place(self, slot: int) -> int:
        if slot in self.forced:
            scratch = self._scratch.get(slot)
            if scratch is None:
                scratch = self._scratch[slot] = self._new_slot(slot)
            return scratch
        return slot

    # -- code ------------------------------------------------------------------------------

    def _build_all(self) -> None:
        """Generate and compile the scan: each chunk is a module compiled to an
        object file, half of them in a forked child where that is possible (the
        machine code comes back through a pipe and is linked here, as the
        Python engine does with its bytecode), then the driver that calls them."""
        llvm = self._llvm
        n_chunks = max(1, -(-len(self.order) // CHUNK))
        self._chunk_names = [f"c{c}_v0" for c in range(n_chunks)]
        self._modules = n_chunks         # chunk c is module c + 1 (see Procedures)
        ahead, self._procedures.ahead = self._procedures.ahead, None
        if ahead is not None:       # before map_in_two: its child cannot wait for them
            ahead.finish()
        built = map_in_two(self._compile_chunk, list(range(n_chunks)))
        self._procedures.made.clear()   # those a forked child compiled are still here
        self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(DECLARATIONS),
                                                  self._target)
        self._objects = []
        self._chunk_src = []
        for c, (src, objects, sites) in enumerate(built):
            self._procedures.sites[c + 1] = sites
            self._chunk_src.append(src)
            self._add_objects(objects)
        self._driver_src = self._driver_source("scan_v0")
        self._engine.add_module(llvm.parse_assembly("\n".join(
            [*(f"declare void @{name}(ptr, i64)" for name in self._chunk_names),
             self._driver_src, self._entry("scan_v0")])))
        self._engine.finalize_object()
        self._link("scan_v0")
        if self.dump_path:
            with open(self.dump_path, "w") as f:
                f.write(self.source())

    def _compile_chunk(self, c: int) -> tuple[list, list[bytes], list]:
        """One chunk's IR, its machine code (object files: the chunk's and those of
        the groups compiled apart) and its procedures' fault sites, in either process."""
        src, compiled, objects = self._chunk_with_procedures(c, self._chunk_names[c], c + 1)
        whole = self._procedure_lines <= apart.FULL_OPTIMISE_LINES if self._optimize_next \
            else None
        objects.append(self._object_of(
            DECLARATIONS + "\n" + POU_DECLARATIONS + "\n" + compiled, whole))
        return src, objects, self._sites_made

    def _object_of(self, text: str, whole: bool | None) -> bytes:
        """The object file of a module's IR ``text`` through :meth:`_optimize`
        (``whole``; None: no optimiser), from the machine-code cache on disk
        (:mod:`.objcache`) where a build made it before."""
        key = f"; optimised: {whole}\n{text}"
        obj = self._object_cache.get(key)
        if obj is None:
            module = self._llvm.parse_assembly(text)
            if whole is not None:
                self._optimize(module, whole)
            obj = self._emit_tm.emit_object(module)
            module.close()
            self._object_cache.put(key, obj)
        return obj

    def _chunk_with_procedures(self, c: int, fname: str, number: int) -> tuple[list, str, list]:
        """The chunk's function, after the functions of its procedure blocks: the IR
        as a whole (:meth:`source`, in pieces), the IR to compile with the chunk, and
        the machine code of what was compiled apart (:meth:`_procedure_code`)."""
        leaves = self.order[c * CHUNK:(c + 1) * CHUNK]
        module = self._procedures.module(leaves, number)
        self._sites_made = module.sites
        self._optimize_next = bool(module.defs)
        shown, compiled, objects = self._procedure_code(module)
        chunk = self._chunk_source(c, fname, number)
        if compiled is shown:
            src = "\n".join(shown + [chunk])
            return [src], src, objects
        # the parts' text stays in pieces: one string of it would be a copy of the whole
        return shown + [chunk], "\n".join(compiled + [chunk]), objects

    def _procedure_code(self, module) -> tuple[list[str], list[str], list[bytes]]:
        """A module's procedures (:class:`~.pou.NativeModule`): their IR as a whole,
        the IR to compile with the chunk, and the machine code of those compiled
        apart, in groups (:mod:`.apart`: past :data:`~.apart.FULL_OPTIMISE_LINES`;
        those not compiled ahead are compiled here); sets ``_procedure_lines``,
        which picks the passes."""
        self._procedure_lines = module.lines
        if not module.apart():
            return module.defs, module.defs, []
        objects = [module.objects.get(k) or self._group_object(module, k)
                   for k in range(module.n_groups())]
        return module.shown(), list(module.declarations.values()), objects

    def _group_object(self, module, k: int) -> bytes:
        """The object file of group ``k`` of ``module``'s functions (:mod:`.apart`),
        in the main thread or the one compiling ahead."""
        # a group is past FULL_OPTIMISE_LINES: not the whole -O2 pipeline
        return self._object_of("\n".join([DECLARATIONS, POU_DECLARATIONS,
                                          module.group_source(k)]), whole=False)

    def _add_objects(self, objects: list[bytes]) -> None:
        for obj in objects:
            self._objects.append(self._llvm.ObjectFileRef.from_data(obj))
            self._engine.add_object_file(self._objects[-1])

    def _optimize(self, module, whole: bool) -> None:
        """The procedures' code through LLVM's optimiser: their variables and
        temporaries in registers, branches simplified (the blocks' straight-line
        code needs none of it, see docs/native.md). ``whole`` (procedures of up to
        :data:`~.apart.FULL_OPTIMISE_LINES` lines of IR): the -O2 pipeline (inlining,
        loop passes); past it, whose time grows faster than the code, only what puts values in
        registers and simplifies the branches (docs/native.md, "ST, IL and SFC
        POUs": instcombine was a fifth of a 10,000-line program's ``Plc``)."""
        llvm = self._llvm
        options = llvm.create_pipeline_tuning_options(speed_level=2)
        builder = llvm.create_pass_builder(self._emit_tm, options)
        if whole:
            builder.getModulePassManager().run(module, builder)
            return
        passes = llvm.create_new_module_pass_manager()
        passes.add_sroa_pass()
        passes.add_simplify_cfg_pass()
        passes.run(module, builder)

    def _entry(self, driver: str) -> str:
        """The driver's entry as a built-in function (see :mod:`.entry`)."""
        if self._type_error is None:
            return ""
        return ENTRY_DECLARATIONS + "\n" + entry_source(driver, self._type_error)

    def _link(self, driver: str) -> None:
        addr = self._engine.get_function_address(driver)
        cfn = self._cfn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)(addr)
        if self._type_error is not None:
            cfn, definition = builtin(self._engine.get_function_address(f"py_{driver}"),
                                      f"{self.name}_{driver}")
            self._entries.append(definition)   # CPython reads it at every call
        stopped = self._stopped

        def scan(s: NativeTable, now: int) -> None:
            """One scan over table ``s`` at PLC time ``now`` (ns): a single call
            into the machine code, a built-in function's call (see :mod:`.entry`)."""
            code = cfn(s.address, now)
            if code:
                stopped(s, code, now)
        self.scan = scan
        many = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                ctypes.c_int64, ctypes.c_void_p)(
            self._engine.get_function_address(f"many_{driver}"))
        done = ctypes.c_int64()

        def scan_many(s: NativeTable, now: int, cycle: int, n: int) -> int:
            """``n`` scans in one call into the machine code (fbd.runtime.fastforward)."""
            code = many(s.address, now, cycle, n, ctypes.addressof(done))
            if code:
                try:
                    stopped(s, code, now + done.value * cycle)
                except Exception as e:
                    raise ScansDone(done.value) from e
            return n
        self.scan_many = scan_many
        self._many = many

    def source(self) -> str:
        """The LLVM IR of the scan, as compiled."""
        header = (f"; generated by fbd for network {self.name}: {len(self.leaves)} blocks, "
                  f"{self.n_slots} slots (native engine)\n")
        chunks = "\n".join(piece for pieces in self._chunk_src for piece in pieces)
        return header + DECLARATIONS + "\n" + chunks + "\n" + self._driver_src

    # -- running ---------------------------------------------------------------------------
    def _stopped(self, s: NativeTable, code: int, now: int) -> None:
        """A scan that did not end cleanly: a procedure's fault, or a trap."""
        if code == FAULT:
            self._procedures.raise_fault(s)
        self._raise_trap(s.trap if code > 0 else code, now)

    def _raise_trap(self, code: int, now: int) -> None:
        if now < 0:
            raise FbdError(f"the native engine runs a clock from 0 on, not {now} ns "
                           f"(use engine='python' for a negative clock_start)")
        index, reason = divmod(code, 10)
        leaf = self.leaves[index]
        raise NativeTrap(f"{leaf.path} ({leaf.block!r}): {TRAP_REASONS.get(reason, 'a trap')} in "
                         f"this scan; the Python engine raises here (or keeps a value the "
                         f"signal's type cannot hold): run it with engine='python' to look",
                         leaf.path)

    def set_forced(self, slots: set[int]) -> list[int]:
        """As :meth:`ScanProgram.set_forced`: the blocks writing ``slots`` write
        scratch slots instead; recompiles their functions and the driver."""
        before = self.n_slots
        changed = set(slots) ^ self.forced
        self.forced = set(slots)
        self._leaf_fns.clear()
        chunks = sorted({self.position[self.writer[s]] // CHUNK for s in changed if s in self.writer})
        self._version += 1
        v = self._version
        parts = [DECLARATIONS, POU_DECLARATIONS]
        optimize, lines = False, 0
        for c in chunks:
            self._chunk_names[c] = f"c{c}_v{v}"
            self._modules += 1
            self._chunk_src[c], compiled, objects = self._chunk_with_procedures(
                c, self._chunk_names[c], self._modules)
            self._add_objects(objects)
            self._procedures.sites[self._modules] = self._sites_made
            optimize = optimize or self._optimize_next
            lines += self._procedure_lines
            parts.append(compiled)
        rebuilt = {self._chunk_names[c] for c in chunks}
        parts += [f"declare void @{name}(ptr, i64)" for name in self._chunk_names
                  if name not in rebuilt]
        self._driver_src = self._driver_source(f"scan_v{v}")
        parts += [self._driver_src, self._entry(f"scan_v{v}")]
        module = self._llvm.parse_assembly("\n".join(parts))
        if optimize:
            self._optimize(module, lines <= apart.FULL_OPTIMISE_LINES)
        self._engine.add_module(module)
        self._engine.finalize_object()
        self._link(f"scan_v{v}")
        return list(range(before, self.n_slots))

    def snapshot(self, s) -> None:
        for src, prev in self.flat.snapshots.items():
            s[prev] = s[src]

    def publish(self, s) -> None:
        for slot, src in self.flat.publish:
            if slot not in self.forced:
                s[slot] = s[src]

    def __repr__(self) -> str:
        return f"<NativeProgram {self.name}: {len(self.leaves)} blocks, {self.n_slots} slots>"
