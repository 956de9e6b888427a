"""FBD semantics as Beremiz generates them and matiec runs them: what a variable
holds, EN/ENO, the order of in-out variables, overloads, initial values.

Each expected scan was checked against matiec running the ST that Beremiz's own
generator makes of the same file (FB instances are declared, as the editors
declare them)."""

from __future__ import annotations

import datetime as dt

import pytest

from fbd.plcopen import load_project
from fbd.testing import Harness
from tests.fbd.plcopen import files as f


def test_a_variable_reads_what_was_last_written_to_it_at_the_end_of_the_scan():
    """svghmi_xy: ``counter := SEL(GE(counter + 1, 360), counter + 1, 0)`` through an
    in-out variable. After scan 1 counter is 1 (it was written in scan 1), and the
    cosine and sine use this scan's angle. matiec: counter 1, 2, 3; trendval0 =
    COS((counter) / 57.2958) in REAL."""
    net = load_project(f.example("beremiz_svghmi_xy_counter_sincos")).network("program0")
    h = Harness(net)
    for n, cos in [(1, 0.9998477101325989), (2, 0.9993908405303955), (3, 0.9986295104026794)]:
        h.scan()
        assert h.get("counter") == n
        assert h.get("trendval0") == pytest.approx(cos, rel=1e-6)
    for _ in range(360 - 3):
        h.scan()
    assert h.get("counter") == 0           # 360 wraps to 0 in the same scan


MOVES = f.pou("Main", f.group("inputVars", f.var("A", "BOOL"), f.var("B", "BOOL"))
              + f.group("outputVars", f.var("X", "INT"), f.var("Y", "INT")),
              f.inv(1, "A") + f.inv(2, "B") + f.inv(3, "10") + f.inv(4, "20")
              + f.block(5, "MOVE", {"EN": (1, None), "IN": (3, None)}, ["ENO", "OUT"])
              + f.outv(6, "X", 5, pin="OUT")
              + f.block(7, "MOVE", {"EN": (2, None), "IN": (4, None)}, ["ENO", "OUT"], y=50)
              + f.outv(8, "X", 7, pin="OUT", y=50)
              + f.block(9, "ADD", {"IN1": (5, "OUT"), "IN2": (4, None)}, ["OUT"], y=100)
              + f.outv(10, "Y", 9, pin="OUT", y=100))


def test_two_moves_with_en_write_a_variable_only_while_enabled(tmp_path):
    """The common pattern: X := 10 when A, X := 20 when B, each ``IF ENO THEN``; X keeps
    its value while neither is enabled. A disabled MOVE (a function) hands its type's
    initial value to the ADD it feeds: Y = 0 + 20 while A is FALSE."""
    h = Harness(f.net(tmp_path, MOVES))
    h.run([({}, {"X": 0, "Y": 20}),
           ({"A": True}, {"X": 10, "Y": 30}),
           ({"A": False}, {"X": 10, "Y": 20}),
           ({"B": True}, {"X": 20}),
           ({"A": True}, {"X": 20, "Y": 30}),     # both: the second write comes last
           ({"A": False, "B": False}, {"X": 20, "Y": 20})])


def _summe(tmp_path):
    """The shape of OpenPLC sample Well_pak_steu's ``Summe`` (from the C matiec generated
    for it): SSR := GE(Summe, 100) reads Summe before either write; on the falling
    edge of a TP pulse Summe := Summe + POWER (IF ENO), then Summe := Summe - 100 only
    when the first read said >= 100 (IF ENO), reading the sum just written."""
    iface = (f.group("inputVars", f.var("START", "BOOL"), f.var("POWER", "INT"))
             + f.group("outputVars", f.var("SSR", "BOOL"))
             + f.group("localVars", f.var("Summe", "INT"), f.var("K_100", "INT", "100"),
                       f.var("K_T", "TIME", "T#60ms"), f.var("TP0", "@TP"),
                       f.var("RS0", "@RS"), f.var("F_TRIG0", "@F_TRIG"),
                       f.var("F_TRIG1", "@F_TRIG")))
    body = (f.inv(1, "Summe") + f.inv(2, "K_100")
            + f.block(3, "GE", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
            + f.outv(4, "SSR", 3, pin="OUT")
            + f.block(5, "F_TRIG", {"CLK": (8, "Q")}, ["Q"], inst="F_TRIG0", y=40)
            + f.inv(6, "START", y=60)
            + f.block(7, "RS", {"S": (6, None), "R1": (5, "Q")}, ["Q1"], inst="RS0", y=60)
            + f.block(8, "TP", {"IN": (7, "Q1"), "PT": (9, None)}, ["Q", "ET"], inst="TP0",
                      y=80)
            + f.inv(9, "K_T", y=100)
            + f.block(10, "F_TRIG", {"CLK": (8, "Q")}, ["Q"], inst="F_TRIG1", y=120)
            + f.inv(11, "Summe", y=140) + f.inv(12, "POWER", y=160)
            + f.block(13, "ADD", {"EN": (10, "Q"), "IN1": (11, None), "IN2": (12, None)},
                      ["ENO", "OUT"], y=140)
            + f.outv(14, "Summe", 13, pin="OUT", y=140)
            + f.block(15, "AND", {"IN1": (3, "OUT"), "IN2": (10, "Q")}, ["OUT"], y=180)
            + f.inv(16, "Summe", y=200)
            + f.block(17, "SUB", {"EN": (15, "OUT"), "IN1": (16, None), "IN2": (2, None)},
                      ["ENO", "OUT"], y=180)
            + f.outv(18, "Summe", 17, pin="OUT", y=180))
    return f.net(tmp_path, f.pou("Main", iface, body))


def test_a_read_before_the_writes_of_a_variable_sees_its_old_value(tmp_path):
    """Scans from matiec (20 ms cycle, POWER = 60, START pulses on scans 1, 9 and 17).
    F_TRIG fires on the first scan (matiec's), so scan 1 adds 60; each pulse's end
    adds 60 more; on scan 20 the first read saw 120 >= 100, so the SUB runs too
    (120 + 60 - 100 = 80) while SSR still shows that first read."""
    h = Harness(_summe(tmp_path), cycle=0.02)
    h.set(POWER=60)
    seen = []
    for k in range(1, 25):
        h.set(START=k in (1, 9, 17))
        h.scan()
        seen.append((h.get("Summe"), h.get("SSR")))
    assert seen == [(60, False)] * 11 + [(120, False)] + [(120, True)] * 7 + [(80, True)] \
        + [(80, False)] * 4


def test_an_in_out_variable_is_read_when_its_reader_runs_not_pulled(tmp_path):
    """An inOutVariable's output reads the variable: a block computed before the
    inOutVariable's own assignment (pulled by an output listed earlier) sees the
    previous scan's value; one after it sees this scan's."""
    prog = f.pou("Main", f.group("inputVars", f.var("IN", "INT"))
                 + f.group("outputVars", f.var("EARLY", "INT"), f.var("LATE", "INT"))
                 + f.group("localVars", f.var("V", "INT")),
                 f.inv(1, "IN") + f.inoutv(2, "V", 1)
                 + f.inv(3, "0") + f.block(4, "ADD", {"IN1": (2, None), "IN2": (3, None)},
                                           ["OUT"])
                 + f.outv(5, "EARLY", 4, pin="OUT")
                 + f.block(6, "ADD", {"IN1": (2, None), "IN2": (3, None)}, ["OUT"], y=50)
                 + f.outv(7, "LATE", 6, pin="OUT", y=50))
    h = Harness(f.net(tmp_path, prog))
    # V := IN comes first in the file, so both readers see this scan's V
    h.run([({"IN": 5}, {"V": 5, "EARLY": 5, "LATE": 5}), ({"IN": 7}, {"EARLY": 7, "LATE": 7})])


# -- overloads -----------------------------------------------------------------------
OVER = f.pou("Main", f.group("inputVars", f.var("T1", "TIME"), f.var("N", "INT"),
                             f.var("TD", "TOD"), f.var("D1", "DT"), f.var("D2", "DT"))
             + f.group("outputVars", f.var("HALF", "TIME"), f.var("MORE", "TIME"),
                       f.var("LATER", "TOD"), f.var("SPAN", "TIME"), f.var("BACK", "DT")),
             f.inv(1, "T1") + f.inv(2, "N") + f.inv(3, "1.5") + f.inv(4, "T#2h")
             + f.inv(5, "TD") + f.inv(6, "D1") + f.inv(7, "D2")
             + f.block(10, "DIV", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
             + f.outv(11, "HALF", 10, pin="OUT")
             + f.block(12, "MUL", {"IN1": (1, None), "IN2": (3, None)}, ["OUT"], y=40)
             + f.outv(13, "MORE", 12, pin="OUT", y=40)
             + f.block(14, "ADD", {"IN1": (5, None), "IN2": (4, None)}, ["OUT"], y=80)
             + f.outv(15, "LATER", 14, pin="OUT", y=80)
             + f.block(16, "SUB", {"IN1": (6, None), "IN2": (7, None)}, ["OUT"], y=120)
             + f.outv(17, "SPAN", 16, pin="OUT", y=120)
             + f.block(18, "SUB", {"IN1": (6, None), "IN2": (4, None)}, ["OUT"], y=160)
             + f.outv(19, "BACK", 18, pin="OUT", y=160))


def test_add_sub_mul_div_take_the_overload_their_inputs_types_say(tmp_path):
    """DIV(TIME, INT), MUL(TIME, REAL), ADD(TOD, TIME) past midnight (read as its clock), SUB(DT, DT) and
    SUB(DT, TIME), as matiec resolves them."""
    net = f.net(tmp_path, OVER)
    kinds = {i.name: i.element.name for i in net.instances.values() if i.name[:3] in
             ("DIV", "MUL", "ADD", "SUB")}
    assert kinds == {"DIV_10": "DIV_TIME", "MUL_12": "MUL_TIME", "ADD_14": "ADD_TOD_TIME",
                     "SUB_16": "SUB_DT_DT", "SUB_18": "SUB_DT_TIME"}
    h = Harness(net)
    h.set(T1="T#3s", N=2, TD="TOD#23:00:00", D1="DT#2024-02-01-00:30:15.5",
          D2="DT#2024-01-31-12:30:15.5").scan()
    h.expect(HALF=dt.timedelta(seconds=1.5), MORE=dt.timedelta(seconds=4.5),
             LATER=dt.time(1, 0), SPAN=dt.timedelta(hours=12),
             BACK=dt.datetime(2024, 1, 31, 22, 30, 15, 500000))


def test_an_overload_fed_by_another_takes_the_type_that_one_gives(tmp_path):
    """(D1 - D2) - T#1h: the first SUB of two DTs is a TIME, so the second is a SUB of
    TIMEs, not SUB_DT_TIME (Beremiz's TEMPO_TEST measures a duration so)."""
    prog = f.pou("Main", f.group("inputVars", f.var("D1", "DT"), f.var("D2", "DT"))
                 + f.group("outputVars", f.var("LESS", "TIME")),
                 f.inv(1, "D1") + f.inv(2, "D2") + f.inv(3, "T#1h")
                 + f.block(4, "SUB", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                 + f.block(5, "SUB", {"IN1": (4, "OUT"), "IN2": (3, None)}, ["OUT"], x=300)
                 + f.outv(6, "LESS", 5, pin="OUT"))
    net = f.net(tmp_path, prog)
    assert {net.instances["SUB_4"].element.name, net.instances["SUB_5"].element.name} == {
        "SUB_DT_DT", "SUB"}
    h = Harness(net)
    h.set(D1="DT#2024-02-01-00:30:00", D2="DT#2024-01-31-12:30:00").scan()
    h.expect(LESS=dt.timedelta(hours=11))


# -- initial values ----------------------------------------------------------------------
def test_a_string_initial_value_without_quotes_is_that_text_as_beremiz_quotes_it(tmp_path):
    """matiec's own test project writes ``STR1 := 3.456789``; Beremiz generates
    ``STR1 : STRING := '3.456789'``."""
    prog = f.pou("Main", f.group("localVars", f.var("S1", "STRING", "3.456789"),
                                 f.var("S2", "STRING", "'quoted'"),
                                 f.var("S3", "STRING", "a$Nb"))
                 + f.group("outputVars", f.var("O1", "STRING"), f.var("O2", "STRING"),
                           f.var("O3", "STRING")),
                 f.inv(1, "S1") + f.outv(2, "O1", 1) + f.inv(3, "S2") + f.outv(4, "O2", 3)
                 + f.inv(5, "S3") + f.outv(6, "O3", 5))
    h = Harness(f.net(tmp_path, prog))
    h.scan()
    h.expect(O1="3.456789", O2="quoted", O3="a\nb")


def test_a_located_input_the_program_writes_holds_what_it_wrote_until_the_next_latch(tmp_path):
    """matiec lets a program write its %IW variable (its own test project does): the
    variable is memory, so the write is the input's value until a value is latched.
    matiec (iec2c 6bb2c339df6f), the same body in ST, NB set to 9 before scans 1 and 3:
    NB, BEFORE, AFTER = 5 9 5; 5 5 5; 5 9 5."""
    prog = f.pou("Main", f.group("localVars", f.var("NB", "INT", at="%IW0"))
                 + f.group("outputVars", f.var("BEFORE", "INT"), f.var("AFTER", "INT")),
                 f.inv(1, "NB") + f.outv(2, "BEFORE", 1) + f.inv(3, "5") + f.outv(4, "NB", 3)
                 + f.inv(5, "NB", y=40) + f.outv(6, "AFTER", 5, y=40))
    h = Harness(f.net(tmp_path, prog))
    h.run([({"NB": 9}, {"NB": 5, "BEFORE": 9, "AFTER": 5}), ({}, {"NB": 5, "BEFORE": 5, "AFTER": 5}),
           ({"NB": 9}, {"NB": 5, "BEFORE": 9, "AFTER": 5})])


def test_a_program_that_writes_its_own_input_keeps_what_it_wrote(tmp_path):
    """matiec: ``pin := pin + 10`` in a program gives 10, 20, 30 (nobody passes a
    program's VAR_INPUT); and it reads ``T# 30000ms``, a blank after the prefix, as
    OpenPLC users' files write it."""
    prog = f.pou("Main", f.group("inputVars", f.var("pin", "INT"))
                 + f.group("outputVars", f.var("q", "INT"), f.var("t", "TIME")),
                 f.inv(1, "pin") + f.inv(2, "10")
                 + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                 + f.outv(4, "pin", 3, pin="OUT") + f.inv(5, "pin", y=40) + f.outv(6, "q", 5, y=40)
                 + f.inv(7, "T# 30000ms", y=80) + f.outv(8, "t", 7, y=80))
    h = Harness(f.net(tmp_path, prog))
    h.run([({}, {"q": 10, "t": dt.timedelta(seconds=30)}), ({}, {"q": 20}), ({}, {"q": 30})])
