"""``fbd debug FILE.st``: a file's one PROGRAM, or its whole configuration, as
``fbd run FILE.st`` runs it (the README promises ``fbd debug program.st``)."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication

import hmi.app
from fbd.tools.cli import main
from hmi.debugger.window import DebuggerWindow

ONE = """\
PROGRAM counter
VAR n : INT; END_VAR
  n := n + 1;
END_PROGRAM
"""

#: two program instances in two tasks, as OpenPLC's editor writes a configuration
TWO = ONE + """\
PROGRAM doubler
VAR m : INT; END_VAR
  m := m + 2;
END_PROGRAM

CONFIGURATION Config0
  RESOURCE Res0 ON PLC
    TASK fast(INTERVAL := T#5ms, PRIORITY := 0);
    TASK slow(INTERVAL := T#20ms, PRIORITY := 1);
    PROGRAM first WITH fast : counter;
    PROGRAM second WITH slow : doubler;
  END_RESOURCE
END_CONFIGURATION
"""


@pytest.fixture
def opened(monkeypatch):
    """The debugger windows ``fbd debug`` opens (closed instead of running the loop)."""
    windows = []

    def fake_exec(app):
        shown = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, DebuggerWindow) and w.isVisible()]
        for w in shown:
            w.debugger.step(8)
            w.refresh()
            windows.append((w, w.debugger.plc))
            w.close()
        return 0
    monkeypatch.setattr(hmi.app, "_exec", fake_exec)
    monkeypatch.setattr(hmi.app, "display_problem", lambda: None)
    return windows


def test_a_file_with_one_program_debugs_that_program(qtbot, opened, tmp_path):
    path = tmp_path / "program.st"
    path.write_text(ONE)
    assert main(["debug", str(path)]) == 0              # was: "name the POU, as in ..."
    ((window, plc),) = opened
    assert window.debugger.program.name == "counter" and plc.get("counter.n") == 8
    assert window.source.shown == "counter"


def test_a_file_with_a_configuration_debugs_every_task(qtbot, opened, tmp_path):
    path = tmp_path / "config.st"
    path.write_text(TWO)
    assert main(["debug", str(path)]) == 0
    ((window, plc),) = opened
    assert [t.name for t in plc.tasks] == ["first", "second"]
    tree = window.tree
    roots = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert roots == ["counter", "second: doubler"]
    # the second task's program runs beside the first, and is read, watched and forced
    dbg = window.debugger
    assert dbg.get("second:doubler.m") == 4             # 8 scans of 5 ms: 2 of 20 ms
    block = tree.topLevelItem(1).child(0)
    block.setExpanded(True)
    ports = {block.child(i).data(0, Qt.ItemDataRole.UserRole): block.child(i).text(2)
             for i in range(block.childCount())}
    assert ports == {"second:doubler.m": "4"}             # an ST program's variables
    dbg.watch("SECOND:doubler.M")          # watched by its IEC name, as fbd run names it
    assert [(r.path, r.text) for r in dbg.watch_values()] == [("second.m", "4")]
    dbg.force("second:doubler.m", 100)
    dbg.step(4)
    assert dbg.get("second:doubler.m") == 100 and dbg.is_forced("second:doubler.m")
    with pytest.raises(Exception, match="another task's signal; a trend records the main"):
        dbg.trend(["second:doubler.m"])


def test_a_file_with_programs_but_no_configuration_asks_which(capsys, tmp_path):
    path = tmp_path / "two.st"
    path.write_text(ONE + ONE.replace("counter", "other"))
    assert main(["debug", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"fbd: error: {path} has 2 PROGRAMs and no CONFIGURATION to say which to run: name one, "
        f"as in {path}:counter (counter, other)"]


def test_one_program_of_a_file_is_named_after_a_colon(qtbot, opened, tmp_path):
    path = tmp_path / "two.st"
    path.write_text(ONE + ONE.replace("counter", "other"))
    assert main(["debug", f"{path}:other"]) == 0
    ((window, _plc),) = opened
    assert window.debugger.program.name == "other"
