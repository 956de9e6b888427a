"""Instruction List as Structured Text: an IL body becomes the ST statements
that compute the same values, so one compiler runs both languages.

Not written yet: ``lower_il`` refuses every IL body, naming it.
"""

from __future__ import annotations

from . import ast
from .errors import StSemanticError


def lower_il(pou: ast.Pou, unit: ast.CompilationUnit, filename: str = "<input>") -> ast.Pou:
    """``pou`` (whose body is an :class:`~fbd.st.ast.IlBody`) with an equivalent
    :class:`~fbd.st.ast.StBody`, and any variables the translation needs declared."""
    raise StSemanticError("IL bodies cannot be run yet", filename=filename, line=pou.line,
                          col=pou.col, pou=f"{pou.kind} {pou.name}")


__all__ = ["lower_il"]
