"""Calls in a POU's native function (see :mod:`.pou`): an FB instance's body is
a function of its own over the table, called with the table and the clock; a
FUNCTION takes its inputs as values and writes its result, outputs and
VAR_IN_OUTs to a buffer of the caller's. VAR_IN_OUTs go in as copies and come
back out, as matiec passes them.
"""

from __future__ import annotations

from ..st import ir
from . import regions
from .pouframe import Place
from .values import NoNativeForm, slot_kind


class PouCalls:
    """The calls of :class:`~.pou.PouLowering` (a mixin: it builds the values)."""

    def call_fb(self, s: ir.CallFb) -> None:
        if self.frame is None:
            self.fail("an FB instance in a FUNCTION")
        probe = self.module.probe
        if probe is not None and not s.info.in_outs:
            # checking for a native form: each FB type is checked once on its own,
            # not once more in every instance (a program of 500 instances); one with
            # VAR_IN_OUTs only has a frame inside its caller's
            reason = probe(s.info)
            if reason is not None:
                raise NoNativeForm(reason)
            name = s.info.fn_name
        else:
            inner = self.frame.inner(s.var, s.info)
            name = inner.name
            if name not in self.module.made:
                self.module.made.add(name)
                fn = type(self)(s.info.code, inner, self.module, f"@\"{name}\"")
                self.module.defs.append(fn.function())
        copies = self.copies_in(s.inouts, s.info.in_outs)
        args = "".join(f", ptr {p}" for p, _place, _tp in copies)
        code = self.emit(f"call i64 @\"{name}\"(ptr %s, i64 %now{args})")
        self.returned(code)
        self.copies_out(copies)

    def copies_in(self, places, decls) -> list:
        """VAR_IN_OUT arguments as matiec passes them: a copy in, copied back out."""
        out = []
        for e, v in zip(places, decls):
            place = self.address(e)
            # the callee reads it as a table cell: a double for a REAL, never a float
            copy = Place(self.alloca(count=regions.cells(v.type)), 0, v.type)
            if regions.aggregate(v.type):
                self.assign(copy, place, v.type)
            else:
                self.store(copy, self.load(place, v.type), v.type)
            out.append((self.pointer(copy), place, v.type))
        return out

    def copies_out(self, copies) -> None:
        for ptr, place, tp in copies:
            if regions.aggregate(tp):
                self.assign(place, Place(ptr, 0, tp), tp)
            else:
                self.store(place, self.load(Place(ptr, 0, tp), tp), tp)

    def call_function(self, s: ir.CallFunction) -> None:
        self.items[s.name] = self.function_call(s.info, s.args)

    def function_call(self, info, args) -> tuple:
        """Call a FUNCTION: (its buffer, where each value it hands back starts in
        it: the result, its VAR_OUTPUTs, its VAR_IN_OUTs' final values)."""
        fn = self.module.function_of(info)
        n_in = len(info.inputs)
        offsets = buffer_offsets(info)
        out = self.alloca(count=offsets[-1])
        texts = []
        for a, v in zip(args[:n_in], info.inputs):
            if regions.aggregate(v.type):       # by value: the call gets a copy
                copy = self.new_local(v.type)
                self.assign(copy, self.address(_whole(a)), v.type)
                texts.append(f"ptr {self.pointer(copy)}")
                continue
            value = self.expr(a)
            if slot_kind(v.type) == "d":
                texts.append(f"double {self.to_float(value).ref}")
            elif slot_kind(v.type) == "b":
                texts.append(f"i64 {self.wide(self.truth(value)).ref}")
            else:
                texts.append(f"i64 {self.low64(value)}")
        copies = self.copies_in(args[n_in:], info.in_outs)
        texts += [f"ptr {p}" for p, _place, _tp in copies]
        code = self.emit(f"call i64 {fn}(ptr %s, i64 %now, ptr {out}"
                         f"{''.join(', ' + t for t in texts)})")
        self.returned(code)
        first = 1 + len(info.outputs)
        for k, (ptr, _place, tp) in enumerate(copies):    # what the call left in them
            into = Place(out, offsets[first + k], tp)
            if regions.aggregate(tp):
                self.assign(into, Place(ptr, 0, tp), tp)
            else:
                self.store(into, self.load(Place(ptr, 0, tp), tp), tp)
        return out, offsets


def buffer_offsets(info) -> list[int]:
    """Where a FUNCTION's result, outputs and VAR_IN_OUTs start in its buffer (cells),
    and the buffer's size last."""
    at, out = 0, []
    for tp in [info.result_type] + [v.type for v in info.outputs] + [v.type for v in info.in_outs]:
        out.append(at)
        at += regions.cells(tp) or 1
    return out + [at]


def _whole(e):
    """An ARRAY or STRUCT value's expression, without the copy IEC's assignment
    makes (the native assignment copies the cells)."""
    return e.a if isinstance(e, ir.Copy) else e


__all__ = ["PouCalls", "buffer_offsets"]
