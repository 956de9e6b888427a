"""The diagram and the trends read cleanly: the top level opens whole, a macro from
its top, no value over a literal, a connector's name inside its tag, numbers drawn
as the steps a PLC value makes."""

from __future__ import annotations

import pytest
from PyQt6.QtWidgets import QGraphicsSimpleTextItem

from tests.hmi.rig import game_2048_plc, open_debugger

LEVELS = ("", "cell_0_0.", "control.", "smart_placement.", "install.", "game_over.",
          "processing_up.line_0.")


@pytest.fixture
def win(qtbot):
    w = open_debugger(qtbot, game_2048_plc())
    w.debugger.step(30)
    w.refresh()
    yield w
    w.close()


def shown(view):
    return view.mapToScene(view.viewport().rect()).boundingRect()


def test_the_top_level_opens_whole(win):
    view = win.diagram.view
    assert view.prefix == ""
    seen = shown(view).adjusted(-1, -1, 1, 1)
    for name, item in view.box_items.items():
        assert seen.contains(item.sceneBoundingRect()), name      # was: cut at the top


def test_a_macro_too_big_to_read_whole_opens_at_its_top_left(win):
    view = win.diagram.view
    view.enter("smart_placement")
    assert view.transform().m11() >= 0.85                          # readable
    top = min(item.sceneBoundingRect().top() for item in view.box_items.values())
    assert shown(view).top() <= top - 10                           # the top row and its names


@pytest.mark.parametrize("prefix", LEVELS)
def test_no_value_or_literal_is_drawn_over_another(win, prefix):
    view = win.diagram.view
    view.show_level(prefix)
    win.refresh()
    labels = [(i.text(), i.sceneBoundingRect().adjusted(0.5, 0.5, -0.5, -0.5))
              for i in view.scene().items()
              if isinstance(i, QGraphicsSimpleTextItem) and i.parentItem() is None
              and i.isVisible() and i.text()]
    over = [(a, b) for k, (a, ra) in enumerate(labels) for b, rb in labels[k + 1:]
            if ra.intersects(rb)]
    assert over == []              # a MUX's literal IN0 and the value of its IN1 overlapped


def test_a_connectors_name_is_inside_its_tag_underscores_too(win):
    view = win.diagram.view                                        # the top: install_start.S_1_1
    named = [(c, tag) for c, tag in view.connector_items if "_" in c.name]
    assert named
    for c, tag in named:
        text = tag.childItems()[0]
        inside = tag.path().boundingRect().adjusted(0, 1, 0, -1)     # within its border
        glyphs = text.mapRectToParent(text.boundingRect())
        assert inside.top() <= glyphs.top() and glyphs.bottom() <= inside.bottom(), c.name


def test_numbers_are_trended_as_steps_as_bools_are(win):
    dbg = win.debugger
    dbg.trend(["BUSY", "SCORE"])
    dbg.step(10)
    win.tabs.setCurrentWidget(win.trends)
    win.refresh()
    lanes = win.trends.lanes
    assert not lanes["SCORE"].is_bool
    assert lanes["SCORE"].curve.opts["stepMode"] == lanes["BUSY"].curve.opts["stepMode"] == "left"


def test_up_and_backspace_go_up_a_level_and_the_keyboard_stays_in_the_diagram(win, qtbot):
    from PyQt6.QtCore import Qt
    from PyQt6.QtWidgets import QApplication
    panel, view = win.diagram, win.diagram.view
    assert not panel.up_button.isEnabled()
    view.enter("processing_up")
    view.enter("line_0")
    assert panel.up_button.isEnabled()
    panel.up_button.click()
    assert view.prefix == "processing_up."
    win.activateWindow()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    assert view.prefix == ""
    view.enter("control")
    panel.crumb_buttons[0].click()                       # the breadcrumb: the program
    assert view.prefix == "" and QApplication.focusWidget() is not win.step_n
    assert all(b.focusPolicy() == Qt.FocusPolicy.NoFocus for b in panel.crumb_buttons)


def test_an_export_is_offered_in_the_users_documents(win, monkeypatch, tmp_path):
    from PyQt6.QtCore import QStandardPaths
    from PyQt6.QtWidgets import QFileDialog
    offered = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, title, start, kinds: offered.append(start) or ("", ""))
    win.trends._export("csv")
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    assert offered and offered[0].startswith(docs or str(tmp_path.home()))
    assert offered[0].endswith("trace.csv")
