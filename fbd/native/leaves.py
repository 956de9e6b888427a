"""One block's code alone, for a debugger stepping into a scan (a mixin of
:class:`~.program.NativeProgram`): the Python statements its native code was
translated from, and its machine code as ``f(s, now)``, the blocks of a chunk
compiled together on first use and kept until the forced set changes.
"""

from __future__ import annotations

import ctypes

from ..block import code_lines, code_namespace, literal
from . import apart
from .lower import DECLARATIONS
from .regions import DECLARATIONS as POU_DECLARATIONS
from .scansource import CHUNK, FAULT
from .table import NativeTable


class LeafFunctions:
    """The blocks' functions of :class:`~.program.NativeProgram`, one at a time."""

    def leaf_code(self, index: int) -> list[str]:
        """One block's Python statements over the table: the text its native code
        was translated from (shown by a debugger; the step itself runs native code)."""
        leaf = self.leaves[index]
        names = {}
        for port, src in leaf.inputs.items():
            names[port] = (literal(src.const) if src.slot is None
                           else f"s[{self.flat.read_slot(index, src)}]")
        for port, slot in [*leaf.outputs.items(), *leaf.state.items()]:
            names[port] = f"s[{self._place(slot)}]"
        return code_lines(leaf.block, names, leaf.types)

    def leaf_function(self, index: int):
        """One block's native code alone, as ``f(s, now)`` (a debugger stepping into
        a scan): the blocks of its chunk are compiled together on first use, and
        kept until the forced set changes. A procedure block (an ST POU) runs its
        function by values over the table instead, as on the Python engine: a call
        a fault stops leaves the table as it was, and runs again from its start."""
        fn = self._leaf_fns.get(index)
        if fn is None and index in self._procedures.indices:
            src = "def _one(s, now):\n" + "".join(f"    {ln}\n" for ln in self.leaf_code(index))
            ns = code_namespace([self.leaves[index].block])
            exec(compile(src, f"<fbd {self.leaves[index].path}>", "exec"), ns)
            fn = self._leaf_fns[index] = ns["_one"]
        if fn is None:
            self._compile_leaves(self.position[index] // CHUNK)
            fn = self._leaf_fns[index]
        return fn

    def _compile_leaves(self, c: int) -> None:
        self._version += 1
        v = self._version
        self._modules += 1
        number = self._modules
        leaves = self.order[c * CHUNK:(c + 1) * CHUNK]
        procedures = self._procedures.module(leaves, number)
        self._procedures.sites[number] = procedures.sites
        _shown, compiled, objects = self._procedure_code(procedures)
        self._add_objects(objects)
        parts, names = [DECLARATIONS, POU_DECLARATIONS, *compiled], []
        for index in leaves:
            name = f"leaf{index}_v{v}"
            names.append((index, name))
            if index in self._procedures.indices:
                body = self._procedures.call(index, number).replace(
                    "  ret void", f"  ret i64 {FAULT}")
            else:
                body = self._instance(index, None)
            parts += [f"define i64 @{name}(ptr %s, i64 %now) {{", "entry:",
                      f"  %trap = getelementptr i64, ptr %s, i64 {self._trap_cell}",
                      f"  %fault = getelementptr i64, ptr %s, i64 {self._fault_cell}",
                      "  store i64 0, ptr %trap", body,
                      "  %r = load i64, ptr %trap", "  ret i64 %r", "}"]
        module = self._llvm.parse_assembly("\n".join(parts))
        if procedures.defs:
            self._optimize(module, self._procedure_lines <= apart.FULL_OPTIMISE_LINES)
        self._engine.add_module(module)
        self._engine.finalize_object()
        kind = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)
        for index, name in names:
            cfn = kind(self._engine.get_function_address(name))
            self._leaf_fns[index] = self._leaf_caller(cfn)

    def _leaf_caller(self, cfn):
        def run(s: NativeTable, now: int) -> None:
            code = cfn(s.address, now)
            if code:
                self._stopped(s, code, now)
        run.cfn = cfn  # keeps the ctypes function alive with the closure
        return run
