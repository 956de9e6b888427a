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

import os
import struct
from operator import itemgetter

import numpy as np

from ..errors import FbdError
from . import apart, regions
from .entry import python_api
from .leaves import LeafFunctions
from .lower import DECLARATIONS, TRAP_REASONS, NoNativeForm, slot_kind
from .regions import DECLARATIONS as POU_DECLARATIONS
from .scancompile import ScanCompiler
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


class NativeProgram(LeafFunctions, ScanCompiler, ScanSource):
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
