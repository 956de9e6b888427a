"""The debugger's views (hmi/debugger) over the model, offscreen, on a fake wall clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from PyQt6.QtCore import QPoint, QPointF, Qt
from PyQt6.QtGui import QFontMetrics, QWheelEvent
from PyQt6.QtWidgets import QApplication

from fbd.debug.debugger import MAX, Debugger
from fbd.debug.layout import crossings, overlaps
from hmi.debugger.cli import register  # noqa: F401  (the verb imports no Qt)
from hmi.debugger.window import DebuggerWindow
from programs.game2048 import Game2048
from tests.hmi.rig import Rig, open_debugger

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
    win.tree.find("control.dir").setExpanded(True)
    win.actions_by_name["step"].trigger()
    assert dbg.scans == before + 1
    assert f"scan {before + 1:,}" in win.counter.text()
    win.step_n.setValue(7)
    win.actions_by_name["step_n"].trigger()
    assert dbg.scans == before + 8
    assert f"scan {before + 8:,}" in win.counter.text()
    port = win.tree.find("control.dir").child(0)
    assert port.text(2) == dbg.text(port.data(0, Qt.ItemDataRole.UserRole))


def test_the_tree_names_a_variable_of_an_inner_instance_by_its_member_path(qtbot):
    from fbd import Plc
    from tests.blocks.test_control import control_loop
    window = open_debugger(qtbot, Plc(control_loop(), cycle=0.02))
    pid = window.tree.find("ctrl")
    pid.setExpanded(True)
    names = [pid.child(i).text(0) for i in range(pid.childCount())]
    assert {"ITERM.XOUT (var)", "DTERM.XOUT (var)", "ERROR (var)", "XOUT (out)"} <= set(names)
    window.close()


def test_the_timer_runs_at_the_chosen_speed(qtbot, game):
    # advance's budget of wall time never runs out on a clock that stands still: the
    # scans due run, however slow this machine is (at most max_scans at the max speed)
    dbg = Debugger(game.plc, max_scans=500, clock=lambda: 0.0)
    win = DebuggerWindow(debugger=dbg, autostart=False)
    qtbot.addWidget(win)
    win.tick(0.0)
    win.actions_by_name["run"].trigger()
    assert dbg.state == "running"
    win.tick(1.0)                      # the reference
    assert win.tick(1.1) == 20         # 100 ms of 5 ms cycles
    win.speed.setCurrentText("x10")
    assert win.tick(1.2) == 200
    win.speed.setCurrentText("max")
    assert dbg.speed == MAX and win.tick(1.3) == 500
    assert win.timer.interval() == 0               # max: runs whenever the loop is idle
    win.actions_by_name["pause"].trigger()
    assert win.tick(5.0) == 0 and "PAUSED" in win.counter.text()


def test_step_into_highlights_the_block_in_the_diagram(win):
    dbg = win.debugger
    win.diagram.view.enter("control")
    win.actions_by_name["step_into"].trigger()       # begins the scan
    win.actions_by_name["step_into"].trigger()       # runs the first block
    assert dbg.in_scan and dbg.current_block == dbg.order[1]
    assert win.diagram.view.current == dbg.order[1].rsplit(".", 1)[1]  # followed into its macro
    assert "in scan: block 1/" in win.position.full_text() and win.position.isVisible()
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
    assert "paused by a breakpoint" in win.message_field.message()
    assert "last hit" in panel.last_hit.text() and panel.table.item(0, 2).text() == "1"
    panel.table.item(0, 0).setCheckState(Qt.CheckState.Unchecked)
    assert not win.debugger.breakpoints[0].enabled
    panel.table.selectRow(0)
    panel.remove_selected()
    assert win.debugger.breakpoints == [] and panel.table.rowCount() == 0


def to_break(win) -> None:
    """*To break*, and the timer's ticks until it pauses."""
    win.actions_by_name["until"].trigger()
    t = 0.0
    while win.debugger.state == "running":
        t += 0.05
        win.tick(t)


def test_a_stale_breakpoint_message_clears_when_running_again(win):
    dbg = win.debugger
    dbg.add_breakpoint("SCORE >= 0")
    to_break(win)
    assert "paused by a breakpoint" in win.message_field.message()
    dbg.remove_breakpoint(dbg.breakpoints[0])
    win.actions_by_name["run"].trigger()
    assert win.message_field.message() == ""


def test_to_break_without_breakpoints_says_so_and_runs_nothing(win):
    before = win.debugger.scans
    win.actions_by_name["until"].trigger()
    assert win.debugger.scans == before
    assert "no breakpoint is set" in win.message_field.message()
    assert win.tabs.currentWidget() is win.breakpoints


def test_the_step_n_row_reads_clearly_and_the_icons_show(win):
    step_n = win.actions_by_name["step_n"]
    assert step_n.text() == "Step 10 scans"
    win.step_n.setValue(250)
    assert step_n.text() == "Step 250 scans"
    before = win.debugger.scans
    step_n.trigger()
    assert win.debugger.scans == before + 250
    for name in ("run", "pause", "step", "step_into"):
        assert not win.actions_by_name[name].icon().isNull(), name   # Qt's icons, no glyphs
    assert win.actions_by_name["pause"].text() == "Pause"


def test_return_in_the_value_field_writes_once_and_force_forces(win):
    dbg = win.debugger
    dbg.watch("cell_1_1.memory.OUT")
    win.refresh()
    panel = win.watch
    panel.table.selectRow(0)
    panel.value_edit.setText("64")
    panel.value_edit.returnPressed.emit()
    assert dbg.get("cell_1_1.memory.OUT") == 64 and not dbg.is_forced("cell_1_1.memory.OUT")
    assert "wrote 64 once" in panel.message.text()
    panel.value_edit.setText("128")
    panel.force_button.click()
    assert dbg.is_forced("cell_1_1.memory.OUT") and dbg.get("cell_1_1.memory.OUT") == 128


def test_the_forces_list_shows_values_in_iec_form(win):
    dbg = win.debugger
    dbg.force("cell_0_0.Clear", False)
    dbg.force("control.Cmd", 3)
    win.watch.refresh()
    items = [win.watch.forces_list.item(i).text() for i in range(win.watch.forces_list.count())]
    # the forces are listed by the signals' own paths (an alias's source): IEC values
    assert sorted(items) == ["CMD = 3", "control.clear.OUT = FALSE"]


def a_block_in(tree, macro: str):
    """The first block (not a macro) inside ``macro`` in the hierarchy, whatever it is called."""
    item = tree.find(macro)
    return next(item.child(i) for i in range(item.childCount())
                if item.child(i).data(1, Qt.ItemDataRole.UserRole))


def test_double_clicking_a_port_row_watches_it(win, qtbot):
    block = a_block_in(win.tree, "control")
    block.setExpanded(True)
    port = block.child(0)
    path = port.data(0, Qt.ItemDataRole.UserRole)
    win._tree_open(port, 0)            # was: AttributeError: 'NE' object has no attribute ...
    assert win.debugger.watches == [path]
    assert win.tabs.currentWidget() is win.watch


def test_double_clicking_a_block_shows_its_level_with_the_block_selected(win):
    view = win.diagram.view
    block = a_block_in(win.tree, "control")
    name = block.text(0)
    win._tree_open(block, 0)
    assert view.prefix == "control." and view.selected == name
    assert view.box_items[name].pen().color().name() == "#2f6fdb"
    win._tree_open(win.tree.find("cell_0_0"), 0)            # a macro: entered
    assert view.prefix == "cell_0_0."


def test_step_into_follows_the_scan_into_macros_and_back_out(win):
    dbg = win.debugger
    view = win.diagram.view
    assert view.prefix == ""
    win.actions_by_name["step_into"].trigger()            # begins the scan
    first = dbg.current_block
    assert view.prefix == first.rsplit(".", 1)[0] + "." and view.current == first.rsplit(".")[-1]
    seen = {view.prefix}
    for _ in range(60):
        win.actions_by_name["step_into"].trigger()
        block = dbg.current_block
        if block is None:
            break
        parent = block.rsplit(".", 1)[0] + "." if "." in block else ""
        assert view.prefix == parent and view.current == block[len(parent):]
        seen.add(view.prefix)
    assert len(seen) > 1                                     # it went from macro to macro
    win.actions_by_name["finish"].trigger()
    assert not dbg.in_scan and view.prefix == "" and view.current is None    # back out


def test_a_continuation_leads_to_its_connector(win):
    view = win.diagram.view
    view.enter("cell_0_0")
    cont = next(tag for c, tag in view.connector_items if c.kind == "continuation")
    source = next(tag for c, tag in view.connector_items if c.kind == "connector")
    view.jump(cont.data(0))
    centre = view.mapToScene(view.viewport().rect().center())
    assert abs(centre.x() - source.sceneBoundingRect().center().x()) < 2 or \
        view.horizontalScrollBar().value() in (view.horizontalScrollBar().minimum(),
                                               view.horizontalScrollBar().maximum())


def test_trends_plot_and_export(win, tmp_path):
    dbg = win.debugger
    dbg.trend(["control.command.issue.OUT", "SCORE"])
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


def test_the_cell_diagram_is_drawn_as_laid_out(win):
    view = win.diagram.view
    view.enter("cell_0_0")
    level = view.level
    assert crossings(level) == []
    routed = [w for w in level.wires if w.points]
    drawn = sorted(tuple((e.x, e.y) for e in (item.path().elementAt(i)
                                              for i in range(item.path().elementCount())))
                   for item, _label, _badge, _index in view._wires if item is not None)
    assert routed and drawn == sorted(tuple(w.points) for w in routed)
    # the feedback of the cell's memory is a connector pair, drawn with its name
    assert level.connectors and all(c.feedback for c in level.connectors
                                    if c.name == "memory.OUT")
    names = sorted((c.kind, c.name) for c, _tag in view.connector_items)
    assert names == sorted((c.kind, c.name) for c in level.connectors)
    tag = next(tag for c, tag in view.connector_items if c.kind == "continuation")
    assert tag.childItems()[0].text() == "memory.OUT"


def test_double_click_enters_a_macro_and_the_breadcrumb_goes_back(win, qtbot):
    view = win.diagram.view
    rect = view.box_items["cell_0_0"]
    view.centerOn(rect)
    point = view.mapFromScene(rect.sceneBoundingRect().center())
    assert view.box_at(view.itemAt(point)) == "cell_0_0"
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert view.prefix == "cell_0_0."
    crumbs = win.diagram.crumb_buttons
    assert [b.text() for b in crumbs] == [win.debugger.program.name, "cell_0_0"]
    assert crumbs[0].isEnabled() and not crumbs[1].isEnabled()
    # a readable default zoom on entering: not shrunk to fit the whole level
    assert view.transform().m11() >= 0.85
    rect = view.box_items["memory"]                    # a block: double-click does nothing
    view.centerOn(rect)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton,
                      pos=view.mapFromScene(rect.sceneBoundingRect().center()))
    assert view.prefix == "cell_0_0."
    crumbs[0].click()
    assert view.prefix == "" and len(win.diagram.crumb_buttons) == 1


def test_the_wheel_zooms_the_diagram(win):
    view = win.diagram.view
    before = view.transform().m11()
    centre = QPointF(view.viewport().rect().center())

    def wheel(dy: int) -> None:
        event = QWheelEvent(centre, QPointF(view.viewport().mapToGlobal(centre.toPoint())),
                            QPoint(0, 0), QPoint(0, dy), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(view.viewport(), event)
    wheel(120)
    assert view.transform().m11() == pytest.approx(before * 1.15)
    wheel(-120)
    wheel(-120)
    assert view.transform().m11() == pytest.approx(before / 1.15)
    win.resize(1100, 800)                              # the user's zoom is kept
    assert view.transform().m11() == pytest.approx(before / 1.15)


def test_the_debug_verb_opens_the_window_on_the_target(qtbot, monkeypatch):
    import hmi.app
    from fbd.tools.cli import main
    opened = []

    def fake_exec(app):       # instead of the event loop: look at the window, close it
        windows = [w for w in QApplication.topLevelWidgets()
                   if isinstance(w, DebuggerWindow) and w.isVisible()]
        opened.extend(windows)
        for w in windows:
            w.close()
        return 0
    monkeypatch.setattr(hmi.app, "_exec", fake_exec)
    monkeypatch.setattr(hmi.app, "display_problem", lambda: None)
    assert main(["debug", "programs.game2048.cell:cell_macro", "--cycle", "0.01"]) == 0
    assert len(opened) == 1
    dbg = opened[0].debugger
    assert dbg.plc.cycle == pytest.approx(0.01) and dbg.state == "paused"
    assert not opened[0].timer.isActive()              # closed: the timer stopped


@pytest.mark.parametrize("target, message", [
    ("no_such_module_xyz:build", "no module named 'no_such_module_xyz'"),
    ("programs.game2048.cell:nothing", "has no attribute 'nothing'"),
    ("programs.game2048.cell", "MODULE:FUNCTION"),
])
def test_the_debug_verb_rejects_a_bad_target_in_one_line(capsys, target, message):
    from fbd.tools.cli import main
    assert main(["debug", target]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fbd: error: ") and message in err


def test_screenshots(win):
    SHOTS.mkdir(parents=True, exist_ok=True)
    dbg = win.debugger
    dbg.force("cell_0_0.Clear", False)
    dbg.step(40)
    dbg.watch("cell_0_0.memory.OUT")
    dbg.watch("SCORE")
    win.diagram.view.enter("cell_0_0")
    dbg.step_into()
    while not dbg.current_block.startswith("cell_0_0."):    # into the cell's blocks
        dbg.step_into()
    for _ in range(3):
        dbg.step_into()
    win.refresh()
    assert win.diagram.view.prefix == "cell_0_0."             # the view followed the scan
    assert win.diagram.view.grab().save(str(SHOTS / "debugger_cell_diagram.png"))
    assert win.grab().save(str(SHOTS / "debugger_2048.png"))
    dbg.finish_scan()
    dbg.trend(["BUSY", "SCORE", "cell_0_0.memory.OUT"])
    for direction in ("left", "up", "right", "down"):
        win.debugger.plc.set("CMD", {"up": 1, "right": 2, "down": 3, "left": 4}[direction])
        win.debugger.plc.set("CMD_SEQ", dbg.get("CMD_SEQ") % 32767 + 1)
        dbg.step(15)
    win.tabs.setCurrentWidget(win.trends)
    win.refresh()
    win.trends.set_cursor(dbg.scans - 20)
    assert win.grab().save(str(SHOTS / "debugger_trends.png"))


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


def test_the_debugger_follows_a_new_game(qtbot, tmp_path):
    rig = Rig(qtbot, tmp_path / "best.json")
    window = rig.window
    old = window.open_debugger(autostart=False)
    old_plc = rig.panel.plc
    old.debugger.step(3)
    rig.panel.new_game()                              # the panel swaps in a new PLC
    assert rig.panel.plc is not old_plc
    assert rig.advance(10) == 0                       # the shell's loop stays paused ...
    new = window.debugger_window
    assert new is not None and new is not old         # ... and the debugger followed
    assert new.debugger.plc is rig.panel.plc and new.debugger.state == "paused"
    before = rig.panel.plc.scans
    new.debugger.step(2)
    assert rig.panel.plc.scans == before + 2 and old_plc.scans == old.debugger.scans
    new.close()
    assert window.debugger_window is None
    rig.advance(10)
    assert rig.advance(10) == 2                       # the shell runs the new PLC again


def test_trends_are_lanes_like_a_logic_analyser(win):
    dbg = win.debugger
    dbg.trend(["BUSY", "SCORE", "cell_0_0.memory.OUT"])
    dbg.step(30)
    win.tabs.setCurrentWidget(win.trends)
    win.refresh()
    panel = win.trends
    lanes = panel.lanes
    assert [lane.is_bool for lane in lanes.values()] == [True, False, False]
    layout = panel.graphics.ci.layout
    assert layout.rowMinimumHeight(0) < layout.rowMinimumHeight(1)      # a BOOL's lane is low
    plots = [lane.plot for lane in lanes.values()]
    # every lane has its own axis: a number's range is its own, not the BOOL's 0..1
    assert plots[0].getViewBox().viewRange()[1] == pytest.approx([-0.25, 1.35])
    # one scan axis: zooming one lane zooms them all, and only along x
    plots[1].setXRange(10, 20, padding=0)
    for p in plots:
        assert p.getViewBox().viewRange()[0] == pytest.approx([10, 20], abs=0.5)
        assert p.getViewBox().state["mouseEnabled"] == [True, False]
    assert [p.getAxis("bottom").isVisible() for p in plots] == [False, False, True]
    # one cursor through every lane; the readout names every signal in IEC form
    panel.set_cursor(15)
    assert all(lane.cursor.value() == 15 for lane in lanes.values())
    lanes["SCORE"].cursor.setValue(12)                       # dragging one moves all
    assert all(lane.cursor.value() == 12 for lane in lanes.values())
    text = panel.readout.text()
    assert "scan 12" in text and ("BUSY = FALSE" in text or "BUSY = TRUE" in text)
    assert "SCORE = " in text and "cell_0_0.memory.OUT = " in text
    assert lanes["SCORE"].tag.toPlainText().startswith("SCORE = ")
    panel.fit()
    assert plots[0].getViewBox().viewRange()[0][1] >= dbg.scans - 1


# ------------------------------------------------------------------ ST source and SFC steps
@pytest.fixture
def st_win(qtbot):
    from fbd.st.project import load
    from hmi.screenshots import TANK
    w = open_debugger(qtbot, load("tank.st", TANK).plc(cycle=0.01))
    yield w
    w.close()


def test_the_source_pane_lists_the_st_instances_and_a_gutter_click_sets_a_breakpoint(st_win, qtbot):
    source = st_win.source
    assert source.isVisible()
    assert [source.instances.itemText(i) for i in range(source.instances.count())] == [
        "Tank", "Tank.seq"]
    view = source.view
    assert view.first_line == 12 and view.toPlainText().splitlines()[0] == "PROGRAM Tank"
    # a click in the gutter at line 24's height
    block = view.document().findBlockByNumber(24 - view.first_line)
    y = view.blockBoundingGeometry(block).translated(view.contentOffset()).center().y()
    qtbot.mouseClick(view.gutter, Qt.MouseButton.LeftButton, pos=QPoint(10, int(y)))
    (bp,) = st_win.debugger.line_breakpoints
    assert (bp.instance, bp.line) == ("Tank", 24)
    assert view.row_of(24).breakpoints == (bp,)
    source.toggle(24)                               # a second click clears it
    assert st_win.debugger.line_breakpoints == []
    source.toggle(18)                               # END_VAR: on the next statement, said so
    assert st_win.debugger.line_breakpoints[0].line == 19
    assert "line 18 of PROGRAM Tank holds no statement" in st_win.message_field.text()


def test_paused_at_a_line_the_pane_highlights_it_with_the_calls_values(st_win):
    dbg = st_win.debugger
    dbg.step(5)
    st_win.source.toggle(24)
    to_break(st_win)
    row = st_win.source.view.row_of(24)
    assert row.current and dbg.current_line == ("Tank", 24)
    assert st_win.source.view.row_of(23).values == {"seq.pump": "TRUE"}
    assert "before line 24 of PROGRAM Tank" in st_win.position.full_text()
    assert "paused by a breakpoint: line breakpoint 1" in st_win.message_field.text()
    # the values are the call's: level is the table's only when Tank returns
    assert row.values == {"level": "82.5"} and dbg.get("Tank.level") == 82.5
    st_win.actions_by_name["step_line"].trigger()
    assert dbg.current_line == ("Tank", 25)
    assert st_win.source.view.row_of(25).values == {"level": "57.5"}
    assert dbg.get("Tank.level") == 82.5


def test_step_line_follows_the_call_into_the_fb_and_marks_the_caller(st_win):
    st_win.actions_by_name["step_line"].trigger()
    st_win.actions_by_name["step_line"].trigger()
    st_win.actions_by_name["step_line"].trigger()       # into seq(...): the SFC FB's statements
    dbg = st_win.debugger
    assert dbg.current_line[0] == "Tank.seq"
    assert st_win.source.shown == "Tank.seq"
    st_win.source.show_instance("Tank")
    assert st_win.source.view.row_of(20).caller
    st_win.actions_by_name["step_over"].trigger()
    assert st_win.source.shown == "Tank.seq"            # followed the next statement


def fillings(qtbot):
    """The debugger on a network of two ST function blocks, one driving the other."""
    from fbd import BOOL, Network, Plc
    from fbd.st.project import load
    from hmi.screenshots import TANK
    filling = load("tank.st", TANK).blocks["Filling"]
    net = Network("Line")
    first = net.add("first", filling(), start=net.input("GO", BOOL))
    second = net.add("second", filling(), start=first.valve)
    net.output("PUMP", second.pump)
    return open_debugger(qtbot, Plc(net))


def test_a_click_on_an_st_block_in_the_diagram_shows_its_source(qtbot):
    w = fillings(qtbot)
    assert w.diagram.isVisible() and w.source.isVisible()    # a network: both
    w.source.show_instance("second")
    view = w.diagram.view
    box = view.box_items["first"]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.mapFromScene(box.sceneBoundingRect().center()))
    assert w.source.shown == "first"
    w.close()


def test_a_program_that_is_one_st_pou_shows_its_source_instead_of_an_empty_diagram(st_win):
    assert not st_win.diagram.isVisible()
    assert st_win.source.width() > st_win.width() * 0.6


LONG_ARRAY = """\
PROGRAM prg
VAR a : ARRAY[1..40] OF INT; k : INT; END_VAR
  k := k + 1;
  a[1 + k MOD 40] := k;
END_PROGRAM
"""


def test_the_values_after_a_long_line_can_be_scrolled_into_view(qtbot):
    from fbd.st.project import load
    w = open_debugger(qtbot, load("arr.st", LONG_ARRAY).plc(cycle=0.01))
    w.debugger.step(50)
    w.refresh()
    view = w.source.view
    bar = view.horizontalScrollBar()
    row = view.row_of(4)
    assert row.values["a"].startswith("[40, 41, ") and row.values["a"].endswith(", 39]")
    text_end = view.fontMetrics().horizontalAdvance(row.text + "   ")
    # the whole of the values fits between the scroll bar's ends (it ended with the text)
    assert bar.maximum() + view.viewport().width() > text_end + QFontMetrics(
        view.font()).horizontalAdvance(view.values_text(row))
    bar.setValue(bar.maximum())
    w.resize(1000, 860)                                       # a relayout keeps the range
    assert bar.maximum() > 0
    w.close()


def test_the_sfc_tab_shows_the_active_step_live(st_win):
    dbg = st_win.debugger
    st_win.tabs.setCurrentWidget(st_win.sfc)
    table = st_win.sfc.table

    def active():
        return [table.item(i, 0).text() for i in range(table.rowCount())
                if table.item(i, 1).text() == "TRUE"]
    assert active() == ["Idle  (initial)"]
    st_win.actions_by_name["step"].trigger()
    assert active() == ["Fill"]
    dbg.step(11)
    st_win.refresh()
    assert active() == ["Drain"] and table.item(2, 2).text() == "T#0s"
    st_win.actions_by_name["step"].trigger()
    assert table.item(2, 2).text() == "T#10ms"


def test_a_program_without_st_shows_no_source_pane(win):
    assert not win.source.isVisible() and win.sfc is None
    assert not win.actions_by_name["step_line"].isEnabled()
