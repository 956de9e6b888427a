"""The flat program form: what every backend reads.

:func:`fbd.compiler.flatten` turns a :class:`~fbd.network.Network` into a
:class:`FlatProgram`: the macro hierarchy is gone, every elementary block is a
:class:`Leaf` with its full path, every input is resolved to what really
drives it, every generic type is known and the execution order is fixed. The
Python code generator (:mod:`.pycode`), the block-by-block interpreter
(:mod:`.interp`) and the other engines are written against this form only;
none of them sees macros, bindings or type inference.

The program's values live in one flat *signal table* (a list, or an array in
another engine), one *slot* per value. The form says which slot holds what:

* ``inputs``: each top-level input's slot (the input image: a PLC's inputs are
  written there before the scan);
* each leaf's ``outputs`` and ``state`` slots (the block writes them);
* ``outputs``: the top-level outputs' own slots (the output image), which a
  scan fills at its end from ``publish``: ``(output slot, source slot)``;
* ``snapshots``: ``source slot -> copy slot``. A feedback wire reads the value
  of the previous scan; where its source block runs *before* the reader in
  the scan, the reader reads a copy taken at the start of the scan. Where the
  source runs after the reader, the slot itself still holds last scan's value
  and no copy is needed.

One scan, in every engine, is therefore: copy each snapshot's source into its
copy; run ``order``'s leaves, each reading :meth:`FlatProgram.read_slot` of
its inputs (or their constants) and writing its slots; copy ``publish``.
:meth:`FlatProgram.new_table` gives the table of a cold start.

The form is immutable: build it once, hand it to any number of backends. Its
collections are tuples and read-only mappings; a :class:`Leaf`'s attributes
are set while flattening and never changed after (they are plain slots for
the compiler's speed, not enforced).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from .. import types as t
from ..errors import UnknownSignal
from ..types import deep_copy

_NOTHING = MappingProxyType({})  # shared by the many leaves with no state or no type variables


class Src(NamedTuple):
    """What drives an input: a slot (written by block ``leaf``; -1 for a PLC
    input or a snapshot) or, with ``slot`` None, the constant ``const``.
    ``feedback``: the wire reads the previous scan's value."""
    slot: int | None
    const: Any = None
    feedback: bool = False
    leaf: int = -1


class Leaf:
    """One elementary block instance of the flat program.

    ``index`` (its number, the position in ``FlatProgram.leaves``), ``path``
    (``cell_0_0.memory``), ``block`` (the configured :class:`~fbd.block.Block`),
    ``inst`` (its :class:`~fbd.network.Instance`), ``outputs`` and ``state``
    (name -> slot), ``inputs`` (port -> :class:`Src`, in port order), ``types``
    (type variable -> :class:`~fbd.types.DataType`, inferred).

    A plain class with slots: a big program makes one per block, and a
    dataclass's default factories made that a fifth of flattening.
    """
    __slots__ = ("index", "path", "block", "inst", "scope", "outputs", "state", "inputs",
                 "types")

    def __init__(self, index: int, path: str, block, inst, scope):
        self.index = index
        self.path = path
        self.block = block
        self.inst = inst
        self.scope = scope        # the macro level it sits in (compiler-internal)
        self.outputs: dict = {}   # port -> slot
        self.state = _NOTHING     # name -> slot (a dict of its own if the block has state)
        self.inputs: dict = {}    # port -> Src
        self.types = _NOTHING     # type var -> DataType (set by inference)

    def __repr__(self) -> str:
        return f"<Leaf {self.index} {self.path}: {self.block!r}>"

    def port_type(self, port: str) -> t.DataType | None:
        """A port's type (None where inference could not tell)."""
        decl = self.inst.input_decls.get(port) or self.inst.output_decls[port]
        return self.types.get(decl.type) if isinstance(decl.type, str) else decl.type

    def state_type(self, name: str) -> t.DataType | None:
        for sv in self.block.state_vars():
            if sv.name == name:
                return self.types.get(sv.type) if isinstance(sv.type, str) else sv.type
        raise KeyError(name)


#: what a path names: a program input or output (the process image), a block's
#: output, state variable or input (an alias of its source), a macro's port
SignalKind = Literal["input", "output", "out", "state", "in", "port"]


class SignalInfo(NamedTuple):
    """A path's place in the signal table. ``slot`` is None for a constant."""
    path: str
    type: t.DataType
    kind: SignalKind
    slot: int | None
    const: Any = None
    leaf: int | None = None  # the block that writes the slot, if any


class MacroPort(NamedTuple):
    """An input or output of a placed macro (``cell_0_0.Value``): an alias of
    what drives it."""
    path: str
    type: t.DataType | None
    src: Src


@dataclass(frozen=True, eq=False)
class FlatProgram:
    """A network flattened, resolved, typed and ordered (see the module docstring)."""

    name: str
    network: Any                      # the Network it was made from (read-only)
    leaves: tuple                     # Leaf, by index
    order: tuple                      # leaf indices, in execution order
    slot_init: tuple                  # every slot's initial value
    fresh: tuple                      # (slot, make, leaf): state made anew per table
    inputs: MappingProxyType          # top-level input -> slot
    input_types: MappingProxyType     # top-level input -> DataType
    outputs: MappingProxyType         # top-level output -> its output-image slot
    output_types: MappingProxyType    # top-level output -> DataType
    publish: tuple                    # (output slot, source slot), copied at scan end
    snapshots: MappingProxyType       # source slot -> its copy taken at scan start
    writer: MappingProxyType          # slot -> the leaf that writes it
    macro_ports: tuple                # MacroPort of every placed macro
    macros: tuple                     # (path prefix, Network) of every placed macro
    with_literals: frozenset          # leaves with an input driven by a constant
    with_feedback: frozenset          # leaves with an input on a feedback wire
    mutable_slots: tuple = ()         # slots whose initial value is a list (ARRAY, STRUCT)
    position: MappingProxyType = field(init=False)  # leaf index -> place in order
    _signals: dict = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "position",
                           MappingProxyType({leaf: pos for pos, leaf in enumerate(self.order)}))
        object.__setattr__(self, "_signals", {})

    @property
    def n_slots(self) -> int:
        return len(self.slot_init)

    def new_table(self) -> list:
        """A fresh signal table holding every initial value (a cold start)."""
        table = list(self.slot_init)
        for slot in self.mutable_slots:  # each table its own arrays and structures
            table[slot] = deep_copy(table[slot])
        for slot, make, leaf in self.fresh:
            table[slot] = make(leaf.block, leaf.types)
        for src_slot, copy in self.snapshots.items():
            table[copy] = table[src_slot]
        return table

    def read_slot(self, reader: int, src: Src) -> int | None:
        """The slot block ``reader`` reads for an input driven by ``src``: the
        scan-start copy where a feedback wire's source runs earlier in the scan."""
        slot = src.slot
        if (src.feedback and src.leaf >= 0 and src.leaf != reader
                and self.position[src.leaf] < self.position[reader]):
            return self.snapshots[slot]
        return slot

    def feedback_edges(self) -> list[tuple[int, str, Src]]:
        """``(reader leaf, port, source)`` of every wire marked feedback."""
        return [(i, port, src) for i in sorted(self.with_feedback)
                for port, src in self.leaves[i].inputs.items() if src.feedback]

    # -- paths -----------------------------------------------------------------
    @property
    def signals(self) -> dict[str, SignalInfo]:
        """Every path of the program and its place in the table, built on first use."""
        if not self._signals:
            self._signals.update(self._paths())
        return self._signals

    def signal(self, path: str) -> SignalInfo:
        try:
            return self.signals[path]
        except KeyError:
            raise UnknownSignal(path, self.signals) from None

    def _paths(self):
        for name, slot in self.inputs.items():
            yield name, SignalInfo(name, self.input_types[name], "input", slot)
        for name, slot in self.outputs.items():
            yield name, SignalInfo(name, self.output_types[name], "output", slot)
        for leaf in self.leaves:
            prefix = leaf.path + "."
            for port, slot in leaf.outputs.items():
                yield prefix + port, SignalInfo(prefix + port, leaf.port_type(port), "out",
                                                slot, leaf=leaf.index)
            for sv in leaf.block.state_vars():
                tp = leaf.types.get(sv.type) if isinstance(sv.type, str) else sv.type
                yield prefix + sv.name, SignalInfo(prefix + sv.name, tp, "state",
                                                   leaf.state[sv.name], leaf=leaf.index)
            for port, src in leaf.inputs.items():
                yield prefix + port, self._alias(prefix + port, leaf.port_type(port), "in", src)
        for port in self.macro_ports:
            yield port.path, self._alias(port.path, port.type, "port", port.src)

    def _alias(self, path, tp, kind, src: Src) -> SignalInfo:
        if src.slot is None:
            return SignalInfo(path, tp, kind, None, src.const)
        return SignalInfo(path, tp, kind, src.slot, leaf=self.writer.get(src.slot))

    # -- description -------------------------------------------------------------
    def info(self) -> dict:
        """Block counts by type, macros, execution order (``fbd info``)."""
        counts: dict[str, int] = {}
        for leaf in self.leaves:
            counts[leaf.block.name] = counts.get(leaf.block.name, 0) + 1
        macros: dict[str, int] = {}
        for _prefix, net in self.macros:
            macros[net.name] = macros.get(net.name, 0) + 1
        return {
            "network": self.name,
            "blocks": len(self.leaves),
            "slots": self.n_slots,
            "inputs": {n: str(tp) for n, tp in self.input_types.items()},
            "outputs": {n: str(tp) for n, tp in self.output_types.items()},
            "block_types": dict(sorted(counts.items())),
            "macros": dict(sorted(macros.items())),
            "order": [self.leaves[i].path for i in self.order],
            "feedback_copies": len(self.snapshots),
        }

    def __repr__(self) -> str:
        return f"<FlatProgram {self.name}: {len(self.leaves)} blocks, {self.n_slots} slots>"


__all__ = ["FlatProgram", "Leaf", "Src", "SignalInfo", "MacroPort"]
