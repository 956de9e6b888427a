"""The PLC's own registers: its state, its fault and a control register, outside
the program's map.

OpenPLC's runtime keeps locations of its own beyond the program's (``%ML1024``
and on: the clock, the scan counter); a client here reads the PLC's state and
fault, and restarts it, through holding registers right after the ``%IW``
input window (8192-9215), where no located port can be:

=============  ===========  ============================================================
holding reg.   name         what
=============  ===========  ============================================================
9216           CONTROL      write 1 start (out of STOP), 2 stop, 3 warm restart, 4 cold
                            restart (out of FAULT too); 0 does nothing; reads 0
9217           STATE        1 RUN, 2 STOP, 3 FAULT
9218           FAULT        0 none, 1 array index out of bounds, 2 watchdog, 3 a trap
                            of the native engine, 4 a block's error, 5 an internal error
9219-9220      FAULT_SCAN   the scan that failed (32 bits, high word first)
9221           FAULT_LINE   its line in a text POU (0: none, or a network's block)
9222-9223      SCANS        the scans the main task has run (32 bits, wraps)
9224-9287      FAULT_TEXT   the fault's message (its file by name, not path): UTF-8, two
                            bytes a register (high byte first), cut at 128 bytes,
                            NUL-padded
=============  ===========  ============================================================

A control write is checked at once (another value is ILLEGAL DATA VALUE, a
write onto the read-only registers ILLEGAL DATA ADDRESS) and carried out
between two scans by the thread that runs the PLC (:meth:`fbd.Plc.request`),
which also happens while the PLC runs no scan, in STOP or FAULT. A start
cannot clear a fault: the scan that raised left the variables half done, so
only a restart runs the program again. The registers change as the PLC's
state does (a listener on the PLC) and SCANS with every scan.
"""

from __future__ import annotations

import os

from ..runtime.faults import PlcState
from .protocol import ExceptionCode

__all__ = ["ControlRegisters", "BASE", "SIZE", "CONTROL", "STATE", "FAULT", "FAULT_SCAN",
           "FAULT_LINE", "SCANS", "FAULT_TEXT", "COMMANDS", "STATES", "ROWS"]

BASE = 9216                  # right after the %IW input window (8192-9215)
CONTROL, STATE, FAULT, FAULT_SCAN, FAULT_LINE, SCANS = (BASE, BASE + 1, BASE + 2, BASE + 3,
                                                       BASE + 5, BASE + 6)
FAULT_TEXT = BASE + 8
TEXT_REGISTERS = 64
SIZE = FAULT_TEXT + TEXT_REGISTERS - BASE
#: CONTROL's values -> what the PLC is asked (0: nothing)
COMMANDS = {1: "start", 2: "stop", 3: "warm restart", 4: "cold restart"}
STATES = {PlcState.RUN: 1, PlcState.STOP: 2, PlcState.FAULT: 3}
#: (holding registers, name, what) for ``fbd serve --map``
ROWS = (
    (f"{CONTROL}", "CONTROL", "write 1 start, 2 stop, 3 warm restart, 4 cold restart"),
    (f"{STATE}", "STATE", "1 RUN, 2 STOP, 3 FAULT"),
    (f"{FAULT}", "FAULT", "0 none, 1 index out of bounds, 2 watchdog, 3 native trap, "
                          "4 a block's error, 5 internal error"),
    (f"{FAULT_SCAN}-{FAULT_SCAN + 1}", "FAULT_SCAN", "the scan that failed (32 bits)"),
    (f"{FAULT_LINE}", "FAULT_LINE", "its line in a text POU (0: none)"),
    (f"{SCANS}-{SCANS + 1}", "SCANS", "scans run (32 bits)"),
    (f"{FAULT_TEXT}-{FAULT_TEXT + TEXT_REGISTERS - 1}", "FAULT_TEXT",
     "the fault's message, UTF-8, 2 bytes a register"),
)


class ControlRegisters:
    """The PLC's registers in a holding-register table (``registers``, a list the
    caller guards with its lock): :meth:`show` after a change of state,
    :meth:`count` after a scan, :meth:`write` for a client's write."""

    def __init__(self, registers: list, plc):
        self.registers = registers
        self.plc = plc

    def show(self) -> None:
        """Write the PLC's state and fault into the registers."""
        plc, regs = self.plc, self.registers
        fault = plc.fault
        regs[STATE] = STATES[plc.state]
        regs[FAULT] = fault.code if fault else 0
        scan = fault.scan if fault else 0
        regs[FAULT_SCAN:FAULT_SCAN + 2] = (scan >> 16 & 0xFFFF, scan & 0xFFFF)
        regs[FAULT_LINE] = (fault.line or 0) & 0xFFFF if fault else 0
        text = _short(fault).encode()[:2 * TEXT_REGISTERS] if fault else b""
        text = text.decode(errors="ignore").encode()    # not half a character at the cut
        text = text.ljust(2 * TEXT_REGISTERS, b"\0")
        regs[FAULT_TEXT:FAULT_TEXT + TEXT_REGISTERS] = [
            text[k] << 8 | text[k + 1] for k in range(0, len(text), 2)]
        self.count(plc.scans)

    def count(self, scans: int) -> None:
        self.registers[SCANS:SCANS + 2] = (scans >> 16 & 0xFFFF, scans & 0xFFFF)

    def write(self, address: int, values: list) -> ExceptionCode | None:
        """A client's write at ``address`` (in this block): only CONTROL, one of
        :data:`COMMANDS`; asked of the PLC, done between two scans."""
        if address != CONTROL or len(values) != 1:
            return ExceptionCode.ILLEGAL_DATA_ADDRESS
        command = COMMANDS.get(values[0])
        if command is None and values[0] != 0:
            return ExceptionCode.ILLEGAL_DATA_VALUE
        if command is not None:
            self.plc.request(command)
        return None


def _short(fault) -> str:
    """The fault's message with its file's name for its path: 128 bytes go far."""
    message = fault.message
    if fault.file and message.startswith(fault.file):
        message = os.path.basename(fault.file) + message[len(fault.file):]
    return message
