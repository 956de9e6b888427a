"""A busy host must not make simulated time run slow in silence: with a thread
hogging the interpreter, the real-time runner's counters show every cycle it
could not scan on time. Asserts on the counters, never on wall-clock speed."""

import sys
import threading

import pytest

import blocks
from fbd import BOOL, Network, Plc
from fbd.runtime.realtime import CATCH_UP, SKIP, RealtimeRunner


def program() -> Network:
    net = Network("Busy")
    net.output("Q", net.add("inv", blocks.NOT(), IN=net.input("A", BOOL)).OUT)
    return net


class Hog:
    """A thread that keeps the interpreter busy (pure Python, never sleeping)."""

    def __enter__(self):
        self.stop = False
        self.loops = 0
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.previous = sys.getswitchinterval()
        sys.setswitchinterval(0.005)         # CPython's default: the runner waits ~5 ms
        self.thread.start()
        return self

    def _spin(self):
        while not self.stop:
            self.loops += 1

    def __exit__(self, *exc):
        self.stop = True
        self.thread.join()
        sys.setswitchinterval(self.previous)


@pytest.mark.parametrize("policy", [SKIP, CATCH_UP])
def test_a_cpu_hog_shows_in_the_counters_and_simulated_time_is_accounted_for(policy):
    plc = Plc(program(), cycle="1ms")        # shorter than the interpreter's switch interval
    runner = RealtimeRunner(plc, policy)
    with Hog() as hog:
        runner.run(threading.Event(), scans=150)
    st = plc.stats
    assert hog.loops > 0 and st.count == 150
    assert st.late > 0 and st.max_late_us > 500
    if policy == SKIP:
        # cycles lost to the hog are skipped, and the clock counts them: simulated time
        # is the scans plus the skipped cycles, so it keeps up with the wall clock
        assert st.skipped > 0
        assert plc.now_us == (st.count + st.skipped) * 1000
    else:
        assert st.skipped == 0 and plc.now_us == st.count * 1000
    summary = st.summary()
    assert summary["late"] == st.late and summary["skipped"] == st.skipped


def test_without_a_hog_the_counters_stay_consistent():
    plc = Plc(program(), cycle="2ms")
    RealtimeRunner(plc).run(threading.Event(), scans=50)
    st = plc.stats
    assert plc.now_us == (st.count + st.skipped) * 2000
    assert st.late or not st.skipped          # no cycle is skipped without a late scan
