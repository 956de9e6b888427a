"""What the application shell needs from a panel, and helpers panels share.

A panel is a ``QWidget`` that plays one block program, as a model without
widgets: it writes only the PLC's inputs (through the program's facade) and
reads only its outputs; the block program never reads a widget. The shell owns
time: its real-time loop runs the panel's PLC
(:attr:`Panel.plc`, read on every tick, so a panel may replace its PLC at any
time, e.g. for a new game with other settings) and then calls
:meth:`Panel.refresh`, where the panel reads the outputs it shows.
"""

from __future__ import annotations

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtWidgets import QMenu, QWidget

__all__ = ["Panel", "plc_status"]


class Panel(QWidget):
    """Base class of the panels the shell hosts (see :mod:`hmi.panels`)."""

    title = "panel"
    #: a short message for the window's status bar
    message = pyqtSignal(str)

    @property
    def plc(self):
        """The running :class:`fbd.Plc` the shell should advance, or None."""
        return None

    def refresh(self) -> None:
        """Show the PLC's current outputs (called after every tick of the loop)."""

    def menus(self) -> list[QMenu]:
        """Menus the shell adds to its menu bar while this panel is shown."""
        return []

    def shutdown(self) -> None:
        """The panel is about to be closed or replaced: save what must survive."""


def plc_status(plc) -> str:
    """One line about a PLC: scans, simulated time, wall-clock scan time, overruns."""
    if plc is None:
        return "no PLC"
    st = plc.stats
    overruns = f"{st.overruns} overrun{'s' if st.overruns != 1 else ''}"
    return (f"scan {plc.scans:,}  ·  {plc.time:.3f} s simulated  ·  "
            f"scan time {st.mean_us:.0f} µs mean, {st.max_ns / 1000:.0f} µs max  ·  {overruns}")
