"""Hostile breakpoint conditions: refused in one short line, never evaluated as Python."""

import pytest

import blocks
from fbd import BOOL, Network, Plc
from fbd.debug import ConditionError, Debugger
from fbd.debug.condition import MAX_LENGTH


@pytest.fixture
def dbg():
    net = Network("n")
    x = net.input("X", BOOL, default=False)
    net.output("Y", net.add("inv", blocks.NOT(), IN=x).OUT)
    return Debugger(Plc(net))


@pytest.mark.parametrize("text, why", [
    ("X = T#" + "9" * 400 + "d", "too long"),         # a duration with hundreds of digits
    ("9" * 5000 + " > 1", "too long"),                # beyond Python's int conversion limit
    ("1e999 > 1", "out of range"),                    # an infinite REAL
    ("X" + " AND X" * 300, "256 words"),
    ("(" * 100 + "X" + ")" * 100, "nested"),
    ("X AND " * (MAX_LENGTH // 6 + 1) + "X", "too long"),
    ("__import__('os').system('true')", "unexpected"),
])
def test_a_hostile_condition_is_one_short_error(dbg, text, why):
    with pytest.raises(ConditionError, match=why) as e:
        dbg.add_breakpoint(text)
    assert len(str(e.value)) < 500 and "\n" not in str(e.value)
    assert dbg.breakpoints == []
