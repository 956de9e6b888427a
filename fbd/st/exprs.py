"""Expressions of an ST body, type-checked as matiec checks them, in the
engines' form (:mod:`.ir`).

:class:`ExprCompiler` turns an expression into ``(ir.Expr, type)``, emitting
the statements it needs first (a library block's code, an array bound check)
into the body being written. The rules are matiec's, checked
with it:

* no implicit conversion: ``dint := int_var`` and ``int_var + dint_var`` are
  refused (use ``INT_TO_DINT``); a BYTE is not a number (``b + 1`` refused);
* an untyped literal takes the type of its context (the other operand, the
  variable assigned, the parameter), and must fit it: an integer literal is
  not a REAL (``r := 1`` is refused, as matiec refuses it), a real literal is
  not an integer; two untyped literals compute as LINT (or LREAL);
* operators are the library blocks': ``+`` is ADD's code, ``/`` DIV's, MOD
  MOD's, ``**`` EXPT's, with their wrap-around; comparisons, AND/OR/XOR and
  NOT are the plain Python operations those blocks compute (``AND`` of BOOLs
  short-circuits, as matiec's C ``&&`` does).

Values are those of matiec's C, which computes an operator inline in the
type C gives its operands, and cuts the value to its IEC type only where it
stores it (an assignment, a call's parameter, a CASE selector):

* integers in C's promoted type: SINT, INT, USINT, UINT and DINT in ``int``
  (the library's DINT code), UDINT in ``unsigned int`` (in ``long``, LINT,
  beside an untyped decimal literal past ``int``'s range, which C types
  ``long``), LINT and ULINT in 64 bits, so ``(a + b) / 2`` of two INTs 30000
  is 30000 and ``a + b > 0`` TRUE;
  NOT of a BYTE or WORD stays within its width (IEC: matiec's ``~`` of the
  promoted int makes ``NOT b = 16#F0`` FALSE for b = 16#0F, a defect);
* REALs in ``float``, rounded after each operation (the library's REAL code),
  except where an operand is an untyped real literal (a C ``double``
  literal), directly or through an operand computed so, or comes from ``**``
  (C's ``pow``): that operation is computed in double (LREAL code) and
  rounded where it is stored; a comparison rounds such an operand first
  (IEC compares REAL values; matiec's double comparison, which makes
  ``a > 0.1`` TRUE for a REAL a = 0.1, is a defect).

Such a value is ``wide`` (:attr:`fbd.st.ir.Expr.wide`); :meth:`ExprCompiler.narrow`
cuts it to its type where C would. An IL instruction's result is stored at
once (matiec keeps it in a variable of its type), so IL narrows at each one.
"""


from __future__ import annotations

from .. import types as t
from ..real32 import round_real32
from . import ast as A
from . import ir
from .calls import DATE_BLOCKS, CallCompiler, context_free_type, same, untyped
from .model import Var
from .stdlib import WSTRING_LITERAL_REFUSED

K = t.Kind
_NUM = (K.INT, K.REAL)
_CMP = {"<": "<", ">": ">", "<=": "<=", ">=": ">=", "=": "==", "<>": "!="}
_ARITH_BLOCKS = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "MOD": "MOD", "**": "EXPT"}
#: the kinds each arithmetic operator is defined for
_ARITH_KINDS = {"+": (K.INT, K.REAL, K.TIME), "-": (K.INT, K.REAL, K.TIME), "*": _NUM, "/": _NUM,
                "MOD": (K.INT,)}


def promoted(tp: t.DataType) -> t.DataType:
    """The type C computes an operator on ``tp`` in: ``int`` (DINT) for the
    integers narrower than 32 bits, else the type itself."""
    return t.DINT if tp.kind is K.INT and tp.bits < 32 else tp


def _single(tp: t.DataType) -> bool:
    return tp.kind is K.REAL and tp.bits == 32


def _unsigned_32(tp: t.DataType) -> bool:
    return tp.kind is K.INT and tp.bits == 32 and not tp.signed


def _c_long(c: t.DataType, e: A.Binary) -> bool:
    """matiec writes an untyped decimal literal into its C as it is written: one past
    ``int``'s range (2147483648 .. 4294967295 beside a UDINT) is a C ``long``, so the
    operation is computed in 64 signed bits (``u * 4294967294 <= 0`` can be TRUE);
    a based or typed literal (``16#FFFFFFFE``, ``UDINT#4294967294``) stays 32-bit."""
    return _unsigned_32(c) and any(
        x.__class__ is A.Literal and x.kind == "int" and x.type_name is None
        and x.value > 2**31 - 1 and "#" not in x.text for x in (e.left, e.right))


def _wide(e: ir.Expr) -> ir.Expr:
    e.wide = True
    return e


class ExprCompiler(CallCompiler):
    """Needs from the body compiler: ``emit(stmt)``, ``temp(type)``, ``fail(node, msg)``,
    ``lookup(node, name) -> Var``, ``ctx`` (the unit's compile context)."""

    # -- entry ---------------------------------------------------------------
    def expr(self, e, expected: t.DataType | None = None) -> tuple[ir.Expr, t.DataType]:
        # the node classes have no subclasses: one identity test each, not isinstance
        cls = e.__class__
        if cls is A.Binary:
            return self.binary(e, expected)
        if cls is A.Literal:
            return self.literal(e, expected)
        if cls is A.Unary:
            return self.unary(e, expected)
        if cls is A.EnumLiteral:
            return self.enum_literal(e)
        if cls is A.Call:
            return self.call(e, expected)
        if cls is A.Name:
            sym = self.analysis.symbol(e)
            if sym is not None and sym.kind == "enum_value":
                return self.enum_value(e, e.name, expected)
            if e.name.upper() == "__CURRENT_TIME":
                return ir.Now(), t.TIME
        code, tp, var = self.place(e)
        if tp is None:
            self.fail(e, f"{A.dump(e)} is an FB instance, not a value")
        return code, tp

    def typed(self, e, want: t.DataType, what: str, narrow: bool = True) -> ir.Expr:
        """``e`` as a value of type ``want`` (assignment compatible), else an error;
        cut to ``want`` as a store does, unless not ``narrow`` (a FOR loop's end)."""
        code, tp = self.expr(e, want)
        if not same(tp, want):
            self.fail(e, f"{what}: {tp.name} where {want.name} is expected (matiec converts "
                         f"nothing implicitly; use {tp.canonical.name}_TO_{want.canonical.name})"
                      if tp.kind in (K.INT, K.REAL, K.BITS, K.BOOL) and want.kind in
                      (K.INT, K.REAL, K.BITS, K.BOOL) else
                      f"{what}: {tp.name} where {want.name} is expected")
        return self.fitted(self.narrow(code, want), tp, want) if narrow else code

    @staticmethod
    def fitted(code: ir.Expr, source: t.DataType, tp: t.DataType) -> ir.Expr:
        """A string of type ``source`` cut to the capacity of ``tp`` (a STRING, a
        STRING[n]) where it may be longer: each place holds its own type's."""
        n = tp.capacity
        if n is None or source.capacity is None or source.capacity <= n:
            return code
        return ir.Const(code.value[:n], tp) if isinstance(code, ir.Const) else ir.Copy(code, tp, length=n)

    def narrow(self, code: ir.Expr, tp: t.DataType) -> ir.Expr:
        """``code`` cut to ``tp`` as C's store cuts it, if it is wide: an integer
        wrapped to its width, a REAL rounded to single precision (a literal at
        once)."""
        if not code.wide:
            return code
        c = tp.canonical
        if isinstance(code, ir.Const) and isinstance(code.value, float) and _single(c):
            return ir.Const(round_real32(code.value), tp)
        return ir.Narrow(code, c)

    # -- literals ------------------------------------------------------------
    def literal(self, e: A.Literal, expected):
        if expected is not None and e.kind == "int" and e.type_name is None:
            # the same number, where the same type is expected, was checked before
            const = self._consts.get((e.value, id(expected)))
            if const is not None:
                return const, expected
        value = e.value
        if e.type_name is not None:
            tp = self.types.named(e.type_name, e)
            return ir.Const(self.types.literal(e, tp), tp), tp
        kind = e.kind
        if kind == "bool":
            tp = expected if expected is not None and expected.canonical.kind in (K.BOOL, K.BITS) \
                else t.BOOL
            if tp.canonical.kind is K.BITS:
                return ir.Const(int(value), tp), tp
            return ir.Const(bool(value), t.BOOL), t.BOOL
        if kind in ("time", "ltime"):
            return ir.Const(value, t.TIME), t.TIME
        if kind == "string":   # a STRING[n] of its own length when longer than a STRING: each
            # place it goes (a STRING, a STRING[200], a function's parameter) cuts it to its own
            tp = t.STRING if len(value) <= t.STRING_MAX else t.string_of(len(value))
            return ir.Const(value, tp), tp
        if kind == "wstring":
            self.fail(e, WSTRING_LITERAL_REFUSED)
        if kind in ("date", "tod", "dt"):
            tp = {"date": t.DATE, "tod": t.TOD, "dt": t.DT}[kind]
            return ir.Const(value, tp), tp
        if expected is not None:
            ck = expected.canonical.kind
            if kind == "int" and ck in (K.INT, K.BITS):
                return self.int_const(self.types.literal(e, expected), expected), expected
            if kind == "int" and ck is K.BOOL and value in (0, 1):
                return ir.Const(bool(value), t.BOOL), t.BOOL
            if kind == "real" and ck is K.REAL:   # C's double literal: see ir.Expr.wide
                if _single(expected.canonical) and round_real32(abs(value)) == float("inf"):
                    self.fail(e, f"{e.text or value} is out of range for {expected.name}")
                return ir.Const(float(value), expected, wide=True), expected
            if kind == "int" and ck is K.REAL:
                self.fail(e, f"{e.text or value} is an integer literal, not a {expected.name} "
                             f"(matiec converts nothing implicitly; write {value}.0)")
            if kind == "real" and ck in (K.INT, K.BITS):
                self.fail(e, f"{e.text or value} is a real literal, not an integer ({expected.name})")
        tp = t.LINT if kind == "int" else t.LREAL
        return ir.Const(value, tp), tp

    def enum_literal(self, e: A.EnumLiteral):
        tp = self.types.named(e.type_name, e)
        if tp.canonical.kind is not K.ENUM:
            self.fail(e, f"{e.type_name} is not an enumeration")
        try:
            return ir.Const(tp.canonical.code_of(e.value), tp), tp
        except (t.InvalidValue, KeyError):
            self.fail(e, f"{e.type_name} has no value {e.value}")

    def enum_value(self, node, name: str, expected):
        if expected is not None and expected.canonical.kind is K.ENUM:
            try:
                return ir.Const(expected.canonical.code_of(name), expected), expected
            except (t.InvalidValue, KeyError):
                pass
        found = self.types.enum_values.get(name.upper())
        if found is None:
            self.fail(node, f"{name} is not an enumerated value of a declared type")
        tp, code = found
        return ir.Const(code, tp), tp

    # -- operators -------------------------------------------------------------
    def operands(self, e: A.Binary, expected):
        """Both sides, the untyped one compiled in the other's type."""
        # each side's answer once: it walks the side, and was asked up to three times
        left_untyped = self.untyped(e.left)
        right_untyped = left_untyped and self.untyped(e.right)
        if expected is None or e.op in _CMP:
            guess = context_free_type(e) if right_untyped else None
            if guess is not None:
                return self.expr(e.left, guess), self.expr(e.right, guess)
        if left_untyped and not right_untyped:
            right = self.expr(e.right, None)
            left = self.expr(e.left, right[1])
        else:
            left = self.expr(e.left, None if left_untyped and e.op in _CMP else
                             (expected if left_untyped else None))
            right = self.expr(e.right, left[1])
        return left, right

    def binary(self, e: A.Binary, expected):
        op = e.op
        if op in ("AND", "OR") and not self.untyped(e):
            return self.logical(e, expected)
        if op == "**":    # the exponent's type is its own: REAL ** 2 is EXPT(REAL, 2)
            (a, ta), (b, tb) = self.expr(e.left, expected), self.expr(e.right, None)
        else:
            (a, ta), (b, tb) = self.operands(e, expected)
        if op in _CMP:
            if not same(ta, tb):
                self.fail(e, f"'{op}' compares {ta.name} with {tb.name}; both sides must have one type")
            if ta.canonical.kind in (K.ARRAY, K.STRUCT):
                self.fail(e, f"'{op}' cannot compare {ta.name} values")
            if ta.canonical.kind is K.ENUM and op not in ("=", "<>"):
                self.fail(e, f"'{op}' cannot order enumerated values; only = and <> compare them")
            if _single(ta.canonical):   # REAL values (IEC), not matiec's doubles
                a, b = self.narrow(a, ta), self.narrow(b, tb)
            return ir.Compare(_CMP[op], a, b), t.BOOL
        if op in ("AND", "OR", "XOR"):
            if not same(ta, tb) or ta.canonical.kind not in (K.BOOL, K.BITS):
                self.fail(e, f"'{op}' needs two operands of one bit-string type (BOOL, BYTE, "
                             f"WORD ...), not {ta.name} and {tb.name}")
            if ta.canonical.kind is K.BOOL:
                if op == "XOR":
                    return ir.Compare("!=", a, b), t.BOOL
                return ir.Logic(op.lower(), a, b), t.BOOL
            py = {"AND": "&", "OR": "|", "XOR": "^"}[op]
            return ir.Bits(py, a, b, ta.canonical), ta.canonical
        code, tp = self.arith(e, op, (a, ta), (b, tb))
        return (self.narrow(code, tp) if e.il_result else code), tp

    def logical(self, e: A.Binary, expected):
        """AND / OR: short-circuit (C's && and ||) when the right side needs statements."""
        if self.untyped(e.left):   # `16#30 OR b`: the literal takes b's type (it needs no statements)
            mark_right = self.mark()
            right = self.expr(e.right, None)
            pre = self.take(mark_right)
            left = self.expr(e.left, right[1])
        else:
            left = self.expr(e.left, None)
            mark_right = self.mark()
            right = self.expr(e.right, left[1])
            pre = self.take(mark_right)
        ta, tb = left[1], right[1]
        if not same(ta, tb) or ta.canonical.kind not in (K.BOOL, K.BITS):
            self.fail(e, f"'{e.op}' needs two operands of one bit-string type (BOOL, BYTE, "
                         f"WORD ...), not {ta.name} and {tb.name}")
        if ta.canonical.kind is K.BITS:
            self.put(pre)
            return ir.Bits("&" if e.op == "AND" else "|", left[0], right[0], ta.canonical), \
                ta.canonical
        if not pre:
            return ir.Logic(e.op.lower(), left[0], right[0]), t.BOOL
        out = self.temp(t.BOOL)
        self.emit(ir.SetTemp(out, left[0]))
        test = out if e.op == "AND" else ir.Not(out)
        self.emit(ir.If([([], test, pre + [ir.SetTemp(out, right[0])])], None))
        return out, t.BOOL

    def arith(self, e, op, left, right):
        (a, ta), (b, tb) = left, right
        ka, kb = ta.canonical.kind, tb.canonical.kind
        if op in ("*", "/") and ka is K.TIME and kb in _NUM:  # C's LREAL factor: not cut
            return self.block_call("MUL_TIME" if op == "*" else "DIV_TIME",
                                   {"N": tb.canonical}, [a, b], e)
        if op == "**":   # C's pow of two doubles, inline: a REAL's is rounded where stored
            if ka is not K.REAL or kb not in _NUM:
                self.fail(e, f"'**' raises a REAL or LREAL to a number, not {ta.name} to {tb.name}")
            code, _ = self.block_call("EXPT", {"T": t.LREAL, "N": tb.canonical}, [a, b], e)
            return (_wide(code) if _single(ta.canonical) else code), ta.canonical
        dated = DATE_BLOCKS.get((op, ka, kb))
        if dated is not None:
            return self.block_call(dated, {}, [a, b], e)
        if not same(ta, tb):
            self.fail(e, f"'{op}' of {ta.name} and {tb.name}: both operands must have one type "
                         f"(matiec converts nothing implicitly)")
        c = ta.canonical
        if c.kind not in _ARITH_KINDS[op]:
            self.fail(e, f"'{op}' is not defined for {ta.name}")
        computed = self.c_type(c, a, b)
        if computed is c and _c_long(c, e):
            computed = t.LINT
        code, _ = self.block_call(_ARITH_BLOCKS[op], {"T": computed}, [a, b], e)
        return (_wide(code) if computed is not c else code), c

    @staticmethod
    def c_type(c: t.DataType, *operands: ir.Expr) -> t.DataType:
        """The type matiec's C computes an operator on ``c`` values in: integers
        promoted, a REAL in double where an operand is (see the module docstring)."""
        if _single(c):
            return t.LREAL if any(x.wide for x in operands) else c
        if _unsigned_32(c) and any(x.wide for x in operands):
            return t.LINT       # beside a C long (see _c_long): computed in long
        return promoted(c)

    def unary(self, e: A.Unary, expected):
        if e.op == "-" and isinstance(e.operand, A.Literal) and e.operand.kind in ("int", "real",
                                                                                  "time", "ltime"):
            lit = e.operand
            if lit.type_name is None and lit.kind in ("int", "real"):
                neg = A.Literal(kind=lit.kind, value=-lit.value, text="-" + lit.text,
                                line=lit.line, col=lit.col)
                return self.literal(neg, expected)
        code, tp = self.expr(e.operand, expected)
        c = tp.canonical
        if e.op == "NOT":
            if c.kind is K.BOOL:
                return ir.Not(code), t.BOOL
            if c.kind is K.BITS:
                return ir.Invert(code, (1 << c.bits) - 1, c), c
            self.fail(e, f"NOT needs a BOOL or bit string, not {tp.name}")
        if c.kind is K.TIME and c.signed:
            return ir.Narrow(ir.Neg(code), c), c
        if c.kind is K.REAL or (c.kind is K.INT and c.signed):
            computed = self.c_type(c, code)
            negated, _ = self.block_call("NEG", {"T": computed}, [code], e)
            if computed is not c:
                _wide(negated)
            return (self.narrow(negated, c) if e.il_result else negated), c
        self.fail(e, f"unary '-' needs a signed number or TIME, not {tp.name}")

    # -- library blocks --------------------------------------------------------
    def block_call(self, name, bound: dict, args: list, node, n=None):
        """``name`` is a library block's name, or the block type itself (a
        function handed in as an extra block need not be in the registry)."""
        # an operator's block, its ports and its types, found once per body: a long
        # body asks for the same few (ADD of INT...) tens of thousands of times
        key = (name, n, *[(k, id(v)) for k, v in bound.items()])
        found = self._blocks.get(key)
        if found is None:
            cls = name if isinstance(name, type) else self.ctx.blocks.get(name)
            if cls is None:
                self.fail(node, f"the library has no {name} block for this operation")
            block = self.ctx.block(cls, bound, n, node, self)
            # the bound types stay with the key's ids
            found = self._blocks[key] = (block, *self.ctx.ports(block), tuple(bound.values()))
        block, inputs, outputs, _bound = found
        names = dict(zip(inputs, args))
        first = None
        for port, tp in outputs:
            names[port] = temp = self.temp(tp)
            if first is None:
                first = temp
        self.emit(ir.Code(block, names))
        self.uses(block)
        return first, first.type

    def int_const(self, value: int, tp) -> ir.Const:
        """The one Const of an integer ``value`` of type ``tp`` in this body, as
        :meth:`ref` is a variable's: most literals of a long body are the same few
        numbers (the Const keeps ``tp``, and so its id, alive)."""
        key = (value, id(tp))
        const = self._consts.get(key)
        if const is None:
            const = self._consts[key] = ir.Const(value, tp)
        return const

    # -- variables ---------------------------------------------------------------
    def ref(self, var) -> ir.Ref:
        """The one Ref of ``var``: nothing changes a Ref once made, and a long body
        names the same variables again and again (100,000 statements, 400,000 reads
        and writes: 22 MB of Refs that are now a few hundred)."""
        ref = self._refs.get(id(var))
        if ref is None:
            ref = self._refs[id(var)] = ir.Ref(var)
        return ref

    def place(self, e):
        """(the place, its type, its Var or None) of a variable path; the type is
        None for an FB instance (the Var has its ``fb``)."""
        if isinstance(e, A.Name):
            var = self.lookup(e, e.name)
            return self.ref(var), var.type, var
        if isinstance(e, A.DirectVar):
            var = self.located(e)
            return self.ref(var), var.type, var
        if isinstance(e, A.Member):
            base, btp, bvar = self.place(e.base)
            if btp is None:                       # an FB instance's variable
                member = self.instance_member(bvar, e.member, e)
                return ir.Ref(member), member.type, member
            c = btp.canonical
            if c.kind is not K.STRUCT:
                self.fail(e, f"{A.dump(e.base)} is a {btp.name}, which has no member {e.member}")
            try:
                k = c.field_index(e.member)
            except KeyError:
                self.fail(e, f"{btp.name} has no field {e.member}")
            return ir.Field(base, k, c.fields[k].type), c.fields[k].type, None
        if isinstance(e, A.Index):
            base, btp, _ = self.place(e.base)
            c = btp.canonical if btp is not None else None
            if c is None or c.kind is not K.ARRAY:
                self.fail(e, f"{A.dump(e.base)} is not an array")
            if len(e.indices) != len(c.dims):
                self.fail(e, f"{btp.name} has {len(c.dims)} dimension(s), not {len(e.indices)}")
            terms, constant = self.offset(e, c)
            return ir.Elem(base, terms, constant, c.element), c.element, None
        self.fail(e, f"{A.dump(e)} is not a variable")

    def offset(self, e: A.Index, c: t.ArrayType):
        """The flat position of an element, as ``(terms, constant)`` (see
        :class:`fbd.st.ir.Elem`), each index checked against its bounds (an index
        outside them stops the scan with an error: never another element)."""
        stride = 1
        strides = []
        for lo, hi in reversed(c.dims):
            strides.append(stride)
            stride *= hi - lo + 1
        strides.reverse()
        constant = 0
        terms = []
        for idx, (lo, hi), s in zip(e.indices, c.dims, strides):
            code, tp = self.expr(idx, t.DINT)
            if tp.canonical.kind not in (K.INT, K.BITS, K.ENUM):
                self.fail(idx, f"an array index must be an integer, not {tp.name}")
            if isinstance(code, ir.Const) and type(code.value) is int:
                value = code.value
                if not lo <= value <= hi:
                    self.fail(idx, f"index {value} is outside {lo}..{hi} of {c.name}")
                constant += (value - lo) * s
                continue
            checked = self.temp(tp)
            self.emit(ir.Check(checked, code, lo, hi, self.where(idx)))
            terms.append((checked, lo, s))
        return terms, constant

    def store(self, target, code: ir.Expr, tp: t.DataType, node) -> None:
        """Assign a value of type ``tp`` to a variable path, as IEC copies it."""
        dest, dtp, var = self.place(target)
        if dtp is None:
            self.fail(node, f"{A.dump(target)} is an FB instance; assign its inputs instead")
        if var is not None and var.constant:
            self.fail(node, f"{var.name} is CONSTANT")
        if not same(tp, dtp):
            self.fail(node, f"{tp.name} cannot be assigned to {A.dump(target)}, which is {dtp.name}")
        self.emit(ir.Assign(dest, self.copied(self.narrow(code, dtp), dtp, tp)))
        self.wrote(target)

    def copied(self, code: ir.Expr, tp: t.DataType, source: t.DataType | None = None) -> ir.Expr:
        """``code`` as a store into a place of type ``tp`` hands it on: an ARRAY or
        STRUCT copied, a string of type ``source`` cut to ``tp``'s capacity."""
        c = tp.canonical
        if c.kind is K.STRING:
            return code if source is None else self.fitted(code, source, tp)
        if c.mutable:
            return ir.Copy(code, tp, deep=not (c.kind is K.ARRAY and not c.element.mutable))
        return code


__all__ = ["ExprCompiler", "same", "untyped", "Var", "promoted"]
