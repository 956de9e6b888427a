"""The batch backend: one scan of a :class:`~fbd.compiler.FlatProgram` for n
instances at once, as generated numpy code.

The signal table is a list of numpy arrays, one per slot of the flat
program, each of n elements (one per instance) and of the dtype of the
slot's IEC type (:data:`.template.DTYPES`). The scan is generated like the
scalar one (:mod:`fbd.compiler.pycode`): straight-line code in chunks, each
block's statements formatted from its configuration's :class:`~.template.Template`
with its slots, the feedback copies taken first and the outputs published
last. Forcing works as there: the block that writes a forced slot writes a
scratch slot instead, and the chunks are generated again.
"""

from __future__ import annotations

import numpy as np

from ..block import code_namespace, literal
from ..compiler.flat import FlatProgram
from ..errors import FbdError
from . import runtime
from .template import Template, build_template, dtype_of

CHUNK = 512   # blocks per generated function


class BatchProgram:
    """The code of one scan of ``flat`` over tables of ``n`` instances.

    Holds no run-time values: :meth:`new_table` makes a table.
    """

    engine = "numpy"
    skips_retired = False   # its scan is whole arrays: retired instances are scanned too

    def __init__(self, flat: FlatProgram, n: int):
        self.flat = flat
        self.n = n
        self.name = flat.name
        self.slot_types = _slot_types(flat)
        self.slot_dtypes = [dtype_of(tp) for tp in self.slot_types]
        self.forced: set[int] = set()
        self._scratch: dict[int, int] = {}      # forced slot -> the slot its writer writes
        self._templates: dict = {}
        self._leaf_templates: list = []
        self._reads: list = []
        for leaf in flat.leaves:
            consts, reads = [], []
            for port, src in leaf.inputs.items():
                if src.slot is None:
                    consts.append((port, literal(src.const)))
                else:
                    reads.append(flat.read_slot(leaf.index, src))
            self._reads.append(reads)
            self._leaf_templates.append(self._template(leaf, tuple(consts)))
        self.state_bounds = self._bounds()
        self._generate()

    # -- templates -----------------------------------------------------------------
    def _template(self, leaf, consts: tuple) -> Template:
        block = leaf.block
        try:
            key = (type(block), block.n, tuple(block.p.items()), tuple(leaf.types.items()), consts)
            hash(key)
        except TypeError:
            key = None
        tpl = self._templates.get(key) if key is not None else None
        if tpl is None:
            init = {sv: self.flat.slot_init[slot] for sv, slot in leaf.state.items()}
            tpl = build_template(leaf, consts, init, len(self._templates))
            if key is not None:
                self._templates[key] = tpl
            else:
                self._templates[object()] = tpl
        return tpl

    def _bounds(self) -> dict:
        """slot -> (lo, hi): state a block keeps within a narrower interval than
        its type's, which the vector code relies on (see :meth:`check_value`)."""
        out = {}
        for leaf, tpl in zip(self.flat.leaves, self._leaf_templates):
            for sv, bounds in tpl.state_bounds.items():
                out[leaf.state[sv]] = (leaf.path + "." + sv, bounds)
        return out

    @property
    def per_instance(self) -> dict:
        """Block types that run instance by instance, each with the reason."""
        out = {}
        for leaf, tpl in zip(self.flat.leaves, self._leaf_templates):
            if not tpl.vector:
                out.setdefault(repr(leaf.block), tpl.reason)
        return out

    # -- tables ----------------------------------------------------------------------
    @property
    def n_slots(self) -> int:
        return self.flat.n_slots + len(self._scratch)

    def bytes_per_instance(self) -> int:
        """Memory of one instance's signals, scratch buffers included (object
        slots counted at 64 bytes: a pointer and a small object)."""
        size = 0
        for dtype in self.slot_dtypes + [self.slot_dtypes[s] for s in self._scratch]:
            size += 64 if dtype == "object" else np.dtype(dtype).itemsize
        for dtype, count in self._temps.items():
            size += count * (64 if dtype == "object" else np.dtype(dtype).itemsize)
        return size

    def renew_table(self, table: list) -> list:
        """A fresh table in place of ``table`` (here a new one: its arrays may be
        shared with what :meth:`read` returned)."""
        return self.new_table()

    def new_table(self) -> list:
        """A fresh table: every slot's initial value in every instance."""
        n, flat = self.n, self.flat
        table = []
        for init, dtype, tp in zip(flat.slot_init, self.slot_dtypes, self.slot_types):
            if init is None and tp is not None:
                init = tp.default   # a feedback copy: taken from its source below
            if dtype == "object":
                arr = np.empty(n, dtype=object)
                arr[...] = init if not isinstance(init, (list, tuple)) else None
            else:
                arr = np.full(n, init, dtype=dtype)
            table.append(arr)
        for slot, make, leaf in flat.fresh:
            arr = table[slot]
            for i in range(n):
                arr[i] = make(leaf.block, leaf.types)
        for src, copy in flat.snapshots.items():
            np.copyto(table[copy], table[src])
        for real in sorted(self._scratch, key=self._scratch.get):
            table.append(table[real].copy())
        return table

    def read(self, table: list, slot: int) -> np.ndarray:
        """The n values of a slot (a copy)."""
        return table[slot].copy()

    def write(self, table: list, slot: int, values) -> None:
        """Set a slot in every instance: one value, or n values."""
        np.copyto(table[slot], values)

    def regrown(self, table: list, new: list) -> list:
        """``table`` with the scratch slots ``new`` (:meth:`set_forced`'s) added, each
        holding what its real slot holds."""
        for slot in new:
            real = next(r for r, sc in self._scratch.items() if sc == slot)
            table.append(table[real].copy())
        return table

    def freeze(self, table: list, frozen, instances: np.ndarray) -> list:
        """Keep the values of ``instances`` as they are now, in ``frozen`` (None the
        first time: made here, and returned). The numpy engine goes on scanning
        them with the others (its scan is whole arrays); only what reads them
        back changes (:meth:`read_frozen`)."""
        if frozen is None:
            frozen = [np.empty_like(arr) for arr in table[:self.flat.n_slots]]
        for kept, arr in zip(frozen, table):
            if arr.dtype == object:   # a LIFO's or FIFO's list changes in place
                kept[instances] = [list(v) if isinstance(v, list) else v
                                   for v in arr[instances].tolist()]
            else:
                kept[instances] = arr[instances]
        return frozen

    def read_frozen(self, frozen: list, slot: int, instances: np.ndarray,
                    table: list) -> np.ndarray:
        """The values of ``slot`` :meth:`freeze` kept for ``instances``."""
        return frozen[slot][instances]

    def check_value(self, slot: int, values: np.ndarray) -> None:
        """Refuse a value written into a state slot outside what its block keeps
        there (the vector code's integer widths rely on it)."""
        bound = self.state_bounds.get(slot)
        if bound is None:
            return
        path, (lo, hi) = bound
        if values.size and (values.min() < lo or values.max() > hi):
            raise FbdError(f"{path}: the batch engine keeps this state within {lo}..{hi} "
                           f"(what its block ever stores there); {values.min()}..{values.max()} "
                           f"is outside")

    # -- code ------------------------------------------------------------------------------
    def _place(self, slot: int) -> int:
        """Where a block writes ``slot``: a scratch slot while it is forced."""
        if slot in self.forced and slot in self.flat.writer:
            if slot not in self._scratch:
                self._scratch[slot] = self.flat.n_slots + len(self._scratch)
                self.slot_dtypes.append(self.slot_dtypes[slot])
                self.slot_types.append(self.slot_types[slot])
            return self._scratch[slot]
        return slot

    def _leaf_source(self, index: int) -> list[str]:
        leaf = self.flat.leaves[index]
        tpl = self._leaf_templates[index]
        reads = self._reads[index]
        writes = [self._place(slot) for slot in (*leaf.outputs.values(), *leaf.state.values())]
        pre = []
        exprs = []
        for k, slot in enumerate(reads):
            if slot in writes:   # wired to itself: read last scan's value before writing
                pre.append(f"_self{k} = s[{slot}].copy()")
                exprs.append(f"_self{k}")
            else:
                exprs.append(f"s[{slot}]")
        if tpl.vector:
            exprs += [f"s[{slot}]" for slot in writes]
            return pre + tpl.fmt.format(*exprs).split("\n") if tpl.fmt else pre
        # the per-instance function reads every input before it writes anything
        args = [str(slot) for slot in reads] + [str(slot) for slot in writes]
        return [f"{tpl.function}(s, now{''.join(', ' + a for a in args)})"]

    def _generate(self) -> None:
        ns = runtime.namespace()
        ns.update(code_namespace({type(leaf.block): leaf.block
                                  for leaf in self.flat.leaves}.values()))
        ns["_N"] = self.n
        ns["_store"] = _store
        temps: dict = {}
        for tpl in {id(t): t for t in self._leaf_templates}.values():
            ns.update(tpl.functions)
            for dtype, count in tpl.temps.items():
                temps[dtype] = max(temps.get(dtype, 0), count)
            if not tpl.vector:
                exec(compile(tpl.source, f"<fbd batch {self.name}: per instance>", "exec"), ns)
        self._temps = temps
        for dtype, count in temps.items():
            for k in range(count):
                ns[f"_T_{dtype}_{k}"] = np.empty(self.n, dtype=dtype)
        order = self.flat.order
        self._chunks = []
        for c in range(max(1, -(-len(order) // CHUNK))):
            body = [f"def _chunk_{c}(s, now):"]
            for index in order[c * CHUNK:(c + 1) * CHUNK]:
                body.append(f"    # {self.flat.leaves[index].path}: {self.flat.leaves[index].block!r}")
                body += [f"    {line}" for line in self._leaf_source(index)]
            if len(body) == 1:
                body.append("    pass")
            src = "\n".join(body) + "\n"
            self._chunks.append(src)
            exec(compile(src, f"<fbd batch {self.name}>", "exec"), ns)
        scan = ["def scan(s, now):"]
        for src_slot, copy in self.flat.snapshots.items():
            scan.append(f"    np_copyto(s[{copy}], s[{src_slot}])")
        scan += [f"    _chunk_{c}(s, now)" for c in range(len(self._chunks))]
        for slot, src_slot in self.flat.publish:
            if slot not in self.forced:
                scan.append(f"    np_copyto(s[{slot}], s[{src_slot}])")
        scan.append("    return None")
        self._scan_src = "\n".join(scan) + "\n"
        exec(compile(self._scan_src, f"<fbd batch {self.name} scan>", "exec"), ns)
        self.scan = ns["scan"]
        self._namespace = ns

    def source(self) -> str:
        """The generated program, as executed (the per-instance functions first)."""
        parts = [t.source for t in {id(t): t for t in self._leaf_templates}.values()
                 if not t.vector]
        return "\n".join(parts + self._chunks + [self._scan_src])

    def set_forced(self, slots: set[int]) -> list[int]:
        """Make the blocks that write ``slots`` write scratch slots instead;
        returns the scratch slots made (the table grows by them, in order)."""
        before = self.n_slots
        self.forced = set(slots)
        self._generate()
        return list(range(before, self.n_slots))


def _store(arr: np.ndarray, values: list) -> None:
    """Write one value per instance back into ``arr`` (object arrays element by
    element: numpy would read a list of lists as a 2-D array)."""
    if arr.dtype == object:
        for i, v in enumerate(values):
            arr[i] = v
    else:
        arr[...] = values


def _slot_types(flat: FlatProgram) -> list:
    """The IEC type of every slot (None: a block's internal Python object)."""
    types: list = [None] * flat.n_slots
    for name, slot in flat.inputs.items():
        types[slot] = flat.input_types[name]
    for name, slot in flat.outputs.items():
        types[slot] = flat.output_types[name]
    for leaf in flat.leaves:
        for port, slot in leaf.outputs.items():
            types[slot] = leaf.port_type(port)
        for sv, slot in leaf.state.items():
            types[slot] = leaf.state_type(sv)
    for src, copy in flat.snapshots.items():
        types[copy] = types[src]
    return types


__all__ = ["BatchProgram", "CHUNK"]
