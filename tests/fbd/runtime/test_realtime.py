"""The real-time runner on a fake wall clock: which scans are late, which cycles
are skipped, and what each policy does to simulated time. Plc.skip."""

import os
import threading

import pytest

import blocks
from fbd import BOOL, Network, Plc
from fbd.errors import FbdError
from fbd.runtime import realtime
from fbd.runtime.realtime import CATCH_UP, SKIP, RealtimeRunner, check_priority

MS = 1_000_000   # ns


def timer_program() -> Network:
    net = Network("Timer")
    ton = net.add("ton", blocks.TON(), IN=net.input("S", BOOL), PT="T#30ms")
    net.output("Q", ton.Q)
    net.output("ET", ton.ET)
    return net


class FakeWall:
    """A wall clock that moves only when the runner sleeps or a scan 'takes' time."""

    def __init__(self, plc: Plc, costs: dict[int, int]):
        self.now = 0
        self.starts: list[int] = []    # wall time of each scan's start
        self.sim: list[int] = []       # simulated time of each scan
        self.costs = costs             # scan number (from 1) -> ns it takes
        plc.main.before_scan.append(self.scan_starts)
        self.plc = plc

    def clock(self) -> int:
        return self.now

    def sleep(self, seconds: float) -> bool:
        self.now += round(seconds * 1e9)
        return False

    def scan_starts(self, task) -> None:
        self.starts.append(self.now)
        self.sim.append(self.plc.now_us)
        self.now += self.costs.get(len(self.starts), 0)


def run(policy: str, costs: dict[int, int], scans: int):
    plc = Plc(timer_program(), cycle="5ms")
    wall = FakeWall(plc, costs)
    runner = RealtimeRunner(plc, policy, clock=wall.clock, sleep=wall.sleep)
    assert runner.run(threading.Event(), scans=scans) == scans
    return plc, wall


def test_on_time_no_scan_is_late_and_none_is_skipped():
    plc, wall = run(SKIP, {}, 10)
    assert wall.starts == [5 * MS * k for k in range(10)]
    assert (plc.stats.late, plc.stats.skipped) == (0, 0)


@pytest.mark.parametrize("cost_ms, late, skipped", [
    (7, 0, 0),      # scan 4 starts 2 ms after it was due: within half a cycle, on time
    (8, 1, 0),      # 3 ms: late, but its cycle is not over
    (10, 1, 1),     # 5 ms: its whole cycle has passed, skipped; the next one runs
    (19, 1, 2),
])
def test_late_means_over_half_a_cycle_and_skipped_a_whole_cycle_passed(cost_ms, late, skipped):
    plc, wall = run(SKIP, {3: cost_ms * MS}, 6)
    assert (plc.stats.late, plc.stats.skipped) == (late, skipped)


def test_skip_counts_the_late_scan_and_the_cycles_it_skipped_and_keeps_wall_time():
    # scan 3 starts at 10 ms and takes 17 ms: the scans due at 15 and 20 ms are skipped,
    # the next runs at 27 ms wall time for the cycle due at 25 ms.
    plc, wall = run(SKIP, {3: 17 * MS}, 6)
    assert (plc.stats.late, plc.stats.skipped) == (1, 2)
    assert plc.stats.max_late_us == 12_000
    assert wall.sim == [0, 5000, 10000, 25000, 30000, 35000]
    assert wall.starts[3:] == [27 * MS, 30 * MS, 35 * MS]
    # every scan's simulated time is its wall time, to within a cycle
    assert all(abs(wall_ns / 1000 - sim) < 5000 for wall_ns, sim in zip(wall.starts, wall.sim))
    assert plc.now_us == (plc.scans + plc.stats.skipped) * 5000


def test_catch_up_runs_every_cycle_back_to_back_and_counts_the_late_ones():
    plc, wall = run(CATCH_UP, {3: 17 * MS}, 8)
    assert plc.stats.skipped == 0
    assert plc.stats.late == 2                # due at 15 (12 ms late) and 20 (7 ms); 25: 2 ms
    assert wall.sim == [5000 * k for k in range(8)]
    assert wall.starts[3:] == [27 * MS, 27 * MS, 27 * MS, 30 * MS, 35 * MS]
    assert plc.now_us == plc.scans * 5000


def test_timers_keep_wall_clock_time_across_skipped_cycles():
    plc = Plc(timer_program(), cycle="5ms")
    plc.set("S", True)
    wall = FakeWall(plc, {2: 23 * MS})        # a 23 ms stall in the second scan
    runner = RealtimeRunner(plc, SKIP, clock=wall.clock, sleep=wall.sleep)
    runner.run(threading.Event(), scans=4)
    # IN rises at wall time 0; the stall skips the cycles due at 10, 15 and 20 ms, and
    # the fourth scan is the one due at 30 ms: 30 ms of wall time, the 30 ms TON is done
    assert plc.stats.skipped == 3 and wall.sim[-1] == 30_000
    assert plc.get("Q") is True and plc.get_raw("ET") == 30_000_000


def test_an_unknown_policy_is_refused():
    with pytest.raises(FbdError, match="choose skip or catch-up"):
        RealtimeRunner(Plc(timer_program()), "slip")


def test_a_stop_ends_the_run_between_scans():
    plc = Plc(timer_program(), cycle="1ms")
    stop = threading.Event()
    plc.main.before_scan.append(lambda task: stop.set() if task.scans == 4 else None)
    assert RealtimeRunner(plc).run(stop) == 5


# ------------------------------------------------------------------------ Plc.skip
def test_skip_advances_the_clock_without_a_scan():
    plc = Plc(timer_program(), cycle="5ms")
    plc.set("S", True)
    plc.skip(2)
    assert (plc.now_us, plc.scans, plc.stats.skipped) == (10_000, 0, 2)
    plc.scan()                                 # the scan due at 10 ms
    plc.scan(2)
    assert plc.get_raw("ET") == 10_000_000 and plc.scans == 3
    plc.skip(1)
    plc.scan()                                 # due at 30 ms: ET 20 ms since IN rose at 10
    assert plc.get_raw("ET") == 20_000_000 and plc.now_us == 35_000


def test_skip_lets_other_tasks_run_as_they_fall_due():
    plc = Plc(timer_program(), cycle="5ms")
    fast = plc.add_task("fast", timer_program(), "T#1ms", priority=1)
    plc.scan()
    before = fast.scans
    plc.skip(2)
    assert fast.scans - before == 10 and plc.scans == 1


def test_skip_refuses_a_negative_count_and_a_stepped_scan():
    plc = Plc(timer_program())
    with pytest.raises(FbdError, match="cannot skip -1 cycles"):
        plc.skip(-1)
    plc.skip(0)
    assert plc.now_us == 0
    plc.step_into()
    with pytest.raises(FbdError, match="being stepped into"):
        plc.skip(1)


def _may_use_realtime_priorities() -> bool:
    try:
        check_priority(1)
    except FbdError:
        return False
    return True


@pytest.mark.skipif(not _may_use_realtime_priorities(),
                    reason="needs Linux and root or CAP_SYS_NICE")
def test_with_a_priority_the_scans_run_at_sched_fifo_and_the_thread_is_ordinary_after():
    plc, seen = Plc(timer_program(), cycle="5ms"), []
    plc.main.before_scan.append(lambda _task: seen.append(
        (os.sched_getscheduler(0) & ~os.SCHED_RESET_ON_FORK, os.sched_getparam(0).sched_priority)))
    wall = FakeWall(plc, {})
    runner = RealtimeRunner(plc, SKIP, clock=wall.clock, sleep=wall.sleep, priority=7)
    before = os.sched_getscheduler(0), os.sched_getparam(0)
    assert runner.run(threading.Event(), scans=3) == 3
    assert seen == [(os.SCHED_FIFO, 7)] * 3
    assert (os.sched_getscheduler(0), os.sched_getparam(0)) == before


def test_a_priority_the_system_refuses_is_one_fbd_error_saying_what_permits_it(monkeypatch):
    def refuse(*_args):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(realtime.os, "sched_setscheduler", refuse, raising=False)
    monkeypatch.setattr(realtime.os, "sched_getscheduler", lambda _pid: 0, raising=False)
    monkeypatch.setattr(realtime.os, "sched_getparam", lambda _pid: None, raising=False)
    with pytest.raises(FbdError, match=r"^real-time priority 5: not permitted \(run as root, "
                                       r"or give Python CAP_SYS_NICE"):
        check_priority(5)
    with pytest.raises(FbdError, match="1 \\(lowest\\) to 99"):
        check_priority(0)
