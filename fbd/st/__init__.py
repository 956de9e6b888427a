"""IEC 61131-3 textual languages: Structured Text, Instruction List and textual SFC.

``parse(text, filename)`` reads a whole ``.st`` file into a
:class:`~fbd.st.ast.CompilationUnit`; ``parse_body(text, language)`` one POU
body as PLCopen XML carries it. The tree is described in :mod:`fbd.st.ast`.
``analyze(unit)`` checks the declarations and resolves every name
(:mod:`fbd.st.semantic`); ``python -m fbd.st.bench`` times it all. The
syntax accepted, and where it follows matiec, is in docs/st.md.
"""

from .ast import MAX_DEPTH, dump, iter_nodes
from .errors import StError, StNestingError, StSemanticError, StSyntaxError, StWarning
from .parser import LANGUAGES, parse, parse_body, parse_expression
from .semantic import analyze
from .stdlib import STANDARD, Library, LibraryPou
from .symbols import Analysis, PouScope, Symbol

__all__ = ["parse", "parse_body", "parse_expression", "analyze", "LANGUAGES", "dump", "iter_nodes",
           "MAX_DEPTH", "Analysis", "PouScope", "Symbol", "Library", "LibraryPou", "STANDARD",
           "StError", "StSyntaxError", "StNestingError", "StSemanticError", "StWarning"]
