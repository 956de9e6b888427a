"""The errors a user of the library can meet, each naming the place."""

from __future__ import annotations

import difflib


class FbdError(Exception):
    """Base of every error this package raises on purpose (the CLI prints these in one line)."""


class WiringError(FbdError):
    """A wiring call that cannot be recorded at all (unknown port, bad name)."""


class InvalidValue(FbdError, ValueError):
    """A value, or a literal's text, that is not a value of the type it is for."""


class ValidationError(FbdError):
    """A network broke one or more rules; ``problems`` lists each, naming its full path."""

    def __init__(self, network: str, problems: list[str]):
        self.network = network
        self.problems = list(problems)
        shown = self.problems[:25]
        more = len(self.problems) - len(shown)
        lines = [f"network {network!r} is not valid ({len(self.problems)} problem"
                 f"{'s' if len(self.problems) != 1 else ''}):"]
        lines += [f"  - {p}" for p in shown]
        if more:
            lines.append(f"  ... and {more} more")
        super().__init__("\n".join(lines))


class UnknownSignal(FbdError, KeyError):
    """A path that names no signal; suggests the closest ones."""

    def __init__(self, path: str, known=(), what: str = "signal"):
        self.path = path
        known = list(known)
        # a variable of a POU block is named under the block (``main.cv`` for ``cv``)
        inside = [k for k in known if k.endswith("." + path)][:3]
        close = inside or difflib.get_close_matches(path, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        self.message = f"unknown {what} {path!r}{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.message


class ScanError(FbdError):
    """A scan stopped by the program itself, at a place in its source: an array
    index out of bounds (``kind`` "index"), a loop over the watchdog's budget
    ("watchdog"). ``file``, ``line`` and ``pou`` (``"PROGRAM Main"``) say where;
    the message starts with them, as a compile error's does."""

    def __init__(self, what: str, *, kind: str, file: str, line: int, pou: str):
        self.kind, self.file, self.line, self.pou = kind, file, line, pou
        super().__init__(f"{file}:{line}: in {pou}: {what}")
