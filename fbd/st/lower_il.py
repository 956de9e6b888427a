"""Instruction List as Structured Text: an IL body becomes the ST statements
that compute the same values, so one compiler runs both languages.

The contract with :mod:`fbd.st.compile`: ``lower_il(pou, unit, filename)``
returns the POU with an :class:`~fbd.st.ast.StBody` and, when the translation
needs them, one more ``VAR_TEMP`` block of ``__IL_*`` variables (the current
result kept across a store or a jump, the program counter of a body with
jumps). Every node built carries the line and column of the IL instruction it
comes from, so errors and the debugger point at the IL source.

How: the current result (CR) is an ST *expression* built instruction by
instruction (``LD a / ADD b / MUL c`` is ``(a + b) * c``) and written out by
the stores (``ST``, ``S``, ``R``, calls), so straight-line IL is straight-line
ST, as fast. A store that changes a variable the CR still reads, a call of an
FB whose outputs it reads, or a jump, first copies the CR into a typed
temporary (its type from the declarations: the loaded operand's, as matiec
types the CR). An untyped literal takes its type from the operand it meets,
which is what the ST compiler does with ``5 + x``.

A body with jumps becomes a state machine (``WHILE`` over ``CASE __IL_PC``),
one branch per label; only then. matiec's semantics where IEC leaves room
(see docs/st.md): ``S``/``R`` of a non-BOOL variable set it to 1/0; an FB input
operator ``S1 ff`` is ``CAL ff(S1 := CR)``; a formal function call
``LIMIT( MN := 0 ... )`` does not pass the CR.
"""

from __future__ import annotations

import dataclasses
import re

from ..types import STRING_MAX
from . import ast as A
from .errors import StSemanticError

_LOGIC = {"AND": "AND", "OR": "OR", "XOR": "XOR"}
_ARITH = {"ADD": "+", "SUB": "-", "MUL": "*", "DIV": "/", "MOD": "MOD"}
_COMPARE = {"GT": ">", "GE": ">=", "EQ": "=", "NE": "<>", "LE": "<=", "LT": "<"}
_FB_INPUTS = ("S1", "R1", "CLK", "CU", "CD", "PV", "IN", "PT")
#: how deep the CR expression may grow before it is kept in its temporary: half of
#: MAX_DEPTH, the rest for the statements around it
_SPILL_DEPTH = A.MAX_DEPTH // 2
#: a conversion function: its input type
_CONVERSION = re.compile(r"^(BOOL|SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD|REAL|"
                         r"LREAL|TIME|DATE|TOD|DT|STRING)_TO_", re.I)
#: standard functions whose inputs and result are all of one type
_SAME_TYPE = frozenset("MAX MIN LIMIT ABS NEG MOVE ADD SUB MUL DIV MOD".split())
_LIBRARY_FB_TYPES = {
    "Q": "BOOL", "Q1": "BOOL", "QU": "BOOL", "QD": "BOOL", "ET": "TIME", "PT": "TIME", "IN": "BOOL",
    "CU": "BOOL", "CD": "BOOL", "R": "BOOL", "LD": "BOOL", "S": "BOOL", "S1": "BOOL", "R1": "BOOL",
    "CLK": "BOOL", "CDT": "DT", "PDT": "DT", "BUSY": "BOOL",
}
_LIBRARY_FB_INPUTS = {
    "SR": ("S1", "R"), "RS": ("S", "R1"), "R_TRIG": ("CLK",), "F_TRIG": ("CLK",),
    "TON": ("IN", "PT"), "TOF": ("IN", "PT"), "TP": ("IN", "PT"), "RTC": ("IN", "PDT"),
}


def _where(node) -> dict:
    return {"line": node.line, "col": node.col}


class Declarations:
    """What the lowering needs of the declarations: a variable's type (by
    name, as the tree spells it), an FB instance's type name, a function's
    result type. Unknown names give None: the ST analysis reports them later,
    at the same place."""

    def __init__(self, pou: A.Pou, unit: A.CompilationUnit, extra: dict | None = None):
        self.unit = unit
        self.vars: dict[str, A.TypeSpec] = {}
        for vb in pou.var_blocks:
            for d in vb.decls:
                if d.name is not None:
                    self.vars[d.name.upper()] = d.spec
        if pou.kind == "FUNCTION" and pou.return_type is not None:
            self.vars.setdefault(pou.name.upper(), pou.return_type)
        self.vars.update(extra or {})
        self.types = {t.name.upper(): t for t in unit.types}
        self.pous = {p.name.upper(): p for p in unit.pous}

    def _resolve(self, spec, hops=0):
        while isinstance(spec, A.NamedType) and spec.name.upper() in self.types and hops < 32:
            spec, hops = self.types[spec.name.upper()].spec, hops + 1
        return spec

    def fb_type(self, name: str) -> str | None:
        """The FB type name of an instance variable, else None."""
        spec = self.vars.get(name.upper())
        if isinstance(spec, A.NamedType) and spec.name.upper() not in self.types:
            upper = spec.name.upper()
            if upper in self.pous and self.pous[upper].kind == "FUNCTION_BLOCK":
                return spec.name
            if upper in _LIBRARY_FB_INPUTS or upper.startswith(("CTU", "CTD")) or upper in (
                    "SEMA", "PID", "RAMP", "HYSTERESIS", "INTEGRAL", "DERIVATIVE"):
                return spec.name
        return None

    def fb_inputs(self, fb_type: str) -> tuple[str, ...] | None:
        upper = fb_type.upper()
        pou = self.pous.get(upper)
        if pou is not None:
            return tuple(d.name for vb in pou.var_blocks if vb.kind in ("VAR_INPUT", "VAR_IN_OUT")
                         for d in vb.decls)
        if upper in _LIBRARY_FB_INPUTS:
            return _LIBRARY_FB_INPUTS[upper]
        if upper.startswith("CTUD"):
            return ("CU", "CD", "R", "LD", "PV")
        if upper.startswith("CTU"):
            return ("CU", "R", "PV")
        if upper.startswith("CTD"):
            return ("CD", "LD", "PV")
        return None

    def type_of(self, e) -> A.TypeSpec | None:
        """The declared type of an expression the CR holds, or None if the
        declarations do not say (an untyped literal)."""
        if isinstance(e, A.Name):
            return self.vars.get(e.name.upper())
        if isinstance(e, A.Literal):
            if e.type_name:
                return A.NamedType(name=e.type_name)
            return {"bool": A.NamedType(name="BOOL"), "time": A.NamedType(name="TIME"),
                    "string": A.StringType(wide=False, length=STRING_MAX)}.get(e.kind)
        if isinstance(e, A.Binary):
            if e.op in ("<", ">", "<=", ">=", "=", "<>"):
                return A.NamedType(name="BOOL")
            return self.type_of(e.left) or self.type_of(e.right)
        if isinstance(e, A.Unary):
            return self.type_of(e.operand)
        if isinstance(e, A.Member):
            return self._member_type(e)
        if isinstance(e, A.Index):
            base = self._resolve(self.type_of(e.base))
            return base.element if isinstance(base, A.ArrayType) else None
        if isinstance(e, A.Call):
            return self._call_type(e)
        return None

    def _member_type(self, e: A.Member):
        if isinstance(e.base, A.Name):
            fb = self.fb_type(e.base.name)
            if fb is not None:
                pou = self.pous.get(fb.upper())
                if pou is None:
                    name = _LIBRARY_FB_TYPES.get(e.member.upper())
                    if e.member.upper() in ("CV", "PV"):
                        suffix = fb.upper().rsplit("_", 1)
                        name = suffix[1] if len(suffix) == 2 and suffix[1] != "TRIG" else "INT"
                    return A.NamedType(name=name) if name else None
                for vb in pou.var_blocks:
                    for d in vb.decls:
                        if d.name is not None and d.name.upper() == e.member.upper():
                            return d.spec
                return None
        base = self._resolve(self.type_of(e.base))
        if isinstance(base, A.StructType):
            for d in base.members:
                if d.name.upper() == e.member.upper():
                    return d.spec
        return None

    def _call_type(self, e: A.Call):
        upper = e.name.upper()
        pou = self.pous.get(upper)
        if pou is not None:
            return pou.return_type
        if "_TO_" in upper:
            return A.NamedType(name=upper.rsplit("_TO_", 1)[1])
        if upper in ("GT", "GE", "EQ", "NE", "LE", "LT"):
            return A.NamedType(name="BOOL")
        if upper in ("LEN", "FIND"):
            return A.NamedType(name="INT")
        for a in e.args:
            if not a.output:
                found = self.type_of(a.value)
                if found is not None:
                    return found
        return None


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
            self.temps[name] = A.VarDecl(name=name, spec=spec, **_where(node))
        return A.Name(name=name, **_where(node))

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
        out.append(A.Assign(target=name, value=cr, **_where(node)))
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
        w = _where(i)
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
                    *(A.Arg(name=None, value=o, **_where(o)) for o in i.operands))
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
        return A.Unary(op="NOT", operand=cr, **_where(node)) if negated else cr

    def combine(self, op, left, left_type, right, right_type, node):
        w = _where(node)
        negate = op.endswith("N") and op[:-1] in _LOGIC
        base = op[:-1] if negate else op
        if negate:
            right = A.Unary(op="NOT", operand=right, **w)
        if base in _LOGIC:
            return A.Binary(op=_LOGIC[base], left=left, right=right, **w), left_type or right_type
        if base in _ARITH:
            # matiec keeps the result in a variable of the CR's type: cut there, each time
            return A.Binary(op=_ARITH[base], left=left, right=right, il_result=True, **w), \
                left_type or right_type
        if base in _COMPARE:
            return A.Binary(op=_COMPARE[base], left=left, right=right, **w), A.NamedType(name="BOOL")
        self.fail(node, f"{op} cannot take a parenthesised operand")

    def op(self, i: A.IlOp, out, cr, cr_type):
        op, w = i.op, _where(i)
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
        if op in _LOGIC or op[:-1] in _LOGIC or op in _ARITH or op in _COMPARE:
            return self.combine(op, self.need(cr, i), cr_type, operand, self.decls.type_of(operand), i)
        self.fail(i, f"{op} is not an IL operator this lowering knows")

    def is_string(self, target) -> bool:
        spec = self.decls._resolve(self.decls.type_of(target))
        return isinstance(spec, A.StringType) or (
            isinstance(spec, A.NamedType) and spec.name.upper() == "STRING")

    def set_value(self, target, set_):
        """What S / R write: TRUE/FALSE, or 1/0 to a non-BOOL variable (matiec)."""
        spec = self.decls._resolve(self.decls.type_of(target))
        w = _where(target)
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
            args.append(A.Arg(name=a.name, value=value, output=a.output, negated=a.negated, **_where(a)))
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
        w = _where(node)
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


def _uses_cr_first(instructions) -> bool:
    """Whether a block reads the CR before it loads one (so the CR must reach it)."""
    for i in instructions:
        if isinstance(i, (A.Pragma, A.IlLabel)) or (isinstance(i, A.IlJump) and i.op == "JMP"):
            continue
        if isinstance(i, A.IlCall) and i.op == "CAL" and not i.args:
            continue
        if isinstance(i, A.IlOp) and i.op in ("LD", "LDN"):
            return False
        if isinstance(i, A.IlFormalCall):
            return False
        if isinstance(i, A.IlReturn) and i.op == "RET":
            return False
        return True
    return False


def _untyped(cr) -> A.TypeSpec | None:
    """The type two untyped literals compute in (LINT, LREAL with a real one), as
    the ST compiler computes ``5 + 1``; None if the CR is not made of literals."""
    kinds = {n.kind for n in A.iter_nodes(cr) if isinstance(n, A.Literal)}
    if not kinds or not kinds <= {"int", "real"} or any(
            isinstance(n, (A.Name, A.Call, A.Member, A.Index)) for n in A.iter_nodes(cr)):
        return None
    return A.NamedType(name="LREAL" if "real" in kinds else "LINT")


class JumpLowering:
    """A body with jumps: one CASE branch per label, in a loop on ``__IL_PC``."""

    PC = "__IL_PC"

    def __init__(self, il: IlLowering, instructions):
        self.il = il
        self.blocks: list[list] = [[]]
        self.labels: dict[str, int] = {}
        self.heads: list = [instructions[0] if instructions else il.pou]
        for i in instructions:
            if isinstance(i, A.IlLabel):
                if i.name.upper() in self.labels:
                    il.fail(i, f"label {i.name} appears twice in this body")
                self.blocks.append([])
                self.heads.append(i)
                self.labels[i.name.upper()] = len(self.blocks) - 1
            else:
                self.blocks[-1].append(i)
        self.needs = [_uses_cr_first(b) for b in self.blocks]
        self.entry: dict[int, A.TypeSpec] = {}

    def pc(self, node, value) -> A.Assign:
        w = _where(node)
        return A.Assign(target=A.Name(name=self.PC, **w), value=A.Literal(kind="int", value=value, **w), **w)

    def edge(self, target: int, cr, cr_type, node, out):
        """Hand the CR to block ``target`` if it reads it on entry."""
        if not self.needs[target]:
            return cr, cr_type
        cr = self.il.need(cr, node)
        # an untyped literal (LD 5) takes its type from where it is used after the
        # label (ADD a), as matiec infers the CR's type across jumps
        spec = cr_type or self.il.decls.type_of(cr) or self.used_as(target) or _untyped(cr)
        if spec is None:
            self.il.fail(node, "the type of the current result is not known at this jump (an untyped "
                               "literal the code after the label does not type either); write the "
                               "literal typed, e.g. INT#5")
        known = self.entry.get(target)
        if known is not None and A.dump(known) != A.dump(spec):
            self.il.fail(node, f"the current result reaches label {self.heads[target].name} as "
                               f"{A.dump(known)} and as {A.dump(spec)}")
        self.entry[target] = spec
        temp = self.il.temp(spec, node)
        if not (isinstance(cr, A.Name) and cr.name == temp.name):
            out.append(A.Assign(target=temp, value=cr, **_where(node)))
        return temp, spec

    def used_as(self, k: int, seen=frozenset()):
        """The type block ``k`` uses the CR it is entered with as: the CR's type
        at another jump there, else the first instruction that reads the CR
        with a typed operand (``ADD a``, ``ST x``, ``GT a``), a condition (``JMPC``,
        ``S``, ``RETC``) being a BOOL; through fall-throughs and ``JMP``s. None if
        nothing says."""
        if k in self.entry:
            return self.entry[k]
        decls, boolean = self.il.decls, A.NamedType(name="BOOL")
        for i in self.blocks[k]:
            if isinstance(i, A.Pragma):
                continue
            if isinstance(i, A.IlJump):
                if i.op != "JMP":
                    return boolean
                target = self.labels.get(i.label.upper())
                return self.used_as(target, seen | {k}) if target is not None and target not in seen \
                    else None
            if isinstance(i, A.IlReturn) and i.op != "RET" or isinstance(i, A.IlCall) and i.op != "CAL":
                return boolean
            source = _CONVERSION.match(i.name) if isinstance(i, A.IlFunction) else None
            if source is not None:
                return A.NamedType(name=source.group(1).upper())
            if isinstance(i, A.IlFunction) and i.name.upper() in _SAME_TYPE:
                typed = next((decls.type_of(o) for o in i.operands if decls.type_of(o)), None)
                if typed is not None:
                    return typed
                continue        # its result has the CR's type: what follows may say which
            if not isinstance(i, A.IlOp) or i.op in ("LD", "LDN") or len(i.operands) != 1:
                return None     # loads a new CR, or reads it as nothing typed says
            if i.op in ("S", "R"):
                return boolean
            base = i.op[:-1] if i.op.endswith("N") and i.op[:-1] in _LOGIC else i.op
            typed = decls.type_of(i.operands[0])
            if base in ("ST", "STN") or base in _COMPARE or typed is not None:
                return typed
            if base not in _LOGIC and base not in _ARITH:
                return None
            # ADD 1, AND 1: the result has the CR's type, what follows may say which
        if k + 1 < len(self.blocks) and k + 1 not in seen:
            return self.used_as(k + 1, seen | {k})
        return None

    def block(self, k: int) -> list:
        il, out = self.il, []
        cr = cr_type = None
        if self.needs[k]:
            cr_type = self.entry[k]
            cr = il.temp(cr_type, self.heads[k])
        for i in self.blocks[k]:
            if isinstance(i, A.IlJump):
                target = self.labels.get(i.label.upper())
                if target is None:
                    il.fail(i, f"{i.op} {i.label}: no label {i.label} in this body")
                w = _where(i)
                if i.op == "JMP":
                    cr, cr_type = self.edge(target, cr, cr_type, i, out)
                    out += [self.pc(i, target), A.Continue(**w)]
                    return out          # what follows up to the next label is never run
                cond_cr = il.need(cr, i)
                cr, cr_type = self.edge(target, cond_cr, cr_type, i, out)
                cond = A.Unary(op="NOT", operand=cr, **w) if i.op == "JMPCN" else cr
                out.append(A.If(branches=(A.Branch(condition=cond, body=(self.pc(i, target), A.Continue(**w)),
                                                   **w),), else_body=None, **w))
            else:
                cr, cr_type = il.instruction(i, out, cr, cr_type)
        last = self.blocks[k][-1] if self.blocks[k] else self.heads[k]
        if k + 1 < len(self.blocks):
            self.edge(k + 1, cr, cr_type, last, out)
            out.append(self.pc(last, k + 1))
        else:
            out.append(A.Exit(**_where(last)))
        return out

    def lower(self, node) -> list:
        bodies: dict[int, list] = {}
        pending = list(range(len(self.blocks)))
        while pending:
            ready = [k for k in pending if not self.needs[k] or k in self.entry]
            if not ready:
                head = self.heads[pending[0]]
                self.il.fail(head, "this label reads a current result that no jump or instruction "
                                   "before it gives (matiec refuses this too: \"Data type mismatch\"); "
                                   "load a value after it (LD)")
            for k in ready:
                bodies[k] = self.block(k)
                pending.remove(k)
        w = _where(node)
        branches = tuple(A.CaseBranch(labels=(A.Literal(kind="int", value=k, **_where(self.heads[k])),),
                                      body=tuple(bodies[k]), **_where(self.heads[k]))
                         for k in range(len(self.blocks)))
        loop = A.While(condition=A.Literal(kind="bool", value=True, text="TRUE", **w),
                       body=(A.Case(selector=A.Name(name=self.PC, **w), branches=branches, else_body=None,
                                    **w),), **w)
        return [self.pc(node, 0), loop]


def lower_instructions(il: IlLowering, instructions, node) -> list:
    """The ST statements of an instruction list (a POU body or an action)."""
    if any(isinstance(i, A.IlJump) for i in instructions):
        return JumpLowering(il, instructions).lower(node)
    out: list = []
    il.run([i for i in instructions if not isinstance(i, A.IlLabel)], out)
    return out


def temp_block(il: IlLowering, extra=()) -> tuple[A.VarBlock, ...]:
    decls = tuple(il.temps.values()) + tuple(extra)
    return (A.VarBlock(kind="VAR", qualifier=None, decls=decls),) if decls else ()


def lower_il(pou: A.Pou, unit: A.CompilationUnit, filename: str = "<input>") -> A.Pou:
    """``pou`` (whose body is an :class:`~fbd.st.ast.IlBody`) with an equivalent
    :class:`~fbd.st.ast.StBody`, and any variables the translation needs declared."""
    il = IlLowering(Declarations(pou, unit), pou, filename)
    instructions = pou.body.instructions
    statements = lower_instructions(il, instructions, pou.body if instructions else pou)
    extra = ()
    if any(isinstance(i, A.IlJump) for i in instructions):
        extra = (A.VarDecl(name=JumpLowering.PC, spec=A.NamedType(name="INT"), **_where(pou)),)
    body = A.StBody(statements=tuple(statements), **_where(pou.body))
    return dataclasses.replace(pou, var_blocks=pou.var_blocks + temp_block(il, extra), body=body)


__all__ = ["lower_il", "Declarations", "IlLowering", "lower_instructions"]
