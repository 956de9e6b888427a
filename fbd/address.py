"""IEC 61131-3 located addresses (``%IX0.0``, ``%QW3``, ``%MD10``) on network ports.

A program's inputs and outputs may carry a location, as ``AT %IX0.0`` does in a
variable declaration; the Modbus server and PLCopen exchange read them from
:attr:`fbd.Network.addresses`. Only the parsing and the checks that need no
server live here: the area must suit the port's direction and the size its type.

IEC lets an address have any number of dot-separated fields (``%QX75``,
``%QD0.2``, ``%IW0.0.2.8192.0``: Beremiz's CANopen and MQTT projects use them
for bus, node and object). All are accepted and kept as written
(:attr:`Address.fields`); :attr:`Address.hierarchical` tells the ones outside
OpenPLC's own forms (``%IXbyte.bit`` with a bit 0..7, one field for the other
sizes), which its Modbus map has no place for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import types as t
from .errors import WiringError
from .values import Kind

_ADDRESS = re.compile(r"^%([IQM])([XBWDL]?)(\d{1,10}(?:\.\d{1,10}){0,7})$", re.IGNORECASE)

SIZE_BITS = {"X": 1, "B": 8, "W": 16, "D": 32, "L": 64}
AREA_NAMES = {"I": "input", "Q": "output", "M": "memory"}


@dataclass(frozen=True, order=True)
class Address:
    """A parsed location: area I/Q/M, size X/B/W/D/L, index, and bit for X; for an
    address with other fields than OpenPLC's forms, all of them in ``fields``."""
    area: str
    size: str
    index: int
    bit: int | None = None
    fields: tuple = ()     # every field, for a hierarchical address; else ()

    @property
    def bits(self) -> int:
        return SIZE_BITS[self.size]

    @property
    def hierarchical(self) -> bool:
        """Outside OpenPLC's forms (``%IXb.i``, ``%QWn``...): no Modbus address."""
        return bool(self.fields)

    def __str__(self) -> str:
        if self.fields:
            return f"%{self.area}{self.size}{'.'.join(map(str, self.fields))}"
        bit = f".{self.bit}" if self.bit is not None else ""
        return f"%{self.area}{self.size}{self.index}{bit}"


def parse(text: str, where: str = "address") -> Address:
    """``'%IX0.3'`` -> Address('I', 'X', 0, 3). A bare ``%I0.3`` means a bit, as in IEC."""
    m = _ADDRESS.match(text.strip()) if isinstance(text, str) and len(text) < 200 else None
    if not m:
        shown = repr(text) if not isinstance(text, str) or len(text) < 200 else \
            f"{text[:60]!r}... ({len(text)} characters)"
        raise WiringError(f"{where}: {shown} is not a located address such as %IX0.0, "
                          f"%QW3 or %MD10 (at most 8 fields of at most 10 digits)")
    area, size = m.group(1).upper(), m.group(2).upper() or "X"
    fields = tuple(int(f) for f in m.group(3).split("."))
    if size == "X" and len(fields) == 2:
        if fields[1] > 7:
            raise WiringError(f"{where}: bit {fields[1]} of {text!r} is out of range 0..7")
        return Address(area, size, fields[0], fields[1])
    if size != "X" and len(fields) == 1:
        return Address(area, size, fields[0])
    return Address(area, size, fields[0], fields[-1] if size == "X" else None, fields)


def size_for(type_: t.DataType) -> str | None:
    """The location size that holds ``type_`` (X for BOOL, W for INT/UINT/WORD, ...)."""
    if type_ is t.BOOL:
        return "X"
    if type_.kind is Kind.STRING:
        return None
    return {8: "B", 16: "W", 32: "D", 64: "L"}.get(type_.bits)


def check(address: Address, type_: t.DataType | None, direction: str, where: str) -> None:
    """Reject a location that cannot hold ``type_`` (not checked when None) or
    that points the wrong way: an input reads %I or %M, an output writes %Q or %M."""
    if type_ is not None and type_.kind in (Kind.ARRAY, Kind.STRUCT, Kind.STRING):
        type_ = None   # a STRING or a structure at a location (matiec's own tests, Beremiz's
        #                MQTT extension): its layout is the runtime's business; only the
        #                direction is checked
    wanted = size_for(type_) if type_ is not None else address.size
    if wanted != address.size:
        fits = f"%{address.area}{wanted}" if wanted else "no location"
        plural = "s" if address.bits > 1 else ""
        raise WiringError(f"{where}: {address} holds {address.bits} bit{plural} but {type_.name} "
                          f"needs {fits}")
    allowed = {"input": "IM", "output": "QM"}[direction]
    if address.area not in allowed:
        raise WiringError(f"{where}: an {direction} cannot be located at {address} "
                          f"(an {AREA_NAMES[address.area]} address); use "
                          f"{' or '.join('%' + a for a in allowed)}")
