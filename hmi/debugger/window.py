"""The debugger window: toolbar, hierarchy, diagram, ST source, watch, breakpoints,
trends, SFC steps.

A view over :class:`fbd.debug.Debugger` (the model owns stepping, breaking,
forcing and tracing). While it is open the debugger owns the PLC's pacing: a
``QTimer`` at :data:`REFRESH_HZ` (at the ``max`` speed: whenever the event
loop is idle) calls ``debugger.advance(wall seconds)`` while running, then
refreshes the views at most :data:`REFRESH_HZ` times a second, only those on
screen (``python -m hmi.debugger.bench`` measures what that costs the PLC). Tests pass ``autostart=False`` and
call :meth:`DebuggerWindow.tick` with the wall time themselves.

When the PLC is in FAULT (a scan raised), the counter says FAULT in red, the
status bar says what and where until a restart (Warm or Cold), and the views
open at the fault: the ST source at the line, or the diagram at the block.
"""

from __future__ import annotations

import logging
import time

from PyQt6.QtCore import Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QFontMetrics
from PyQt6.QtWidgets import (
    QComboBox,
    QLabel,
    QMainWindow,
    QSpinBox,
    QSplitter,
    QStyle,
    QTabWidget,
    QToolBar,
)

from fbd.debug.debugger import MAX, Debugger
from fbd.errors import FbdError
from fbd.runtime.faults import PlcFault

from ..widgets import MessageField
from .diagram import DiagramPanel
from .source import SfcPanel, SourcePanel
from .trends import TrendPanel
from .views import PATH_ROLE, BreakpointPanel, HierarchyTree, WatchPanel

__all__ = ["DebuggerWindow", "REFRESH_HZ", "SPEEDS"]

log = logging.getLogger("hmi")

REFRESH_HZ = 30
SPEEDS = {"real time": 1.0, "x10": 10.0, "max": MAX}


class DebuggerWindow(QMainWindow):
    """The debugger on ``plc`` (or on a ready :class:`Debugger`)."""

    #: the views were refreshed (a host shell refreshes its panel too)
    refreshed = pyqtSignal()
    #: the window closed (the debugger is detached; the host resumes its loop)
    closed = pyqtSignal()

    def __init__(self, plc=None, *, debugger: Debugger | None = None, clock=time.perf_counter,
                 autostart: bool = True, parent=None):
        super().__init__(parent)
        self.debugger = dbg = debugger if debugger is not None else Debugger(plc)
        self.clock = clock
        self._last_wall: float | None = None
        self._dirty = True
        self._urgent = False            # a state change: refresh at the next tick
        self._last_refresh: float | None = None
        self.setWindowTitle(f"Debugger — {dbg.program.name}")
        dbg.listeners.append(self._event)

        self._build_toolbar()
        self.tree = HierarchyTree(dbg)
        self.diagram = DiagramPanel(dbg)
        self.watch = WatchPanel(dbg)
        self.breakpoints = BreakpointPanel(dbg)
        self.trends = TrendPanel(dbg)
        self.source = SourcePanel(dbg)      # shown when the program has ST (IL, SFC) POUs
        self.source.message.connect(self.show_message)
        self.diagram.view.box_clicked.connect(self._box_clicked)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.watch, "Watch && force")
        self.tabs.addTab(self.breakpoints, "Breakpoints")
        self.tabs.addTab(self.trends, "Trends")
        self.sfc = SfcPanel(dbg) if dbg.sfc_instances() else None
        if self.sfc is not None:
            self.tabs.addTab(self.sfc, "SFC steps")
        self.tabs.currentChanged.connect(lambda _i: self.tabs.currentWidget().refresh())
        upper = QSplitter(Qt.Orientation.Horizontal)
        upper.addWidget(self.tree)
        upper.addWidget(self.diagram)
        upper.setSizes([300, 900])
        if self.source.instances.count():
            upper.addWidget(self.source)
            upper.setSizes([220, 420, 640])
        else:
            self.source.hide()
        main = QSplitter(Qt.Orientation.Vertical)
        main.addWidget(upper)
        main.addWidget(self.tabs)
        main.setSizes([520, 280])
        self.setCentralWidget(main)
        # the message is a field of its own, so a long one never runs over the others
        self.message_field = MessageField()
        self.statusBar().addWidget(self.message_field, 1)
        self.position = QLabel()       # the block a scan stepped into is at
        self.position.setStyleSheet("font-weight: bold; color: #b36b00")
        self.position.setMaximumWidth(460)   # a long block path is cut, in full as a tip
        self.stats_label = QLabel()
        self.stats_label.setToolTip(
            "Wall-clock time of one scan (min / mean / max); an overrun is a scan that took "
            "longer than the cycle. dropped: scans due at the chosen speed that were not run "
            "because the window could not keep up (the PLC then runs slower than asked).")
        self.statusBar().addPermanentWidget(self.position)
        self.statusBar().addPermanentWidget(self.stats_label)
        self._hit_shown = False        # the message shown is a breakpoint's hit
        self._was_in_scan = False
        self.tree.itemDoubleClicked.connect(self._tree_open)
        self._fault_shown = None       # the fault the status bar and the views show

        self.timer = QTimer(self)
        self.timer.setInterval(1000 // REFRESH_HZ)
        self.timer.timeout.connect(self.tick)
        self.resize(1280, 860)
        self.refresh()
        self._show_fault()              # opened on a PLC in FAULT: at the fault
        if autostart:
            self.timer.start()

    # -- toolbar --------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        bar = QToolBar("Debug")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(bar)
        self.actions_by_name: dict[str, QAction] = {}
        style = self.style()

        def action(name: str, text: str, slot, shortcut: str | None = None, tip: str = "",
                   icon: QStyle.StandardPixmap | None = None):
            a = bar.addAction(text)
            if icon is not None:      # Qt's own icons: no glyph a font may lack
                a.setIcon(style.standardIcon(icon))
            a.triggered.connect(lambda _=False: self._guard(slot))
            if shortcut:
                a.setShortcut(shortcut)
            a.setToolTip(f"{tip or text} ({shortcut})" if shortcut else tip or text)
            self.actions_by_name[name] = a
            return a

        sp = QStyle.StandardPixmap
        action("run", "Run", self.run, "F5", icon=sp.SP_MediaPlay)
        action("pause", "Pause", self.debugger.pause, "Shift+F5", icon=sp.SP_MediaPause)
        bar.addSeparator()
        action("step", "Step", lambda: self.debugger.step(1), "F10", "Run one whole scan",
               icon=sp.SP_MediaSkipForward)
        action("step_n", "", lambda: self.debugger.step(self.step_n.value()), None,
               "Run the number of whole scans set beside", icon=sp.SP_MediaSeekForward)
        self.step_n = QSpinBox()
        self.step_n.setRange(1, 1_000_000)
        self.step_n.setToolTip("how many scans the button before runs")
        self.step_n.valueChanged.connect(self._step_n_text)
        self.step_n.setValue(10)
        bar.addWidget(self.step_n)
        self._step_n_text(self.step_n.value())
        bar.addSeparator()
        action("step_into", "Step into", self.debugger.step_into, "F11",
               "Run the next block of the scan (begins a scan first); the diagram follows it "
               "into macros", icon=sp.SP_ArrowDown)
        action("finish", "Finish", self.debugger.finish_scan, "Shift+F11",
               "Run the rest of the scan stepped into")
        action("until", "To break", self.run_until_break, "Ctrl+F5",
               "Run until a breakpoint fires")
        bar.addSeparator()
        action("step_line", "Step line", self.debugger.step_line, "F7",
               "Run to the next statement of an ST, IL or SFC POU, into the POUs it calls",
               icon=sp.SP_ArrowRight)
        action("step_over", "Line over", lambda: self.debugger.step_line(over=True), "F8",
               "Run to the next statement, over the POUs this one calls")
        if not self.debugger.st_instances():
            for name in ("step_line", "step_over"):
                self.actions_by_name[name].setEnabled(False)
                self.actions_by_name[name].setToolTip("no ST, IL or SFC POU in this program")
        bar.addSeparator()
        action("warm", "Warm", lambda: self.debugger.restart(cold=False), None,
               "Warm restart (memories and forces kept)")
        action("cold", "Cold", lambda: self.debugger.restart(cold=True), None,
               "Cold restart (everything from its initial value)")
        bar.addSeparator()
        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.currentTextChanged.connect(self.set_speed)
        self.speed.setToolTip("speed: real time, x10, or as fast as possible")
        bar.addWidget(self.speed)
        bar.addSeparator()
        self.counter = QLabel()
        self.counter.setStyleSheet("font-weight: bold; padding: 0 6px")
        # room for the longest text, so the scan and the time are never clipped
        bold = self.counter.font()
        bold.setBold(True)
        self.counter.setMinimumWidth(12 + QFontMetrics(bold).horizontalAdvance(
            "RUNNING · scan 99,999,999 · 99,999.999 s"))
        bar.addWidget(self.counter)

    def _step_n_text(self, n: int) -> None:
        step_n = self.actions_by_name.get("step_n")
        if step_n is not None:
            step_n.setText(f"Step {n:,} scan{'s' if n != 1 else ''}")

    def show_message(self, text: str, ms: int = 8000) -> None:
        self.message_field.show_message(text, ms)
        self._hit_shown = False

    def _guard(self, fn) -> None:
        try:
            hit = fn()
        except PlcFault:              # what the status bar says until a restart, again
            self._fault_shown = None
            self._show_fault()
            self.refresh()
            return
        except FbdError as e:
            self.show_message(str(e), 8000)
            return
        if hit is not None and hasattr(hit, "breakpoints"):
            self._show_hit(hit)
        self.refresh()

    def run(self):
        self._last_wall = None
        return self.debugger.run()

    def run_until_break(self):
        if not any(bp.enabled for bp in self.debugger.breakpoints):
            self.show_message("To break: no breakpoint is set (or none is enabled); add one "
                              "on the Breakpoints tab", 10000)
            self.tabs.setCurrentWidget(self.breakpoints)
            self.breakpoints.edit.setFocus()
            return None
        hit = self.debugger.run_until_break()
        if hit is None:
            self.show_message("no breakpoint fired (stopped after the guard)", 8000)
        return hit

    def set_speed(self, name: str) -> None:
        self.debugger.speed = SPEEDS[name]

    # -- events and refresh -----------------------------------------------------------
    def _event(self, event: str) -> None:
        self._dirty = True
        if event in ("state", "hit", "restart", "fault"):
            self._urgent = True
        if event == "fault":
            self._show_fault()
        elif event == "restart" and self._fault_shown is not None:
            self._fault_shown = None
            self.show_message("restarted: the PLC runs again", 4000)
        elif event == "hit" and self.debugger.last_hit is not None:
            self._show_hit(self.debugger.last_hit)
        elif self._hit_shown and (event in ("scan", "block", "restart") or (
                event == "state" and self.debugger.state == "running")):
            self.message_field.show_message("")        # the pause it told of is over
            self._hit_shown = False

    def _show_fault(self) -> None:
        """The PLC is in FAULT: say so until a restart, and open the views at it."""
        fault = self.debugger.fault
        if fault is None or fault is self._fault_shown:
            return
        self._fault_shown = fault
        self.message_field.show_message(f"FAULT at {fault.describe()} — Warm or Cold restarts "
                                        f"the PLC")
        self._hit_shown = False
        if self.source.instances.count() and self.source.show_fault():
            pass                        # the source shows the POU at the line
        elif fault.block and self._instance(fault.block) is not None:
            parent, _, name = fault.block.rpartition(".")
            self.diagram.view.show_level(parent + "." if parent else "")
            self.diagram.view.select_box(name)

    def _show_hit(self, hit) -> None:
        self.message_field.show_message(f"paused by a breakpoint: {hit.describe()}")
        self._hit_shown = True

    def tick(self, now: float | None = None) -> int:
        """One timer tick: advance the PLC by the wall time since the last tick (while
        running) and refresh, at most :data:`REFRESH_HZ` times a wall second while
        running (at once after a state change). Returns the scans run.

        At the ``max`` speed the timer fires as soon as the event loop is idle
        (interval 0), so the PLC runs between refreshes instead of waiting for
        the next 30 Hz tick; otherwise every 1/:data:`REFRESH_HZ` s."""
        now = self.clock() if now is None else now
        last, self._last_wall = self._last_wall, now
        dbg = self.debugger
        before = dbg.scans
        if dbg.state == "running" and last is not None:
            try:
                dbg.advance(max(0.0, now - last))
            except Exception as e:    # an exception escaping a Qt slot aborts the process
                log.exception("the PLC stopped")
                dbg.pause()
                self.show_message(f"PLC stopped: {type(e).__name__}: {e}", 0)
        interval = 0 if dbg.state == "running" and dbg.speed == MAX else 1000 // REFRESH_HZ
        if self.timer.interval() != interval:
            self.timer.setInterval(interval)
        if self._urgent or (self._dirty and dbg.state != "running") or (
                dbg.state == "running" and (self._last_refresh is None
                                            or now - self._last_refresh >= 0.95 / REFRESH_HZ)):
            self._last_refresh = now
            self.refresh()
        return dbg.scans - before

    def refresh(self) -> None:
        dbg = self.debugger
        self._dirty = self._urgent = False
        where = ""
        frames = dbg.frames
        if frames:
            where = (f"in scan: before line {frames[-1].line} of {frames[-1].pou.label} "
                     f"({frames[-1].instance})")
        elif dbg.in_scan:
            done, total = dbg.block_position
            where = f"in scan: block {done}/{total}, next {dbg.current_block}"
        faulted = dbg.fault is not None
        state = "FAULT" if faulted else dbg.state.upper()
        self.counter.setText(f"{state} · scan {dbg.scans:,} · {dbg.time:,.3f} s")
        if self.counter.property("faulted") != faulted:
            self.counter.setProperty("faulted", faulted)
            self.counter.setStyleSheet("font-weight: bold; padding: 0 6px"
                                       + ("; color: white; background: #c62828" if faulted else ""))
        self.position.setText(where)
        self.position.setToolTip(where)
        self.position.setVisible(bool(where))
        st = dbg.stats()
        self.stats_label.setText(
            f"scan µs min {st['min_us']:.0f} / mean {st['mean_us']:.0f} / "
            f"max {st['max_us']:.0f} · overruns {st['overruns']}"
            + (f"  ·  dropped {dbg.dropped_scans}" if dbg.dropped_scans else ""))
        running = dbg.state == "running"
        self.actions_by_name["run"].setEnabled(not running and not faulted)
        self.actions_by_name["pause"].setEnabled(running)
        # a scan stepped into: the diagram follows it into the macro that holds the
        # block and comes back out when the scan ends
        if dbg.in_scan:
            self.diagram.view.follow(dbg.current_block)
        elif self._was_in_scan:
            self.diagram.view.follow(None)
        self._was_in_scan = dbg.in_scan
        # while running only what is on screen; paused (cheap, rare) everything
        self.tree.refresh()
        self.diagram.refresh()            # a hidden diagram catches up when shown
        if self.source.isVisible() or not running:
            self.source.refresh()
        shown = self.tabs.currentWidget()
        for panel in (self.watch, self.breakpoints, self.trends, self.sfc):
            if panel is not None and (panel is shown or not running):
                panel.refresh()
        self.refreshed.emit()

    def _tree_open(self, item, _column) -> None:
        """A double-click in the hierarchy: a port is watched; a macro instance is
        entered; a block is shown in its level, selected."""
        path = item.data(0, PATH_ROLE)
        view = self.diagram.view
        if not path:
            view.show_level("")
            return
        if item.data(1, PATH_ROLE) is None and item.childCount() == 0 \
                and item.parent() is not None and item.parent().data(1, PATH_ROLE):
            self._guard(lambda: self.debugger.watch(path))      # a port row
            self.tabs.setCurrentWidget(self.watch)
            self.show_message(f"watching {path}", 4000)
            return
        inst = self._instance(path)
        if inst is None:
            return
        if inst.is_macro:
            view.show_level(path + ".")
            return
        parent, _, name = path.rpartition(".")
        view.show_level(parent + "." if parent else "")
        view.select_box(name)
        self._box_clicked(path)

    def _box_clicked(self, path: str) -> None:
        """A block picked in the diagram or the hierarchy: an ST one shows its source."""
        if path in self.debugger.st_instances():
            self.source.show_instance(path)

    def _instance(self, path: str):
        """The instance at ``path`` (a block or a macro instance), or None."""
        net = self.debugger.program.network
        inst = None
        for part in path.split("."):
            if inst is not None:
                if not inst.is_macro:
                    return None
                net = inst.element
            inst = net.instances.get(part)
            if inst is None:
                return None
        return inst

    def closeEvent(self, event) -> None:
        self.timer.stop()
        self.debugger.close()
        self.closed.emit()
        super().closeEvent(event)
