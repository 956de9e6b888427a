"""What passes between the PLC's thread and the OPC UA server (its publishing
thread, and through it the server's process): snapshots of whole scans one
way, clients' writes the other.

The PLC never waits for a client and a client never sees half a scan:

* **Snapshots.** After every instant of the main task (every task due then has
  run: :meth:`fbd.Plc.record_ticks`), if the server has asked for one since
  the last, :meth:`ScanImage.record` copies the tables holding served
  variables, whole (a list copy in C; structures and arrays copied deep). The
  server asks for one (:meth:`ScanImage.request`) once per publishing period,
  takes it when the next scan has ended (:meth:`ScanImage.take`) and compares it
  with the previous one off the PLC's thread, so sampling costs the PLC one
  copy per period, whatever the number of monitored items.
* **Writes.** A client's write, checked and converted by the server, is queued
  (:meth:`ScanImage.queue`) and applied at the start of the main task's next
  scan, in arrival order (a later write to the same variable wins, as on a
  wire), exactly as the Modbus process image hands its writes over
  (:class:`fbd.modbus.image.ProcessImage`). Nothing is written unless a client
  writes it.
"""

from __future__ import annotations

import threading
import time
from typing import NamedTuple


class Snapshot(NamedTuple):
    scan: int            # the main task's scan count
    now_us: int          # simulated time of that scan
    wall: float          # time.time() when it was copied
    tables: list         # one copied table per owner, in ScanImage.owners' order


class ScanImage:
    """Snapshots and queued writes of the variables of a :class:`~.space.Space`
    on a running :class:`~fbd.Plc` (see the module)."""

    def __init__(self, plc, variables):
        self.plc = plc
        self.owners: list = []
        index: dict[int, int] = {}
        mutable: list[set] = []
        watched: list[set] = []
        self.reals: list[set] = []      # per table: the slots holding a REAL or LREAL
        for var in variables:
            k = index.get(id(var.owner))
            if k is None:
                k = index[id(var.owner)] = len(self.owners)
                self.owners.append(var.owner)
                mutable.append(set())
                watched.append(set())
                self.reals.append(set())
            if var.steps or var.type.mutable:
                mutable[k].add(var.slot)
            watched[k].add(var.slot)
            if var.type.kind == "real" and not var.steps:
                self.reals[k].add(var.slot)
        self.owner_index = index
        self.watched = [sorted(w) for w in watched]     # per table: the slots served
        self._deep = [sorted(m) for m in mutable]
        self.lock = threading.Lock()
        self._pending: list = []
        self.wanted = False
        self.latest: Snapshot | None = None
        self.on_snapshot = None     # called (in the PLC's thread) when a requested copy is made
        self.applied = self.dropped = 0
        self._task = plc.main
        self._task.before_scan.insert(0, self._before_scan)   # before a globals link loads
        plc.record_ticks(self)
        self.record(None, plc.scans, plc.now_us, force=True)

    def detach(self) -> None:
        """Stop following the PLC (a new program, or the server stopping)."""
        if self._before_scan in self._task.before_scan:
            self._task.before_scan.remove(self._before_scan)
        self.plc.untrace(self)

    # -- the PLC's thread ------------------------------------------------------------
    def record(self, _view, scan: int, now_us: int, force: bool = False) -> None:
        if not (self.wanted or force):
            return
        tables = []
        for owner, deep in zip(self.owners, self._deep):
            table = owner.s[:]
            for slot in deep:
                table[slot] = _deep_copy(table[slot])
            tables.append(table)
        snap = Snapshot(scan, now_us, time.time(), tables)
        with self.lock:
            self.latest = snap
            self.wanted = False
        if self.on_snapshot is not None and not force:
            self.on_snapshot()

    def _before_scan(self, _task) -> None:
        if self._pending:
            with self.lock:
                pending, self._pending = self._pending, []
            for var, raw in pending:
                self._apply(var, raw)

    def _apply(self, var, raw) -> None:
        owner, slot = var.owner, var.slot
        if slot in getattr(owner, "forces", ()):
            self.dropped += 1      # a force holds the variable: it wins, as on a PLC
            return
        self.applied += 1
        if var.kind == "input":
            # a program input: latched at the start of the scan, as Plc.set does
            value = _with(owner.image[slot], var.steps, raw)
            owner.pending[slot] = owner.image[slot] = value
            return
        if var.steps:
            _with(owner.s[slot], var.steps, raw, in_place=True)
        else:
            owner.s[slot] = raw

    # -- the server's thread -----------------------------------------------------------
    def request(self) -> None:
        """Ask for a copy of the next scan to end."""
        self.wanted = True

    def take(self) -> Snapshot | None:
        """The snapshot copied since the last call, None if there is none."""
        with self.lock:
            snap, self.latest = self.latest, None
        return snap

    def queue(self, writes: list) -> None:
        """Checked, converted writes, (variable, value) pairs in their order, for the
        start of the next scan: all of them for the same scan."""
        with self.lock:
            self._pending.extend(writes)


def _deep_copy(value):
    if isinstance(value, list):
        return [_deep_copy(x) for x in value]
    return value


def _with(value, steps: tuple, raw, in_place: bool = False):
    """``value`` with the element at ``steps`` replaced by ``raw`` (a copy unless
    ``in_place``); ``raw`` itself when there are no steps."""
    if not steps:
        return raw
    top = value if in_place else _deep_copy(value)
    inner = top
    for k in steps[:-1]:
        inner = inner[k]
    inner[steps[-1]] = raw
    return top


__all__ = ["ScanImage", "Snapshot"]
