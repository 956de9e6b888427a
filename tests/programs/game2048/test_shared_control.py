"""A SCADA client over Modbus TCP and the facade drive one game in turn: no command is lost.

The client writes a command and, before any scan, the facade sends its own (as a
player pressing a key while a SCADA's command is on its way). The facade reads
the PLC's CMD_SEQ and TAKEN, so it waits for the client's command instead of
overwriting it; the trace of every scan shows each command taken once, in
order, and the board following each move. Loopback only, a free port, the PLC
scanned by the test (nothing timed).
"""

import itertools

import pytest
from pymodbus.client import ModbusTcpClient

from fbd.modbus import ModbusServer
from programs.common.facade import next_seq
from programs.game2048 import DIRECTIONS, Game2048
from programs.game2048.control import COMMANDS
from tests.programs.game2048.reference import move

CELLS = [f"CELL_{r}_{c}" for r in range(4) for c in range(4)]
ROUNDS = 8


@pytest.fixture
def shared():
    """A game served over Modbus TCP, a connected client, and a trace of every scan."""
    game = Game2048(seed=11)
    trace = game.plc.trace(["TAKEN", "CMD", "BUSY", "SCORE", *CELLS])
    with ModbusServer(game.plc, port=0) as server:
        client = ModbusTcpClient("127.0.0.1", port=server.port, timeout=5)
        assert client.connect()
        try:
            yield game, client, trace
        finally:
            client.close()


def client_command(client, name: str) -> int:
    """What a SCADA does: read CMD_SEQ, write CMD and the next number in one request."""
    seq = client.read_holding_registers(1025, count=1).registers[0]
    seq = next_seq(seq - 65536 if seq > 32767 else seq)
    assert not client.write_registers(1024, [COMMANDS[name], seq]).isError()
    return seq


def takes(trace) -> list[tuple[int, int, int]]:
    """(row, TAKEN, CMD) of every scan in which TAKEN changed."""
    taken, cmd = trace["TAKEN"], trace["CMD"]
    return [(i, int(taken[i]), int(cmd[i])) for i in range(len(taken))
            if int(taken[i]) != (int(taken[i - 1]) if i else 0)]


def board(trace, row: int) -> tuple:
    return tuple(tuple(int(trace[CELLS[4 * r + c]][row]) for c in range(4)) for r in range(4))


def check_the_board_follows(trace, sent: list[str]) -> None:
    """Each move applied by the reference to the board it was taken on gives the board it
    left, plus one new tile when it moved; the score grows by its merges."""
    rows = [row for row, _, _ in takes(trace)] + [len(trace)]
    for k, name in enumerate(sent):
        if name not in DIRECTIONS:
            continue
        start, end = rows[k], rows[k + 1] - 1
        before, after = board(trace, start - 1), board(trace, end)
        expected, moved, gain = move(before, name)
        assert int(trace["SCORE"][end]) - int(trace["SCORE"][start - 1]) == gain
        if not moved:
            assert after == before, (k, name)
            continue
        new = [(r, c) for r in range(4) for c in range(4) if after[r][c] != expected[r][c]]
        assert len(new) == 1, (k, name, before, after)
        r, c = new[0]
        assert expected[r][c] == 0 and after[r][c] in (2, 4)


def test_the_facade_waits_for_a_client_command_written_just_before_its_own(shared):
    game, client, trace = shared
    game.start()
    sent = ["start"]
    directions = itertools.cycle(["left", "up", "right", "down", "up", "left"])
    for _ in range(ROUNDS):
        theirs, ours = next(directions), next(directions)
        client_command(client, theirs)
        game.press(ours)                    # at once: the client's command is not taken yet
        sent += [theirs, ours]
    got = takes(trace)
    assert [seq for _, seq, _ in got] == list(range(1, len(sent) + 1))   # each taken once
    assert [cmd for _, _, cmd in got] == [COMMANDS[name] for name in sent]   # in order
    check_the_board_follows(trace, sent)


def test_real_time_commands_give_way_to_a_pending_client_command(shared):
    game, client, trace = shared
    plc = game.plc
    assert game.command("start")
    game.wait()
    sent = ["start"]
    for theirs, ours in [("left", "right"), ("down", "up"), ("reset", "start")]:
        client_command(client, theirs)
        assert not game.command(ours)        # a key pressed now is ignored, not overwriting
        game.wait()                          # the loop scans; the client's command runs
        assert game.command(ours)            # the next press goes through
        game.wait()
        client.read_holding_registers(0, count=1)   # the client sees the end of it
        sent += [theirs, ours]
    assert plc.get("TAKEN") == len(sent)
    assert [cmd for _, _, cmd in takes(trace)] == [COMMANDS[name] for name in sent]
    check_the_board_follows(trace, sent)


def test_a_client_following_the_protocol_never_reuses_the_facades_number(shared):
    game, client, trace = shared
    game.start()
    sent = ["start"]
    for name in ["up", "left", "down", "right"]:
        seq = client_command(client, name)   # after the facade's command was taken
        game.wait()
        assert client.read_holding_registers(0, count=1).registers[0] == seq   # TAKEN
        assert not client.read_coils(1, count=1).bits[0]                       # not BUSY
        game.press("left")
        sent += [name, "left"]
    assert [cmd for _, _, cmd in takes(trace)] == [COMMANDS[name] for name in sent]
    check_the_board_follows(trace, sent)
