"""The values of a POU's native function (a mixin of :class:`~.pou.PouLowering`):
its expressions, its temporaries (SSA values, or stack slots where set
twice), an index's bounds check, and a block's code (an operator's, a
standard function's or FB's: a :class:`~fbd.st.ir.Code` node), translated
by the translator every block's code goes through (:mod:`.lower`) once per
text and ranges of its operands, and formatted at each use.
"""

from __future__ import annotations

import ast
import itertools

from ..block import code_lines, code_namespace
from ..st import ir
from . import regions
from .lower import BlockLowering
from .pouframe import Place, clobbers
from .values import B, V, Var, const, slot_kind

_CMP = {"<": ast.Lt, ">": ast.Gt, "<=": ast.LtE, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_BITS = {"&": ast.BitAnd(), "|": ast.BitOr(), "^": ast.BitXor()}


class PouValues:
    """The expressions and values of :class:`~.pou.PouLowering` (a mixin: it
    builds the values and writes the basic blocks)."""

    def set_temp(self, temp: ir.Temp, value: V) -> None:
        """``temp := value``. A temporary set once in the body is an SSA value (each
        use follows its one assignment, which dominates it); one set in two places (an
        AND's short circuit, a FUNCTION's EN) is a stack slot SROA turns into a phi.
        Either way it holds what its slot would: the value cut to its type's cell."""
        tp = temp.type
        if temp.name in self.reassigned:
            self.store(self.temp_place(temp), value, tp)
            return
        if tp is None or slot_kind(tp) is None:
            self.fail(f"a {getattr(tp, 'name', 'untyped')} value")
        single = slot_kind(tp) == "d" and tp.canonical.bits == 32
        self.temps[temp.name] = self.cell_value(self.cell_operand(value, tp, single), tp, single)

    def temp_value(self, temp: ir.Temp) -> V:
        value = self.temps.get(temp.name)
        if value is None or isinstance(value, Place):
            return self.load(self.temp_place(temp), temp.type)
        return value

    def temp_place(self, temp: ir.Temp) -> Place:
        place = self.temps.get(temp.name)
        if place is None:
            if temp.type is None or slot_kind(temp.type) is None:
                self.fail(f"a {getattr(temp.type, 'name', 'untyped')} value")
            place = self.temps[temp.name] = self.scalar_local(temp.type)
        return place

    def check(self, s: ir.Check) -> None:
        r = self.ranges.of(s.value)
        self.ranges.assigned(s.temp, (max(r[0], s.lo), min(r[1], s.hi)) if r else (s.lo, s.hi))
        value = self.to_int(self.expr(s.value))
        if not (r is not None and s.lo <= r[0] and r[1] <= s.hi):
            if value.modular:
                self.fail("an array index of unknown range")
            low = self.emit(f"icmp slt i{value.w} {value.ref}, {s.lo}")
            high = self.emit(f"icmp sgt i{value.w} {value.ref}, {s.hi}")
            bad = B(self.emit(f"or i1 {low}, {high}"))
            out, ok = self.label("bounds"), self.label("inside")
            self.branch(bad, out, ok)
            self.start(out)
            self.fault(self.module.site("bounds", s.where, s.lo, s.hi), value)
            self.start(ok)
            value = value.within(max(value.lo, s.lo), min(value.hi, s.hi))
        self.set_temp(s.temp, value)

    def block_code(self, s: ir.Code) -> None:
        block = s.block
        names, variables, env = {}, {}, []
        # the operators' blocks are shared by the body's uses (a few for 100,000
        # statements): their text over p0, p1, ... is written once
        ports = tuple(s.names)
        known = self.module.texts.get((id(block), ports))
        if known is None:
            known = self.module.texts[(id(block), ports)] = (block, {
                p.name for p in block.input_ports()}, "\n".join(code_lines(
                    block, {port: f"p{k}" for k, port in enumerate(ports)}, block.bound_types)))
        _block, inputs, text = known
        for k, (port, e) in enumerate(s.names.items()):
            name = f"p{k}"
            names[port] = name
            tp = e.type
            variables[name] = Var(port, 0, tp, port not in inputs)
            if port in inputs:
                env.append((name, self.expr(e)))
            elif isinstance(e, ir.Ref):
                env.append((name, self.load(self.address(e), tp)))
        # a computed operand is a format field ({2}, {3}, ...) of the lowered lines, so
        # the same operator over values of the same ranges is translated once; a
        # constant is part of the key (the translator folds it)
        key = (type(block), text, tuple(
            (name, v.tp, v.writable) for name, v in variables.items()), tuple(
            (name, v.k, v.lo, v.hi, v.w, None if v.ref.startswith("%") else v.ref)
            for name, v in env))
        made = self.module.lowered.get(key)
        if made is None:
            bl = BlockLowering(text, variables, code_namespace([block]), block.name)
            bl.overflow_sums = True
            fields = itertools.count(2)
            for name, v in env:
                bl.env[name] = V(v.k, f"{{{next(fields)}}}" if v.ref.startswith("%") else v.ref,
                                 v.lo, v.hi, v.w)
            bl.env["now"] = V("i", "%now", 0, (1 << 63) - 1, 64)
            for stmt in bl.tree.body:
                bl.stmt(stmt, None)
            # as plain values: a Wide one's i128 is made now, before the lines are joined
            assigned = {name: V(v.k, v.ref, v.lo, v.hi, v.w) for name, v in bl.env.items()
                        if name in bl.assigned and name in variables}
            # the lines as one text, formatted once per use
            made = self.module.lowered[key] = (
                "\n".join(bl.lines), any(clobbers(line) for line in bl.lines), assigned,
                {v.ref: bl.float_of[v.ref] for v in assigned.values() if v.ref in bl.float_of})
        text, clobbering, assigned, singles = made
        fields = [f"c{self.n}", self.module.trap_code] + [
            v.ref for _name, v in env if v.ref.startswith("%")]
        self.n += 1
        if text:
            self.reopen()
            if clobbering:
                self.held = {}
            self.lines.append(text.format(*fields))
        for port, e in s.names.items():
            name = names[port]
            if port in inputs or name not in assigned:
                continue
            value = assigned[name]
            single = singles.get(value.ref)
            value = V(value.k, value.ref.format(*fields), value.lo, value.hi, value.w)
            if single is not None:
                self.float_of[value.ref] = single.format(*fields)
            if isinstance(e, ir.Temp):
                found = self.ranges.result(s)     # what the Python engine's code knows too
                if found is not None and found[0] is e:
                    self.ranges.assigned(e, found[1])
                self.set_temp(e, value)
            else:
                self.store(self.address(e), value, e.type)

    def expr(self, e) -> V:
        kind = type(e)
        if kind is ir.Const:
            if isinstance(e.value, (bool, int, float)):
                return const(e.value)
            self.fail(f"a {e.type.name} constant")
        if kind is ir.Ref:
            where = self.storage(e.var)
            return where if isinstance(where, V) else self.load(where, e.type)
        if kind is ir.Temp:
            v = self.temp_value(e)
            r = self.ranges.of(e)
            if r is not None and v.k == "i" and not v.modular:
                v = V("i", v.ref, max(v.lo, r[0]), min(v.hi, r[1]), v.w)
            return v
        if kind in (ir.Elem, ir.Field):
            if regions.aggregate(e.type):
                self.fail(f"a {e.type.name} value used whole")
            return self.load(self.address(e), e.type)
        if kind is ir.Now:
            return V("i", "%now", 0, (1 << 63) - 1, 64)
        if kind is ir.Compare:
            return self.cmp(_CMP[e.op], self.expr(e.a), self.expr(e.b))
        if kind is ir.Logic:
            a, b = self.truth(self.expr(e.a)), self.truth(self.expr(e.b))
            return self.both(e.op, a, b)
        if kind is ir.Not:
            return self.negate(self.truth(self.expr(e.a)))
        if kind is ir.Bits:
            return self.binop(_BITS[e.op], self.expr(e.a), self.expr(e.b), None)
        if kind is ir.Invert:
            return self.binop(ast.BitXor(), self.expr(e.a), const(e.mask), None)
        if kind is ir.Neg:
            return self.binop(ast.Sub(), const(0), self.expr(e.a), None)
        if kind is ir.Narrow:
            v = self.expr(e.a)
            c = e.type.canonical
            if slot_kind(c) == "d":
                return self.to_single(v) if c.bits == 32 else self.to_float(v)
            if slot_kind(c) == "b":
                return self.truth(v)
            return self.wrap(self.to_int(v), c.bits, c.signed)
        if kind is ir.Copy:
            if e.length is not None:
                self.fail("STRING values have no native form")
            self.fail(f"a {e.type.name} value used whole")
        if kind in (ir.FnCall, ir.Item):
            if regions.aggregate(e.type):
                self.fail(f"a {e.type.name} value used whole")
            return self.load(self.address(e), e.type)
        self.fail(f"the expression {kind.__name__}")
