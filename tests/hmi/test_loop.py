"""The real-time loop's model: wall time -> whole scans, catch-up cap, pause, speed."""

import doctest

import pytest

from hmi import loop as loop_module
from hmi.loop import RealTimeLoop

MS = 1_000_000  # ns


def test_docstring_examples():
    assert doctest.testmod(loop_module).failed == 0


def test_first_tick_only_sets_the_reference():
    loop = RealTimeLoop(5000)
    assert loop.due(123 * MS) == 0
    assert loop.due(128 * MS) == 1


def test_ticks_that_do_not_divide_the_cycle_do_not_drift():
    loop = RealTimeLoop(5000)
    loop.due(0)
    now, runs = 0, []
    for _ in range(600):           # 600 ticks of 16.667 ms = 10 s (a 60 Hz timer)
        now += 16_666_667
        runs.append(loop.due(now))
    assert set(runs) == {3, 4}
    assert sum(runs) == 2000       # 10 s of 5 ms scans, no scan lost or gained
    assert loop.owed_ns == now - 2000 * 5 * MS
    assert loop.dropped_ns == 0


def test_a_stall_catches_up_at_most_max_scans_and_drops_the_rest():
    loop = RealTimeLoop(5000, max_scans=20)
    loop.due(0)
    assert loop.due(10 * MS) == 2
    assert loop.due(2010 * MS) == 20              # 2 s owed = 400 scans: 20 run
    assert loop.dropped_ns == (400 - 20) * 5 * MS
    assert loop.due(2020 * MS) == 2               # then real time again, no burst
    assert loop.scans == 24


def test_max_scans_exactly_is_not_a_drop():
    loop = RealTimeLoop(5000, max_scans=20)
    loop.due(0)
    assert loop.due(100 * MS) == 20
    assert loop.dropped_ns == 0


def test_pause_owes_nothing_and_resume_does_not_burst():
    loop = RealTimeLoop(5000)
    loop.due(0)
    loop.pause()
    assert loop.due(1000 * MS) == 0
    loop.resume()
    assert loop.due(1001 * MS) == 0               # a fresh reference
    assert loop.due(1011 * MS) == 2
    assert loop.dropped_ns == 0


def test_speed_scales_simulated_time():
    loop = RealTimeLoop(5000, speed=2.0)
    loop.due(0)
    assert loop.due(10 * MS) == 4
    loop.speed = 0.25
    assert [loop.due(t * MS) for t in (20, 30, 40, 50)] == [0, 1, 0, 1]


def test_the_clock_going_backwards_owes_nothing():
    loop = RealTimeLoop(5000)
    loop.due(100 * MS)
    assert loop.due(50 * MS) == 0
    assert loop.due(105 * MS) == 1                # measured from the later reference


def test_default_clock_is_read_when_no_time_given():
    now = [0]
    loop = RealTimeLoop(5000, clock=lambda: now[0])
    loop.due()
    now[0] = 25 * MS
    assert loop.due() == 5
    assert "5000 us cycles" in repr(loop)


@pytest.mark.parametrize("kwargs", [{"cycle_us": 0}, {"cycle_us": 5000, "max_scans": 0},
                                    {"cycle_us": 5000, "speed": 0}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        RealTimeLoop(**kwargs)
