"""One slow job at a time off the UI thread, its answer delivered on the UI thread.

Generating a hard puzzle takes up to a few seconds of pure Python. Run on the
UI thread it would freeze the window and the PLC loop with it; in a thread it
shares the interpreter (the GIL switches every few milliseconds), so the
window keeps repainting, the game keeps scanning, and the panel says what it
is doing. The job is a plain function that touches no widget; a QTimer on the
UI thread polls for its end, so no Qt object crosses threads. The thread ends
with its job (no pool lingers), which keeps :mod:`fbd.compiler.forkmap` free to fork
once the job is done.
"""

from __future__ import annotations

import threading

from PyQt6.QtCore import QObject, QTimer, pyqtSignal

__all__ = ["BackgroundJob"]


class BackgroundJob(QObject):
    """``start(fn, *args)`` runs ``fn`` in a thread; ``finished(result)`` or
    ``failed(exception)`` is emitted on the UI thread when it ends."""

    finished = pyqtSignal(object)
    failed = pyqtSignal(object)

    def __init__(self, parent: QObject | None = None, poll_ms: int = 25):
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._outcome: tuple | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self._poll)

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def start(self, fn, *args, **kwargs) -> bool:
        """Run ``fn(*args, **kwargs)`` in a thread; False (and nothing run) while busy."""
        if self.busy:
            return False
        self._outcome = None

        def run():
            try:
                self._outcome = (True, fn(*args, **kwargs))
            except Exception as e:  # delivered to the UI thread, which reports it
                self._outcome = (False, e)

        self._thread = threading.Thread(target=run, name="hmi-background-job", daemon=True)
        self._thread.start()
        self._timer.start()
        return True

    def _poll(self) -> None:
        if self._thread is None or self._thread.is_alive():
            return
        self._thread.join()
        self._thread = None
        self._timer.stop()
        ok, value = self._outcome
        self._outcome = None
        (self.finished if ok else self.failed).emit(value)
