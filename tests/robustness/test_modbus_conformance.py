"""Exception responses exactly as the Modbus Application Protocol Specification
v1.1b3 gives them, always with the request's own function code | 0x80; frames
that are not Modbus; a client that half-closes after its request."""

import socket
import struct

import pytest

from tests.robustness.modbus_rig import (
    IXW,
    MW,
    ask,
    closed_by_server,
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

VALUE, ADDRESS, FUNCTION = 3, 2, 1


def exc(fc: int, code: int) -> bytes:
    return bytes([fc | 0x80, code])


CASES = [
    # quantities: 0, and one over the function's maximum, are ILLEGAL DATA VALUE
    ("FC 1, 0 coils", read(1, 0, 0), exc(1, VALUE)),
    ("FC 1, 2001 coils", read(1, 0, 2001), exc(1, VALUE)),
    ("FC 1, 2000 coils past the table's end", read(1, 0, 2000), exc(1, ADDRESS)),
    ("FC 2, 0 inputs", read(2, 0, 0), exc(2, VALUE)),
    ("FC 2, 2001 inputs", read(2, 0, 2001), exc(2, VALUE)),
    ("FC 3, 0 registers", read(3, 0, 0), exc(3, VALUE)),
    ("FC 3, 126 registers", read(3, 0, 126), exc(3, VALUE)),
    ("FC 3, past the table's end", read(3, 9287, 2), exc(3, ADDRESS)),
    ("FC 4, 126 registers", read(4, 0, 126), exc(4, VALUE)),
    ("FC 4, past the table's end", read(4, 1020, 10), exc(4, ADDRESS)),
    # FC 5: the value is 0x0000 or 0xFF00, nothing else (checked before the address)
    ("FC 5, 0x1234", write_coil(IXW, 0x1234), exc(5, VALUE)),
    ("FC 5, 0x00FF", write_coil(IXW, 0x00FF), exc(5, VALUE)),
    ("FC 5, 0x0001", write_coil(IXW, 0x0001), exc(5, VALUE)),
    ("FC 5, 0x1234 to an output", write_coil(0, 0x1234), exc(5, VALUE)),
    ("FC 5, an output", write_coil(0, 0xFF00), exc(5, ADDRESS)),
    ("FC 6, an output", write_register(0, 1), exc(6, ADDRESS)),
    # FC 15: 1..1968 coils, the byte count N = ceil(quantity / 8), then the data
    ("FC 15, 0 coils", struct.pack(">BHHB", 15, IXW, 0, 0), exc(15, VALUE)),
    ("FC 15, 1969 coils", struct.pack(">BHHB", 15, IXW, 1969, 247) + bytes(247), exc(15, VALUE)),
    ("FC 15, 1968 coils past the end", struct.pack(">BHHB", 15, IXW, 1968, 246) + bytes(246),
     exc(15, ADDRESS)),
    ("FC 15, byte count 2 for 3 coils", struct.pack(">BHHBH", 15, IXW, 3, 2, 0), exc(15, VALUE)),
    ("FC 15, no byte count", struct.pack(">BHH", 15, IXW, 3), exc(15, VALUE)),
    ("FC 15, data shorter than its byte count", struct.pack(">BHHB", 15, IXW, 16, 2) + b"\x01",
     exc(15, VALUE)),
    ("FC 15, data longer than its byte count", struct.pack(">BHHB", 15, IXW, 8, 1) + b"\x01\x02",
     exc(15, VALUE)),
    # FC 16: 1..123 registers, byte count 2 * quantity
    ("FC 16, 0 registers", struct.pack(">BHHB", 16, MW, 0, 0), exc(16, VALUE)),
    ("FC 16, 124 registers (248 bytes would not fit a frame)",
     struct.pack(">BHHB", 16, MW, 124, 246) + bytes(246), exc(16, VALUE)),
    ("FC 16, 123 registers past the end", struct.pack(">BHHB", 16, 9200, 123, 246) + bytes(246),
     exc(16, ADDRESS)),
    ("FC 16, byte count 3 for 2", struct.pack(">BHHB", 16, MW, 2, 3) + bytes(4), exc(16, VALUE)),
    ("FC 16, no byte count", struct.pack(">BHH", 16, MW, 1), exc(16, VALUE)),
    ("FC 16, data shorter than its byte count", struct.pack(">BHHBH", 16, MW, 2, 4, 7),
     exc(16, VALUE)),
    ("FC 16, an output", write_registers(0, [1]), exc(16, ADDRESS)),
    # truncated requests of known function codes
    ("FC 1, no data", bytes([1]), exc(1, VALUE)),
    ("FC 3, address only", bytes([3, 0, 0]), exc(3, VALUE)),
    ("FC 4, one byte over", read(4, 0, 1) + b"\x00", exc(4, VALUE)),
    ("FC 5, three bytes", bytes([5, 3, 0x20, 0xFF]), exc(5, VALUE)),
    ("FC 6, three bytes", bytes([6, 4, 0, 1]), exc(6, VALUE)),
    # function codes not served: ILLEGAL FUNCTION, with their own code
    ("FC 7", bytes([7]), exc(7, FUNCTION)),
    ("FC 8, diagnostics", bytes([8, 0, 0, 0x12, 0x34]), exc(8, FUNCTION)),
    ("FC 23", bytes([23]) + struct.pack(">HHHHB", 0, 1, MW, 1, 2) + b"\x00\x01", exc(23, FUNCTION)),
    ("FC 43, device identification", bytes([0x2B, 0x0E, 1, 0]), exc(43, FUNCTION)),
    ("FC 0x41", bytes([0x41, 0, 0]), exc(0x41, FUNCTION)),
    ("FC 0", bytes([0]), exc(0, FUNCTION)),
]


@pytest.mark.parametrize("pdu, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_exception_responses_follow_the_specification(pdu, expected):
    with serving() as (plc, server):
        assert ask(server.port, pdu) == expected
        plc.scan()
        assert not any(plc.get(f"IX{i}") for i in range(8))      # a refused write changed nothing
        assert not any(plc.get(f"MW{i}") for i in range(8))
        assert server.stats.exceptions == 1


def test_the_largest_requests_are_served():
    with serving() as (plc, server):
        assert ask(server.port, read(1, 0, 1600))[:2] == bytes([1, 200])
        assert ask(server.port, read(2, 0, 800))[:2] == bytes([2, 100])
        assert ask(server.port, read(3, 0, 125))[:2] == bytes([3, 250])
        assert ask(server.port, read(4, 0, 125))[:2] == bytes([4, 250])


def test_fc5_switches_a_coil_on_with_ff00_and_off_with_0000_only():
    with serving() as (plc, server):
        assert ask(server.port, write_coil(IXW + 1, 0xFF00)) == write_coil(IXW + 1, 0xFF00)
        plc.scan()
        assert plc.get("IX1") is True
        assert ask(server.port, write_coil(IXW + 1, 0x0100)) == exc(5, VALUE)
        plc.scan()
        assert plc.get("IX1") is True                                 # unchanged
        assert ask(server.port, write_coil(IXW + 1, 0x0000)) == write_coil(IXW + 1, 0x0000)
        plc.scan()
        assert plc.get("IX1") is False


def test_fc15_and_fc16_reply_with_address_and_quantity():
    with serving() as (plc, server):
        assert ask(server.port, write_coils(IXW + 3, [True] * 10)) == struct.pack(">BHH", 15,
                                                                                 IXW + 3, 10)
        assert ask(server.port, write_registers(MW + 2, [7, 8, 9])) == struct.pack(">BHH", 16,
                                                                                  MW + 2, 3)
        plc.scan()
        assert [plc.get(f"IX{i}") for i in range(2, 14)] == [False] + [True] * 10 + [False]
        assert [plc.get(f"MW{i}") for i in range(1, 6)] == [0, 7, 8, 9, 0]


@pytest.mark.parametrize("unit", [0, 1, 17, 255])
def test_every_unit_id_is_the_plc_and_is_echoed(unit):
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(frame(9, read(3, 0, 1), unit=unit))
        assert reply(s) == (9, unit, bytes([3, 2, 0, 0]))


def test_a_client_that_half_closes_after_its_request_gets_its_reply():
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(frame(1, write_register(MW, 42)))
        s.shutdown(socket.SHUT_WR)
        assert reply(s) == (1, 1, write_register(MW, 42))
        assert closed_by_server(s)                      # then the server closes its side
        plc.scan()
        assert plc.get("QW0") == 42


def test_a_half_closed_pipeline_is_answered_whole():
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(b"".join(frame(k, write_register(MW + k, k + 100)) for k in range(30)))
        s.shutdown(socket.SHUT_WR)
        assert [reply(s)[0] for _ in range(30)] == list(range(30))
        assert closed_by_server(s)
        plc.scan()
        assert [plc.get(f"QW{k}") for k in range(30)] == [k + 100 for k in range(30)]


def test_a_frame_with_another_protocol_id_is_discarded_and_the_next_answered():
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(frame(1, write_register(MW, 5), protocol=1) + frame(2, write_register(MW, 6)))
        assert reply(s) == (2, 1, write_register(MW, 6))
        plc.scan()
        assert plc.get("QW0") == 6 and server.stats.discarded == 1


@pytest.mark.parametrize("length", [0, 1, 255, 0xFFFF])
def test_a_length_no_frame_can_have_closes_that_connection_only(length):
    with serving() as (plc, server), connect(server.port) as good, connect(server.port) as bad:
        bad.sendall(struct.pack(">HHHB", 1, 0, length, 1) + bytes(20))
        assert closed_by_server(bad)
        good.sendall(frame(3, read(3, 0, 1)))
        assert reply(good) == (3, 1, bytes([3, 2, 0, 0]))
        assert server.stats.broken == 1


def test_the_frames_before_a_lost_framing_still_get_their_replies():
    with serving() as (plc, server), connect(server.port) as s:
        s.sendall(frame(1, write_register(MW, 1)) + frame(2, read(3, 0, 1))
                  + struct.pack(">HHHB", 3, 0, 300, 1) + bytes(10))
        assert [reply(s)[0] for _ in range(2)] == [1, 2]
        assert closed_by_server(s)
        plc.scan()
        assert plc.get("QW0") == 1
