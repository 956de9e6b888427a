"""Reload on change: a running PLC follows the file its program comes from
(``fbd serve --reload-on-change``).

A thread watches the file (its modification time, size and a digest of its
text, twice a second: a file system's clock ticks in milliseconds, so a
rewrite of the same length within one tick keeps both time and size);
when it has changed and then stood still for one look (so a file an editor
is still writing is not loaded half), the program is built and compiled on
that thread, so the scans never wait for a compiler, and handed to the PLC,
which runs it from its next scan on through an online change (:meth:`fbd.Plc.replace_program`,
in a ``before_scan`` hook: a scan boundary, on the PLC's thread). A PLC running a
configuration changes as a whole (``build()`` then gives the changed project,
:meth:`fbd.Plc.replace_configuration`). A program
that does not load or compile is reported in one line and the running one
goes on unchanged; so is one the caller's ``check`` refuses (the Modbus
server refuses a program with nothing to serve).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import threading

from ..errors import FbdError
from ..loading import is_project_file, one_line
from ..runtime.online import compile_for
from ..runtime.online_configuration import Prepared, prepare
from ..runtime.retain import variables

__all__ = ["Reloader", "source_path"]


def source_path(target: str) -> tuple[str, str | None]:
    """The file a target's program is read from, and the module to import again
    before building it (None for a project file)."""
    if is_project_file(target):
        return target, None
    module, _colon, _attr = target.rpartition(":")
    if is_project_file(module) or module.endswith(".py"):
        return module, None
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not os.path.exists(spec.origin):
        raise FbdError(f"{target}: no source file to watch for module {module}")
    return spec.origin, module


def _stamp(path: str):
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            digest = hashlib.blake2b(f.read(), digest_size=16).digest()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, digest


class Reloader:
    """Follows ``path`` (see the module's text): ``build()`` makes the new Network,
    ``say(line)`` reports, ``check(program)`` may raise FbdError to refuse one."""

    def __init__(self, plc, path: str, build, say, *, module: str | None = None,
                 check=None, interval: float = 0.5):
        self.plc, self.path, self.build, self.say = plc, path, build, say
        self.module, self.check, self.interval = module, check, interval
        self.changes = 0
        self._ready = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._last = _stamp(path)
        variables(plc.main.program)     # the running program's, made before a change needs them
        plc.main.before_scan.append(self._before_scan)
        self._thread = threading.Thread(target=self._watch, name="fbd-reload", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        seen = self._last
        while not self._stop.wait(self.interval):
            stamp = _stamp(self.path)
            # loaded once it has stood still for a poll: not half written by an editor
            if stamp is not None and stamp == seen and stamp != self._last:
                self._last = stamp
                self.load()
            seen = stamp

    def load(self) -> None:
        """Build and compile the program now; it runs from the PLC's next scan."""
        try:
            if self.module is not None and self.module in sys.modules:
                importlib.reload(sys.modules[self.module])
            built = self.build()
            if self.plc.names is not None:
                program = prepare(self.plc, built)
            else:
                program = compile_for(self.plc, built)
            if self.check is not None:
                self.check(program)
        except FbdError as e:
            self.say(f"{self.path}: {one_line(str(e))}; the running program is unchanged")
            return
        except (SyntaxError, ImportError) as e:
            self.say(f"{self.path}: {type(e).__name__}: {e}; the running program is unchanged")
            return
        with self._lock:
            self._ready = program

    def _before_scan(self, _task) -> None:
        if self._ready is None:
            return
        with self._lock:
            program, self._ready = self._ready, None
        try:
            if isinstance(program, Prepared):
                change = self.plc.replace_configuration(program)
            else:
                change = self.plc.replace_program(program)
        except FbdError as e:
            self.say(f"{self.path}: {one_line(str(e))}; the running program is unchanged")
            return
        self.changes += 1
        self.say(f"{self.path}: {change.summary()}")
        for line in change.lines():
            self.say(f"  {line}")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        if self._before_scan in self.plc.main.before_scan:
            self.plc.main.before_scan.remove(self._before_scan)
