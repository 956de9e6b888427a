"""The Command macro alone: the CMD / CMD_SEQ / TAKEN handshake and its two locks."""

import pytest

from fbd import compile_network
from fbd.testing import Harness
from programs.common.command import command_macro

COMMANDS = {"go": 1, "stop": 2, "undo": 7}
PULSES = ["Go", "Stop", "Undo"]


def pulses(h):
    return [p for p in PULSES if h.get(p)]


def test_a_new_seq_is_taken_once_with_one_pulse_of_one_of_n():
    h = Harness(command_macro(COMMANDS))
    h.scan()
    assert pulses(h) == [] and not h.get("Issue") and h.get("Taken") == 0   # 0 = 0: nothing
    for seq, (name, pulse) in enumerate(zip(COMMANDS, PULSES), start=1):
        h.set(Cmd=COMMANDS[name], Seq=seq).scan()
        assert pulses(h) == [pulse] and h.get("Issue") and h.get("Taken") == seq
        h.scan(2)                                     # Seq unchanged: taken once only
        assert pulses(h) == [] and h.get("Taken") == seq


def test_the_same_command_twice_is_two_commands():
    h = Harness(command_macro(COMMANDS))
    h.set(Cmd=1, Seq=5).scan()
    h.scan()
    h.set(Seq=6).scan()
    assert pulses(h) == ["Go"] and h.get("Taken") == 6


def test_the_scan_lock_defers_a_command_written_on_the_next_scan():
    h = Harness(command_macro(COMMANDS, lock="scan"))
    h.set(Cmd=1, Seq=1).scan()
    h.set(Cmd=2, Seq=2).scan()                       # locked: pending, not lost
    assert pulses(h) == [] and not h.get("Issue") and h.get("Taken") == 1
    h.scan()
    assert pulses(h) == ["Stop"] and h.get("Taken") == 2


def test_the_hold_input_defers_commands_until_it_opens():
    h = Harness(command_macro(COMMANDS, lock="input"))
    h.set(Hold=True, Cmd=7, Seq=1).scan(5)
    assert pulses(h) == [] and h.get("Taken") == 0
    h.set(Hold=False).scan()
    assert pulses(h) == ["Undo"] and h.get("Taken") == 1
    h.set(Cmd=1, Seq=2).scan()                        # no lock of its own: the next scan
    assert pulses(h) == ["Go"] and h.get("Taken") == 2


@pytest.mark.parametrize("cmd", [0, 3, -1, 32767])
def test_an_unknown_selector_is_acknowledged_and_does_nothing(cmd):
    h = Harness(command_macro(COMMANDS))
    h.set(Cmd=cmd, Seq=9).scan()
    assert pulses(h) == [] and h.get("Issue") and h.get("Taken") == 9   # nobody left waiting
    h.scan(2)
    assert not h.get("Issue")


def test_block_count_is_four_plus_two_per_command():
    for lock in ("scan", "input"):
        info = compile_network(command_macro(COMMANDS, lock=lock)).info()
        assert info["blocks"] == 4 + 2 * len(COMMANDS)


@pytest.mark.parametrize("commands, lock, words", [
    ({}, "scan", "at least one"),
    ({"a": 1, "b": 1}, "scan", "distinct"),
    ({"a": 0}, "scan", "other than 0"),
    ({"a": 40000}, "scan", "INTs"),
    ({"a": True}, "scan", "INTs"),
    ({"a": 1}, "queue", "unknown lock"),
])
def test_bad_tables_are_refused(commands, lock, words):
    with pytest.raises(ValueError, match=words):
        command_macro(commands, lock=lock)
