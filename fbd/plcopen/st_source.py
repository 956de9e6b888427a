"""Where the parts of a ``.st`` file's POUs stand in its text, so the export
writes a body as its author wrote it (comments, layout, spelling kept).

The syntax tree says where a construct *starts* (line, column), not where it
ends; the ends are found here by reading the words after that start, outside
comments, pragmas and strings (the lexer's rules: comments do not nest):

* a POU's body runs from the ``END_VAR`` closing its last declaration block
  (or from its first statement when it declares nothing) to its
  ``END_PROGRAM`` / ``END_FUNCTION_BLOCK`` / ``END_FUNCTION``;
* an SFC action's body from after ``ACTION name :`` to its ``END_ACTION``;
* a transition's condition from after its ``:=`` (or ``:`` for IL) to its
  ``END_TRANSITION``.

Each text is given dedented, without its blank first and last lines: what
the editors show in the POU's body.
"""

from __future__ import annotations

import re
import textwrap

from ..st import ast as A

_SKIP = re.compile(r"\(\*[\s\S]*?\*\)|//[^\n]*|\{\{[\s\S]*?\}\}|\{[^}]*\}|'(?:\$.|[^'$])*'"
                   r'|"(?:\$.|[^"$])*"|\s+')
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|:=|.", re.S)


class SourceText:
    """The text of one ``.st`` file, read by the positions of its syntax tree."""

    def __init__(self, text: str):
        self.text = text
        self._starts = [0]
        for m in re.finditer("\n", text):
            self._starts.append(m.end())

    def offset(self, node: A.Node) -> int:
        """Where ``node`` starts in the text (its line and column)."""
        line = min(max(node.line, 1), len(self._starts))
        return self._starts[line - 1] + max(node.col, 1) - 1

    def words(self, start: int):
        """(WORD upper-cased, start, end) from ``start`` on, outside comments,
        pragmas and strings."""
        pos, text = start, self.text
        while pos < len(text):
            skip = _SKIP.match(text, pos)
            if skip is not None and skip.end() > pos:
                pos = skip.end()
                continue
            m = _WORD.match(text, pos)
            yield m.group(0).upper(), m.start(), m.end()
            pos = m.end()

    def find(self, start: int, *wanted: str) -> tuple[int, int] | None:
        """(start, end) of the first word in ``wanted`` at or after ``start``."""
        for word, a, b in self.words(start):
            if word in wanted:
                return a, b
        return None

    # ------------------------------------------------------------------ parts
    def pou_body(self, pou: A.Pou) -> str:
        """The text of ``pou``'s body (see the module docstring)."""
        end_word = f"END_{pou.kind}"
        if pou.var_blocks:
            closing = self.find(self.offset(pou.var_blocks[-1]), "END_VAR")
            start = closing[1] if closing is not None else self.offset(pou)
        else:
            first = _first_node(pou.body)
            start = self.offset(first) if first is not None else None
            if start is None:
                return ""
        end = self.find(start, end_word)
        return clean(self.text[start:end[0] if end is not None else len(self.text)])

    def action_body(self, action: A.Action) -> str:
        """The statements of an SFC ``ACTION name : ... END_ACTION``."""
        start = self.offset(action)
        colon = self.find(start, ":")
        start = colon[1] if colon is not None else start
        end = self.find(start, "END_ACTION")
        return clean(self.text[start:end[0] if end is not None else len(self.text)])

    def condition(self, transition: A.Transition) -> str:
        """A transition's condition as written: the expression after ``:=`` (its
        ``;`` dropped), or the IL instructions after ``:``."""
        start = self.offset(transition)
        depth = 0
        for word, _a, b in self.words(start):
            if word == "(":
                depth += 1
            elif word == ")":
                depth -= 1
            elif depth == 0 and word in (":=", ":"):
                start = b
                break
        end = self.find(start, "END_TRANSITION")
        text = clean(self.text[start:end[0] if end is not None else len(self.text)])
        if not isinstance(transition.condition, A.IlBody):
            text = text.rstrip()
            if text.endswith(";"):
                text = text[:-1].rstrip()
        return text


def clean(text: str) -> str:
    """``text`` without its blank first and last lines, dedented; what follows the
    word before it on its first line (a comment after ``END_VAR``) starts its line."""
    lines = text.split("\n")
    if lines and lines[0].strip():
        lines[0] = lines[0].lstrip()
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return textwrap.dedent("\n".join(line.rstrip() for line in lines))


def _first_node(body) -> A.Node | None:
    items = getattr(body, "statements", None) or getattr(body, "instructions", None)
    return items[0] if items else None


__all__ = ["SourceText", "clean"]
