"""The debugger's toolbar: icons with tooltips and shortcuts, as CODESYS and VS Code
debuggers have, so the whole bar fits a small window (the run state and the scan
counter are in the status bar, where they are always seen).

Each action keeps its words (``text()``: the tooltip's first words, a menu's
entry) and its tooltip names its shortcut. The window gives the slots; the
toolbar only lays them out.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QSize, Qt
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QComboBox, QSpinBox, QToolBar

from fbd.debug.debugger import TO_BREAK_LIMIT

from .icons import icon

__all__ = ["DebugToolbar", "SPEEDS"]

#: the speed box's choices: simulated seconds per wall second
SPEEDS = {"real time": 1.0, "x10": 10.0, "max": float("inf")}


class DebugToolbar(QToolBar):
    """The actions (``actions_by_name``), the scans of *Step N* (``step_n``) and the
    speed (``speed``). ``slots`` maps each action's name to what it does; ``guard``
    calls a slot and shows what it raises."""

    def __init__(self, slots: dict[str, Callable], guard: Callable, *, has_st: bool,
                 parent=None):
        super().__init__("Debug", parent)
        self.setMovable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.setIconSize(QSize(24, 24))
        self.actions_by_name: dict[str, QAction] = {}

        def action(name: str, text: str, shortcuts: tuple[str, ...], tip: str) -> QAction:
            a = self.addAction(icon(name), text)
            a.triggered.connect(lambda _=False: guard(slots[name]))
            if shortcuts:
                a.setShortcuts(list(shortcuts))
            keys = " or ".join(shortcuts)
            a.setToolTip(f"<b>{text}</b>" + (f" ({keys})" if keys else "") + f"<br>{tip}")
            self.actions_by_name[name] = a
            return a

        action("run", "Run", ("F5",), "Run the PLC at the chosen speed")
        action("pause", "Pause", ("Shift+F5", "Esc"), "Pause the PLC (a long To break too)")
        self.addSeparator()
        action("step", "Step", ("F10",), "Run one whole scan")
        action("step_n", "Step N scans", ("Ctrl+F10",), "")
        self.step_n = QSpinBox()
        self.step_n.setRange(1, 1_000_000)
        self.step_n.setGroupSeparatorShown(True)
        self.step_n.setToolTip("How many whole scans Step N scans (Ctrl+F10) runs")
        self.step_n.valueChanged.connect(self._step_n_text)
        self.step_n.setValue(10)
        self.addWidget(self.step_n)
        self.addSeparator()
        action("step_into", "Step into", ("F11",), "Run the next block of the scan (begins a "
               "scan first); the diagram follows it into macros")
        action("finish", "Finish", ("Shift+F11",), "Run the rest of the scan stepped into")
        action("until", "To break", ("Ctrl+F5",), f"Run as fast as possible until a breakpoint "
               f"fires, at most {TO_BREAK_LIMIT:,} scans; Esc stops it")
        self.addSeparator()
        action("step_line", "Step line", ("F7",), "Run to the next statement of an ST, IL or "
               "SFC POU, into the POUs it calls")
        action("step_over", "Line over", ("F8",), "Run to the next statement, over the POUs "
               "this one calls")
        if not has_st:
            for name in ("step_line", "step_over"):
                a = self.actions_by_name[name]
                a.setEnabled(False)
                a.setToolTip(a.toolTip().split("<br>")[0] + "<br>no ST, IL or SFC POU in this "
                             "program")
        self.addSeparator()
        action("warm", "Warm restart", (), "Every variable back to its initial value; forces, "
               "watches, breakpoints and the trend kept")
        action("cold", "Cold restart", (), "As warm, and every force released, the trend and "
               "the statistics cleared")
        self.addSeparator()
        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.setToolTip("Speed of Run: real time, ten times real time, or as fast as "
                              "the window allows")
        self.addWidget(self.speed)

    def _step_n_text(self, n: int) -> None:
        step_n = self.actions_by_name.get("step_n")
        if step_n is not None:
            step_n.setText(f"Step {n:,} scan{'s' if n != 1 else ''}")
            step_n.setToolTip(f"<b>{step_n.text()}</b> (Ctrl+F10)<br>Run the number of whole "
                              f"scans set beside")
