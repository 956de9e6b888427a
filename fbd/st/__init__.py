"""IEC 61131-3 textual languages: Structured Text, Instruction List and textual SFC.

``parse(text, filename)`` reads a whole ``.st`` file into a
:class:`~fbd.st.ast.CompilationUnit`; ``parse_body(text, language)`` one POU
body as PLCopen XML carries it. The tree is described in :mod:`fbd.st.ast`.
``analyze(unit)`` checks the declarations and resolves every name
(:mod:`fbd.st.semantic`); ``compile_unit(unit)`` makes every POU a block type
(:mod:`fbd.st.compile`, whose docstring is the compiler API) and ``load(path)``
a ``.st`` file a project (:mod:`fbd.st.project`); ``python -m fbd.st.bench`` times it all. The
syntax accepted, and where it follows matiec, is in docs/st.md.
"""

from .ast import MAX_DEPTH, dump, iter_nodes
from .compile import CompiledUnit, Context, compile_pou, compile_unit
from .errors import StError, StNestingError, StSemanticError, StSyntaxError, StWarning
from .live import live_source
from .parser import LANGUAGES, parse, parse_body, parse_expression
from .project import load
from .semantic import analyze
from .stdlib import STANDARD, Library, LibraryPou
from .symbols import Analysis, PouScope, Symbol

__all__ = ["parse", "parse_body", "parse_expression", "analyze", "LANGUAGES", "dump", "iter_nodes",
           "MAX_DEPTH", "Analysis", "PouScope", "Symbol", "Library", "LibraryPou", "STANDARD",
           "StError", "StSyntaxError", "StNestingError", "StSemanticError", "StWarning",
           "compile_unit", "compile_pou", "Context", "CompiledUnit", "load", "live_source"]
