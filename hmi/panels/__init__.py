"""The registry of HMI panels: program name → panel factory.

A panel is a widget that plays one block program (see :class:`hmi.panel.Panel`).
Adding a program to the application shell and to ``fbd hmi PROGRAM`` is one
line here::

    register_panel("sudoku", "hmi.panels.sudoku:SudokuPanel", "Sudoku")

The factory is named as ``"module:attribute"`` and imported only when the
panel is opened, so listing the programs (``fbd hmi --help``, the shell's
*Program* menu) imports neither Qt nor any program. A callable works too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PanelEntry", "PANELS", "register_panel", "panel_names"]


@dataclass(frozen=True)
class PanelEntry:
    name: str                       # as typed on the command line: ``fbd hmi NAME``
    factory: str | Callable         # "module:attribute" or a callable; called with no arguments
    title: str                      # shown in the Program menu and the window title

    def load(self) -> Callable:
        """The factory itself (imports its module)."""
        if callable(self.factory):
            return self.factory
        module, _, attr = self.factory.partition(":")
        obj = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj


PANELS: dict[str, PanelEntry] = {}


def register_panel(name: str, factory: str | Callable, title: str | None = None) -> PanelEntry:
    """Register a panel under ``name``; a name taken twice is an error."""
    if name in PANELS:
        raise ValueError(f"a panel named {name!r} is already registered ({PANELS[name].factory})")
    entry = PanelEntry(name, factory, title or name)
    PANELS[name] = entry
    return entry


def panel_names() -> list[str]:
    return list(PANELS)


# -- the programs --------------------------------------------------------------------
register_panel("2048", "hmi.panels.game2048:Game2048Panel", "2048")
register_panel("sudoku", "hmi.panels.sudoku:SudokuPanel", "Sudoku")
register_panel("jigsaw", "hmi.panels.sudoku:JigsawPanel", "Jigsaw Sudoku")
register_panel("hidato", "hmi.panels.hidato:HidatoPanel", "Hidato")
