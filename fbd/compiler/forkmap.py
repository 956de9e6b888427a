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

:class:`Stream` does the same for items made one at a time (a long ST body's
Python, compiled run by run as it is written): this process makes the items
and hands each to the child unless the child already has :data:`AHEAD`
waiting, then computes it itself, so the two share the work however their
speeds compare; the child is forked once :data:`STREAM_FORK_AT` items are
made (a short stream is not worth a fork), and only where a core is free
(:func:`core_free`, as ``make -l`` decides): on a machine whose cores are
busy with other work the child gets no time of its own, and its page copies
and the two processes' sharing of the caches cost a tenth to a quarter more
CPU for no shorter wall (docs/performance.md). ``FBD_COMPILE_JOBS=2`` forks
whatever the load.
"""

from __future__ import annotations

import gc
import marshal
import os
import select
import signal
import threading
import warnings

MIN_ITEMS = 16
_TICKET = 2           # bytes per item number in the queue
_QUEUE_BYTES = 4096   # what a pipe holds on any POSIX system without a reader


_sharing = False      # True in a forked child, and in its parent while they share a
                      # map: either core is taken, so no further child is forked


def _may_fork(n_items: int, at_least: int = MIN_ITEMS) -> bool:
    return (n_items >= at_least and hasattr(os, "fork") and not _sharing
            and os.environ.get("FBD_COMPILE_JOBS", "") != "1"
            and threading.active_count() == 1)


def core_free(spare: float = 0.5) -> bool:
    """Whether the machine has a core idle beside this process: fewer tasks
    runnable now than the cores it may run on (this process counted), and the
    load average of the last minute under them less ``spare`` of a core (the
    average alone lags: a build started a second ago is not in it yet).
    ``FBD_COMPILE_JOBS=1`` says no, ``2`` yes, whatever the load."""
    jobs = os.environ.get("FBD_COMPILE_JOBS", "")
    if jobs in ("1", "2"):
        return jobs == "2"
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    average, running = _load()
    return cores > 1 and average < cores - spare and (running is None or running < cores)


def _load() -> tuple[float, int | None]:
    """The load average of the last minute and the tasks runnable now (None where
    the system does not say; 0.0 where it gives no average)."""
    try:
        with open("/proc/loadavg") as f:
            fields = f.read().split()
        return float(fields[0]), int(fields[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0], None
    except (AttributeError, OSError):
        return 0.0, None


def _fork() -> int:
    global _sharing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # see the module's docstring
        pid = os.fork()
    if pid == 0:
        _sharing = True
    return pid


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
    global _sharing
    if not _may_fork(len(items)):
        return [fn(x) for x in items]
    batch = -(-len(items) * _TICKET // _QUEUE_BYTES)   # items per ticket: 1 below 2,048
    queue = _queue(-(-len(items) // batch))
    if queue is None:
        return [fn(x) for x in items]
    read_end, write_end = os.pipe()
    pid = _fork()
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
        _sharing = True
        try:
            mine = _take(queue, fn, items, batch)
        finally:
            _sharing = False
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


#: items the child may hold at once (one computing, one waiting): the rest are
#: computed here, and at the end this process waits for these at most
AHEAD = 2
#: items made before the child is forked
STREAM_FORK_AT = 2
_PIPE_BYTES = 1 << 20    # what Linux lets a pipe hold without privileges: AHEAD runs of source
_HEADER = 8              # bytes of a frame's length


class Stream:
    """``[fn(x) for x in items]`` for items given one at a time (:meth:`put`),
    some computed in a forked child while this process makes the next ones;
    :meth:`results` in order. A context manager: leaving it ends the child.
    Items go to the child and results come back as :mod:`marshal` data; an
    item the child could not compute or send is computed here, so errors are
    raised here, as a plain map raises them."""

    def __init__(self, fn):
        self.fn = fn
        self._results: dict = {}
        self._count = 0
        self._sent: dict = {}          # item number -> item, until its result is back
        self._pid = None
        self._forked = False           # once: a child that failed is not replaced
        self._tasks = self._answers = -1
        self._inbox = bytearray()      # what the child sent, not yet read as results

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc) -> None:
        if self._pid is not None:      # left early (an error): the results are not wanted
            self._sent.clear()
            self._end(kill=True)

    def put(self, item) -> None:
        k = self._count
        self._count += 1
        if not self._forked and _may_fork(self._count, STREAM_FORK_AT) and core_free():
            self._start()
        if self._pid is not None:
            self._take_results(self._pull())
            if self._pid is not None and len(self._sent) < AHEAD:
                try:
                    frame = marshal.dumps((k, item))
                except ValueError:      # not data marshal carries: computed here
                    frame = None
                if frame is not None:
                    self._sent[k] = item
                    self._send(frame)
                    return
        self._results[k] = self.fn(item)

    def results(self) -> list:
        if self._pid is not None:
            self._send(b"")             # no more items: the child leaves once it has sent all
            while self._pid is not None and self._sent:
                _wait_for(self._answers, select.POLLIN)
                self._take_results(self._pull())
            self._end(kill=False)
        results = self._results
        return [results[k] for k in range(self._count)]

    def _start(self) -> None:
        tasks_read, tasks_write = os.pipe()
        answers_read, answers_write = os.pipe()
        for fd in (tasks_write, answers_write):
            _widen(fd)
        self._forked = True
        pid = _fork()
        if pid == 0:
            os.close(tasks_write)
            os.close(answers_read)
            _serve(self.fn, tasks_read, answers_write)
        os.close(tasks_read)
        os.close(answers_write)
        os.set_blocking(tasks_write, False)
        os.set_blocking(answers_read, False)
        self._pid, self._tasks, self._answers = pid, tasks_write, answers_read

    def _send(self, frame: bytes) -> None:
        """Send a frame to the child, taking in its results while the pipe is full
        (it may be waiting to send one); if it is gone, its items are computed here."""
        data = memoryview(len(frame).to_bytes(_HEADER, "little") + frame)
        try:
            while data:
                try:
                    data = data[os.write(self._tasks, data):]
                except BlockingIOError:
                    if (_wait_for(self._answers, select.POLLIN, self._tasks)
                            and not self._pull()):
                        raise BrokenPipeError from None
        except OSError:
            self._end(kill=True)

    def _pull(self) -> bool:
        """Read what the child has sent so far; False once it has closed its end."""
        while True:
            try:
                data = os.read(self._answers, _PIPE_BYTES)
            except BlockingIOError:
                return True
            if not data:
                return False
            self._inbox += data

    def _take_results(self, child_alive: bool) -> None:
        inbox = self._inbox
        while len(inbox) >= _HEADER:
            end = _HEADER + int.from_bytes(inbox[:_HEADER], "little")
            if len(inbox) < end:
                break
            k, ok, value = marshal.loads(bytes(inbox[_HEADER:end]))
            del inbox[:end]
            item = self._sent.pop(k)
            self._results[k] = value if ok else self.fn(item)
        if not child_alive:
            self._end(kill=False)

    def _end(self, kill: bool) -> None:
        """Close the pipes and wait for the child (killed first if ``kill``); the
        items it still held are computed here."""
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        for fd in (self._tasks, self._answers):
            os.close(fd)
        if kill:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sent, self._sent = self._sent, {}
        for k, item in sorted(sent.items()):
            self._results[k] = self.fn(item)


def _serve(fn, tasks: int, answers: int) -> None:
    """The child's loop: compute each item sent, send back its result (or that it
    failed), leave at the empty frame, never running any cleanup."""
    status = 1
    try:
        gc.disable()    # a collection would touch (and copy) every page shared with the parent
        with os.fdopen(tasks, "rb") as inbox:
            while header := inbox.read(_HEADER):
                frame = inbox.read(int.from_bytes(header, "little"))
                if not frame:
                    break
                k, item = marshal.loads(frame)
                try:
                    answer = marshal.dumps((k, True, fn(item)))
                except Exception:  # noqa: BLE001 - computed again by the parent, which raises it
                    answer = marshal.dumps((k, False, None))
                _send(answers, answer)
        status = 0
    finally:
        os._exit(status)


def _wait_for(fd: int, events: int, writable: int | None = None) -> bool:
    """Wait until ``fd`` has ``events`` (or until ``writable`` can be written, if
    given); whether ``fd`` is ready (or closed at the other end)."""
    poll = select.poll()
    poll.register(fd, events)
    if writable is not None:
        poll.register(writable, select.POLLOUT)
    return any(ready == fd for ready, _events in poll.poll())


def _send(fd: int, frame: bytes) -> None:
    data = memoryview(len(frame).to_bytes(_HEADER, "little") + frame)
    while data:
        data = data[os.write(fd, data):]


def _widen(fd: int) -> None:
    """Let the pipe hold AHEAD items' source, so that neither side waits for the
    other to read (Linux; elsewhere a pipe holds what it holds)."""
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass
