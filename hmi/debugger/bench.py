"""What refreshing the debugger costs a free-running PLC: ``python -m hmi.debugger.bench``.

The issue's budget: refreshing the UI (at most 30 Hz) must not slow a
free-running PLC by more than 2x. This prints scans per second on the 2048
program at the ``max`` speed

- *bare*: the model alone (``Debugger.advance`` in a loop, no Qt);
- *window*: the :class:`~hmi.debugger.window.DebuggerWindow` open, its own
  timer advancing the PLC and refreshing the views (at most
  :data:`~hmi.debugger.window.REFRESH_HZ`), in a real Qt event loop, once on
  the top level and once inside the ``cell_0_0`` macro, with a watch and the
  hierarchy tree expanded;

and the slowdown (bare / window). Speed is measured here, not in the tests.
Runs offscreen unless ``QT_QPA_PLATFORM`` says otherwise.
"""

from __future__ import annotations

import argparse
import os
import time


def _game():
    from programs.game2048 import Game2048
    g = Game2048(seed=1)
    g.start()
    return g


def bare(seconds: float) -> float:
    """Scans/s of the model alone at MAX speed."""
    from fbd.debug.debugger import MAX, Debugger
    dbg = Debugger(_game().plc)
    dbg.speed = MAX
    dbg.run()
    start = time.perf_counter()
    before = dbg.scans
    while time.perf_counter() - start < seconds:
        dbg.advance(0.0)
    rate = (dbg.scans - before) / (time.perf_counter() - start)
    dbg.close()
    return rate


def window(seconds: float, level: str = "") -> tuple[float, int, float]:
    """Scans/s, refreshes/s and the mean ms per refresh with the debugger window
    running the PLC at MAX."""
    from PyQt6.QtCore import QEventLoop, QTimer

    from hmi.app import application

    from .window import DebuggerWindow
    app = application()  # noqa: F841  (kept alive for the run)
    win = DebuggerWindow(_game().plc)
    win.resize(1280, 860)
    win.show()
    if level:
        win.diagram.view.show_level(level)
    win.debugger.watch("cell_0_0.memory.OUT")
    win.debugger.watch("SCORE")
    for path in ("control", "cell_0_0", "cell_0_0.memory"):
        item = win.tree.find(path)
        if item is not None:
            item.setExpanded(True)
    refreshes, spent = 0, 0.0
    plain = win.refresh

    def timed():
        nonlocal refreshes, spent
        t0 = time.perf_counter()
        plain()
        spent += time.perf_counter() - t0
        refreshes += 1
    win.refresh = timed
    win.speed.setCurrentText("max")
    loop = QEventLoop()
    QTimer.singleShot(300, loop.quit)            # settle (first paints)
    loop.exec()
    win.actions_by_name["run"].trigger()
    refreshes, spent = 0, 0.0
    before = win.debugger.scans
    start = time.perf_counter()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    elapsed = time.perf_counter() - start
    rate = (win.debugger.scans - before) / elapsed
    win.close()
    return rate, round(refreshes / elapsed), 1000 * spent / max(refreshes, 1)


def main(argv=None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    ap.add_argument("--repeat", type=int, default=3,
                    help="measurements of each, interleaved; the best is shown (a busy "
                         "machine only ever slows a run down)")
    args = ap.parse_args(argv)
    cases = (("top level", ""), ("inside cell_0_0", "cell_0_0."))
    base, runs = 0.0, {name: (0.0, 0, 0.0) for name, _ in cases}
    for _ in range(args.repeat):
        base = max(base, bare(args.seconds))
        for name, level in cases:
            result = window(args.seconds, level)
            if result[0] > runs[name][0]:
                runs[name] = result
    print(f"bare model, max speed:            {base:10,.0f} scans/s")
    for name, _level in cases:
        rate, hz, ms = runs[name]
        print(f"window, diagram {name:16s}  {rate:10,.0f} scans/s  ({hz} refreshes/s, "
              f"{ms:.2f} ms each = {hz * ms / 10:.1f}% of the time)  slowdown x{base / rate:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
