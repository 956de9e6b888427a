"""A POU's expressions as Python: the operands, places and calls a statement is
written with (:class:`PyExpressions`, a mixin of :class:`.pyemit.PyEmitter`), a
temporary folded into its reader (:mod:`.pyfold`) written in place, an integer
cut to its type by one comparison where its range allows (:func:`one_sided_wrap`).
"""

from __future__ import annotations

from .. import types as t
from ..block import literal
from . import ir

K = t.Kind


class PyExpressions:
    """The expressions of :class:`.pyemit.PyEmitter` (its ``access``, ``ranges``,
    ``folded``, ``aliases`` and ``_consumed``)."""

    def operand(self, e) -> str:
        """An expression as a block's input (parenthesized unless a name)."""
        return self.grouped(self.expr(e))

    def grouped(self, text: str) -> str:
        """``text``, an expression just written, as an operand anywhere."""
        return text if text is self._last_folded else grouped_text(text)

    def place(self, e) -> str:
        return self.expr(e)

    def expr(self, e) -> str:
        kind = type(e)
        if kind is ir.Ref:
            return self.access.var(e.var)
        if kind is ir.Temp:
            folded = self.folded.pop(e.name, None)
            if folded is not None:
                self._last_folded = folded      # grouped already: not in parentheses again
                self._consumed.append(folded)
                return folded
            return self.aliases.get(e.name, e.name)
        if kind is ir.Const:
            return literal(e.value)
        if kind is ir.Elem:
            parts = []
            for term, lo, stride in e.terms:
                scaled = f" * {stride}" if stride != 1 else ""
                if lo:
                    parts.append(f"({self.expr(term)} - {lo})" + scaled)
                elif scaled:
                    parts.append(self.operand(term) + scaled)
                else:
                    parts.append(self.expr(term))
            if e.constant or not parts:
                parts.append(str(e.constant))
            return f"{self.expr(e.base)}[{' + '.join(parts)}]"
        if kind is ir.Field:
            return f"{self.expr(e.base)}[{e.index}]"
        if kind is ir.Now:
            return "now"
        if kind is ir.Compare or kind is ir.Logic or kind is ir.Bits:
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if kind is ir.Not:
            return f"(not {self.expr(e.a)})"
        if kind is ir.Invert:
            return f"({self.expr(e.a)} ^ {e.mask})"
        if kind is ir.Neg:
            return f"-{self.operand(e.a)}"
        if kind is ir.Narrow:
            if self.ranges.within_type(e.a, e.type):     # the cut changes nothing
                return self.expr(e.a)
            return self.narrowed(e)
        if kind is ir.Copy:
            inner = self.expr(e.a)
            if e.length is not None:
                return f"{inner}[:{e.length}]"
            return f"_st_copy({inner})" if e.deep else f"list({inner})"
        if kind is ir.FnCall:
            return self.fn_call(e.info, e.args)
        if kind is ir.Item:
            return f"{e.call.name}[{e.k}]"
        raise TypeError(f"no Python form for {e!r}")

    def narrowed(self, e: ir.Narrow) -> str:
        """An integer cut to its type: by one comparison where its range allows
        (:func:`one_sided_wrap`), else as ``DataType.wrap`` cuts it."""
        tp = e.type.canonical
        text = self.expr(e.a)
        r = self.ranges.of(e.a)
        return (r is not None and one_sided_wrap(tp, text, r)) or tp.wrap(text)

    def fn_call(self, info, args) -> str:
        self.access.needs(info)
        texts = [self.expr(a) for a in args]
        return f"{info.fn_name}(now, {', '.join(texts)})" if texts else f"{info.fn_name}(now)"


def one_sided_wrap(tp, text: str, r) -> str | None:
    """``text``, a value of the range ``r``, cut to the signed integer type ``tp``
    where ``r`` leaves the type on one side only and by less than its width (``b
    := b + 1`` of an INT): one comparison and one addition, the value C's store
    gives, against ``DataType.wrap``'s two comparisons and masking (12 ns a
    store less, a third less for CPython to compile); None for the others."""
    if tp.kind is not K.INT or not tp.signed:
        return None
    width = 1 << tp.bits
    if tp.min <= r[0] and r[1] <= tp.max + width:
        return f"(_w if (_w := {text}) <= {tp.max} else _w - {width})"
    if tp.min - width <= r[0] and r[1] <= tp.max:
        return f"(_w if (_w := {text}) >= {tp.min} else _w + {width})"
    return None


def grouped_text(text: str) -> str:
    """``text`` as an operand anywhere: a name, slot or number as it is, else in
    parentheses."""
    if text.isidentifier() or text.isdigit() or is_slot(text):
        return text
    return f"({text})"


def is_slot(text: str) -> bool:
    return text.startswith("s[") and text.endswith("]") and text[2:-1].isdigit()
