"""TON, TOF, TP, NOW and RTC on simulated time: which scan Q changes, and ET on each scan.

The default cycle is 5 ms and scan k runs at (k-1) * 5 ms, so an input set
before scan 1 is first seen at t = 0.
"""

from datetime import datetime, timedelta

import pytest

from blocks.timers import NOW, RTC, TOF, TON, TP
from fbd.block import registry
from fbd.testing import Harness
from tests.blocks.agreement import assert_agrees_with_interpreter
from tests.blocks.scenario import ENGINES, assert_rows, assert_st_rows


def ms(n: float) -> timedelta:
    return timedelta(milliseconds=n)


def trace(h: Harness, scans: int, inputs_at: dict | None = None) -> list[tuple]:
    """Run ``scans`` scans, applying ``inputs_at[k]`` before scan k (1-based,
    counted from now); return (Q, ET in ms) after each."""
    seen = []
    for k in range(1, scans + 1):
        if inputs_at and k in inputs_at:
            h.set(inputs_at[k])
        h.scan()
        seen.append((h.get("Q"), h.get("ET") / ms(1)))
    return seen


# ------------------------------------------------------------------------- TON
def test_ton_q_rises_on_scan_3_for_10ms_at_5ms_cycle_and_et_stops_at_pt():
    h = Harness.block(TON()).set(IN=True, PT="T#10ms")
    assert trace(h, 5) == [(False, 0), (False, 5), (True, 10), (True, 10), (True, 10)]


def test_ton_with_pt_not_a_multiple_of_the_cycle_fires_on_the_first_scan_after_pt():
    h = Harness.block(TON()).set(IN=True, PT="T#12ms")
    assert trace(h, 5) == [(False, 0), (False, 5), (False, 10), (True, 12), (True, 12)]


def test_ton_delay_counts_from_the_scan_that_sees_in_rise():
    h = Harness.block(TON()).set(PT="T#10ms")
    h.scan(4)                             # IN FALSE until t = 15 ms
    assert trace(h, 4, {1: {"IN": True}}) == [(False, 0), (False, 5), (True, 10), (True, 10)]


def test_ton_in_falling_resets_q_and_et_in_the_same_scan():
    h = Harness.block(TON()).set(IN=True, PT="T#10ms")
    h.scan(4)
    assert trace(h, 2, {1: {"IN": False}}) == [(False, 0), (False, 0)]


def test_ton_in_dropping_before_pt_restarts_the_delay_from_zero():
    h = Harness.block(TON()).set(IN=True, PT="T#10ms")
    seen = trace(h, 6, {2: {"IN": False}, 3: {"IN": True}})
    assert seen == [(False, 0), (False, 0), (False, 0), (False, 5), (True, 10), (True, 10)]


def test_ton_with_pt_zero_switches_on_one_scan_after_in_rises_as_matiec():
    # matiec (iec2c 6bb2c339df6f), 5 ms cycle, IN TRUE from scan 2, PT T#0s and T#5ms:
    #   scan  2: Q FALSE, FALSE (the rising edge only records the start)
    #   scan  3: Q TRUE,  TRUE
    h = Harness.block(TON()).set(IN=True)   # PT defaults to T#0s
    assert trace(h, 3) == [(False, 0), (True, 0), (True, 0)]
    h = Harness.block(TON()).set(IN=True, PT="T#5ms")
    assert trace(h, 3) == [(False, 0), (True, 5), (True, 5)]


def test_ton_with_negative_pt_switches_on_one_scan_after_in_rises_with_et_at_pt_as_matiec():
    # matiec (iec2c 6bb2c339df6f), PT T#-10ms, IN TRUE from scan 2: Q, ET =
    #   FALSE T#0ms; TRUE T#-10ms; TRUE T#-10ms (ET takes PT, negative or not)
    h = Harness.block(TON()).set(IN=True, PT="T#-10ms")
    assert trace(h, 3) == [(False, 0), (True, -10), (True, -10)]


def test_ton_pt_raised_while_timing_lengthens_the_delay():
    h = Harness.block(TON()).set(IN=True, PT="T#10ms")
    seen = trace(h, 5, {2: {"PT": "T#20ms"}})
    assert seen == [(False, 0), (False, 5), (False, 10), (False, 15), (True, 20)]


def test_ton_pt_lowered_below_elapsed_time_fires_on_that_scan_with_et_at_new_pt():
    h = Harness.block(TON()).set(IN=True, PT="T#50ms")
    seen = trace(h, 4, {3: {"PT": "T#7ms"}})
    assert seen == [(False, 0), (False, 5), (True, 7), (True, 7)]


def test_ton_pt_changed_after_q_rose_does_not_move_q_or_et():
    h = Harness.block(TON()).set(IN=True, PT="T#10ms")
    h.scan(3)
    assert trace(h, 2, {1: {"PT": "T#1s"}}) == [(True, 10), (True, 10)]


def test_ton_reads_the_simulated_clock_not_the_wall_clock():
    # One scan an hour: the three scans finish at once, so two hours of ET can only
    # come from the simulated clock.
    h = Harness.block(TON(), cycle=3600).set(IN=True, PT="T#2h")
    assert trace(h, 3) == [(False, 0), (False, 3_600_000), (True, 7_200_000)]


# ------------------------------------------------------------------------- TOF
def test_tof_q_is_false_until_in_has_been_true():
    h = Harness.block(TOF()).set(PT="T#10ms")
    assert trace(h, 2) == [(False, 0), (False, 0)]


def test_tof_q_follows_in_up_at_once_and_falls_pt_after_in_falls_with_et_held_at_pt():
    h = Harness.block(TOF()).set(IN=True, PT="T#10ms")
    seen = trace(h, 7, {3: {"IN": False}})
    assert seen == [(True, 0), (True, 0),               # IN TRUE: ET stays 0
                    (True, 0), (True, 5), (False, 10),  # delay from scan 3 (t = 10 ms)
                    (False, 10), (False, 10)]           # ET holds PT while IN stays FALSE


def test_tof_et_returns_to_zero_when_in_rises_again():
    h = Harness.block(TOF()).set(IN=True, PT="T#10ms")
    seen = trace(h, 6, {2: {"IN": False}, 6: {"IN": True}})
    assert seen[3:] == [(False, 10), (False, 10), (True, 0)]


def test_tof_in_rising_during_the_delay_cancels_it():
    h = Harness.block(TOF()).set(IN=True, PT="T#10ms")
    seen = trace(h, 6, {2: {"IN": False}, 3: {"IN": True}, 4: {"IN": False}})
    assert seen == [(True, 0), (True, 0), (True, 0), (True, 0), (True, 5), (False, 10)]


def test_tof_with_pt_not_a_multiple_of_the_cycle():
    h = Harness.block(TOF()).set(IN=True, PT="T#12ms")
    seen = trace(h, 6, {2: {"IN": False}})
    assert seen == [(True, 0), (True, 0), (True, 5), (True, 10), (False, 12), (False, 12)]


def test_tof_pt_raised_during_the_delay_lengthens_it():
    h = Harness.block(TOF()).set(IN=True, PT="T#10ms")
    seen = trace(h, 6, {2: {"IN": False}, 3: {"PT": "T#15ms"}})
    assert seen == [(True, 0), (True, 0), (True, 5), (True, 10), (False, 15), (False, 15)]


def test_tof_with_pt_zero_or_less_keeps_q_one_scan_after_in_falls_as_matiec():
    # matiec (iec2c 6bb2c339df6f), IN TRUE in scans 2-4, FALSE from scan 5: Q, ET =
    #   PT T#0s:    ... TRUE T#0ms (scan 5, the falling edge); FALSE T#0ms; FALSE T#0ms
    #   PT T#-10ms: ... TRUE T#0ms;                           FALSE T#-10ms; FALSE T#-10ms
    h = Harness.block(TOF()).set(IN=True)
    assert trace(h, 4, {2: {"IN": False}}) == [(True, 0), (True, 0), (False, 0), (False, 0)]
    h = Harness.block(TOF()).set(IN=True, PT="T#-10ms")
    assert trace(h, 4, {2: {"IN": False}}) == [(True, 0), (True, 0), (False, -10), (False, -10)]


# -------------------------------------------------------------------------- TP
def test_tp_gives_a_pulse_of_pt_and_et_holds_pt_while_in_stays_true():
    h = Harness.block(TP()).set(IN=True, PT="T#10ms")
    assert trace(h, 5) == [(True, 0), (True, 5), (False, 10), (False, 10), (False, 10)]


def test_tp_et_returns_to_zero_when_in_falls_after_the_pulse():
    h = Harness.block(TP()).set(IN=True, PT="T#10ms")
    h.scan(4)
    assert trace(h, 2, {1: {"IN": False}}) == [(False, 0), (False, 0)]


def test_tp_pulse_runs_on_when_in_falls_and_ends_with_et_zero():
    h = Harness.block(TP()).set(IN=True, PT="T#10ms")
    seen = trace(h, 4, {2: {"IN": False}})
    assert seen == [(True, 0), (True, 5), (False, 0), (False, 0)]


def test_tp_ignores_retrigger_while_running():
    h = Harness.block(TP()).set(IN=True, PT="T#20ms")
    # IN falls and rises again during the pulse, then stays TRUE past its end.
    seen = trace(h, 7, {2: {"IN": False}, 3: {"IN": True}})
    assert [q for q, _et in seen] == [True, True, True, True, False, False, False]
    assert [et for _q, et in seen] == [0, 5, 10, 15, 20, 20, 20]


def test_tp_needs_a_new_rising_edge_after_the_pulse():
    h = Harness.block(TP()).set(IN=True, PT="T#10ms")
    seen = trace(h, 8, {5: {"IN": False}, 6: {"IN": True}})
    assert seen == [(True, 0), (True, 5), (False, 10), (False, 10),
                    (False, 0),                          # IN FALSE: ready again
                    (True, 0), (True, 5), (False, 10)]   # the second pulse


def test_tp_with_pt_not_a_multiple_of_the_cycle():
    h = Harness.block(TP()).set(IN=True, PT="T#12ms")
    assert trace(h, 5) == [(True, 0), (True, 5), (True, 10), (False, 12), (False, 12)]


def test_tp_pt_changed_while_running_takes_effect_at_once():
    h = Harness.block(TP()).set(IN=True, PT="T#10ms")
    longer = trace(h, 4, {2: {"PT": "T#15ms"}})
    assert longer == [(True, 0), (True, 5), (True, 10), (False, 15)]
    h = Harness.block(TP()).set(IN=True, PT="T#50ms")
    shorter = trace(h, 3, {3: {"PT": "T#5ms"}})
    assert shorter == [(True, 0), (True, 5), (False, 5)]


def test_tp_with_pt_zero_or_less_gives_a_pulse_of_one_scan_as_matiec():
    # matiec (iec2c 6bb2c339df6f), IN TRUE in scans 2-4, FALSE from scan 5: Q, ET =
    #   PT T#0s:    TRUE T#0ms (scan 2); FALSE T#0ms;   FALSE T#0ms;   FALSE T#0ms
    #   PT T#-10ms: TRUE T#0ms;          FALSE T#-10ms; FALSE T#-10ms; FALSE T#0ms
    h = Harness.block(TP()).set(IN=True)
    assert trace(h, 4, {4: {"IN": False}}) == [(True, 0), (False, 0), (False, 0), (False, 0)]
    h = Harness.block(TP()).set(IN=True, PT="T#-10ms")
    assert trace(h, 4, {4: {"IN": False}}) == [(True, 0), (False, -10), (False, -10), (False, 0)]


# ------------------------------------------------------------------------- NOW
def test_now_advances_by_the_cycle_on_every_scan():
    h = Harness.block(NOW())
    seen = []
    for _ in range(4):
        h.scan()
        seen.append((h.get("OUT"), h.get("SEC")))
    assert seen == [(ms(0), 0.0), (ms(5), 0.005), (ms(10), 0.01), (ms(15), 0.015)]


def test_now_follows_another_cycle_time():
    h = Harness.block(NOW(), cycle="T#20ms")
    h.scan(51)
    assert h.get("OUT") == timedelta(seconds=1)
    assert h.get("SEC") == 1.0


def test_now_includes_the_plc_clock_start_offset():
    h = Harness.block(NOW(), clock_start=10.0)
    h.scan(2)
    assert h.get("OUT") == timedelta(seconds=10, milliseconds=5)
    assert h.get("SEC") == pytest.approx(10.005)


# ------------------------------------------------------------------------- RTC
RTC_SETS = {1: {"PDT": "DT#2024-02-29-23:59:59.99"}, 3: {"IN": True},
            5: {"PDT": "DT#2000-01-01-00:00:00"}, 7: {"IN": False}, 9: {"IN": True}}
# matiec (iec2c 6bb2c339df6f): oracle.py rtc.st --cycle 5ms --scans 10
#   --set pdt=DT#2024-02-29-23:59:59.99 --set in=TRUE@3 --set pdt=DT#2000-01-01-00:00:00@5
#   --set in=FALSE@7 --set in=TRUE@9 --watch in --watch clock.Q --watch clock.CDT
#   --watch clock.OFFSET
# The clock (1970-01-01 plus the scans' time) until IN rises; then PDT, running on over
# the leap day; a PDT changed while IN stays TRUE is not read; IN FALSE gives the clock
# back, and the next rising edge takes the new PDT.
RTC_ROWS = """
scan,t_ms,in,clock.Q,clock.CDT,clock.OFFSET
1,0,FALSE,FALSE,DT#1970-01-01-00:00:00,T#0ms
2,5,FALSE,FALSE,DT#1970-01-01-00:00:00.005,T#0ms
3,10,TRUE,TRUE,DT#2024-02-29-23:59:59.99,T#1709251199980ms
4,15,TRUE,TRUE,DT#2024-02-29-23:59:59.995,T#1709251199980ms
5,20,TRUE,TRUE,DT#2024-03-01-00:00:00,T#1709251199980ms
6,25,TRUE,TRUE,DT#2024-03-01-00:00:00.005,T#1709251199980ms
7,30,FALSE,FALSE,DT#1970-01-01-00:00:00.03,T#1709251199980ms
8,35,FALSE,FALSE,DT#1970-01-01-00:00:00.035,T#1709251199980ms
9,40,TRUE,TRUE,DT#2000-01-01-00:00:00,T#946684799960ms
10,45,TRUE,TRUE,DT#2000-01-01-00:00:00.005,T#946684799960ms
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_rtc_sets_the_date_on_ins_rising_edge_and_runs_on_as_matiec_on_every_engine(engine):
    assert_rows(RTC(), ["IN", "Q", "CDT", "blk.OFFSET"], RTC_SETS, RTC_ROWS, engine)


def test_rtc_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("RTC", "clock", {"IN": "BOOL", "PDT": "DT"}, RTC_SETS, RTC_ROWS)


def test_rtc_reads_the_clock_a_plc_started_at_a_wall_clock_time_has():
    h = Harness.block(RTC(), clock_start=1_700_000_000.0)     # 2023-11-14 22:13:20 UTC
    h.scan(3)
    assert h.get("CDT") == datetime(2023, 11, 14, 22, 13, 20, 10_000)


# ----------------------------------------------------------------- declarations
@pytest.mark.parametrize("name", ["TON", "TOF", "TP", "NOW", "RTC"])
def test_timers_are_registered_with_a_summary(name):
    cls = registry()[name]
    assert cls.family == "timers"
    assert cls.summary() and "Ports::" in cls.__doc__
    assert cls.stateful is (name != "NOW")


@pytest.mark.parametrize("block", [TON(), TOF(), TP(), NOW(), RTC()], ids=repr)
def test_timers_agree_with_the_interpreter(block):
    assert_agrees_with_interpreter(block)


# ------------------------------------------------- PT changing, in ST and in FBD
PT_CHANGES = """
PROGRAM main
VAR x : BOOL; y : BOOL; pt1 : TIME := T#20ms; p : TP; n : TON; f : TOF; END_VAR
  p(IN := x, PT := pt1);
  n(IN := x, PT := pt1);
  f(IN := y, PT := pt1);
END_PROGRAM
"""
PT_SETS = {2: {"x": True, "y": True}, 3: {"y": False}, 4: {"pt1": "T#30ms"}, 7: {"pt1": "T#5ms"},
           9: {"pt1": "T#40ms"}, 10: {"x": False}, 12: {"pt1": "T#-5ms"},
           13: {"x": True, "y": True}, 14: {"y": False}}
# matiec (iec2c 6bb2c339df6f): oracle.py --cycle 5ms --scans 16 with the sets above
PT_CHANGES_ROWS = """
scan,t_ms,p.Q,p.ET,n.Q,n.ET,f.Q,f.ET
1,0,FALSE,T#0ms,FALSE,T#0ms,FALSE,T#0ms
2,5,TRUE,T#0ms,FALSE,T#0ms,TRUE,T#0ms
3,10,TRUE,T#5ms,FALSE,T#5ms,TRUE,T#0ms
4,15,TRUE,T#10ms,FALSE,T#10ms,TRUE,T#5ms
5,20,TRUE,T#15ms,FALSE,T#15ms,TRUE,T#10ms
6,25,TRUE,T#20ms,FALSE,T#20ms,TRUE,T#15ms
7,30,FALSE,T#5ms,TRUE,T#5ms,FALSE,T#5ms
8,35,FALSE,T#5ms,TRUE,T#5ms,FALSE,T#5ms
9,40,FALSE,T#5ms,TRUE,T#5ms,FALSE,T#5ms
10,45,FALSE,T#0ms,FALSE,T#0ms,FALSE,T#5ms
11,50,FALSE,T#0ms,FALSE,T#0ms,FALSE,T#5ms
12,55,FALSE,T#0ms,FALSE,T#0ms,FALSE,T#5ms
13,60,TRUE,T#0ms,FALSE,T#0ms,TRUE,T#0ms
14,65,FALSE,T#-5ms,TRUE,T#-5ms,TRUE,T#0ms
15,70,FALSE,T#-5ms,TRUE,T#-5ms,FALSE,T#-5ms
16,75,FALSE,T#-5ms,TRUE,T#-5ms,FALSE,T#-5ms
"""


def test_timers_called_from_st_follow_pt_changes_and_pt_below_zero_as_matiec():
    from tests.fbd.st import scans
    columns = "p.Q p.ET n.Q n.ET f.Q f.ET".split()
    assert scans.rows(PT_CHANGES, columns, 16, PT_SETS) == scans.expected(PT_CHANGES_ROWS)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_timers_in_a_network_give_the_same_rows_as_st_and_matiec(engine):
    from fbd import BOOL, TIME, Network
    from tests.fbd.st import scans
    net = Network("timers")
    x, y, pt = net.input("x", BOOL), net.input("y", BOOL), net.input("pt1", TIME, "T#20ms")
    net.add("p", TP(), IN=x, PT=pt)
    net.add("n", TON(), IN=x, PT=pt)
    net.add("f", TOF(), IN=y, PT=pt)
    h = Harness(net, engine=engine)
    rows = []
    for k in range(1, 17):
        h.set(PT_SETS.get(k, {}))
        h.scan()
        rows.append(",".join([str(k), str((k - 1) * 5)] + [
            scans.text(h.get(path)) for path in "p.Q p.ET n.Q n.ET f.Q f.ET".split()]))
    assert "\n".join(rows) == scans.expected(PT_CHANGES_ROWS)
