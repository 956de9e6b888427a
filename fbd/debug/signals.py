"""Signals by path for the debugger: read, watch, write and force them, in any case
and in any task of the PLC.

IEC identifiers ignore case (``GAME_OVER``, ``game_over`` and ``Game_Over`` are
one name), and a program built from IEC sources names its signals after its
variables, so a path typed in any case finds its signal (:func:`resolve`):
the exact spelling first, then the one path that differs only in case; two
that differ only in case (possible in a network built in Python) make the
path ambiguous, and the error lists both. Suggestions for an unknown path
ignore case too (:class:`~fbd.errors.UnknownSignal`).

A configuration runs each program instance as a task; its variables are
named as :meth:`Plc.get` names them, by the instance (``a.n``, ``RES.A.N``;
:mod:`fbd.runtime.names`), and the older ``instance:path`` is taken too.
:class:`SignalAccess` is a base class of :class:`~.debugger.Debugger` over its
``plc`` and ``_emit``; every path it gives back is canonical: a configuration's
IEC name, else the program's own spelling (the main task's bare, another
task's ``instance:path``).
"""

from __future__ import annotations

import weakref

from ..compiler.pycode import SignalInfo
from ..errors import FbdError, UnknownSignal
from .probe import PathCompleter, Probe, WatchRow, format_value

_BY_CASE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # program -> {PATH: [paths]}


def resolve(program, path: str) -> SignalInfo:
    """The signal ``path`` names in ``program`` (anything with ``signal(path)`` and
    ``signals``, the names it knows: a ScanProgram, the debugger's MainSignals), in
    its exact spelling or in any case."""
    try:
        return program.signal(path)
    except UnknownSignal as unknown:
        exact = unknown
    by_case = _BY_CASE.get(program)
    if by_case is None:
        by_case = {}
        for name in program.signals:
            by_case.setdefault(name.upper(), []).append(name)
        _BY_CASE[program] = by_case
    found = by_case.get(path.upper(), [])
    if len(found) == 1:
        return program.signal(found[0])
    if found:
        raise FbdError(f"{path!r} is ambiguous: IEC names ignore case, and "
                       f"{' and '.join(found)} differ only in case; write one as it is spelled")
    raise exact


class SignalAccess:
    """Signals by path, the watch list, writes and forces (see the module)."""

    _watches: list[str]
    _completer: PathCompleter | None
    _signals: object       # the main task's names (probe.MainSignals)

    # -- paths -------------------------------------------------------------------------
    def locate(self, path: str) -> tuple:
        """(task, SignalInfo) of ``path``: any name the PLC knows (an IEC name in a
        configuration, ``instance:path``, the main task's paths), in any case."""
        plc = self.plc
        try:
            return plc._locate(path)
        except UnknownSignal as unknown:
            spelled = unknown           # not as the PLC spells it: IEC names ignore case
        name, colon, rest = path.partition(":")
        if not colon:
            if plc.names is not None:   # the suggestions are the configuration's names
                try:
                    return plc.main, resolve(self._signals, path.strip())
                except UnknownSignal:
                    raise spelled from None
            return plc.main, resolve(plc.main.program, path.strip())
        wanted = name.strip().upper()
        task = next((t for t in plc.tasks if t.name.upper() == wanted), None)
        if task is None:
            raise UnknownSignal(name, [t.name for t in plc.tasks], "program instance")
        return task, resolve(task.program, rest.strip())

    def canonical(self, path: str) -> str:
        """``path`` as the PLC spells it: a configuration's IEC name, else bare in the
        main task and ``instance:path`` in another."""
        task, info = self.locate(path)
        plc = self.plc
        names = plc.names
        if names is not None:
            instance = names.instance_of(task)
            if instance is None:                    # a global
                return info.path
            if names.locate(info.path) is not None:     # an IEC name as typed: its declared case
                return instance.iec_path(instance.program_path(info.path.split(".", 1)[1]))
            return instance.iec_path(info.path)
        return info.path if task is plc.main else f"{task.name}:{info.path}"

    def info(self, path: str) -> SignalInfo:
        """Type, kind, slot of a path (raises UnknownSignal with suggestions)."""
        return self.locate(path)[1]

    def retention(self, path: str) -> str | None:
        """``"RETAIN"`` or ``"PERSISTENT"`` for a variable a restart keeps (docs/retain.md),
        else None."""
        task, info = self.locate(path)
        if info.slot is None:
            return None
        if info.slot in task.persistent:
            return "PERSISTENT"
        return "RETAIN" if info.slot in task.retained else None

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
            self._completer = PathCompleter(self.plc.signals())
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
                                 info.slot is not None and info.slot in getattr(task, "forces", ())))
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
        return info.slot is not None and info.slot in getattr(task, "forces", ())


__all__ = ["SignalAccess", "resolve"]
