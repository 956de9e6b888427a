"""The debugger's views (Qt) over the model in :mod:`fbd.debug`.

- :mod:`.diagram`: the diagram view (boxes, wires, live values; its layout is
  :mod:`fbd.debug.layout`'s), :mod:`.diagram_panel` with its breadcrumb;
- :mod:`.views`: hierarchy tree, watch list, breakpoints; :mod:`.trends`;
  :mod:`.source`: an ST POU's source and an SFC chart's steps;
- :mod:`.window`: :class:`DebuggerWindow`, the status bar and the 30 Hz timer;
  :mod:`.toolbar` and its painted :mod:`.icons`;
- :mod:`.cli`: the ``fbd debug TARGET`` verb.
"""

from __future__ import annotations

__all__ = ["DebuggerWindow"]


def __getattr__(name):
    if name == "DebuggerWindow":
        from .window import DebuggerWindow
        return DebuggerWindow
    raise AttributeError(name)
