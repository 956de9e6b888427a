"""Map a function over a list on two cores: this process and a forked child share the items.

Compiling a big program is mostly CPython's own ``compile()`` (about 15 µs a
block), which one process cannot run on two cores. A forked child sees the
compiler's state as it is, so it can generate and compile chunks while the
parent does others; its results come back through a pipe as :mod:`marshal`
data, which holds code objects and strings.

The two take items from a shared queue (a pipe of item numbers, each read
taking one) rather than a half each: the child runs slower than the parent
(every page either writes to is copied first), and on a shared machine either
may be held up; whoever is free takes the next item.

It only forks where that is safe and worth it: on a POSIX system, for lists
long enough to repay the fork, and when no other Python thread runs (one could
hold a lock the child would need). Native threads may exist (numpy's OpenBLAS
starts its pool on import, Qt has its own): the child only runs ``fn`` (here
``compile()``) and :mod:`marshal`, which need the GIL (ours) and malloc (glibc
resets its locks in a forked child), and leaves with ``os._exit``, so they
cannot block it; that is why Python 3.12's warning about forking with threads
is silenced here and nowhere else. ``FBD_COMPILE_JOBS=1`` turns the fork off.
If anything goes wrong on either side, the parent computes the whole list
itself, so the result is always the same as ``[fn(x) for x in items]``,
errors included (``fn`` must be free of side effects).
"""

from __future__ import annotations

import marshal
import os
import signal
import threading
import warnings

MIN_ITEMS = 16
_TICKET = 2           # bytes per item number in the queue
_QUEUE_BYTES = 4096   # what a pipe holds on any POSIX system without a reader


def _may_fork(n_items: int) -> bool:
    return (n_items >= MIN_ITEMS and hasattr(os, "fork")
            and os.environ.get("FBD_COMPILE_JOBS", "") != "1"
            and threading.active_count() == 1)


def _queue(n_tickets: int) -> int | None:
    """A pipe holding the numbers 0..n_tickets-1, its writing end closed (a read
    at the end gets EOF); None if it would not fit."""
    read_end, write_end = os.pipe()
    data = b"".join(k.to_bytes(_TICKET, "little") for k in range(n_tickets))
    try:
        os.set_blocking(write_end, False)
        if os.write(write_end, data) == len(data):
            return read_end
    except BlockingIOError:
        pass
    finally:
        os.close(write_end)
    os.close(read_end)
    return None


def _take(queue: int, fn, items: list, batch: int) -> list:
    """Compute batches of items as long as the queue has numbers: [(index, result)]."""
    done = []
    while ticket := os.read(queue, _TICKET):
        k = int.from_bytes(ticket, "little")
        for i in range(k * batch, min(len(items), (k + 1) * batch)):
            done.append((i, fn(items[i])))
    return done


def map_in_two(fn, items: list) -> list:
    """``[fn(x) for x in items]``, part of it computed in a forked child.
    ``fn``'s results must be marshal-able (code objects, strings, numbers, tuples)."""
    if not _may_fork(len(items)):
        return [fn(x) for x in items]
    batch = -(-len(items) * _TICKET // _QUEUE_BYTES)   # items per ticket: 1 below 2,048
    queue = _queue(-(-len(items) // batch))
    if queue is None:
        return [fn(x) for x in items]
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # see the module's docstring
        pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running any cleanup
        status = 1
        try:
            os.close(read_end)
            data = marshal.dumps(_take(queue, fn, items, batch))
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    ok = False
    try:
        mine = _take(queue, fn, items, batch)
        data = pipe.read()
        ok = True
    except Exception:  # noqa: BLE001 - redone below, where a plain map raises it
        pass
    finally:
        pipe.close()
        os.close(queue)
        if not ok:
            os.kill(pid, signal.SIGKILL)
        _pid, wait_status = os.waitpid(pid, 0)
    if ok and os.waitstatus_to_exitcode(wait_status) == 0:
        try:
            results = dict(mine)
            results.update(marshal.loads(data))
            if len(results) == len(items):
                return [results[i] for i in range(len(items))]
        except (EOFError, ValueError, TypeError):
            pass
    return [fn(x) for x in items]
