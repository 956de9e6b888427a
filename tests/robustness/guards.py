"""A guard for tests of input that once made the program wait forever."""

from __future__ import annotations

import contextlib
import signal


@contextlib.contextmanager
def never_hangs(seconds: int = 120):
    """Turns a hang (a read waiting forever, a loop with no end) into a failure;
    no test asserts how long anything takes."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def stop(_signum, _frame):
        raise AssertionError(f"no answer after {seconds} s: it hangs")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
