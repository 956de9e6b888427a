"""The application shell: one window, a program chooser, and the real-time loop.

The window hosts one panel at a time, chosen from the registry in
:mod:`hmi.panels` (the *Program* menu; ``fbd hmi PROGRAM`` picks the first).
Its ``QTimer`` fires every :data:`TICK_MS` ms; each tick asks the loop model
(:class:`hmi.loop.RealTimeLoop`) how many whole scans the wall time elapsed
owes the panel's PLC, runs them with ``plc.scan(n)`` on simulated time, and
calls the panel's ``refresh()`` so it shows the PLC's outputs. The loop caps
the catch-up at :data:`MAX_SCANS_PER_TICK` scans, so a stalled UI makes the PLC
slip behind the wall clock rather than run a long burst of scans.

A scan that raises puts the PLC in FAULT (:mod:`fbd.runtime.faults`): the
loop runs no scan, the status bar says what failed and where until
*Simulation → Restart the PLC* (warm or cold) runs it again; the loop keeps
ticking, so a Modbus client's restart is carried out too.

Tests construct ``MainWindow(..., clock=fake, autostart=False)`` and call
:meth:`MainWindow.tick` themselves: time moves only when they say so.
"""

from __future__ import annotations

import logging
import os
import sys
import time

from PyQt6.QtCore import Qt, QTimer
from PyQt6.QtGui import QAction, QActionGroup, QKeySequence
from PyQt6.QtWidgets import QApplication, QLabel, QMainWindow, QMenu, QMessageBox

from fbd.debug.stepping import stepped_scan
from fbd.runtime.faults import PlcFault

from .loop import RealTimeLoop
from .opcua_link import OpcuaLink
from .panel import Panel
from .panels import PANELS
from .widgets import MessageField, fit_to_screen, minimum_height

__all__ = ["MainWindow", "application", "TICK_MS", "MAX_SCANS_PER_TICK", "SPEEDS"]

log = logging.getLogger("hmi")

APP_NAME = "fbd-sim"                 # names the user data directory (QStandardPaths)
APP_TITLE = "FBD PLC simulator"
TICK_MS = 10                         # the UI timer; ~100 ticks a second, 2 scans each at 5 ms
MAX_SCANS_PER_TICK = 40              # at most 200 ms of simulated time caught up per tick
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)  # the Simulation > Speed menu
# fbd serve's default port (fbd.modbus.DEFAULT_PORT, not imported here: pymodbus takes
# a quarter of a second to import, paid only when serving is switched on).
MODBUS_PORT = 5020
DEFAULT_SIZE = (560, 820)            # the window's first size, if the screen has room
MIN_WIDTH = 470                      # the narrowest a panel may be made


def version() -> str:
    """The installed fbd-sim's version (``0.1.0``), or what says it is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("fbd-sim")
    except PackageNotFoundError:
        return "(not installed: run from a source tree)"


def application(argv=None) -> QApplication:
    """The QApplication (made once), named so the user data directory is ``fbd-sim``."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(sys.argv if argv is None else argv))
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_TITLE)
    app.setApplicationVersion(version())
    return app


class MainWindow(QMainWindow):
    """The shell. ``program`` names a registered panel; or pass a ready ``panel``."""

    def __init__(self, program: str | None = "2048", *, panel: Panel | None = None,
                 clock=time.monotonic_ns, autostart: bool = True, tick_ms: int = TICK_MS):
        super().__init__()
        self.loop = RealTimeLoop(max_scans=MAX_SCANS_PER_TICK, clock=clock)
        self.panel: Panel | None = None
        self.program: str | None = None
        self.debugger_window = None     # the open DebuggerWindow: it owns the PLC's pacing
        self.modbus = None              # the ModbusServer serving the panel's PLC, if on
        self._fault_shown = None        # the PLC's fault the status bar shows
        self.modbus_host, self.modbus_port = "127.0.0.1", MODBUS_PORT
        self._panel_menus: list = []
        self._build_menus()
        # the message is a field of its own, so a long one never runs over the loop's
        self.message_field = MessageField()
        self.statusBar().addWidget(self.message_field, 1)
        self.loop_label = QLabel()
        self.statusBar().addPermanentWidget(self.loop_label)
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(tick_ms)
        self.timer.timeout.connect(self.tick)
        if panel is not None:
            self.set_panel(panel, program)
        elif program is not None:
            self.open_program(program)
        fit_to_screen(self, *DEFAULT_SIZE)
        if autostart:
            self.timer.start()

    # -- menus ------------------------------------------------------------------------
    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        quit_action = file_menu.addAction("&Quit", self.close)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)

        self.program_menu = bar.addMenu("&Program")
        group = QActionGroup(self.program_menu)
        self.program_actions: dict[str, QAction] = {}
        for name, entry in PANELS.items():
            action = QAction(entry.title, self.program_menu, checkable=True)
            action.triggered.connect(lambda _=False, n=name: self.choose_program(n))
            group.addAction(action)
            self.program_menu.addAction(action)
            self.program_actions[name] = action

        self.sim_menu = bar.addMenu("&Simulation")
        self.pause_action = self.sim_menu.addAction("&Pause")
        self.pause_action.setCheckable(True)
        self.pause_action.setShortcut("Ctrl+P")
        self.pause_action.toggled.connect(self.set_paused)
        speed_menu = self.sim_menu.addMenu("&Speed")
        speeds = QActionGroup(speed_menu)
        self.speed_actions: dict[float, QAction] = {}
        for speed in SPEEDS:
            action = QAction(f"{speed:g}x" + (" (real time)" if speed == 1 else ""), speed_menu,
                             checkable=True)
            action.setChecked(speed == 1)
            action.triggered.connect(lambda _=False, s=speed: self.set_speed(s))
            speeds.addAction(action)
            speed_menu.addAction(action)
            self.speed_actions[speed] = action
        self.sim_menu.addSeparator()
        self.debug_action = self.sim_menu.addAction("&Debugger...")
        self.debug_action.setShortcut("Ctrl+D")
        self.debug_action.setToolTip("Step scans, watch, force and break on this panel's live PLC")
        self.debug_action.triggered.connect(lambda _=False: self.open_debugger())
        self.modbus_action = self.sim_menu.addAction("Serve over &Modbus TCP")
        self.modbus_action.setCheckable(True)
        self.modbus_action.setToolTip("Let SCADA/HMI clients read and drive this PLC, as "
                                      "'fbd serve' does (127.0.0.1, port 5020)")
        self.modbus_action.toggled.connect(self.set_serving)
        self.opcua = OpcuaLink(self, self.sim_menu)
        restart_menu = self.sim_menu.addMenu("&Restart the PLC")
        restart_menu.setToolTip("Every variable from its initial value, the PLC running "
                                "again (out of a FAULT too)")
        self.restart_actions = {
            cold: restart_menu.addAction(text, lambda c=cold: self.restart_plc(cold=c))
            for cold, text in ((False, "&Warm restart"), (True, "&Cold restart"))}

        help_menu = bar.addMenu("&Help")
        help_menu.addAction("&About", self._about)
        for menu in (file_menu, self.program_menu, self.sim_menu, help_menu):
            self._keep_focus(menu)

    def _keep_focus(self, menu: QMenu) -> None:
        """A menu closed (Escape, a click elsewhere, an action): the keyboard goes back
        to the panel, not to the menu bar, so arrow keys move tiles, not menus."""
        menu.aboutToHide.connect(lambda: QTimer.singleShot(0, self._focus_panel))

    def _focus_panel(self) -> None:
        if QApplication.activePopupWidget() is not None or self.panel is None:
            return                     # another menu opened: the keyboard stays there
        active = QApplication.activeWindow()
        if active is not self and (active is None or not active.isVisible()):
            self.activateWindow()      # the closed menu was the active window
        self.panel.setFocus(Qt.FocusReason.PopupFocusReason)

    def show_message(self, text: str, ms: int = 5000) -> None:
        """A message in the status bar for ``ms`` ms (0: until the next one)."""
        self.message_field.show_message(text, ms)

    def about_text(self) -> str:
        return (f"<b>{APP_TITLE}</b> {version()}<p>Games built only out of IEC 61131-3 "
                f"function blocks, run scan by scan ({self.loop.cycle_ns // 1_000_000} ms cycles "
                f"of simulated time) and played through HMI panels.")

    def _about(self) -> None:
        QMessageBox.about(self, APP_TITLE, self.about_text())

    # -- panels -----------------------------------------------------------------------
    def choose_program(self, name: str) -> Panel | None:
        """*Program* menu: open ``name``, once the player agreed to lose a game being
        played (else the menu shows the program still open)."""
        if name != self.program and self.panel is not None and not self.panel.may_discard(self):
            for key, action in self.program_actions.items():
                action.setChecked(key == self.program)
            return None
        return self.open_program(name)

    def open_program(self, name: str) -> Panel:
        """Open the registered panel ``name`` (replacing the current one)."""
        entry = PANELS.get(name)
        if entry is None:
            raise KeyError(f"no panel named {name!r} (registered: {', '.join(PANELS)})")
        return self.set_panel(entry.load()(), name)

    def set_panel(self, panel: Panel, name: str | None = None) -> Panel:
        old = self.panel
        if self.debugger_window is not None:     # it debugs the old panel's PLC
            self.debugger_window.close()
        if self.modbus is not None:              # it serves the old panel's PLC
            self.modbus_action.setChecked(False)
        self.opcua.action.setChecked(False)
        if old is not None:
            old.shutdown()
            for menu in self._panel_menus:
                self.menuBar().removeAction(menu.menuAction())
        self.panel, self.program = panel, name
        self._panel_menus = panel.menus()
        for menu in self._panel_menus:
            self.menuBar().insertMenu(self.sim_menu.menuAction(), menu)
            self._keep_focus(menu)
        for key, action in self.program_actions.items():
            action.setChecked(key == name)
        panel.message.connect(lambda text: self.show_message(text, 5000))
        self.setCentralWidget(panel)       # deletes the old panel
        title = PANELS[name].title if name in PANELS else panel.title
        self.setWindowTitle(f"{title} — {APP_TITLE}")
        panel.setFocus()
        self.loop.restart()
        panel.set_paused(self.loop.paused)
        self._fit_minimum()
        panel.refresh()
        self._show_loop()
        return panel

    def _fit_minimum(self) -> None:
        """The window's minimum size: what the panel needs at its narrowest, with its
        wrapped texts at that width (a top-level window's own minimum ignores heights
        that depend on the width), so nothing clips or overlaps; small enough for an
        800x600 screen."""
        panel = self.panel
        hint = panel.minimumSizeHint()
        width = max(hint.width(), MIN_WIDTH)
        layout = panel.layout()
        height = hint.height()
        if layout is not None:
            height = max(height, minimum_height(layout, width))
        chrome = self.menuBar().sizeHint().height() + self.statusBar().sizeHint().height()
        self.setMinimumSize(max(width, self.statusBar().minimumSizeHint().width()),
                            height + chrome)

    # -- the debugger ---------------------------------------------------------------------
    def open_debugger(self, *, autostart: bool = True):
        """Open the debugger on the panel's live PLC. While it is open this window's
        loop runs no scans (the debugger paces the PLC) but the panel keeps showing
        the PLC's outputs; the loop resumes, from now, when the debugger closes."""
        if self.debugger_window is not None:
            self.debugger_window.raise_()
            self.debugger_window.activateWindow()
            return self.debugger_window
        plc = self.panel.plc if self.panel is not None else None
        if plc is None:
            self.show_message("no PLC to debug", 5000)
            return None
        from .debugger.window import DebuggerWindow
        window = DebuggerWindow(plc, autostart=autostart)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.refreshed.connect(self._debugger_refreshed)
        window.closed.connect(self._debugger_closed)
        window.stopped.connect(self._debugger_stopped)
        window.may_restart = lambda: self.panel is None or self.panel.may_discard(window)
        window.debugger.listeners.append(self._debugger_event)
        self.debugger_window = window
        self._show_loop()
        window.show()
        return window

    def _follow_plc(self) -> None:
        """The panel replaced its PLC (a new game) while the debugger is open: the
        debugger follows, reopened (paused, where it was) on the new PLC; the old
        one is detached. Checked on every tick of this window's loop."""
        old = self.debugger_window
        plc = self.panel.plc if self.panel is not None else None
        if old is None or old.debugger.plc is plc:
            return
        geometry, autostart = old.geometry(), old.timer.isActive()
        old.close()                          # detaches; _debugger_closed forgets it
        if plc is None:
            return
        window = self.open_debugger(autostart=autostart)
        window.setGeometry(geometry)
        self.show_message("the debugger follows the new PLC (paused)", 5000)

    def _debugger_event(self, event: str) -> None:
        if event == "touched" and self.panel is not None:   # a value written or forced
            self.panel.debugger_touched()

    def _debugger_refreshed(self) -> None:
        if self.panel is not None:
            self.panel.refresh()

    def _debugger_stopped(self, why: str) -> None:
        """Closing the debugger could not finish the scan it was stepping into."""
        self.pause_action.setChecked(True)
        self.show_message(f"PLC stopped in the middle of a scan: {why}; open the debugger "
                          f"(Ctrl+D) to finish it, or start a new game", 0)

    def _debugger_closed(self) -> None:
        self.debugger_window = None
        self.loop.restart()          # no burst of the time the debugger had the PLC
        self._show_loop()

    # -- Modbus TCP ---------------------------------------------------------------------------
    def set_serving(self, on: bool) -> None:
        """Serve the panel's PLC over Modbus TCP (its located ports, OpenPLC's layout)
        while ``on``; the server follows the panel to a new PLC (a new game)."""
        if not on:
            self._stop_serving()
        elif self.modbus is None:
            self._serve(self.panel.plc if self.panel is not None else None)
        if self.modbus_action.isChecked() != (self.modbus is not None):
            self.modbus_action.setChecked(self.modbus is not None)
        self._show_loop()

    def _serve(self, plc) -> None:
        from fbd.errors import FbdError
        from fbd.modbus.server import ModbusServer
        if plc is None:
            self.show_message("no PLC to serve", 5000)
            return
        try:
            self.modbus = ModbusServer(plc, host=self.modbus_host, port=self.modbus_port).start()
        except FbdError as e:     # no located ports, the port in use, ...
            self.show_message(f"Modbus TCP: {e}", 10000)
            return
        # the addresses: fbd serve NAME --map, or the README's table for 2048
        self.show_message(f"serving {plc.program.name} over Modbus TCP", 10000)

    def _stop_serving(self) -> None:
        if self.modbus is not None:
            self.modbus.stop()
            self.modbus = None

    def _follow_plc_with_server(self) -> None:
        """The panel replaced its PLC (a new game): the server serves the new one on
        the same connections; a PLC it cannot serve stops it, saying why."""
        from fbd.errors import FbdError
        plc = self.panel.plc if self.panel is not None else None
        if self.modbus is None or self.modbus.plc is plc:
            return
        try:
            if plc is None:
                raise FbdError("no PLC to serve")
            self.modbus.follow(plc)
        except FbdError as e:
            self.modbus_action.setChecked(False)     # stops it
            self.show_message(f"Modbus TCP stopped: {e}", 10000)

    # -- the real-time loop ---------------------------------------------------------------
    def tick(self, now_ns: int | None = None) -> int:
        """One tick: run the scans the wall time owes the PLC, refresh the panel.
        Returns the scans run."""
        panel = self.panel
        if panel is None:
            return 0
        plc = panel.plc
        if plc is not None:
            self.loop.cycle_ns = round(plc.cycle * 1e6) * 1000
        if self.modbus is not None:
            self._follow_plc_with_server()
        self.opcua.tick()
        if self.debugger_window is not None:   # the debugger owns the pacing
            self._follow_plc()
            return 0
        if plc is not None:
            plc.serve_requests()           # a Modbus client's restart, say
        if plc is not None and plc.state != "RUN":
            n = 0
            self.loop.restart()            # nothing is owed for the time it ran no scan
        else:
            n = self.loop.due(now_ns)
        if n and plc is not None:
            try:
                plc.scan(n)
            except PlcFault:
                pass                         # in FAULT: _show_fault says so
            except Exception as e:   # an exception escaping a Qt slot would abort the process
                log.exception("the PLC stopped")
                self.pause_action.setChecked(True)
                if stepped_scan(plc) is not None:    # a fault stopped a scan the debugger began
                    self.show_message(f"PLC stopped in the middle of scan {plc.scans + 1:,}: "
                                      f"open the debugger (Ctrl+D) to finish it, or start a "
                                      f"new game", 0)
                else:
                    self.show_message(f"PLC stopped: {type(e).__name__}: {e}", 0)
                return 0
        panel.refresh()
        self._show_fault(plc)
        self._show_loop()
        return n

    def _show_fault(self, plc) -> None:
        fault = plc.fault if plc is not None else None
        if fault is self._fault_shown:
            return
        self._fault_shown = fault
        if fault is not None:
            self.show_message(f"PLC FAULT at {fault.describe()} — Simulation > Restart the "
                              f"PLC runs it again", 0)
        else:
            self.show_message("the PLC runs again", 4000)

    def restart_plc(self, cold: bool = False) -> None:
        """Restart the panel's PLC (through the debugger when it is open)."""
        plc = self.panel.plc if self.panel is not None else None
        if plc is None:
            return
        if self.debugger_window is not None:
            self.debugger_window.debugger.restart(cold=cold)
        else:
            plc.restart(cold=cold)
        if self.panel is not None:
            self.panel.refresh()
        self._show_fault(plc)
        self._show_loop()

    def set_paused(self, paused: bool) -> None:
        if paused:
            self.loop.pause()
        else:
            self.loop.resume()
        if self.pause_action.isChecked() != paused:
            self.pause_action.setChecked(paused)
        if self.panel is not None:
            self.panel.set_paused(paused)
        self._show_loop()

    def set_speed(self, speed: float) -> None:
        self.loop.speed = speed
        for value, action in self.speed_actions.items():
            action.setChecked(value == speed)
        self._show_loop()

    def _show_loop(self) -> None:
        loop = self.loop
        plc = self.panel.plc if self.panel is not None else None
        if self.debugger_window is not None:
            state = "the debugger runs the PLC"
        elif plc is not None and plc.state != "RUN":
            state = f"PLC in {plc.state}"
        elif loop.paused:
            state = "paused"
        else:
            state = "real time" if loop.speed == 1 else f"{loop.speed:g}x real time"
        dropped = f"  ·  {loop.dropped_ns / 1e9:.2f} s dropped" if loop.dropped_ns else ""
        served = (f"  ·  Modbus TCP {self.modbus_host}:{self.modbus.port}"
                  if self.modbus is not None else "") + self.opcua.status()
        self.loop_label.setText(f"{state}{dropped}{served}")
        tips = ["How the PLC is paced: real time (one 5 ms scan per 5 ms of wall time), "
                "faster or slower (Simulation > Speed), paused, or run by the debugger."]
        if dropped:
            tips.append("dropped: simulated time the PLC skipped because the window could "
                        "not keep up (a busy computer, a dialog held open); the PLC then "
                        "runs behind the wall clock instead of catching up in a burst.")
        if served:
            tips.append("Served: SCADA/HMI clients can read and drive this PLC at this "
                        "address (Simulation > Serve over Modbus TCP, Serve over OPC UA).")
        self.loop_label.setToolTip("\n\n".join(tips))

    def closeEvent(self, event) -> None:
        self.timer.stop()
        self._stop_serving()
        self.opcua.stop()
        if self.debugger_window is not None:
            self.debugger_window.close()
        if self.panel is not None:
            self.panel.shutdown()
        super().closeEvent(event)


def run(program: str = "2048") -> int:
    """Open the window on ``program`` and run the Qt event loop; the exit status."""
    app = application()
    window = MainWindow(program)
    window.show()
    return _exec(app)


def _exec(app: QApplication) -> int:   # tests replace this
    return app.exec()


def display_problem() -> str | None:
    """Why Qt could not open a window here, or None (checked before Qt aborts on it)."""
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return ("no display (DISPLAY and WAYLAND_DISPLAY are unset); run it in a desktop "
                "session, or set QT_QPA_PLATFORM=offscreen")
    return None
