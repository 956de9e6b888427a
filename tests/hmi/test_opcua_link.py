"""Simulation > Serve over OPC UA: the game on screen, browsed and driven by an OPC UA
client; the server starts without holding up the window and follows a new game."""

import asyncio
import importlib.util

import pytest

from tests.hmi.rig import Rig

needs_asyncua = pytest.mark.skipif(importlib.util.find_spec("asyncua") is None,
                                   reason="the opcua extra is not installed")


def test_without_the_extra_the_item_is_disabled_and_says_how_to_install_it(qtbot, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    rig = Rig(qtbot, tmp_path / "best.json")
    action = rig.window.opcua.action
    assert not action.isEnabled() and "pip install 'fbd-sim[opcua]'" in action.toolTip()


async def read_cells(url):
    from asyncua import Client, ua
    async with Client(url, timeout=60) as client:
        return [[await client.get_node(ua.NodeId(
            f"config.resource1.Game2048.CELL_{r}_{c}", 2)).read_value() for c in range(4)]
            for r in range(4)]


@needs_asyncua
@pytest.mark.slow
def test_the_window_serves_the_game_over_opc_ua_and_follows_a_new_game(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    window = rig.window
    window.opcua.port = 0                        # any free port
    window.opcua.action.setChecked(True)
    server = window.opcua.server
    assert server is not None and window.opcua.action.isChecked()
    qtbot.waitUntil(lambda: server.ready, timeout=120_000)
    rig.advance(20)
    assert f"OPC UA {server.endpoint}" in window.loop_label.text()
    server.publish_now()
    assert asyncio.run(read_cells(server.endpoint)) == rig.game.board
    rig.panel.new_game()                         # a new PLC: the server follows it
    rig.advance(20)
    rig.settle()
    assert window.opcua.server is server and server.plc is rig.panel.plc
    server.publish_now()
    assert asyncio.run(read_cells(server.endpoint)) == rig.game.board
    window.open_program("sudoku")                # another program stops serving
    assert window.opcua.server is None and not window.opcua.action.isChecked()
    assert "OPC UA" not in window.loop_label.text()
