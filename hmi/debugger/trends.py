"""The debugger's trends, drawn as a logic analyser draws them.

Each trended signal has a lane of its own, stacked top to bottom and sharing
one scan axis: a BOOL is a low lane of 0/1 steps, a number a taller lane with
its own axis (its own scale, shown), a TIME in seconds. The lanes' x ranges
are linked, and the mouse zooms and pans along x only, so they stay aligned
however far one zooms in. One cursor runs through every lane (drag it in any
of them); the readout under the lanes and the tag in each lane give every
signal's value at the cursor, in IEC form (``TRUE``, ``T#1s500ms``). The
cursor follows the newest scan until it is dragged back; *Fit* shows the
whole recording again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QStandardPaths, Qt
from PyQt6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from fbd.debug.debugger import format_value
from fbd.errors import FbdError
from fbd.values import Kind

from .views import PathEdit

__all__ = ["TrendPanel", "Lane", "BOOL_LANE_H", "NUMBER_LANE_H"]

PENS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
BOOL_LANE_H = 46        # px: a BOOL's 0/1 steps
NUMBER_LANE_H = 110     # px: a number, with room for its axis' ticks
AXIS_W = 64             # every lane's left axis as wide, so the lanes' x line up


class Lane:
    """One signal's row: its plot, its curve, its piece of the cursor, its tag."""

    def __init__(self, panel: TrendPanel, path: str, index: int, tp):
        self.path = path
        self.type = tp
        self.is_bool = tp is not None and tp.kind is Kind.BOOL
        self.is_time = tp is not None and tp.kind is Kind.TIME
        plot = panel.graphics.addPlot(row=index, col=0)
        self.plot = plot
        plot.setMouseEnabled(x=True, y=False)         # zoom along the scans only
        plot.showGrid(x=True, y=not self.is_bool, alpha=0.25)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        axis = plot.getAxis("left")
        axis.setWidth(AXIS_W)
        pen = pg.mkPen(PENS[index % len(PENS)], width=1.6)
        if self.is_bool:
            plot.setYRange(-0.25, 1.35, padding=0)
            axis.setTicks([[(0, "0"), (1, "1")]])
            self.curve = plot.plot([], [], pen=pen, stepMode="left",
                                   fillLevel=0, brush=pg.mkBrush(PENS[index % len(PENS)] + "33"))
        else:
            plot.enableAutoRange(axis="y")
            # a PLC value holds from one scan to the next: steps, never slopes between samples
            self.curve = plot.plot([], [], pen=pen, stepMode="left")
        self.cursor = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#555", width=1))
        plot.addItem(self.cursor, ignoreBounds=True)
        unit = " [s]" if self.is_time else ""
        self.name = f"{path}{unit}"
        self.tag = pg.TextItem("", color="#222", anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 210))
        plot.addItem(self.tag, ignoreBounds=True)
        plot.getViewBox().sigRangeChanged.connect(lambda *_: self._place_tag())

    def values(self, raw: np.ndarray) -> np.ndarray:
        y = np.asarray(raw, dtype=float)
        return y / 1e9 if self.is_time else y          # TIME: ns in the table, s on the axis

    def show_tag(self, text: str) -> None:
        self.tag.setText(f"{self.name} = {text}")
        self._place_tag()

    def _place_tag(self) -> None:
        """The tag in the lane's top left corner, wherever the view is."""
        (x0, _x1), (_y0, y1) = self.plot.getViewBox().viewRange()
        self.tag.setPos(x0, y1)


def export_folder() -> Path:
    """Where an export is offered first: the user's documents (else home), not the
    folder the program was started from."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(docs) if docs else Path.home()


class TrendPanel(QWidget):
    """The trended signals over scans, one lane each, with a shared cursor."""

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.path_edit = PathEdit(debugger)
        self.path_edit.returnPressed.connect(self._add)
        add = QPushButton("Trend")
        add.clicked.connect(self._add)
        remove = QPushButton("Remove")
        remove.setToolTip("Remove the signal named in the field (or the last one)")
        remove.clicked.connect(self._remove)
        fit = QPushButton("Fit")
        fit.setToolTip("Show the whole recording (the wheel zooms the scans, dragging pans)")
        fit.clicked.connect(self.fit)
        csv = QPushButton("Export CSV...")
        csv.clicked.connect(lambda: self._export("csv"))
        vcd = QPushButton("Export VCD...")
        vcd.clicked.connect(lambda: self._export("vcd"))
        top = QHBoxLayout()
        for w in (self.path_edit, add, remove, fit, csv, vcd):
            top.addWidget(w)
        top.setStretch(0, 1)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.graphics.ci.setSpacing(0)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.graphics)
        self.empty = QLabel("Nothing is trended: type a signal's path above and press Trend.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.readout = QLabel("cursor: -")
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.readout.setWordWrap(True)
        self.message = QLabel()
        self.message.setStyleSheet("color: #b00020")
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.empty)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.readout)
        layout.addWidget(self.message)
        self.lanes: dict[str, Lane] = {}
        self._follow = True
        self._last_len = None
        self._moving = False
        self._lanes()

    @property
    def curves(self) -> dict:
        """Each trended path's curve (its data: the scans and the plotted values)."""
        return {path: lane.curve for path, lane in self.lanes.items()}

    # -- the signals --------------------------------------------------------------------
    def _add(self) -> None:
        path = self.path_edit.text().strip()
        try:
            self.debugger.add_trend(path)
        except FbdError as e:
            self.message.setText(str(e))
            return
        self.message.setText("")
        self.path_edit.clear()
        self.refresh()

    def _remove(self) -> None:
        path = self.path_edit.text().strip() or (self.debugger.trend_paths or [""])[-1]
        try:
            self.debugger.remove_trend(path)
        except FbdError as e:
            self.message.setText(str(e))
        self.refresh()

    def _export(self, kind: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Export the trend as {kind.upper()}",
                                              str(export_folder() / f"trace.{kind}"),
                                              f"{kind.upper()} (*.{kind})")
        if path:
            try:
                (self.debugger.export_csv if kind == "csv" else self.debugger.export_vcd)(path)
            except (FbdError, OSError) as e:
                QMessageBox.warning(self, "Export", str(e))

    def _lanes(self) -> None:
        paths = self.debugger.trend_paths
        if list(self.lanes) == paths:
            return
        self.graphics.clear()
        self.lanes = {}
        first = None
        layout = self.graphics.ci.layout
        height = 0
        for i, path in enumerate(paths):
            info = self.debugger.info(path)
            lane = Lane(self, path, i, info.type)
            if first is None:
                first = lane.plot
            else:
                lane.plot.setXLink(first)              # one scan axis for every lane
            lane.cursor.sigPositionChanged.connect(lambda line, lane=lane: self._moved(line))
            h = BOOL_LANE_H if lane.is_bool else NUMBER_LANE_H
            layout.setRowFixedHeight(i, h)
            height += h
            self.lanes[path] = lane
        for i, lane in enumerate(self.lanes.values()):
            last = i == len(self.lanes) - 1
            lane.plot.showAxis("bottom", last)          # the scan axis once, at the bottom
            if last:
                lane.plot.setLabel("bottom", "scan")
                height += 40
        self.graphics.setMinimumHeight(height)
        self.empty.setVisible(not self.lanes)
        self.scroll.setVisible(bool(self.lanes))
        self._last_len = None

    # -- the cursor and the zoom ----------------------------------------------------------
    def _moved(self, line) -> None:
        if self._moving:
            return
        self._moving = True            # the other lanes' cursors follow this one
        try:
            x = line.value()
            for lane in self.lanes.values():
                if lane.cursor is not line:
                    lane.cursor.setValue(x)
        finally:
            self._moving = False
        self._readout()

    def set_cursor(self, scan: float) -> None:
        """Put the cursor at ``scan`` in every lane."""
        self._moving = True
        try:
            for lane in self.lanes.values():
                lane.cursor.setValue(float(scan))
        finally:
            self._moving = False
        self._readout()

    @property
    def cursor_scan(self) -> float | None:
        lane = next(iter(self.lanes.values()), None)
        return None if lane is None else float(lane.cursor.value())

    def fit(self) -> None:
        trace = self.debugger.trace
        lane = next(iter(self.lanes.values()), None)
        if lane is None or trace is None or not len(trace):
            return
        lane.plot.setXRange(float(trace.scans[0]), float(trace.scans[-1]), padding=0.02)

    # -- refresh ------------------------------------------------------------------------
    def refresh(self) -> None:
        self._lanes()
        trace = self.debugger.trace
        if trace is None:
            self.readout.setText("cursor: -")
            return
        key = (len(trace), self.debugger.scans)
        if key == self._last_len:
            return
        self._last_len = key
        if not len(trace):
            for lane in self.lanes.values():
                lane.curve.setData([], [])
            self._readout()
            return
        x = trace.scans.astype(float)
        for path, lane in self.lanes.items():
            lane.curve.setData(x, lane.values(trace[path]))
        if self._follow:
            self.set_cursor(float(x[-1]))
        else:
            self._readout()

    def _readout(self) -> None:
        trace = self.debugger.trace
        if trace is None or not len(trace) or not self.lanes:
            self.readout.setText("cursor: -")
            for lane in self.lanes.values():
                lane.show_tag("-")
            return
        scans = trace.scans
        at = self.cursor_scan
        self._follow = at >= scans[-1] - 0.5
        i = int(np.clip(np.searchsorted(scans, round(at)), 0, len(scans) - 1))
        parts = [f"scan {int(scans[i]):,}", f"t = {trace.times[i]:.3f} s"]
        for path, lane in self.lanes.items():
            raw = trace[path][i]
            text = format_value(lane.type, raw.item() if hasattr(raw, "item") else raw)
            parts.append(f"{path} = {text}")
            lane.show_tag(text)
        self.readout.setText("cursor: " + "  ·  ".join(parts))
