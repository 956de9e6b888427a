"""The README's screenshots, made from the real panels: ``python -m hmi.screenshots [--out docs]``.

Renders offscreen (``QT_QPA_PLATFORM=offscreen`` unless a platform is set), on a
clock that moves only when told, so the same code gives the same pictures on
any machine: a game of 2048 played by the block program for a while, and the
debugger on that game's PLC, stepping into a cell's scan with two signals
watched and one forced, then its trends over a few moves, and the debugger on
an ST program (a tank filled in steps by an SFC function block) paused at a
line breakpoint. A test runs it into a temporary folder, so the
script cannot rot; run it again when a panel changes and commit the PNGs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["SHOTS", "main", "make_screenshots"]

#: The files written, by name: what each shows.
SHOTS = {
    "hmi-2048.png": "the 2048 panel in the application window, mid-game",
    "debugger.png": "the debugger on the game's PLC, stepping into a cell's scan",
    "debugger-trends.png": "the debugger's trends of a few moves, as logic-analyser lanes",
    "debugger-st.png": "the debugger paused at a line of an ST program, with its SFC steps",
}
#: The moves played before the 2048 picture: a corner strategy, as a player would.
PREFERENCE = ("down", "left", "right", "up")
MOVES = 100
#: The cell the debugger shows, stepped into up to its Memory block.
CELL = "cell_1_2"
#: The ST program of the source view's picture: a tank an SFC function block fills and drains.
TANK = """\
FUNCTION_BLOCK Filling
VAR_INPUT start, full : BOOL; END_VAR
VAR_OUTPUT valve, pump : BOOL; END_VAR
  INITIAL_STEP Idle: END_STEP
  TRANSITION FROM Idle TO Fill := start; END_TRANSITION
  STEP Fill: valve(N); END_STEP
  TRANSITION FROM Fill TO Drain := full; END_TRANSITION
  STEP Drain: pump(N); END_STEP
  TRANSITION FROM Drain TO Idle := Drain.T >= T#40ms AND NOT full; END_TRANSITION
END_FUNCTION_BLOCK

PROGRAM Tank
VAR
  level : REAL;
  high : BOOL;
  fills : INT;
  seq : Filling;
END_VAR
  high := level >= 80.0;
  seq(start := level < 10.0, full := high);
  IF seq.valve THEN
    level := level + 7.5;
  ELSIF seq.pump THEN
    level := MAX(level - 25.0, 0.0);
    IF level = 0.0 THEN
      fills := fills + 1;
    END_IF;
  END_IF;
END_PROGRAM
"""
#: The line of TANK the picture is paused at (draining).
TANK_BREAK = 24


class _Clock:
    """A wall clock that moves only when the script says (ns, as ``time.monotonic_ns``)."""

    def __init__(self):
        self.ns = 0

    def __call__(self) -> int:
        return self.ns


def _advance(window, clock: _Clock, ms: int) -> None:
    for _ in range(ms // 10):
        clock.ns += 10_000_000
        window.tick()


def _play(window, clock: _Clock, panel, moves: int) -> None:
    """Play ``moves`` moves through the panel's commands, as key presses would: the
    first direction of :data:`PREFERENCE` that changes the board."""
    panel.begin()                                     # Start: the first two tiles
    _advance(window, clock, 100)
    for _ in range(moves):
        for direction in PREFERENCE:
            before = panel.game.board
            panel.command(direction)
            _advance(window, clock, 30)
            while panel.game.busy:
                _advance(window, clock, 10)
            if panel.game.board != before:
                break
        if panel.game.game_over:
            break
    _advance(window, clock, 100)


def make_screenshots(out: Path) -> list[Path]:
    """Write the :data:`SHOTS` into ``out`` (created if need be); return their paths."""
    from PyQt6.QtWidgets import QAbstractItemView

    from .app import MainWindow, application
    from .debugger.window import DebuggerWindow
    from .panels.game2048 import BestScore, Game2048Panel

    app = application()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:       # the player's best score stays untouched
        clock = _Clock()
        panel = Game2048Panel(seed=2, best=BestScore(Path(tmp) / "best.json"))
        window = MainWindow("2048", panel=panel, clock=clock, autostart=False)
        window.resize(560, 820)
        window.show()
        window.tick()
        _play(window, clock, panel, MOVES)
        app.processEvents()
        written.append(_save(window, out / "hmi-2048.png"))

        debugger = DebuggerWindow(panel.plc, autostart=False)
        debugger.resize(1280, 860)
        debugger.show()
        dbg = debugger.debugger
        dbg.watch("SCORE")
        dbg.watch(f"{CELL}.memory.OUT")
        dbg.force("cell_0_0.Clear", False)
        dbg.step(20)
        view = debugger.diagram.view
        view.enter(CELL)
        dbg.step_into()                               # begins the scan, then block by block
        while not (dbg.current_block or "").startswith(f"{CELL}.memory"):
            dbg.step_into()
        debugger.refresh()
        app.processEvents()                           # lay the window out before scrolling it
        view.centerOn(view.box_items["memory"])       # readable size, the current block in view
        for path in (CELL, f"{CELL}.memory"):
            debugger.tree.find(path).setExpanded(True)
        debugger.tree.scrollToItem(debugger.tree.find(CELL), QAbstractItemView.ScrollHint.PositionAtTop)
        app.processEvents()
        written.append(_save(debugger, out / "debugger.png"))

        dbg.finish_scan()
        dbg.unforce("cell_0_0.Clear")
        dbg.trend(["BUSY", "MOVED", "SCORE", f"{CELL}.memory.OUT"])
        for direction in PREFERENCE * 2:
            panel.command(direction)
            dbg.step(12)
        debugger.tabs.setCurrentWidget(debugger.trends)
        debugger.centralWidget().setSizes([330, 470])   # room for four lanes
        debugger.refresh()
        app.processEvents()
        debugger.trends.set_cursor(dbg.scans - 30)
        app.processEvents()
        written.append(_save(debugger, out / "debugger-trends.png"))
        debugger.close()
        window.close()
    written.append(_st_debugger(app, out / "debugger-st.png"))
    return written


def _st_debugger(app, path: Path) -> Path:
    """The debugger on :data:`TANK`, paused at a line breakpoint in its 12th scan."""
    from fbd.st.project import load

    from .debugger.window import DebuggerWindow

    debugger = DebuggerWindow(load("tank.st", TANK).plc(cycle=0.01), autostart=False)
    debugger.resize(1280, 860)
    debugger.show()
    dbg = debugger.debugger
    dbg.step(5)
    debugger.source.show_instance("Tank")
    debugger.source.toggle(TANK_BREAK)          # a click in the gutter
    debugger.actions_by_name["until"].trigger()   # runs from the timer, in slices
    wall = 0.0
    while dbg.state == "running":
        wall += 0.05
        debugger.tick(wall)
    debugger.tabs.setCurrentWidget(debugger.sfc)
    debugger.refresh()
    app.processEvents()
    saved = _save(debugger, path)
    debugger.close()
    return saved


def _save(widget, path: Path) -> Path:
    if not widget.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hmi.screenshots",
                                     description="Render the README's screenshots offscreen.")
    parser.add_argument("--out", type=Path, default=Path("docs"),
                        help="the folder to write them to (default: docs)")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for path in make_screenshots(args.out):
        print(f"screenshots: wrote {path} ({SHOTS[path.name]})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
