"""Calls for :class:`~.lower.BlockLowering`: ``abs``/``float``/``min``/``max``,
``math`` functions (the C library CPython calls) and the library's helpers,
known by module and name, each with a native form that reproduces it."""

from __future__ import annotations

import ast
import builtins
import math

from .values import (
    HELPERS,
    MATH_CALLS,
    TRAP_DOMAIN,
    TRAP_NOT_FINITE,
    B,
    NoNativeForm,
    V,
    _width,
)


class Calls:
    """The calls half of the translator (a mixin of BlockLowering)."""

    def call(self, node: ast.Call, pred) -> V:
        if node.keywords:
            raise NoNativeForm(f"a call with keywords: {ast.unparse(node)!r}")
        func = node.func
        args = [self.expr(a, pred) for a in node.args]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == "math" and self.ns.get("math") is math \
                and func.attr in MATH_CALLS and len(args) == 1:
            return self.math_call(func.attr, args[0], pred)
        if isinstance(func, ast.Name):
            obj = self.ns.get(func.id, getattr(builtins, func.id, None))
            if func.id in self.ns:
                key = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
                native = HELPERS.get(key)
                if native is None:
                    raise NoNativeForm(f"the helper {func.id} ({key})")
                return getattr(self, "helper_" + native)(*args, pred=pred)
            if obj is abs and len(args) == 1:
                return self.absolute(args[0])
            if obj is float and len(args) == 1:
                return self.to_float(args[0])
            if obj in (min, max) and len(args) == 2:
                a, b = args
                better = self.cmp(ast.Lt if obj is min else ast.Gt, b, a)
                return self.select(better, b, a)
        raise NoNativeForm(f"the call {ast.unparse(node)!r}")

    def absolute(self, v: V) -> V:
        if v.k == "f":
            return V("f", self.fabs(v.ref))
        v = self.to_int(v)
        if v.modular:
            raise NoNativeForm("abs of an integer of unknown range")
        if v.lo >= 0:
            return v
        hi = max(abs(v.lo), abs(v.hi))
        lo = 0 if v.lo <= 0 <= v.hi else min(abs(v.lo), abs(v.hi))
        w = max(_width(lo, hi)[0], v.w)
        x = self.ext(v, w)
        neg = self.emit(f"sub i{w} 0, {x}")
        isneg = self.emit(f"icmp slt i{w} {x}, 0")
        ref = self.emit(f"select i1 {isneg}, i{w} {neg}, i{w} {x}")
        if v.ref in self.nonzero:
            self.nonzero.add(ref)
        return V("i", ref, lo, hi, w)

    def fcall(self, name: str, *refs: str) -> str:
        return self.emit(f"call double @{name}({', '.join('double ' + r for r in refs)})")

    # |x| and a sign's copy are bit operations, not llvm.fabs / llvm.copysign: the fast
    # instruction selector has no form for those calls and hands each one to the slow
    # selector (a fifth of a 10,000-line ST program's code generation; docs/native.md)
    def fabs(self, ref: str) -> str:
        bits = self.emit(f"bitcast double {ref} to i64")
        bits = self.emit(f"and i64 {bits}, {(1 << 63) - 1}")
        return self.emit(f"bitcast i64 {bits} to double")

    def finite(self, x: V) -> str:
        a = self.fabs(x.ref)
        return self.emit(f"fcmp olt double {a}, 0x7FF0000000000000")

    def math_call(self, name: str, x: V, pred) -> V:
        x = self.to_float(x)
        if name == "isfinite":
            return B(self.finite(x))
        if name == "trunc":
            fin = self.finite(x)
            self.guarded_trap(pred, self.cond(self.negate(B(fin))), TRAP_NOT_FINITE)
            return self.float_to_int(x)
        if name == "sqrt":
            bad = self.emit(f"fcmp olt double {x.ref}, 0.0")
            self.guarded_trap(pred, bad, TRAP_DOMAIN)
            return V("f", self.fcall("llvm.sqrt.f64", x.ref))
        r = self.fcall(name, x.ref)
        if name in ("log", "log10"):
            bad = self.emit(f"fcmp ole double {x.ref}, 0.0")
        elif name in ("sin", "cos", "tan"):
            a = self.fabs(x.ref)
            bad = self.emit(f"fcmp oeq double {a}, 0x7FF0000000000000")
        elif name in ("asin", "acos"):
            a = self.fabs(x.ref)
            bad = self.emit(f"fcmp ogt double {a}, 1.0")
        elif name == "exp":  # OverflowError: a finite x whose exp is infinite
            inf = self.emit(f"fcmp oeq double {r}, 0x7FF0000000000000")
            bad = self.emit(f"and i1 {inf}, {self.finite(x)}")
        else:
            bad = "false"
        self.guarded_trap(pred, bad, TRAP_DOMAIN)
        return V("f", r)

    def float_to_int(self, x: V) -> V:
        """trunc(x) as a modular integer (its low 128 bits; 0 for inf and NaN)."""
        a = self.fabs(x.ref)
        small = self.emit(f"fcmp olt double {a}, 0x43E0000000000000")  # |x| < 2**63
        safe = self.emit(f"select i1 {small}, double {x.ref}, double 0.0")
        direct = self.emit(f"fptosi double {safe} to i64")
        direct = self.emit(f"sext i64 {direct} to i128")
        bits = self.emit(f"bitcast double {x.ref} to i64")
        e = self.emit(f"lshr i64 {bits}, 52")
        e = self.emit(f"and i64 {e}, 2047")
        shift = self.emit(f"sub i64 {e}, 1075")
        mant = self.emit(f"and i64 {bits}, 4503599627370495")
        mant = self.emit(f"or i64 {mant}, 4503599627370496")
        m128 = self.emit(f"zext i64 {mant} to i128")
        over = self.emit(f"icmp sgt i64 {shift}, 127")
        neg_shift = self.emit(f"icmp slt i64 {shift}, 0")
        far = self.emit(f"or i1 {over}, {neg_shift}")
        sh = self.emit(f"select i1 {far}, i64 0, i64 {shift}")
        sh = self.emit(f"zext i64 {sh} to i128")
        big = self.emit(f"shl i128 {m128}, {sh}")
        big = self.emit(f"select i1 {far}, i128 0, i128 {big}")
        sign = self.emit(f"icmp slt i64 {bits}, 0")
        nbig = self.emit(f"sub i128 0, {big}")
        big = self.emit(f"select i1 {sign}, i128 {nbig}, i128 {big}")
        fin = self.finite(x)
        big = self.emit(f"select i1 {fin}, i128 {big}, i128 0")
        return V("i", self.emit(f"select i1 {small}, i128 {direct}, i128 {big}"), None, None, 128)

    # -- the library's helpers ---------------------------------------------------------
    def helper_div_by_zero(self, a: V, b: V, pred) -> V:
        a, b = self.to_float(a), self.to_float(b)
        isnan = self.emit(f"fcmp uno double {a.ref}, 0.0")
        zero = self.emit(f"fcmp oeq double {a.ref}, 0.0")
        nan = self.emit(f"or i1 {isnan}, {zero}")
        # copysign(inf, a) * copysign(1.0, b): inf with the sign of a's sign times b's
        signs = self.emit(f"xor i64 {self.emit(f'bitcast double {a.ref} to i64')}, "
                          f"{self.emit(f'bitcast double {b.ref} to i64')}")
        sign = self.emit(f"and i64 {signs}, {-(1 << 63)}")
        r = self.emit(f"bitcast i64 {self.emit(f'or i64 {sign}, {0x7FF0000000000000}')} "
                      "to double")
        return V("f", self.emit(f"select i1 {nan}, double 0x7FF8000000000000, double {r}"))

    def helper_expt(self, base: V, exp: V, pred) -> V:
        """C's pow, except that an infinite result's sign follows the parity of an
        integer exponent itself, not of its double (they differ past 2**53)."""
        fb = self.to_float(base)
        r = self.fcall("pow", fb.ref, self.to_float(exp).ref)
        if exp.k == "f":
            return V("f", r)
        exp = self.to_int(exp)
        low = exp.ref if exp.w == 64 else self.emit(f"trunc i128 {exp.ref} to i64")
        odd = self.emit(f"trunc i64 {low} to i1")
        bits = self.emit(f"bitcast double {fb.ref} to i64")
        sign = self.emit(f"icmp slt i64 {bits}, 0")
        notnan = self.emit(f"fcmp ord double {fb.ref}, 0.0")
        neg = self.emit(f"and i1 {sign}, {notnan}")
        negative = self.emit(f"and i1 {neg}, {odd}")
        inf = self.emit(f"select i1 {negative}, double 0xFFF0000000000000, "
                        f"double 0x7FF0000000000000")
        a = self.fabs(r)
        isinf = self.emit(f"fcmp oeq double {a}, 0x7FF0000000000000")
        finite_base = self.finite(fb)
        fix = self.emit(f"and i1 {isinf}, {finite_base}")
        return V("f", self.emit(f"select i1 {fix}, double {inf}, double {r}"))

    def helper_exp(self, x: V, pred) -> V:
        return V("f", self.fcall("exp", self.to_float(x).ref))

    def helper_trunc_or_zero(self, x: V, pred) -> V:
        return self.float_to_int(self.to_float(x))

    def helper_round_matiec(self, x: V, pred) -> V:
        """blocks.convert.round_matiec: x +- 0.5 truncated, an exact half to the even
        neighbour (below 2**52 toward zero as C's (LINT)y / 2 * 2, beyond it Python's
        q - q % 2, toward minus infinity); NaN and +-inf give 0."""
        x = self.to_float(x)
        pos = self.emit(f"fcmp oge double {x.ref}, 0.0")
        up = self.emit(f"fadd double {x.ref}, 0.5")
        down = self.emit(f"fsub double {x.ref}, 0.5")
        y = self.emit(f"select i1 {pos}, double {up}, double {down}")
        q = self.fcall("llvm.trunc.f64", y)
        half = self.emit(f"fmul double {q}, 0.5")
        a = self.fabs(q)
        small = self.emit(f"fcmp olt double {a}, 0x4330000000000000")  # |q| < 2**52
        toward_zero = self.fcall("llvm.trunc.f64", half)
        toward_minus = self.fcall("llvm.floor.f64", half)
        pick = self.emit(f"select i1 {small}, double {toward_zero}, double {toward_minus}")
        even = self.emit(f"fmul double {pick}, 2.0")
        floor = self.fcall("llvm.floor.f64", y)
        exact = self.emit(f"fcmp oeq double {y}, {floor}")
        r = self.emit(f"select i1 {exact}, double {even}, double {q}")
        return self.float_to_int(V("f", r))

    def helper_round_matiec_unsigned(self, x: V, pred) -> V:
        """0 below zero (and for NaN), else round_matiec: rounding 0.0 gives 0 too."""
        x = self.to_float(x)
        pos = self.emit(f"fcmp oge double {x.ref}, 0.0")
        kept = self.emit(f"select i1 {pos}, double {x.ref}, double 0.0")
        return self.helper_round_matiec(V("f", kept), pred)

    def helper_int_to_real32(self, n: V, pred) -> V:
        return self.to_single(n)

    def helper_round_half_away(self, x: V, pred) -> V:
        x = self.to_float(x)
        pos = self.emit(f"fcmp oge double {x.ref}, 0.0")
        up = self.emit(f"fadd double {x.ref}, 0.5")
        down = self.emit(f"fsub double {x.ref}, 0.5")
        y = self.emit(f"select i1 {pos}, double {up}, double {down}")
        return self.float_to_int(V("f", y))


