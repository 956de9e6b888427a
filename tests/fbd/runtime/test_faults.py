"""RUN, STOP and FAULT: a scan that raises stops the program, never the caller's
process; the fault says what and where; a restart runs the program again."""

import threading

import pytest

import blocks
from fbd import BOOL, INT, Network, Plc, PlcFault, PlcState
from fbd.block import Block, Port, register
from fbd.errors import FbdError
from fbd.runtime.faults import Fault
from fbd.runtime.realtime import RealtimeRunner
from fbd.st.project import load
from fbd.testing import Harness

# out := a[idx], counting the scans it completed; idx 10 is out of bounds
INDEX = """\
PROGRAM prg
VAR
  idx AT %IW0 : INT;
  out AT %QW0 : INT;
  done AT %QW1 : INT;
  a : ARRAY[0..9] OF INT := [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
END_VAR
  done := done + 1;
  out := a[idx];
END_PROGRAM
"""

LOOP = """\
PROGRAM prg
VAR
  go AT %IX0.0 : BOOL;
  n AT %QW0 : INT;
END_VAR
  n := n + 1;
  WHILE go DO
    n := n + 1;
  END_WHILE;
END_PROGRAM
"""


def index_plc(**options) -> Plc:
    return Plc(load("idx.st", text=INDEX).network("prg"), cycle="5ms", **options)


def _refuse(go: bool) -> bool:
    if go:
        raise FbdError("the valve is not where the block expects it")
    return go


def _divide(go: bool) -> bool:
    return 1 // (0 if go else 1) == 1


@register
class FAULT_TEST_REFUSE(Block):
    """Raises an FbdError when GO is TRUE: a block's own error."""
    family = "test"
    inputs = [Port("GO", BOOL)]
    outputs = [Port("Q", BOOL)]
    helpers = {"_refuse": _refuse}

    def code(self, io):
        return f"{io.Q} = _refuse({io.GO})"


@register
class FAULT_TEST_DIVIDE(Block):
    """Divides by zero in Python when GO is TRUE: a block's bug."""
    family = "test"
    inputs = [Port("GO", BOOL)]
    outputs = [Port("Q", BOOL)]
    helpers = {"_divide": _divide}

    def code(self, io):
        return f"{io.Q} = _divide({io.GO})"


def inner(block) -> Network:
    net = Network("Inner")
    net.output("Q", net.add("bad", block, GO=net.input("GO", BOOL)).Q)
    return net


def counter_with(block) -> Network:
    """COUNT counts the scans completed; the block, in macro ``m``, raises when GO."""
    net = Network("Counted")
    inc = net.add("inc", blocks.ADD(INT), IN2=1)
    net.connect(inc.OUT, inc.IN1, feedback=True)
    net.output("COUNT", inc.OUT)
    net.output("Q", net.add("m", inner(block), GO=net.input("GO", BOOL)).Q)
    return net


# ------------------------------------------------------------------------- the fault
def test_an_index_out_of_bounds_puts_the_plc_in_fault_saying_where_and_why():
    plc = index_plc()
    plc.set("idx", 3)
    plc.scan(2)
    plc.set("idx", 10)
    with pytest.raises(PlcFault, match=r"^idx\.st:9: in PROGRAM prg: array index 10 is outside "
                                       r"0\.\.9 \(scan 3 of task main: the PLC is in FAULT; "
                                       r"restart\(\) runs it again\)$") as raised:
        plc.scan(5)
    assert isinstance(raised.value.__cause__, FbdError)
    assert plc.state is PlcState.FAULT and raised.value.fault is plc.fault
    assert plc.fault == Fault("index", "idx.st:9: in PROGRAM prg: array index 10 is outside 0..9",
                              scan=3, task="main", time_us=10_000, block="prg",
                              pou="PROGRAM prg", file="idx.st", line=9)
    assert plc.fault.code == 1 and plc.fault.place == "idx.st:9, PROGRAM prg"
    # the run ended at the failed scan's time; the outputs hold the last scan's values
    assert (plc.scans, plc.now_us, plc.get("out"), plc.get("done")) == (2, 10_000, 13, 2)


def test_the_watchdog_is_a_fault_naming_the_loops_line():
    plc = Plc(load("loop.st", text=LOOP).network("prg"))
    plc.scan()
    plc.set("go", True)
    with pytest.raises(PlcFault, match=r"^loop\.st:7: in PROGRAM prg: watchdog"):
        plc.scan()
    assert (plc.fault.kind, plc.fault.code, plc.fault.line, plc.fault.scan) == ("watchdog", 2, 7, 2)


@pytest.mark.parametrize("block, kind, message", [
    (FAULT_TEST_REFUSE(), "error", "the valve is not where the block expects it"),
    (FAULT_TEST_DIVIDE(), "exception", "ZeroDivisionError: integer division or modulo by zero "
                                       "(at "),
])
def test_a_block_that_raises_is_a_fault_naming_the_block(block, kind, message):
    plc = Plc(counter_with(block))
    plc.scan(3)
    plc.set("GO", True)
    with pytest.raises(PlcFault) as raised:
        plc.scan(3)
    fault = plc.fault
    assert (fault.kind, fault.block, fault.scan, fault.file, fault.line) == (kind, "m.bad", 4,
                                                                           None, None)
    assert fault.message.startswith(message) and fault.place == "m.bad"
    assert str(raised.value).endswith("(scan 4 of task main, block m.bad: the PLC is in FAULT; "
                                      "restart() runs it again)")
    assert fault.describe().startswith("scan 4 of task main in block m.bad: ")
    assert plc.get("COUNT") == 3


def test_in_fault_nothing_runs_and_every_call_says_to_restart():
    plc = index_plc()
    plc.set("idx", 10)
    with pytest.raises(PlcFault):
        plc.scan()
    says = r"the PLC is in FAULT since scan 1 of task main: idx\.st:9: .*; restart it"
    for call in (plc.scan, lambda: plc.run_for("T#1s"), lambda: plc.skip(2), plc.step_into,
                 plc.start, lambda: plc.run_until(lambda p: False)):
        with pytest.raises(PlcFault, match=says):
            call()
    plc.stop()                                  # the fault stays
    assert plc.state is PlcState.FAULT and (plc.scans, plc.now_us) == (0, 0)


def test_a_restart_runs_the_failed_scan_again_with_every_variable_from_its_initial_value():
    for cold in (True, False):                  # the same until RETAIN exists
        plc = index_plc()
        plc.set("idx", 4)
        plc.scan(3)
        plc.set("idx", 10)
        with pytest.raises(PlcFault):
            plc.scan()
        plc.set("idx", 9)
        plc.restart(cold=cold)
        assert plc.state is PlcState.RUN and plc.fault is None
        plc.scan(2)
        assert (plc.scans, plc.now_us, plc.get("done"), plc.get("out")) == (5, 25_000, 2, 19)


def test_a_warm_restart_keeps_the_retained_slots_and_a_cold_one_does_not():
    plc = index_plc()
    plc.set("idx", 1)
    plc.scan(4)
    done = plc.program.signal("prg.done").slot
    plc.main.retained = (done,)                 # what RETAIN will mark
    plc.restart(cold=False)
    assert plc.get("prg.done") == 4
    plc.restart(cold=True)
    assert plc.get("prg.done") == 0


def test_a_fault_ends_a_long_run_at_the_failed_scan_not_at_the_runs_end():
    plc = Plc(counter_with(FAULT_TEST_REFUSE()), cycle="1ms")
    plc.main.before_scan.append(lambda task: plc.set("GO", task.scans == 499))
    with pytest.raises(PlcFault):
        plc.scan(10_000)
    assert (plc.scans, plc.now_us, plc.fault.scan, plc.fault.time_us) == (499, 499_000, 500, 499_000)
    plc.main.before_scan.clear()
    plc.set("GO", False)
    plc.restart()
    plc.scan(10)
    assert (plc.scans, plc.now_us, plc.get("COUNT")) == (509, 509_000, 10)


def test_a_fault_in_one_task_stops_every_task():
    plc = Plc(counter_with(FAULT_TEST_REFUSE()), cycle="5ms")
    fast = plc.add_task("fast", counter_with(FAULT_TEST_REFUSE()), "T#1ms")
    plc.scan(2)
    plc.set("fast:GO", True)
    with pytest.raises(PlcFault, match="scan 11 of task fast"):
        plc.scan(2)
    # at 10 ms the main task ran first (its priority), then fast's eleventh scan raised
    assert (plc.fault.task, fast.scans, plc.scans, plc.now_us) == ("fast", 10, 3, 10_000)
    with pytest.raises(PlcFault):
        plc.scan()
    assert (fast.scans, plc.scans) == (10, 3)


def test_on_fault_zero_takes_the_outputs_to_zero_and_hold_keeps_them():
    for on_fault, out in (("hold", 15), ("zero", 0)):
        plc = index_plc(on_fault=on_fault)
        plc.set("idx", 5)
        plc.scan()
        plc.force("done", 7)
        plc.set("idx", 10)
        with pytest.raises(PlcFault):
            plc.scan()
        assert (plc.get("out"), plc.get("done")) == (out, 7)   # a forced output stays forced
    with pytest.raises(FbdError, match="on_fault 'off': choose hold or zero"):
        index_plc(on_fault="off")


def test_a_block_stepped_into_that_raises_is_a_fault():
    plc = Plc(counter_with(FAULT_TEST_REFUSE()))
    plc.set("GO", True)
    stepped = plc.step_into()
    stepped.step()                              # inc
    with pytest.raises(PlcFault, match="the valve") as raised:
        stepped.finish()
    assert raised.value.fault.block == "m.bad" and not stepped.active
    plc.set("GO", False)
    plc.restart()
    plc.scan()
    assert (plc.scans, plc.get("COUNT")) == (1, 1)


# ----------------------------------------------------------------------- STOP, requests
def test_stop_holds_everything_until_start_goes_on_where_it_stopped():
    plc = index_plc()
    plc.scan(2)
    plc.stop()
    with pytest.raises(FbdError, match="cannot run a scan: the PLC is in STOP; start"):
        plc.scan()
    plc.start()
    plc.scan()
    assert (plc.state, plc.scans, plc.get("done")) == (PlcState.RUN, 3, 3)


def test_listeners_hear_each_change_once_after_it():
    plc = index_plc()
    heard = []
    plc.state_listeners.append(lambda p, change: heard.append((change, p.state.value)))
    plc.stop()
    plc.stop()
    plc.start()
    plc.set("idx", 10)
    with pytest.raises(PlcFault):
        plc.scan(3)
    plc.restart(cold=False)
    plc.restart()
    assert heard == [("stop", "STOP"), ("start", "RUN"), ("fault", "FAULT"),
                     ("warm restart", "RUN"), ("cold restart", "RUN")]


def test_requests_from_another_thread_are_carried_out_between_scans_in_order():
    plc = index_plc()
    plc.set("idx", 10)
    with pytest.raises(PlcFault):
        plc.scan()
    plc.set("idx", 0)
    asker = threading.Thread(target=lambda: [plc.request(a) for a in
                                             ("start", "cold restart", "stop", "start")])
    asker.start()
    asker.join()
    assert plc.state is PlcState.FAULT          # nothing happens until the PLC's thread looks
    plc.scan()                                  # a start cannot clear a fault; the restart does
    assert (plc.state, plc.scans, plc.get("out")) == (PlcState.RUN, 1, 10)
    with pytest.raises(FbdError, match="request 'reboot': choose one of start, stop, warm "
                                       "restart, cold restart"):
        plc.request("reboot")


def test_the_harness_raises_the_fault_and_restarts():
    h = Harness(load("idx.st", text=INDEX).network("prg"))
    h.set(idx=10)
    with pytest.raises(FbdError, match="array index 10 is outside 0..9"):
        h.scan()
    h.set(idx=2).restart().scan(2)
    h.expect(out=12, done=2)


# ----------------------------------------------------------------- real time goes on
class Wall:
    """A wall clock that moves only when the runner sleeps."""

    def __init__(self):
        self.now = 0

    def clock(self) -> int:
        return self.now

    def sleep(self, seconds: float) -> bool:
        self.now += round(seconds * 1e9)
        return False


def test_the_real_time_runner_waits_out_a_fault_and_runs_again_after_a_restart():
    plc = index_plc()
    wall = Wall()
    stop = threading.Event()
    plc.main.before_scan.append(lambda task: plc.set("idx", 10 if task.scans == 2 else 1))
    waited = []

    def sleep(seconds):
        wall.sleep(seconds)
        if plc.state is PlcState.FAULT:
            waited.append(seconds)
            if len(waited) == 3:
                plc.main.before_scan.clear()
                plc.set("idx", 1)
                plc.request("warm restart")
        return False
    runner = RealtimeRunner(plc, clock=wall.clock, sleep=sleep)
    assert runner.run(stop, scans=7) == 7       # scans 1, 2, then 3 to 7 after the restart
    assert waited == [0.005] * 3 and plc.fault is None and plc.get("out") == 11
    assert plc.stats.late == 0 and plc.stats.skipped == 0     # the wait owes nothing
