"""Which element each block of an FBD or LD body places: a library block (its
options from the file, the overload its inputs' types show) or a POU of the
project (a network, or the block an ST, IL or SFC POU compiles to), and what
its pins are (:class:`~.body.BlockInfo`).

:class:`PlacingMixin` is part of :class:`.builder.PouBuilder`.
"""

from __future__ import annotations

from ..block import Extensible, registry
from ..errors import FbdError
from ..network import Network
from . import overloads
from .body import BlockInfo
from .native import block_options
from .source import PlcOpenError, child, children, quote

#: edition-2 names of IEC functions (Beremiz's, matiec's) -> this library's
EDITION2_NAMES = {"MULTIME": "MUL_TIME", "DIVTIME": "DIV_TIME", "ADD_TIME": "ADD",
                  "SUB_TIME": "SUB"}


class PlacingMixin:
    def create_blocks(self):
        """What each placed block is (its type and :class:`BlockInfo`); the instances
        come once the statements say which blocks run (:meth:`place_blocks`)."""
        self.elements, self.infos = {}, {}
        reg = registry()
        for el in self.body.blocks():
            lid = el.get("localId")
            self.elements[lid], self.infos[lid] = self._element(el, lid, el.get("typeName") or "",
                                                                reg)

    def place_blocks(self):
        self.insts, self.eno = {}, {}
        for el in self.body.blocks():
            lid = el.get("localId")
            if lid in self.body.cancelled:
                continue
            iname = el.get("instanceName") or f"{el.get('typeName') or 'block'}_{lid}"
            try:
                inst = self.insts[lid] = self.net.add(self._fresh(iname), self.elements[lid])
            except FbdError as e:
                raise self.err(str(e), lid) from None
            if self.body._en_pin(el) is not None:
                self.eno[lid] = self._add(f"{inst.name}_ENO", "MOVE")

    def _element(self, el, lid, tname, reg):
        pou = self.imp.pou_name(tname)
        if pou is None and tname not in reg:
            upper = tname.upper()
            tname = EDITION2_NAMES.get(upper) or next((n for n in reg if n.upper() == upper),
                                                      tname)
        if pou is None:     # ADD, SUB, MUL, DIV of TIME and dates: the overload's own block
            tname = overloads.resolve(tname, el, self.body, self._var_type, reg)
        if pou is not None:
            try:
                element = self.imp.placeable(pou)
            except PlcOpenError as e:
                raise self.err(f"block {quote(tname)} cannot be placed: {e.detail}", lid) from None
            if isinstance(element, Network):
                inouts = self.imp.inouts.get(pou, set())
                inputs = [n for n in element.inputs]
                outputs = [n for n in element.outputs
                           if not (n.endswith("_OUT") and n[:-4] in inouts)]
                function = self.imp.kinds.get(pou) == "function"
                return element, BlockInfo(function, inputs, outputs, set(inouts))
            return element, self._library_info(element, function=False)
        if tname not in reg:
            raise self.err(f"unknown block type {quote(tname)} (neither a standard block "
                           f"nor a POU of this project)", lid)
        cls = reg[tname]
        pins = [v.get("formalParameter") for g in ("inputVariables", "inOutVariables")
                for v in children(child(el, g), "variable")]

        def what(msg):
            return self.err(f"block {tname}: {msg}", lid)

        kw = block_options(el, cls, pins, what)
        try:
            element = cls(**kw)
        except (FbdError, TypeError) as e:
            raise what(str(e)[:300]) from None
        return element, self._library_info(element, function=not cls.stateful)

    @staticmethod
    def _library_info(block, function: bool) -> BlockInfo:
        cls = type(block)
        return BlockInfo(function, [p.name for p in block.input_ports()],
                         [p.name for p in block.output_ports()], set(),
                         any(isinstance(p, Extensible) for p in cls.inputs))

    def _var_type(self, text: str):
        key = self.key(text)
        return self.vars[key].type if key is not None else None

    def block_info(self, lid) -> BlockInfo:
        return self.infos[lid]


__all__ = ["PlacingMixin", "EDITION2_NAMES"]
