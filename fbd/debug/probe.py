"""Reading values for the debugger's views: IEC text for a raw table value or a
literal, the watch list's rows, and :class:`Probe`, a reader of many signals
at once (a diagram's wire labels, a hierarchy's ports) read at 30 Hz, and the
ranking of paths for a completion box."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..compiler.pycode import SignalInfo
from ..errors import FbdError
from ..runtime.plc import Plc
from ..values import format_literal as literal_text  # noqa: F401  (this package's API)
from ..values import format_value

__all__ = ["PathCompleter", "format_value", "literal_text", "WatchRow", "Probe", "MainSignals"]


class MainSignals:
    """The main task's signals by every name the PLC knows them by: its network's
    paths and, in a configuration, the main program instance's IEC names
    (``inst.n`` as well as ``Main.n``). What the debugger's watches, probes and
    breakpoint conditions look a path up in (``signal(path)``)."""

    def __init__(self, plc: Plc):
        self.plc = plc

    def signal(self, path: str) -> SignalInfo:
        task, info = self.plc._locate(path)
        if task is not self.plc.main:
            raise FbdError(f"{path} is not a variable of {self.plc.main.name}, the program "
                           f"the debugger shows")
        return info

    @property
    def signals(self) -> list[str]:
        """The paths to offer: the main instance's IEC names in a configuration,
        else the network's."""
        names = self.plc.names
        instance = names.instance_of(self.plc.main) if names is not None else None
        return instance.paths() if instance is not None else list(self.plc.main.program.signals)


class WatchRow(NamedTuple):
    """One line of the watch list."""
    path: str
    type: str       # the IEC type name
    value: Any      # the Python value (TIME as a timedelta)
    text: str       # the value as IEC text
    forced: bool


class Probe:
    """Reads a fixed list of signals straight from the table (slots resolved once).

    For views that show many values at a refresh: a diagram's wire labels, a
    hierarchy's ports. ``read()`` gives Python values, ``read_raw()`` the table's
    (TIME in ns), ``texts()`` IEC text, ``forced()`` which are forced.
    """

    def __init__(self, plc: Plc, infos: list[SignalInfo], tasks: list | None = None):
        self._plc = plc
        self.paths = [i.path for i in infos]
        self.types = [i.type for i in infos]
        self._reads = [(i.slot, i.const) for i in infos]
        # ``tasks``: each signal's task (a configuration's); None or all the main task's:
        # one table, read the fast way
        main = plc.main
        self._tasks = None if tasks is None or all(t is main for t in tasks) else list(tasks)

    def read_raw(self) -> list:
        if self._tasks is not None:
            return [c if k is None else t.s[k] for t, (k, c) in zip(self._tasks, self._reads)]
        s = self._plc.main.s
        return [c if k is None else s[k] for k, c in self._reads]

    def read(self) -> list:
        return [v if tp is None else tp.to_python(v)
                for tp, v in zip(self.types, self.read_raw())]

    def texts(self) -> list[str]:
        return [format_value(tp, v) for tp, v in zip(self.types, self.read_raw())]

    def forced(self) -> list[bool]:
        """Which of the signals are forced (to mark them)."""
        if self._tasks is not None:
            return [k is not None and k in t.forces for t, (k, _c) in zip(self._tasks, self._reads)]
        forces = self._plc.main.forces
        return [k is not None and k in forces for k, _c in self._reads]

    def __len__(self) -> int:
        return len(self.paths)


class PathCompleter:
    """Ranks a program's signal paths against what the user has typed."""

    def __init__(self, paths):
        self._lower = [(p.lower(), p) for p in paths]   # (lowercase path, path)

    def complete(self, text: str, limit: int = 20) -> list[str]:
        """Paths for a completion box, best first: the path itself, then paths
        starting with ``text``, then paths with a part (after a dot) starting with
        it, then paths containing it; in each group the shallowest and shortest
        first. Case-insensitive."""
        want = text.strip().lower()
        dotted = "." + want
        ranked = []
        for low, path in self._lower:
            if low == want:
                tier = 0
            elif low.startswith(want):
                tier = 1
            elif dotted in low:
                tier = 2
            elif want in low:
                tier = 3
            else:
                continue
            ranked.append((tier, low.count("."), len(path), path))
        ranked.sort()
        return [r[3] for r in ranked[:limit]]
