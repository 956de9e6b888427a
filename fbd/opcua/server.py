"""The OPC UA server of a running PLC: asyncua in a process of its own, fed scan by
scan from the PLC's process (docs/opcua.md).

:class:`OpcuaServer` lives in the PLC's process. It makes the address space
(:func:`~.space.build_space`) and the :class:`~.image.ScanImage` there, starts
``python -m fbd.opcua.child`` (:mod:`.nodes`: asyncua and the nodes), and talks
to it over :mod:`.wire`:

* **Publishing.** Every ``publish_ms`` a thread asks the image for a copy of
  the next scan, compares it with the last one sent, slot by slot, and sends
  the slots that changed, with the PLC object's figures; the child writes them
  into its nodes in one go.
* **Writes and commands.** The child checks and converts a client's write and
  sends it here, the values of one Write request together; they are queued for
  the next scan at once, and the client answered once they are. A method of
  the PLC object becomes :meth:`fbd.Plc.request`.

Why a process: asyncua costs tens of µs of interpreter time per notification,
and in one process that time is taken from the PLC's thread a whole slice at a
time (the interpreter lock), so thousands of monitored items made a 5 ms scan
late by tens of ms. Two processes share nothing but the messages.
"""

from __future__ import annotations

import itertools
import logging
import math
import subprocess
import sys
import threading
from dataclasses import dataclass, replace

from ..errors import FbdError
from .image import ScanImage
from .runstate import run_values
from .space import Folder, Space, build_space
from .wire import Wire

log = logging.getLogger("fbd.opcua")

DEFAULT_PORT = 4840
NAMESPACE = "urn:fbd-sim:plc"
#: how often values are sampled from the PLC and published (docs/opcua.md, *Limits*)
PUBLISH_MS = 100


@dataclass
class OpcuaStats:
    """What the server did: clients' writes applied or refused, publishes, values sent."""
    writes: int = 0
    refused: int = 0
    publishes: int = 0
    values: int = 0


class OpcuaServer:
    """Serves ``plc`` over OPC UA on ``host:port`` (see the module). ``expose``,
    ``writable``, ``readonly``: patterns choosing what is served and written
    (:func:`~.space.build_space`). Made, started, followed and stopped from the
    thread that runs the PLC, between scans."""

    def __init__(self, plc, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                 expose=None, writable=None, readonly=None, publish_ms: float = PUBLISH_MS,
                 security=None):
        self.plc = plc
        self.host = host
        self.port = port
        self.rules = dict(expose=expose, writable=writable, readonly=readonly)
        self.publish_s = publish_ms / 1000
        self.security = security
        self.stats = OpcuaStats()
        self.clients = 0             # connections open now (as the child last said)
        self.space: Space | None = None
        self.image: ScanImage | None = None
        self._child: subprocess.Popen | None = None
        self._to_child: Wire | None = None
        self._ready = threading.Event()
        self._halt = threading.Event()
        self._error: str | None = None
        self._lock = threading.Lock()           # one publish at a time, image and space kept
        self._last: list | None = None           # per table: the values sent last
        self._syncs = itertools.count(1)
        self._synced: dict[int, threading.Event] = {}
        self._threads: list[threading.Thread] = []

    @property
    def endpoint(self) -> str:
        return f"opc.tcp://{self.host}:{self.port}/"

    @property
    def security_summary(self) -> str:
        if self.security is None:
            return "anonymous, no security: this machine only"
        return self.security.summary

    # -- life ---------------------------------------------------------------------------
    def start(self, timeout: float = 120.0, wait: bool = True) -> "OpcuaServer":
        """Start serving; with ``wait``, return once clients can connect (an error
        raised as an FbdError), else at once (the HMI polls :attr:`ready`)."""
        self.space = build_space(self.plc, **self.rules)
        self.image = ScanImage(self.plc, self.space.variables)
        _listen_for_changes(self.plc, self._replaced)
        snap = self.image.take()
        self._last = snap.tables
        self._child = subprocess.Popen([sys.executable, "-m", "fbd.opcua.child"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._to_child = Wire(self._child.stdin)
        self._to_child.send("init", self.host, self.port, self.security,
                            _portable(self.space, self.image), snap.tables,
                            run_values(self.plc))
        for target, name in ((self._listen, "fbd-opcua-inbox"), (self._publish_loop,
                                                                  "fbd-opcua-publish")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        if wait:
            if not self._ready.wait(timeout):
                self.stop()
                raise FbdError(f"OPC UA server on {self.host}:{self.port} did not start in "
                               f"{timeout:g} s")
            self.check()
        return self

    @property
    def ready(self) -> bool:
        """Serving, or failed to (:meth:`check` says why)."""
        return self._ready.is_set()

    @property
    def running(self) -> bool:
        return self._child is not None and self._child.poll() is None

    def check(self) -> None:
        """Raise why the server could not start, if it could not."""
        if self._error is not None:
            self.stop()
            raise FbdError(f"cannot serve OPC UA on {self.host}:{self.port}: {self._error}")

    def stop(self) -> None:
        """Stop serving (from any state)."""
        self._halt.set()
        child = self._child
        if child is not None and child.poll() is None:
            try:
                self._to_child.send("stop")
            except (OSError, ValueError):
                pass            # it has gone already
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()
        if child is not None:
            for stream in (child.stdin, child.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        if self.image is not None:
            self.image.detach()
        _listen_for_changes(self.plc, self._replaced, stop=True)

    def _replaced(self, plc, _change) -> None:
        """An online change (:meth:`fbd.Plc.replace_program`): serve the new program,
        without holding up the PLC's thread until the server has its nodes."""
        if self.running:
            self.follow(plc, wait=False)

    def follow(self, plc, wait: bool = True) -> None:
        """Serve ``plc`` from now on (a new game, a new program, the same PLC after an
        online change): its address space replaces the old one, the same nodes if it
        has the same variables; clients stay connected. Writes not yet applied to the
        old program are dropped. With ``wait``, return once the server has it."""
        space = build_space(plc, **self.rules)
        with self._lock:
            self.image.detach()
            if plc is not self.plc:
                _listen_for_changes(self.plc, self._replaced, stop=True)
                _listen_for_changes(plc, self._replaced)
            self.plc, self.space = plc, space
            self.image = ScanImage(plc, space.variables)
            snap = self.image.take()
            self._last = snap.tables
            self._to_child.send("space", _portable(space, self.image), snap.tables)
        if wait:
            self._sync()

    def publish_now(self) -> None:
        """Publish the PLC's values now, not at the next period: for a caller that
        scans the PLC itself (a test), from the PLC's thread, between scans; returns
        once the server has them."""
        plc = self.plc
        self.image.record(None, plc.scans, plc.now_us, force=True)
        self._publish()
        self._sync()

    # -- the PLC's side ---------------------------------------------------------------------
    def _publish_loop(self) -> None:
        """Every period: ask for the next scan's copy, send what changed once it is
        made (a PLC that does not scan, stopped or paused, changes nothing)."""
        made = threading.Event()
        if not self._ready.wait() or self._error is not None:
            return
        while not self._halt.wait(self.publish_s):
            image = self.image
            made.clear()
            image.on_snapshot = made.set
            image.request()
            made.wait(self.publish_s)
            if not self.running:
                return
            try:
                self._publish()
            except (OSError, ValueError):
                return          # the child has gone: _listen says so

    def _publish(self) -> None:
        with self._lock:
            snap = self.image.take()
            changes = []
            if snap is not None:
                image = self.image
                for k, (new, old) in enumerate(zip(snap.tables, self._last)):
                    changes.append(_changed(new, old, image.watched[k], image.reals[k]))
                self._last = snap.tables
            self.stats.publishes += 1
            self._to_child.send("values", snap.wall if snap else None, changes,
                                run_values(self.plc))

    def _sync(self) -> None:
        """Wait until the child has done everything sent before."""
        number = next(self._syncs)
        done = self._synced[number] = threading.Event()
        self._to_child.send("sync", number)
        while not done.wait(0.5):
            if not self.running:
                raise FbdError("the OPC UA server's process has ended")
        del self._synced[number]

    def _listen(self) -> None:
        """Messages from the child: its start, clients' writes and commands, counters."""
        inbox = Wire(self._child.stdout)
        while True:
            message = inbox.recv()
            if message is None:
                break
            kind = message[0]
            if kind == "writes":
                _kind, number, writes = message
                variables = self.space.variables
                self.image.queue([(variables[index], raw) for index, raw in writes])
                self._to_child.send("ack", number)
            elif kind == "request":
                self.plc.request(message[2])
                self._to_child.send("ack", message[1])
            elif kind == "stats":
                st = self.stats
                st.writes, st.refused, st.values, self.clients = message[1:]
            elif kind == "done":
                event = self._synced.get(message[1])
                if event is not None:
                    event.set()
            elif kind == "ready":
                self.port = message[1]
                self._ready.set()
            elif kind == "error":
                self._error = message[1]
                self._ready.set()
        if not self._ready.is_set():
            self._error = "the server's process ended as it started"
            self._ready.set()
        elif not self._halt.is_set():
            log.error("the OPC UA server's process ended")
        for event in list(self._synced.values()):
            event.set()


def _listen_for_changes(plc, listener, stop: bool = False) -> None:
    """Add (or remove) ``listener`` to the PLC's online-change listeners."""
    listeners = getattr(plc, "replaced", None)
    if listeners is None:
        return
    if stop:
        if listener in listeners:
            listeners.remove(listener)
    elif listener not in listeners:
        listeners.append(listener)


def _changed(new: list, old: list, watched, reals) -> list:
    """The (slot, value) pairs of ``watched`` slots that differ (-0.0 from 0.0 too)."""
    if new == old:
        return []
    out = []
    for slot in watched:
        value, before = new[slot], old[slot]
        if value != before or (slot in reals and value == 0
                               and math.copysign(1.0, value) != math.copysign(1.0, before)):
            out.append((slot, value))
    return out


def _portable(space: Space, image: ScanImage) -> Space:
    """``space`` as the child takes it: each variable's owner the index of its table."""
    def copy(folder: Folder) -> Folder:
        out = Folder(folder.name, folder.path, folder.description, folder.type_name)
        for name, child in folder.children.items():
            if isinstance(child, Folder):
                out.children[name] = copy(child)
            else:
                out.children[name] = by_id[id(child)]
        return out
    variables = [replace(v, owner=image.owner_index[id(v.owner)]) for v in space.variables]
    by_id = {id(v): p for v, p in zip(space.variables, variables)}
    return Space(copy(space.root), variables)


__all__ = ["OpcuaServer", "OpcuaStats", "DEFAULT_PORT", "NAMESPACE", "PUBLISH_MS"]
