"""Generated Python compiled a few functions at a time.

CPython holds a whole module's syntax tree while it compiles it, about 130
bytes per byte of source: a chunk holding a long ST body's functions (6 MB
for 20,000 statements) took 800 MB at once. So a long source is compiled
in runs of whole functions of about :data:`COMPILE_BYTES` each, every run's
code at the lines its functions have in the whole text (tracebacks and
:meth:`fbd.compiler.pycode.ScanProgram.block_at` read them).
"""

from __future__ import annotations

from types import CodeType

#: source compiled at once at most, but for one function's own (a run's functions)
COMPILE_BYTES = 256 * 1024


def compile_functions(sources: list[str], filename: str) -> tuple:
    """The code of the functions ``sources`` (each one function's text), in runs
    of whole functions of about :data:`COMPILE_BYTES` each, each at its lines in ``"\\n".join(sources)``.
    ``sources`` is emptied as it goes: a function's text is let go once it is
    compiled, so the text and the code of a long ST body (23 MB of source for
    100,000 statements) are not held at once."""
    codes, line = [], 0
    sources.reverse()
    while sources:
        run, size = [], 0
        while sources and (not run or size + len(sources[-1]) <= COMPILE_BYTES):
            run.append(sources.pop())
            size += len(run[-1])
        text = "\n".join(run)
        del run
        codes.append(_at_line(compile(text, filename, "exec"), line))
        line += text.count("\n") + 1
    return tuple(codes)


def _at_line(code: CodeType, line: int) -> CodeType:
    """``code`` compiled from text that starts ``line`` lines into its source,
    moved there: a code object's lines count from its first (with a prefix of
    ``line`` empty lines the tokenizer read 300,000 of them per run)."""
    if not line:
        return code
    consts = tuple(_at_line(c, line) if type(c) is CodeType else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + line, co_consts=consts)


__all__ = ["compile_functions", "COMPILE_BYTES"]
