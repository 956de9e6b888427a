"""Map a function over a list on two cores: half in this process, half in a forked child.

Compiling a big program is mostly CPython's own ``compile()`` (about 15 µs a
block), which one process cannot run on two cores. A forked child sees the
compiler's state as it is, so it can generate and compile half the chunks
while the parent does the other half; the results come back through a pipe
as :mod:`marshal` data, which holds code objects and strings.

It only forks where that is safe and worth it: on a POSIX system, for lists
long enough to repay the fork, and when no other Python thread runs (one could
hold a lock the child would need). Native threads may exist (numpy's OpenBLAS
starts its pool on import, Qt has its own): the child only runs ``compile()``
and :mod:`marshal`, which need the GIL (ours) and malloc (glibc resets its
locks in a forked child), and leaves with ``os._exit``, so they cannot block
it; that is why Python 3.12's warning about forking with threads is silenced
here and nowhere else. ``FBD_COMPILE_JOBS=1`` turns the fork off.
Whatever goes wrong in the child, the parent computes that half itself, so
the result is always the same as ``[fn(x) for x in items]``, errors included.
"""

from __future__ import annotations

import marshal
import os
import signal
import threading
import warnings

MIN_ITEMS = 16


def _may_fork(n_items: int) -> bool:
    return (n_items >= MIN_ITEMS and hasattr(os, "fork")
            and os.environ.get("FBD_COMPILE_JOBS", "") != "1"
            and threading.active_count() == 1)


def map_in_two(fn, items: list) -> list:
    """``[fn(x) for x in items]``, the second half computed in a forked child.
    ``fn``'s results must be marshal-able (code objects, strings, numbers, tuples)."""
    if not _may_fork(len(items)):
        return [fn(x) for x in items]
    half = len(items) // 2
    mine, theirs = items[:half], items[half:]
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # see the module's docstring
        pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running any cleanup
        status = 1
        try:
            os.close(read_end)
            data = marshal.dumps([fn(x) for x in theirs])
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    done = False
    try:
        results = [fn(x) for x in mine]
        data = pipe.read()
        done = True
    finally:
        pipe.close()
        if not done:  # our half failed: its error is the answer, the child's work is moot
            os.kill(pid, signal.SIGKILL)
        _pid, wait_status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(wait_status) == 0:
        try:
            return results + marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            pass
    return results + [fn(x) for x in theirs]
