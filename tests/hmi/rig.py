"""Driving the 2048 panel in tests: a window on a fake clock, time moved by hand."""

from __future__ import annotations

from hmi.app import MainWindow
from hmi.panels.game2048 import BestScore, Game2048Panel

TICK_NS = 10_000_000   # the window's 10 ms tick


class Clock:
    """A wall clock that moves only when told."""

    def __init__(self):
        self.ns = 0

    def __call__(self) -> int:
        return self.ns


class Rig:
    """A MainWindow hosting a Game2048Panel, on a fake clock, its timer stopped."""

    def __init__(self, qtbot, best_path, seed: int = 1, start: bool = True, **settings):
        self.clock = Clock()
        self.panel = Game2048Panel(seed=seed, best=BestScore(best_path), **settings)
        self.window = MainWindow("2048", panel=self.panel, clock=self.clock, autostart=False)
        qtbot.addWidget(self.window)
        self.window.resize(560, 820)
        self.window.show()
        self.window.tick()          # the loop's reference time
        if start:                   # the panel opens ready: Start places two tiles
            self.panel.start()
            self.settle()

    @property
    def game(self):
        return self.panel.game

    def advance(self, ms: int) -> int:
        """Move the clock ``ms`` milliseconds in 10 ms ticks; return the scans run."""
        scans = 0
        for _ in range(ms // 10):
            self.clock.ns += TICK_NS
            scans += self.window.tick()
        return scans

    def settle(self, max_ms: int = 2000) -> None:
        """Advance until the PLC has taken the last command and finished it."""
        self.advance(20)
        waited = 20
        while self.game.busy:
            assert waited < max_ms, f"the PLC is still busy after {max_ms} ms"
            self.advance(10)
            waited += 10
        self.advance(20)

    def load(self, grid) -> None:
        self.game.load_board(grid)
        self.window.tick()


def open_debugger(qtbot, plc, size=(1280, 860)):
    """A DebuggerWindow on ``plc``, its timer stopped (time moves when a test ticks it),
    shown at ``size``."""
    from hmi.debugger.window import DebuggerWindow
    window = DebuggerWindow(plc, autostart=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    return window


def game_2048_plc():
    """A started 2048's PLC on seed 1."""
    from programs.game2048 import Game2048
    game = Game2048(seed=1)
    game.start()
    return game.plc
