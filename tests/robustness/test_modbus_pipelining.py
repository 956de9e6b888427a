"""Pipelined requests (several sent before the first reply, as Modbus TCP allows
and real tools do): every complete frame is answered, in order, and every write
is carried out, however the bytes are cut into TCP segments."""

import asyncio
import struct

import pytest

from tests.robustness.modbus_rig import (
    BITS,
    IXW,
    MW,
    WORDS,
    connect,
    frame,
    read,
    reply,
    serving,
    write_coil,
    write_coils,
    write_register,
    write_registers,
)


def pipeline(n: int):
    """``n`` requests mixing every function code, writes included, with what each
    reply must be and what the inputs must hold once they are all applied (the
    last write wins, as it would one request at a time)."""
    requests, expected = [], []
    words, bits = [0] * WORDS, [False] * BITS
    for k in range(n):
        kind = k % 6
        if kind == 0:                                    # FC 6, then FC 6 on the same input
            i, v = k % WORDS, 1000 + k
            pdu, echo = write_register(MW + i, v), None
            words[i] = v
        elif kind == 1:
            i = (k - 1) % WORDS
            pdu, echo = write_register(MW + i, 2000 + k), None
            words[i] = 2000 + k
        elif kind == 2:                                  # FC 16, two registers
            i = k % (WORDS - 1)
            pdu = write_registers(MW + i, [3000 + k, 4000 + k])
            echo = pdu[:5]
            words[i:i + 2] = [3000 + k, 4000 + k]
        elif kind == 3:                                  # FC 5
            i, on = k % BITS, k % 4 == 3
            pdu, echo = write_coil(IXW + i, 0xFF00 if on else 0x0000), None
            bits[i] = on
        elif kind == 4:                                  # FC 15, three coils
            i = k % (BITS - 2)
            values = [k % 2 == 0, True, k % 3 == 0]
            pdu = write_coils(IXW + i, values)
            echo = pdu[:5]
            bits[i:i + 3] = values
        else:                                            # reads, before any scan: zeros
            pdu = read(3, 0, WORDS) if k % 12 == 5 else read(1, 0, BITS)
            echo = (bytes([3, 2 * WORDS]) + bytes(2 * WORDS) if pdu[0] == 3
                    else bytes([1, BITS // 8]) + bytes(BITS // 8))
        requests.append(pdu)
        expected.append(pdu if echo is None else echo)   # FC 5 and 6 echo the request
    return requests, expected, words, bits


def check(plc, replies, expected, words, bits) -> None:
    assert [tid for tid, _ in replies] == list(range(1, len(expected) + 1))   # in order
    assert [pdu for _, pdu in replies] == expected
    plc.scan(2)
    assert [plc.get(f"QW{i}") for i in range(WORDS)] == words
    assert [plc.get(f"QX{i}") for i in range(BITS)] == bits


@pytest.mark.parametrize("n", [2, 20, 100])
def test_every_pipelined_request_is_answered_in_order_and_every_write_lands(n):
    requests, expected, words, bits = pipeline(n)
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(b"".join(frame(tid, pdu) for tid, pdu in enumerate(requests, 1)))
        replies = [reply(s)[::2] for _ in requests]
        check(plc, replies, expected, words, bits)
        assert server.stats.requests == n and server.stats.exceptions == 0


def test_two_writes_back_to_back_both_land():
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(frame(1, write_register(MW, 11)) + frame(2, write_register(MW + 1, 22)))
        assert [reply(s)[0] for _ in range(2)] == [1, 2]
        plc.scan()
        assert (plc.get("QW0"), plc.get("QW1")) == (11, 22)


@pytest.mark.parametrize("piece", [1, 5, 7, 13, 500])
def test_a_pipeline_cut_anywhere_into_segments_is_answered_whole(piece):
    requests, expected, words, bits = pipeline(40)
    stream = b"".join(frame(tid, pdu) for tid, pdu in enumerate(requests, 1))
    with serving() as (plc, server), connect(server.port) as s:
        for start in range(0, len(stream), piece):
            s.sendall(stream[start:start + piece])
        replies = [reply(s)[::2] for _ in requests]
        check(plc, replies, expected, words, bits)


def test_a_bad_request_inside_a_pipeline_is_answered_and_the_rest_too():
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(frame(1, write_register(MW, 5)) + frame(2, bytes([3, 0, 0]))    # truncated
                  + frame(3, write_register(0, 1))                              # an output
                  + frame(4, bytes([0x2B, 0x0E, 1, 0]))                          # unserved FC
                  + frame(5, write_register(MW + 1, 6)))
        replies = [reply(s)[::2] for _ in range(5)]
        assert replies == [(1, write_register(MW, 5)), (2, b"\x83\x03"), (3, b"\x86\x02"),
                           (4, b"\xab\x01"), (5, write_register(MW + 1, 6))]
        plc.scan()
        assert (plc.get("QW0"), plc.get("QW1")) == (5, 6)


def test_a_long_pipeline_sent_before_reading_is_answered_whole_and_in_order():
    """20,000 reads of 125 registers (5 MB of replies) all sent before reading one."""
    n, size = 20_000, 7 + 2 + 250
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(b"".join(frame(k % 65536, read(3, 0, 125)) for k in range(n)))
        got = bytearray()
        while len(got) < n * size:
            chunk = s.recv(1 << 20)
            assert chunk, "closed by the server"
            got += chunk
        tids = [struct.unpack_from(">H", got, k * size)[0] for k in range(n)]
        assert tids == [k % 65536 for k in range(n)] and len(got) == n * size


class SlowReader(asyncio.Transport):
    """A transport whose peer reads nothing: what is written stays queued, and past
    64 KiB it tells the protocol to pause writing, as asyncio's transports do."""

    def __init__(self, protocol):
        super().__init__()
        self.protocol = protocol
        self.queued = bytearray()
        self.reading = True
        self.paused = False

    def get_extra_info(self, name, default=None):
        return ("127.0.0.1", 40000) if name == "peername" else default

    def write(self, data):
        self.queued += data
        if len(self.queued) > 65536 and not self.paused:
            self.paused = True
            self.protocol.pause_writing()

    def drain(self, n: int) -> None:
        del self.queued[:n]
        if self.paused and len(self.queued) < 16384:
            self.paused = False
            self.protocol.resume_writing()

    def pause_reading(self):
        self.reading = False

    def resume_reading(self):
        self.reading = True

    def is_closing(self):
        return False

    def get_write_buffer_size(self):
        return len(self.queued)


def test_a_client_that_reads_no_replies_stops_being_read_and_its_replies_stay_few():
    """A flood of requests in one read while the client reads nothing: the server
    stops reading (and answering) once 64 KiB of replies wait, instead of queueing
    a reply to everything; as the client reads, it answers the rest, in order."""
    from fbd.modbus.server import _Connection
    n, size = 10_000, 7 + 2 + 250
    with serving() as (plc, server):
        conn = _Connection(server)
        transport = SlowReader(conn)
        conn.connection_made(transport)
        conn.data_received(b"".join(frame(k, read(3, 0, 125)) for k in range(n)))
        assert not transport.reading and len(transport.queued) < 65536 + 20_000
        answered = bytearray()
        while len(answered) < n * size:
            assert len(transport.queued) < 65536 + 20_000
            answered += transport.queued[:8192]
            transport.drain(8192)
        tids = [struct.unpack_from(">H", answered, k * size)[0] for k in range(n)]
        assert tids == list(range(n)) and transport.reading
        conn.connection_lost(None)
