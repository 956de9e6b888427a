"""The scan's IR compiled to machine code and linked (a mixin of
:class:`~.program.NativeProgram`): each chunk a module compiled to an object
file, half of them in a forked child where that is possible; its procedures'
functions through LLVM's optimiser, in groups compiled apart past a size
(:mod:`.apart`); every object file from the machine-code cache on disk
(:mod:`.objcache`) where a build made it before; then the driver, called
through a built-in function (:mod:`.entry`).
"""

from __future__ import annotations

import ctypes

from ..compiler.forkmap import map_in_two
from ..errors import ScansDone
from . import apart
from .entry import DECLARATIONS as ENTRY_DECLARATIONS
from .entry import builtin, entry_source
from .lower import DECLARATIONS
from .objcache import ObjectCache, target_salt
from .regions import DECLARATIONS as POU_DECLARATIONS
from .scansource import CHUNK
from .table import NativeTable


def _llvm():
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


class ScanCompiler:
    """The compiling and linking of :class:`~.program.NativeProgram`'s scan."""

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
