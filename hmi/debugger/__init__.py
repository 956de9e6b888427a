"""The debugger's views (Qt) over the model in :mod:`fbd.debug`.

- :mod:`.layout`: the Qt-free layout of one network level;
- :mod:`.diagram`: the diagram view (boxes, wires, live values, breadcrumb);
- :mod:`.views`: hierarchy tree, watch list, breakpoints, trends;
- :mod:`.window`: :class:`DebuggerWindow`, the toolbar and the 30 Hz timer;
- :mod:`.cli`: the ``fbd debug MODULE:FUNCTION`` verb.
"""

from __future__ import annotations

__all__ = ["DebuggerWindow"]


def __getattr__(name):
    if name == "DebuggerWindow":
        from .window import DebuggerWindow
        return DebuggerWindow
    raise AttributeError(name)
