"""A configuration's located globals (``VAR_GLOBAL level AT %IW0 : INT``), as a
Beremiz project declares its I/O: they run as matiec runs them, and ``fbd serve``
serves them as it serves a program's located variables. matiec's rows in the
tests (iec2c 6bb2c339df6f through the matiec oracle)."""

import pytest
from pymodbus.client import ModbusTcpClient

import fbd
from fbd.modbus import (
    IW_WINDOW,
    IX_WINDOW,
    ModbusServer,
)
from fbd.st.project import load
from fbd.tools import cli

PUMP = """PROGRAM prg
VAR_EXTERNAL
  level : INT;
  start : BOOL;
  pump : BOOL;
  total : INT;
  setpoint : INT;
END_VAR
  total := total + level;
  pump := start AND level > setpoint;
END_PROGRAM

CONFIGURATION conf
  VAR_GLOBAL
    level AT %IW0 : INT;
    start AT %IX0.0 : BOOL;
    pump AT %QX0.0 : BOOL;
    total AT %QW0 : INT;
    setpoint AT %MW3 : INT := 10;
  END_VAR
  RESOURCE res ON PLC
    TASK main(INTERVAL := T#20ms, PRIORITY := 0);
    PROGRAM inst WITH main : prg;
  END_RESOURCE
END_CONFIGURATION
"""
# the oracle, --set level=7@2 --set start=TRUE@3 --set level=12@3: level, start, pump, total
MATIEC = [(0, False, False, 0), (7, False, False, 7), (12, True, True, 19), (12, True, True, 31)]


def test_located_globals_run_as_matiec_runs_them():
    plc = load("pump.st", text=PUMP).plc()
    for scan, row in enumerate(MATIEC, start=1):
        if scan == 2:
            plc.set("level", 7)
        if scan == 3:
            plc.set("start", True)
            plc.set("level", 12)
        plc.scan()
        assert tuple(plc.get(n) for n in ("level", "start", "pump", "total")) == row


@pytest.fixture
def client():
    plc = load("pump.st", text=PUMP).plc()
    server = ModbusServer(plc, port=0).start()
    c = ModbusTcpClient("127.0.0.1", port=server.port, timeout=5)
    assert c.connect()
    yield plc, c
    c.close()
    server.stop()


def test_a_client_writes_and_reads_located_globals_as_a_programs_ports(client):
    """%I globals are written through the input window and read where OpenPLC has
    them, %Q globals read, a %M global read and written in place; each write
    is in the next scan, as matiec's rows have it (scans made by hand)."""
    plc, c = client
    plc.scan()
    assert c.read_holding_registers(0, count=1).registers == [0]               # total
    assert c.read_holding_registers(1027, count=1).registers == [10]           # setpoint %MW3
    assert not c.write_register(IW_WINDOW, 7).isError()                        # level %IW0
    plc.scan()
    assert c.read_input_registers(0, count=1).registers == [7]
    assert c.read_holding_registers(0, count=1).registers == [7]
    assert not c.write_coil(IX_WINDOW, True).isError()                         # start %IX0.0
    assert not c.write_register(IW_WINDOW, 12).isError()
    plc.scan()
    assert c.read_discrete_inputs(0, count=1).bits[0] is True
    assert c.read_coils(0, count=1).bits[0] is True                            # pump %QX0.0
    assert c.read_holding_registers(0, count=1).registers == [19]
    assert not c.write_register(1027, 20).isError()                            # setpoint, in place
    plc.scan()
    assert (plc.get("setpoint"), plc.get("pump"), plc.get("total")) == (20, False, 31)
    assert c.read_coils(0, count=1).bits[0] is False
    # an output is the program's: a client's write is refused and changes nothing
    assert c.write_register(0, 5).isError()
    assert c.write_coil(0, True).isError()
    plc.scan()
    assert plc.get("total") == 43


def test_serve_map_lists_the_located_globals(capsys, tmp_path):
    st = tmp_path / "pump.st"
    st.write_text(PUMP)
    assert cli.main(["serve", str(st), "--map"]) == 0
    out = capsys.readouterr().out
    for address, where, name in (("%IW0", "input register 0", "level"),
                                 ("%QX0.0", "coil 0", "pump"),
                                 ("%MW3", "holding register 1027", "setpoint")):
        assert any(address in line and where in line and name in line for line in out.splitlines())
    assert "read; write holding register 8192" in out


@pytest.mark.parametrize("declaration, message", [
    ("g AT %QW0 : BOOL;", "g: %QW0 holds 16 bits but BOOL needs %QX"),
    ("AT %QX0.1 : BOOL;", "a located global needs a name"),
])
def test_a_located_global_that_cannot_hold_its_type_is_refused_at_its_line(declaration, message):
    text = f"""PROGRAM prg VAR x : INT; END_VAR x := 1; END_PROGRAM
CONFIGURATION conf
  VAR_GLOBAL
    {declaration}
  END_VAR
  RESOURCE res ON PLC
    TASK main(INTERVAL := T#20ms, PRIORITY := 0);
    PROGRAM inst WITH main : prg;
  END_RESOURCE
END_CONFIGURATION
"""
    project = load("g.st", text=text)
    with pytest.raises(fbd.FbdError, match=message) as err:
        project.plc()
    assert err.value.line == 4


def test_a_plcopen_project_carries_its_located_globals_and_serves_the_same_map(capsys, tmp_path):
    st, xml = tmp_path / "pump.st", tmp_path / "pump.xml"
    st.write_text(PUMP)
    assert cli.main(["export", str(st), "-o", str(xml)]) == 0
    maps = []
    for path in (st, xml):
        capsys.readouterr()
        assert cli.main(["serve", str(path), "--map"]) == 0
        maps.append(capsys.readouterr().out)
    assert maps[0] == maps[1] and "%MW3" in maps[1]
    plc = fbd.load(xml).plc()
    plc.set("level", 7)
    plc.scan()
    assert plc.get("total") == 7
