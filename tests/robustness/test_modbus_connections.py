"""Connections that cost without asking: an idle timeout closes silent ones, a
maximum number of clients evicts the longest idle, and a low limit on open files
lowers the maximum instead of letting new clients time out."""

import resource
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fbd.errors import FbdError
from fbd.modbus import ModbusServer
from tests.robustness.modbus_rig import (
    MW,
    closed_by_server,
    connect,
    echo_program,
    frame,
    read,
    reply,
    serving,
    write_register,
)

ROOT = Path(__file__).resolve().parents[2]


def poll(s, tid: int = 1) -> None:
    s.sendall(frame(tid, read(3, 0, 1)))
    assert reply(s)[0] == tid


class Clock:
    """The server's clock, moved on by the test: which connection is idle then
    depends on the test's steps, not on how fast the machine runs them."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_silent_connection_is_closed_after_the_idle_timeout_and_a_busy_one_is_not():
    clock = Clock()
    with serving(idle_timeout=0.5, clock=clock) as (plc, server), \
            connect(server.port) as silent, connect(server.port) as busy:
        poll(silent)                                    # both served at 0 s
        poll(busy)
        for _ in range(10):                             # a request every 0.1 s: never idle long
            clock.now += 0.1
            poll(busy)
        assert closed_by_server(silent)
        poll(busy)                                      # still open
        assert server.stats.timed_out == 1 and server.clients == 1


def test_half_a_frame_is_not_a_request_and_does_not_keep_a_connection_open():
    """A byte every 0.1 s, never making a frame: closed after the 0.3 s idle timeout
    even though bytes keep coming."""
    clock = Clock()
    with serving(idle_timeout=0.3, clock=clock) as (plc, server), connect(server.port) as s:
        poll(s)                                                  # served at 0 s
        header = struct.pack(">HHHB", 1, 0, 254, 1)              # a frame of 260 bytes
        dribble = header + bytes(253)
        closed = False
        for byte in dribble[:20]:                                # 2 s of the server's time
            clock.now += 0.1
            try:
                s.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed or closed_by_server(s)
        assert server.stats.timed_out == 1


def test_no_idle_timeout_when_it_is_zero():
    with serving(idle_timeout=0) as (plc, server), connect(server.port) as s:
        time.sleep(0.4)
        poll(s)
        assert server.stats.timed_out == 0


def test_a_new_client_beyond_the_maximum_closes_the_longest_idle_one():
    with serving(max_clients=3) as (plc, server):
        active = connect(server.port)
        poll(active)
        oldest, newer = connect(server.port), connect(server.port)
        poll(oldest)
        time.sleep(0.05)
        poll(newer)
        time.sleep(0.05)
        poll(active)                                    # the oldest is now the longest idle
        with connect(server.port) as fourth:
            poll(fourth)                                # served at once
            assert closed_by_server(oldest)
            poll(active)
            poll(newer)
            assert server.stats.evicted == 1 and server.clients == 3
        for s in (active, oldest, newer):
            s.close()


def test_many_silent_connections_never_lock_a_new_client_out():
    with serving(max_clients=10) as (plc, server):
        silent = [connect(server.port) for _ in range(50)]
        try:
            with connect(server.port) as s:
                s.sendall(frame(5, write_register(MW, 9)))
                assert reply(s)[0] == 5
            assert server.stats.evicted >= 41 and server.clients <= 10
        finally:
            for s in silent:
                s.close()


@pytest.mark.parametrize("kw, says", [
    ({"max_clients": 0}, "max_clients 0"),
    ({"max_clients": 2.5}, "max_clients 2.5"),
    ({"idle_timeout": -1}, "idle_timeout -1"),
    ({"idle_timeout": float("nan")}, "idle_timeout nan"),
    ({"idle_timeout": "soon"}, "idle_timeout 'soon'"),
])
def test_limits_that_make_no_sense_are_refused(kw, says):
    from fbd import Plc
    with pytest.raises(FbdError, match=says):
        ModbusServer(Plc(echo_program()), port=0, **kw)


def _low_file_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


def test_with_few_files_allowed_100_silent_connections_do_not_lock_a_new_client_out():
    """A process allowed 64 open files, and 100 silent clients.
    The server lowers its maximum to what the files allow, so it keeps accepting
    (evicting the longest idle) instead of leaving new clients in the backlog."""
    exe = Path(sys.executable).parent / "fbd"
    proc = subprocess.Popen([str(exe), "serve", "tests.robustness.modbus_rig:echo_program",
                             "--port", "0"], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_low_file_limit)
    silent = []
    try:
        lines = [proc.stderr.readline(), proc.stderr.readline()]
        start = next(line for line in lines if "over Modbus TCP on" in line)
        assert any("at most" in line and "this process may open only" in line for line in lines)
        port = int(start.split("127.0.0.1:")[1].split(",")[0])
        silent = [connect(port) for _ in range(100)]
        with connect(port) as s:
            s.sendall(frame(1, read(3, 0, 1)))
            assert reply(s) == (1, 1, bytes([3, 2, 0, 0]))
    finally:
        for s in silent:
            s.close()
        proc.terminate()
        proc.wait(timeout=60)
        rest = proc.stderr.read()
        proc.stderr.close()
    assert "evicted" in rest and "Traceback" not in rest
