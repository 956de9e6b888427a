"""Generated Python compiled a few functions at a time.

CPython holds a whole module's syntax tree while it compiles it, about 130
bytes per byte of source: a chunk holding a long ST body's functions (6 MB
for 20,000 statements) took 800 MB at once. So a long source is compiled
in runs of whole functions of about :data:`COMPILE_BYTES` each, every run's
code at the lines its functions have in the whole text (tracebacks and
:meth:`fbd.compiler.pycode.ScanProgram.block_at` read them).

:class:`FunctionRuns` takes the functions as they are written and hands each
run, once full, to a :class:`~.forkmap.Stream`: where a core is free, a forked
child compiles runs while this process writes the next ones (writing a long ST
body's Python and compiling it cost about the same, so the wall is nearly
halved).
"""

from __future__ import annotations

from types import CodeType

from .forkmap import Stream

#: source compiled at once at most, but for one function's own (a run's functions)
COMPILE_BYTES = 256 * 1024


class FunctionRuns:
    """Functions' texts (:meth:`append`, :meth:`extend`) compiled in runs of about
    :data:`COMPILE_BYTES` as they come, each run's code at its lines in the
    texts joined by newlines; :meth:`codes` once all are given. A context
    manager (see :class:`~.forkmap.Stream`): leave it to end the child."""

    def __init__(self, filename: str):
        self.filename = filename
        self._stream = Stream(_compile_run)
        self._run: list[str] = []
        self._size = 0
        self._line = 0      # where the run being made starts

    def __enter__(self) -> "FunctionRuns":
        self._stream.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._stream.__exit__(*exc)

    def append(self, text: str) -> None:
        if self._run and self._size + len(text) > COMPILE_BYTES:
            self._flush()
        self._run.append(text)
        self._size += len(text)

    def extend(self, texts) -> None:
        for text in texts:
            self.append(text)

    def codes(self) -> tuple:
        if self._run:
            self._flush()
        return tuple(self._stream.results())

    def _flush(self) -> None:
        text = "\n".join(self._run)
        self._run, self._size = [], 0
        self._stream.put((text, self.filename, self._line))
        self._line += text.count("\n") + 1


def _compile_run(run: tuple) -> CodeType:
    text, filename, line = run
    return _at_line(compile(text, filename, "exec"), line)


def compile_functions(sources: list[str], filename: str) -> tuple:
    """The code of the functions ``sources`` (each one function's text), in runs
    of whole functions of about :data:`COMPILE_BYTES` each, each at its lines in ``"\\n".join(sources)``.
    ``sources`` is emptied as it goes: a function's text is let go once it is
    compiled, so the text and the code of a long ST body (23 MB of source for
    100,000 statements) are not held at once."""
    with FunctionRuns(filename) as runs:
        sources.reverse()
        while sources:
            runs.append(sources.pop())
        return runs.codes()


def _at_line(code: CodeType, line: int) -> CodeType:
    """``code`` compiled from text that starts ``line`` lines into its source,
    moved there: a code object's lines count from its first (with a prefix of
    ``line`` empty lines the tokenizer read 300,000 of them per run)."""
    if not line:
        return code
    consts = tuple(_at_line(c, line) if type(c) is CodeType else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + line, co_consts=consts)


__all__ = ["compile_functions", "FunctionRuns", "COMPILE_BYTES"]
