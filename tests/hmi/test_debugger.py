"""The debugger's views (hmi/debugger) over the model, offscreen, on a fake wall clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from PyQt6.QtCore import Qt

from fbd.debug import MAX
from hmi.debugger.cli import register  # noqa: F401  (the verb imports no Qt)
from hmi.debugger.layout import layout_level, overlaps
from hmi.debugger.window import DebuggerWindow
from programs.game2048 import Game2048
from tests.hmi.rig import Rig

SHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"


@pytest.fixture
def game():
    g = Game2048(seed=1)
    g.start()
    return g


@pytest.fixture
def win(qtbot, game):
    w = DebuggerWindow(game.plc, autostart=False)
    qtbot.addWidget(w)
    w.resize(1280, 860)
    w.show()
    yield w
    w.close()


def test_step_increments_the_counter_and_the_values(win):
    dbg = win.debugger
    before = dbg.scans
    win.tree.find("control").setExpanded(True)
    win.tree.find("control.seq_prev").setExpanded(True)
    win.actions_by_name["step"].trigger()
    assert dbg.scans == before + 1
    assert f"scan {before + 1:,}" in win.counter.text()
    win.step_n.setValue(7)
    win.actions_by_name["step_n"].trigger()
    assert dbg.scans == before + 8
    assert f"scan {before + 8:,}" in win.counter.text()
    port = win.tree.find("control.seq_prev").child(0)
    assert port.text(2) == dbg.text(port.data(0, Qt.ItemDataRole.UserRole))


def test_the_timer_runs_at_the_chosen_speed(win):
    dbg = win.debugger
    win.tick(0.0)
    win.actions_by_name["run"].trigger()
    assert dbg.state == "running"
    win.tick(1.0)                      # the reference
    assert win.tick(1.1) == 20         # 100 ms of 5 ms cycles
    win.speed.setCurrentText("x10")
    assert win.tick(1.2) == 200
    win.speed.setCurrentText("max")
    assert dbg.speed == MAX and win.tick(1.3) > 0
    win.actions_by_name["pause"].trigger()
    assert win.tick(5.0) == 0 and "PAUSED" in win.counter.text()


def test_step_into_highlights_the_block_in_the_diagram(win):
    dbg = win.debugger
    win.diagram.view.enter("control")
    win.actions_by_name["step_into"].trigger()       # begins the scan
    win.actions_by_name["step_into"].trigger()       # runs the first block
    assert dbg.in_scan and dbg.current_block == dbg.order[1]
    assert win.diagram.view.current == dbg.order[1].split(".")[1]
    assert "in scan: block 1/" in win.counter.text()
    win.actions_by_name["finish"].trigger()
    assert not dbg.in_scan and win.diagram.view.current is None


def test_a_force_changes_the_programs_behaviour(win, game):
    win.watch.path_edit.setText("cell_0_0.memory.OUT")
    win.watch._add()
    assert win.debugger.watches == ["cell_0_0.memory.OUT"]
    win.watch.table.selectRow(0)
    win.watch.force_selected("2048")
    win.debugger.step(3)
    win.refresh()
    assert game.board[0][0] == 2048 and game.won       # the program saw the forced tile
    assert win.watch.table.item(0, 3).text() == "F"
    assert win.watch.forces_list.item(0).text().startswith("cell_0_0.memory.OUT = 2048")
    win.watch.unforce_selected()
    assert win.debugger.forces == {} and win.watch.forces_list.count() == 0


def test_editing_a_watched_value_writes_it_once(win):
    dbg = win.debugger
    dbg.watch("cell_1_1.memory.OUT")
    win.refresh()
    win.watch.table.item(0, 2).setText("64")
    assert dbg.get("cell_1_1.memory.OUT") == 64
    assert not dbg.is_forced("cell_1_1.memory.OUT")


def test_the_completer_is_fed_by_the_model(win):
    win.watch.path_edit._complete("memory.o")
    assert "cell_0_0.memory.OUT" in win.watch.path_edit.model.stringList()


def test_a_breakpoint_pauses_the_run(win, game):
    panel = win.breakpoints
    panel.edit.setText("cell_0_0.memory.OUT >= ")
    assert not panel.add_button.isEnabled() and "column" in panel.error.text()
    panel.edit.setText("cell_0_0.memory.OUT >= 2048")
    assert panel.add_button.isEnabled() and panel.error.text() == ""
    panel.add()
    assert panel.table.rowCount() == 1
    win.tick(0.0)
    win.actions_by_name["run"].trigger()
    win.tick(0.1)
    assert win.debugger.state == "running"
    win.debugger.write("cell_0_0.memory.OUT", 2048)   # a memory keeps a written value
    win.tick(0.2)
    assert win.debugger.state == "paused"
    assert "paused by a breakpoint" in win.statusBar().currentMessage()
    assert "last hit" in panel.last_hit.text() and panel.table.item(0, 2).text() == "1"
    panel.table.item(0, 0).setCheckState(Qt.CheckState.Unchecked)
    assert not win.debugger.breakpoints[0].enabled
    panel.table.selectRow(0)
    panel.remove_selected()
    assert win.debugger.breakpoints == [] and panel.table.rowCount() == 0


def test_trends_plot_and_export(win, tmp_path):
    dbg = win.debugger
    dbg.trend(["control.issue.OUT", "SCORE"])
    dbg.step(20)
    win.tabs.setCurrentWidget(win.trends)
    win.refresh()
    x, y = win.trends.curves["SCORE"].getData()
    assert len(x) == 20 and x[-1] == dbg.scans
    assert "SCORE = " in win.trends.readout.text()
    dbg.export_csv(str(tmp_path / "t.csv"))
    dbg.export_vcd(str(tmp_path / "t.vcd"))
    assert (tmp_path / "t.csv").read_text().count("\n") == 21
    assert "$var" in (tmp_path / "t.vcd").read_text()


def test_the_cell_diagram_has_no_overlapping_boxes(win):
    view = win.diagram.view
    view.enter("cell_0_0")
    assert view.prefix == "cell_0_0."
    assert overlaps(view.level) == []
    rects = [item.sceneBoundingRect() for item in view.box_items.values()]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b), (a, b)
    assert {"memory", "empty", "place"} <= set(view.box_items)
    columns = {name: box.column for name, box in view.level.boxes.items()}
    assert columns["empty"] < columns["place"] < columns["done"] < columns["write"] \
        < columns["memory"]
    win.diagram.crumb_buttons[0].click()              # back up
    assert view.prefix == ""


def test_every_level_of_2048_lays_out_without_overlaps(game):
    prog = game.plc.main.program
    order = [prog.leaves[i].path for i in prog.order]
    levels = [("", prog.network)]
    while levels:
        prefix, net = levels.pop()
        assert overlaps(layout_level(net, prefix, order, prog.signals)) == [], prefix
        levels += [(f"{prefix}{n}.", i.element) for n, i in net.instances.items() if i.is_macro]


def test_screenshots(win):
    SHOTS.mkdir(parents=True, exist_ok=True)
    dbg = win.debugger
    dbg.force("cell_0_0.Clear", False)
    dbg.step(40)
    dbg.watch("cell_0_0.memory.OUT")
    dbg.watch("SCORE")
    win.diagram.view.enter("cell_0_0")
    dbg.step_into()
    for _ in range(3):
        dbg.step_into()
    win.refresh()
    win.diagram.view.fit()
    assert win.diagram.view.grab().save(str(SHOTS / "debugger_cell_diagram.png"))
    assert win.grab().save(str(SHOTS / "debugger_2048.png"))


def test_the_shell_opens_the_debugger_on_the_same_plc(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    window = rig.window
    plc = rig.panel.plc
    dbg_win = window.open_debugger(autostart=False)
    assert dbg_win.debugger.plc is plc
    assert rig.advance(100) == 0                      # the shell's loop is paused
    before = plc.scans
    dbg_win.debugger.step(5)
    assert plc.scans == before + 5
    dbg_win.close()
    assert window.debugger_window is None
    rig.advance(10)
    assert rig.advance(10) == 2                       # running again, no burst
