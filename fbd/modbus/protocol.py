"""Modbus TCP framing and the eight function codes we serve, checked as the
Modbus Application Protocol Specification v1.1b3 says; no sockets here.

A request's MBAP header (transaction id, protocol id 0, length, unit id) is
followed by a PDU: a function code and its data. :class:`Framer` cuts a TCP
stream into whole frames, however the bytes arrive (a frame split over reads,
or many pipelined frames in one), and :func:`answer` turns one request PDU
into its reply PDU against a process image. Every complete frame is answered,
in the order it came.

The checks, in the specification's order, each answered with the request's
own function code + 0x80 and the exception code:

1. a function code other than 1, 2, 3, 4, 5, 6, 15, 16: 1, ILLEGAL FUNCTION;
2. the request's data: 3, ILLEGAL DATA VALUE, when the quantity is 0 or over
   the function's maximum (FC 1, 2: 2000 bits; FC 3, 4: 125 registers;
   FC 15: 1968 coils; FC 16: 123 registers), when FC 5's value is neither
   0x0000 nor 0xFF00, when FC 15's or 16's byte count is not what the
   quantity needs, and when the PDU is shorter or longer than its function
   code's fields (a truncated request, FC 15/16 without a byte count);
3. the addresses: 2, ILLEGAL DATA ADDRESS, for a range past a table's end
   or (for a write) one not entirely on inputs, which changes nothing.

Frames are discarded unanswered when their protocol id is not 0 (the frame
is not Modbus; the TCP implementation guide says to drop it); a length
field under 2 or over 254 (no PDU fits it) leaves no way to find the next
frame, and the server closes the connection.
"""

from __future__ import annotations

import enum
import struct

__all__ = ["ExceptionCode", "Framer", "FramingError", "answer", "COILS", "DISCRETE_INPUTS",
           "INPUT_REGISTERS", "HOLDING_REGISTERS", "FUNCTION_CODES", "MAX_PDU"]

COILS = "coils"
DISCRETE_INPUTS = "discrete inputs"
INPUT_REGISTERS = "input registers"
HOLDING_REGISTERS = "holding registers"

FUNCTION_CODES = (1, 2, 3, 4, 5, 6, 15, 16)
READS = {1: COILS, 2: DISCRETE_INPUTS, 3: HOLDING_REGISTERS, 4: INPUT_REGISTERS}
#: The most values one request may read (FC 1-4) or write (FC 15, 16).
MAX_READ = {1: 2000, 2: 2000, 3: 125, 4: 125}
MAX_WRITE = {15: 1968, 16: 123}

MAX_PDU = 253            # function code + data; the MBAP length counts the unit id too
_HEADER = struct.Struct(">HHHB")     # transaction id, protocol id, length, unit id
_ADDRESS_QUANTITY = struct.Struct(">HH")


class ExceptionCode(enum.IntEnum):
    """The exception codes this server answers with."""
    ILLEGAL_FUNCTION = 1
    ILLEGAL_DATA_ADDRESS = 2
    ILLEGAL_DATA_VALUE = 3


class FramingError(Exception):
    """The stream cannot be cut into frames any more (a length no frame can have)."""


class Framer:
    """Cuts one connection's byte stream into whole Modbus TCP frames.

    :meth:`feed` takes the bytes as they arrive; :meth:`next_frame` returns the
    next complete frame (header fields and PDU) or None until more bytes come.
    A frame whose protocol id is not 0 is returned too (its length still says
    where the next frame starts): discarding it is the caller's business."""

    def __init__(self):
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self._buffer += data

    @property
    def pending(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)

    def peek(self, n: int) -> bytes:
        """The first ``n`` bytes not yet cut into a frame (for an error message)."""
        return bytes(self._buffer[:n])

    def next_frame(self) -> tuple[int, int, int, bytes] | None:
        """(transaction id, protocol id, unit id, PDU) of the next whole frame, or None.

        Raises :class:`FramingError` for a length field no frame can have."""
        buf = self._buffer
        if len(buf) < 7:
            return None
        tid, pid, length, unit = _HEADER.unpack_from(buf)
        if length < 2 or length > MAX_PDU + 1:
            raise FramingError(f"a frame length of {length} (a Modbus TCP frame has 2..254)")
        end = 6 + length
        if len(buf) < end:
            return None
        pdu = bytes(buf[7:end])
        del buf[:end]
        return tid, pid, unit, pdu


def frame(tid: int, unit: int, pdu: bytes) -> bytes:
    """A reply PDU with its MBAP header."""
    return _HEADER.pack(tid, 0, len(pdu) + 1, unit) + pdu


def exception(function_code: int, code: ExceptionCode) -> bytes:
    return bytes(((function_code | 0x80) & 0xFF, code))


def answer(image, pdu: bytes) -> bytes:
    """The reply PDU to request ``pdu`` (function code first), read from or written
    to ``image`` (``read(table, address, count)`` and ``write(table, address,
    values)``, each returning an :class:`ExceptionCode` to refuse)."""
    fc = pdu[0]
    data = pdu[1:]
    if fc in READS:
        if len(data) != 4:
            return exception(fc, ExceptionCode.ILLEGAL_DATA_VALUE)
        address, count = _ADDRESS_QUANTITY.unpack(data)
        if not 1 <= count <= MAX_READ[fc]:
            return exception(fc, ExceptionCode.ILLEGAL_DATA_VALUE)
        values = image.read(READS[fc], address, count)
        if isinstance(values, ExceptionCode):
            return exception(fc, values)
        if fc <= 2:
            packed = _pack_bits(values)
            return bytes((fc, len(packed))) + packed
        return bytes((fc, 2 * count)) + struct.pack(f">{count}H", *values)
    if fc == 5 or fc == 6:
        if len(data) != 4:
            return exception(fc, ExceptionCode.ILLEGAL_DATA_VALUE)
        address, value = _ADDRESS_QUANTITY.unpack(data)
        if fc == 5:
            if value not in (0x0000, 0xFF00):
                return exception(fc, ExceptionCode.ILLEGAL_DATA_VALUE)
            refused = image.write(COILS, address, [value == 0xFF00])
        else:
            refused = image.write(HOLDING_REGISTERS, address, [value])
        return exception(fc, refused) if refused is not None else pdu   # the echo
    if fc == 15 or fc == 16:
        if len(data) < 5:
            return exception(fc, ExceptionCode.ILLEGAL_DATA_VALUE)
        address, count = _ADDRESS_QUANTITY.unpack_from(data)
        byte_count = data[4]
        needed = (count + 7) // 8 if fc == 15 else 2 * count
        if not 1 <= count <= MAX_WRITE[fc] or byte_count != needed or len(data) != 5 + needed:
            return exception(fc, ExceptionCode.ILLEGAL_DATA_VALUE)
        body = data[5:]
        if fc == 15:
            refused = image.write(COILS, address, _unpack_bits(body, count))
        else:
            refused = image.write(HOLDING_REGISTERS, address,
                                  list(struct.unpack(f">{count}H", body)))
        if refused is not None:
            return exception(fc, refused)
        return pdu[:5]                       # function code, address, quantity
    return exception(fc, ExceptionCode.ILLEGAL_FUNCTION)


def _pack_bits(bits: list) -> bytes:
    """Bits LSB first in each byte, as FC 1 and 2 reply (unused high bits 0)."""
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _unpack_bits(data: bytes, count: int) -> list[bool]:
    return [bool(data[i >> 3] >> (i & 7) & 1) for i in range(count)]
