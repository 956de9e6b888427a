"""The IL lowering of an instruction list without jumps: the current result
(CR) grown as an ST expression instruction by instruction, and written out by
the stores and calls (:mod:`fbd.st.lower_il` says how and why).
"""

from __future__ import annotations

import dataclasses

from . import ast as A
from .errors import StSemanticError
from .il_declarations import Declarations
from .positions import pos

LOGIC_OPS = {"AND": "AND", "OR": "OR", "XOR": "XOR"}
ARITH_OPS = {"ADD": "+", "SUB": "-", "MUL": "*", "DIV": "/", "MOD": "MOD"}
COMPARE_OPS = {"GT": ">", "GE": ">=", "EQ": "=", "NE": "<>", "LE": "<=", "LT": "<"}
_FB_INPUTS = ("S1", "R1", "CLK", "CU", "CD", "PV", "IN", "PT")
#: how deep the CR expression may grow before it is kept in its temporary: half of
#: MAX_DEPTH, the rest for the statements around it
_SPILL_DEPTH = A.MAX_DEPTH // 2


def reads(e) -> set[str]:
    """The upper-cased root names an expression reads."""
    out = set()
    for n in A.iter_nodes(e):
        if isinstance(n, A.Name):
            out.add(n.name.upper())
    return out


def root(target) -> str | None:
    while isinstance(target, (A.Member, A.Index)):
        target = target.base
    return target.name.upper() if isinstance(target, A.Name) else None


class IlLowering:
    """Turns one instruction list into ST statements (see the module docstring)."""

    def __init__(self, decls: Declarations, pou: A.Pou, filename: str):
        self.decls = decls
        self.pou = pou
        self.filename = filename
        self.temps: dict[str, A.VarDecl] = {}
        self._depths: dict[int, tuple] = {}     # id(node) -> (node, its depth)

    # -- helpers -------------------------------------------------------------------
    def fail(self, node, message: str):
        raise StSemanticError(message, filename=self.filename, line=node.line, col=node.col,
                              pou=f"{self.pou.kind} {self.pou.name}")

    def temp(self, spec, node) -> A.Name:
        text = A.dump(spec) if not isinstance(spec, A.StringType) else f"STRING{spec.length}"
        key = "".join(c if c.isalnum() else "_" for c in text.upper())
        name = f"__IL_CR_{key}"
        if name not in self.temps:
            self.temps[name] = A.VarDecl(name=name, spec=spec, **pos(node))
        return A.Name(name=name, **pos(node))

    def materialize(self, cr, cr_type, node, out, spec=None):
        """The CR as a temporary, its value copied there now."""
        if cr is None or isinstance(cr, (A.Literal, A.EnumLiteral)) or (
                isinstance(cr, A.Name) and cr.name.startswith("__IL_CR_")):
            return cr, cr_type
        spec = spec or cr_type or self.decls.type_of(cr)
        if spec is None:
            self.fail(node, "the type of the current result is not known here (an untyped literal "
                            "kept across a store or jump); write it typed, e.g. INT#5")
        name = self.temp(spec, node)
        out.append(A.Assign(target=name, value=cr, **pos(node)))
        return name, spec

    def need(self, cr, node):
        if cr is None:
            self.fail(node, f"{getattr(node, 'op', None) or getattr(node, 'name', 'this')} needs a current "
                            "result: load one first (LD)")
        return cr

    # -- instruction lists -------------------------------------------------------------
    def run(self, instructions, out: list, cr=None, cr_type=None):
        """Lower a list without labels or jumps into ``out``; returns the final
        (CR expression, CR type)."""
        for i in instructions:
            cr, cr_type = self.instruction(i, out, cr, cr_type)
        return cr, cr_type

    def instruction(self, i, out, cr, cr_type):
        cr, cr_type = self._instruction(i, out, cr, cr_type)
        if cr is not None and self.depth(cr) > _SPILL_DEPTH:
            # a long run without a store would nest past fbd.st.MAX_DEPTH (20,000 ADDs
            # overflowed Python's stack): the CR is kept in its temporary there, which
            # cuts it to its type as matiec's CR variable does after every instruction
            if (cr_type or self.decls.type_of(cr)) is None:
                self.fail(i, f"{_SPILL_DEPTH} instructions on untyped literals in a row: the current "
                             f"result must be kept in a variable of its type here, which is not known; "
                             f"write the first literal typed, e.g. INT#5")
            cr, cr_type = self.materialize(cr, cr_type, i, out)
        return cr, cr_type

    def depth(self, e) -> int:
        """How deep the expression ``e`` nests; memoised, so each instruction costs
        the few nodes it adds (the CR below it is known)."""
        known = self._depths.get(id(e))
        if known is not None and known[0] is e:
            return known[1]
        d = 1 + max((self.depth(c) for c in A.children(e)), default=0)
        self._depths[id(e)] = (e, d)
        return d

    def _instruction(self, i, out, cr, cr_type):
        w = pos(i)
        if isinstance(i, A.Pragma):
            return cr, cr_type
        if isinstance(i, A.IlOp):
            return self.op(i, out, cr, cr_type)
        if isinstance(i, A.IlDeferred):
            left = self.need(cr, i)
            inner: list = []
            sub, sub_type = self.run(i.body, inner, i.operand, self.decls.type_of(i.operand)
                                     if i.operand is not None else None)
            if inner:
                written = set().union(*(_writes(s) for s in inner))
                if reads(left) & written or any(isinstance(s, A.Invoke) for s in inner):
                    left, cr_type = self.materialize(left, cr_type, i, out)
                out.extend(inner)
            sub = self.need(sub, i)
            return self.combine(i.op, left, cr_type, sub, sub_type, i)
        if isinstance(i, A.IlFunction):
            args = (A.Arg(name=None, value=self.need(cr, i), **w),
                    *(A.Arg(name=None, value=o, **pos(o)) for o in i.operands))
            call = A.Call(name=i.name, args=args, **w)
            return call, self.decls.type_of(call)
        if isinstance(i, A.IlFormalCall):
            args = self.args(i.args, out)
            call = A.Call(name=i.name, args=args, **w)
            spec = self.decls.type_of(call)
            if any(a.output for a in args):
                return self.materialize(call, spec, i, out)
            return call, spec
        if isinstance(i, A.IlCall):
            return self.call(i, out, cr, cr_type)
        if isinstance(i, A.IlReturn):
            ret = A.Return(**w)
            if i.op == "RET":
                out.append(ret)
            else:
                out.append(A.If(branches=(A.Branch(condition=self.condition(i.op == "RETCN", cr, i),
                                                   body=(ret,), **w),), else_body=None, **w))
            return cr, cr_type
        if isinstance(i, (A.IlLabel, A.IlJump)):
            self.fail(i, "a label or jump is not supported here (only in a POU's or an action's own "
                         "instruction list)")
        self.fail(i, f"{type(i).__name__} is not an IL instruction this lowering knows")

    def condition(self, negated, cr, node):
        cr = self.need(cr, node)
        return A.Unary(op="NOT", operand=cr, **pos(node)) if negated else cr

    def combine(self, op, left, left_type, right, right_type, node):
        w = pos(node)
        negate = op.endswith("N") and op[:-1] in LOGIC_OPS
        base = op[:-1] if negate else op
        if negate:
            right = A.Unary(op="NOT", operand=right, **w)
        if base in LOGIC_OPS:
            return A.Binary(op=LOGIC_OPS[base], left=left, right=right, **w), left_type or right_type
        if base in ARITH_OPS:
            # matiec keeps the result in a variable of the CR's type: cut there, each time
            return A.Binary(op=ARITH_OPS[base], left=left, right=right, il_result=True, **w), \
                left_type or right_type
        if base in COMPARE_OPS:
            return A.Binary(op=COMPARE_OPS[base], left=left, right=right, **w), A.NamedType(name="BOOL")
        self.fail(node, f"{op} cannot take a parenthesised operand")

    def op(self, i: A.IlOp, out, cr, cr_type):
        op, w = i.op, pos(i)
        if op == "NOT":
            return A.Unary(op="NOT", operand=self.need(cr, i), **w), cr_type
        if len(i.operands) != 1:
            self.fail(i, f"{op} takes one operand")
        operand = i.operands[0]
        if op in ("LD", "LDN"):
            spec = self.decls.type_of(operand)
            if op == "LDN":
                return A.Unary(op="NOT", operand=operand, **w), spec
            return operand, spec
        fb = self.decls.fb_type(operand.name) if isinstance(operand, A.Name) else None
        if op in _FB_INPUTS or (op in ("S", "R") and fb is not None):
            if fb is None:
                self.fail(operand, f"{op} takes an FB instance (it sets that input and calls the block)")
            cr, cr_type = self.safe_from(operand.name.upper(), self.need(cr, i), cr_type, i, out)
            arg = A.Arg(name=op, value=cr, **w)
            return self.invoke(operand.name, (arg,), out, cr, cr_type, i, None)
        if op in ("ST", "STN", "S", "R"):
            cr = self.need(cr, i)
            target_root = root(operand)
            if op == "ST" and isinstance(operand, A.Name) and not self.is_string(operand):
                # the variable now holds the CR's value: read it from there (a string
                # may hold less, cut to its own capacity: the CR keeps it whole)
                out.append(A.Assign(target=operand, value=cr, **w))
                return operand, self.decls.type_of(operand) or cr_type
            cr, cr_type = self.safe_from(target_root, cr, cr_type, i, out,
                                         A.NamedType(name="BOOL") if op in ("S", "R") else None)
            if op == "ST":
                out.append(A.Assign(target=operand, value=cr, **w))
                return cr, cr_type
            if op == "STN":
                out.append(A.Assign(target=operand, value=A.Unary(op="NOT", operand=cr, **w), **w))
                return cr, cr_type
            value = self.set_value(operand, op == "S")
            assign = A.Assign(target=operand, value=value, **w)
            out.append(A.If(branches=(A.Branch(condition=cr, body=(assign,), **w),), else_body=None, **w))
            return cr, cr_type
        if op in LOGIC_OPS or op[:-1] in LOGIC_OPS or op in ARITH_OPS or op in COMPARE_OPS:
            return self.combine(op, self.need(cr, i), cr_type, operand, self.decls.type_of(operand), i)
        self.fail(i, f"{op} is not an IL operator this lowering knows")

    def is_string(self, target) -> bool:
        spec = self.decls.resolve(self.decls.type_of(target))
        return isinstance(spec, A.StringType) or (
            isinstance(spec, A.NamedType) and spec.name.upper() == "STRING")

    def set_value(self, target, set_):
        """What S / R write: TRUE/FALSE, or 1/0 to a non-BOOL variable (matiec)."""
        spec = self.decls.resolve(self.decls.type_of(target))
        w = pos(target)
        if isinstance(spec, A.NamedType) and spec.name.upper() not in ("BOOL", None):
            return A.Literal(kind="int", value=1 if set_ else 0, **w)
        return A.Literal(kind="bool", value=set_, text="TRUE" if set_ else "FALSE", **w)

    def args(self, il_args, out) -> tuple[A.Arg, ...]:
        args = []
        for a in il_args:
            value = a.value
            if a.body is not None:
                value, _ = self.run(a.body, out)
                value = self.need(value, a)
            args.append(A.Arg(name=a.name, value=value, output=a.output, negated=a.negated, **pos(a)))
        return tuple(args)

    def call(self, i: A.IlCall, out, cr, cr_type):
        args = self.args(i.args, out)
        if args and all(a.name is None for a in args):
            fb = self.decls.fb_type(i.fb)
            names = self.decls.fb_inputs(fb) if fb is not None else None
            if names is not None:
                if len(args) > len(names):
                    self.fail(i, f"{i.fb} takes {len(names)} input(s); {len(args)} given")
                args = tuple(dataclasses.replace(a, name=n) for a, n in zip(args, names))
        cond = None if i.op == "CAL" else self.condition(i.op == "CALCN", cr, i)
        return self.invoke(i.fb, args, out, cr, cr_type, i, cond)

    def safe_from(self, name, cr, cr_type, node, out, spec=None):
        """The CR, copied to a temporary first if it reads ``name`` (about to change)."""
        if cr is not None and name in reads(cr):
            return self.materialize(cr, cr_type, node, out, spec)
        return cr, cr_type

    def invoke(self, fb, args, out, cr, cr_type, node, cond):
        w = pos(node)
        cr, cr_type = self.safe_from(fb.upper(), cr, cr_type, node, out)
        if cond is not None and cr is not None:
            cond = self.condition(getattr(node, "op", "") == "CALCN", cr, node)
        stmt = A.Invoke(name=fb, args=args, **w)
        if cond is not None:
            stmt = A.If(branches=(A.Branch(condition=cond, body=(stmt,), **w),), else_body=None, **w)
        out.append(stmt)
        return cr, cr_type


def _writes(stmt) -> set[str]:
    out = set()
    for n in A.iter_nodes(stmt):
        if isinstance(n, A.Assign):
            r = root(n.target)
            if r:
                out.add(r)
        elif isinstance(n, A.Arg) and n.output:
            r = root(n.value)
            if r:
                out.add(r)
    return out

