"""A block's Python code, translated to LLVM IR text.

Every block's meaning is the Python text :func:`fbd.block.code_lines` gives.
This module parses that text with :mod:`ast` and translates the restricted
subset the library is written in (assignments, ``if``/``elif``/``else``,
conditional expressions, ``and``/``or``/``not``, arithmetic, comparisons,
``abs``/``float``/``min``/``max``, ``math`` functions and the library's own
helpers, known by module and name) into straight-line IR over typed values.
Anything outside it raises :class:`NoNativeForm` naming the construct, and
the program stays on the Python engine.

Python's semantics are kept exactly:

* integers are unbounded in Python; here every integer value carries the
  interval it can take (from its slot's type, constants, and the operations
  on it), is computed in ``i64`` or ``i128`` where that interval fits, and in
  ``i128`` *modulo 2**128* past that. A modular value is only good for what
  keeps low bits (``+ - * << & | ^``) and for the library's wrap idioms
  (``DataType.wrap`` and ``wrap_into``), which take the low bits of any
  integer; every other use of one (a comparison, ``//``, a store) is refused;
* ``//`` and ``%`` floor as Python does, on operands below 2**64 in size;
* ``if`` statements, conditional expressions and ``and``/``or`` become
  ``select``: both sides are computed, so every operation is total (a
  division by zero divides by 1, a shift by too much shifts by nothing) and
  the value of the side not taken is discarded. Where Python would *raise*
  on the path actually taken (a division by zero, a negative shift count, a
  math domain error, a value that leaves its slot's type), the code records
  a *trap* instead: the scan finishes and the engine raises, naming the block;
* floats are IEEE doubles, as Python's; ``math`` functions call the C
  library CPython calls.

The output is a *template*: IR lines with ``{0}`` for the instance's name
prefix, ``{1}`` for its trap code and ``{2}``, ``{3}``, ... for the slots it
reads and writes, formatted once per instance.
"""

from __future__ import annotations

import ast
import builtins
import math
import struct

I64 = (-(1 << 63), (1 << 63) - 1)
I128 = (-(1 << 127), (1 << 127) - 1)

# trap reasons (the last digit of a trap code)
TRAP_DIV_ZERO = 1
TRAP_SHIFT = 2
TRAP_DOMAIN = 3
TRAP_RANGE = 4
TRAP_NOT_FINITE = 5
TRAP_REASONS = {
    TRAP_DIV_ZERO: "division or modulo by zero",
    TRAP_SHIFT: "a shift by a negative count",
    TRAP_DOMAIN: "a math domain error or overflow",
    TRAP_RANGE: "a value outside its signal's type",
    TRAP_NOT_FINITE: "an infinite or NaN REAL converted to an integer",
}


class NoNativeForm(Exception):
    """The block's code uses something this translator does not handle."""


class V:
    """A value: kind ``b`` (i1), ``i`` (integer, ``w`` 64 or 128 bits, in
    ``lo..hi``; ``lo`` None when only its low 128 bits are known) or ``f``
    (double). ``ref`` is its IR operand (``%b7.3``, ``42``, ``true``)."""
    __slots__ = ("k", "ref", "lo", "hi", "w")

    def __init__(self, k, ref, lo=None, hi=None, w=64):
        self.k, self.ref, self.lo, self.hi, self.w = k, ref, lo, hi, w

    @property
    def modular(self) -> bool:
        return self.k == "i" and self.lo is None

    @property
    def ty(self) -> str:
        return "double" if self.k == "f" else f"i{self.w}"


def B(ref: str, w: int = 1) -> V:
    """A BOOL value: an i1, or an i64 holding 0 or 1 (as loaded from its cell)."""
    return V("b", ref, 0, 1, w)


def _width(lo, hi):
    """(width, lo, hi): the narrowest of i64/i128 holding lo..hi, or modular i128."""
    if I64[0] <= lo and hi <= I64[1]:
        return 64, lo, hi
    if I128[0] <= lo and hi <= I128[1]:
        return 128, lo, hi
    return 128, None, None


def float_ref(x: float) -> str:
    return "0x%016X" % struct.unpack(">Q", struct.pack(">d", x))[0]


def const(value) -> V:
    if isinstance(value, bool):
        return B("true" if value else "false")
    if isinstance(value, int):
        w, lo, hi = _width(value, value)
        if lo is None:
            raise NoNativeForm(f"the integer constant {value} is wider than 128 bits")
        return V("i", str(value), value, value, w)
    if isinstance(value, float):
        return V("f", float_ref(value))
    raise NoNativeForm(f"a constant of type {type(value).__name__} ({value!r})")


# Library helpers with a native form, by "module.qualname" (fbd imports no block module).
HELPERS = {
    "blocks.arith._arith_div_by_zero": "div_by_zero",
    "blocks.arith._arith_expt": "expt",
    "blocks.arith._arith_exp": "exp",
    "blocks.convert.round_half_away": "round_half_away",
    "blocks.convert._conv_trunc": "trunc_or_zero",
}
MATH_CALLS = {"sqrt", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "exp",
              "isfinite", "trunc"}
LIBM = ("log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "pow")
DECLARATIONS = "\n".join(
    [f"declare double @{name}(double)" for name in LIBM if name != "pow"]
    + ["declare double @pow(double, double)",
       "declare double @llvm.sqrt.f64(double)", "declare double @llvm.fabs.f64(double)",
       "declare double @llvm.trunc.f64(double)",
       "declare double @llvm.copysign.f64(double, double)",
       "declare i64 @llvm.ctlz.i64(i64, i1)"])

_CMP_INT = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt",
            ast.GtE: "sge"}
_CMP_FLOAT = {ast.Eq: "oeq", ast.NotEq: "une", ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt",
              ast.GtE: "oge"}
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq,
         ast.NotEq: ast.NotEq}
_NEGATE = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq}


def _int(node) -> int:
    """The value of an integer literal node (``-5`` parses as a negation of 5)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_int(node.operand)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    raise TypeError("not an integer literal")


class Pred:
    """The condition under which code runs: a conjunction of i1 values, each
    possibly negated, made into IR only when a select or a trap needs it."""
    __slots__ = ("terms", "ref")

    def __init__(self, terms):
        self.terms, self.ref = terms, None


class Var:
    """A port or state variable of the block: where it lives and its type."""
    __slots__ = ("name", "slot_arg", "tp", "writable")

    def __init__(self, name, slot_arg: int, tp, writable: bool):
        self.name, self.slot_arg, self.tp, self.writable = name, slot_arg, tp, writable


def slot_kind(tp):
    """How a type's value sits in its 8-byte cell: ``b`` 0/1, ``q`` signed,
    ``Q`` unsigned 64-bit, ``d`` double; None for a type with no native cell."""
    if tp is None:
        return None
    if tp.kind == "bool":
        return "b"
    if tp.kind == "real":
        return "d"
    if tp.kind in ("int", "bits", "time"):
        return "Q" if (tp.bits == 64 and not tp.signed) else "q"
    return None


class BlockLowering:
    """Translate one block configuration's code into an IR template."""

    def __init__(self, code: str, variables: dict, namespace: dict, label: str):
        self.label = label
        self.vars = variables           # name in the code -> Var
        self.ns = namespace
        self.lines: list[str] = []
        self.n = 0
        self.env: dict[str, V] = {}     # current values of names
        self.view: dict[str, V] = {}    # refined intervals, valid while env[name] is .view[name][1]
        self.assigned: set[str] = set()
        self.nonzero: set[str] = set()  # refs known non-zero on the current path
        try:
            self.tree = ast.parse(code)
        except SyntaxError as e:
            raise NoNativeForm(f"code that does not parse ({e.msg})") from None

    # -- emitting ----------------------------------------------------------------
    def tmp(self) -> str:
        self.n += 1
        return f"%{{0}}.{self.n}"

    def emit(self, rhs: str) -> str:
        name = self.tmp()
        self.lines.append(f"  {name} = {rhs}")
        return name

    def run(self) -> list[str]:
        for var in self.vars.values():
            if var.tp is not None and slot_kind(var.tp) is None:
                raise NoNativeForm(f"{var.tp} signals")
            if var.tp is None:
                raise NoNativeForm("a state variable with no IEC type (Python storage)")
        self.env["now"] = V("i", "%now", 0, I64[1], 64)
        for stmt in self.tree.body:
            self.stmt(stmt, None)
        for name in sorted(self.assigned):
            self.store(self.vars[name], self.env[name])
        return self.lines

    # -- variables -----------------------------------------------------------------
    def read(self, name: str) -> V:
        if name in self.view and self.view[name][1] is self.env.get(name):
            return self.view[name][0]
        if name in self.env:
            return self.env[name]
        var = self.vars.get(name)
        if var is None:
            raise NoNativeForm(f"the name {name!r}")
        v = self.load(var)
        self.env[name] = v
        return v

    def load(self, var: Var) -> V:
        kind = slot_kind(var.tp)
        p = self.emit(f"getelementptr i64, ptr %s, i64 {{{var.slot_arg}}}")
        if kind == "d":
            return V("f", self.emit(f"load double, ptr {p}"))
        raw = self.emit(f"load i64, ptr {p}")
        if kind == "b":
            return B(raw, 64)
        if kind == "Q":
            return V("i", self.emit(f"zext i64 {raw} to i128"), 0, (1 << 64) - 1, 128)
        return V("i", raw, var.tp.min, var.tp.max, 64)

    def store(self, var: Var, v: V) -> None:
        kind = slot_kind(var.tp)
        if kind == "d":
            if v.k == "i" and (v.modular or v.lo < -(1 << 53) or v.hi > (1 << 53)):
                raise NoNativeForm(f"the REAL {var.name} is given an integer beyond 2**53")
            v = self.to_float(v)
            ref = self.emit(f"bitcast double {v.ref} to i64")
        elif kind == "b":
            if v.k != "b":
                raise NoNativeForm(f"a non-BOOL value stored in the BOOL {var.name}")
            ref = self.wide(v).ref
        else:
            v = self.to_int(v)
            if v.modular:
                raise NoNativeForm(f"{var.name} is given an integer whose range is unknown")
            lo, hi = var.tp.min, var.tp.max
            if v.lo < lo or v.hi > hi:
                bad = self.emit(f"icmp slt i{v.w} {v.ref}, {lo}")
                bad2 = self.emit(f"icmp sgt i{v.w} {v.ref}, {hi}")
                self.trap(self.emit(f"or i1 {bad}, {bad2}"), TRAP_RANGE)
            ref = v.ref if v.w == 64 else self.emit(f"trunc i128 {v.ref} to i64")
        p = self.emit(f"getelementptr i64, ptr %s, i64 {{{var.slot_arg}}}")
        self.lines.append(f"  store i64 {ref}, ptr {p}")

    def assign(self, name: str, v: V, pred) -> None:
        var = self.vars.get(name)
        if var is not None and not var.writable:
            raise NoNativeForm(f"an assignment to the input {name!r}")
        if name == "now":
            raise NoNativeForm("an assignment to now")
        if pred is not None:
            old = self.env.get(name)
            if old is None and var is not None:
                old = self.read(name)
            if old is not None:
                if len(pred.terms) == 1:
                    cond, negated = pred.terms[0]
                    v = self.select(cond, old, v) if negated else self.select(cond, v, old)
                else:
                    v = self.select(self.materialize(pred), v, old)
        self.env[name] = v
        self.view.pop(name, None)
        if var is not None:
            self.assigned.add(name)

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

    # -- conversions -----------------------------------------------------------------
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
        if v.k == "b":
            return V("f", self.emit(f"uitofp {v.ty} {v.ref} to double"))
        if v.modular:
            raise NoNativeForm("an integer of unknown range converted to a REAL")
        if v.w == 64:
            return V("f", self.emit(f"sitofp i64 {v.ref} to double"))
        if v.lo >= 0 and v.hi < (1 << 64):
            low = self.emit(f"trunc i128 {v.ref} to i64")
            return V("f", self.emit(f"uitofp i64 {low} to double"))
        if v.lo >= I64[0] and v.hi <= I64[1]:
            low = self.emit(f"trunc i128 {v.ref} to i64")
            return V("f", self.emit(f"sitofp i64 {low} to double"))
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

    # -- statements -------------------------------------------------------------------
    def stmt(self, node, pred) -> None:
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise NoNativeForm("an assignment to anything but one name")
            self.assign(node.targets[0].id, self.expr(node.value, pred), pred)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise NoNativeForm("an augmented assignment to anything but a name")
            value = self.binop(node.op, self.read(node.target.id), self.expr(node.value, pred),
                               pred)
            self.assign(node.target.id, value, pred)
        elif isinstance(node, ast.If):
            if self.wrap_into(node, pred):
                return
            test = self.truth(self.expr(node.test, pred))
            saved = dict(self.view), set(self.nonzero)
            self.refine(node.test, True)
            p_true = self.conj(pred, test)
            for s in node.body:
                self.stmt(s, p_true)
            self.view, self.nonzero = dict(saved[0]), set(saved[1])
            if node.orelse:
                self.refine(node.test, False)
                p_false = self.conj(pred, test, True)
                for s in node.orelse:
                    self.stmt(s, p_false)
            self.view, self.nonzero = saved
        elif isinstance(node, ast.Pass):
            pass
        else:
            raise NoNativeForm(f"the statement {ast.unparse(node)!r}")

    def wrap_into(self, node: ast.If, pred) -> bool:
        """``if t > MAX: t -= W`` / ``elif t < MIN: t += W`` (DataType.wrap_into):
        the low bits of t, when t is within one width of the type's range."""
        try:
            test, body, other = node.test, node.body, node.orelse
            name = test.left.id
            hi, width = _int(test.comparators[0]), _int(body[0].value)
            inner = other[0]
            lo = _int(inner.test.comparators[0])
            ok = (isinstance(test.ops[0], ast.Gt) and len(body) == 1 and len(other) == 1
                  and isinstance(body[0], ast.AugAssign) and isinstance(body[0].op, ast.Sub)
                  and body[0].target.id == name and isinstance(inner.test.ops[0], ast.Lt)
                  and inner.test.left.id == name and len(inner.body) == 1
                  and isinstance(inner.body[0].op, ast.Add) and inner.body[0].target.id == name
                  and _int(inner.body[0].value) == width and not inner.orelse
                  and hi - lo + 1 == width and width & (width - 1) == 0)
        except (AttributeError, IndexError, TypeError):
            return False
        if not ok:
            return False
        v = self.read(name)
        if v.k != "i" or v.modular or v.lo < lo - width or v.hi > hi + width:
            return False
        self.assign(name, self.wrap(v, width.bit_length() - 1, lo < 0), pred)
        return True

    def refine(self, test, truth: bool) -> None:
        """Narrow the intervals of names compared with a constant or a name in ``test``
        (and note names known non-zero) while in the branch ``truth`` selects."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and truth:
            for v in test.values:
                self.refine(v, True)
            return
        if isinstance(test, ast.BinOp) and isinstance(test.op, ast.BitAnd) and truth:
            self.refine(test.left, True)
            self.refine(test.right, True)
            return
        if isinstance(test, ast.Name):
            if truth:
                v = self.env.get(test.id)
                if v is not None:
                    self.nonzero.add(v.ref)
            return
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return
        op, left, right = type(test.ops[0]), test.left, test.comparators[0]
        if not truth:
            op = _NEGATE[op]
        for name_node, other, o in ((left, right, op), (right, left, _FLIP[op])):
            if not isinstance(name_node, ast.Name) or name_node.id not in self.env:
                continue
            v = self.read(name_node.id)
            if v.k != "i" or v.modular:
                continue
            if isinstance(other, ast.Constant) and isinstance(other.value, int):
                bound_lo = bound_hi = other.value
            elif isinstance(other, ast.Name) and other.id in self.env:
                w = self.read(other.id)
                if w.k != "i" or w.modular:
                    continue
                bound_lo, bound_hi = w.lo, w.hi
            else:
                continue
            lo, hi = v.lo, v.hi
            if o is ast.Lt:
                hi = min(hi, bound_hi - 1)
            elif o is ast.LtE:
                hi = min(hi, bound_hi)
            elif o is ast.Gt:
                lo = max(lo, bound_lo + 1)
            elif o is ast.GtE:
                lo = max(lo, bound_lo)
            elif o is ast.Eq:
                lo, hi = max(lo, bound_lo), min(hi, bound_hi)
            if lo <= hi and (lo, hi) != (v.lo, v.hi):
                self.view[name_node.id] = (V("i", v.ref, lo, hi, v.w), self.env[name_node.id])

    # -- expressions ------------------------------------------------------------------
    def expr(self, node, pred) -> V:
        if isinstance(node, ast.Constant):
            return const(node.value)
        if isinstance(node, ast.Name):
            return self.read(node.id)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "math" \
                    and self.ns.get("math") is math and node.attr in ("nan", "inf", "pi", "e"):
                return const(getattr(math, node.attr))
            raise NoNativeForm(f"the attribute {ast.unparse(node)!r}")
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, pred)
            if isinstance(node.op, ast.Not):
                return self.negate(self.truth(v))
            if isinstance(node.op, ast.UAdd):
                return self.to_int(v) if v.k == "b" else v
            if isinstance(node.op, ast.USub):
                if v.k == "f":
                    return V("f", self.emit(f"fneg double {v.ref}"))
                return self.binop(ast.Sub(), const(0), v, pred)
            if isinstance(node.op, ast.Invert) and v.k != "f":
                return self.binop(ast.Sub(), const(-1), v, pred)
            raise NoNativeForm(f"the operator in {ast.unparse(node)!r}")
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left, pred), self.expr(node.right, pred),
                              pred)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, pred)
        if isinstance(node, ast.Compare):
            return self.compare(node, pred)
        if isinstance(node, ast.IfExp):
            wrapped = self.wrap_idiom(node, pred)
            if wrapped is not None:
                return wrapped
            test = self.truth(self.expr(node.test, pred))
            saved = dict(self.view), set(self.nonzero)
            self.refine(node.test, True)
            a = self.expr(node.body, self.conj(pred, test))
            self.view, self.nonzero = dict(saved[0]), set(saved[1])
            self.refine(node.test, False)
            b = self.expr(node.orelse, self.conj(pred, test, True))
            self.view, self.nonzero = saved
            return self.select(test, a, b)
        if isinstance(node, ast.Call):
            return self.call(node, pred)
        if isinstance(node, ast.NamedExpr):
            v = self.expr(node.value, pred)
            self.assign(node.target.id, v, None)
            return v
        raise NoNativeForm(f"the expression {ast.unparse(node)!r}")

    def wrap_idiom(self, node: ast.IfExp, pred):
        """``(_w if LO <= (_w := e) <= HI else ((_w + H) & M) - H)`` (DataType.wrap):
        e's low bits as a signed integer of that width, for any e."""
        try:
            t = node.test
            named = t.comparators[0]
            name = named.target.id
            lo, hi = _int(t.left), _int(t.comparators[1])
            other = node.orelse
            ok = (isinstance(named, ast.NamedExpr) and len(t.ops) == 2
                  and all(isinstance(o, ast.LtE) for o in t.ops)
                  and isinstance(node.body, ast.Name) and node.body.id == name
                  and isinstance(other, ast.BinOp) and isinstance(other.op, ast.Sub)
                  and _int(other.right) == -lo and isinstance(other.left.op, ast.BitAnd)
                  and _int(other.left.right) == hi - lo
                  and isinstance(other.left.left.op, ast.Add)
                  and other.left.left.left.id == name and _int(other.left.left.right) == -lo
                  and hi == -lo - 1 and (hi - lo + 1) & (hi - lo) == 0)
        except (AttributeError, IndexError, TypeError):
            return None
        if not ok:
            return None
        v = self.to_int(self.expr(named.value, pred))
        result = self.wrap(v, (hi - lo + 1).bit_length() - 1, True)
        self.assign(name, result, None)
        return result

    def wrap(self, v: V, bits: int, signed: bool) -> V:
        """The low ``bits`` of v, as a signed or unsigned integer."""
        if not v.modular:
            lo, hi = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed
                      else (0, (1 << bits) - 1))
            if lo <= v.lo and v.hi <= hi:
                return v
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

    def boolop(self, node: ast.BoolOp, pred) -> V:
        is_and = isinstance(node.op, ast.And)
        acc = self.expr(node.values[0], pred)
        p = pred
        for sub in node.values[1:]:
            t = self.truth(acc)
            p = self.conj(p, t, not is_and)
            saved = dict(self.view), set(self.nonzero)
            if is_and:
                self.refine(node.values[0], True)
            nxt = self.expr(sub, p)
            self.view, self.nonzero = saved
            if acc.k == nxt.k == "b":
                acc = self.both("and" if is_and else "or", acc, nxt)
            else:  # Python's: the first operand that decides, as it is
                acc = self.select(t, nxt, acc) if is_and else self.select(t, acc, nxt)
        return acc

    def compare(self, node: ast.Compare, pred) -> V:
        left = self.expr(node.left, pred)
        result = None
        for op, comp in zip(node.ops, node.comparators):
            right = self.expr(comp, pred)
            c = self.cmp(type(op), left, right)
            result = c if result is None else self.both("and", result, c)
            left = right
        return result

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
        w = max(a.w, b.w)
        return B(self.emit(f"icmp {_CMP_INT[op]} i{w} {self.ext(a, w)}, {self.ext(b, w)}"))

    # -- arithmetic -------------------------------------------------------------------
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
        ref = self.emit(f"{name} i{w} {self.ext(a, w)}, {self.ext(b, w)}")
        return V("i", ref, lo, hi, w)

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

    # -- calls ------------------------------------------------------------------------
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
            return V("f", self.emit(f"call double @llvm.fabs.f64(double {v.ref})"))
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

    def finite(self, x: V) -> str:
        a = self.fcall("llvm.fabs.f64", x.ref)
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
            a = self.fcall("llvm.fabs.f64", x.ref)
            bad = self.emit(f"fcmp oeq double {a}, 0x7FF0000000000000")
        elif name in ("asin", "acos"):
            a = self.fcall("llvm.fabs.f64", x.ref)
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
        a = self.fcall("llvm.fabs.f64", x.ref)
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
        inf = self.fcall("llvm.copysign.f64", "0x7FF0000000000000", a.ref)
        one = self.fcall("llvm.copysign.f64", "1.0", b.ref)
        r = self.emit(f"fmul double {inf}, {one}")
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
        a = self.fcall("llvm.fabs.f64", r)
        isinf = self.emit(f"fcmp oeq double {a}, 0x7FF0000000000000")
        finite_base = self.finite(fb)
        fix = self.emit(f"and i1 {isinf}, {finite_base}")
        return V("f", self.emit(f"select i1 {fix}, double {inf}, double {r}"))

    def helper_exp(self, x: V, pred) -> V:
        return V("f", self.fcall("exp", self.to_float(x).ref))

    def helper_trunc_or_zero(self, x: V, pred) -> V:
        return self.float_to_int(self.to_float(x))

    def helper_round_half_away(self, x: V, pred) -> V:
        x = self.to_float(x)
        pos = self.emit(f"fcmp oge double {x.ref}, 0.0")
        up = self.emit(f"fadd double {x.ref}, 0.5")
        down = self.emit(f"fsub double {x.ref}, 0.5")
        y = self.emit(f"select i1 {pos}, double {up}, double {down}")
        return self.float_to_int(V("f", y))


def lower(code: str, variables: dict, namespace: dict, label: str = "") -> list[str]:
    """The IR lines of one block configuration (see the module docstring)."""
    return BlockLowering(code, variables, namespace, label).run()


__all__ = ["lower", "Var", "NoNativeForm", "slot_kind", "DECLARATIONS", "TRAP_REASONS"]
