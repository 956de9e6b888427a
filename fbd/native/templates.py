"""Each block configuration's IR template, translated once and shared by its instances.

A configuration is a block type with its parameters, its inputs' types and the
literals wired to it; the :mod:`.lower` translator (or :mod:`.stores` for
LIFO/FIFO) turns its Python code into IR with placeholders, and
:class:`~.program.NativeProgram` formats it per instance with its slots.
"""

from __future__ import annotations

from operator import itemgetter
from types import MappingProxyType

from ..block import code_lines, code_namespace, identifier, literal
from .lower import Var, lower
from .stores import lower_store, store_kind


class Template:
    """One block configuration's IR, formatted per instance with ``{0}`` its name
    prefix, ``{1}`` its trap code, then its slots (inputs read, outputs and
    state written, a LIFO/FIFO's region), then each input's value. ``inputs``:
    per wired input, the kind of its cell (None if the code never reads it);
    ``stored``: (argument position among the slots, raw value stored)."""
    __slots__ = ("fmt", "inputs", "stored", "region")

    def __init__(self, bl, n_inputs: int, region: bool = False):
        self.fmt = "\n".join(bl.lines)
        self.inputs = tuple(bl.used_inputs.get(2 + i) for i in range(n_inputs))
        self.stored = tuple((arg - 2, ref) for arg, ref in sorted(bl.stored.items()))
        self.region = region


class Templates:
    """The templates of one flat program's blocks, and what each block reads:
    ``reads[index]`` is (the slots of its wired inputs, the literals of the others
    as (port, text))."""

    #: the translator of a block's code (the batch engine's narrows the clock
    #: and the state a block keeps: :mod:`fbd.batch.forms`)
    lower = staticmethod(lower)

    def __init__(self, flat):
        self.flat = flat
        self._by_config: dict = {}
        self._block_templates: dict = {}
        special, slot_of = flat.with_literals | flat.with_feedback, itemgetter(0)
        self.reads = [self._input_reads(leaf) if leaf.index in special
                      else (tuple(map(slot_of, leaf.inputs.values())), ())
                      for leaf in flat.leaves]

    def of(self, leaf) -> Template:
        """The template of this leaf's configuration (raises NoNativeForm where the
        block has no native form)."""
        return self._cached(leaf, self.reads[leaf.index][1])

    def _input_reads(self, leaf) -> tuple:
        ins, consts = [], []
        for port, src in leaf.inputs.items():
            if src.slot is None:
                consts.append((port, literal(src.const)))
            else:
                ins.append(self.flat.read_slot(leaf.index, src))
        return tuple(ins), tuple(consts)

    def _cached(self, leaf, consts: tuple) -> Template:
        block = leaf.block
        by_block = None
        if leaf.types.__class__ is MappingProxyType:
            by_block = (id(block), consts)
            cached = self._block_templates.get(by_block)
            if cached is not None:
                return cached
        try:
            key = (type(block), block.n, tuple(block.p.items()), tuple(leaf.types.items()), consts)
            cached = self._by_config.get(key)
        except TypeError:
            key = cached = by_block = None
        if cached is None:
            cached = self._make_template(leaf, consts)
            if key is not None:
                self._by_config[key] = cached
        if by_block is not None:
            self._block_templates[by_block] = cached
        return cached

    def _make_template(self, leaf, consts: tuple) -> Template:
        literal_ports = dict(consts)
        names, variables = {}, {}
        arg = 2
        for port in leaf.inputs:
            if port in literal_ports:
                names[port] = literal_ports[port]
            else:
                names[port] = f"i_{port}"
                variables[names[port]] = Var(port, arg, leaf.port_type(port), False)
                arg += 1
        n_inputs = arg - 2
        for port in leaf.outputs:
            names[port] = f"o_{port}"
            variables[names[port]] = Var(port, arg, leaf.port_type(port), True)
            arg += 1
        for name in leaf.state:
            names[name] = f"o_{identifier(name)}"
            variables[names[name]] = Var(name, arg, leaf.state_type(name), True)
            arg += 1
        region = store_kind(leaf.block) is not None
        first_value = arg + (1 if region else 0)
        values = {2 + i: first_value + i for i in range(n_inputs)}
        if region:
            return Template(lower_store(leaf, names, variables, arg, values), n_inputs, True)
        code = "\n".join(code_lines(leaf.block, names, leaf.types))
        bl = self.lower(code, variables, code_namespace([leaf.block]), leaf.block.name, values)
        return Template(bl, n_inputs)


__all__ = ["Template", "Templates"]
