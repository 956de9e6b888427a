"""The scan's LLVM IR as text (a mixin of :class:`~.program.NativeProgram`).

Every block instance is its configuration's IR template (:mod:`.templates`)
formatted with its slots. The scan is cut into functions of :data:`CHUNK`
blocks; inside one, a basic block ends every :data:`BASIC_BLOCK` blocks, so
LLVM's code generation, which grows faster than linearly with the size of a
basic block, stays linear in the program's size. A procedure block (an ST,
IL or SFC POU) is a call of its function (:mod:`.procedures`). The driver
calls the chunks in turn and copies the snapshots and published signals;
``many_<driver>`` runs it ``n`` times in one call.
"""

from __future__ import annotations

CHUNK = 512         # blocks per function; a force recompiles one
BASIC_BLOCK = 50    # blocks per basic block (see the module docstring)
FAULT = -2      # what the driver returns when a procedure faulted (see .procedures)


class ScanSource:
    """The IR of :class:`~.program.NativeProgram`'s scan: blocks, chunks, the driver."""

    def _instance(self, index: int, avail: dict | None) -> str:
        """One block's IR. ``avail``: slot -> the register holding what an earlier
        block of this basic block stored there (read from it instead of the
        table: no store-to-load latency on a chain of blocks), updated with this
        block's stores; None: every input loaded from the table."""
        leaf = self.leaves[index]
        ins = self._templates.reads[index][0]
        tpl = self._templates.of(leaf)
        slots = [*leaf.outputs.values(), *leaf.state.values()]
        if self.forced:
            slots = [self._place(s) for s in slots]
        if tpl.region:
            slots.append(self._regions[index])
        prefix = f"b{index}"
        pre, values = [], []
        for i, (slot, kind) in enumerate(zip(ins, tpl.inputs)):
            if kind is None:
                values.append("")
                continue
            raw = avail.get(slot) if avail is not None else None
            name = f"%{prefix}.v{i}"
            if raw is None:
                pre.append(f"  {name}p = getelementptr i64, ptr %s, i64 {slot}\n"
                           f"  {name} = load {'double' if kind == 'd' else 'i64'}, ptr {name}p\n")
            elif kind == "d":
                pre.append(f"  {name} = bitcast i64 {raw} to double\n")
            else:
                name = raw
            values.append(name)
        args = (prefix, index, *ins, *slots, *values)
        if avail is not None:
            n_ins = len(ins)
            for pos, ref in tpl.stored:
                avail[slots[pos - n_ins]] = ref.format(*args) if "{" in ref else ref
        return "".join(pre) + tpl.fmt.format(*args)

    def _chunk_source(self, c: int, fname: str, number: int) -> str:
        """Chunk ``c`` as the function ``fname`` (in the module ``number``: what its
        procedure blocks' functions are named by)."""
        out = [f"define void @{fname}(ptr %s, i64 %now) {{", "entry:",
               f"  %trap = getelementptr i64, ptr %s, i64 {self._trap_cell}",
               f"  %fault = getelementptr i64, ptr %s, i64 {self._fault_cell}"]
        append = out.append
        avail: dict = {}
        instance = self._instance
        procedures = self._procedures.indices
        for pos, index in enumerate(self.order[c * CHUNK:(c + 1) * CHUNK]):
            if pos and pos % BASIC_BLOCK == 0:
                append(f"  br label %L{pos}")
                append(f"L{pos}:")
                avail = {}   # registers do not cross basic blocks: compile time stays linear
            if index in procedures:
                append(self._procedures.call(index, number))
                avail = {}   # it wrote the table, and ended the basic block
                continue
            append(instance(index, avail))
        append("  ret void")
        append("}")
        return "\n".join(out)

    def _driver_source(self, fname: str) -> str:
        out = [f"define i64 @{fname}(ptr %s, i64 %now) {{", "entry:",
               "  %early = icmp slt i64 %now, 0",     # the code assumes a clock from 0 on
               "  br i1 %early, label %refuse, label %run",
               "refuse:", "  ret i64 -1", "run:",
               f"  %trap = getelementptr i64, ptr %s, i64 {self._trap_cell}",
               "  store i64 0, ptr %trap",
               f"  %fault = getelementptr i64, ptr %s, i64 {self._fault_cell}"]
        n = 0

        def copy(dst: int, src: int) -> None:
            nonlocal n
            n += 1
            out.append(f"  %a{n} = getelementptr i64, ptr %s, i64 {src}")
            out.append(f"  %v{n} = load i64, ptr %a{n}")
            out.append(f"  %d{n} = getelementptr i64, ptr %s, i64 {dst}")
            out.append(f"  store i64 %v{n}, ptr %d{n}")
        for src, prev in self.flat.snapshots.items():
            copy(prev, src)
        with_procedures = {self.position[i] // CHUNK for i in self._procedures.indices}
        for c, name in enumerate(self._chunk_names):
            out.append(f"  call void @{name}(ptr %s, i64 %now)")
            if c in with_procedures:      # a fault ends the scan where it happened
                out += [f"  %f{c} = load i64, ptr %fault", f"  %g{c} = icmp ne i64 %f{c}, 0",
                        f"  br i1 %g{c}, label %faulted, label %after{c}", f"after{c}:"]
        for slot, src in self.flat.publish:
            if slot not in self.forced:
                copy(slot, src)
        out.append("  %r = load i64, ptr %trap")
        out.append("  ret i64 %r")
        if with_procedures:
            out += ["faulted:", f"  ret i64 {FAULT}"]
        out.append("}")
        out += self._many_source(fname)
        return "\n".join(out)

    def _many_source(self, driver: str) -> list[str]:
        """``many_<driver>(s, now, cycle, n, done)``: ``n`` scans, the k-th at ``now +
        k * cycle``, stopped by the first that does not end cleanly (its code
        returned, the scans before it in ``*done``): fbd.runtime.fastforward."""
        return [f"define i64 @many_{driver}(ptr %s, i64 %now, i64 %cycle, i64 %n, ptr %done) {{",
                "entry:", "  br label %loop", "loop:",
                "  %k = phi i64 [0, %entry], [%k1, %next]",
                "  %t = phi i64 [%now, %entry], [%t1, %next]",
                "  %more = icmp slt i64 %k, %n", "  br i1 %more, label %scan, label %end", "scan:",
                f"  %r = call i64 @{driver}(ptr %s, i64 %t)",
                "  %bad = icmp ne i64 %r, 0", "  br i1 %bad, label %stop, label %next", "next:",
                "  %k1 = add i64 %k, 1", "  %t1 = add i64 %t, %cycle", "  br label %loop",
                "stop:", "  store i64 %k, ptr %done", "  ret i64 %r",
                "end:", "  store i64 %n, ptr %done", "  ret i64 0", "}"]
