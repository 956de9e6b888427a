"""The real-time loop's model: how much simulated time each UI tick owes the PLC.

Qt-free, so its timing rules are unit-tested with plain numbers. The window's
``QTimer`` calls :meth:`RealTimeLoop.due` with the wall clock every 10 ms or
so and runs the scans it returns (``plc.scan(n)``); the PLC itself stays on
simulated time (a virtual simpy environment), so a scan is always exactly one
cycle of simulated time, whatever the host does.

Why not ``Plc(realtime=True)``: simpy's real-time environment paces the PLC by
sleeping, which would freeze the UI thread; here the UI thread owns the pacing
and the PLC never sleeps.

The rules:

- Wall time elapsed since the previous tick (times ``speed``) is added to a
  *debt*; the whole cycles in the debt are the scans due; the remainder is
  kept, so simulated time follows the wall clock with no drift (in integer
  nanoseconds) even when ticks come every 16.7 ms and cycles are 5 ms.
- At most ``max_scans`` scans are run in one tick. When the UI stalls (a modal
  dialog, a debugger, a suspended laptop), the debt beyond that is *dropped*,
  not run later: the PLC slips behind the wall clock instead of running
  thousands of scans in one burst and freezing the UI again. The time dropped
  is counted (:attr:`dropped_ns`) so the status bar can show it.
- While paused, the wall time passes and nothing is owed; resuming starts
  from a clean slate (no burst of the paused time).
- The clock never goes backwards: a timestamp earlier than the last one owes
  nothing.
"""

from __future__ import annotations

import time

__all__ = ["RealTimeLoop"]


class RealTimeLoop:
    """Wall-clock ticks → whole PLC scans, with a catch-up cap.

    >>> loop = RealTimeLoop(cycle_us=5000, max_scans=20)
    >>> loop.due(0), loop.due(16_000_000), loop.due(33_000_000)
    (0, 3, 3)
    >>> loop.due(2_000_000_000)   # a 2 s stall: 20 scans run, the rest is dropped
    20
    """

    def __init__(self, cycle_us: int = 5000, *, max_scans: int = 20, speed: float = 1.0,
                 clock=time.monotonic_ns):
        if cycle_us <= 0:
            raise ValueError(f"cycle_us must be positive, not {cycle_us!r}")
        if max_scans < 1:
            raise ValueError(f"max_scans must be at least 1, not {max_scans!r}")
        self.cycle_ns = cycle_us * 1000
        self.max_scans = max_scans
        self.clock = clock
        self._speed = 1.0
        self.speed = speed
        self.paused = False
        self._last: int | None = None
        self._debt_ns = 0
        self.ticks = 0
        self.scans = 0          # scans handed out
        self.dropped_ns = 0     # simulated time owed but dropped by the cap

    # -- settings -------------------------------------------------------------------
    @property
    def speed(self) -> float:
        """Simulated seconds per wall second (1.0 = real time)."""
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not value > 0:
            raise ValueError(f"speed must be positive, not {value!r}")
        self._speed = float(value)

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        """Run again from now: the time spent paused is not owed."""
        self.paused = False
        self.restart()

    def restart(self) -> None:
        """Forget the time owed and the last timestamp (a new PLC, a resume)."""
        self._last = None
        self._debt_ns = 0

    # -- the tick -------------------------------------------------------------------
    def due(self, now_ns: int | None = None) -> int:
        """The scans to run now, at wall time ``now_ns`` (default: ``clock()``).

        The first call after construction, :meth:`restart` or :meth:`resume` only
        sets the reference time and returns 0.
        """
        if now_ns is None:
            now_ns = self.clock()
        self.ticks += 1
        last, self._last = self._last, now_ns
        if last is None or self.paused:
            return 0
        elapsed = now_ns - last
        if elapsed <= 0:
            self._last = last          # the clock went backwards: keep the later reference
            return 0
        self._debt_ns += round(elapsed * self._speed)
        n, self._debt_ns = divmod(self._debt_ns, self.cycle_ns)
        if n > self.max_scans:
            self.dropped_ns += (n - self.max_scans) * self.cycle_ns
            n = self.max_scans
        self.scans += n
        return n

    @property
    def owed_ns(self) -> int:
        """Simulated time owed but less than one cycle (carried to the next tick)."""
        return self._debt_ns

    def __repr__(self) -> str:
        state = "paused" if self.paused else f"x{self._speed:g}"
        return (f"<RealTimeLoop {self.cycle_ns // 1000} us cycles, {state}, {self.scans} scans, "
                f"{self.dropped_ns / 1e9:.3f} s dropped>")
