"""Raw Modbus TCP for the robustness tests: frames built by hand, sockets on
127.0.0.1 with timeouts that end any wait, and a program whose every input is
echoed to an output, so each write can be read back."""

from __future__ import annotations

import contextlib
import socket
import struct

from fbd import BOOL, INT, Network, Plc
from fbd.modbus import ModbusServer

TIMEOUT = 30.0          # seconds: any wait ends by then, however loaded the machine (none
                        # lasts that long when a test passes)
WORDS = 40              # %MW0..39 echoed to %QW0..39 (holding registers 1024+i -> i)
BITS = 40               # %IX0.0..4.7 echoed to %QX0.0..4.7 (coils 800+i -> i)
MW, IXW = 1024, 800     # where clients write them


def echo_program() -> Network:
    net = Network("Echo")
    for i in range(WORDS):
        net.output(f"QW{i}", net.input(f"MW{i}", INT, at=f"%MW{i}"), at=f"%QW{i}")
    for i in range(BITS):
        at = f"{i // 8}.{i % 8}"
        net.output(f"QX{i}", net.input(f"IX{i}", BOOL, at=f"%IX{at}"), at=f"%QX{at}")
    return net


@contextlib.contextmanager
def serving(net: Network | None = None, **kw):
    """A server on a headless PLC (the test scans it by hand) on a free port."""
    plc = Plc(net or echo_program(), cycle=0.005)
    server = ModbusServer(plc, port=0, **kw).start()
    try:
        yield plc, server
    finally:
        server.stop()


def connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    s.settimeout(TIMEOUT)
    return s


def frame(tid: int, pdu: bytes, unit: int = 1, protocol: int = 0) -> bytes:
    return struct.pack(">HHHB", tid, protocol, len(pdu) + 1, unit) + pdu


def recv_exactly(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed by the server after {len(data)} of {n} bytes")
        data += chunk
    return data


def reply(s: socket.socket) -> tuple[int, int, bytes]:
    """The next reply: (transaction id, unit id, PDU)."""
    tid, pid, length, unit = struct.unpack(">HHHB", recv_exactly(s, 7))
    assert pid == 0 and 2 <= length <= 254, (pid, length)
    return tid, unit, recv_exactly(s, length - 1)


def ask(port: int, pdu: bytes) -> bytes:
    """One request on a new connection; its reply's PDU."""
    with connect(port) as s:
        s.sendall(frame(7, pdu))
        tid, _unit, answer = reply(s)
        assert tid == 7
        return answer


def closed_by_server(s: socket.socket) -> bool:
    """True when the server has closed ``s`` (within TIMEOUT)."""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


# -- request PDUs ---------------------------------------------------------------------
def read(fc: int, address: int, count: int) -> bytes:
    return struct.pack(">BHH", fc, address, count)


def write_coil(address: int, value: int) -> bytes:
    return struct.pack(">BHH", 5, address, value)


def write_register(address: int, value: int) -> bytes:
    return struct.pack(">BHH", 6, address, value)


def write_coils(address: int, bits: list[bool]) -> bytes:
    packed = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        packed[i // 8] |= bit << (i % 8)
    return struct.pack(">BHHB", 15, address, len(bits), len(packed)) + bytes(packed)


def write_registers(address: int, values: list[int]) -> bytes:
    return struct.pack(f">BHHB{len(values)}H", 16, address, len(values), 2 * len(values),
                       *values)
