"""The debugger's online change: a preview that changes nothing, then the change at
a scan boundary with breakpoints compiled again, and watches and the trend
following their paths."""

from fbd import Plc
from fbd.debug import Debugger
from fbd.st.project import load

SOURCE = """
PROGRAM prg
VAR n : INT; m : INT; top : INT := 10; END_VAR
n := n + 1; m := m + 2;
IF n >= top THEN n := 0; END_IF;
END_PROGRAM
"""
CHANGED = SOURCE.replace("m : INT; ", "").replace("m := m + 2;", "").replace(
    "top : INT := 10", "top : DINT := 10").replace("n >= top", "INT_TO_DINT(n) >= top")


def network(source):
    return load("prog.st", text=source).network("prg")


def test_a_preview_changes_nothing_and_the_change_keeps_the_debuggers_setup():
    dbg = Debugger(Plc(network(SOURCE)))
    events = []
    dbg.listeners.append(events.append)
    dbg.watch("prg.n")
    dbg.watch("prg.m")
    dbg.trend(["prg.n", "prg.m"])
    kept = dbg.add_breakpoint("prg.n = 7")
    dbg.add_breakpoint("prg.m > 100")
    dbg.step(3)
    dbg.step_into()                                   # a scan stepped into is finished first
    preview = dbg.preview_change(network(CHANGED))
    assert preview.lines() == ["prg.top: converted from INT to DINT",
                               "prg.m: dropped (no longer in the program)"]
    assert dbg.plc.get("prg.m") == 6 and dbg.in_scan              # nothing changed
    done = dbg.online_change(network(CHANGED))
    assert done.change.carried.summary() == "1 kept, 1 converted, 0 initialised, 1 dropped"
    assert done.dropped_watches == ["prg.m"] and dbg.watches == ["prg.n"]
    assert len(done.dropped_breakpoints) == 1 and done.dropped_breakpoints[0].startswith(
        "prg.m > 100 (")
    assert [bp.text for bp in dbg.breakpoints] == [kept.text] and "program" in events
    assert not dbg.in_scan and dbg.scans == 4 and dbg.trend_paths == ["prg.n"]
    hit = dbg.run_until_break(max_scans=100)
    assert hit is not None and dbg.plc.get("prg.n") == 7 and dbg.scans == 7
    assert dbg.trend_paths == ["prg.n"]


NETWORK_PY = """
from fbd import INT, Network
from blocks import ADD

def build():
    net = Network("counter")
    n = net.add("n", ADD(INT), IN2=STEP)
    net.connect(n.OUT, n.IN1, feedback=True)
    net.output("N", n.OUT)
    return net
"""


def test_a_python_networks_file_is_read_anew_for_an_online_change(tmp_path):
    from fbd.debug.online import load_changed
    source = tmp_path / "counter.py"
    source.write_text(NETWORK_PY.replace("STEP", "1"))
    dbg = Debugger(Plc(load_changed(None, str(source))))
    dbg.step(3)
    source.write_text(NETWORK_PY.replace("STEP", "10"))
    for named in (str(source), f"{source}:build"):
        assert dbg.preview_change(load_changed(dbg, named)).lines() == []
    done = dbg.online_change(load_changed(dbg, str(source)))
    assert done.change.carried.kept == ["N", "n.OUT"]
    dbg.step(2)
    assert dbg.get("N") == 23                       # 3, then +10 a scan from its count


CONFIGURATION = """
PROGRAM counter
  VAR_EXTERNAL total : INT; END_VAR
  VAR n : INT; END_VAR
  n := n + STEP;
  total := total + 1;
END_PROGRAM
CONFIGURATION conf
  VAR_GLOBAL total : INT; END_VAR
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
    TASK slow(INTERVAL := T#20ms, PRIORITY := 2);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH slow : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_a_configuration_changes_as_a_whole_with_a_preview_first(tmp_path):
    from fbd.debug.online import load_changed
    source = tmp_path / "conf.st"
    source.write_text(CONFIGURATION.replace("STEP", "1"))
    dbg = Debugger(load(str(source), text=source.read_text()).plc())
    dbg.watch("a.n")
    dbg.step(3)
    source.write_text(CONFIGURATION.replace("STEP", "10").replace(
        "VAR n : INT;", "VAR n : INT; seen : BOOL;"))
    preview = dbg.preview_change(load_changed(dbg, str(source)))
    assert preview.lines() == ["a.seen: initialised (new)", "b.seen: initialised (new)"]
    assert dbg.plc.get("a.n") == 3                          # nothing changed yet
    done = dbg.online_change(load_changed(dbg, str(source)))
    assert done.change.summary().startswith("online change of configuration conf: "
                                            "2 program instances")
    assert dbg.watches == ["a.n"]
    dbg.step()
    assert dbg.get("a.n") == 13 and dbg.get("total") == 6
