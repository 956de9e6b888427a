"""Simulation > Serve over OPC UA: the panel's PLC served as ``fbd serve --opcua``
serves it (docs/opcua.md), so UaExpert, a SCADA or a script browses the game's
variables while it is played.

The server starts on its own thread without holding up the window (asyncua takes
seconds to start): the menu item is checked at once, the status bar says
*starting* until clients can connect, and an error (the port in use) unchecks it
with one line. A new game keeps the server, its nodes and its clients'
subscriptions (the server follows the new PLC); opening another program stops
it, as it does Modbus serving. Without the ``opcua`` extra the item is disabled
and its tip says how to install it.
"""

from __future__ import annotations

import importlib.util

#: fbd serve's default OPC UA port (fbd.opcua.DEFAULT_PORT, not imported here:
#: asyncua takes a second to import, paid only when serving is switched on)
OPCUA_PORT = 4840


class OpcuaLink:
    """The menu item and the server behind it, for a :class:`~hmi.app.MainWindow`."""

    def __init__(self, window, menu):
        self.window = window
        self.server = None
        self.host, self.port = "127.0.0.1", OPCUA_PORT
        self.action = menu.addAction("Serve over &OPC UA")
        self.action.setCheckable(True)
        if importlib.util.find_spec("asyncua") is None:
            self.action.setEnabled(False)
            self.action.setToolTip("Needs the opcua extra: pip install 'fbd-sim[opcua]'")
        else:
            self.action.setToolTip("Let OPC UA clients (UaExpert, a SCADA, a script) browse, "
                                   "read, write and subscribe to every variable of this PLC, "
                                   "as 'fbd serve --opcua' does (127.0.0.1, port 4840)")
        self.action.toggled.connect(self.set_serving)

    # -- on and off ----------------------------------------------------------------------
    def set_serving(self, on: bool) -> None:
        if not on:
            self.stop()
        elif self.server is None:
            self._start()
        if self.action.isChecked() != (self.server is not None):
            self.action.setChecked(self.server is not None)
        self.window._show_loop()

    def _start(self) -> None:
        from fbd.errors import FbdError
        panel = self.window.panel
        plc = panel.plc if panel is not None else None
        if plc is None:
            self.window.show_message("no PLC to serve", 5000)
            return
        from fbd.opcua.server import OpcuaServer
        try:
            self.server = OpcuaServer(plc, host=self.host, port=self.port).start(wait=False)
        except FbdError as e:
            self.window.show_message(f"OPC UA: {e}", 10000)
            return
        self._announced = False

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    # -- each tick ----------------------------------------------------------------------------
    def tick(self) -> None:
        """Say when the server is up (or why not), and follow the panel to a new PLC."""
        from fbd.errors import FbdError
        server = self.server
        if server is None or not server.ready:
            return
        window = self.window
        try:
            server.check()
        except FbdError as e:
            self.server = None
            self.action.setChecked(False)
            window.show_message(f"OPC UA: {e}", 10000)
            return
        if not self._announced:
            self._announced = True
            window.show_message(f"serving {server.plc.program.name} over OPC UA at "
                                f"{server.endpoint}", 10000)
            window._show_loop()
        plc = window.panel.plc if window.panel is not None else None
        if plc is not None and server.plc is not plc:
            server.follow(plc)

    def status(self) -> str:
        """The status bar's part: where clients connect, or that it is starting."""
        if self.server is None:
            return ""
        if not self.server.ready:
            return "  ·  OPC UA starting"
        return f"  ·  OPC UA {self.server.endpoint}"


__all__ = ["OpcuaLink", "OPCUA_PORT"]
