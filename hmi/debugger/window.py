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
from PyQt6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
)

from fbd.debug.debugger import MAX, Debugger
from fbd.debug.online import load_changed
from fbd.errors import FbdError
from fbd.runtime.faults import PlcFault

from ..widgets import ElidedLabel, MessageField, fit_to_screen
from .diagram_panel import DiagramPanel
from .source import SfcPanel, SourcePanel
from .toolbar import SPEEDS, DebugToolbar
from .trends import TrendPanel
from .views import PATH_ROLE, BreakpointPanel, HierarchyTree, WatchPanel

__all__ = ["DebuggerWindow", "REFRESH_HZ", "SPEEDS"]

log = logging.getLogger("hmi")

REFRESH_HZ = 30
DEFAULT_SIZE = (1280, 860)          # the window's first size, if the screen has room
#: the colour of each run state the status bar shows (Debugger.run_state)
STATE_COLOURS = {"RUNNING": "#1a7a30", "RUNNING TO BREAK": "#1a7a30", "PAUSED": "#b36b00",
                 "PAUSED IN SCAN": "#b36b00"}


class DebuggerWindow(QMainWindow):
    """The debugger on ``plc`` (or on a ready :class:`Debugger`)."""

    #: the views were refreshed (a host shell refreshes its panel too)
    refreshed = pyqtSignal()
    #: the window closed (the debugger is detached; the host resumes its loop)
    closed = pyqtSignal()
    #: closing could not finish the scan stepped into (a run-time fault): why
    stopped = pyqtSignal(str)

    def __init__(self, plc=None, *, debugger: Debugger | None = None, clock=time.perf_counter,
                 autostart: bool = True, parent=None):
        super().__init__(parent)
        self.debugger = dbg = debugger if debugger is not None else Debugger(plc)
        self.clock = clock
        #: asked before a restart wipes the PLC's state (a host with a game asks the player)
        self.may_restart = lambda: True
        self._last_wall: float | None = None
        self._dirty = True
        self._urgent = False            # a state change: refresh at the next tick
        self._last_refresh: float | None = None
        self.setWindowTitle(f"Debugger — {dbg.program.name}")
        dbg.listeners.append(self._event)

        self.toolbar = DebugToolbar(
            {"run": self.run, "pause": dbg.pause, "step": lambda: dbg.step(1),
             "step_n": lambda: dbg.step(self.step_n.value()), "step_into": dbg.step_into,
             "finish": dbg.finish_scan, "until": self.run_until_break,
             "step_line": dbg.step_line, "step_over": lambda: dbg.step_line(over=True),
             "warm": lambda: self.restart(cold=False), "cold": lambda: self.restart(cold=True)},
            self._guard, has_st=bool(dbg.st_instances()), parent=self)
        self.addToolBar(self.toolbar)
        self.actions_by_name = self.toolbar.actions_by_name
        self.step_n, self.speed = self.toolbar.step_n, self.toolbar.speed
        self.speed.currentTextChanged.connect(self.set_speed)
        #: asked with an online change's preview whether to make it (a test answers)
        self.confirm_change = self._confirm_change
        program_menu = self.menuBar().addMenu("&Program")
        change = program_menu.addAction("&Online change...")
        change.setToolTip("Load a changed version of the program (.st or PLCopen) into the "
                          "running PLC at a scan boundary, keeping what is still there")
        change.triggered.connect(lambda: self.online_change())
        self.online_change_action = change
        self._build_views()
        # the status bar, left to right: the run state and the counter (always seen),
        # the message (a field of its own, so a long one never runs over the others),
        # where a scan stepped into is, what scans cost
        self.counter = QLabel()
        bold = self.counter.font()
        bold.setBold(True)
        self.counter.setFont(bold)
        self.counter.setToolTip("What the PLC is doing, the scans it has run and its "
                                "simulated time")
        self.statusBar().addWidget(self.counter)
        self.message_field = MessageField()
        self.statusBar().addWidget(self.message_field, 1)
        self.position = ElidedLabel()       # the block or line a scan stepped into is at
        self.position.setStyleSheet("font-weight: bold; color: #b36b00")
        self.position.setMaximumWidth(520)
        # its text's width while there is room, the message the rest; both elide when short
        self.position.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.stats_label = QLabel()
        self.stats_label.setToolTip(
            "Wall-clock time of one scan (min / mean / max); an overrun is a scan that took "
            "longer than the cycle. dropped: scans due at the chosen speed that were not run "
            "because the window could not keep up (the PLC then runs slower than asked).")
        self.statusBar().addPermanentWidget(self.position)
        self.statusBar().addPermanentWidget(self.stats_label)
        self._hit_shown = False        # the message shown is a breakpoint's hit
        self._was_in_scan = False
        self._fault_shown = None       # the fault the status bar and the views show

        self.timer = QTimer(self)
        self.timer.setInterval(1000 // REFRESH_HZ)
        self.timer.timeout.connect(self.tick)
        fit_to_screen(self, *DEFAULT_SIZE)
        self.refresh()
        self._show_fault()              # opened on a PLC in FAULT: at the fault
        if autostart:
            self.timer.start()

    def _build_views(self) -> None:
        """The hierarchy, diagram, source, watch, breakpoint, trend and SFC views of the
        debugger's program (made again after an online change)."""
        dbg = self.debugger
        self.tree = HierarchyTree(dbg)
        self.tree.itemDoubleClicked.connect(self._tree_open)
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
            if self._one_st_block():
                # its diagram would be one box with nothing inside: the source instead
                self.diagram.hide()
                upper.setSizes([260, 0, 1020])
        else:
            self.source.hide()
        main = QSplitter(Qt.Orientation.Vertical)
        main.addWidget(upper)
        main.addWidget(self.tabs)
        main.setSizes([520, 280])
        self.setCentralWidget(main)

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
        self._last_wall = None
        return self.debugger.run_to_break()

    def restart(self, cold: bool) -> None:
        """Warm or cold restart, once :attr:`may_restart` agreed (a game being played
        is lost: its host asks the player)."""
        if self.may_restart():
            self.debugger.restart(cold=cold)

    def online_change(self, path: str | None = None) -> bool:
        """Load the changed program from ``path`` (asked for with a file dialog),
        show what it keeps, converts, initialises and drops, and make the change if
        :attr:`confirm_change` agrees. True if it was made."""
        if path is None:
            path, _filter = QFileDialog.getOpenFileName(
                self, "Online change: the changed program", "",
                "Programs (*.st *.xml *.py);;Structured Text (*.st);;PLCopen XML (*.xml);;"
                "Python network, its build() (*.py)")
            if not path:
                return False
        dbg = self.debugger
        try:
            new = load_changed(dbg, path)
            preview = dbg.preview_change(new)
        except FbdError as e:
            self.show_message(f"online change: {e}", 0)
            return False
        lines = preview.lines() or ["every variable keeps its value"]
        if not self.confirm_change(f"{preview.summary()}:\n" + "\n".join(lines)):
            return False
        done = dbg.online_change(new)
        self.show_message(f"{done.change.summary()}" + "".join(
            f"; {line}" for line in done.lines()[:3]), 0)
        return True

    def _confirm_change(self, text: str) -> bool:
        answer = QMessageBox.question(self, "Online change", text + "\n\nLoad it now?")
        return answer == QMessageBox.StandardButton.Yes

    def set_speed(self, name: str) -> None:
        self.debugger.speed = SPEEDS[name]

    # -- events and refresh -----------------------------------------------------------
    def _event(self, event: str) -> None:
        self._dirty = True
        if event == "program":          # an online change: the views show the new program
            self._build_views()
            self._urgent = True
        if event in ("state", "hit", "restart", "fault"):
            self._urgent = True
        if event == "fault":
            self._show_fault()
        elif event == "restart" and self._fault_shown is not None:
            self._fault_shown = None
            self.show_message("restarted: the PLC runs again", 4000)
        elif event == "hit" and self.debugger.last_hit is not None:
            self._show_hit(self.debugger.last_hit)
        elif event == "to_break" and self.debugger.to_break_outcome:
            self.show_message(self.debugger.to_break_outcome, 0)
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
        if dbg.state == "running" and (last is not None or dbg.to_break is not None):
            try:
                dbg.advance(max(0.0, now - (now if last is None else last)))
            except Exception as e:    # an exception escaping a Qt slot aborts the process
                log.exception("the PLC stopped")
                dbg.pause()
                self.show_message(f"PLC stopped: {type(e).__name__}: {e}", 0)
        fastest = dbg.speed == MAX or dbg.to_break is not None
        interval = 0 if dbg.state == "running" and fastest else 1000 // REFRESH_HZ
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
        elif dbg.to_break is not None:
            where = dbg.to_break.progress(dbg.scans, dbg.time_us) + "  ·  Esc stops"
        state = dbg.run_state
        text = f"● {state} · scan {dbg.scans:,} · {dbg.time:,.3f} s"
        self.counter.setText(text)
        # never clipped, and it only grows: the fields beside it do not jump as it changes
        need = 16 + self.counter.fontMetrics().horizontalAdvance(text)
        if need > self.counter.minimumWidth():
            self.counter.setMinimumWidth(need)
        if state == "FAULT":    # a stopped program must not pass for a paused one
            self.counter.setStyleSheet("font-weight: bold; padding: 0 6px; color: white; "
                                       "background: #c62828")
        else:
            self.counter.setStyleSheet(f"color: {STATE_COLOURS.get(state, '#333333')}; "
                                       f"padding: 0 6px")
        self.position.setText(where)
        self.position.setVisible(bool(where))
        st = dbg.stats()
        self.stats_label.setText(
            f"scan {st['min_us']:.0f} / {st['mean_us']:.0f} / {st['max_us']:.0f} µs · "
            f"{st['overruns']} overrun{'s' if st['overruns'] != 1 else ''}"
            + (f"  ·  dropped {dbg.dropped_scans}" if dbg.dropped_scans else ""))
        running = dbg.state == "running"
        self.actions_by_name["run"].setEnabled(not running and state != "FAULT")
        self.actions_by_name["pause"].setEnabled(running)
        self.actions_by_name["finish"].setEnabled(dbg.in_scan)
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

    def _one_st_block(self) -> bool:
        """The program is one ST (IL, SFC) POU: a PROGRAM from a .st file, alone."""
        instances = self.debugger.program.network.instances
        return len(instances) == 1 and next(iter(instances)) in self.debugger.st_instances()

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
        try:
            self.debugger.close()        # a scan stepped into is finished: the PLC runs on
        except Exception as e:           # escaping a Qt handler would abort the process
            log.exception("finishing the scan stepped into failed")
            self.stopped.emit(f"{type(e).__name__}: {e}")
        self.closed.emit()
        super().closeEvent(event)
