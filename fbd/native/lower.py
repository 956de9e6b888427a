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
  library CPython calls; REAL's rounding to single precision (the code
  :func:`fbd.real32.real32_code` writes) is ``fptrunc`` to ``float`` and back.

The output is a *template*: IR lines with ``{0}`` for the instance's name
prefix, ``{1}`` for its trap code and ``{2}``, ``{3}``, ... for the slots it
reads and writes, formatted once per instance.
"""

from __future__ import annotations

import ast
import functools
import math

from .. import real32
from .builder import ValueBuilder
from .calls import Calls
from .values import (
    _FLIP,
    _NEGATE,
    DECLARATIONS,
    I64,
    TRAP_RANGE,
    TRAP_REASONS,
    B,
    NoNativeForm,
    V,
    Var,
    _int,
    const,
    slot_kind,
)


@functools.lru_cache(maxsize=4096)
def _parsed(code: str) -> ast.Module:
    """The syntax tree of a block's code, which the lowering only reads: an ST
    body's operators repeat the same few texts thousands of times."""
    try:
        return ast.parse(code)
    except SyntaxError as e:
        raise NoNativeForm(f"code that does not parse ({e.msg})") from None


class BlockLowering(ValueBuilder, Calls):
    """Translate one block configuration's code into an IR template: Python's
    statements and expressions, its names as the block's variables, over the
    typed values of :class:`~.builder.ValueBuilder`."""

    def __init__(self, code: str, variables: dict, namespace: dict, label: str):
        super().__init__()
        self.label = label
        self.vars = variables           # name in the code -> Var
        self.ns = namespace
        self.env: dict[str, V] = {}     # current values of names
        self.view: dict[str, V] = {}    # refined intervals, valid while env[name] is .view[name][1]
        self.assigned: set[str] = set()
        # An input's value is a placeholder the instance fills (a load it makes, or
        # the register an earlier block of the same basic block stored): slot
        # argument -> (placeholder number, kind). Set by the caller; empty: load here.
        self.input_values: dict[int, int] = {}
        self.used_inputs: dict[int, str] = {}   # slot argument -> kind, inputs read
        self.stored: dict[int, str] = {}        # slot argument -> the raw i64 stored
        self.tree = _parsed(code)

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
        if var.slot_arg in self.input_values:
            self.used_inputs[var.slot_arg] = kind
            raw = f"{{{self.input_values[var.slot_arg]}}}"
            if kind == "d":
                return V("f", raw)
        else:
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
        self.store_raw(var.slot_arg, ref)

    def store_raw(self, slot_arg: int, ref: str) -> None:
        p = self.emit(f"getelementptr i64, ptr %s, i64 {{{slot_arg}}}")
        self.lines.append(f"  store i64 {ref}, ptr {p}")
        self.stored[slot_arg] = ref

    def raw_input(self, name: str) -> str:
        """An input's cell as raw 64 bits (a LIFO stores elements so)."""
        v = self.read(name)
        if v.k == "f":
            return self.emit(f"bitcast double {v.ref} to i64")
        if v.k == "i" and v.w == 128:
            return self.emit(f"trunc i128 {v.ref} to i64")
        return self.wide(v).ref if v.k == "b" else v.ref

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
                self.view[name_node.id] = (v.within(lo, hi), self.env[name_node.id])

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
            if wrapped is None:
                wrapped = self.real32_idiom(node, pred)
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

    def real32_idiom(self, node: ast.IfExp, pred):
        """REAL's rounding (:func:`fbd.real32.real32_code`): the expression rounded
        to single precision, which ``fptrunc`` does for every value."""
        found = real32.match_real32_code(node, self.ns)
        if found is None:
            return None
        name, inner = found
        v = self.expr(inner, pred)
        self.assign(name, v, None)
        return self.to_single(v)

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

def lower(code: str, variables: dict, namespace: dict, label: str = "",
          input_values: dict | None = None) -> BlockLowering:
    """Translate one block configuration (see the module docstring); the result's
    ``lines`` are the IR, ``used_inputs`` and ``stored`` what it reads and writes.
    ``input_values``: slot argument -> placeholder number of each input's value."""
    bl = BlockLowering(code, variables, namespace, label)
    bl.input_values = dict(input_values or {})
    bl.run()
    return bl


__all__ = ["lower", "Var", "NoNativeForm", "slot_kind", "DECLARATIONS", "TRAP_REASONS"]

