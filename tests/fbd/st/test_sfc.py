"""Textual SFC: steps with action associations, transitions, actions in any language."""

import pytest

from fbd.st import StSyntaxError, dump, parse
from fbd.st import ast as A

CHART = """
PROGRAM Chart
  VAR x, y, ind : BOOL; t : TIME := T#1s; END_VAR
  INITIAL_STEP Start:
    Init(N);
    Blink(D, T#2s);
    Lamp(L, t, ind);
    Plain();
  END_STEP
  TRANSITION go (PRIORITY := 2) FROM Start TO (Left, Right)
    := x AND NOT y;
  END_TRANSITION
  STEP Left: Init(P1); END_STEP
  STEP Right: Blink(SD, T#500ms); END_STEP
  TRANSITION FROM (Left, Right) TO Start :
    LD Left.X
    AND y
  END_TRANSITION
  ACTION Init: y := FALSE; END_ACTION
  ACTION Blink:
    LD x
    STN x
  END_ACTION
  ACTION Lamp: ind := Start.T > T#1s; END_ACTION
  ACTION Plain: x := TRUE; END_ACTION
END_PROGRAM
"""


def chart():
    (pou,) = parse(CHART, "chart.st").pous
    assert pou.language == "SFC"
    return pou.body


def test_steps_and_their_action_associations():
    body = chart()
    assert [(s.name, s.initial) for s in body.steps] == [("Start", True), ("Left", False), ("Right", False)]
    start = body.steps[0]
    assert [(a.action, a.qualifier, dump(a.time) if a.time else None, dump(a.indicators))
            for a in start.actions] == [
        ("Init", "N", None, "[]"), ("Blink", "D", "2000000000ns", "[]"), ("Lamp", "L", "t", "[ind]"),
        ("Plain", None, None, "[]")]
    assert body.steps[1].actions[0].qualifier == "P1"


def test_transitions_with_names_priorities_divergences_and_il_conditions():
    go, back = chart().transitions
    assert (go.name, go.priority, go.sources, go.targets) == ("go", 2, ("Start",), ("Left", "Right"))
    assert dump(go.condition) == "(AND x (NOT y))"
    assert (back.name, back.priority) == (None, None)
    assert (back.sources, back.targets) == (("Left", "Right"), ("Start",))
    assert isinstance(back.condition, A.IlBody)
    assert dump(back.condition.instructions) == "[(IlOp LD [(. Left X)]) (IlOp AND [y])]"


def test_actions_in_st_and_il():
    actions = {a.name: a for a in chart().actions}
    assert list(actions) == ["Init", "Blink", "Lamp", "Plain"]
    assert isinstance(actions["Init"].body, A.StBody)
    # matiec wants IL after "ACTION name:" on the same line; a new line is accepted here
    assert isinstance(actions["Blink"].body, A.IlBody)
    assert dump(actions["Lamp"].body) == "(StBody [(Assign ind (> (. Start T) 1000000000ns))])"


def test_every_qualifier():
    steps = "".join(f"STEP s{i}: a({q}); END_STEP\n" for i, q in enumerate(["N", "R", "S", "P", "P0", "P1"]))
    timed = "".join(f"STEP t{i}: a({q}, T#1s); END_STEP\n"
                    for i, q in enumerate(["L", "D", "SD", "DS", "SL"]))
    (pou,) = parse(f"PROGRAM p VAR x : BOOL; END_VAR INITIAL_STEP i: END_STEP {steps}{timed}"
                   "ACTION a: x := TRUE; END_ACTION END_PROGRAM").pous
    assert [s.actions[0].qualifier for s in pou.body.steps[1:]] == [
        "N", "R", "S", "P", "P0", "P1", "L", "D", "SD", "DS", "SL"]


def test_qualifier_letters_name_variables_outside_associations():
    (pou,) = parse("PROGRAM p VAR n, d, l : BOOL; END_VAR INITIAL_STEP i: a(N); END_STEP "
                   "TRANSITION FROM i TO i := n AND d; END_TRANSITION ACTION a: l := NOT l; END_ACTION "
                   "END_PROGRAM").pous
    assert dump(pou.body.transitions[0].condition) == "(AND n d)"


def test_a_timed_qualifier_needs_its_time():
    with pytest.raises(StSyntaxError):
        parse("PROGRAM p VAR x : BOOL; END_VAR INITIAL_STEP i: a(D); END_STEP END_PROGRAM")


def test_an_action_may_itself_be_a_chart():
    (pou,) = parse("""PROGRAM p VAR x : BOOL; END_VAR
      INITIAL_STEP s: inner(N); END_STEP
      ACTION inner:
        INITIAL_STEP q0: END_STEP
        TRANSITION FROM q0 TO q1 := x; END_TRANSITION
        STEP q1: END_STEP
        TRANSITION FROM q1 TO q0 := NOT x; END_TRANSITION
      END_ACTION
    END_PROGRAM""").pous
    (inner,) = pou.body.actions
    assert isinstance(inner.body, A.SfcBody) and [s.name for s in inner.body.steps] == ["q0", "q1"]


def test_a_chart_may_start_with_any_step():
    # matiec loops forever on a chart whose first element is not INITIAL_STEP
    (pou,) = parse("PROGRAM p VAR x : BOOL; END_VAR STEP s1: END_STEP INITIAL_STEP s0: END_STEP "
                   "TRANSITION FROM s0 TO s1 := x; END_TRANSITION TRANSITION FROM s1 TO s0 := NOT x; "
                   "END_TRANSITION END_PROGRAM").pous
    assert [s.name for s in pou.body.steps] == ["s1", "s0"]
