"""PID, INTEGRAL, DERIVATIVE, RAMP and HYSTERESIS compute what matiec computes, bit for
bit: each scripted run's rows were printed by the matiec oracle (iec2c 6bb2c339df6f)
running the ST program beside them (its command in the comment), and every engine
gives them from the block alone, and ST from the program."""

import pytest

from blocks.arith import ADD, DIV, SUB
from blocks.control import DERIVATIVE, HYSTERESIS, INTEGRAL, PID, RAMP
from fbd import BOOL, REAL, Network
from fbd.testing import Harness
from tests.blocks.agreement import assert_agrees_with_interpreter
from tests.blocks.scenario import ENGINES, assert_rows, assert_st_rows, block_rows, st_sets
from tests.fbd.st import scans

# ------------------------------------------------------------------------------ PID
PID_PORTS = {"AUTO": "BOOL", "PV": "REAL", "SP": "REAL", "X0": "REAL", "KP": "REAL", "TR": "REAL",
             "TD": "REAL", "CYCLE": "TIME"}
PID_SETS = {1: {"PV": 20.0, "SP": 50.0, "X0": 10.0, "KP": -0.8, "TR": 2.5, "TD": 0.2,
                "CYCLE": "T#100ms"},
            4: {"AUTO": True}, 6: {"PV": 25.5}, 8: {"PV": 31.25}, 12: {"PV": 40.0},
            15: {"SP": 45.0}, 18: {"AUTO": False}, 20: {"AUTO": True}, 24: {"TD": 0.0},
            27: {"TR": 0.0}, 30: {"TR": 2.5, "CYCLE": "T#0s"}, 32: {"PV": 45.0},
            34: {"CYCLE": "T#100ms"}, 36: {"AUTO": False}, 38: {"AUTO": True}}
# oracle.py pid.st --cycle 5ms --scans 40 --set pv=20.0 --set sp=50.0 --set x0=10.0
#   --set kp=-0.8 --set tr=2.5 --set td=0.2 --set cycle=T#100ms --set auto=TRUE@4
#   --set pv=25.5@6 --set pv=31.25@8 --set pv=40.0@12 --set sp=45.0@15 --set auto=FALSE@18
#   --set auto=TRUE@20 --set td=0.0@24 --set tr=0.0@27 --set tr=2.5@30 --set cycle=T#0s@30
#   --set pv=45.0@32 --set cycle=T#100ms@34 --set auto=FALSE@36 --set auto=TRUE@38
#   --watch auto --watch ctrl.XOUT --watch ctrl.ERROR --watch ctrl.ITERM.XOUT
#   --watch ctrl.DTERM.XOUT
# Manual until scan 4 (XOUT = KP * X0), then automatic from there without a bump; AUTO
# toggled at 18-20 resets ITERM to TR * (X0 - ERROR); TR = 0.0 divides by zero (-inf);
# CYCLE = T#0s too (DTERM NaN, then inf); manual again at 36 recovers.
PID_ROWS = """
scan,t_ms,auto,ctrl.XOUT,ctrl.ERROR,ctrl.ITERM.XOUT,ctrl.DTERM.XOUT
1,0,FALSE,-8.0,-30.0,100.0,0.0
2,5,FALSE,-8.0,-30.0,100.0,0.0
3,10,FALSE,-8.0,-30.0,100.0,0.0
4,15,TRUE,-7.0399995,-30.0,97.0,0.0
5,20,TRUE,-6.079999,-30.0,94.0,0.0
6,25,TRUE,-12.336002,-24.5,91.55,16.5
7,30,TRUE,-12.432002,-24.5,89.100006,22.0
8,35,TRUE,-18.312002,-18.75,87.225006,33.75
9,40,TRUE,-15.992003,-18.75,85.350006,23.0
10,45,TRUE,-14.472003,-18.75,83.475006,17.25
11,50,TRUE,-11.112002,-18.75,81.600006,0.0
12,55,TRUE,-21.992002,-10.0,80.600006,26.25
13,60,TRUE,-23.072002,-10.0,79.600006,35.0
14,65,TRUE,-21.352003,-10.0,78.600006,26.25
15,70,TRUE,-23.392002,-5.0,78.100006,15.0
16,75,TRUE,-24.032003,-5.0,77.600006,20.0
17,80,TRUE,-23.072002,-5.0,77.100006,15.0
18,85,FALSE,-8.0,-5.0,37.5,0.0
19,90,FALSE,-8.0,-5.0,37.5,0.0
20,95,TRUE,-7.84,-5.0,37.0,0.0
21,100,TRUE,-7.6800003,-5.0,36.5,0.0
22,105,TRUE,-7.52,-5.0,36.0,0.0
23,110,TRUE,-7.36,-5.0,35.5,0.0
24,115,TRUE,-7.2000003,-5.0,35.0,0.0
25,120,TRUE,-7.0400004,-5.0,34.5,0.0
26,125,TRUE,-6.8800006,-5.0,34.0,0.0
27,130,TRUE,-inf,-5.0,33.5,0.0
28,135,TRUE,-inf,-5.0,33.0,0.0
29,140,TRUE,-inf,-5.0,32.5,0.0
30,145,TRUE,nan,-5.0,32.5,nan
31,150,TRUE,nan,-5.0,32.5,nan
32,155,TRUE,nan,0.0,32.5,inf
33,160,TRUE,nan,0.0,32.5,inf
34,165,TRUE,-10.400001,0.0,32.5,15.0
35,170,TRUE,-10.400001,0.0,32.5,0.0
36,175,FALSE,-8.0,0.0,25.0,0.0
37,180,FALSE,-8.0,0.0,25.0,0.0
38,185,TRUE,-8.0,0.0,25.0,0.0
39,190,TRUE,-8.0,0.0,25.0,0.0
40,195,TRUE,-8.0,0.0,25.0,0.0
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_pid_manual_automatic_and_divisions_by_zero_as_matiec_on_every_engine(engine):
    columns = ["AUTO", "XOUT", "blk.ERROR", "blk.ITERM.XOUT", "blk.DTERM.XOUT"]
    assert_rows(PID(), columns, PID_SETS, PID_ROWS, engine)


def test_pid_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("PID", "ctrl", PID_PORTS, PID_SETS, PID_ROWS)


INTERNALS = """
PROGRAM main
  VAR
    ctrl : PID;
    e : REAL;
    i : REAL;
    r : RAMP;
    t : TIME;
  END_VAR
  ctrl(AUTO := TRUE, PV := 1.0, SP := 2.0, KP := 1.0, TR := 1.0, CYCLE := T#100ms);
  e := ctrl.ERROR;
  i := ctrl.ITERM.XOUT;
  r(RUN := TRUE, X1 := 3.0, TR := T#1s, CYCLE := T#100ms);
  t := r.T;
END_PROGRAM
"""
# oracle.py internals.st --cycle 5ms --scans 3 --watch e --watch i --watch t
INTERNALS_ROWS = """
scan,t_ms,e,i,t
1,0,-1.0,-0.1,T#100ms
2,5,-1.0,-0.2,T#200ms
3,10,-1.0,-0.3,T#300ms
"""


def test_st_reads_the_internals_of_a_pid_and_its_inner_integral_as_matiec_allows():
    assert scans.rows(INTERNALS, ["e", "i", "t"], 3) == scans.expected(INTERNALS_ROWS)


CALLED_FROM_IL = """
PROGRAM main
  VAR
    ctrl : PID;
    rmp : RAMP;
    run_it : BOOL := TRUE;
    meas : REAL := 1.0;
    sp : REAL := 2.5;
    kp : REAL := 2.0;
    tr : REAL := 1.0;
    td : REAL := 0.5;
    x1 : REAL := 3.0;
    cyc : TIME := T#100ms;
    dur : TIME := T#1s;
    xo : REAL;
    yo : REAL;
    bz : BOOL;
  END_VAR
  CAL ctrl(
    AUTO := run_it,
    PV := meas,
    SP := sp,
    KP := kp,
    TR := tr,
    TD := td,
    CYCLE := cyc
  )
  LD ctrl.XOUT
  ADD 1.5
  ST xo
  CAL rmp(
    RUN := run_it,
    X1 := x1,
    TR := dur,
    CYCLE := cyc
  )
  LD rmp.XOUT
  ST yo
  LD rmp.BUSY
  ST bz
END_PROGRAM
"""
# oracle.py il.st --cycle 5ms --scans 4 --set meas=1.7@3 --watch xo --watch yo --watch bz
# (matiec's IL takes no literal in a CAL's parameters: its C does not compile)
CALLED_FROM_IL_ROWS = """
scan,t_ms,xo,yo,bz
1,0,-6.3,0.0,TRUE
2,5,-8.1,0.3,TRUE
3,10,-3.2599998,0.6,TRUE
4,15,1.7800002,0.90000004,TRUE
"""


def test_pid_and_ramp_called_from_il_run_the_blocks_as_matiec():
    got = scans.rows(CALLED_FROM_IL, ["xo", "yo", "bz"], 4, {3: {"meas": 1.7}})
    assert got == scans.expected(CALLED_FROM_IL_ROWS)


# ------------------------------------------------------------------------- INTEGRAL
INTEGRAL_PORTS = {"RUN": "BOOL", "R1": "BOOL", "XIN": "REAL", "X0": "REAL", "CYCLE": "TIME"}
INTEGRAL_SETS = {1: {"XIN": 0.1, "CYCLE": "T#100ms", "X0": 5.0}, 2: {"RUN": True},
                 6: {"R1": True}, 8: {"RUN": False}, 9: {"R1": False}, 10: {"RUN": True},
                 12: {"XIN": -3.3}, 14: {"CYCLE": "T#0s"}, 15: {"CYCLE": "T#20ms"},
                 16: {"R1": True}}
# oracle.py integral.st --cycle 5ms --scans 16 --set xin=0.1 --set cycle=T#100ms --set x0=5.0
#   --set run=TRUE@2 --set r1=TRUE@6 --set run=FALSE@8 --set r1=FALSE@9 --set run=TRUE@10
#   --set xin=-3.3@12 --set cycle=T#0s@14 --set cycle=T#20ms@15 --set r1=TRUE@16
#   --watch run --watch r1 --watch integ.Q --watch integ.XOUT
INTEGRAL_ROWS = """
scan,t_ms,run,r1,integ.Q,integ.XOUT
1,0,FALSE,FALSE,TRUE,0.0
2,5,TRUE,FALSE,TRUE,0.010000001
3,10,TRUE,FALSE,TRUE,0.020000001
4,15,TRUE,FALSE,TRUE,0.030000001
5,20,TRUE,FALSE,TRUE,0.040000003
6,25,TRUE,TRUE,FALSE,5.0
7,30,TRUE,TRUE,FALSE,5.0
8,35,FALSE,TRUE,FALSE,5.0
9,40,FALSE,FALSE,TRUE,5.0
10,45,TRUE,FALSE,TRUE,5.01
11,50,TRUE,FALSE,TRUE,5.0200005
12,55,TRUE,FALSE,TRUE,4.6900005
13,60,TRUE,FALSE,TRUE,4.3600006
14,65,TRUE,FALSE,TRUE,4.3600006
15,70,TRUE,FALSE,TRUE,4.2940006
16,75,TRUE,TRUE,FALSE,5.0
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_integral_run_hold_and_reset_as_matiec_on_every_engine(engine):
    assert_rows(INTEGRAL(), ["RUN", "R1", "Q", "XOUT"], INTEGRAL_SETS, INTEGRAL_ROWS, engine)


def test_integral_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("INTEGRAL", "integ", INTEGRAL_PORTS, INTEGRAL_SETS, INTEGRAL_ROWS)


def test_integral_drifts_in_single_precision_exactly_as_matiec():
    # matiec: INTEGRAL(RUN := TRUE, XIN := 0.1, CYCLE := T#100ms) scan after scan gives
    # 0.99999934 after 100 scans and 10.0001335 after 1,000 (each step a C float)
    h = Harness.block(INTEGRAL()).set(RUN=True, XIN=0.1, CYCLE="T#100ms")
    h.scan(100)
    assert h.get("XOUT") == 0.9999993443489075
    h.scan(900)
    assert h.get("XOUT") == 10.000133514404297


# ----------------------------------------------------------------------- DERIVATIVE
DERIVATIVE_PORTS = {"RUN": "BOOL", "XIN": "REAL", "CYCLE": "TIME"}
DERIVATIVE_SETS = {1: {"XIN": 1.0, "CYCLE": "T#100ms"}, 2: {"RUN": True}, 3: {"XIN": 1.5},
                   4: {"XIN": 2.25}, 5: {"XIN": 3.1}, 7: {"XIN": 0.7}, 9: {"RUN": False},
                   10: {"XIN": 2.0}, 11: {"RUN": True}, 12: {"CYCLE": "T#0s"},
                   13: {"XIN": -1.0}, 14: {"XIN": 2.0}, 15: {"CYCLE": "T#30ms"}}
# oracle.py derivative.st --cycle 5ms --scans 16 --set xin=1.0 --set cycle=T#100ms
#   --set run=TRUE@2 --set xin=1.5@3 --set xin=2.25@4 --set xin=3.1@5 --set xin=0.7@7
#   --set run=FALSE@9 --set xin=2.0@10 --set run=TRUE@11 --set cycle=T#0s@12
#   --set xin=-1.0@13 --set xin=2.0@14 --set cycle=T#30ms@15
#   --watch run --watch xin --watch der.XOUT --watch der.X1 --watch der.X2 --watch der.X3
DERIVATIVE_ROWS = """
scan,t_ms,run,xin,der.XOUT,der.X1,der.X2,der.X3
1,0,FALSE,1.0,0.0,1.0,1.0,1.0
2,5,TRUE,1.0,0.0,1.0,1.0,1.0
3,10,TRUE,1.5,1.5,1.5,1.0,1.0
4,15,TRUE,2.25,4.25,2.25,1.5,1.0
5,20,TRUE,3.1,7.0499997,3.1,2.25,1.5
6,25,TRUE,3.1,5.6499996,3.1,3.1,2.25
7,30,TRUE,0.7,-4.6499996,0.7,3.1,3.1
8,35,TRUE,0.7,-9.599999,0.7,0.7,3.1
9,40,FALSE,0.7,0.0,0.7,0.7,0.7
10,45,FALSE,2.0,0.0,2.0,2.0,2.0
11,50,TRUE,2.0,0.0,2.0,2.0,2.0
12,55,TRUE,2.0,nan,2.0,2.0,2.0
13,60,TRUE,-1.0,-inf,-1.0,2.0,2.0
14,65,TRUE,2.0,-inf,2.0,-1.0,2.0
15,70,TRUE,2.0,10.0,2.0,2.0,-1.0
16,75,TRUE,2.0,30.0,2.0,2.0,2.0
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_derivative_over_four_samples_and_cycle_zero_as_matiec_on_every_engine(engine):
    columns = ["RUN", "XIN", "XOUT", "blk.X1", "blk.X2", "blk.X3"]
    assert_rows(DERIVATIVE(), columns, DERIVATIVE_SETS, DERIVATIVE_ROWS, engine)


def test_derivative_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("DERIVATIVE", "der", DERIVATIVE_PORTS, DERIVATIVE_SETS, DERIVATIVE_ROWS)


def test_derivative_computes_with_its_literals_in_double_and_rounds_the_quotient_once():
    # matiec: XIN 1.1 after three samples of 0.0 at CYCLE T#100ms gives 3.299999952316284;
    # every operation in single precision would give 3.3000001907348633
    h = Harness.block(DERIVATIVE()).set(RUN=True, CYCLE="T#100ms").scan(3)
    assert h.set(XIN=1.1).scan().get("XOUT") == 3.299999952316284


# ----------------------------------------------------------------------------- RAMP
RAMP_PORTS = {"RUN": "BOOL", "X0": "REAL", "X1": "REAL", "TR": "TIME", "CYCLE": "TIME"}
RAMP_SETS = {1: {"X0": 1.0, "X1": 4.0, "TR": "T#50ms", "CYCLE": "T#20ms"}, 3: {"RUN": True},
             5: {"X1": 2.0}, 8: {"RUN": False}, 9: {"X0": -1.5}, 10: {"RUN": True},
             13: {"TR": "T#0s"}, 14: {"RUN": False}, 15: {"TR": "T#70ms", "RUN": True},
             20: {"RUN": False}, 21: {"TR": "T#10ms", "CYCLE": "T#-10ms", "RUN": True},
             24: {"TR": "T#0s"}}
# oracle.py ramp.st --cycle 5ms --scans 25 --set x0=1.0 --set x1=4.0 --set tr=T#50ms
#   --set cycle=T#20ms --set run=TRUE@3 --set x1=2.0@5 --set run=FALSE@8 --set x0=-1.5@9
#   --set run=TRUE@10 --set tr=T#0s@13 --set run=FALSE@14 --set tr=T#70ms@15
#   --set run=TRUE@15 --set run=FALSE@20 --set tr=T#10ms@21 --set cycle=T#-10ms@21
#   --set run=TRUE@21 --set tr=T#0s@24
#   --watch run --watch rmp.BUSY --watch rmp.XOUT --watch rmp.XI --watch rmp.T
# X1 moved mid-ramp bends it; TR = T#0s ends a ramp at once; a negative CYCLE counts T
# down, and with TR = T#0s above it the ramp divides by zero.
RAMP_ROWS = """
scan,t_ms,run,rmp.BUSY,rmp.XOUT,rmp.XI,rmp.T
1,0,FALSE,FALSE,1.0,1.0,T#0ms
2,5,FALSE,FALSE,1.0,1.0,T#0ms
3,10,TRUE,TRUE,1.0,1.0,T#20ms
4,15,TRUE,TRUE,2.1999998,1.0,T#40ms
5,20,TRUE,TRUE,1.8,1.0,T#60ms
6,25,TRUE,FALSE,2.0,1.0,T#60ms
7,30,TRUE,FALSE,2.0,1.0,T#60ms
8,35,FALSE,FALSE,1.0,1.0,T#0ms
9,40,FALSE,FALSE,-1.5,-1.5,T#0ms
10,45,TRUE,TRUE,-1.5,-1.5,T#20ms
11,50,TRUE,TRUE,-0.100000024,-1.5,T#40ms
12,55,TRUE,TRUE,1.3,-1.5,T#60ms
13,60,TRUE,FALSE,2.0,-1.5,T#60ms
14,65,FALSE,FALSE,-1.5,-1.5,T#0ms
15,70,TRUE,TRUE,-1.5,-1.5,T#20ms
16,75,TRUE,TRUE,-0.5,-1.5,T#40ms
17,80,TRUE,TRUE,0.5,-1.5,T#60ms
18,85,TRUE,TRUE,1.5,-1.5,T#80ms
19,90,TRUE,FALSE,2.0,-1.5,T#80ms
20,95,FALSE,FALSE,-1.5,-1.5,T#0ms
21,100,TRUE,TRUE,-1.5,-1.5,T#-10ms
22,105,TRUE,TRUE,-5.0,-1.5,T#-20ms
23,110,TRUE,TRUE,-8.5,-1.5,T#-30ms
24,115,TRUE,TRUE,-inf,-1.5,T#-40ms
25,120,TRUE,TRUE,-inf,-1.5,T#-50ms
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_ramp_tracks_ramps_and_reaches_its_target_as_matiec_on_every_engine(engine):
    assert_rows(RAMP(), ["RUN", "BUSY", "XOUT", "blk.XI", "blk.T"], RAMP_SETS, RAMP_ROWS, engine)


def test_ramp_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("RAMP", "rmp", RAMP_PORTS, RAMP_SETS, RAMP_ROWS)


def test_a_ramp_running_from_the_first_scan_starts_from_zero_not_x0_as_matiec():
    # matiec: RAMP(RUN := TRUE, X0 := 10.0, X1 := 20.0, TR := T#1s, CYCLE := T#300ms)
    # gives XOUT 0.0, 6.0, 12.0, 18.0, 20.0 (BUSY until then): XI was never set to X0
    h = Harness.block(RAMP()).set(RUN=True, X0=10.0, X1=20.0, TR="T#1s", CYCLE="T#300ms")
    seen = [(h.scan().get("XOUT"), h.get("BUSY")) for _ in range(5)]
    assert seen == [(0.0, True), (6.0, True), (12.0, True), (18.0, True), (20.0, False)]


# ----------------------------------------------------------------------- HYSTERESIS
HYSTERESIS_PORTS = {"XIN1": "REAL", "XIN2": "REAL", "EPS": "REAL"}
HYSTERESIS_SETS = {1: {"XIN2": 10.0, "EPS": 0.5}, 2: {"XIN1": 10.5}, 3: {"XIN1": 10.6},
                   4: {"XIN1": 9.6}, 5: {"XIN1": 9.5}, 6: {"XIN1": 9.4}, 7: {"EPS": -1.0},
                   8: {"XIN1": 9.5}, 9: {"XIN2": 16777218.0, "EPS": 1.0, "XIN1": 16777222.0},
                   10: {"XIN1": 16777220.0}, 11: {"XIN1": 16777216.0},
                   12: {"XIN1": 16777214.0}, 13: {"XIN1": 16777220.0},
                   14: {"XIN1": 16777222.0}}
# oracle.py hysteresis.st --cycle 5ms --scans 14 --set xin2=10.0 --set eps=0.5
#   --set xin1=10.5@2 --set xin1=10.6@3 --set xin1=9.6@4 --set xin1=9.5@5 --set xin1=9.4@6
#   --set eps=-1.0@7 --set xin1=9.5@8 --set xin2=16777218.0@9 --set eps=1.0@9
#   --set xin1=16777222.0@9 --set xin1=16777220.0@10 --set xin1=16777216.0@11
#   --set xin1=16777214.0@12 --set xin1=16777220.0@13 --set xin1=16777222.0@14
#   --watch xin1 --watch xin2 --watch eps --watch hys.Q
# The band's edges are REALs: 16777218.0 - 1.0 is 16777216.0 and 16777218.0 + 1.0 is
# 16777220.0 in single precision, so 16777216.0 does not fall below the band (scan 11)
# nor 16777220.0 rise above it (scan 13).
HYSTERESIS_ROWS = """
scan,t_ms,xin1,xin2,eps,hys.Q
1,0,0.0,10.0,0.5,FALSE
2,5,10.5,10.0,0.5,FALSE
3,10,10.6,10.0,0.5,TRUE
4,15,9.6,10.0,0.5,TRUE
5,20,9.5,10.0,0.5,TRUE
6,25,9.4,10.0,0.5,FALSE
7,30,9.4,10.0,-1.0,TRUE
8,35,9.5,10.0,-1.0,FALSE
9,40,16777222.0,16777218.0,1.0,TRUE
10,45,16777220.0,16777218.0,1.0,TRUE
11,50,16777216.0,16777218.0,1.0,TRUE
12,55,16777214.0,16777218.0,1.0,FALSE
13,60,16777220.0,16777218.0,1.0,FALSE
14,65,16777222.0,16777218.0,1.0,TRUE
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_hysteresis_holds_inside_its_single_precision_band_as_matiec_on_every_engine(engine):
    columns = ["XIN1", "XIN2", "EPS", "Q"]
    assert_rows(HYSTERESIS(), columns, HYSTERESIS_SETS, HYSTERESIS_ROWS, engine)


def test_hysteresis_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("HYSTERESIS", "hys", HYSTERESIS_PORTS, HYSTERESIS_SETS, HYSTERESIS_ROWS)


# ------------------------------------------------------------- compiled = interpreted
@pytest.mark.parametrize("block", [PID, INTEGRAL, DERIVATIVE, RAMP, HYSTERESIS])
def test_compiled_control_blocks_agree_with_the_interpreter_on_random_inputs(block):
    assert_agrees_with_interpreter(block(), scans=300)


# ------------------------------------------------------------------- a control loop
def control_loop() -> Network:
    """A PID on a first-order plant, pv := pv + (XOUT - pv) / 20.0, closed through a
    feedback wire (the PID reads the plant's value of the previous scan)."""
    net = Network("Loop")
    auto, sp = net.input("AUTO", BOOL), net.input("SP", REAL, 50.0)
    pv = net.add("plant", ADD(REAL))
    ctrl = net.add("ctrl", PID(), AUTO=auto, SP=sp, X0=10.0, KP=-0.8, TR=2.5, TD=0.2,
                   CYCLE="T#20ms")
    net.connect(pv.OUT, ctrl.PV, feedback=True)
    gap = net.add("gap", SUB(REAL), IN1=ctrl.XOUT)
    net.connect(pv.OUT, gap.IN2, feedback=True)
    net.connect(pv.OUT, pv.IN1, feedback=True)
    net.connect(net.add("step", DIV(REAL), IN1=gap.OUT, IN2=20.0).OUT, pv.IN2)
    net.output("PV", pv.OUT)
    return net


LOOP_ST = """
PROGRAM main
  VAR
    auto : BOOL;
    sp : REAL := 50.0;
    lag : REAL := 20.0;
    pv : REAL;
    ctrl : PID;
  END_VAR
  ctrl(AUTO := auto, PV := pv, SP := sp, X0 := 10.0, KP := -0.8, TR := 2.5, TD := 0.2,
       CYCLE := T#20ms);
  pv := pv + (ctrl.XOUT - pv) / lag;
END_PROGRAM
"""
LOOP_SETS = {10: {"AUTO": True}, 1200: {"SP": 80.0}, 2000: {"AUTO": False},
             2100: {"AUTO": True}}
# oracle.py loop.st --cycle 20ms --scans 3000 --set auto=TRUE@10 --set sp=80.0@1200
#   --set auto=FALSE@2000 --set auto=TRUE@2100
#   --watch auto --watch pv --watch ctrl.XOUT --watch ctrl.ITERM.XOUT
# (these scans of its 3,000 rows: the integral carries every rounding of the run)
LOOP_ROWS = """
scan,t_ms,auto,pv,ctrl.XOUT,ctrl.ITERM.XOUT
1,0,FALSE,-0.4,-8.0,150.0
10,180,TRUE,-3.1506999,-6.8118987,155.67244
11,200,TRUE,-3.2753057,-5.642816,154.60942
500,9980,TRUE,40.687103,41.35545,-106.75165
1199,23960,TRUE,49.33225,49.38017,-152.70088
1200,23980,TRUE,54.144363,145.57451,-153.31424
1201,24000,TRUE,59.15451,154.34734,-153.83136
2000,39980,FALSE,74.75931,-8.0,27.212353
2099,41960,FALSE,-7.484233,-8.0,243.64272
2100,41980,TRUE,-7.477683,-7.353241,241.89304
2500,49980,TRUE,59.43719,60.912903,-140.70802
3000,59980,TRUE,76.877975,77.10204,-233.40637
"""


def checkpoints(rows: str) -> str:
    wanted = {line.split(",")[0] for line in scans.expected(LOOP_ROWS).splitlines()}
    return "\n".join(line for line in rows.splitlines() if line.split(",")[0] in wanted)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_pid_closing_a_loop_in_a_network_follows_matiec_over_3000_scans(engine):
    got = block_rows(control_loop(), ["AUTO", "PV", "ctrl.XOUT", "ctrl.ITERM.XOUT"], 3000,
                     LOOP_SETS, engine, cycle_ms=20)
    assert checkpoints(got) == scans.expected(LOOP_ROWS)


def test_a_pid_closing_a_loop_in_st_follows_matiec_over_3000_scans():
    got = scans.rows(LOOP_ST, ["auto", "pv", "ctrl.XOUT", "ctrl.ITERM.XOUT"], 3000,
                     st_sets(LOOP_SETS), cycle_ms=20)
    assert checkpoints(got) == scans.expected(LOOP_ROWS)
