"""The errors a user of the library can meet, each naming the place."""

from __future__ import annotations

import difflib

#: how much of a name or text taken from a file an error message quotes
QUOTE_CHARS = 200


def quote(value) -> str:
    """``repr`` of a value taken from a file, cut to :data:`QUOTE_CHARS`: an error
    about a megabyte-long name must not be a megabyte long."""
    text = value if isinstance(value, str) else str(value)
    if len(text) > QUOTE_CHARS:
        return repr(text[:QUOTE_CHARS]) + f"... ({len(text)} characters)"
    return repr(text)


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
        # IEC names ignore case: so do the suggestions (GAME_OVER for game_over)
        upper = path.upper()
        same = [k for k in known if k.upper() == upper]
        # a variable of a POU block is named under the block (``main.cv`` for ``cv``)
        inside = [k for k in known if k.upper().endswith("." + upper)]
        spelled = {}
        for k in known:
            spelled.setdefault(k.upper(), k)
        close = [spelled[k] for k in difflib.get_close_matches(upper, spelled, n=3, cutoff=0.6)]
        close = (same + inside)[:3] or close
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        self.message = f"unknown {what} {path!r}{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.message


class ScansDone(Exception):
    """What a program's ``scan_many`` raises when scan ``done + 1`` of a run fails
    (fbd.runtime.fastforward): its ``__cause__`` is what that scan raised."""

    def __init__(self, done: int):
        super().__init__(done)
        self.done = done


class ScanError(FbdError):
    """A scan stopped by the program itself, at a place in its source: an array
    index out of bounds (``kind`` "index"), a loop over the watchdog's budget
    ("watchdog"). ``file``, ``line`` and ``pou`` (``"PROGRAM Main"``) say where;
    the message starts with them, as a compile error's does."""

    def __init__(self, what: str, *, kind: str, file: str, line: int, pou: str):
        self.kind, self.file, self.line, self.pou = kind, file, line, pou
        super().__init__(f"{file}:{line}: in {pou}: {what}")
