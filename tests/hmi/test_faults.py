"""A PLC in FAULT in the application shell and in the debugger window: said, shown
where it struck, and restarted from a menu or the toolbar."""

import pytest

from fbd import BOOL, Network, Plc
from fbd.block import Block, Port, register
from fbd.errors import FbdError
from fbd.st.project import load
from hmi.app import MainWindow
from hmi.debugger.window import DebuggerWindow
from hmi.panel import Panel
from tests.hmi.rig import TICK_NS, Clock

SOURCE = """\
FUNCTION_BLOCK Picker
VAR_INPUT i : INT; END_VAR
VAR_OUTPUT v : INT; END_VAR
VAR a : ARRAY[0..3] OF INT := [5, 6, 7, 8]; END_VAR
  v := a[i];
END_FUNCTION_BLOCK

PROGRAM Main
VAR
  idx AT %IW0 : INT;
  pick : Picker;
  out : INT;
END_VAR
  pick(i := idx);
  out := pick.v;
END_PROGRAM
"""


def picker_plc() -> Plc:
    return Plc(load("pick.st", text=SOURCE).network("Main"))


class Picking(Panel):
    """A panel whose PLC an index out of bounds stops."""
    title = "Picking"

    def __init__(self):
        super().__init__()
        self._plc = picker_plc()

    @property
    def plc(self):
        return self._plc


@pytest.fixture
def shell(qtbot):
    clock = Clock()
    window = MainWindow(None, panel=Picking(), clock=clock, autostart=False)
    qtbot.addWidget(window)
    window.tick()

    def tick():
        clock.ns += TICK_NS
        return window.tick()
    window.advance = tick
    return window


def test_the_shell_says_the_fault_runs_nothing_and_restarts_from_its_menu(shell):
    plc = shell.panel.plc
    assert shell.advance() == 2
    plc.set("idx", 4)
    shell.advance()
    assert plc.state == "FAULT" and shell.loop_label.text() == "PLC in FAULT"
    message = shell.message_field.message()
    assert message.startswith("PLC FAULT at scan 3 of task main: pick.st:5: in "
                              "FUNCTION_BLOCK Picker: array index 4 is outside 0..3")
    assert message.endswith("Simulation > Restart the PLC runs it again")
    assert shell.advance() == 0 and plc.scans == 2 and not shell.loop.paused
    plc.set("idx", 2)
    shell.restart_actions[True].trigger()                 # Simulation > Restart > Cold
    assert plc.state == "RUN" and shell.message_field.message() == "the PLC runs again"
    assert shell.advance() == 0                         # from now: the time in FAULT is not owed
    assert shell.advance() == 2 and plc.get("Main.out") == 7


def test_a_restart_a_modbus_client_asks_for_is_carried_out_by_the_loop(shell):
    plc = shell.panel.plc
    plc.set("idx", -1)
    shell.advance()
    assert plc.state == "FAULT"
    plc.set("idx", 0)
    plc.request("warm restart")                         # as the control register does
    assert shell.advance() == 2 and plc.state == "RUN" and plc.get("Main.out") == 5


def test_the_debugger_shows_the_fault_at_its_line_and_restarts(qtbot, tmp_path):
    plc = picker_plc()
    win = DebuggerWindow(plc, autostart=False)
    qtbot.addWidget(win)
    win.resize(1280, 860)
    win.show()
    plc.set("idx", 9)
    win.actions_by_name["step"].trigger()
    assert win.counter.text().startswith("● FAULT · scan 0")
    assert win.message_field.message().startswith(
        "FAULT at scan 1 of task main: pick.st:5: in FUNCTION_BLOCK Picker: array index 9")
    assert not win.actions_by_name["run"].isEnabled()
    source = win.source
    assert source.shown == "Picker" and source.view.fault_line == 5
    assert source.where.text().startswith("FAULT: pick.st:5: in FUNCTION_BLOCK Picker")
    win.grab().save(str(tmp_path / "fault.png"))
    win.actions_by_name["step"].trigger()                 # refused: the fault is said again
    assert win.message_field.message().startswith("FAULT at scan 1 of task main")
    plc.set("idx", 1)
    win.actions_by_name["warm"].trigger()
    win.actions_by_name["step"].trigger()
    assert win.counter.text().startswith("● PAUSED · scan 1") and plc.get("Main.out") == 6
    assert source.view.fault_line is None and win.actions_by_name["run"].isEnabled()
    assert "restarted" in win.message_field.message()


def test_the_debugger_opened_on_a_plc_in_fault_opens_at_the_fault(qtbot):
    plc = picker_plc()
    plc.set("idx", 7)
    with pytest.raises(Exception, match="array index 7"):
        plc.scan()
    win = DebuggerWindow(plc, autostart=False)
    qtbot.addWidget(win)
    assert win.source.shown == "Picker" and win.source.view.fault_line == 5
    assert win.message_field.message().startswith("FAULT at scan 1")


def _refuse(go: bool) -> bool:
    if go:
        raise FbdError("the valve is not where the block expects it")
    return go


@register
class HMI_FAULT_TEST_REFUSE(Block):
    """Raises an FbdError when GO is TRUE."""
    family = "test"
    inputs = [Port("GO", BOOL)]
    outputs = [Port("Q", BOOL)]
    helpers = {"_refuse": _refuse}

    def code(self, io):
        return f"{io.Q} = _refuse({io.GO})"


def valve() -> Network:
    inner = Network("Valve")
    inner.output("Q", inner.add("check", HMI_FAULT_TEST_REFUSE(), GO=inner.input("GO", BOOL)).Q)
    net = Network("Plant")
    net.output("Q", net.add("valve", inner, GO=net.input("GO", BOOL)).Q)
    return net


def test_the_debugger_shows_a_blocks_fault_in_the_diagram(qtbot):
    plc = Plc(valve())
    win = DebuggerWindow(plc, autostart=False)
    qtbot.addWidget(win)
    plc.set("GO", True)
    win.actions_by_name["step"].trigger()
    view = win.diagram.view
    assert win.debugger.fault.block == "valve.check"
    assert (view.prefix, view.selected) == ("valve.", "check")
    assert "in block valve.check: the valve is not" in win.message_field.message()
