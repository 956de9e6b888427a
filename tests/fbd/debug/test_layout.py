"""The diagram layout (fbd.debug.layout, .layered, .routing), without Qt."""

from __future__ import annotations

import pytest

from blocks import AND, MOVE, NOT, OR, TON
from fbd import BOOL, INT, STRING, Network
from fbd.compiler.pycode import compile_network
from fbd.debug.layered import Edge, Node, _inversions, count_crossings
from fbd.debug.layout import (
    INPUTS,
    MAX_SPAN,
    OUTPUTS,
    crossings,
    layout_level,
    measure,
    overlaps,
)
from programs.game2048 import build

#: the layout's figures on 2048's top level (the column layout before it: 19,421
#: crossings, 1,410,864 length; 1,420 and 233,741 while the outputs box reordered its
#: pins, before they kept their declaration order); see docs/debugger.md
TOP_CROSSINGS = 1456
TOP_LENGTH = 235_014


@pytest.fixture(scope="module")
def game():
    net = build()
    prog = compile_network(net)
    order = [prog.leaves[i].path for i in prog.order]
    return net, order, prog.signals


def levels_of(net):
    """Every level of a network once per macro type: (prefix, network)."""
    out, seen, todo = [], set(), [("", net)]
    while todo:
        prefix, level = todo.pop(0)
        out.append((prefix, level))
        for name, inst in level.instances.items():
            if inst.is_macro and inst.element.name not in seen:
                seen.add(inst.element.name)
                todo.append((f"{prefix}{name}.", inst.element))
    return out


def lay(net, **kw):
    prog = compile_network(net)
    return layout_level(net, "", [prog.leaves[i].path for i in prog.order], prog.signals, **kw)


def test_2048s_top_level_has_no_more_crossings_than_recorded(game):
    net, order, signals = game
    m = measure(layout_level(net, "", order, signals))
    assert m.crossings <= TOP_CROSSINGS, m
    assert m.length <= TOP_LENGTH * 1.01, m


def test_every_level_of_2048_is_drawn_cleanly(game):
    net, order, signals = game
    for prefix, level in levels_of(net):
        lv = layout_level(net if not prefix else level, prefix, order, signals)
        assert overlaps(lv) == [], prefix
        assert crossings(lv) == [], prefix          # no wire through a box or a connector
        for w in lv.wires:
            if w.src is None or w.connector is not None:
                continue
            assert w.points[0] == lv.boxes[w.src[0]].out_port(w.src[1]), (prefix, w)
            assert w.points[-1] == lv.boxes[w.dst[0]].in_port(w.dst[1]), (prefix, w)
            for (x0, y0), (x1, y1) in zip(w.points, w.points[1:]):
                assert x0 == x1 or y0 == y1, (prefix, w)
        # a vertical run at one x belongs to one net: tracks are not shared while in use
        runs: dict[float, list] = {}
        for w in lv.wires:
            for (x0, y0), (x1, y1) in zip(w.points or [], (w.points or [])[1:]):
                if x0 == x1 and y0 != y1:
                    runs.setdefault(x0, []).append((min(y0, y1), max(y0, y1), w.src))
        for x, spans in runs.items():
            for i, (a0, a1, an) in enumerate(spans):
                for b0, b1, bn in spans[i + 1:]:
                    assert an == bn or a1 <= b0 or b1 <= a0, (prefix, x, an, bn)


def test_a_layer_is_ordered_so_two_wires_do_not_cross():
    net = Network("Swap")
    a = net.input("A", BOOL)
    b = net.input("B", BOOL)
    first = net.add("first", NOT(), IN=b)        # runs first, reads the lower input
    second = net.add("second", NOT(), IN=a)
    net.output("X", second.OUT)
    net.output("Y", first.OUT)
    lv = lay(net)
    assert measure(lv).crossings == 0
    assert lv.boxes["second"].y < lv.boxes["first"].y    # A's reader above B's
    assert lv.boxes[INPUTS].outputs == ["A", "B"]


def test_the_inputs_follow_their_readers():
    net = Network("Free")
    x = net.input("X", BOOL)
    y = net.input("Y", BOOL)
    top = net.add("top", AND(), IN1=y, IN2=y)
    bottom = net.add("bottom", OR(), IN1=x, IN2=x)
    net.output("P", top.OUT)
    net.output("Q", bottom.OUT)
    lv = lay(net)
    assert measure(lv).crossings == 0
    box = lv.boxes[INPUTS]
    ys = {b: lv.boxes[b].y for b in ("top", "bottom")}
    above = "Y" if ys["top"] < ys["bottom"] else "X"
    assert box.outputs[0] == above           # the pseudo-box's ports are reordered


def chain(length: int) -> Network:
    """IN -> NOT -> NOT ... -> OUT, and IN straight into the last block too."""
    net = Network("Chain")
    a = net.input("A", BOOL)
    prev = a
    blocks = []
    for i in range(length):
        blocks.append(net.add(f"n{i}", NOT(), IN=prev))
        prev = blocks[-1].OUT
    last = net.add("last", AND(), IN1=prev, IN2=a)
    net.output("Q", last.OUT)
    return net


def test_a_long_wire_becomes_a_named_connector_pair():
    lv = lay(chain(MAX_SPAN + 2))
    long = [w for w in lv.wires if w.dst == ("last", "IN2")]
    assert len(long) == 1 and long[0].connector == "A" and long[0].points is None
    ends = {c.kind: c for c in lv.connectors if c.name == "A"}
    assert set(ends) == {"connector", "continuation"}
    dx, dy = lv.boxes["last"].in_port("IN2")
    cont = ends["continuation"]
    assert cont.stub[-1] == (dx, dy) and cont.x + cont.w <= dx     # beside its target
    sx, sy = lv.boxes[INPUTS].out_port("A")
    assert ends["connector"].stub[0] == (sx, sy)                   # beside its source
    assert long[0].label_at == (cont.x, dy)                        # its value: before it
    short = lay(chain(MAX_SPAN - 2))
    assert short.connectors == [] and all(w.points for w in short.wires if w.src)


def test_without_connectors_a_long_wire_is_routed_all_the_way():
    lv = lay(chain(MAX_SPAN + 2), connectors=False)
    assert lv.connectors == []
    w = next(w for w in lv.wires if w.dst == ("last", "IN2"))
    assert w.points[0] == lv.boxes[INPUTS].out_port("A")
    assert w.points[-1] == lv.boxes["last"].in_port("IN2")
    assert crossings(lv) == []


def test_a_feedback_wire_is_a_connector_pair_marked_as_such():
    net = Network("Loop")
    go = net.input("GO", BOOL)
    latch = net.add("latch", OR(), IN1=go)
    net.connect(latch.OUT, latch.IN2, feedback=True)
    net.output("Q", latch.OUT)
    lv = lay(net)
    fb = next(w for w in lv.wires if w.feedback)
    assert fb.connector == "latch.OUT"
    assert all(c.feedback for c in lv.connectors)
    assert {c.kind for c in lv.connectors} == {"connector", "continuation"}


def test_literals_are_shown_in_iec_form():
    net = Network("Lits")
    go = net.input("GO", BOOL)
    timer = net.add("timer", TON(), IN=go, PT="T#3s")
    flag = net.add("flag", AND(), IN1=go, IN2=True)
    text = net.add("text", MOVE(STRING), IN="it's")
    count = net.add("count", MOVE(INT), IN=42)
    net.output("Q", timer.Q)
    net.output("F", flag.OUT)
    net.output("S", text.OUT)
    net.output("N", count.OUT)
    texts = {w.dst: w.text for w in lay(net).wires if w.src is None}
    assert texts[("timer", "PT")] == "T#3s"
    assert texts[("flag", "IN2")] == "TRUE"
    assert texts[("text", "IN")] == "'it$'s'"
    assert texts[("count", "IN")] == "42"


def test_crossings_between_layers_are_counted_at_the_ports():
    assert _inversions([(0, 1), (1, 0)]) == 1
    assert _inversions([(0, 0), (0, 1), (1, 0)]) == 1    # one port's wires never cross
    assert _inversions([(0, 0), (1, 1), (2, 2)]) == 0
    left = [Node("a", out_ports={"o": 0.0}), Node("b", out_ports={"o": 0.0})]
    right = [Node("c", in_ports={"x": 0.0, "y": 18.0})]
    edges = [Edge(left[0], "o", right[0], "y"), Edge(left[1], "o", right[0], "x")]
    assert count_crossings(left, right, edges) == 1
    right[0].in_ports = {"x": 18.0, "y": 0.0}
    assert count_crossings(left, right, edges) == 0


def test_measure_counts_a_crossing_and_the_shared_runs_once():
    net = Network("X")
    a = net.input("A", BOOL)
    b = net.input("B", BOOL)
    both = net.add("both", AND(), IN1=a, IN2=a)      # one net, two wires, one trunk
    other = net.add("other", NOT(), IN=b)
    net.output("P", both.OUT)
    net.output("Q", other.OUT)
    lv = lay(net)
    m = measure(lv)
    drawn = sum(abs(x1 - x0) + abs(y1 - y0) for w in lv.wires if w.points
                for (x0, y0), (x1, y1) in zip(w.points, w.points[1:]))
    assert m.length < drawn and m.crossings == 0 and m.connectors == 0


def test_the_report_prints_each_level_once(capsys):
    import io

    from fbd.debug.report import main, report
    net = Network("Outer")
    a = net.input("A", BOOL)
    inner = chain(2)
    first = net.add("first", inner, A=a)
    second = net.add("second", inner, A=first.Q)
    net.output("Q", second.Q)
    out = io.StringIO()
    rows = report(net, out)
    assert [r["level"] for r in rows] == ["(top)", "first."]        # one Chain, once
    assert rows[1]["crossings"] == 0 and "crossings" in out.getvalue()
    assert main(["no_such_module_xyz:build"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and err.count("\n") == 1


def test_the_outputs_box_lists_the_levels_outputs_in_declaration_order(game):
    net, order, signals = game
    for prefix, level in levels_of(net):
        lv = layout_level(level, prefix, order, signals)
        if OUTPUTS in lv.boxes:
            assert lv.boxes[OUTPUTS].inputs == list(level.outputs), prefix
