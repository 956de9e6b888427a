"""The process image a Modbus client sees: a PLC's located inputs and outputs in
the four Modbus tables.

The image is laid out as OpenPLC's runtime lays it out, so a client
configured for OpenPLC reads and writes the same addresses here (PDU
addressing, from 0):

============  ==================  ================================================
located       Modbus table        addresses
============  ==================  ================================================
``%QX0.0``    coils               0-799: ``%QXb.i`` is coil ``8*b + i``
``%IX0.0``    discrete inputs     0-799: ``%IXb.i`` is discrete input ``8*b + i``
``%IW0``      input registers     0-1023
``%QW0``      holding registers   0-1023
``%MW0``      holding registers   1024-2047
``%MD0``      holding registers   2048-4095, two registers each (``%MDn`` at 2048 + 2n)
``%ML0``      holding registers   4096-8191, four registers each (``%MLn`` at 4096 + 4n)
============  ==================  ================================================

Values wider than one register are sent high word first (as OpenPLC does;
``mbpoll -B``); REAL and LREAL as IEEE 754 bits, signed integers in two's
complement, TIME (and a date) as its integer microseconds (held in ns: the ns below
the µs are not sent). Byte locations (``%IB``,
``%QB``, ``%MB``), ``%MX`` bits and ``%ID``/``%IL``/``%QD``/``%QL`` have no
place in OpenPLC's map and are refused by name.

**The input window.** A simulated plant has no wires, so clients may also
drive the ``%IX`` and ``%IW`` inputs, through addresses right after
OpenPLC's own ranges: coils 800-1599 write ``%IX0.0``-``%IX99.7`` (``%IXb.i``
at coil ``800 + 8*b + i``), holding registers 8192-9215 write
``%IW0``-``%IW1023`` (``%IWn`` at ``8192 + n``). Reading the window returns
the same values as the discrete inputs and input registers.

**The PLC's registers.** Holding registers 9216-9287 hold the PLC's state,
its fault and a control register to stop, start and restart it
(:mod:`.control`): they follow the PLC's state, whatever runs it.

**What a client may do.** Every address inside a table's range can be read
(an address no port is located at reads 0). A write must land entirely on
inputs: a located ``%M`` input, or the input window. Writing an output, an
address nobody is located at, or past the end of a table is refused with
exception 2 (ILLEGAL DATA ADDRESS) and changes nothing. Every unit id
addresses the one PLC, as on OpenPLC. (The protocol's own checks, function
codes and quantities, are :mod:`.protocol`'s.)

**Process image semantics.** Client writes wait in the image and are applied
at the start of the next scan (as :meth:`fbd.Plc.set` writes are); the last
write of a scan wins, as a wire would. Reads return what the last complete
scan published: its outputs and the inputs it latched, all from that one
scan (the tables are updated under a lock after each scan, by a recorder on
the task, see :class:`ProcessImage`), never half of one scan and half of the
next.
"""

from __future__ import annotations

import datetime
import math
import struct
import threading
from dataclasses import dataclass

from .. import types as t
from ..address import Address
from ..compiler.pycode import ScanProgram
from ..errors import FbdError
from ..runtime.plc import Plc
from ..values import DATES, NS_PER_US, Kind
from . import control
from .protocol import COILS, DISCRETE_INPUTS, HOLDING_REGISTERS, INPUT_REGISTERS, ExceptionCode

__all__ = ["ProcessImage", "Location", "locate", "locate_globals", "IX_WINDOW", "IW_WINDOW", "TABLE_SIZE"]

#: The input window: where clients write %IX (coils) and %IW (holding registers).
IX_WINDOW = 800
IW_WINDOW = 8192
#: Table sizes: OpenPLC's ranges, the input window, the PLC's registers after it.
TABLE_SIZE = {COILS: IX_WINDOW + 800, DISCRETE_INPUTS: 800, INPUT_REGISTERS: 1024,
              HOLDING_REGISTERS: control.BASE + control.SIZE}

_TABLE_ORDER = (COILS, DISCRETE_INPUTS, INPUT_REGISTERS, HOLDING_REGISTERS)

# (area, size) -> (table, first address, registers per value, largest index)
_MAP = {
    ("Q", "X"): (COILS, 0, 1, 99),
    ("I", "X"): (DISCRETE_INPUTS, 0, 1, 99),
    ("I", "W"): (INPUT_REGISTERS, 0, 1, 1023),
    ("Q", "W"): (HOLDING_REGISTERS, 0, 1, 1023),
    ("M", "W"): (HOLDING_REGISTERS, 1024, 1, 1023),
    ("M", "D"): (HOLDING_REGISTERS, 2048, 2, 1023),
    ("M", "L"): (HOLDING_REGISTERS, 4096, 4, 1023),
}


@dataclass(frozen=True)
class Location:
    """Where one located port lives in the Modbus tables."""
    name: str
    type: t.DataType
    direction: str            # "input" or "output"
    address: Address
    slot: int                 # its slot in the PLC's signal table
    table: str
    start: int
    count: int                # registers (1 for a bit)
    window: tuple[str, int] | None = None  # where a client writes an %IX/%IW input
    owner: str = "program"    # whose table ``slot`` indexes: the program's, or "globals"

    @property
    def writable(self) -> tuple[str, int] | None:
        """The (table, first address) a client writes this port through, or None."""
        if self.direction != "input":
            return None
        return self.window or (self.table, self.start)

    def span(self, table: str | None = None, start: int | None = None) -> str:
        table, start = table or self.table, self.start if start is None else start
        kind = table[:-1]  # "coil", "holding register", ...
        if self.count == 1:
            return f"{kind} {start}"
        return f"{kind}s {start}-{start + self.count - 1}"


def locate(program: ScanProgram) -> list[Location]:
    """The Modbus location of every located port of ``program``, in address order.

    Raises :class:`FbdError` for a location OpenPLC's map has no place for."""
    net = program.network
    where = []
    skipped = {n for n, _ in unserved(program)}
    for name, address in net.addresses.items():
        if name in skipped:
            continue    # not OpenPLC's form: listed by unserved(), not refused
        if name in program.inputs:
            direction, slot, tp = "input", program.inputs[name], program.input_types[name]
        else:
            direction, slot, tp = "output", program.outputs[name], program.output_types[name]
        where.append(_place(f"{net.name}.{name}", name, tp, direction, address, slot))
    return sorted(where, key=_address_order)


def locate_globals(table) -> tuple[list[Location], list[tuple[str, Address, t.DataType]]]:
    """A configuration's located globals (``g AT %IW0`` in its VAR_GLOBAL): their Modbus
    locations, an %I or %M global written by clients as a program's input is, a %Q
    one read; and (name, address, type) of those OpenPLC's map does not serve."""
    where, skipped = [], []
    for i, address in (table.locations.items() if table is not None else ()):
        name, tp = table.names[i], table.types[i]
        if address.hierarchical or tp.kind in (Kind.ARRAY, Kind.STRUCT, Kind.STRING):
            skipped.append((name, address, tp))
            continue
        direction = "output" if address.area == "Q" else "input"
        where.append(_place(f"global {name}", name, tp, direction, address, i, "globals"))
    return where, skipped


def _place(where: str, name: str, tp, direction: str, address: Address, slot: int,
           owner: str = "program") -> Location:
    key = (address.area, address.size)
    if key not in _MAP:
        raise FbdError(f"{where}: {address} has no Modbus address (OpenPLC's map "
                       f"serves %IX, %QX, %IW, %QW, %MW, %MD and %ML)")
    table, first, count, last = _MAP[key]
    if address.index > last:
        top = f"%{address.area}X{last}.7" if address.size == "X" else \
            f"%{address.area}{address.size}{last}"
        raise FbdError(f"{where}: {address} is past the last Modbus address of "
                       f"its kind ({top})")
    if address.size == "X":
        start = 8 * address.index + address.bit
    else:
        start = first + count * address.index
    window = None
    if key == ("I", "X"):
        window = (COILS, IX_WINDOW + start)
    elif key == ("I", "W"):
        window = (HOLDING_REGISTERS, IW_WINDOW + start)
    return Location(name, tp, direction, address, slot, table, start, count, window, owner)


def _address_order(loc: Location) -> tuple:
    return _TABLE_ORDER.index(loc.table), loc.start


def unserved(program: ScanProgram) -> list[tuple[str, object]]:
    """(port, address) of the located ports OpenPLC's map does not serve: an address
    with more fields than ``%IXb.i`` / ``%QWn`` (``%QD0.2``, a CANopen
    ``%IW0.0.2.8192.0``) or a STRING, ARRAY or STRUCT at a location: kept on the port,
    named in ``fbd serve --map``."""
    types = {**program.input_types, **program.output_types}
    return [(name, address) for name, address in program.network.addresses.items()
            if address.hierarchical or getattr(types.get(name), "kind", None) in (
                "array", "struct", "string")]


# ------------------------------------------------------------------ values <-> registers
def _encoder(tp: t.DataType, count: int):
    """raw run-time value -> list of ``count`` registers (high word first), or of one bit."""
    if count == 1 and tp is t.BOOL:
        return lambda raw: [bool(raw)]
    bits = 16 * count
    if tp.kind is Kind.REAL:
        fmt = ">f" if bits == 32 else ">d"
        big = 3.4028234663852886e38 if bits == 32 else math.inf

        def real(raw):
            x = float(raw)
            if bits == 32 and math.isfinite(x) and abs(x) > big:
                x = math.copysign(math.inf, x)  # a double too large for a REAL: its infinity
            return list(struct.unpack(f">{count}H", struct.pack(fmt, x)))
        return real
    mask = (1 << bits) - 1
    if count == 1:
        return lambda raw: [int(raw) & mask]
    shifts = [16 * (count - 1 - k) for k in range(count)]
    if tp.kind is Kind.TIME or tp.kind in DATES:
        # a client reads µs, as it did before TIME and the dates held ns: the µs of the
        # public value (a TIME's toward zero, a date's floored)
        micros = (lambda raw: int(raw) // NS_PER_US if raw >= 0 else -(-int(raw) // NS_PER_US)) \
            if tp.kind is Kind.TIME else (lambda raw: int(raw) // NS_PER_US)
        return lambda raw: [(micros(raw) & mask) >> sh & 0xFFFF for sh in shifts]
    return lambda raw: [(int(raw) & mask) >> sh & 0xFFFF for sh in shifts]


def _decode(tp: t.DataType, words: list):
    """Registers (or a bit) -> the value :meth:`fbd.Plc.set` takes."""
    if tp is t.BOOL:
        return bool(words[0])
    count = len(words)
    if tp.kind is Kind.REAL:
        return struct.unpack(">f" if count == 2 else ">d", struct.pack(f">{count}H", *words))[0]
    value = 0
    for w in words:
        value = value << 16 | w
    value = tp.wrap_value(value)
    if tp.kind is Kind.TIME:
        return datetime.timedelta(microseconds=value)
    if tp.kind in DATES:
        return tp.wrap_value(value * NS_PER_US)    # µs on the wire, ns in the PLC
    return value


# ------------------------------------------------------------------------ the image
class ProcessImage:
    """The four Modbus tables of a :class:`~fbd.Plc`'s located ports.

    Attached to the PLC's main task as a recorder: after every scan (in the
    thread that runs the PLC) :meth:`record` copies the published outputs and
    the latched inputs into the tables under :attr:`lock`, then hands the
    writes clients made since to :meth:`fbd.Plc.set`, so they are latched at
    the start of the next scan. :meth:`apply` does that hand-over too, and the
    task calls it at the start of every scan (a ``before_scan`` hook), so a
    write that arrives between two scans makes the next one, whoever runs the
    PLC (a :class:`~fbd.runtime.realtime.RealtimeRunner`, a test calling
    ``plc.scan()``, the HMI).

    :meth:`read` and :meth:`write` are what the server calls (from its own
    thread): a read is one slice of a table under the lock, so it shows one
    scan; a write is checked whole (every address must be an input) and then
    queued.
    """

    def __init__(self, plc: Plc):
        self.plc = plc
        self.lock = threading.Lock()
        self.tables = {COILS: [False] * TABLE_SIZE[COILS],
                       DISCRETE_INPUTS: [False] * TABLE_SIZE[DISCRETE_INPUTS],
                       INPUT_REGISTERS: [0] * TABLE_SIZE[INPUT_REGISTERS],
                       HOLDING_REGISTERS: [0] * TABLE_SIZE[HOLDING_REGISTERS]}
        self._map(plc.program)
        self._pending: dict[str, tuple[Location, list]] = {}   # written, not yet handed over
        self._inflight: dict[str, list] = {}  # handed to plc.set, not yet latched and published
        self.scan = 0          # the scan the tables show (0: none yet)
        self.reads = self.writes = self.refused = 0
        self._task = plc.main
        self.control = control.ControlRegisters(self.tables[HOLDING_REGISTERS], plc)
        with self.lock:
            self.control.show()
        self.record(self._task.s, plc.scans, plc.now_us)   # the tables start as the PLC stands
        self._task.traces.append(self)
        # first: a client's write to a located global must be in the globals' table
        # before the task's links load it into the program
        self._task.before_scan.insert(0, self._before_scan)
        plc.state_listeners.append(self._state_changed)
        plc.replaced.append(self._replaced)

    def _replaced(self, plc: Plc, _change) -> None:
        """An online change: the map is the new program's from now on. A value no
        port is located at any more reads 0; writes waiting for a port that is
        gone are dropped."""
        with self.lock:
            self._map(plc.program)
            for table in self.tables.values():
                table[:] = [type(table[0])()] * len(table)
            self.control.show()
            names = {loc.name: loc for loc in self.locations if loc.writable}
            self._pending = {name: (names[name], words) for name, (_loc, words)
                             in self._pending.items() if name in names}
            self._inflight = {}
        self.record(self._task.s, self.scan, plc.now_us)

    def _map(self, program) -> None:
        """Lay out ``program``'s located ports (a program of none is refused)."""
        located, self.unserved_globals = locate_globals(self.plc.globals)
        self.locations = sorted(locate(program) + located, key=_address_order)
        self.unserved = unserved(program)
        if not self.locations and (self.unserved or self.unserved_globals):
            raise FbdError(f"{program.name}: none of its located ports has an address OpenPLC's "
                           f"Modbus map serves ("
                           f"{', '.join(f'{n} at {a}' for n, a in self.unserved[:5])})")
        if not self.locations:
            raise FbdError(f"{program.name} has no located inputs or outputs; give its ports "
                           f"addresses (net.input(..., at=\"%IX0.0\"), net.output(..., "
                           f"at=\"%QW0\")) to serve them over Modbus")
        # What record() copies: (slot, encode, table list, start, end, may skip), a
        # window twice, from the program's table and (_global_copies) from the
        # globals'; _last holds the value each copied last (unchanged values are
        # not encoded again; reals always are, since -0.0 == 0.0).
        self._copies, self._global_copies = [], []
        # table -> address -> (location, index of the register within the value)
        self._writable: dict[str, dict[int, tuple[Location, int]]] = {
            COILS: {}, HOLDING_REGISTERS: {}}
        for loc in self.locations:
            enc = _encoder(loc.type, loc.count)
            places = [(loc.table, loc.start)]
            if loc.window:
                places.append(loc.window)
            copies = self._global_copies if loc.owner == "globals" else self._copies
            for table, start in places:
                copies.append((loc.slot, enc, self.tables[table], start,
                               start + loc.count, loc.type.kind is not Kind.REAL))
            if loc.writable:
                table, start = loc.writable
                for k in range(loc.count):
                    self._writable[table][start + k] = (loc, k)
        self._last = [object()] * len(self._copies)
        self._global_last = [object()] * len(self._global_copies)

    def detach(self) -> None:
        """Stop following the PLC's scans."""
        if self._replaced in self.plc.replaced:
            self.plc.replaced.remove(self._replaced)
        if self in self._task.traces:
            self._task.traces.remove(self)
        if self._before_scan in self._task.before_scan:
            self._task.before_scan.remove(self._before_scan)
        if self._state_changed in self.plc.state_listeners:
            self.plc.state_listeners.remove(self._state_changed)

    def _before_scan(self, _task) -> None:
        self.apply()

    def _state_changed(self, plc, change: str) -> None:
        with self.lock:
            self.control.show()
        if change == "fault" and plc.on_fault == "zero":
            self.record(self._task.s, plc.scans, plc.now_us)   # the outputs went to zero

    # -- the PLC's side -----------------------------------------------------------
    def record(self, s: list, scan: int, now_us: int) -> None:
        """After a scan: publish it to the tables, hand clients' writes to the PLC."""
        changed = []
        _changes(self._copies, self._last, s, changed)
        if self._global_copies:     # the globals' table, as the scan's links left it
            _changes(self._global_copies, self._global_last, self.plc.globals.s, changed)
        with self.lock:
            for table, start, end, words in changed:
                table[start:end] = words
            self.scan = scan
            self.control.count(scan)
            self._inflight = {}
            handed = self._take()
        self._hand(handed)

    def apply(self) -> None:
        """Hand the writes clients made since the last hand-over to the PLC (the next
        scan latches them). Call it from the thread that runs the PLC."""
        if self._pending:
            with self.lock:
                handed = self._take()
            self._hand(handed)

    def _take(self) -> list:
        handed = list(self._pending.values())
        for loc, words in handed:
            self._inflight[loc.name] = words
        self._pending = {}
        return handed

    def _hand(self, handed: list) -> None:
        for loc, words in handed:
            self.plc.set(loc.name, _decode(loc.type, words))

    # -- the clients' side ------------------------------------------------------------
    def read(self, table: str, address: int, count: int) -> list | ExceptionCode:
        """``count`` values from ``address``: all from the last complete scan."""
        if address < 0 or count < 1 or address + count > TABLE_SIZE[table]:
            self.refused += 1
            return ExceptionCode.ILLEGAL_DATA_ADDRESS
        with self.lock:
            values = self.tables[table][address:address + count]
        self.reads += 1
        return values

    def write(self, table: str, address: int, values: list) -> ExceptionCode | None:
        """Queue a client's write for the next scan, or refuse it whole (ILLEGAL
        DATA ADDRESS) if any address is not an input's."""
        if table == HOLDING_REGISTERS and address + len(values) > control.BASE:
            refused = self.control.write(address, values) if address >= control.BASE else \
                ExceptionCode.ILLEGAL_DATA_ADDRESS
            if refused is not None:
                self.refused += 1
            else:
                self.writes += 1
            return refused
        writable = self._writable.get(table, {})
        places = [writable.get(address + k) for k in range(len(values))]
        if address < 0 or not values or None in places:
            self.refused += 1
            return ExceptionCode.ILLEGAL_DATA_ADDRESS
        with self.lock:
            for (loc, k), value in zip(places, values):
                entry = self._pending.get(loc.name)
                if entry is None:
                    words = self._inflight.get(loc.name)
                    if words is None:
                        table_, start = loc.table, loc.start
                        words = self.tables[table_][start:start + loc.count]
                    entry = self._pending[loc.name] = (loc, list(words))
                entry[1][k] = bool(value) if loc.type is t.BOOL else int(value) & 0xFFFF
        self.writes += 1
        return None

    # -- description -------------------------------------------------------------------
    def map_rows(self) -> list[tuple[str, ...]]:
        """The address table ``fbd serve --map`` prints."""
        rows = []
        for loc in self.locations:
            if loc.direction == "output":
                access = "read"
            elif loc.window:
                access = f"read; write {loc.span(*loc.window)}"
            else:
                access = "read/write"
            rows.append((str(loc.address), loc.span(), loc.name, str(loc.type), loc.direction,
                         access))
        program = self.plc.program
        for name, address in self.unserved:
            tp = program.input_types.get(name) or program.output_types.get(name)
            rows.append((str(address), "-", name, str(tp),
                         "input" if name in program.inputs else "output",
                         "not served (OpenPLC maps no address of this form)"))
        for name, address, tp in self.unserved_globals:
            rows.append((str(address), "-", name, str(tp),
                         "output" if address.area == "Q" else "input",
                         "not served (OpenPLC maps no address of this form)"))
        return rows


def _changes(copies: list, last: list, s: list, changed: list) -> None:
    """Append (table, start, end, words) for each value of ``s`` that ``copies``
    publishes and that changed since ``last`` (updated)."""
    for i, (slot, enc, table, start, end, skip) in enumerate(copies):
        value = s[slot]
        if skip and value == last[i]:
            continue
        last[i] = value
        changed.append((table, start, end, enc(value)))
