"""The pinned public API, exactly as the README and other programs use it."""

import time

import pytest
import simpy.rt

import blocks
from fbd import BOOL, INT, Network, Plc
from fbd.testing import Harness
from tests.fbd.toys import TICKS


def test_the_pinned_example_runs_as_documented():
    net = Network("Latch")
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    ff = net.add("ff", blocks.SR(), S1=s, R=r)
    net.output("Q", ff.Q1)
    acc = net.add("acc", blocks.ADD(), IN2=1)
    net.connect(acc.OUT, acc.IN1, feedback=True)

    h = Harness(net, cycle=0.005)
    h.set(S=True)
    h.scan()
    h.scan(10)
    assert h.get("Q") is True and h.get("ff.Q1") is True
    assert h.get("acc.OUT") == 11          # an INT accumulator counting scans
    h.force("ff.Q1", False)
    h.scan()
    assert h.get("Q") is False
    h.unforce("ff.Q1")
    h.set(S=False, R=True).scan()
    assert h.get("Q") is False
    assert (h.scans, round(h.time, 3)) == (13, 0.065)


def test_a_literal_decides_a_generic_blocks_type_and_integers_wrap():
    net = Network("Acc")
    acc = net.add("acc", blocks.ADD(), IN2=1)
    net.connect(acc.OUT, acc.IN1, feedback=True)
    h = Harness(net)
    h.write("acc.OUT", 32766)
    h.scan(2)
    assert h.get("acc.OUT") == -32768     # INT 32767 + 1


def test_harness_block_wraps_one_block_under_its_port_names():
    h = Harness.block(blocks.ADD(INT, n=3))
    h.set(IN1=1, IN2=2, IN3=3).scan()
    h.expect(OUT=6)


def test_expect_lists_every_mismatch():
    h = Harness.block(blocks.AND(BOOL))
    h.set(IN1=True, IN2=True).scan()
    try:
        h.expect(OUT=False, IN1=False)
    except AssertionError as e:
        assert str(e) == ("after scan 1 (t=0.005s): OUT is True, expected False; "
                          "IN1 is True, expected False")
    else:
        raise AssertionError("expect did not fail")


class WallClock:
    """simpy's real-time clock, moved only by its own sleeps: the pacing without the
    machine's speed in it."""

    def __init__(self):
        self.now = 1000.0
        self.slept = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_real_time_paces_each_scan_at_its_due_time_scaled_by_speed(monkeypatch):
    clock = WallClock()
    monkeypatch.setattr(simpy.rt, "monotonic", clock.monotonic)
    monkeypatch.setattr(simpy.rt, "sleep", clock.sleep)
    net = Network("N")
    net.output("N", net.add("t", TICKS()).N)
    plc = Plc(net, cycle=0.005, realtime=True, speed=4.0)
    seen = []
    plc.main.before_scan.append(lambda *_: seen.append(round(clock.now - 1000.0, 6)))
    plc.scan(40)                       # 200 ms of PLC time at 4x: 50 ms of wall time
    assert plc.get("N") == 40
    assert seen == [round(k * 0.00125, 6) for k in range(40)]   # scan k at k x 5 ms / 4
    assert sum(clock.slept) == pytest.approx(0.050)


def test_real_time_waits_for_the_wall_clock():
    net = Network("N")
    net.output("N", net.add("t", TICKS()).N)
    start = time.monotonic()           # before the PLC: its real-time clock starts with it
    plc = Plc(net, cycle=0.005, realtime=True, speed=4.0)
    plc.scan(40)                       # 50 ms of wall time at the least, however fast the machine
    assert time.monotonic() - start >= 0.0499 and plc.get("N") == 40
