"""The diagram's layout now lives in :mod:`fbd.layout` (Qt-free; the PLCopen export
places its boxes with it too); re-exported here for the debugger's views."""

from fbd.layout import (  # noqa: F401
    COL_GAP,
    HEADER_H,
    PORT_H,
    ROW_GAP,
    Box,
    Level,
    Wire,
    crossings,
    layout_level,
    overlaps,
)

__all__ = ["Box", "Wire", "Level", "layout_level", "overlaps", "crossings", "PORT_H",
           "HEADER_H", "COL_GAP", "ROW_GAP"]
