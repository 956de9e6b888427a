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

Where: the declarations as the lowering reads them are
:mod:`fbd.st.il_declarations`, the instructions of a list without jumps
:mod:`fbd.st.il_instructions`, a body with jumps :mod:`fbd.st.il_jumps`; this
module puts them together for a POU's body (and, for :mod:`fbd.st.lower_sfc`,
an action's).
"""

from __future__ import annotations

import dataclasses

from . import ast as A
from .il_declarations import Declarations
from .il_instructions import IlLowering
from .il_jumps import JumpLowering
from .positions import pos


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
        extra = (A.VarDecl(name=JumpLowering.PC, spec=A.NamedType(name="INT"), **pos(pou)),)
    body = A.StBody(statements=tuple(statements), **pos(pou.body))
    return dataclasses.replace(pou, var_blocks=pou.var_blocks + temp_block(il, extra), body=body)


__all__ = ["lower_il", "lower_instructions", "temp_block"]
