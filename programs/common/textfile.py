"""Reading puzzle files: bounded in size, UTF-8 with or without a BOM, errors naming the file.

A puzzle file is a few hundred bytes (a 100x100 Hidato board with comments is
under 100 KB), so :func:`read_puzzle_text` reads at most
:data:`MAX_PUZZLE_BYTES` and refuses anything longer at once: a huge file costs
one read of the limit, never the whole file. It reads regular files only
(:func:`fbd.files.open_regular`): a FIFO, which would wait for a writer
forever, or a device such as ``/dev/zero`` is refused before any read;
standard input is read where a command documents ``-`` for it
(:func:`read_puzzle_stream`). A UTF-8
byte order mark (what Windows editors write) is accepted and dropped; bytes
that are not UTF-8, and NUL bytes (a binary file), are refused, saying where.
Every refusal is a :class:`PuzzleFileError` whose message starts with the
file's name.
"""

from __future__ import annotations

import codecs
import os

from fbd.errors import FbdError
from fbd.files import open_regular

#: The most bytes a puzzle file may have (1 MiB).
MAX_PUZZLE_BYTES = 1 << 20
#: The most characters of a file's text an error message quotes.
QUOTE_CHARS = 40


class PuzzleFileError(FbdError, ValueError):
    """A puzzle file that cannot be read; the message names the file (and the line)."""

    def __init__(self, path, line: int | None, message: str):
        self.path, self.line, self.problem = str(path), line, message
        where = f"{path}, line {line}" if line else f"{path}"
        super().__init__(f"{where}: {message}")


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """``repr(text)``, shortened to about ``limit`` characters for an error message."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def shorten(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` (a number, say) as is, or its start and its length if it is longer than
    ``limit`` characters."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"


def read_puzzle_text(path: str | os.PathLike, limit: int = MAX_PUZZLE_BYTES) -> str:
    """The text of the puzzle file ``path``, or :class:`PuzzleFileError` saying why not."""
    try:
        with open_regular(path) as f:
            try:
                size = os.fstat(f.fileno()).st_size
            except OSError:  # pragma: no cover - fstat on an open file does not fail
                size = 0
            if size > limit:   # a regular file: refused without reading it
                raise PuzzleFileError(path, None, f"{size:,} bytes is too large for a puzzle "
                                                  f"file (at most {_size(limit)})")
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise PuzzleFileError(path, None, "no such file") from None
    except IsADirectoryError:
        raise PuzzleFileError(path, None, "is a directory, not a puzzle file") from None
    except PermissionError:
        raise PuzzleFileError(path, None, "permission denied") from None
    except OSError as e:
        raise PuzzleFileError(path, None, f"cannot read it ({e.strerror or e})") from None
    return decode_puzzle(data, path, limit)


def read_puzzle_stream(stream, name: str, limit: int = MAX_PUZZLE_BYTES) -> str:
    """As :func:`read_puzzle_text` for an open binary stream (stdin), called ``name``."""
    try:
        data = stream.read(limit + 1)
    except OSError as e:
        raise PuzzleFileError(name, None, f"cannot read it ({e.strerror or e})") from None
    return decode_puzzle(data, name, limit)


def decode_puzzle(data: bytes, name, limit: int = MAX_PUZZLE_BYTES) -> str:
    """``data`` (at most ``limit`` bytes, else refused) as text, BOM dropped."""
    if len(data) > limit:
        raise PuzzleFileError(name, None, f"more than {_size(limit)}: too large for a puzzle file")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    nul = data.find(b"\0")
    if nul >= 0:
        raise PuzzleFileError(name, data.count(b"\n", 0, nul) + 1,
                              f"not a text file (a NUL byte at offset {nul})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PuzzleFileError(name, data.count(b"\n", 0, e.start) + 1,
                              f"not a text file (byte 0x{data[e.start]:02x} at offset {e.start} "
                              f"is not UTF-8)") from None
    return text


__all__ = ["read_puzzle_text", "read_puzzle_stream", "decode_puzzle", "PuzzleFileError",
           "MAX_PUZZLE_BYTES", "quote", "shorten"]
