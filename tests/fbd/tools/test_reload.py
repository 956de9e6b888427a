"""Reload on change (fbd.tools.reload): a Python network's file changed under a
running PLC is built on the watcher's thread and run from the next scan, state
kept; a file that does not build is reported and changes nothing. Waits end on
what they wait for (a deadline a passing run never reaches)."""

import os
import time

from fbd import Plc
from fbd.loading import load_network
from fbd.tools.reload import Reloader, source_path

PROGRAM = '''
import blocks
from fbd import BOOL, Network


def build():
    net = Network("prg")
    ctu = net.add("c", blocks.CTU(), CU=net.input("CU", BOOL), PV={limit})
    net.output("Q", ctu.Q)
    return net
'''


def wait_for(lines: list, n: int) -> None:
    deadline = time.monotonic() + 60
    while len(lines) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(lines) >= n, lines


def rewrite(path, text: str) -> None:
    """Replace the file whole, as an editor saving does: a watcher on a loaded
    machine can otherwise look between write_text's truncation and its write."""
    part = path.with_suffix(".part")
    part.write_text(text)
    os.replace(part, path)


def test_a_changed_python_network_runs_from_the_next_scan_keeping_the_count(tmp_path):
    path = tmp_path / "counting.py"
    path.write_text(PROGRAM.format(limit=10))
    target = f"{path}:build"
    assert source_path(target) == (str(path), None)
    plc = Plc(load_network(target))
    for level in (True, False) * 3:
        plc.set("CU", level)
        plc.scan()
    lines = []
    reloader = Reloader(plc, str(path), lambda: load_network(target), lines.append,
                        interval=0.01)
    try:
        rewrite(path, PROGRAM.format(limit="(") + "\n")           # does not build
        wait_for(lines, 1)
        assert lines[0].startswith(f"{path}: ") and lines[0].endswith(
            "; the running program is unchanged")
        plc.scan()
        rewrite(path, PROGRAM.format(limit=4))
        deadline = time.monotonic() + 60
        while reloader.changes == 0 and time.monotonic() < deadline:
            plc.scan()                        # the change waits for a scan boundary
            time.sleep(0.01)
        assert lines[1] == f"{path}: online change of prg: 5 kept, 0 converted, " \
                           f"0 initialised, 0 dropped"
        assert plc.get("c.CV") == 3 and plc.get("Q") is False
        plc.set("CU", True)
        plc.scan()
        assert plc.get("c.CV") == 4 and plc.get("Q") is True      # the new limit, 4
    finally:
        reloader.close()


def test_a_rewrite_of_the_same_length_in_the_same_clock_tick_is_seen(tmp_path):
    """A file system stamps a file at the resolution of its clock (milliseconds):
    a program rewritten with text of the same length within one tick keeps its
    modification time and its size, and must still be reloaded."""
    path = tmp_path / "counting.py"
    path.write_text(PROGRAM.format(limit=10))
    stamp = os.stat(path).st_mtime_ns
    target = f"{path}:build"
    plc = Plc(load_network(target))
    lines = []
    reloader = Reloader(plc, str(path), lambda: load_network(target), lines.append,
                        interval=0.01)
    try:
        path.write_text(PROGRAM.format(limit=20))                # the same length
        os.utime(path, ns=(stamp, stamp))                        # in the same tick
        deadline = time.monotonic() + 60
        while reloader.changes == 0 and time.monotonic() < deadline:
            plc.scan()
            time.sleep(0.01)
        assert reloader.changes == 1, lines
        assert plc.get("c.PV") == 20
    finally:
        reloader.close()


CONFIGURATION = """
PROGRAM counter
  VAR_EXTERNAL total : INT; END_VAR
  VAR n : INT; END_VAR
  n := n + {step};
  total := total + 1;
END_PROGRAM
CONFIGURATION conf
  VAR_GLOBAL total : INT; END_VAR
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
    TASK slow(INTERVAL := T#{slow}ms, PRIORITY := 2);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH slow : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_a_changed_configuration_changes_every_instance_and_keeps_the_globals(tmp_path):
    from fbd import load
    path = tmp_path / "conf.st"
    path.write_text(CONFIGURATION.format(step=1, slow=20))
    plc = load(str(path)).plc()
    plc.scan(2)
    lines = []
    reloader = Reloader(plc, str(path), lambda: load(str(path)), lines.append, interval=0.01)
    try:
        rewrite(path, CONFIGURATION.format(step=1, slow=40))      # a task changed
        wait_for(lines, 1)
        assert lines[0] == (f"{path}: configuration conf: program instance 'b': its task's "
                            f"period changed (T#20ms -> T#40ms); an online change keeps the "
                            f"tasks: restart to load it; the running program is unchanged")
        rewrite(path, CONFIGURATION.format(step=100, slow=20))
        deadline = time.monotonic() + 60
        while reloader.changes == 0 and time.monotonic() < deadline:
            plc.scan()
            time.sleep(0.01)
        assert lines[1].startswith(f"{path}: online change of configuration conf: "
                                   f"2 program instances, ")
        before = [plc.get(name) for name in ("a.n", "b.n", "total")]
        plc.scan()
        a, b, total = (plc.get(name) - was for name, was in zip(("a.n", "b.n", "total"), before))
        assert a == 100 and b in (0, 100)         # b runs every other scan
        assert total == 1 + (b == 100)            # the shared global counted on
    finally:
        reloader.close()
