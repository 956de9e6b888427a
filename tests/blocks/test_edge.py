"""R_TRIG and F_TRIG: one-scan pulses, and the first scan in IEC ed. 2 and CODESYS."""

import pytest

from blocks.edge import F_TRIG, R_TRIG
from fbd.block import registry
from fbd.errors import WiringError
from fbd.testing import Harness
from tests.blocks.agreement import assert_agrees_with_interpreter


def q_trace(h: Harness, clks: list[bool]) -> list[bool]:
    """Q after each scan, with CLK set to each value in turn."""
    seen = []
    for clk in clks:
        h.set(CLK=clk).scan()
        seen.append(h.get("Q"))
    return seen


def test_r_trig_pulses_for_exactly_one_scan_per_rising_edge():
    h = Harness.block(R_TRIG())
    clks = [False, True, True, True, False, False, True, False]
    assert q_trace(h, clks) == [False, True, False, False, False, False, True, False]


def test_r_trig_fires_on_the_first_scan_when_clk_is_already_true():
    h = Harness.block(R_TRIG())
    assert q_trace(h, [True, True]) == [True, False]


def test_f_trig_pulses_for_exactly_one_scan_per_falling_edge():
    for f_trig in (F_TRIG(first_scan_pulse=True), F_TRIG(first_scan_pulse=False)):
        h = Harness.block(f_trig)
        clks = [True, True, False, False, True, False]
        assert q_trace(h, clks) == [False, False, True, False, False, True]


def test_f_trig_iec_edition_2_default_fires_on_the_first_scan_when_clk_is_false():
    h = Harness.block(F_TRIG())
    assert q_trace(h, [False, False, True, False]) == [True, False, False, True]


def test_f_trig_codesys_mode_does_not_fire_until_clk_has_been_true():
    h = Harness.block(F_TRIG(first_scan_pulse=False))
    assert q_trace(h, [False, False, True, False]) == [False, False, False, True]


def test_f_trig_first_scan_pulse_comes_back_after_a_cold_restart():
    h = Harness.block(F_TRIG())
    q_trace(h, [False, False])
    h.plc.restart()
    assert q_trace(h, [False]) == [True]


def test_f_trig_rejects_a_non_boolean_first_scan_pulse():
    with pytest.raises(WiringError, match="first_scan_pulse"):
        F_TRIG(first_scan_pulse=1)


@pytest.mark.parametrize("name", ["R_TRIG", "F_TRIG"])
def test_edges_are_registered_function_blocks_with_a_summary(name):
    cls = registry()[name]
    assert cls.family == "edge" and cls.stateful
    assert cls.summary() and "Ports::" in cls.__doc__


@pytest.mark.parametrize("block", [R_TRIG(), F_TRIG(), F_TRIG(first_scan_pulse=False)], ids=repr)
def test_edges_agree_with_the_interpreter(block):
    assert_agrees_with_interpreter(block)
