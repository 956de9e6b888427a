"""The Control macro alone: selector, lock, move outcome, placement sequence."""

import pytest

from fbd.testing import Harness
from programs.game2048.control import COMMANDS, MOVES, control_macro

PULSES = ["Up", "Right", "Down", "Left"]


class Driver:
    """A harness around Control that issues commands the way the facade does."""

    def __init__(self):
        self.h = Harness(control_macro())
        self.seq = 0

    def issue(self, name: str):
        self.seq += 1
        self.h.set(Cmd=COMMANDS[name], Seq=self.seq)
        return self

    def scan(self, **inputs):
        self.h.set(inputs).scan()
        return {name: self.h.get(name) for name in (
            *PULSES, "Clear", "Dir", "Go", "Gain", "Placing", "Work", "FirstTile", "Busy",
            "Taken", "Moved", "LastGain")}


def test_a_command_is_issued_when_seq_changes_one_pulse_of_one_of_n():
    d = Driver()
    for name, pulse in zip(MOVES, PULSES):
        out = d.issue(name).scan()
        assert [p for p in PULSES if out[p]] == [pulse]
        assert out["Dir"] == COMMANDS[name] and out["Busy"] and out["Taken"] == d.seq
        out = d.scan(**{f"Done{pulse}": True})          # not worked: finished on the next scan
        assert out["Busy"] and not out["Go"]
        out = d.scan(**{f"Done{pulse}": False})
        assert not out["Busy"]
        assert not any(out[p] for p in PULSES)          # CMD held, Seq unchanged: nothing


def test_the_lock_holds_a_command_written_while_one_is_in_progress():
    d = Driver()
    out = d.issue("left").scan()
    assert out["Left"] and out["Busy"]
    out = d.issue("up").scan()                          # Left not Done yet: Up waits
    assert not out["Up"] and out["Taken"] == 1 and out["Dir"] == 4
    out = d.scan(DoneLeft=True, WorkedLeft=True, ScoreLeft=12)
    assert out["Go"] and out["Gain"] == 12 and out["Work"] and out["Busy"]
    assert out["Moved"] and out["LastGain"] == 12 and not out["Up"]
    out = d.scan(DoneLeft=False, WorkedLeft=False, ScoreLeft=0)
    assert not out["Go"] and out["Placing"] and out["Busy"]
    out = d.scan(Placed=True)                           # the tile is in: the lock opens ...
    assert not out["Busy"] and not out["Placing"] and not out["Up"]
    out = d.scan(Placed=False)                          # ... and Up, pending, is taken
    assert out["Up"] and out["Taken"] == 2 and out["Dir"] == 1 and out["Busy"]


def test_a_press_that_changes_nothing_finishes_on_the_next_scan():
    d = Driver()
    d.issue("right").scan()
    out = d.scan(DoneRight=True, WorkedRight=False, ScoreRight=0)
    assert not out["Go"] and out["Busy"] and not out["Placing"]
    assert out["Moved"] is False and out["LastGain"] == 0
    out = d.scan(DoneRight=False)
    assert not out["Busy"]
    out = d.issue("right").scan()                       # the next command: a scan apart
    assert out["Right"] and out["Taken"] == 2


def test_start_clears_then_places_two_tiles():
    d = Driver()
    out = d.issue("start").scan()
    assert out["Clear"] and out["FirstTile"] and not out["Work"] and out["Busy"]
    out = d.scan()                                      # waiting for the first tile
    assert out["FirstTile"] and not out["Clear"]
    out = d.scan(Placed=True)                           # first tile in: the second, normally
    assert out["Work"] and not out["FirstTile"] and out["Busy"]
    out = d.scan(Placed=False)
    assert out["Work"] and out["Busy"]
    out = d.scan(Placed=True)
    assert not out["Busy"] and not out["Placing"]


def test_reset_clears_and_finishes_at_once():
    d = Driver()
    out = d.issue("reset").scan()
    assert out["Clear"] and not out["Busy"] and not out["Placing"]


@pytest.mark.parametrize("cmd", [0, 7, -1])
def test_a_position_outside_1_to_6_is_acknowledged_and_does_nothing(cmd):
    d = Driver()
    d.seq += 1
    d.h.set(Cmd=cmd, Seq=d.seq)
    out = d.scan()
    assert not any(out[p] for p in PULSES) and not out["Clear"]
    assert not out["Busy"] and out["Taken"] == 1       # taken, so no sender waits for ever
    out = d.issue("left").scan()                        # and the next command is free to go
    assert out["Left"] and out["Taken"] == 2
