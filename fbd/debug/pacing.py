"""How many scans a running debugger owes after some wall time, and running them
without freezing the caller.

A GUI timer calls :meth:`Pacer.advance` with the wall seconds since its last
call; the pacer turns them, at its speed, into whole cycles (the rest carried
to the next call), caps them at ``max_scans`` and runs them in batches sized
to about ``budget_s`` wall seconds. Scans due beyond the caps are dropped,
not owed (counted in ``dropped_scans``), so a slow program runs slower than
asked instead of freezing the UI. Speed :data:`MAX` means as fast as the
budget allows.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import FbdError

#: ``speed`` for "as fast as possible"
MAX = math.inf


class Pacer:
    """Scans due at a speed over wall time, run within a wall-time budget per call."""

    def __init__(self, max_scans: int, budget_s: float, clock: Callable[[], float]):
        if max_scans < 1:
            raise FbdError(f"max_scans must be at least 1, not {max_scans!r}")
        self.max_scans = max_scans
        self.budget_s = budget_s
        self.clock = clock
        self._speed = 1.0
        self.debt_ns = 0
        self.dropped_scans = 0     # scans due at the set speed but not run (over a cap)
        self._batch = 1            # scans per simpy run, adapted to the budget

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not (isinstance(value, (int, float)) and value > 0):
            raise FbdError(f"speed must be a positive number (or MAX), not {value!r}")
        self._speed = float(value)
        self.debt_ns = 0

    def due(self, wall_seconds: float, cycle_us: int) -> int:
        """The scans owed after ``wall_seconds`` more of wall time, at most ``max_scans``."""
        if wall_seconds < 0:
            raise FbdError(f"wall time cannot go backwards ({wall_seconds!r} s)")
        if self._speed == MAX:
            return self.max_scans
        self.debt_ns += round(round(wall_seconds * 1e9) * self._speed)
        due, self.debt_ns = divmod(self.debt_ns, cycle_us * 1000)
        if due > self.max_scans:
            self.dropped_scans += due - self.max_scans
            due = self.max_scans
        return due

    def run(self, due: int, run_scans: Callable[[int], tuple], owed: bool = True):
        """Run ``due`` scans through ``run_scans(k) -> (scans run, hit or None)`` in
        batches, until a hit or the budget is spent; returns the hit. ``owed``: the
        scans are due at the speed (those not run are dropped and counted); else they
        are only as many as may run (a run to a breakpoint goes on at the next call)."""
        # The clock is read between batches: the first is the size the last call
        # ended with, then each is what fits in the budget left at the rate seen
        # so far, at most double the last.
        start = self.clock()
        done, batch, hit = 0, self._batch, None
        while done < due:
            k = min(batch, due - done)
            ran, hit = run_scans(k)
            done += ran
            if hit is not None:
                break
            self._batch = k
            elapsed = self.clock() - start
            if elapsed >= self.budget_s:
                break
            per_scan = elapsed / done
            fits = int((self.budget_s - elapsed) / per_scan) if per_scan > 0 else 2 * k
            batch = max(1, min(2 * k, fits))
        if hit is None and done < due and owed and self._speed != MAX:
            self.dropped_scans += due - done
        return hit


__all__ = ["MAX", "Pacer"]
