"""IEC 61131-3 textual languages: Structured Text, Instruction List and textual SFC.

``parse(text, filename)`` reads a whole ``.st`` file into a
:class:`~fbd.st.ast.CompilationUnit`; ``parse_body(text, language)`` one POU
body as PLCopen XML carries it. The tree is described in :mod:`fbd.st.ast`.
"""

from .ast import MAX_DEPTH, dump, iter_nodes
from .errors import StError, StNestingError, StSemanticError, StSyntaxError
from .parser import LANGUAGES, parse, parse_body, parse_expression

__all__ = ["parse", "parse_body", "parse_expression", "LANGUAGES", "dump", "iter_nodes", "MAX_DEPTH",
           "StError", "StSyntaxError", "StNestingError", "StSemanticError"]
