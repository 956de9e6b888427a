"""CTU, CTD, CTUD: counting on rising edges, R/LD priority, CV bounded by PV and 0 as in
matiec's library (IEC leaves PVmax and PVmin to the implementation)."""

import pytest

from blocks.counters import CTD, CTU, CTUD
from fbd.block import registry
from fbd.testing import Harness
from tests.blocks.agreement import assert_agrees_with_interpreter


def pulse(h: Harness, port: str, times: int = 1) -> None:
    """``times`` rising edges of ``port``, each TRUE for one scan then FALSE for one."""
    for _ in range(times):
        h.set({port: True}).scan()
        h.set({port: False}).scan()


# ------------------------------------------------------------------------- CTU
def test_ctu_counts_rising_edges_not_scans_while_cu_is_held():
    h = Harness.block(CTU()).set(PV=10)
    h.set(CU=True).scan(5)
    h.expect(CV=1, Q=False)
    h.set(CU=False).scan(2)
    h.set(CU=True).scan()
    h.expect(CV=2)


def test_ctu_counts_cu_already_true_on_the_first_scan():
    h = Harness.block(CTU()).set(CU=True, PV=1)
    h.scan()
    h.expect(CV=1, Q=True)


def test_ctu_q_is_true_once_cv_reaches_pv():
    h = Harness.block(CTU()).set(PV=3)
    pulse(h, "CU", 2)
    h.expect(CV=2, Q=False)
    pulse(h, "CU")
    h.expect(CV=3, Q=True)
    pulse(h, "CU", 2)
    h.expect(CV=3, Q=True)     # matiec: CV < PV to count, so CV stops at PV


def test_ctu_with_pv_zero_has_q_true_from_the_first_scan():
    h = Harness.block(CTU())
    h.scan()
    h.expect(CV=0, Q=True)


def test_ctu_reset_has_priority_over_a_cu_edge_in_the_same_scan():
    h = Harness.block(CTU()).set(PV=5)
    pulse(h, "CU", 3)
    h.set(R=True, CU=True).scan()
    h.expect(CV=0, Q=False)


def test_ctu_cu_held_through_a_reset_does_not_count_when_reset_is_released():
    h = Harness.block(CTU()).set(PV=5)
    h.set(CU=True, R=True).scan(2)
    h.set(R=False).scan(2)
    h.expect(CV=0)


def test_ctu_cv_stops_at_32767_and_does_not_wrap():
    h = Harness.block(CTU()).set(PV=32767)
    h.write("blk.CV", 32765)
    pulse(h, "CU", 2)
    h.expect(CV=32767, Q=True)
    pulse(h, "CU", 3)
    h.expect(CV=32767, Q=True)


# ------------------------------------------------------------------------- CTD
def test_ctd_starts_at_zero_with_q_true():
    h = Harness.block(CTD())
    h.scan()
    h.expect(CV=0, Q=True)


def test_ctd_loads_pv_and_counts_down_to_q():
    h = Harness.block(CTD()).set(PV=2, LD=True)
    h.scan()
    h.expect(CV=2, Q=False)
    h.set(LD=False)
    pulse(h, "CD")
    h.expect(CV=1, Q=False)
    pulse(h, "CD")
    h.expect(CV=0, Q=True)
    pulse(h, "CD")
    h.expect(CV=0, Q=True)     # matiec: CV > 0 to count down, so CV stops at 0


def test_ctd_counts_rising_edges_not_scans_while_cd_is_held():
    h = Harness.block(CTD()).set(PV=5, LD=True)
    h.scan()
    h.set(LD=False, CD=True).scan(4)
    h.expect(CV=4)


def test_ctd_load_has_priority_over_a_cd_edge_in_the_same_scan():
    h = Harness.block(CTD()).set(PV=7)
    h.set(LD=True, CD=True).scan()
    h.expect(CV=7)
    h.set(LD=False).scan()
    h.expect(CV=7)   # CD was held through the load: no new edge


def test_ctd_never_counts_below_zero_even_from_a_cv_written_below_it():
    h = Harness.block(CTD()).set(PV=1, LD=True)
    h.scan()
    h.set(LD=False)
    pulse(h, "CD", 3)
    h.expect(CV=0, Q=True)
    h.write("blk.CV", -32768)
    pulse(h, "CD", 2)
    h.expect(CV=-32768, Q=True)    # no wrap: a CV outside the bounds stays until LD


# ------------------------------------------------------------------------ CTUD
def test_ctud_counts_up_and_down_with_qu_and_qd():
    h = Harness.block(CTUD()).set(PV=2)
    h.scan()
    h.expect(CV=0, QU=False, QD=True)
    pulse(h, "CU", 2)
    h.expect(CV=2, QU=True, QD=False)
    pulse(h, "CD")
    h.expect(CV=1, QU=False, QD=False)
    pulse(h, "CD", 2)
    h.expect(CV=0, QU=False, QD=True)


def test_ctud_edges_of_cu_and_cd_in_the_same_scan_cancel():
    h = Harness.block(CTUD()).set(PV=10)
    pulse(h, "CU", 3)
    h.set(CU=True, CD=True).scan()
    h.expect(CV=3)


def test_ctud_reset_beats_load_beats_counting():
    h = Harness.block(CTUD()).set(PV=9)
    pulse(h, "CU", 2)
    h.set(R=True, LD=True, CU=True).scan()
    h.expect(CV=0, QD=True)
    h.set(R=False, CU=False).scan()
    h.expect(CV=9, QU=True)
    h.set(CD=True).scan()            # LD still TRUE: the CD edge is lost
    h.expect(CV=9)


def test_ctud_counts_up_to_pv_and_down_to_zero_as_matiec_does():
    # matiec (scan by scan, PV = 2): CU edges give 1, 2, 2; then CD edges 1, 0, 0
    h = Harness.block(CTUD()).set(PV=2)
    pulse(h, "CU", 3)
    h.expect(CV=2, QU=True, QD=False)
    pulse(h, "CD", 3)
    h.expect(CV=0, QU=False, QD=True)
    h.set(PV=32767).write("blk.CV", 32767)
    pulse(h, "CU")
    h.expect(CV=32767, QU=True)     # no wrap at INT's limit either


def test_ctud_counts_again_from_the_limit():
    h = Harness.block(CTUD())
    h.write("blk.CV", 32767)
    pulse(h, "CU")
    pulse(h, "CD")
    h.expect(CV=32766)


# ----------------------------------------------------------------- declarations
@pytest.mark.parametrize("name", ["CTU", "CTD", "CTUD"])
def test_counters_are_registered_function_blocks_with_a_summary(name):
    cls = registry()[name]
    assert cls.family == "counters" and cls.stateful
    assert cls.summary() and "Ports::" in cls.__doc__


@pytest.mark.parametrize("block", [CTU(), CTD(), CTUD()], ids=repr)
def test_counters_agree_with_the_interpreter(block):
    assert_agrees_with_interpreter(block)
