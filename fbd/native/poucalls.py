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


def variables_reason(info) -> str | None:
    """Why a POU's variables have no native form (a STRING's), or None."""
    for v in info.variables.values():
        if v.fb is None and v.type is not None and regions.cells(v.type) is None:
            line = getattr(v.node, "line", 0)
            return (f"{info.label}, line {line}: the {v.type.name} variable {v.name} "
                    f"has no native form (strings stay on the Python engine)")
    return None


class PouCalls:
    """The calls of :class:`~.pou.PouLowering` (a mixin: it builds the values)."""

    def call_fb(self, s: ir.CallFb) -> None:
        if self.frame is None:
            self.fail("an FB instance in a FUNCTION")
        inner = self.frame.inner(s.var, s.info)
        layout = inner.layout()
        bases = ""
        if layout is None:          # nothing of its own: a function of its own
            name = f"@\"{inner.name}\""
            if name not in self.module.made:
                self.module.made.add(name)
                self.module.define(name, self.callee(s.info, inner, name))
        else:                       # one function for every instance laid out alike
            first, region, shape = layout
            # within one block: a library block's trap names the block (trap_code)
            key = (s.info.fn_name, shape, self.module.trap_code, tuple(inner.globals.items()))
            name = self.module.shared.get(key)
            if name is None:
                name = self.module.shared[key] = f"@\"{inner.name}\""
                inner.bases = (first, region or 0)
                inner.params[:0] = ["ptr %sb", "ptr %rb"]
                self.module.define(name, self.callee(s.info, inner, name))
            regions_at = "%s" if region is None else self.pointer(self.frame.region_pointer(region))
            bases = f", ptr {self.pointer(self.frame.slot_pointer(first))}, ptr {regions_at}"
        copies = self.copies_in(s.inouts, s.info.in_outs)
        args = "".join(f", ptr {p}" for p, _place, _tp in copies)
        code = self.emit(f"call i64 {name}(ptr %s, i64 %now{bases}{args})")
        self.returned(code)
        self.copies_out(copies)

    def callee(self, info, frame, name: str) -> str:
        """The function of an FB instance inside; what has no native form is named
        after the FB type, as the type's own check would name it."""
        try:
            reason = variables_reason(info)
            if reason is not None:
                raise NoNativeForm(reason)
            return type(self)(info.code, frame, self.module, name).function()
        except NoNativeForm as e:
            reason = str(e)
            if reason.startswith(info.label):
                raise
            raise NoNativeForm(f"{info.label}: {reason}") from None

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


__all__ = ["PouCalls", "buffer_offsets", "variables_reason"]
