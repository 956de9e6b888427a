"""A client that sends garbage gets a few log lines, not one per frame, and a log
line quotes only its own connection's bytes, never another client's traffic."""

import logging
import time

from fbd.modbus import server as server_module
from tests.robustness.modbus_rig import MW, closed_by_server, connect, frame, reply, serving
from tests.robustness.modbus_rig import write_register as fc6


def modbus_records(caplog) -> list[logging.LogRecord]:
    """Every record logged, whoever logged it (all of them should be the server's)."""
    assert {r.name for r in caplog.records} <= {"fbd.modbus"}
    return caplog.records


def test_a_flood_of_wrong_protocol_ids_logs_a_few_lines(caplog):
    caplog.set_level(logging.INFO)
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(b"".join(frame(k, fc6(MW, k), protocol=0x4242) for k in range(5000)))
        s.sendall(frame(1, fc6(MW, 7)))                 # then a good one: answered
        assert reply(s)[0] == 1
        assert server.stats.discarded == 5000
    lines = modbus_records(caplog)
    assert 1 <= len(lines) <= 5
    assert sum(len(r.getMessage()) for r in lines) < 2000
    assert "protocol id 16962" in lines[0].getMessage()


def test_a_log_line_never_shows_another_connections_bytes(caplog):
    caplog.set_level(logging.INFO)
    with serving() as (plc, server), connect(server.port) as good, connect(server.port) as bad:
        for k in range(50):                             # traffic with a value easy to spot
            good.sendall(frame(k, fc6(MW + 1, 0xBEEF)))
            assert reply(good)[0] == k
        bad.sendall(frame(1, fc6(MW, 0x0101), protocol=9))
        bad.sendall(b"\x00\x02\x00\x00\x00\x00\x01")    # length 0: framing lost, closed
        assert closed_by_server(bad)
        good_peer = "127.0.0.1:%d" % good.getsockname()[1]
        bad_peer = "127.0.0.1:%d" % bad.getsockname()[1]
    text = "\n".join(r.getMessage() for r in modbus_records(caplog))
    assert bad_peer in text and good_peer not in text
    assert "be ef" not in text.lower() and "beef" not in text.lower()
    assert "01 01" in text                               # its own frame is quoted


class StillClock:
    """The server's clock, standing still: its log budget never refills, so what it
    logs depends on the frames alone, not on how long the machine takes over them."""

    def __init__(self):
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now


def test_many_connections_flooding_at_once_stay_within_the_servers_log_budget(caplog,
                                                                              monkeypatch):
    """40 clients, 200 bad frames each: 3 lines each would be 120, but the server as
    a whole logs 20 at once (and then two a second: the clock stands still here),
    whatever the number of connections."""
    monkeypatch.setattr(server_module, "time", StillClock())
    caplog.set_level(logging.INFO)
    with serving() as (plc, server):
        clients = [connect(server.port) for _ in range(40)]
        try:
            for s in clients:
                s.sendall(b"".join(frame(k, fc6(MW, k), protocol=1) for k in range(200)))
            for s in clients:
                s.sendall(frame(1, fc6(MW, 1)))
                assert reply(s)[0] == 1
        finally:
            for s in clients:
                s.close()
        assert server.stats.discarded == 40 * 200
    assert len(modbus_records(caplog)) == 20
