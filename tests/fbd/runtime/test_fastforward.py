"""Fast-forward: a PLC of one task runs the scans due before anything else happens
in one call of its program, and leaves exactly what the scans one by one
leave: the table, the clock, the scan count; a fault in one of them counts
the scans before it and raises as that scan would."""

import pytest

import fbd
from fbd.runtime.fastforward import batchable
from fbd.runtime.faults import PlcFault, PlcState
from fbd.st.project import load

COUNTER = """PROGRAM Main
VAR n : DINT; t1 : TON; a : ARRAY[1..5] OF DINT; k : DINT; go : BOOL; END_VAR
  n := n + 1;
  t1(IN := go, PT := T#70ms);
  IF t1.Q THEN go := FALSE; ELSE go := TRUE; END_IF;
  k := n MOD 7;
  IF k > 0 AND k < 6 THEN a[k] := n; END_IF;
END_PROGRAM
"""


class EveryScan:
    """A recorder that samples each scan (so the scans run one by one)."""

    def __init__(self):
        self.scans = []

    def record(self, s, scan, now_us):
        self.scans.append((scan, now_us))


def plcs(text=COUNTER, engine="python"):
    fast = fbd.Plc(load("ff.st", text=text).network("Main"), engine=engine)
    slow = fbd.Plc(load("ff.st", text=text).network("Main"), engine=engine)
    slow.main.traces.append(EveryScan())
    return fast, slow


def test_many_scans_in_one_call_leave_what_the_scans_one_by_one_leave():
    fast, slow = plcs()
    assert batchable(fast.main) and not batchable(slow.main)
    calls = []
    scan_many = fast.main.program.scan_many
    fast.main.program.scan_many = lambda *a: calls.append(a[3]) or scan_many(*a)
    for n in (1, 2, 37, 500):
        fast.scan(n)
        slow.scan(n)
        assert (fast.scans, fast.now_us) == (slow.scans, slow.now_us)
        assert list(fast.main.s) == list(slow.main.s)
    assert fast.stats.count == slow.stats.count == 540
    assert calls == [36, 499]          # the first scan of each run starts it


def test_writes_and_forces_before_a_run_are_latched_by_its_first_scan():
    fast, slow = plcs()
    for plc in (fast, slow):
        plc.scan(3)
        plc.force("Main.go", False)
        plc.write("Main.n", 100)
        plc.scan(50)
    assert fast.get("Main.n") == slow.get("Main.n") == 150
    assert fast.get("Main.t1.Q") is slow.get("Main.t1.Q") is False


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_fault_in_a_run_counts_the_scans_before_it_and_puts_the_plc_in_fault_as_that_scan_would(
        engine):
    if engine == "native":
        pytest.importorskip("llvmlite")
    text = COUNTER.replace("a[k] := n;", "a[k] := n; IF n = 40 THEN a[k + 5] := 0; END_IF;")
    fast, slow = plcs(text, engine)
    assert fast.engine == engine and batchable(fast.main)
    for plc in (fast, slow):
        with pytest.raises(PlcFault, match=r"ff\.st:7: in PROGRAM Main: array index 10 "):
            plc.scan(100)
        assert plc.scans == 39 and plc.state == PlcState.FAULT
        fault = plc.fault
        assert (fault.kind, fault.scan, fault.file, fault.line, fault.pou, fault.time_us) == (
            "index", 40, "ff.st", 7, "PROGRAM Main", 39 * 5000)
        with pytest.raises(PlcFault):
            plc.scan(1)             # nothing runs until a restart
    assert list(fast.main.s) == list(slow.main.s)
    for plc in (fast, slow):
        plc.restart()
        plc.scan(10)
        assert plc.state == PlcState.RUN and plc.get("Main.n") == 10


def test_a_configurations_only_task_loads_and_hands_back_its_globals_around_a_run():
    text = """CONFIGURATION c
  VAR_GLOBAL g : DINT; END_VAR
  RESOURCE r ON PLC
    TASK t(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM p WITH t : Main;
  END_RESOURCE
END_CONFIGURATION
PROGRAM Main
VAR_EXTERNAL g : DINT; END_VAR
  g := g + 2;
END_PROGRAM
"""
    fast = load("g.st", text=text).plc()
    slow = load("g.st", text=text).plc()
    slow.main.traces.append(EveryScan())
    assert batchable(fast.main)
    for plc in (fast, slow):
        plc.scan(250)
        plc.set("g", 1)
        plc.scan(250)
    assert fast.get("g") == slow.get("g") == 501
    assert fast.now_us == slow.now_us == 500 * 10_000
