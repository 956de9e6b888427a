"""An object-per-block interpreter: the naive baseline and the reference.

The compiled engine (:mod:`fbd.compiler.pycode`) turns a whole network into
straight-line Python over one flat signal table. This module runs the same
:class:`~fbd.compiler.FlatProgram` the way a textbook simulator would: one
:class:`BlockObject` per block, each holding its own dicts of output and
state values, its inputs read every scan through ordinary Python lookups on
the objects that drive them. It exists for two reasons:

* it is the baseline ``fbd bench`` measures the compiled scan against;
* it is a second, independent execution of the same semantics, so a test can
  compare every block output of the compiled scan with it, scan after scan.

There is still one definition of what a block does: each object's
:meth:`BlockObject.evaluate` runs a function compiled from the *same*
``block.code(io)`` text as the engine, only with other names given to the
:class:`~fbd.block.IO` (``i['IN1']`` for an input, ``o['OUT']`` for an output,
``st['x']`` for a state variable). What is independent is everything around
the blocks: the signal table, slots, snapshots of feedback wires, chunking,
forcing. Only the flattening, the typing and the execution order are taken
from the flat program.

Scan semantics are IEC 61131-3's, as the engine has them: inputs written with
:meth:`Interpreter.set` are latched at the start of the next scan; blocks run
once each in ``program.order``; an input on a feedback wire whose source block
runs earlier in the same scan reads that source's value of the previous scan
(copies taken at scan start); top-level outputs are published at the end.

>>> it = Interpreter(net)                 # doctest: +SKIP
>>> it.set("S", True); it.scan(0); it.get("ff.Q1")
"""

from __future__ import annotations

from typing import Any

from ..block import code_lines, code_namespace
from ..errors import FbdError, UnknownSignal
from ..network import Network
from ..values import NS_PER_US
from .flat import FlatProgram
from .front import flatten
from .pycode import ScanProgram

__all__ = ["Interpreter", "BlockObject"]


class BlockObject:
    """One block of the flattened program with its own values.

    ``out`` and ``st`` map port and state names to this block's values;
    ``prev`` is the copy of ``out`` taken at scan start, for the blocks that
    read this one over a feedback wire but run after it; ``reads`` lists
    ``(port, values, key)``: the input ``port`` is ``values[key]`` where
    ``values`` is the source object's ``out`` (or ``prev``) dict, or the
    interpreter's dict of network inputs; ``consts`` holds inputs wired to
    literals.
    """

    __slots__ = ("index", "path", "block", "out", "st", "prev", "reads", "consts",
                 "source", "fn")

    def __init__(self, index: int, path: str, block, out: dict, st: dict):
        self.index = index
        self.path = path
        self.block = block
        self.out = out
        self.st = st
        self.prev = dict(out)
        self.reads: list[tuple[str, dict, str]] = []
        self.consts: dict[str, Any] = {}
        self.source = ""
        self.fn = None

    @property
    def type_name(self) -> str:
        return self.block.name

    def inputs(self) -> dict:
        """This scan's input values, read from the objects that drive them."""
        i = dict(self.consts)
        for port, values, key in self.reads:
            i[port] = values[key]
        return i

    def evaluate(self, now: int) -> None:
        """Run the block once: read its inputs, then its code updates ``out`` and ``st``."""
        self.fn(self.inputs(), self.out, self.st, now)

    def __repr__(self) -> str:
        return f"<BlockObject {self.path}: {self.block!r}>"


class Interpreter:
    """Run a network (or its FlatProgram, or a ScanProgram's) one object per block.

    The public surface follows :class:`~fbd.runtime.Plc` where it overlaps:
    :meth:`set` a network input, :meth:`scan`, :meth:`get` any signal path
    ``Plc.get`` accepts (leaf outputs and state, leaf inputs, macro ports,
    top-level inputs and outputs). There is no simpy, no forcing and no
    tracing: time is whatever ``now_us`` each scan is given.
    """

    def __init__(self, program: Network | FlatProgram | ScanProgram, cycle_us: int = 5000):
        if isinstance(program, Network):
            program = flatten(program)
        elif isinstance(program, ScanProgram):
            program = program.flat
        elif not isinstance(program, FlatProgram):
            raise FbdError(f"Interpreter needs a Network or a FlatProgram, not "
                           f"{type(program).__name__}")
        self.program = program
        self.cycle_us = cycle_us
        self.scans = 0
        table = program.new_table()  # the initial values, exactly as the engine starts
        self._loc: dict[int, tuple[dict, str]] = {}  # slot -> where the value lives here

        self.net_inputs: dict[str, Any] = {}
        for name, slot in program.inputs.items():
            self.net_inputs[name] = table[slot]
            self._loc[slot] = (self.net_inputs, name)
        self.pending: dict[str, Any] = {}

        self.objects: list[BlockObject] = []
        self._by_path: dict[str, BlockObject] = {}
        for leaf in program.leaves:
            obj = BlockObject(leaf.index, leaf.path, leaf.block,
                              {p: table[s] for p, s in leaf.outputs.items()},
                              {n: table[s] for n, s in leaf.state.items()})
            for p, s in leaf.outputs.items():
                self._loc[s] = (obj.out, p)
            for n, s in leaf.state.items():
                self._loc[s] = (obj.st, n)
            self.objects.append(obj)
            self._by_path[leaf.path] = obj

        self._wire()
        self._compile()
        self.order = [self.objects[i] for i in program.order]

        # Top-level outputs: each published from its source at the end of a scan.
        self.outputs: dict[str, Any] = {}
        for name, slot in program.outputs.items():
            self.outputs[name] = table[slot]
            self._loc[slot] = (self.outputs, name)
        name_of = {slot: name for name, slot in program.outputs.items()}
        self._publish: list[tuple[str, dict, str]] = [
            (name_of[slot], *self._loc[src_slot]) for slot, src_slot in program.publish]

    # -- construction ----------------------------------------------------------------
    def _wire(self) -> None:
        program = self.program
        position = program.position
        snap = {}
        for leaf in program.leaves:
            obj = self.objects[leaf.index]
            for port, src in leaf.inputs.items():
                if src.slot is None:
                    obj.consts[port] = src.const
                    continue
                values, key = self._loc[src.slot]
                if src.leaf >= 0:
                    source = self.objects[src.leaf]
                    if src.feedback and src.leaf != leaf.index and \
                            position[src.leaf] < position[leaf.index]:
                        # The source runs before us: read its previous-scan copy.
                        values = source.prev
                        snap[source.index] = source
                obj.reads.append((port, values, key))
        self._snapshots = [snap[i] for i in sorted(snap)]

    def _compile(self) -> None:
        namespace = code_namespace(leaf.block for leaf in self.program.leaves)
        functions: dict[str, Any] = {}  # identical code shares one function
        for leaf in self.program.leaves:
            obj = self.objects[leaf.index]
            names = {port: f"i[{port!r}]" for port in leaf.inputs}
            names.update({port: f"o[{port!r}]" for port in leaf.outputs})
            names.update({sv: f"st[{sv!r}]" for sv in leaf.state})
            body = [f"    {ln}" for ln in code_lines(leaf.block, names, leaf.types)] or ["    pass"]
            src = "def _block(i, o, st, now):\n" + "\n".join(body) + "\n"
            fn = functions.get(src)
            if fn is None:
                ns = namespace
                exec(compile(src, f"<fbd interp {type(leaf.block).type_name}>", "exec"), ns)
                fn = functions[src] = ns.pop("_block")
            obj.source = src
            obj.fn = fn

    # -- running -----------------------------------------------------------------------
    def set(self, name: str, value) -> None:
        """Write a network input; it is latched at the start of the next scan."""
        info = self.program.signal(name)
        if info.kind != "input":
            raise FbdError(f"{name!r} is not an input of {self.program.name} (its inputs: "
                           f"{', '.join(self.program.inputs) or 'none'})")
        self.pending[name] = info.type.coerce(value, name)

    def scan(self, now_us: int | None = None) -> None:
        """One scan at simulated time ``now_us`` (default: scans so far × cycle)."""
        now = (self.scans * self.cycle_us if now_us is None else now_us) * NS_PER_US
        if self.pending:
            self.net_inputs.update(self.pending)
            self.pending.clear()
        for obj in self._snapshots:
            obj.prev.update(obj.out)
        for obj in self.order:
            obj.evaluate(now)
        for name, values, key in self._publish:
            self.outputs[name] = values[key]
        self.scans += 1

    # -- reading -------------------------------------------------------------------------
    def get_raw(self, path: str):
        """The value of a signal as blocks compute with it (TIME in integer ns)."""
        info = self.program.signal(path)
        if info.slot is None:
            return info.const
        values, key = self._loc[info.slot]
        return values[key]

    def get(self, path: str):
        """The value of any signal by its path, as :meth:`fbd.runtime.Plc.get` gives it."""
        info = self.program.signal(path)
        raw = self.get_raw(path)
        return info.type.to_python(raw) if info.type is not None else raw

    def signals(self) -> list[str]:
        return list(self.program.signals)

    def object(self, path: str) -> BlockObject:
        """The object of the block at ``path`` (``cell_0_0.memory``)."""
        try:
            return self._by_path[path]
        except KeyError:
            raise UnknownSignal(path, self._by_path, "block") from None

    def __repr__(self) -> str:
        return f"<Interpreter {self.program.name}: {len(self.objects)} blocks, {self.scans} scans>"
