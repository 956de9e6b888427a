"""Typed values to LLVM IR text: the layer under :class:`~.lower.BlockLowering`.

A :class:`ValueBuilder` appends IR lines and hands back :class:`~.values.V`
values that know their kind (BOOL, integer with its interval, REAL) and their
IR type; every operation here is total and keeps Python's semantics (see
:mod:`.lower`), and where Python would raise it records a trap. It knows
nothing of Python syntax, variables or slots: the translator above it does.
"""

from __future__ import annotations

import ast

from .arith import Arithmetic
from .values import _CMP_FLOAT, _CMP_INT, _FLIP, I64, B, NoNativeForm, Pred, V, Wide, const


class ValueBuilder(Arithmetic):
    """IR over typed values: emitting, traps, conversions, selects, wrap-around,
    comparisons, and (from :class:`~.arith.Arithmetic`) arithmetic."""

    def __init__(self):
        self.lines: list[str] = []
        self.n = 0
        self.nonzero: set[str] = set()  # refs known non-zero on the current path
        #: a double made by widening a float -> that float (rounding it back is exact)
        self.float_of: dict[str, str] = {}

    def tmp(self) -> str:
        self.n += 1
        return f"%{{0}}.{self.n}"

    def emit(self, rhs: str) -> str:
        name = self.tmp()
        self.lines.append(f"  {name} = {rhs}")
        return name

    def trap(self, cond: str, reason: int) -> None:
        old = self.emit("load i64, ptr %trap")
        free = self.emit(f"icmp eq i64 {old}, 0")
        hit = self.emit(f"and i1 {cond}, {free}")
        new = self.emit(f"select i1 {hit}, i64 {{1}}{reason}, i64 {old}")
        self.lines.append(f"  store i64 {new}, ptr %trap")

    def guarded_trap(self, pred, cond: str, reason: int) -> None:
        if cond == "false":
            return
        if pred is not None:
            p = self.materialize(pred)
            if p.ref == "false":
                return
            cond = self.emit(f"and i1 {self.cond(p)}, {cond}")
        self.trap(cond, reason)

    def materialize(self, pred: Pred) -> V:
        if pred.ref is None:
            acc = None
            for cond, negated in pred.terms:
                term = self.negate(cond) if negated else cond
                acc = term if acc is None else self.both("and", acc, term)
            pred.ref = acc
        return pred.ref

    def cond(self, v: V) -> str:
        """A BOOL as an i1 operand (a select's or a trap's condition)."""
        if v.w == 1:
            return v.ref
        return self.emit(f"trunc i64 {v.ref} to i1")

    def wide(self, v: V) -> V:
        """A BOOL as an i64 0 or 1."""
        if v.w == 64:
            return v
        if v.ref in ("true", "false"):
            return B("1" if v.ref == "true" else "0", 64)
        return B(self.emit(f"zext i1 {v.ref} to i64"), 64)

    def ext(self, v: V, w: int) -> str:
        if v.k == "b":
            v = self.wide(v)
            return v.ref if w == 64 else self.emit(f"zext i64 {v.ref} to i{w}")
        if v.w == w:
            return v.ref
        if v.w < w:
            if v.ref.lstrip("-").isdigit():
                return v.ref
            return self.emit(f"sext i{v.w} {v.ref} to i{w}")
        raise AssertionError("narrowing in ext")

    def to_int(self, v: V) -> V:
        if v.k == "i":
            return v
        if v.k == "b":
            return V("i", self.wide(v).ref, 0, 1, 64)
        raise NoNativeForm("a REAL used where Python needs an integer")

    def to_float(self, v: V) -> V:
        if v.k == "f":
            return v
        return V("f", self.int_to_fp(v, "double"))

    def to_single(self, v: V) -> V:
        """``v`` rounded once to single precision (a REAL), held as a double: C's
        ``(float)`` of a double or of an integer (an integer goes straight to
        ``float``: through a double, one past 2**53 would round twice)."""
        if v.k == "f":
            single = self.emit(f"fptrunc double {v.ref} to float")
        else:
            single = self.int_to_fp(v, "float")
        wide = self.emit(f"fpext float {single} to double")
        self.float_of[wide] = single
        return V("f", wide)

    def int_to_fp(self, v: V, fty: str) -> str:
        """A BOOL or integer value as a ``double`` or ``float``, rounded once."""
        if v.k == "b":
            return self.emit(f"uitofp {v.ty} {v.ref} to {fty}")
        if v.modular:
            raise NoNativeForm("an integer of unknown range converted to a REAL")
        if v.w == 64:
            return self.emit(f"sitofp i64 {v.ref} to {fty}")
        if v.lo >= 0 and v.hi < (1 << 64):
            low = self.emit(f"trunc i128 {v.ref} to i64")
            return self.emit(f"uitofp i64 {low} to {fty}")
        if v.lo >= I64[0] and v.hi <= I64[1]:
            low = self.emit(f"trunc i128 {v.ref} to i64")
            return self.emit(f"sitofp i64 {low} to {fty}")
        raise NoNativeForm("an integer wider than 64 bits converted to a REAL")

    def truth(self, v: V) -> V:
        if v.k == "b":
            return v
        if v.k == "f":
            return B(self.emit(f"fcmp une double {v.ref}, 0.0"))
        if v.modular:
            raise NoNativeForm("the truth of an integer of unknown range")
        return B(self.emit(f"icmp ne i{v.w} {v.ref}, 0"))

    def unify(self, a: V, b: V):
        """Bring two values to one kind and IR type (for a select)."""
        if a.k == b.k == "b":
            if a.w == b.w:
                return a, b, a.ty
            return self.wide(a), self.wide(b), "i64"
        if a.k == b.k == "f":
            return a, b, "double"
        if "f" in (a.k, b.k):
            return self.to_float(a), self.to_float(b), "double"
        a, b = self.to_int(a), self.to_int(b)
        w = max(a.w, b.w)
        return V("i", self.ext(a, w), a.lo, a.hi, w), V("i", self.ext(b, w), b.lo, b.hi, w), f"i{w}"

    def select(self, cond: V, a: V, b: V) -> V:
        if a is b:
            return a
        a, b, ty = self.unify(a, b)
        if ty == "i1":  # x86's fast instruction selector has no select of i1: and/or
            if a.ref == b.ref:
                return a
            if a.ref == "true":
                return self.both("or", cond, b)
            if b.ref == "false":
                return self.both("and", cond, a)
            nc = self.negate(cond)
            if a.ref == "false":
                return self.both("and", nc, b)
            if b.ref == "true":
                return self.both("or", nc, a)
            return self.both("or", self.both("and", cond, a), self.both("and", nc, b))
        ref = self.emit(f"select i1 {self.cond(cond)}, {ty} {a.ref}, {ty} {b.ref}")
        if a.k == "b":
            return B(ref, 64)
        if a.k == "i":
            if a.modular or b.modular:
                return V("i", ref, None, None, a.w)
            return V("i", ref, min(a.lo, b.lo), max(a.hi, b.hi), a.w)
        return V(a.k, ref)

    def both(self, op: str, a: V, b: V) -> V:  # and/or/xor of two BOOLs
        if op == "xor":
            pass
        elif op == "and":
            if a.ref == "false" or b.ref == "false":
                return const(False)
            if a.ref == "true":
                return b
            if b.ref == "true":
                return a
        else:
            if a.ref == "true" or b.ref == "true":
                return const(True)
            if a.ref == "false":
                return b
            if b.ref == "false":
                return a
        if a.w != b.w:
            a, b = self.wide(a), self.wide(b)
        return B(self.emit(f"{op} {a.ty} {a.ref}, {b.ref}"), a.w)

    def conj(self, pred, cond: V, negated: bool = False) -> Pred:
        terms = (cond, negated)
        return Pred([terms] if pred is None else [*pred.terms, terms])

    def negate(self, v: V) -> V:
        if v.ref in ("true", "false"):
            return const(v.ref == "false")
        if v.w == 64:
            return B(self.emit(f"xor i64 {v.ref}, 1"), 64)
        return B(self.emit(f"xor i1 {v.ref}, true"))

    def wrap(self, v: V, bits: int, signed: bool) -> V:
        """The low ``bits`` of v, as a signed or unsigned integer."""
        if not v.modular:
            lo, hi = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed
                      else (0, (1 << bits) - 1))
            if lo <= v.lo and v.hi <= hi:
                return v
        if isinstance(v, Wide):     # the low bits are its low half
            v = V("i", v.low, None, None, 64)
        if bits == 64:
            low = v.ref if v.w == 64 else self.emit(f"trunc i128 {v.ref} to i64")
            if signed:
                return V("i", low, I64[0], I64[1], 64)
            return V("i", self.emit(f"zext i64 {low} to i128"), 0, (1 << 64) - 1, 128)
        low = self.emit(f"trunc i{v.w} {v.ref} to i{bits}")
        op = "sext" if signed else "zext"
        if signed:
            return V("i", self.emit(f"{op} i{bits} {low} to i64"), -(1 << (bits - 1)),
                     (1 << (bits - 1)) - 1, 64)
        return V("i", self.emit(f"{op} i{bits} {low} to i64"), 0, (1 << bits) - 1, 64)

    def cmp(self, op, a: V, b: V) -> V:
        if op not in _CMP_INT:
            raise NoNativeForm(f"the comparison {op.__name__}")
        if "f" in (a.k, b.k):
            for v in (a, b):
                if v.k == "i" and (v.modular or v.lo < -(1 << 53) or v.hi > (1 << 53)):
                    raise NoNativeForm("an integer beyond 2**53 compared with a REAL")
            a, b = self.to_float(a), self.to_float(b)
            return B(self.emit(f"fcmp {_CMP_FLOAT[op]} double {a.ref}, {b.ref}"))
        if a.k == b.k == "b" and op in (ast.Eq, ast.NotEq):
            if a.w != b.w:
                a, b = self.wide(a), self.wide(b)
            return B(self.emit(f"icmp {_CMP_INT[op]} {a.ty} {a.ref}, {b.ref}"))
        a, b = self.to_int(a), self.to_int(b)
        if a.modular or b.modular:
            raise NoNativeForm("a comparison of an integer of unknown range")
        if isinstance(a, Wide) and b.w == 64:
            return self.cmp_wide(op, a, b)
        if isinstance(b, Wide) and a.w == 64:
            return self.cmp_wide(_FLIP[op], b, a)
        w = max(a.w, b.w)
        return B(self.emit(f"icmp {_CMP_INT[op]} i{w} {self.ext(a, w)}, {self.ext(b, w)}"))

    def cmp_wide(self, op, a: Wide, b: V) -> V:
        """``a op b`` for a 65-bit ``a`` and a 64-bit ``b``, in 64 bits: where the
        sum overflowed, ``a`` is above every i64 if its low half is negative, below
        every one if not."""
        within = B(self.emit(f"icmp {_CMP_INT[op]} i64 {a.low}, {b.ref}"))
        ov = B(a.ov)
        if op is ast.Eq:
            return self.both("and", self.negate(ov), within)
        if op is ast.NotEq:
            return self.both("or", ov, within)
        above = B(self.emit(f"icmp {'slt' if op in (ast.Gt, ast.GtE) else 'sge'} i64 {a.low}, 0"))
        return self.both("or", self.both("and", ov, above), self.both("and", self.negate(ov), within))
