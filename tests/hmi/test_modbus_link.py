"""Simulation > Serve over Modbus TCP: the game on screen, read and driven by a client."""

from pymodbus.client import ModbusTcpClient

from fbd.modbus import DEFAULT_PORT
from hmi.app import MODBUS_PORT
from tests.hmi.rig import Rig


def cells(client) -> list[list[int]]:
    words = client.read_holding_registers(2048, count=32).registers
    values = [(words[2 * k] << 16 | words[2 * k + 1]) for k in range(16)]
    return [values[4 * r:4 * r + 4] for r in range(4)]


def test_the_window_serves_the_game_it_shows_and_follows_a_new_game(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    window = rig.window
    window.modbus_port = 0                      # any free port
    window.modbus_action.setChecked(True)
    assert window.modbus is not None and "Modbus TCP 127.0.0.1:" in window.loop_label.text()
    client = ModbusTcpClient("127.0.0.1", port=window.modbus.port)
    assert client.connect()
    try:
        rig.advance(20)
        assert cells(client) == rig.game.board   # what the panel shows
        taken = client.read_holding_registers(0, count=1).registers[0]
        client.write_registers(1024, [4, taken + 1])   # left, as a new command
        rig.advance(20)
        rig.settle()
        assert client.read_holding_registers(0, count=1).registers[0] == taken + 1
        assert cells(client) == rig.game.board
        server = window.modbus
        rig.panel.new_game()                    # a new PLC: the server follows it ...
        rig.advance(20)
        rig.settle()
        assert window.modbus is server and server.plc is rig.panel.plc
        assert cells(client) == rig.game.board  # ... on the same connection
    finally:
        client.close()
    window.modbus_action.setChecked(False)
    assert window.modbus is None and "Modbus" not in window.loop_label.text()


def test_a_program_without_located_ports_is_not_served_and_says_why(qtbot, tmp_path):
    from hmi.app import MainWindow
    window = MainWindow("sudoku", autostart=False)
    qtbot.addWidget(window)
    window.modbus_action.setChecked(True)
    assert window.modbus is None and not window.modbus_action.isChecked()
    assert "has no located inputs or outputs" in window.message_field.message()


def test_opening_another_program_stops_serving(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    rig.window.modbus_port = 0
    rig.window.modbus_action.setChecked(True)
    assert rig.window.modbus is not None
    rig.window.open_program("sudoku")
    assert rig.window.modbus is None and not rig.window.modbus_action.isChecked()


def test_the_default_port_is_fbd_serves():
    assert MODBUS_PORT == DEFAULT_PORT
