"""The Python backend: one scan of a :class:`~.flat.FlatProgram` as generated code.

The scan is straight-line Python, in chunks of :data:`CHUNK` blocks, over one
flat list ``s`` that holds every signal. Each block's code comes from its
type's one definition (``Block.code``), formatted into a template once per
block configuration and reused for every instance of it. The text is written
by :mod:`.pysource`; :class:`ScanProgram` compiles and links it, owns the
table's layout (scratch slots for forced signals) and runs it.
"""

from __future__ import annotations

import os
from operator import itemgetter

from ..block import code_namespace
from ..errors import ScansDone
from ..network import Network
from .compileruns import FunctionRuns
from .flat import FlatProgram, SignalInfo
from .forkmap import map_in_two
from .front import _flatten, count_instances, quiet_gc
from .pysource import CHUNK, PyScanSource, _over_table, _procedure_index


class ScanProgram(PyScanSource):
    """A compiled network: the code of one scan over the signal table laid out
    by its :class:`~.flat.FlatProgram` (``flat``).

    Holds no run-time values: :meth:`new_table` makes the table a
    :class:`~fbd.runtime.Plc` owns. ``dump`` (or ``FBD_DUMP=path``) writes the
    generated source for reading. Forcing a signal (:meth:`set_forced`) makes
    the block that writes it write a *scratch* slot instead, appended to the
    table; the flat program's layout is never changed.
    """

    def __init__(self, flat: FlatProgram, dump: str | None = None):
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
        self._snapshots = flat.snapshots
        self._publish = flat.publish
        self._scratch_init: list = []  # initial values of the scratch slots, after flat's
        # What each block reads; most read plain wires only, their slots in port order.
        special, slot_of = flat.with_literals | flat.with_feedback, itemgetter(0)
        self._reads: list[tuple] = [
            self._input_reads(leaf) if leaf.index in special
            else (tuple(map(slot_of, leaf.inputs.values())), ()) for leaf in flat.leaves]
        self._templates: dict = {}
        self._block_templates: dict = {}  # (id(block), consts) -> template, see _template
        self.forced: set[int] = set()
        self._chunk_src: list[str] = []   # each chunk's function (its ST functions: source())
        self._leaf_fns: dict = {}  # leaf index -> its function (leaf_function), until a force
        self.dump_path = dump if dump is not None else os.environ.get("FBD_DUMP")
        self._held: list[str] | None = None   # see _held_source ([]: there is none)
        self._generate()

    # -- slots -----------------------------------------------------------------
    def _new_slot(self, init) -> int:
        self._scratch_init.append(init)
        return self.flat.n_slots + len(self._scratch_init) - 1

    @property
    def n_slots(self) -> int:
        return self.flat.n_slots + len(self._scratch_init)

    def new_table(self) -> list:
        """A fresh signal table holding every initial value (a cold start)."""
        table = self.flat.new_table()
        table += self._scratch_init
        return table

    def _place(self, slot: int) -> int:
        """Where a block writes ``slot``: a scratch slot while the slot is forced."""
        if slot in self.forced:
            if slot not in self._scratch:
                self._scratch[slot] = self._new_slot(None)
            return self._scratch[slot]
        return slot

    # -- paths -----------------------------------------------------------------
    @property
    def signals(self) -> dict[str, SignalInfo]:
        """Every path of the program and its place in the table."""
        return self.flat.signals

    def signal(self, path: str) -> SignalInfo:
        return self.flat.signal(path)

    # -- compiled code ---------------------------------------------------------
    def _holdable(self) -> bool:
        """Whether the network is one ST program, which may have a ``scan_many``
        holding its variables in locals from the first scan of a run to the last
        (:mod:`fbd.st.pyheld`: a subscript of the table less for each access):
        not while a signal is forced (its writer writes a scratch slot the
        variant does not know)."""
        if len(self.leaves) != 1 or self.forced or self._snapshots:
            return False
        leaf = self.leaves[0]
        return _over_table(leaf) and hasattr(leaf.block.procedure, "python_held")

    @property
    def holds(self) -> bool:
        """Whether ``scan_many`` holds the variables (written now if it is not yet)."""
        if self._held is None and self._holdable():
            self._make_held()
        return bool(self._held) and self._holdable()

    def _make_held(self) -> None:
        """Write the held variant (once: nothing but a force changes it) and link it."""
        self._held = self._held_source() or []
        self._link()

    def scan_many(self, s: list, now: int, cycle: int, n: int) -> int:
        """n scans at ``now``, ``now + cycle``, ... in one call (fbd.runtime.fastforward);
        the held variant is written at the first run (a program that is never
        fast-forwarded never pays for it)."""
        if self._held is None and self._holdable():
            self._make_held()
        return self._many(s, now, cycle, n)

    def _generate(self) -> None:
        self._scratch: dict[int, int] = {}
        n_chunks = max(1, -(-len(self.order) // CHUNK))
        built = map_in_two(self._chunk_code, list(range(n_chunks)))
        self._chunk_src = [src for src, _code in built]
        self._namespace = code_namespace({type(leaf.block): leaf.block for leaf in self.leaves
                                          if not _over_table(leaf)}.values())
        for leaf in self.leaves:
            if _over_table(leaf):
                for key, value in leaf.block.procedure.python_namespace().items():
                    self._namespace.setdefault(key, value)
        for _src, codes in built:
            for code in codes:
                exec(code, self._namespace)
        self._link()

    def _chunk_code(self, c: int) -> tuple:
        """The chunk's function's text, and the code of its ST functions and its own.
        The ST functions are compiled as they are written, where a core is free
        partly in a forked child (:class:`.FunctionRuns`); their text is not kept (the
        program's Python, 23 MB for 100,000 ST statements): :meth:`source`
        writes it again."""
        filename = f"<fbd {self.name}>"
        with FunctionRuns(filename) as procedures:
            _written, chunk = self._chunk_parts(c, procedures)
            codes = procedures.codes()
        return chunk, codes + (compile(chunk, filename, "exec"),)

    def _link(self) -> None:
        scan_src = self._scan_source()
        self._namespace["_ScansDone"] = ScansDone
        exec(compile(scan_src, f"<fbd {self.name} scan>", "exec"), self._namespace)
        self.scan = self._namespace["scan"]
        self._many = self._namespace["scan_many"]
        if self.dump_path:
            with open(self.dump_path, "w") as f:
                f.write(self.source())

    def set_forced(self, slots: set[int]) -> list[int]:
        """Make the blocks that write ``slots`` write elsewhere (the runtime holds
        the forced value in the real slot). Recompiles only the chunks concerned.
        Returns scratch slots created, which the table must grow by."""
        before = self.n_slots
        changed = set(slots) ^ self.forced
        self.forced = set(slots)
        self._leaf_fns.clear()
        chunks = {self.position[self.writer[s]] // CHUNK for s in changed if s in self.writer}
        for c in sorted(chunks):
            self._chunk_src[c], codes = self._chunk_code(c)
            for code in codes:
                exec(code, self._namespace)
        self._link()
        return list(range(before, self.n_slots))

    def leaf_function(self, index: int):
        """One block's code alone, as a function ``f(s, now)`` (stepping into a scan);
        made on first use and kept until the forced set changes."""
        fn = self._leaf_fns.get(index)
        if fn is None:
            src = "def _one(s, now):\n" + "".join(f"    {ln}\n" for ln in self.leaf_code(index))
            ns = code_namespace([self.leaves[index].block])
            exec(compile(src, f"<fbd {self.leaves[index].path}>", "exec"), ns)
            fn = self._leaf_fns[index] = ns["_one"]
        return fn

    def block_at(self, tb) -> str | None:
        """The path of the block whose code the traceback ``tb`` of a failed scan
        passed through last (the block that raised), or None. Read from the
        comment that heads each block's code in its chunk, so the scan pays
        nothing for it."""
        found = None
        while tb is not None:
            code = tb.tb_frame.f_code
            if tb.tb_frame.f_globals is self._namespace and code.co_name.startswith("_chunk_"):
                lines = self._chunk_src[int(code.co_name[len("_chunk_"):])].splitlines()
                for text in reversed(lines[:tb.tb_lineno]):
                    if text.startswith("    # "):
                        found = text[len("    # "):].split(":", 1)[0]
                        break
            elif tb.tb_frame.f_globals is self._namespace:
                index = _procedure_index(code.co_name)     # a procedure the scan calls itself
                if index is not None:
                    found = self.leaves[index].path
            tb = tb.tb_next
        return found

    def snapshot(self, s: list) -> None:
        """Take the previous-scan copies of feedback wires (the scan's first step)."""
        for src_slot, prev in self._snapshots.items():
            s[prev] = s[src_slot]

    def publish(self, s: list) -> None:
        """Copy outputs to the output image (the scan's last step)."""
        for slot, src_slot in self._publish:
            if slot not in self.forced:
                s[slot] = s[src_slot]

    # -- description -------------------------------------------------------------
    def info(self) -> dict:
        """Block counts by type, macros, execution order (``fbd info``)."""
        return self.flat.info()


def compile_network(net: Network, dump: str | None = None) -> ScanProgram:
    """Validate ``net`` and compile it; raise ValidationError listing every problem."""
    if not isinstance(net, Network):
        raise TypeError(f"expected a Network, got {type(net).__name__}")
    with quiet_gc(count_instances(net)):
        return ScanProgram(_flatten(net), dump)
