"""A fault stops the program, never the server: the PLC's registers (state, fault,
control) read and written by a real client, in process and against ``fbd serve``
in a process of its own, for each kind of fault. Loopback, free ports, no timed
assertion (a wait ends when the server says so, or after a generous deadline)."""

import contextlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pymodbus.client import ModbusTcpClient

import blocks
from fbd import BOOL, INT, Network, Plc, PlcFault
from fbd.block import Block, Port, register
from fbd.errors import FbdError
from fbd.modbus import ModbusServer
from fbd.modbus.control import CONTROL, FAULT, FAULT_LINE, FAULT_SCAN, FAULT_TEXT, SCANS, STATE
from fbd.st.project import load

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve()
RUN, STOP, IN_FAULT = 1, 2, 3
DEADLINE = 60.0      # seconds: however loaded the machine, a wait ends by then

TASK = """
CONFIGURATION cfg
  RESOURCE res ON PLC
    TASK t(INTERVAL := T#2ms, PRIORITY := 0);
    PROGRAM inst WITH t : prg;
  END_RESOURCE
END_CONFIGURATION
"""
# a client writes 8192 to %IW0, the index of a 10-element array
INDEX = """\
PROGRAM prg
VAR
  idx AT %IW0 : INT;
  out AT %QW0 : INT;
  count AT %QW1 : INT;
  a : ARRAY[0..9] OF INT := [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
END_VAR
  count := count + 1;
  out := a[idx];
END_PROGRAM
""" + TASK
# a written value drives a loop into the watchdog
LOOP = """\
PROGRAM prg
VAR
  spin AT %IX0.0 : BOOL;
  count AT %QW1 : INT;
END_VAR
  count := count + 1;
  WHILE spin DO
    count := count + 0;
  END_WHILE;
END_PROGRAM
""" + TASK


def _refuse(go: bool) -> bool:
    if go:
        raise FbdError("the valve is not where the block expects it")
    return go


def _divide(go: bool) -> bool:
    return 1 // (0 if go else 1) == 1


@register
class MODBUS_FAULT_TEST_REFUSE(Block):
    """Raises an FbdError when GO is TRUE: a block's own error."""
    family = "test"
    inputs = [Port("GO", BOOL)]
    outputs = [Port("Q", BOOL)]
    helpers = {"_refuse": _refuse}

    def code(self, io):
        return f"{io.Q} = _refuse({io.GO})"


@register
class MODBUS_FAULT_TEST_DIVIDE(Block):
    """Divides by zero in Python when GO is TRUE: a bug in a block."""
    family = "test"
    inputs = [Port("GO", BOOL)]
    outputs = [Port("Q", BOOL)]
    helpers = {"_divide": _divide}

    def code(self, io):
        return f"{io.Q} = _divide({io.GO})"


def _guarded(block) -> Network:
    """COUNT (%QW1) counts the scans; the block raises when GO (%IX0.0) is TRUE."""
    net = Network("Guarded")
    inc = net.add("inc", blocks.ADD(INT), IN2=1)
    net.connect(inc.OUT, inc.IN1, feedback=True)
    net.output("COUNT", inc.OUT, at="%QW1")
    net.output("Q", net.add("valve", block, GO=net.input("GO", BOOL, at="%IX0.0")).Q,
               at="%QX0.0")
    return net


def refusing() -> Network:
    return _guarded(MODBUS_FAULT_TEST_REFUSE())


def dividing() -> Network:
    return _guarded(MODBUS_FAULT_TEST_DIVIDE())


def text(registers: list) -> str:
    raw = b"".join(r.to_bytes(2, "big") for r in registers)
    return raw.rstrip(b"\0").decode()


def word32(registers: list) -> int:
    return registers[0] << 16 | registers[1]


def until(condition, what: str):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.005)
    raise AssertionError(f"not within {DEADLINE} s: {what}")


# ------------------------------------------------------------------- in this process
@contextlib.contextmanager
def served(plc: Plc):
    server = ModbusServer(plc, port=0).start()
    client = ModbusTcpClient("127.0.0.1", port=server.port, timeout=5)
    assert client.connect()
    try:
        yield server, client
    finally:
        client.close()
        server.stop()


def registers(client) -> dict:
    r = client.read_holding_registers(CONTROL, count=FAULT_TEXT + 64 - CONTROL).registers
    at = {name: address - CONTROL for name, address in (
        ("state", STATE), ("fault", FAULT), ("scan", FAULT_SCAN), ("line", FAULT_LINE),
        ("scans", SCANS), ("text", FAULT_TEXT))}
    return {"control": r[0], "state": r[at["state"]], "fault": r[at["fault"]],
            "scan": word32(r[at["scan"]:at["scan"] + 2]), "line": r[at["line"]],
            "scans": word32(r[at["scans"]:at["scans"] + 2]), "text": text(r[at["text"]:])}


def index_plc(**options) -> Plc:
    return Plc(load("idx.st", text=INDEX).network("prg"), **options)


def test_the_plcs_registers_show_its_fault_and_a_client_restarts_it():
    plc = index_plc()
    with served(plc) as (_server, client):
        plc.scan(3)
        assert registers(client) == {"control": 0, "state": RUN, "fault": 0, "scan": 0,
                                     "line": 0, "scans": 3, "text": ""}
        assert not client.write_register(8192, 8192).isError()     # %IW0 through the window
        with pytest.raises(PlcFault):
            plc.scan()
        assert registers(client) == {
            "control": 0, "state": IN_FAULT, "fault": 1, "scan": 4, "line": 9, "scans": 3,
            "text": "idx.st:9: in PROGRAM prg: array index 8192 is outside 0..9"}
        # in FAULT: reads return the image, writes wait in it
        assert client.read_holding_registers(0, count=2).registers == [10, 3]
        assert not client.write_register(8192, 2).isError()
        assert not client.write_register(CONTROL, 4).isError()         # a cold restart
        assert plc.state == "FAULT"                  # carried out by whoever runs the PLC
        plc.scan()
        assert registers(client)["state"] == RUN and plc.fault is None
        assert client.read_holding_registers(0, count=2).registers == [12, 1]


def test_stop_and_start_through_the_control_register():
    plc = index_plc()
    with served(plc) as (_server, client):
        plc.scan(2)
        assert not client.write_register(CONTROL, 2).isError()
        plc.serve_requests()
        assert registers(client)["state"] == STOP
        with pytest.raises(FbdError, match="in STOP"):
            plc.scan()
        assert not client.write_register(CONTROL, 1).isError()
        plc.scan()
        assert registers(client)["state"] == RUN and plc.scans == 3


@pytest.mark.parametrize("address, values, code", [
    (CONTROL, [5], 3),                 # not a command: ILLEGAL DATA VALUE
    (STATE, [1], 2),                   # read-only: ILLEGAL DATA ADDRESS
    (CONTROL, [4, 1], 2),              # CONTROL and STATE in one write
    (9215, [0, 4], 2),                 # the window's last register and CONTROL
    (FAULT_TEXT + 63, [1], 2),
])
def test_a_write_onto_the_plcs_registers_other_than_a_command_is_refused(address, values, code):
    plc = index_plc()
    with served(plc) as (_server, client):
        reply = client.write_registers(address, values)
        assert reply.isError() and reply.exception_code == code
        assert not client.write_register(CONTROL, 0).isError()         # 0: nothing
        plc.scan()
        assert registers(client)["state"] == RUN and plc.scans == 1
        assert client.read_holding_registers(FAULT_TEXT + 63, count=2).isError()   # the end


def test_on_fault_zero_shows_the_outputs_at_zero_to_clients():
    plc = index_plc(on_fault="zero")
    with served(plc) as (_server, client):
        plc.set("idx", 4)
        plc.scan(2)
        assert client.read_holding_registers(0, count=2).registers == [14, 2]
        plc.set("idx", -1)
        with pytest.raises(PlcFault):
            plc.scan()
        assert client.read_holding_registers(0, count=2).registers == [0, 0]


# ------------------------------------------------------------ fbd serve in a process
# fbd as a terminal starts it: Ctrl-C raises KeyboardInterrupt (see test_modbus.py).
AS_FROM_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                      "from fbd.tools.cli import main; sys.exit(main(sys.argv[1:]))")


@contextlib.contextmanager
def fbd_serve(target: str, *options):
    """``fbd serve TARGET --port 0 OPTIONS`` in its own process: yields (its port, the
    process, the stderr lines read so far); ends it with Ctrl-C, which must give
    status 0, and adds the rest of its stderr to the lines."""
    proc = subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, "serve", target,
                             "--port", "0", *options],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        first = proc.stderr.readline()
        lines.append(first)
        assert "over Modbus TCP on 127.0.0.1:" in first, first
        yield int(first.split("127.0.0.1:")[1].split(",")[0]), proc, lines
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        lines += proc.stderr.read().splitlines(keepends=True)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def line_with(proc, lines: list, words: str) -> str:
    """The next stderr line holding ``words`` (the lines before it kept in ``lines``).
    With --stats a line comes every period, so the deadline is looked at."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        assert line, f"fbd serve ended without a line holding {words!r}: {lines}"
        lines.append(line)
        if words in line:
            return line
    raise AssertionError(f"no line holding {words!r} within {DEADLINE} s: {lines}")


@pytest.mark.parametrize("kind, target, table, trigger, release, code, line, message", [
    pytest.param("index", "idx.st", "register", (8192, 8192), (8192, 3), 1, 9,
                 "idx.st:9: in PROGRAM prg: array index 8192 is outside 0..9", id="index"),
    pytest.param("watchdog", "loop.st", "coil", (800, True), (800, False), 2, 7,
                 "loop.st:7: in PROGRAM prg: watchdog: a loop ran more than the budget",
                 id="watchdog"),
    pytest.param("a block's error", f"{HERE}:refusing", "coil", (800, True), (800, False), 4,
                 0, "the valve is not where the block expects it", id="block-error"),
    pytest.param("a bug in a block", f"{HERE}:dividing", "coil", (800, True), (800, False), 5,
                 0, "ZeroDivisionError: integer division or modulo by zero (at ", id="block-bug"),
])
def test_fbd_serve_survives_each_fault_and_runs_again_after_a_restart(
        tmp_path, kind, target, table, trigger, release, code, line, message):
    if target.endswith(".st"):
        path = tmp_path / target
        path.write_text(INDEX if target == "idx.st" else LOOP)
        target = str(path)
    with fbd_serve(target, "--stats", "0.5") as (port, proc, lines):
        with ModbusTcpClient("127.0.0.1", port=port, timeout=10) as c:
            until(lambda: registers(c)["scans"] > 2, "the PLC runs")
            assert not getattr(c, f"write_{table}")(*trigger).isError()
            seen = until(lambda: (r := registers(c))["state"] == IN_FAULT and r, "FAULT")
            assert (seen["fault"], seen["line"]) == (code, line), kind
            assert seen["text"].startswith(message), seen["text"]
            reported = line_with(proc, lines, "fbd: FAULT at ")
            task = "inst" if target.endswith(".st") else "main"
            assert f"FAULT at scan {seen['scan']:,} of task {task}" in reported
            assert message in reported
            assert "to restart, write 3 (warm) or 4 (cold) to holding register 9216" in reported
            line_with(proc, lines, f"FAULT since scan {seen['scan']:,}")    # --stats says so
            # still serving: another client reads, and writes the input back
            with ModbusTcpClient("127.0.0.1", port=port, timeout=10) as other:
                assert not other.read_holding_registers(0, count=2).isError()
                assert not getattr(other, f"write_{table}")(*release).isError()
            assert registers(c)["scans"] == seen["scans"]    # no scan ran meanwhile
            assert not c.write_register(CONTROL, 4).isError()             # a cold restart
            until(lambda: registers(c)["scans"] > seen["scans"] + 2, "running again")
            line_with(proc, lines, "fbd: cold restart: RUN again, scan ")
            assert not c.write_register(CONTROL, 2).isError()             # stop, to look
            until(lambda: registers(c)["state"] == STOP, "STOP")
            # every variable started afresh: COUNT counts the scans since the restart
            after = registers(c)["scans"] - seen["scans"]
            assert c.read_holding_registers(1, count=1).registers == [after]
    rest = "".join(lines)
    assert rest.count("fbd: FAULT at ") == 1 and "Traceback" not in rest
    assert "fbd: STOP (asked for by a client)" in rest
    assert "fbd: stopped after" in rest and "(in STOP)" in rest
