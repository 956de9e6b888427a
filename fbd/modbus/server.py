"""The Modbus TCP server: a :class:`~.image.ProcessImage` served to SCADA and HMI
clients from a background thread (its own asyncio event loop).

Our own small asyncio server, not pymodbus's (the reasons are in
``docs/modbus.md``): each connection's bytes are cut into frames by
:class:`~.protocol.Framer` and every complete frame is answered at once, in
order, by :func:`~.protocol.answer`, so pipelined requests all get their
replies and a client that half-closes after its request still gets its reply.
A read or a write is a few list operations under the image's lock, so
answering on the event loop's thread never waits for anything.

What a connection may cost is bounded:

* ``max_clients`` connections at most (default 100): a new client beyond
  that closes the connection that has been idle longest, so silent
  connections can never lock working clients out. The limit is lowered, with
  a warning, when the process may not open that many files;
* ``idle_timeout`` (default 60 s; 0: never): a connection without a request
  for that long is closed;
* a client that sends faster than it reads its replies is not read from
  until its replies have drained (asyncio's write-buffer limits), so neither
  its requests nor its replies pile up in memory.

Protocol trouble is logged on the ``fbd.modbus`` logger, naming the peer and
quoting only that connection's own frame, and rate-limited: a few lines per
connection, then one every 10 s, and a few per second for the server as a
whole; the lines held back are counted in the next line that passes.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import os
import socket
import threading
import time
from dataclasses import dataclass

from ..errors import FbdError
from ..runtime.plc import Plc
from .image import ProcessImage
from .protocol import Framer, FramingError, answer, frame

__all__ = ["ModbusServer", "ServerStats", "check_bind", "DEFAULT_PORT", "IDLE_TIMEOUT",
           "MAX_CLIENTS"]

log = logging.getLogger("fbd.modbus")

DEFAULT_PORT = 5020
#: A SCADA polls every second or so and keeps its connection; a minute without a
#: request is a client that has gone away (or a cable pulled out) far more often.
IDLE_TIMEOUT = 60.0
#: Ten times what a SCADA, an HMI, a historian and a few scripts need at once, and
#: well inside the usual 1024 files a process may open.
MAX_CLIENTS = 100
_RESERVED_FILES = 32   # descriptors kept for everything else (the listener, logs, imports)
_FLUSH_BYTES = 16384   # replies are written in batches of about this size


@dataclass
class ServerStats:
    """What the server has done since it started (read from any thread)."""
    accepted: int = 0       # connections accepted
    evicted: int = 0        # closed to make room for a new client (max_clients)
    timed_out: int = 0      # closed after idle_timeout without a request
    broken: int = 0         # closed because their framing was lost (an impossible length)
    requests: int = 0       # frames answered
    exceptions: int = 0     # of them, answered with an exception response
    discarded: int = 0      # frames dropped unanswered (protocol id not 0)

    @property
    def refused(self) -> int:
        return self.exceptions


class _RateLimit:
    """A token bucket for log lines: ``burst`` at once, then one per ``period`` seconds.
    :meth:`allow` returns how many lines were held back since the last one allowed,
    or None to hold this one back too."""

    def __init__(self, burst: int, period: float):
        self.burst = burst
        self.period = period
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.held = 0

    def allow(self) -> int | None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) / self.period)
        self.stamp = now
        if self.tokens < 1:
            self.held += 1
            return None
        self.tokens -= 1
        held, self.held = self.held, 0
        return held


def _hex(data: bytes, limit: int = 12) -> str:
    shown = data[:limit].hex(" ")
    return shown + (f" ... ({len(data)} bytes)" if len(data) > limit else "")


class _Connection(asyncio.Protocol):
    """One client: its own framer, its own log limit, its replies in request order."""

    def __init__(self, server: ModbusServer):
        self.server = server
        self.framer = Framer()
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self.last_active = 0.0
        self.log_limit = _RateLimit(burst=3, period=10.0)
        self._paused = False
        self._closed = False

    # -- asyncio's callbacks -------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "?"
        self.last_active = self.server.clock()
        self.server._admit(self)

    def data_received(self, data: bytes) -> None:
        self.framer.feed(data)
        self._answer()

    def eof_received(self) -> bool:
        # The client has sent everything (a half-close): every whole frame is answered
        # already; returning False closes the connection once the replies are written.
        return False

    def connection_lost(self, exc) -> None:
        self._closed = True
        self.server._forget(self)

    def pause_writing(self) -> None:
        # The client reads slower than it asks: stop reading until its replies drain.
        self._paused = True
        self.transport.pause_reading()

    def resume_writing(self) -> None:
        self._paused = False
        if not self._closed:
            self.transport.resume_reading()
            self._answer()

    # -- the work ----------------------------------------------------------------------
    def _answer(self) -> None:
        stats = self.server.stats
        out: list[bytes] = []
        size = 0
        while not self._paused and not self._closed:
            try:
                got = self.framer.next_frame()
            except FramingError as e:
                self._write(out)
                self.warn(f"closed the connection: {e}; the frames after it cannot be "
                          f"found (the first bytes: {_hex(self.framer.peek(12))})")
                stats.broken += 1
                self.close(flush=True)       # the frames before it still get their replies
                return
            if got is None:
                break
            tid, pid, unit, pdu = got
            self.last_active = self.server.clock()
            if pid != 0:
                stats.discarded += 1
                self.warn(f"discarded a frame with protocol id {pid} (Modbus TCP's is 0): "
                          f"transaction {tid}, PDU {_hex(pdu)}")
                continue
            reply = answer(self.server.image, pdu)
            stats.requests += 1
            if reply[0] & 0x80:
                stats.exceptions += 1
            out.append(frame(tid, unit, reply))
            size += len(reply) + 7
            if size >= _FLUSH_BYTES:
                self._write(out)          # may pause writing, which ends the loop
                size = 0
        self._write(out)

    def _write(self, out: list) -> None:
        if self.transport.is_closing():
            self._closed = True       # lost (a reset while answering): nothing to answer
        elif out:
            self.transport.write(b"".join(out))
        out.clear()

    def warn(self, message: str) -> None:
        held = self.log_limit.allow()
        if held is None:
            return
        self.server._log(logging.WARNING, f"{self.peer}: {message}"
                         + (f" ({held} more like it held back)" if held else ""))

    def close(self, flush: bool = False) -> None:
        """Stop answering and close: at once, dropping what is not yet sent (an
        eviction, a timeout), or once the replies written so far are sent."""
        self._closed = True
        if flush:
            self.transport.close()
        else:
            self.transport.abort()      # also ends a flushing close the peer never reads

    def idle(self, now: float) -> float:
        return now - self.last_active


def check_bind(host: str, port: int) -> None:
    """Raise :class:`FbdError` saying why ``host:port`` cannot be listened on, if it cannot."""
    if not 0 <= port <= 65535:
        raise FbdError(f"--port {port}: a TCP port is 0..65535")
    shown = host if len(host) <= 40 else f"{host[:40]}... ({len(host)} characters)"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise FbdError(f"--bind {shown}: not an address of this machine ({e.strerror})") from None
    except (UnicodeError, ValueError):      # a label over 63 characters, a NUL, ...
        raise FbdError(f"--bind {shown}: not a host name or an address") from None
    family, type_, proto, _name, sockaddr = infos[0]
    with socket.socket(family, type_, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(sockaddr)
        except OSError as e:
            raise _bind_error(shown, port, e) from None


def _bind_error(host: str, port: int, e: OSError) -> FbdError:
    if e.errno == errno.EADDRINUSE:
        return FbdError(f"port {port} on {host} is already in use (another server? "
                        f"choose one with --port)")
    if e.errno == errno.EACCES:
        return FbdError(f"port {port} needs root (ports below 1024 are privileged); "
                        f"use --port {DEFAULT_PORT}")
    if e.errno == errno.EADDRNOTAVAIL:
        return FbdError(f"--bind {host}: not an address of this machine")
    return FbdError(f"cannot listen on {host}:{port}: {e.strerror}")


def _listen(host: str, port: int) -> socket.socket:
    family, type_, proto, _name, sockaddr = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, type_, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(sockaddr)
        sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def files_available() -> int | None:
    """How many more files this process may open (its soft RLIMIT_NOFILE less those
    open), or None when there is no limit or no way to tell."""
    try:
        import resource
    except ImportError:            # pragma: no cover - not on Linux or macOS
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return None
    for fd_dir in ("/proc/self/fd", "/dev/fd"):
        try:
            return soft - len(os.listdir(fd_dir))
        except OSError:
            continue
    return None                    # pragma: no cover


def _check_limits(idle_timeout, max_clients) -> tuple[float, int]:
    if isinstance(max_clients, bool) or not isinstance(max_clients, int) or max_clients < 1:
        raise FbdError(f"max_clients {max_clients!r}: give a whole number of clients, 1 or more")
    try:
        idle = float(idle_timeout)
    except (TypeError, ValueError):
        raise FbdError(f"idle_timeout {idle_timeout!r}: give seconds (0: never)") from None
    if not math.isfinite(idle) or idle < 0:
        raise FbdError(f"idle_timeout {idle_timeout!r}: give seconds, 0 or more (0: never)")
    return idle, max_clients


class ModbusServer:
    """Serve ``plc``'s located ports over Modbus TCP, from a background thread.

    >>> plc = Plc(net, cycle=0.005)                       # doctest: +SKIP
    >>> with ModbusServer(plc, port=0) as server:         # port 0: any free port
    ...     RealtimeRunner(plc).run(stop)                 # or plc.scan() from anywhere
    ...     server.port                                   # the port it listens on

    Binds to ``127.0.0.1`` unless told otherwise. Whoever runs the PLC (this
    thread, a :class:`~fbd.runtime.realtime.RealtimeRunner`, a test calling
    ``plc.scan()``), the tables follow its scans; run the PLC from one thread only.
    ``idle_timeout`` (seconds, 0: never) and ``max_clients`` bound the
    connections, as the module's text says; :attr:`stats` counts what happened.
    ``clock`` (seconds, monotonic) is what idle times are read on: a test gives
    its own, so that which connection is idle does not depend on how fast the
    machine runs the test.
    """

    def __init__(self, plc: Plc, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                 idle_timeout: float = IDLE_TIMEOUT, max_clients: int = MAX_CLIENTS,
                 clock=time.monotonic):
        self.idle_timeout, self.max_clients = _check_limits(idle_timeout, max_clients)
        self.clock = clock
        self.asked_clients = self.max_clients
        self.plc = plc
        self.host = host
        self.port = port
        self.image = ProcessImage(plc)
        self.stats = ServerStats()
        self.address: tuple[str, int] | None = None   # where it listens, once started
        self._connections: dict[_Connection, None] = {}   # in the order they came
        self._opening = 0                                   # accepted, not yet set up
        self._listener: socket.socket | None = None
        self._log_limit = _RateLimit(burst=20, period=0.5)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def clients(self) -> int:
        """Connections open now."""
        return len(self._connections)

    def connections(self) -> list[tuple[str, float, int]]:
        """(peer, seconds idle, reply bytes waiting to be sent) of each connection now."""
        now = self.clock()
        return [(c.peer, c.idle(now), c.transport.get_write_buffer_size() if c.transport else 0)
                for c in list(self._connections)]

    def start(self) -> ModbusServer:
        """Listen (raises :class:`FbdError` when it cannot) and serve in the background."""
        if self._thread is not None:
            raise FbdError("this Modbus server is already started")
        try:
            check_bind(self.host, self.port)
        except FbdError:
            self.image.detach()
            raise
        room = files_available()
        if room is not None and self.max_clients > room - _RESERVED_FILES:
            self.max_clients = max(1, room - _RESERVED_FILES)
            self._log(logging.WARNING, f"at most {self.max_clients} clients, not "
                                       f"{self.asked_clients}: this process may open only "
                                       f"{room} more files (ulimit -n)")
        self._thread = threading.Thread(target=self._run, name="fbd-modbus", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            self._thread = None
            self.image.detach()
            raise self._error
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as e:  # pragma: no cover - reported by start() or stop()
            self._error = self._error or e
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            self._listener = _listen(self.host, self.port)
        except OSError as e:
            self._error = _bind_error(self.host, self.port, e)
            self._ready.set()
            return
        self.address = self._listener.getsockname()[:2]
        self.port = self.address[1]
        loop.add_reader(self._listener.fileno(), self._accept)
        self._ready.set()
        sweeper = asyncio.create_task(self._sweep()) if self.idle_timeout else None
        try:
            await self._stop.wait()
        finally:
            if sweeper is not None:
                sweeper.cancel()
            loop.remove_reader(self._listener.fileno())
            self._listener.close()
            for conn in list(self._connections):
                conn.close()
            for _ in range(3):
                await asyncio.sleep(0)  # let the closed connections' callbacks run

    def _accept(self) -> None:
        """One connection off the listener (asyncio calls it again while more wait).

        Accepting here, one at a time, rather than in asyncio's server (which
        accepts up to a backlog's worth in one go) means the connection evicted
        for this one is closed before the next is accepted: open descriptors stay
        within ``max_clients`` and new clients are not left in the backlog."""
        try:
            sock, _addr = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM) \
                    and self._connections:
                self._evict("to free a file descriptor (the process may open no more)")
            else:   # nothing to evict: try again shortly instead of spinning on it
                self._log(logging.WARNING, f"cannot accept a connection: {e.strerror}")
                self._loop.remove_reader(self._listener.fileno())
                self._loop.call_later(0.1, self._loop.add_reader, self._listener.fileno(),
                                      self._accept)
            return
        try:
            peer = sock.getpeername()
        except OSError:                     # reset before we got to it
            sock.close()
            return
        self.stats.accepted += 1
        while self._connections and len(self._connections) + self._opening >= self.max_clients:
            self._evict(f"to make room for {peer[0]}:{peer[1]} (at most {self.max_clients} "
                        f"clients)")
        self._opening += 1
        self._loop.create_task(self._open(sock))

    async def _open(self, sock: socket.socket) -> None:
        try:
            await self._loop.connect_accepted_socket(lambda: _Connection(self), sock)
        except OSError:
            sock.close()                      # gone before it was set up
        finally:
            self._opening -= 1

    def _evict(self, why: str) -> None:
        now = self.clock()
        victim = max(self._connections, key=lambda c: c.idle(now))
        self.stats.evicted += 1
        self._log(logging.WARNING, f"{victim.peer}: closed after {victim.idle(now):.1f} s idle "
                                   f"{why}")
        self._connections.pop(victim, None)
        victim.close()

    async def _sweep(self) -> None:
        """Close the connections idle for longer than ``idle_timeout``."""
        every = min(1.0, self.idle_timeout / 10)
        while True:
            await asyncio.sleep(every)
            now = self.clock()
            for conn in list(self._connections):
                idle = conn.idle(now)
                if idle > self.idle_timeout:
                    self.stats.timed_out += 1
                    self._log(logging.INFO, f"{conn.peer}: closed after {idle:.1f} s without a "
                                            f"request (idle timeout {self.idle_timeout:g} s)")
                    conn.close()

    def _admit(self, conn: _Connection) -> None:
        self._connections[conn] = None

    def _forget(self, conn: _Connection) -> None:
        self._connections.pop(conn, None)

    def _log(self, level: int, message: str) -> None:
        if not log.isEnabledFor(level):
            return
        held = self._log_limit.allow()
        if held is None:
            return
        log.log(level, message + (f" [{held} lines held back]" if held else ""))

    def follow(self, plc: Plc) -> None:
        """Serve ``plc`` from now on (a new game's PLC, say), keeping the listener and
        the clients' connections: a SCADA polling the old program goes on polling
        the new one. Raises :class:`FbdError` (serving the old one still) if ``plc``
        has no located ports."""
        image = ProcessImage(plc)
        old, self.image, self.plc = self.image, image, plc   # one attribute: the server
        old.detach()                                           # thread sees old or new

    def stop(self) -> None:
        """Close every connection and the listener; stop following the PLC."""
        if self._thread is None:
            return
        if self._loop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()
        self._thread = None
        self.image.detach()

    def __enter__(self) -> ModbusServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
