"""The debugger window's *Program > Online change...*: the preview asked about, the
views rebuilt on the new program, a file that does not compile leaving the
program running."""

from __future__ import annotations

from fbd import Plc
from fbd.st.project import load
from hmi.debugger.views import PATH_ROLE
from hmi.debugger.window import DebuggerWindow

SOURCE = """
PROGRAM prg
VAR n : INT; m : INT; END_VAR
n := n + 1; m := m + 2;
END_PROGRAM
"""


def test_online_change_asks_with_its_preview_then_shows_the_new_program(qtbot, tmp_path):
    plc = Plc(load("prog.st", text=SOURCE).network("prg"))
    win = DebuggerWindow(plc, autostart=False)
    qtbot.addWidget(win)
    win.show()
    win.debugger.step(3)
    asked = []
    win.confirm_change = lambda text: asked.append(text) or len(asked) > 1
    changed = tmp_path / "prog.st"
    changed.write_text(SOURCE.replace("m := m + 2;", "m := m + 20; k := k + 1;")
                       .replace("m : INT;", "m : INT; k : INT;"))
    old_tree = win.tree
    assert old_tree.find("prg").data(1, PATH_ROLE) == ["prg.n", "prg.m"]
    assert not win.online_change(str(changed))              # declined: nothing changes
    assert asked == ["online change of prg: 2 kept, 0 converted, 1 initialised, 0 dropped:\n"
                     "prg.k: initialised (new)"]
    assert plc.get("prg.m") == 6 and win.tree is old_tree
    assert win.online_change(str(changed))
    assert old_tree.find("prg").data(1, PATH_ROLE) == ["prg.n", "prg.m"]
    assert win.tree is not old_tree
    assert win.tree.find("prg").data(1, PATH_ROLE) == ["prg.n", "prg.m", "prg.k"]
    win.debugger.step(1)
    assert (plc.get("prg.n"), plc.get("prg.m"), plc.get("prg.k")) == (4, 26, 1)
    assert "online change of prg" in win.message_field.message()
    changed.write_text("PROGRAM prg VAR n : INT; END_VAR n := ; END_PROGRAM")
    assert not win.online_change(str(changed))
    assert "prog.st:1:" in win.message_field.message()
    win.debugger.step(1)
    assert plc.get("prg.m") == 46                            # the program runs on
    win.close()


def test_the_tree_says_which_variables_a_restart_keeps(qtbot):
    source = ("PROGRAM prg VAR RETAIN n : INT; END_VAR VAR PERSISTENT p : INT; END_VAR\n"
              "VAR m : INT; END_VAR n := n + 1; p := p + 1; m := m + 1; END_PROGRAM")
    win = DebuggerWindow(Plc(load("prog.st", text=source).network("prg")), autostart=False)
    qtbot.addWidget(win)
    item = win.tree.find("prg")
    item.setExpanded(True)
    rows = {item.child(i).text(0): item.child(i).toolTip(0) for i in range(item.childCount())}
    assert rows == {"n (var, RETAIN)": "RETAIN: kept by a warm restart",
                    "p (var, PERSISTENT)": "PERSISTENT: kept by a warm restart and a cold one",
                    "m (var)": ""}
    assert win.debugger.retention("prg.n") == "RETAIN" and win.debugger.retention("prg.m") is None
    win.close()
