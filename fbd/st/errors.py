"""Errors of the text languages: each names file, line, column and POU, and
quotes the source line it is about (at most about 200 characters), on one line."""

from __future__ import annotations

from ..errors import FbdError

EXCERPT_MAX = 200

__all__ = ["StError", "StSyntaxError", "StNestingError", "StSemanticError", "StWarning", "Reporter",
           "excerpt_of"]


class StError(FbdError):
    """A problem in IEC 61131-3 source text, at ``filename:line:col``.

    ``message`` is the bare explanation; ``pou`` (e.g. ``"PROGRAM main"``) the
    POU it is in, if any; ``excerpt`` the quoted source, trimmed around the column.
    ``str()`` joins them into one line::

        main.st:12:9: in PROGRAM main: unexpected ';', expected an expression: "x := 1 + ;"
    """

    def __init__(self, message: str, *, filename: str = "<input>", line: int = 0, col: int = 0,
                 pou: str | None = None, source: str | None = None, excerpt: str | None = None):
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.pou = pou
        self.excerpt = excerpt if excerpt is not None else excerpt_of(source, line, col)
        super().__init__(self._format())

    def _format(self) -> str:
        where = f"{self.filename}:{self.line}:{self.col}" if self.line else self.filename
        text = f"{where}: "
        if self.pou:
            text += f"in {self.pou}: "
        text += self.message
        if self.excerpt:
            text += f': "{self.excerpt}"'
        return text


class StSyntaxError(StError):
    """The text does not follow the grammar (or a literal is malformed)."""


class StNestingError(StSyntaxError):
    """Statements or expressions nested deeper than the parser accepts."""


class StSemanticError(StError):
    """Well-formed text that breaks a declaration rule: an undeclared or
    duplicate name, an assignment to a constant, a section used wrongly.

    ``problems`` holds every error found (this one first); the message says
    how many more there are.
    """

    def __init__(self, message: str, *, more: int = 0, **where):
        self.more = more
        self.problems: list[StSemanticError] = [self]
        super().__init__(message, **where)

    def _format(self) -> str:
        text = super()._format()
        if self.more:
            text += f" (and {self.more} more problem{'s' if self.more > 1 else ''})"
        return text


def excerpt_of(source: str | None, line: int, col: int, starts: list[int] | None = None) -> str:
    """The source line ``line``, stripped, cut to about EXCERPT_MAX characters
    around column ``col`` (with '...' where cut), control characters shown as spaces.
    ``starts``, where each line starts (:func:`line_starts`), saves looking for it."""
    if not source or line < 1:
        return ""
    if starts is not None:
        if line > len(starts):
            return ""
        start = starts[line - 1]
    else:
        start = 0
        for _ in range(line - 1):
            start = source.find("\n", start)
            if start < 0:
                return ""
            start += 1
    end = source.find("\n", start)
    end = end if end >= 0 else len(source)
    if end - start > 4 * EXCERPT_MAX:   # a line megabytes long: copy only the column's part
        lo = max(start, start + col - 1 - 2 * EXCERPT_MAX)
        hi = min(end, lo + 4 * EXCERPT_MAX)
        cut = excerpt_of(source[lo:hi], 1, col - (lo - start))
        return ("..." if lo > start and not cut.startswith("...") else "") + cut + \
            ("..." if hi < end and not cut.endswith("...") else "")
    text = source[start:end]
    text = "".join(c if c >= " " else " " for c in text)
    stripped = text.lstrip()
    col -= len(text) - len(stripped)
    text = stripped.rstrip()
    if len(text) <= EXCERPT_MAX:
        return text
    half = EXCERPT_MAX // 2
    lo = max(0, min(col - 1 - half, len(text) - EXCERPT_MAX))
    cut = text[lo:lo + EXCERPT_MAX]
    return ("..." if lo > 0 else "") + cut + ("..." if lo + EXCERPT_MAX < len(text) else "")


def line_starts(source: str) -> list[int]:
    """The offset where each line of ``source`` starts."""
    starts = [0]
    find = source.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


class StWarning(StError):
    """Something matiec accepts that is likely a mistake; never raised,
    collected in :attr:`fbd.st.symbols.Analysis.warnings`."""


class Reporter:
    """Collects errors and warnings with their places; raises them together."""

    def __init__(self, unit):
        self.unit = unit
        self.errors: list[StSemanticError] = []
        self.warnings: list[StWarning] = []
        self._seen: set = set()
        self._starts: list[int] | None = None   # made at the first problem: thousands are no slower

    def _where(self, node, pou):
        line, col = getattr(node, "line", 0), getattr(node, "col", 0)
        if self._starts is None and self.unit.source:
            self._starts = line_starts(self.unit.source)
        return {"filename": self.unit.filename, "line": line, "col": col, "pou": pou,
                "excerpt": excerpt_of(self.unit.source, line, col, self._starts)}

    def error(self, node, message: str, pou: str | None = None) -> None:
        # a problem with a shared part ("a, b : T") is said once
        mark = (getattr(node, "line", 0), getattr(node, "col", 0), message)
        if mark in self._seen:
            return
        self._seen.add(mark)
        self.errors.append(StSemanticError(message, **self._where(node, pou)))

    def warn(self, node, message: str, pou: str | None = None) -> None:
        self.warnings.append(StWarning(message, **self._where(node, pou)))

    def sorted_errors(self) -> list[StSemanticError]:
        return sorted(self.errors, key=lambda e: (e.line, e.col))

    def raise_errors(self) -> None:
        if not self.errors:
            return
        problems = self.sorted_errors()
        first = problems[0]
        raised = StSemanticError(first.message, more=len(problems) - 1, filename=first.filename,
                                 line=first.line, col=first.col, pou=first.pou, excerpt=first.excerpt)
        raised.problems = [raised, *problems[1:]]
        raise raised


