"""The IL lowering of a body with jumps: one CASE branch per label, in a loop
on the program counter ``__IL_PC``, the current result handed from a jump to
its label in a temporary of the type the code after the label reads it as.
"""

from __future__ import annotations

import re

from . import ast as A
from .il_instructions import ARITH_OPS, COMPARE_OPS, LOGIC_OPS, IlLowering
from .positions import pos

#: a conversion function: its input type
_CONVERSION = re.compile(r"^(BOOL|SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD|REAL|"
                         r"LREAL|TIME|DATE|TOD|DT|STRING)_TO_", re.I)
#: standard functions whose inputs and result are all of one type
_SAME_TYPE = frozenset("MAX MIN LIMIT ABS NEG MOVE ADD SUB MUL DIV MOD".split())


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
        w = pos(node)
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
            out.append(A.Assign(target=temp, value=cr, **pos(node)))
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
            base = i.op[:-1] if i.op.endswith("N") and i.op[:-1] in LOGIC_OPS else i.op
            typed = decls.type_of(i.operands[0])
            if base in ("ST", "STN") or base in COMPARE_OPS or typed is not None:
                return typed
            if base not in LOGIC_OPS and base not in ARITH_OPS:
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
                w = pos(i)
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
            out.append(A.Exit(**pos(last)))
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
        w = pos(node)
        branches = tuple(A.CaseBranch(labels=(A.Literal(kind="int", value=k, **pos(self.heads[k])),),
                                      body=tuple(bodies[k]), **pos(self.heads[k]))
                         for k in range(len(self.blocks)))
        loop = A.While(condition=A.Literal(kind="bool", value=True, text="TRUE", **w),
                       body=(A.Case(selector=A.Name(name=self.PC, **w), branches=branches, else_body=None,
                                    **w),), **w)
        return [self.pc(node, 0), loop]

