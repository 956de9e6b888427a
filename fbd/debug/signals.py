"""Signals by path for the debugger: read, watch, write and force them, in any case
and in any task of the PLC.

IEC identifiers ignore case (``GAME_OVER``, ``game_over`` and ``Game_Over`` are
one name), and a program built from IEC sources names its signals after its
variables, so a path typed in any case finds its signal (:func:`resolve`):
the exact spelling first, then the one path that differs only in case; two
that differ only in case (possible in a network built in Python) make the
path ambiguous, and the error lists both. Suggestions for an unknown path
ignore case too (:class:`~fbd.errors.UnknownSignal`).

A configuration runs each program instance as a task; its signals are named
``instance:path`` (``fbd run FILE.st`` names them so), the main task's also
without the prefix. :class:`SignalAccess` is a base class of
:class:`~.debugger.Debugger` over its ``plc`` and ``_emit``; every path it
gives back is canonical: the program's own spelling, the main task's bare.
"""

from __future__ import annotations

import weakref

from ..compiler.pycode import SignalInfo
from ..errors import FbdError, UnknownSignal
from .probe import PathCompleter, Probe, WatchRow, format_value

_BY_CASE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # program -> {PATH: [paths]}


def resolve(program, path: str) -> SignalInfo:
    """The signal ``path`` names in ``program``, in its exact spelling or in any case."""
    signals = program.signals
    info = signals.get(path)
    if info is not None:
        return info
    by_case = _BY_CASE.get(program)
    if by_case is None:
        by_case = {}
        for name in signals:
            by_case.setdefault(name.upper(), []).append(name)
        _BY_CASE[program] = by_case
    found = by_case.get(path.upper(), [])
    if len(found) == 1:
        return signals[found[0]]
    if found:
        raise FbdError(f"{path!r} is ambiguous: IEC names ignore case, and "
                       f"{' and '.join(found)} differ only in case; write one as it is spelled")
    raise UnknownSignal(path, signals)


class SignalAccess:
    """Signals by path, the watch list, writes and forces (see the module)."""

    _watches: list[str]
    _completer: PathCompleter | None

    # -- paths -------------------------------------------------------------------------
    def locate(self, path: str) -> tuple:
        """(task, SignalInfo) of ``path``: the main task's, or ``instance:path``."""
        plc = self.plc
        task = plc.main
        name, colon, rest = path.partition(":")
        if colon:
            wanted = name.strip().upper()
            task = next((t for t in plc.tasks if t.name.upper() == wanted), None)
            if task is None:
                raise UnknownSignal(name, [t.name for t in plc.tasks], "program instance")
            path = rest
        return task, resolve(task.program, path.strip())

    def canonical(self, path: str) -> str:
        """``path`` as the program spells it: bare in the main task, else ``instance:path``."""
        task, info = self.locate(path)
        return info.path if task is self.plc.main else f"{task.name}:{info.path}"

    def info(self, path: str) -> SignalInfo:
        """Type, kind, slot of a path (raises UnknownSignal with suggestions)."""
        return self.locate(path)[1]

    def get(self, path: str):
        return self.plc.get(self.canonical(path))

    def text(self, path: str) -> str:
        """The value of ``path`` as IEC text."""
        task, info = self.locate(path)
        return format_value(info.type, info.const if info.slot is None else task.s[info.slot])

    def probe(self, paths) -> Probe:
        """A reader of ``paths`` straight from their tables (see :class:`Probe`)."""
        located = [self.locate(p) for p in paths]
        return Probe(self.plc, [info for _t, info in located], [t for t, _i in located])

    def complete(self, text: str, limit: int = 20) -> list[str]:
        """Paths for a completion box, best first (see :class:`~.probe.PathCompleter`)."""
        if self._completer is None:
            plc = self.plc
            paths = list(plc.main.program.signals)
            for task in plc.tasks:
                if task is not plc.main:
                    paths += [f"{task.name}:{p}" for p in task.program.signals]
            self._completer = PathCompleter(paths)
        return self._completer.complete(text, limit)

    # -- watch list --------------------------------------------------------------------
    @property
    def watches(self) -> list[str]:
        return list(self._watches)

    def watch(self, path: str) -> None:
        """Add ``path`` to the watch list (once; unknown paths raise UnknownSignal)."""
        path = self.canonical(path)
        if path not in self._watches:
            self._watches.append(path)
            self._emit("watch")

    def unwatch(self, path: str) -> None:
        known = self._watches
        try:
            path = self.canonical(path)
        except FbdError:
            pass
        if path not in known:
            raise FbdError(f"{path} is not in the watch list")
        known.remove(path)
        self._emit("watch")

    def watch_values(self) -> list[WatchRow]:
        rows = []
        for path in self._watches:
            task, info = self.locate(path)
            raw = info.const if info.slot is None else task.s[info.slot]
            rows.append(WatchRow(path, info.type.name if info.type else "storage",
                                 info.type.to_python(raw) if info.type else raw,
                                 format_value(info.type, raw),
                                 info.slot is not None and info.slot in task.forces))
        return rows

    # -- write and force ---------------------------------------------------------------
    def write(self, path: str, value) -> None:
        """Write a value once, now (a block that computes it overwrites it at its
        next run). ``value`` may be IEC text. While paused inside an ST POU's call,
        the call goes on with its own values and the write is applied (again) as
        the call returns."""
        task, info = self.locate(path)
        self.plc.write(self.canonical(path), value)
        if self.frames and task is self.plc.main and info.slot is not None:
            self._stepping.written(info.slot)
        self._emit("touched")
        self._emit("forces")

    def force(self, path: str, value) -> None:
        """Hold ``path`` at ``value`` until :meth:`unforce`, across scans and restarts."""
        self.plc.force(self.canonical(path), value)
        self._emit("touched")
        self._emit("forces")

    def unforce(self, path: str | None = None) -> None:
        """Release one force, or all of them."""
        self.plc.unforce(None if path is None else self.canonical(path))
        self._emit("forces")

    @property
    def forces(self) -> dict:
        """Every force: path -> value."""
        return self.plc.forces

    def is_forced(self, path: str) -> bool:
        task, info = self.locate(path)
        return info.slot is not None and info.slot in task.forces


__all__ = ["SignalAccess", "resolve"]
