"""The Modbus TCP server (fbd.modbus) and ``fbd serve``: OpenPLC's layout, every
function code, exception responses, process-image semantics, 2048 played over TCP,
concurrent clients. Loopback only, free ports (port 0), no timed assertions."""

import asyncio
import contextlib
import datetime
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pymodbus.client import AsyncModbusTcpClient, ModbusTcpClient
from pymodbus.exceptions import ConnectionException

import blocks
from fbd import BOOL, BYTE, DINT, INT, LREAL, REAL, TIME, Network, Plc
from fbd.errors import FbdError
from fbd.modbus import (
    COILS,
    DISCRETE_INPUTS,
    HOLDING_REGISTERS,
    INPUT_REGISTERS,
    IW_WINDOW,
    IX_WINDOW,
    ModbusServer,
    ProcessImage,
    locate,
)
from fbd.runtime.realtime import run_realtime
from fbd.tools import cli
from programs.game2048 import build as build_2048

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve()
N_ECHO = 20


# ------------------------------------------------------------------------------ programs
def io_program() -> Network:
    """One port of every kind, each input echoed to an output."""
    net = Network("Io")
    x = net.input("X", BOOL, at="%IX1.2")
    w = net.input("W", INT, at="%IW5")
    m = net.input("M", INT, at="%MW3")
    d = net.input("D", DINT, at="%MD4")
    r = net.input("R", REAL, at="%MD5")
    lr = net.input("LR", LREAL, at="%ML2")
    tm = net.input("TM", TIME, at="%ML3")
    net.output("QX", net.add("inv", blocks.NOT(), IN=x).OUT, at="%QX2.7")
    net.output("QW", w, at="%QW7")
    net.output("QM", m, at="%MW4")
    net.output("QD", d, at="%MD6")
    net.output("QR", r, at="%MD7")
    net.output("QLR", lr, at="%ML4")
    net.output("QTM", tm, at="%ML5")
    return net


def counter_program() -> Network:
    """Q0..Q15 = counter + k (%QW0..15): a read of them is consistent only if it is from
    one scan. IN_i (%MW i for i < 10, %IW i through the window above) echoed to %QW 16+i."""
    net = Network("Counter")
    inc = net.add("inc", blocks.ADD(INT), IN2=1)
    net.connect(inc.OUT, inc.IN1, feedback=True)
    for k in range(16):
        net.output(f"Q{k}", net.add(f"q{k}", blocks.ADD(INT), IN1=inc.OUT, IN2=k).OUT,
                   at=f"%QW{k}")
    for i in range(N_ECHO):
        at = f"%MW{i}" if i < 10 else f"%IW{i}"
        net.output(f"ECHO_{i}", net.input(f"IN_{i}", INT, at=at), at=f"%QW{16 + i}")
    return net


def unlocated() -> Network:
    net = Network("Plain")
    net.output("Q", net.input("A", BOOL))
    return net


def scan(plc: Plc, image: ProcessImage, n: int = 1) -> None:
    """Scans as any runner makes them: the image hands clients' writes over at
    the start of each (a before_scan hook of the PLC's task)."""
    plc.scan(n)


def echo_address(i: int) -> int:
    return 1024 + i if i < 10 else IW_WINDOW + i


@pytest.fixture
def served():
    """A server on a headless PLC: the test scans it by hand, so nothing is timed."""
    started = []

    def start(net, **kw):
        plc = Plc(net, cycle=0.005)
        server = ModbusServer(plc, port=0, **kw).start()
        client = ModbusTcpClient("127.0.0.1", port=server.port, timeout=5)
        assert client.connect()
        started.append((server, client))
        return plc, server, client

    yield start
    for server, client in started:
        client.close()
        server.stop()


# ------------------------------------------------------------------------ the layout
def test_locations_follow_openplcs_layout():
    plc = Plc(io_program())
    where = {loc.name: (loc.table, loc.start, loc.count, loc.writable) for loc in locate(plc.program)}
    assert where == {
        "X": (DISCRETE_INPUTS, 10, 1, (COILS, IX_WINDOW + 10)),
        "W": (INPUT_REGISTERS, 5, 1, (HOLDING_REGISTERS, IW_WINDOW + 5)),
        "M": (HOLDING_REGISTERS, 1027, 1, (HOLDING_REGISTERS, 1027)),
        "D": (HOLDING_REGISTERS, 2056, 2, (HOLDING_REGISTERS, 2056)),
        "R": (HOLDING_REGISTERS, 2058, 2, (HOLDING_REGISTERS, 2058)),
        "LR": (HOLDING_REGISTERS, 4104, 4, (HOLDING_REGISTERS, 4104)),
        "TM": (HOLDING_REGISTERS, 4108, 4, (HOLDING_REGISTERS, 4108)),
        "QX": (COILS, 23, 1, None),
        "QW": (HOLDING_REGISTERS, 7, 1, None),
        "QM": (HOLDING_REGISTERS, 1028, 1, None),
        "QD": (HOLDING_REGISTERS, 2060, 2, None),
        "QR": (HOLDING_REGISTERS, 2062, 2, None),
        "QLR": (HOLDING_REGISTERS, 4112, 4, None),
        "QTM": (HOLDING_REGISTERS, 4116, 4, None),
    }


@pytest.mark.parametrize("at, type_, says", [
    ("%QB0", BYTE, "%QB0 has no Modbus address"),
    ("%QX100.0", BOOL, r"%QX100.0 is past the last Modbus address of its kind \(%QX99.7\)"),
    ("%MW1024", INT, r"%MW1024 is past the last .* \(%MW1023\)"),
])
def test_a_location_openplc_cannot_serve_is_refused_by_name(at, type_, says):
    net = Network("Odd")
    net.output("Q", net.input("A", type_), at=at)
    with pytest.raises(FbdError, match=f"Odd.Q: {says}"):
        ProcessImage(Plc(net))


def test_a_program_without_located_ports_cannot_be_served():
    with pytest.raises(FbdError, match="no located inputs or outputs"):
        ProcessImage(Plc(unlocated()))


# ---------------------------------------------------------- the image (no network)
def test_values_cross_the_image_in_their_types_high_word_first():
    plc = Plc(io_program())
    image = ProcessImage(plc)
    writes = {
        (COILS, IX_WINDOW + 10): [True],
        (HOLDING_REGISTERS, IW_WINDOW + 5): [0xFFFE],                # -2
        (HOLDING_REGISTERS, 1027): [1234],
        (HOLDING_REGISTERS, 2056): [0xFFFE, 0x0001],                 # -131071
        (HOLDING_REGISTERS, 2058): list(struct.unpack(">2H", struct.pack(">f", 1.5))),
        (HOLDING_REGISTERS, 4104): list(struct.unpack(">4H", struct.pack(">d", -2.25))),
        (HOLDING_REGISTERS, 4108): [0, 0, 0x000F, 0x4240],           # 1 s in µs
    }
    for (table, address), values in writes.items():
        assert image.write(table, address, values) is None
    scan(plc, image)
    assert (plc.get("QX"), plc.get("QW"), plc.get("QM"), plc.get("QD")) == (False, -2, 1234, -131071)
    assert (plc.get("QR"), plc.get("QLR"), plc.get("QTM")) == (1.5, -2.25,
                                                               datetime.timedelta(seconds=1))
    assert image.read(COILS, 23, 1) == [False]
    assert image.read(DISCRETE_INPUTS, 10, 1) == [True]
    assert image.read(COILS, IX_WINDOW + 10, 1) == [True]        # the window reads back too
    assert image.read(INPUT_REGISTERS, 5, 1) == [0xFFFE]
    assert image.read(HOLDING_REGISTERS, 7, 1) == [0xFFFE]
    assert image.read(HOLDING_REGISTERS, 2060, 2) == [0xFFFE, 0x0001]
    assert image.read(HOLDING_REGISTERS, 4116, 4) == [0, 0, 0x000F, 0x4240]
    assert image.read(HOLDING_REGISTERS, 3000, 3) == [0, 0, 0]   # nobody there: reads 0


def test_a_real_crosses_the_image_as_its_single_precision_bits():
    """A REAL is IEEE single precision: a client writes its 32 bits, the program
    computes with that value (0.1's single, 0.100000001490116...), and the
    output's registers hold the single-precision result of REAL arithmetic."""
    net = Network("Reals")
    r = net.input("R", REAL, at="%MD5")
    total = net.add("sum", blocks.ADD(REAL), IN1=r, IN2=0.2)
    net.output("QR", total.OUT, at="%MD7")
    net.output("QD", net.add("d", blocks.REAL_TO_LREAL(), IN=r).OUT, at="%ML4")
    plc = Plc(net)
    image = ProcessImage(plc)
    tenth = struct.unpack(">2H", struct.pack(">f", 0.1))    # 16#3DCC, 16#CCCD
    image.write(HOLDING_REGISTERS, 2058, list(tenth))
    scan(plc, image)
    assert plc.get("R") == 0.10000000149011612 == plc.get("QD")
    assert plc.get("QR") == 0.30000001192092896                 # 0.1 + 0.2 in single precision
    assert image.read(HOLDING_REGISTERS, 2062, 2) == list(struct.unpack(">2H", struct.pack(
        ">f", 0.30000001192092896)))
    assert image.read(HOLDING_REGISTERS, 4112, 4) == list(struct.unpack(">4H", struct.pack(
        ">d", 0.10000000149011612)))


def test_writes_wait_for_the_next_scan_and_reads_show_the_last_one():
    plc = Plc(io_program())
    image = ProcessImage(plc)
    scan(plc, image)
    image.write(HOLDING_REGISTERS, 1027, [7])
    assert image.read(HOLDING_REGISTERS, 1027, 2) == [0, 0]      # not latched yet
    assert plc.get("QM") == 0
    image.write(HOLDING_REGISTERS, 1027, [8])                     # the last write of a scan wins
    scan(plc, image)
    assert plc.get("QM") == 8
    assert image.read(HOLDING_REGISTERS, 1027, 2) == [8, 8]       # input latched, output published


def test_a_write_to_half_of_a_double_word_keeps_the_other_half():
    plc = Plc(io_program())
    image = ProcessImage(plc)
    image.write(HOLDING_REGISTERS, 2056, [0x0001, 0x0002])
    scan(plc, image)
    image.write(HOLDING_REGISTERS, 2057, [0x0003])                 # low word only
    image.apply()                                                  # handed over, not latched
    image.write(HOLDING_REGISTERS, 2056, [0x0000])                 # then the high word
    scan(plc, image)
    assert plc.get("QD") == 0x0000_0003


@pytest.mark.parametrize("table, address, values", [
    (HOLDING_REGISTERS, 7, [1]),              # an output
    (HOLDING_REGISTERS, 100, [1]),            # nobody located there
    (HOLDING_REGISTERS, 1027, [1, 2]),        # runs from an input onto an output
    (COILS, 23, [True]),                      # an output coil
    (HOLDING_REGISTERS, 9288, [1]),           # past the table (the PLC's registers end it)
])
def test_a_write_that_is_not_all_inputs_is_refused_whole(table, address, values):
    plc = Plc(io_program())
    image = ProcessImage(plc)
    assert int(image.write(table, address, values)) == 2
    scan(plc, image)
    assert plc.get("QM") == 0 and image.refused == 1


def test_a_detached_image_stops_following_the_plc():
    plc = Plc(io_program())
    image = ProcessImage(plc)
    assert image in plc.main.traces
    image.detach()
    assert image not in plc.main.traces


# ---------------------------------------------------------------- over TCP
def test_every_function_code(served):
    plc, server, c = served(io_program())
    assert c.write_coil(IX_WINDOW + 10, True).bits == [True]                         # FC 5
    assert c.write_register(1027, 42).registers == [42]                              # FC 6
    assert not c.write_registers(2056, [0, 5]).isError()                             # FC 16
    assert not c.write_coils(IX_WINDOW + 10, [False]).isError()                      # FC 15
    assert not c.write_registers(IW_WINDOW + 5, [9]).isError()
    scan(plc, server.image)
    assert c.read_coils(23, count=1).bits[0] is True                                 # FC 1
    assert c.read_discrete_inputs(10, count=1).bits[0] is False                      # FC 2
    assert c.read_holding_registers(1027, count=2).registers == [42, 42]             # FC 3
    assert c.read_holding_registers(2060, count=2).registers == [0, 5]
    assert c.read_input_registers(5, count=1).registers == [9]                       # FC 4
    assert plc.get("QD") == 5 and plc.get("QW") == 9


def _raw(port: int, pdu: bytes, unit: int = 1) -> bytes:
    """Send one Modbus TCP frame, return the reply's PDU."""
    frame = struct.pack(">HHHB", 7, 0, len(pdu) + 1, unit) + pdu
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(frame)
        head = _recv(s, 7)
        return _recv(s, struct.unpack(">H", head[4:6])[0] - 1)


def _recv(s, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        assert chunk, "the server closed the connection"
        data += chunk
    return data


def test_bad_requests_get_exception_responses_and_the_server_goes_on(served):
    plc, server, c = served(io_program())
    illegal_address = [
        c.read_holding_registers(9287, count=2),       # runs past the end
        c.read_coils(1600, count=1),
        c.read_discrete_inputs(800, count=1),
        c.read_input_registers(1020, count=10),
        c.write_register(7, 1),                         # an output: read-only
        c.write_coil(23, True),
        c.write_registers(100, [1, 2]),                 # nobody there
    ]
    for reply in illegal_address:
        assert reply.isError() and reply.exception_code == 2, reply
    # Function codes we do not serve: 23 (read/write multiple), 8 (diagnostics), 0x41.
    for pdu in (bytes([23]) + struct.pack(">HHHHB", 0, 1, 1027, 1, 2) + b"\x00\x01",
                bytes([8, 0, 0, 0x12, 0x34]), bytes([0x41, 0, 0])):
        assert _raw(server.port, pdu)[:2] == bytes([pdu[0] | 0x80, 1])
    assert _raw(server.port, bytes([3]) + struct.pack(">HH", 1027, 1))[:2] == b"\x03\x02"
    assert c.read_holding_registers(1027, count=1).registers == [0]   # still serving
    assert server.image.refused >= len(illegal_address)


def test_a_client_that_disconnects_mid_request_harms_nothing(served):
    plc, server, c = served(io_program())
    frame = struct.pack(">HHHB", 1, 0, 6, 1) + bytes([6]) + struct.pack(">HH", 1027, 77)
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(frame[:5])                            # half a header, then gone
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(frame)                                # a whole write, gone before the reply
    for _ in range(50):                                 # the second write lands, in its time
        scan(plc, server.image)
        if c.read_holding_registers(1027, count=1).registers == [77]:
            break
    assert c.read_holding_registers(1027, count=1).registers == [77]
    assert c.write_register(1027, 78).registers == [78]


def test_stopping_the_server_closes_its_connections():
    plc = Plc(io_program())
    server = ModbusServer(plc, port=0).start()
    with ModbusTcpClient("127.0.0.1", port=server.port, timeout=5, retries=0) as c, \
            socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        assert c.read_holding_registers(1027, count=1, device_id=7).registers == [0]  # any unit
        server.stop()
        assert raw.recv(10) == b""                       # closed by the server
        with pytest.raises(ConnectionException, match="closed"):
            c.read_holding_registers(1027, count=1)
    assert not plc.main.traces


def test_the_server_binds_to_loopback_by_default(served):
    plc, server, c = served(io_program())
    assert server.host == "127.0.0.1" and server.address[0] == "127.0.0.1"
    args = cli.build_parser().parse_args(["serve", "2048"])
    assert args.bind == "127.0.0.1" and args.port is None


def test_a_port_in_use_is_reported():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        plc = Plc(io_program())
        with pytest.raises(FbdError, match=f"port {s.getsockname()[1]} on 127.0.0.1 is already "
                                           f"in use"):
            ModbusServer(plc, port=s.getsockname()[1]).start()
        assert not plc.main.traces


# --------------------------------------------------------------------- 2048 over TCP
def test_a_client_plays_2048_over_tcp(served):
    plc, server, c = served(build_2048(seed=3))

    def command(cmd: int) -> int:
        seq = c.read_holding_registers(1025, count=1).registers[0] + 1
        assert not c.write_registers(1024, [cmd, seq]).isError()
        for scans in range(1, 1000):
            scan(plc, server.image)
            taken = c.read_holding_registers(0, count=1).registers[0]
            if taken == seq and not c.read_coils(1, count=1).bits[0]:   # TAKEN, not BUSY
                return scans
        raise AssertionError("the command never finished")

    def board() -> list:
        regs = c.read_holding_registers(2048, count=32).registers
        return [[regs[2 * (4 * r + col)] << 16 | regs[2 * (4 * r + col) + 1] for col in range(4)]
                for r in range(4)]

    command(5)                                                            # start
    assert sorted(v for row in board() for v in row if v) in ([2, 2], [2, 4], [4, 4])
    moves = 0
    for cmd in [1, 2, 3, 4] * 6:
        before = board()
        command(cmd)
        after = board()
        assert after == [[plc.get(f"CELL_{r}_{col}") for col in range(4)] for r in range(4)]
        moved = c.read_coils(0, count=1).bits[0]
        if moved:
            moves += 1
            assert sum(map(sum, after)) - sum(map(sum, before)) in (2, 4)   # one new tile
        else:
            assert after == before
    hi, lo = c.read_holding_registers(2080, count=2).registers
    assert hi << 16 | lo == plc.get("SCORE") > 0 and moves > 5
    assert c.read_coils(3, count=2).bits[:2] == [plc.get("GAME_OVER"), plc.get("WON")]


# ------------------------------------------------------------------ many clients at once
def test_20_clients_500_requests_no_lost_write_no_torn_read():
    plc = Plc(counter_program(), cycle=0.001)
    stop = threading.Event()
    with ModbusServer(plc, port=0) as server:
        runner = threading.Thread(target=run_realtime, args=(plc, stop))
        runner.start()
        try:
            problems = asyncio.run(_hammer(server.port))
        finally:
            stop.set()
            runner.join()
    assert problems == []
    assert server.image.writes == N_ECHO * 250 and server.image.refused == 0


async def _hammer(port: int) -> list:
    problems = []

    async def client(i: int):
        address = echo_address(i)
        async with AsyncModbusTcpClient("127.0.0.1", port=port, timeout=10) as c:
            last_echo = 0
            for v in range(1, 251):
                reply = (await c.write_register(address, v) if v % 2 else
                         await c.write_registers(address, [v]))
                if reply.isError():
                    problems.append(f"client {i}: write {v} refused: {reply}")
                regs = (await c.read_holding_registers(0, count=16 + N_ECHO)).registers
                if any((regs[k] - regs[0]) % 65536 != k for k in range(16)):
                    problems.append(f"client {i}: torn read {regs[:16]}")
                echo = regs[16 + i]
                if not last_echo <= echo <= v:
                    problems.append(f"client {i}: echo {echo} after {last_echo}, wrote {v}")
                last_echo = echo
            deadline = time.monotonic() + 30            # the last write, a scan or two later
            while time.monotonic() < deadline:           # (or many, on a loaded machine)
                echo = (await c.read_holding_registers(16 + i, count=1)).registers[0]
                if echo == 250:
                    return
                await asyncio.sleep(0.001)
            problems.append(f"client {i}: lost write: echo {echo}, last written 250")

    await asyncio.gather(*(client(i) for i in range(N_ECHO)))
    return problems


# ------------------------------------------------------------------------ fbd serve
def test_serve_map_prints_the_address_table(capsys):
    assert cli.main(["serve", "2048", "--map"]) == 0
    out = capsys.readouterr().out
    for line in ("%MW0      holding register 1024        CMD        INT   input      read/write",
                 "%MD15     holding registers 2078-2079  CELL_3_3   DINT  output     read",
                 "%QX0.3    coil 3                       GAME_OVER  BOOL  output     read"):
        assert line in out
    assert "coils 800-1599" in out and "holding registers 8192-9215" in out


def test_serve_map_shows_the_window_of_an_input(capsys):
    assert cli.main(["serve", f"{HERE}:io_program", "--map"]) == 0
    out = capsys.readouterr().out
    assert "discrete input 10" in out and "read; write coil 810" in out
    assert "read; write holding register 8197" in out


def test_serve_a_plcopen_pou_with_its_located_variables(capsys, tmp_path):
    xml = tmp_path / "io.xml"
    assert cli.main(["export", f"{HERE}:io_program", "-o", str(xml)]) == 0
    capsys.readouterr()
    assert cli.main(["serve", f"{xml}:Io", "--map"]) == 0
    out = capsys.readouterr().out
    assert "%MD4      holding registers 2056-2057  D     DINT   input      read/write" in out
    assert "%IX1.2    discrete input 10" in out


def text_of_instance(xml) -> str:
    text = xml.read_text()
    start = text.index("<pouInstance")
    return text[text.index('name="', start) + 6:text.index('"', text.index('name="', start) + 6)]


def test_serve_a_project_runs_its_configurations_program_at_its_interval(capsys, tmp_path):
    xml = tmp_path / "io.xml"
    assert cli.main(["export", f"{HERE}:io_program", "-o", str(xml), "--cycle", "20ms"]) == 0
    capsys.readouterr()
    assert cli.main(["serve", str(xml), "--map"]) == 0
    assert "Io: Modbus TCP address map" in capsys.readouterr().out
    from fbd.modbus.serve import _project_program
    net, interval_us, instance = _project_program(str(xml))
    assert net.name == "Io" and interval_us == 20_000    # the scan runs at the task's interval
    assert instance == text_of_instance(xml)              # the task a fault names
    # two program instances: fbd serve serves one, and says which to name
    text = xml.read_text()
    start = text.index("<pouInstance")
    end = text.index("/>", start) + 2
    twice = text[start:end].replace('name="', 'name="other_', 1)
    xml.write_text(text[:end] + twice + text[end:])
    assert cli.main(["serve", str(xml), "--map"]) == 2
    err = capsys.readouterr().err
    assert "its configuration runs 2 programs" in err and f"{xml}:Io" in err


def test_serve_an_st_file_runs_its_configurations_program_with_its_located_variables(
        capsys, tmp_path):
    st = tmp_path / "pump.st"
    st.write_text("""PROGRAM Pump
VAR
  start AT %IX0.0 : BOOL;
  level AT %IW0 : INT;
  motor AT %QX0.0 : BOOL;
END_VAR
motor := start AND level < 100;
END_PROGRAM
CONFIGURATION c RESOURCE r ON PLC
  TASK t(INTERVAL := T#50ms, PRIORITY := 0);
  PROGRAM p WITH t : Pump;
END_RESOURCE END_CONFIGURATION
""")
    assert cli.main(["serve", str(st), "--map"]) == 0
    out = capsys.readouterr().out
    assert "%IX0.0" in out and "%IW0" in out and "%QX0.0" in out
    from fbd.modbus.serve import _project_program
    assert _project_program(str(st))[1] == 50_000


@pytest.mark.parametrize("argv, message", [
    (["serve", f"{HERE}:unlocated"], "Plain has no located inputs or outputs"),
    (["serve", "plc.xml"], "plc.xml: cannot read"),
    (["serve", "2049"], "no program named '2049' (named programs: 2048); give one as "
                        "MODULE:FUNCTION; did you mean 2048?"),
    (["serve", "no_such_module_xyz:f"], "no module named 'no_such_module_xyz'"),
    (["serve", f"{HERE}:io_program", "--bind", "nosuchhost.invalid"], "--bind nosuchhost.invalid"),
    (["serve", f"{HERE}:io_program", "--port", "70000"], "--port 70000: a TCP port is a whole"),
    (["serve", f"{HERE}:io_program", "--cycle", "5"], "--cycle 5: give a unit"),
    (["serve", f"{HERE}:io_program", "--realtime-priority", "100"],
     "--realtime-priority 100: a real-time priority is a whole number 1..99"),
])
def test_serve_user_errors_are_one_line_and_status_2(capsys, argv, message):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and message in err and err.count("\n") == 1


def test_serve_without_the_right_to_a_realtime_priority_says_so_in_one_line(capsys,
                                                                              monkeypatch):
    def refuse(*_args):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(os, "sched_setscheduler", refuse, raising=False)
    assert cli.main(["serve", f"{HERE}:io_program", "--realtime-priority", "20"]) == 2
    err = capsys.readouterr().err
    assert err == ("fbd: error: real-time priority 20: not permitted (run as root, or give "
                   "Python CAP_SYS_NICE or an RLIMIT_RTPRIO of 20)\n")


def test_serve_port_in_use_is_one_line(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        assert cli.main(["serve", f"{HERE}:io_program", "--port", str(s.getsockname()[1])]) == 2
    assert "already in use" in capsys.readouterr().err


# fbd as a terminal starts it: Ctrl-C raises KeyboardInterrupt. A process started in
# the background by a shell without job control inherits SIGINT ignored, and Python
# then leaves it ignored, so the test sets the handler a terminal would give.
AS_FROM_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                      "from fbd.tools.cli import main; sys.exit(main(sys.argv[1:]))")


@contextlib.contextmanager
def fbd_process(*argv):
    """``fbd ARGV`` in a process of its own, as a terminal starts it (stderr piped);
    killed if it still runs at the end."""
    proc = subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, *argv],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@contextlib.contextmanager
def fbd_serve(*options):
    """``fbd serve counter_program --port 0 OPTIONS`` in a process of its own: yields
    (its first stderr line, its port, the process); stops it with Ctrl-C (SIGINT),
    which must end it with status 0, and leaves the rest of its stderr in
    ``proc.rest``."""
    with fbd_process("serve", f"{HERE}:counter_program", "--port", "0", *options) as proc:
        first = proc.stderr.readline()
        assert "over Modbus TCP on 127.0.0.1:" in first, first
        yield first, int(first.split("127.0.0.1:")[1].split(",")[0]), proc
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        proc.rest = proc.stderr.read()


def test_fbd_serve_runs_until_ctrl_c():
    with fbd_serve("--cycle", "2ms") as (_first, port, proc):
        with ModbusTcpClient("127.0.0.1", port=port, timeout=5) as c:
            assert not c.write_register(1024, 5).isError()
            deadline = time.monotonic() + 30             # a scan later, however loaded the machine
            while (c.read_holding_registers(16, count=1).registers != [5]
                   and time.monotonic() < deadline):
                time.sleep(0.001)
            assert c.read_holding_registers(16, count=1).registers == [5]
    assert "fbd: stopped after" in proc.rest and "1 writes" in proc.rest
    assert "Traceback" not in proc.rest


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_sent_the_moment_the_serving_line_is_out_ends_cleanly(stop):
    # clients may be served before the main thread gets past that line (the server has
    # its own thread): the handlers and the try that ends the run come before it
    with fbd_process("serve", f"{HERE}:counter_program", "--port", "0") as proc:
        assert "over Modbus TCP on 127.0.0.1:" in proc.stderr.readline()
        proc.send_signal(stop)
        assert proc.wait(timeout=60) == 0
        rest = proc.stderr.read()
    assert rest.startswith("fbd: stopped after") and "Traceback" not in rest


def _may_use_realtime_priorities() -> bool:
    from fbd.runtime.realtime import check_priority
    try:
        check_priority(1)
    except FbdError:
        return False
    return True


@pytest.mark.skipif(not _may_use_realtime_priorities(),
                    reason="needs Linux and root or CAP_SYS_NICE")
def test_fbd_serve_realtime_priority_scans_at_sched_fifo_and_says_so():
    with fbd_serve("--cycle", "2ms", "--realtime-priority", "5") as (first, port, proc):
        assert "(missed cycles: skip; real-time priority 5)" in first, first
        with ModbusTcpClient("127.0.0.1", port=port, timeout=5) as c:
            assert not c.write_register(1024, 5).isError()
            deadline = time.monotonic() + 30         # scanning: the runner has its priority
            while (c.read_holding_registers(16, count=1).registers != [5]
                   and time.monotonic() < deadline):
                time.sleep(0.001)
        with open(f"/proc/{proc.pid}/stat") as f:       # the main thread runs the scans
            fields = f.read().rsplit(")", 1)[1].split()
        rt_priority, policy = int(fields[37]), int(fields[38])
    assert (policy, rt_priority) == (os.SCHED_FIFO, 5)


def test_fbd_serve_stats_prints_a_line_every_period_and_at_stop():
    with fbd_serve("--cycle", "2ms", "--stats", "0.2", "--missed-cycles", "catch-up",
                   "--max-clients", "7", "--idle-timeout", "30") as (first, port, proc):
        assert "(missed cycles: catch-up); at most 7 clients, idle timeout 30 s" in first, first
        with ModbusTcpClient("127.0.0.1", port=port, timeout=5) as c:
            assert not c.read_holding_registers(0, count=1).isError()
            stats = [proc.stderr.readline() for _ in range(2)]
    rest = proc.rest
    for line in stats:
        assert line.startswith("fbd: stats, last 0.") and " late, " in line, line
        assert " skipped" in line and "requests/s" in line
    assert "fbd: stopped after" in rest and " skipped" in rest and "late" in rest
    assert "1 connection (0 evicted, 0 timed out)" in rest and "Traceback" not in rest


def test_the_benchmark_runs_and_prints_its_table(capsys):
    from fbd.modbus import bench as modbus_bench
    assert modbus_bench.main(["2048", "--seconds", "0.2", "--clients", "20"]) == 0
    out, err = capsys.readouterr()
    assert "20 clients, 10 at a time" in out and "skipped" in out and "p99" in out
    assert "no server" in out and "modbus_bench: 20 clients ..." in err


def test_the_demo_traffic_light_is_driven_through_the_input_window():
    from programs.demo import traffic_light
    plc = Plc(traffic_light())
    image = ProcessImage(plc)
    assert image.read(COILS, 0, 3) == [False, False, False]       # before the first scan
    assert image.write(COILS, 800, [True]) is None                 # ENABLE (%IX0.0)
    plc.scan(2)
    assert image.read(DISCRETE_INPUTS, 0, 1) == [True]
    assert image.read(COILS, 0, 3) == [True, False, False]         # RED
    plc.scan(1601)
    assert image.read(HOLDING_REGISTERS, 0, 1) == [1]              # CYCLES


def test_a_server_follows_a_new_plc_on_the_same_connections(served):
    from programs.demo import traffic_light
    plc, server, client = served(traffic_light())
    plc.scan()
    new = Plc(traffic_light())
    new.set("ENABLE", True)
    new.scan(2)
    server.follow(new)
    assert client.read_coils(0, count=3).bits[:3] == [True, False, False]   # the new one's RED
    with pytest.raises(FbdError, match="no located inputs or outputs"):
        server.follow(Plc(io_program_without_locations()))
    assert server.plc is new and client.read_coils(0, count=1).bits[0] is True


def io_program_without_locations() -> Network:
    net = Network("Plain")
    net.output("Q", net.input("A", BOOL))
    return net
