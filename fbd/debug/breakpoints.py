"""The debugger's breakpoints: conditions checked after every scan and every stepped block.

:class:`Breakpoints` holds them with what checking needs (the previous scan's
values for ``changed``/``rising``/``falling``, whether each held at the last
check) and says which fire; :class:`~.debugger.Debugger` decides when to
check and what a hit does (pause, tell the views). See the debugger's module
docstring for the rules: a breakpoint fires after a scan where its condition
holds (``edge``: where it turns true), after a block where that block made it
true, and once per scan.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import FbdError
from .condition import Condition, _Prev, compile_condition


class Breakpoint:
    """A condition the debugger checks after every scan (and every stepped block).

    ``enabled`` may be set directly; ``hits`` counts the pauses it caused;
    ``paths`` are the signals it reads (for the views to mark).
    """

    def __init__(self, ident: int, condition: Condition, edge: bool, enabled: bool):
        self.id = ident
        self.condition = condition
        self.text = condition.text
        self.paths = condition.paths
        self.edge = edge
        self.enabled = enabled
        self.hits = 0
        self._was = False   # whether it held at the previous check (edge breakpoints)

    def __repr__(self) -> str:
        flags = ("" if self.enabled else ", disabled") + (", edge" if self.edge else "")
        return f"<Breakpoint {self.id} {self.text!r}{flags}, {self.hits} hits>"


@dataclass(frozen=True)
class Hit:
    """Where a run paused because breakpoints held.

    ``scan``: the number of the scan they held in (after it completed, or the
    scan in progress when ``block`` is set); ``time_us``: that scan's simulated
    time as NOW reads it; ``block``: the path of the block after which they
    held when stepping into a scan (None: at the end of a scan). A line
    breakpoint's hit is *before* a statement: ``line``, ``instance`` (the POU
    instance's path; a FUNCTION's caller's) and ``pou`` (``FUNCTION_BLOCK
    Counter``) say which, ``block`` the ST block whose call it is in.
    """
    breakpoints: tuple
    scan: int
    time_us: int
    block: str | None = None
    line: int | None = None
    instance: str | None = None
    pou: str | None = None

    def describe(self) -> str:
        if self.line is not None:
            ids = ", ".join(str(bp.id) for bp in self.breakpoints)
            return f"line breakpoint {ids} before line {self.line} of {self.pou} " \
                   f"({self.instance}) in scan {self.scan}"
        what = ', '.join(bp.text for bp in self.breakpoints)
        where = f"after block {self.block} in scan {self.scan}" if self.block else \
            f"after scan {self.scan}"
        return f"{what} held {where}"


class ScanChecker:
    """The recorder the debugger attaches to the main task during its runs: checks
    the enabled breakpoints after each scan, halts the run at the first that holds."""

    def __init__(self, plc, active: list[Breakpoint], prev: _Prev):
        self.plc = plc
        self.checks = [(bp, bp.condition.fn, bp.edge) for bp in active]
        self.prev = prev if any(bp.condition.history for bp in active) else None
        self.hit: Hit | None = None

    def record(self, s: list, scan: int, now_us: int) -> None:
        fired = None
        for bp, fn, edge in self.checks:
            if fn(s):
                if not (edge and bp._was):
                    if fired is None:
                        fired = [bp]
                    else:
                        fired.append(bp)
                bp._was = True
            else:
                bp._was = False
        if self.prev is not None:
            self.prev.take(s, scan)
        if fired is not None and self.hit is None:
            self.hit = Hit(tuple(fired), scan, now_us)
            self.plc.halt(now_us)


class Breakpoints:
    """The breakpoints of one debugger, in the order they were added."""

    def __init__(self, table: list, scans: int):
        self._list: list[Breakpoint] = []
        self._next_id = 1
        self.prev = _Prev()                 # the previous scan's values, shared by conditions
        self.prev.take(table, scans)
        self._held: dict[Breakpoint, bool] = {}   # in a stepped scan: held at the last check
        self._fired_in_scan: set[Breakpoint] = set()

    def all(self) -> list[Breakpoint]:
        return list(self._list)

    def new_id(self) -> int:
        """The next breakpoint number (line breakpoints share the numbering)."""
        ident, self._next_id = self._next_id, self._next_id + 1
        return ident

    def active(self) -> list[Breakpoint]:
        return [bp for bp in self._list if bp.enabled]

    def sync_prev(self, table: list, scans: int) -> None:
        """changed() compares with the previous scan's end: if scans ran that the
        debugger did not see, the table now holds that end."""
        if self.prev.scan != scans:
            self.prev.take(table, scans)

    @staticmethod
    def check(text: str, program, table: list) -> Condition:
        """Parse and compile ``text`` without adding it; raises ConditionError."""
        return compile_condition(text, program, _Prev(), table)

    def add(self, text: str, program, table: list, edge: bool, enabled: bool) -> Breakpoint:
        cond = compile_condition(text, program, self.prev, table)
        bp = Breakpoint(self.new_id(), cond, edge, enabled)
        bp._was = bool(cond.fn(table))
        self._list.append(bp)
        return bp

    def remove(self, bp: Breakpoint | int) -> None:
        self._list.remove(self.find(bp))

    def enable(self, bp: Breakpoint | int, enabled: bool, table: list) -> None:
        target = self.find(bp)
        target.enabled = enabled
        target._was = bool(target.condition.fn(table))

    def find(self, bp: Breakpoint | int) -> Breakpoint:
        for candidate in self._list:
            if candidate is bp or candidate.id == bp:
                return candidate
        name = bp.id if isinstance(bp, Breakpoint) else bp
        raise FbdError(f"no breakpoint {name!r}; there are "
                       f"{', '.join(str(b.id) for b in self._list) or 'none'}")

    def __len__(self) -> int:
        return len(self._list)

    def clear_hits(self) -> None:
        for bp in self._list:
            bp.hits = 0

    def restarted(self, table: list, scans: int) -> None:
        """The table was reset: conditions compare with it from now on."""
        self.prev.take(table, scans)
        for bp in self._list:
            bp._was = bool(bp.condition.fn(table))

    def checker(self, plc) -> ScanChecker | None:
        """The recorder for a batched run (None: no breakpoint is enabled)."""
        active = self.active()
        return ScanChecker(plc, active, self.prev) if active else None

    # -- a scan stepped into, block by block ------------------------------------------------
    def begin_scan(self, table: list) -> None:
        self._held = {bp: bool(bp.condition.fn(table)) for bp in self.active()}
        self._fired_in_scan = set()

    def after_block(self, table: list) -> list[Breakpoint]:
        """The breakpoints the block just run made true (they did not hold before it)."""
        held = self._held
        fired = []
        for bp in self.active():
            holds = bool(bp.condition.fn(table))
            if holds and held.get(bp, True) is False:
                fired.append(bp)
                self._fired_in_scan.add(bp)
            held[bp] = holds
        return fired

    def after_scan(self, table: list, scans: int) -> list[Breakpoint]:
        """The breakpoints that fire at the end of the scan stepped into (each fires
        once per scan: not those that fired at one of its blocks)."""
        fired = []
        for bp in self.active():
            holds = bool(bp.condition.fn(table))
            if holds and not (bp.edge and bp._was) and bp not in self._fired_in_scan:
                fired.append(bp)
            bp._was = holds
        self._fired_in_scan = set()
        self.prev.take(table, scans)
        return fired


__all__ = ["Breakpoint", "Breakpoints", "Hit", "ScanChecker"]
