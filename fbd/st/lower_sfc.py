"""Sequential Function Charts as Structured Text: steps, transitions and action
qualifiers become ST statements over step and action flags, so one compiler
runs every language.

Not written yet: ``lower_sfc`` refuses every SFC body, naming it.
"""

from __future__ import annotations

from . import ast
from .errors import StSemanticError


def lower_sfc(pou: ast.Pou, unit: ast.CompilationUnit, filename: str = "<input>") -> ast.Pou:
    """``pou`` (whose body is an :class:`~fbd.st.ast.SfcBody`) with an equivalent
    :class:`~fbd.st.ast.StBody`, and the step and action variables declared."""
    raise StSemanticError("SFC bodies cannot be run yet", filename=filename, line=pou.line,
                          col=pou.col, pou=f"{pou.kind} {pou.name}")


__all__ = ["lower_sfc"]
