"""The blocks whose code is a procedure (``Block.procedure``: ST, IL and SFC
POUs) in a native program: whether they have a native form, their functions
(:mod:`.pou`) in a chunk's module, their calls, and the faults they report.

Each such block is called as ``i64 p<leaf>(ptr %s, i64 %now, <its inputs>)``;
a nonzero result is a fault (an index out of bounds, the watchdog) that ends
the scan: the chunk stores it and the block's index in the fault cells and
returns, the driver returns ``FAULT`` (:mod:`.program`), and
:meth:`Procedures.raise_fault` raises the error the Python engine raises at
that place, naming that block. A fault's number is ``(module << 24) | site``:
each compiled module keeps the sites of its functions.
"""

from __future__ import annotations

from ..errors import ScanError
from ..st.procedure import raise_index_error, raise_watchdog
from . import regions
from .pou import NativeModule, PouLowering
from .poucalls import buffer_offsets, variables_reason
from .pouframe import leaf_frame
from .values import NoNativeForm, slot_kind

SITE_BITS = 24


class Procedures:
    """The procedure blocks of one native program."""

    def __init__(self, program):
        self.program = program
        self.leaves = [leaf for leaf in program.leaves if leaf.block.procedure is not None]
        self.indices = {leaf.index for leaf in self.leaves}
        self.sites: dict[int, list] = {}        # module number -> its fault sites
        self.made: dict = {}        # (leaves, module number) -> its module, made by reasons()
        #: compiles the modules' groups while reasons() lowers (NativeProgram(ahead=True))
        self.ahead = None

    # -- checking -------------------------------------------------------------------
    def reasons(self, chunk: int) -> dict:
        """Block name -> why it has no native form, for each procedure block that
        has none (the POU and the line of what stops it). Checking is lowering: the
        functions are made here, over the program's cells, for the modules of the
        chunks of ``chunk`` blocks that hold them, and :meth:`module` hands them to
        the build, so a POU is never lowered twice."""
        out = {}
        order = self.program.order
        for c in sorted({self.program.position[i] // chunk for i in self.indices}):
            leaves = order[c * chunk:(c + 1) * chunk]
            module = self._new_module(c + 1)
            if self.ahead is not None:
                self.ahead.add(module)
            for index in leaves:
                if index not in self.indices:
                    continue
                leaf = self.program.leaves[index]
                try:
                    module.trap_code = index
                    self.function(index, module, c + 1)
                except NoNativeForm as e:
                    label = leaf.block.procedure.info.label
                    reason = str(e)
                    out.setdefault(leaf.block.name, reason if reason.startswith(label)
                                   else f"{label}: {reason}")
            self.made[(tuple(leaves), c + 1)] = module
        return out

    # -- code -----------------------------------------------------------------------------
    def module(self, leaves, number: int) -> NativeModule:
        """The functions of the procedure blocks among ``leaves`` (leaf indices),
        for the module ``number`` (its sites: ``module.sites``)."""
        made = self.made.pop((tuple(leaves), number), None)
        if made is not None:
            return made
        module = self._new_module(number)
        for index in leaves:
            if index in self.indices:
                module.trap_code = index
                self.function(index, module, number)
        return module

    def _new_module(self, number: int) -> NativeModule:
        program = self.program
        return NativeModule([], program._trap_cell, program._fault_cell, 0,
                            number << SITE_BITS, number)

    def function(self, index: int, module: NativeModule, number: int) -> None:
        program = self.program
        leaf = program.leaves[index]
        info = leaf.block.procedure.info
        places = {var: program._place(slot) for var, slot in
                  [*leaf.outputs.items(), *leaf.state.items()]}
        name = f"p{index}_m{number}"
        reason = variables_reason(info)
        if reason is not None:
            raise NoNativeForm(reason)
        if info.kind == "FUNCTION":
            module.define(f"@\"{name}\"", _function_block(info, places, program._region_base,
                                                            module, name))
            return
        frame = leaf_frame(info, places, program._region_base, name)
        module.define(f"@\"{name}\"",
                      PouLowering(info.code, frame, module, f"@\"{name}\"").function())

    def call(self, index: int, module_number: int) -> str:
        """The chunk's IR calling procedure block ``index``: its inputs read, the
        call, a fault stored and the chunk left."""
        program = self.program
        leaf = program.leaves[index]
        info = leaf.block.procedure.info
        lines, args = [], []
        for k, (src, var) in enumerate(zip(leaf.inputs.values(), info.inputs)):
            tp = var.type
            if src.slot is None:
                args.append(_constant(tp, src.const))
                continue
            slot = program.flat.read_slot(index, src)
            ref = f"%b{index}.i{k}"
            if regions.aggregate(tp):
                lines.append(f"  {ref} = getelementptr i64, ptr %s, i64 "
                             f"{program._region_base.get(slot, slot)}")
                args.append(f"ptr {ref}")
                continue
            ty = "double" if slot_kind(tp) == "d" else "i64"
            lines.append(f"  {ref}p = getelementptr i64, ptr %s, i64 {slot}")
            lines.append(f"  {ref} = load {ty}, ptr {ref}p")
            args.append(f"{ty} {ref}")
        r = f"%b{index}.r"
        lines.append(f"  {r} = call i64 @\"p{index}_m{module_number}\"(ptr %s, i64 %now"
                     f"{''.join(', ' + a for a in args)})")
        lines.append(f"  %b{index}.f = icmp ne i64 {r}, 0")
        lines.append(f"  br i1 %b{index}.f, label %b{index}.fault, label %b{index}.ok")
        lines.append(f"b{index}.fault:")
        lines.append(f"  store i64 {r}, ptr %fault")
        lines.append(f"  %b{index}.at = getelementptr i64, ptr %fault, i64 2")
        lines.append(f"  store i64 {index}, ptr %b{index}.at")
        lines.append("  ret void")
        lines.append(f"b{index}.ok:")
        return "\n".join(lines)

    # -- faults --------------------------------------------------------------------------
    def raise_fault(self, s) -> None:
        """Raise the error of the fault the scan stopped at (and clear it)."""
        program = self.program
        code = s._q[program._fault_cell]
        value = s._q[program._fault_cell + 1]
        s._q[program._fault_cell] = 0
        module, site = code >> SITE_BITS, code & ((1 << SITE_BITS) - 1)
        kind, where, lo, hi = self.sites[module][site - 1]
        block = program.leaves[s._q[program._fault_cell + 2]].path
        try:                # the Python engine's own errors, from the same place
            if kind == "bounds":
                raise_index_error(value, lo, hi, where)
            raise_watchdog(where)
        except ScanError as error:
            error.path = block      # the block it stopped in, as a fault names it
            raise


def _function_block(info, places: dict, cells: dict, module: NativeModule, name: str) -> str:
    """A FUNCTION placed as a block: its function called with the block's inputs,
    its result and outputs stored in the block's output slots (an ARRAY's or
    STRUCT's in its region)."""
    fn = module.function_of(info)
    offsets = buffer_offsets(info)
    outs = [("OUT", info.result_type)] + [(v.name, v.type) for v in info.outputs]
    params = []
    for k, v in enumerate(info.inputs):
        ty = "ptr" if regions.aggregate(v.type) else ("double" if slot_kind(v.type) == "d"
                                                     else "i64")
        params.append(f"{ty} %in{k}")
    module.declare(f"@\"{name}\"", ["ptr %s", "i64 %now", *params])
    lines = [f"define internal i64 @\"{name}\"(ptr %s, i64 %now"
             f"{''.join(', ' + p for p in params)}) {{",
             "entry:", f"  %out = alloca [{offsets[-1]} x i64]"]
    args = []
    for k, v in enumerate(info.inputs):     # an ARRAY or STRUCT by value: a copy
        if regions.aggregate(v.type):
            n = regions.cells(v.type)
            lines += [f"  %c{k} = alloca [{n} x i64]",
                      f"  call void @llvm.memmove.p0.p0.i64(ptr %c{k}, ptr %in{k}, i64 {8 * n}, "
                      f"i1 false)"]
            args.append(f"ptr %c{k}")
        else:
            args.append(params[k])
    lines += [f"  %r = call i64 {fn}(ptr %s, i64 %now, ptr %out{''.join(', ' + a for a in args)})",
              "  %f = icmp ne i64 %r, 0", "  br i1 %f, label %fault, label %ok", "fault:",
              "  ret i64 %r", "ok:"]
    for k, (port, tp) in enumerate(outs):
        slot = places[port]
        lines.append(f"  %o{k}p = getelementptr i64, ptr %out, i64 {offsets[k]}")
        lines.append(f"  %d{k} = getelementptr i64, ptr %s, i64 {cells.get(slot, slot)}")
        if regions.aggregate(tp):
            lines.append(f"  call void @llvm.memmove.p0.p0.i64(ptr %d{k}, ptr %o{k}p, "
                         f"i64 {8 * regions.cells(tp)}, i1 false)")
        else:
            lines += [f"  %o{k} = load i64, ptr %o{k}p", f"  store i64 %o{k}, ptr %d{k}"]
    lines += ["  ret i64 0", "}"]
    return "\n".join(lines)


def _constant(tp, value) -> str:
    kind = slot_kind(tp)
    if kind == "d":
        from .values import float_ref
        return f"double {float_ref(float(value))}"
    if kind == "b":
        return f"i64 {1 if value else 0}"
    value = int(value)
    if kind == "Q" and value >= 1 << 63:
        value -= 1 << 64
    return f"i64 {value}"


__all__ = ["Procedures", "SITE_BITS"]
