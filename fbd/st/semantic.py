"""The semantic layer: declarations collected and checked, every name resolved.

:func:`analyze` takes a parsed unit and returns an :class:`~fbd.st.symbols.Analysis`,
or raises :class:`~fbd.st.errors.StSemanticError` naming the first problem
(its ``problems`` lists them all). What it checks, matiec's rules where the
standard leaves room:

* names: unique (case-insensitively) among the unit's types, POUs and
  configurations, within each POU, enumeration, structure, chart and
  resource; not the name of a library function or FB (matiec refuses
  ``VAR max : INT``); every name used is declared;
* sections: which POU may declare which section (a FUNCTION only inputs,
  outputs, in-outs and VAR [CONSTANT]; VAR_GLOBAL only in a configuration or
  resource; AT %IX0.0 only in a PROGRAM's VAR or a VAR_GLOBAL), which
  qualifier a section takes, no initial value in VAR_IN_OUT, VAR_EXTERNAL and
  VAR_TEMP, an initial value is a literal, R_EDGE/F_EDGE only on inputs, EN an
  input and ENO an output;
* writes (assignments, ``=>`` outputs, IL ST/S/R): never to a constant, an FB
  instance's output, a step flag, a FOR variable inside its loop, or anything
  that is not a variable; writing a POU's own input is a warning (matiec
  allows it);
* calls: a function in an expression, an FB instance or function as a
  statement, formal argument names the callee has; members an FB instance or
  structure has; EXIT and CONTINUE only in a loop; a direct address in a body
  is declared with AT somewhere;
* SFC: an initial step, transitions between declared steps, associations
  naming an action or a BOOL variable; IL: jumps to labels of the body;
* configurations: tasks and program types exist, connections name the
  program's inputs and outputs, every VAR_EXTERNAL of an instantiated
  program (and of the FBs it holds) has its VAR_GLOBAL, CONSTANT if that is;
* limits (:mod:`fbd.st.limits`): how deep POUs hold or call one another, how
  many values a POU instance and a configuration hold.

Types are referred to by name only; expression types are the next stage's.
"""

from __future__ import annotations

from itertools import islice

from . import ast as A
from .configure import check_configurations
from .declare import declare_globals, declare_pou
from .errors import Reporter
from .limits import check_limits
from .resolve import resolve_pou
from .stdlib import EMPTY, STANDARD, Library
from .symbols import Analysis, key

__all__ = ["analyze"]


def analyze(unit: A.CompilationUnit, *, library: Library | None = STANDARD, check: bool = True) -> Analysis:
    """Collect and check the declarations of ``unit`` and resolve its bodies.

    ``library`` provides the names used without a declaration (the standard
    functions and FBs; :data:`fbd.st.stdlib.EMPTY` to analyse a library's own
    source). With ``check`` (the default) the first error is raised; without,
    errors are left in ``Analysis.errors``. Warnings are in ``Analysis.warnings``.
    """
    library = library if library is not None else EMPTY
    report = Reporter(unit)
    analysis = Analysis(unit=unit, library=library)
    declare_globals(analysis, report)
    for pou in unit.pous:
        scope = declare_pou(analysis, pou, report)
        if scope is not None:
            analysis.pous.setdefault(key(pou.name), scope)
    analysis.addresses = _addresses(unit)
    resolved = analysis.resolved
    for k, scope in analysis.pous.items():
        before = len(resolved)
        resolve_pou(analysis, scope, report)
        # what this body resolved is the end of the (insertion-ordered) dict: its
        # calls of POUs are found there, not by another walk of the whole tree
        # (which was most of the analysis of a long body)
        added = islice(reversed(resolved.items()), len(resolved) - before)
        calls = [node for node, symbol in added if symbol.kind == "pou"]
        calls.reverse()
        analysis.pou_calls[k] = calls
    check_configurations(analysis, report)
    check_limits(analysis, report)
    analysis.errors = report.sorted_errors()
    analysis.warnings = sorted(report.warnings, key=lambda w: (w.line, w.col))
    if check:
        report.raise_errors()
    return analysis


def _addresses(unit: A.CompilationUnit) -> set[str]:
    """Every address given with AT, in POUs and configurations (a body may
    use a direct address that any declaration names)."""
    blocks = [b for p in unit.pous for b in p.var_blocks]
    for c in unit.configurations:
        blocks += c.var_blocks
        blocks += [b for r in c.resources for b in r.var_blocks]
    found = {d.location.text.upper() for b in blocks for d in b.decls if d.location is not None}
    found |= {i.location.text.upper() for c in unit.configurations for i in c.var_config if i.location}
    return found
