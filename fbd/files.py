"""Opening a file a user names: a regular file only, opened without blocking.

``open()`` on a FIFO waits for a writer, and ``read()`` on one until the writer
closes it: ``fbd sudoku solve pipe`` hung forever. Every reader of a named
file (programs, projects, puzzles) opens it with :func:`open_regular`, which
refuses what is not a regular file (a FIFO, a device such as ``/dev/zero``, a
socket, a directory) at once, with an :class:`OSError` whose ``strerror``
says what it is, so the callers' ``cannot read: ...`` messages name it.
Standard input, where a command documents ``-`` for it, is read as a stream.
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | os.PathLike):
    """``path`` opened for reading in binary, if it is a regular file; else OSError
    (IsADirectoryError for a directory, as ``open`` raises), before any wait."""
    # O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "a special file")
            raise OSError(errno.EINVAL, f"not a regular file: {kind}", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


__all__ = ["open_regular"]
