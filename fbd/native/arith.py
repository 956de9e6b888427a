"""Integer and REAL arithmetic for :class:`~.builder.ValueBuilder`: Python's
semantics on values with known intervals (see :mod:`.lower`)."""

from __future__ import annotations

import ast

from .values import (
    I64,
    TRAP_DIV_ZERO,
    TRAP_SHIFT,
    B,
    NoNativeForm,
    V,
    Wide,
    _width,
    const,
    float_ref,
)


class Arithmetic:
    """Arithmetic on typed values, the base of :class:`~.builder.ValueBuilder`."""

    #: the ``{i64, i1}`` of an overflow intrinsic as the lines hold it: a block's
    #: lines are a template, formatted per instance, so the braces are doubled
    PAIR = "{{i64, i1}}"
    #: a 65-bit sum as an overflow intrinsic's pair (:class:`Wide`): the ST POUs'
    #: code asks for it; a library block's template, which the batch engine
    #: rewrites to vectors of lanes, keeps its ``i128``
    overflow_sums = False

    def binop(self, op, a: V, b: V, pred) -> V:
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and a.k == b.k == "b":
            return self.both({ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}[type(op)], a, b)
        if isinstance(op, ast.Div):
            return self.true_div(a, b, pred)
        if "f" in (a.k, b.k):
            a, b = self.to_float(a), self.to_float(b)
            name = {ast.Add: "fadd", ast.Sub: "fsub", ast.Mult: "fmul"}.get(type(op))
            if name is None:
                raise NoNativeForm(f"the REAL operator {type(op).__name__}")
            return V("f", self.emit(f"{name} double {a.ref}, {b.ref}"))
        a, b = self.to_int(a), self.to_int(b)
        if isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
            if a.modular or b.modular:
                lo = hi = None
            else:
                f = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y,
                     ast.Mult: lambda x, y: x * y}[type(op)]
                cands = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
                lo, hi = min(cands), max(cands)
            return self.arith({ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}[type(op)],
                              a, b, lo, hi)
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self.bitwise(type(op), a, b)
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            return self.floordiv(a, b, pred, isinstance(op, ast.Mod))
        if isinstance(op, ast.LShift):
            return self.lshift(a, b, pred)
        if isinstance(op, ast.RShift):
            return self.rshift(a, b, pred)
        raise NoNativeForm(f"the integer operator {type(op).__name__}")

    def arith(self, name: str, a: V, b: V, lo, hi) -> V:
        if lo is None:
            w = 128
        else:
            w, lo, hi = _width(lo, hi)
            w = max(w, a.w, b.w) if lo is not None else 128
            if w == 128 and a.w == b.w == 64 and name != "mul" and self.overflow_sums:
                return self.wide_sum(name, a, b, lo, hi)
        ref = self.emit(f"{name} i{w} {self.ext(a, w)}, {self.ext(b, w)}")
        return V("i", ref, lo, hi, w)

    def wide_sum(self, name: str, a: V, b: V, lo: int, hi: int) -> Wide:
        """``a + b`` or ``a - b`` of two i64 values, exact in 65 bits (see :class:`Wide`)."""
        ty = self.PAIR
        pair = self.emit(f"call {ty} @llvm.s{name}.with.overflow.i64(i64 {a.ref}, i64 {b.ref})")
        low = self.emit(f"extractvalue {ty} {pair}, 0")
        ov = self.emit(f"extractvalue {ty} {pair}, 1")
        return Wide(low, ov, lo, hi,
                    lambda: self.emit(f"{name} i128 {self.ext(a, 128)}, {self.ext(b, 128)}"))

    def bitwise(self, op, a: V, b: V) -> V:
        name = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}[op]
        lo = hi = None
        if op is ast.BitAnd and (not a.modular and a.lo >= 0 or not b.modular and b.lo >= 0):
            # non-negative & anything: at most the non-negative side, exact
            bound = min(v.hi for v in (a, b) if not v.modular and v.lo >= 0)
            lo, hi = 0, bound
        elif not a.modular and not b.modular:
            n = max(abs(a.lo), abs(a.hi), abs(b.lo), abs(b.hi)).bit_length()
            if a.lo >= 0 and b.lo >= 0:
                lo, hi = 0, (1 << n) - 1
            else:
                lo, hi = -(1 << n), (1 << n) - 1
        w = max(a.w, b.w)
        ref = self.emit(f"{name} i{w} {self.ext(a, w)}, {self.ext(b, w)}")
        if lo is not None and w == 128:
            w2, _, _ = _width(lo, hi)
            if w2 == 64:
                return V("i", self.emit(f"trunc i128 {ref} to i64"), lo, hi, 64)
        return V("i", ref, lo, hi, w)

    def magnitude(self, v: V, w: int) -> str:
        """|v| as an unsigned i64 (v exact, |v| < 2**64)."""
        x = self.ext(v, w)
        if v.lo >= 0:
            return x if w == 64 else self.emit(f"trunc i{w} {x} to i64")
        neg = self.emit(f"sub i{w} 0, {x}")
        isneg = self.emit(f"icmp slt i{w} {x}, 0")
        m = self.emit(f"select i1 {isneg}, i{w} {neg}, i{w} {x}")
        return m if w == 64 else self.emit(f"trunc i{w} {m} to i64")

    def floordiv(self, a: V, b: V, pred, mod: bool) -> V:
        limit = (1 << 64) - 1
        for v in (a, b):
            if v.modular or v.lo < -limit or v.hi > limit:
                raise NoNativeForm("// or % of integers of 64 bits' size or more")
        w = max(a.w, b.w)
        if b.lo > 0 or b.hi < 0:
            pass
        else:
            zero = self.emit(f"icmp eq i{b.w} {b.ref}, 0")
            if b.ref not in self.nonzero:
                self.guarded_trap(pred, zero, TRAP_DIV_ZERO)
        ma, mb = self.magnitude(a, w), self.magnitude(b, w)
        if not (b.lo > 0 or b.hi < 0):
            z = self.emit(f"icmp eq i64 {mb}, 0")
            mb = self.emit(f"select i1 {z}, i64 1, i64 {mb}")
        q = self.emit(f"udiv i64 {ma}, {mb}")
        r = self.emit(f"urem i64 {ma}, {mb}")
        big = max(abs(a.lo), abs(a.hi))
        bmax = max(abs(b.lo), abs(b.hi))
        if a.lo >= 0 and b.lo >= 0:
            if mod:
                return V("i", self.emit(f"zext i64 {r} to i128") if bmax > I64[1] else r,
                         0, max(bmax - 1, 0), 128 if bmax > I64[1] else 64)
            return self.unsigned(q, 0, big // max(b.lo, 1))
        # signs: Python floors, so a differing sign rounds the magnitude up
        an = const(False) if a.lo >= 0 else B(self.emit(f"icmp slt i{a.w} {a.ref}, 0"))
        bn = const(False) if b.lo >= 0 else (const(True) if b.hi < 0 else
                                              B(self.emit(f"icmp slt i{b.w} {b.ref}, 0")))
        differ = self.both("xor", an, bn).ref
        q128 = self.emit(f"zext i64 {q} to i128")
        r128 = self.emit(f"zext i64 {r} to i128")
        rnz = self.emit(f"icmp ne i64 {r}, 0")
        if not mod:
            up = self.emit(f"and i1 {differ}, {rnz}")
            upz = self.emit(f"zext i1 {up} to i128")
            mag = self.emit(f"add i128 {q128}, {upz}")
            neg = self.emit(f"sub i128 0, {mag}")
            res = self.emit(f"select i1 {differ}, i128 {neg}, i128 {mag}")
            return self.narrow(res, -big - 1, big)
        mb128 = self.emit(f"zext i64 {mb} to i128")
        other = self.emit(f"sub i128 {mb128}, {r128}")
        take = self.emit(f"and i1 {differ}, {rnz}")
        mag = self.emit(f"select i1 {take}, i128 {other}, i128 {r128}")
        neg = self.emit(f"sub i128 0, {mag}")
        res = self.emit(f"select i1 {bn.ref}, i128 {neg}, i128 {mag}")
        lo = 0 if b.lo >= 0 else -(bmax - 1)
        hi = 0 if b.hi < 0 else bmax - 1
        return self.narrow(res, lo, hi)

    def unsigned(self, ref64: str, lo: int, hi: int) -> V:
        if hi <= I64[1]:
            return V("i", ref64, lo, hi, 64)
        return V("i", self.emit(f"zext i64 {ref64} to i128"), lo, hi, 128)

    def narrow(self, ref128: str, lo: int, hi: int) -> V:
        if I64[0] <= lo and hi <= I64[1]:
            return V("i", self.emit(f"trunc i128 {ref128} to i64"), lo, hi, 64)
        return V("i", ref128, lo, hi, 128)

    def count(self, n: V, pred, limit: int):
        """A shift count: trap if negative on the path taken; (count clipped to
        0..limit as i{w} operand text, i1 'count > limit')."""
        if n.modular:
            raise NoNativeForm("a shift by a count of unknown range")
        if n.lo < 0:
            neg = self.emit(f"icmp slt i{n.w} {n.ref}, 0")
            self.guarded_trap(pred, neg, TRAP_SHIFT)
        over = self.emit(f"icmp sgt i{n.w} {n.ref}, {limit}")
        inr = self.emit(f"icmp slt i{n.w} {n.ref}, 0")
        bad = self.emit(f"or i1 {over}, {inr}")
        c = self.emit(f"select i1 {bad}, i{n.w} 0, i{n.w} {n.ref}")
        return c, over

    def lshift(self, a: V, n: V, pred) -> V:
        n = self.to_int(n)
        lo = hi = None
        if not a.modular and not n.modular:
            top = max(0, n.hi)
            if max(abs(a.lo), abs(a.hi)).bit_length() + top <= 126:
                cands = [a.lo << max(n.lo, 0), a.lo << top, a.hi << max(n.lo, 0), a.hi << top]
                lo, hi = min(cands + [0]), max(cands + [0])
        w = 128 if lo is None else _width(lo, hi)[0]
        w = max(w, a.w)
        c, over = self.count(n, pred, w - 1)
        cw = self.ext(V("i", c, 0, w - 1, n.w), w) if n.w <= w else \
            self.emit(f"trunc i{n.w} {c} to i{w}")
        shifted = self.emit(f"shl i{w} {self.ext(a, w)}, {cw}")
        res = self.emit(f"select i1 {over}, i{w} 0, i{w} {shifted}")
        if lo is None:
            return V("i", res, None, None, w)
        return V("i", res, lo, hi, w)

    def rshift(self, a: V, n: V, pred) -> V:
        n = self.to_int(n)
        if a.modular:
            raise NoNativeForm("a right shift of an integer of unknown range")
        w = a.w
        c, over = self.count(n, pred, w - 1)
        cw = self.ext(V("i", c, 0, w - 1, n.w), w) if n.w <= w else \
            self.emit(f"trunc i{n.w} {c} to i{w}")
        cw = self.emit(f"select i1 {over}, i{w} {w - 1}, i{w} {cw}")
        res = self.emit(f"ashr i{w} {a.ref}, {cw}")
        return V("i", res, min(a.lo, 0) if a.lo < 0 else 0, max(a.hi, 0), w)

    def true_div(self, a: V, b: V, pred) -> V:
        if "f" not in (a.k, b.k):
            a, b = self.to_int(a), self.to_int(b)
            if a.modular or b.modular:
                raise NoNativeForm("int / int of an integer of unknown range")
            big = (1 << 53)
            if a.lo < -big or a.hi > big or b.lo < -big or b.hi > big:
                if not (b.lo == b.hi and 0 < abs(b.lo) < (1 << 21) and
                        max(abs(a.lo), abs(a.hi)) < (1 << 64)):
                    raise NoNativeForm("int / int of integers beyond 2**53 by a non-constant")
                return self.exact_quotient(a, b.lo)
        fa, fb = self.to_float(a), self.to_float(b)
        if fb.ref not in self.nonzero and b.ref not in self.nonzero:
            zero = self.emit(f"fcmp oeq double {fb.ref}, 0.0")
            self.guarded_trap(pred, zero, TRAP_DIV_ZERO)
        return V("f", self.emit(f"fdiv double {fa.ref}, {fb.ref}"))

    def exact_quotient(self, a: V, c: int) -> V:
        """Python's ``a / c`` for an integer a (|a| < 2**64) and a constant c
        (0 < |c| < 2**21): the exact quotient rounded once, half to even. Below
        2**53 that is the division of the two doubles; above it, the quotient
        to 55 bits in integers, a sticky bit for the rest, and the rounding."""
        e = self.emit
        m = self.magnitude(a, a.w)
        d = abs(c)
        fast = e(f"fdiv double {self.to_float(a).ref}, {float_ref(float(c))}")
        q = e(f"udiv i64 {m}, {d}")
        r = e(f"urem i64 {m}, {d}")
        qz = e(f"icmp eq i64 {q}, 0")
        q1 = e(f"select i1 {qz}, i64 1, i64 {q}")
        lz = e(f"call i64 @llvm.ctlz.i64(i64 {q1}, i1 false)")
        bits = e(f"sub i64 64, {lz}")
        s = e(f"sub i64 55, {bits}")                       # n = a / c * 2**s has 55 bits
        up = e(f"icmp sgt i64 {s}, 0")
        su = e(f"select i1 {up}, i64 {s}, i64 0")
        sd = e(f"sub i64 0, {s}")
        sd = e(f"select i1 {up}, i64 0, i64 {sd}")
        # s > 0: n = q << s + (r << s) // c, sticky from (r << s) % c
        qs = e(f"shl i64 {q}, {su}")
        rs = e(f"shl i64 {r}, {su}")
        n_up = e(f"add i64 {qs}, {e(f'udiv i64 {rs}, {d}')}")
        st_up = e(f"icmp ne i64 {e(f'urem i64 {rs}, {d}')}, 0")
        # s <= 0: n = q >> -s, sticky from the bits shifted out and r
        n_dn = e(f"lshr i64 {q}, {sd}")
        mask = e(f"sub i64 {e(f'shl i64 1, {sd}')}, 1")
        lost = e(f"icmp ne i64 {e(f'and i64 {q}, {mask}')}, 0")
        st_dn = e(f"or i1 {lost}, {e(f'icmp ne i64 {r}, 0')}")
        n = e(f"select i1 {up}, i64 {n_up}, i64 {n_dn}")
        sticky = e(f"select i1 {up}, i1 {st_up}, i1 {st_dn}")
        low = e(f"and i64 {n}, 3")
        n53 = e(f"lshr i64 {n}, 2")
        odd = e(f"icmp ne i64 {e(f'and i64 {n53}, 1')}, 0")
        above = e(f"icmp eq i64 {low}, 3")
        half = e(f"icmp eq i64 {low}, 2")
        tie_up = e(f"or i1 {sticky}, {odd}")
        round_up = e(f"or i1 {above}, {e(f'and i1 {half}, {tie_up}')}")
        n53 = e(f"add i64 {n53}, {e(f'zext i1 {round_up} to i64')}")
        mant = e(f"uitofp i64 {n53} to double")
        exp = e(f"sub i64 {2 + 1023}, {s}")                 # the value is n53 * 2**(2 - s)
        scale = e(f"bitcast i64 {e(f'shl i64 {exp}, 52')} to double")
        slow = e(f"fmul double {mant}, {scale}")
        neg_a = "false" if a.lo >= 0 else e(f"icmp slt i{a.w} {a.ref}, 0")
        negative = e(f"xor i1 {neg_a}, {'true' if c < 0 else 'false'}")
        signed = e(f"select i1 {negative}, double {e(f'fneg double {slow}')}, double {slow}")
        small = e(f"icmp ule i64 {m}, {1 << 53}")
        return V("f", e(f"select i1 {small}, double {fast}, double {signed}"))

