"""Online change (plc.replace_program): a changed program runs from the next scan
on with the state of everything still there (timers, counters, SFC steps by
name), converts lossless widenings, reports the rest, and a program that does
not compile leaves the old one running."""

import pytest

import blocks
from fbd import BOOL, Network, Plc
from fbd.errors import FbdError
from fbd.modbus import HOLDING_REGISTERS, ProcessImage
from fbd.st.project import load
from programs.game2048 import Game2048, build, reference
from tests.fbd.st.scans import text

LIGHT = """
PROGRAM prg
VAR
  red AT %QX0.0 : BOOL := TRUE;
  green AT %QX0.1 : BOOL;
  full AT %QX0.2 : BOOL;
END_VAR
VAR
  t_red : TON;
  t_green : TON;
  cycles : INT;
  CU1 : CTU;
END_VAR
t_red(IN := red, PT := T#100ms);
t_green(IN := green, PT := T#60ms);
IF t_red.Q THEN red := FALSE; green := TRUE; END_IF;
IF t_green.Q THEN green := FALSE; red := TRUE; cycles := cycles + 1; END_IF;
CU1(CU := green, PV := 10);
full := CU1.Q;
END_PROGRAM
"""
#: the red phase shortened to 40 ms, the counter's limit lowered to 3
SHORTER = LIGHT.replace("T#100ms", "T#40ms").replace("PV := 10", "PV := 3")


def network(source: str, program: str = "prg") -> Network:
    return load("prog.st", text=source).network(program)


def rows(plc: Plc, columns: list[str], scans: int) -> list[str]:
    out = []
    for _ in range(scans):
        plc.scan()
        out.append(f"{plc.scans},{round(plc.time * 1000) - 10},"
                   + ",".join(text(plc.get(c)) for c in columns))
    return out


COLUMNS = ["red", "green", "prg.t_red.ET", "prg.t_green.ET", "prg.CU1.CV", "full", "prg.cycles"]


def test_a_traffic_lights_timings_and_counter_limit_change_mid_run():
    plc = Plc(network(LIGHT), cycle=0.01)
    # matiec (the oracle, 10 ms cycle) runs LIGHT so for its first scans:
    assert rows(plc, COLUMNS[:5], 5) == [
        "1,0,TRUE,FALSE,T#0ms,T#0ms,0", "2,10,TRUE,FALSE,T#10ms,T#0ms,0",
        "3,20,TRUE,FALSE,T#20ms,T#0ms,0", "4,30,TRUE,FALSE,T#30ms,T#0ms,0",
        "5,40,TRUE,FALSE,T#40ms,T#0ms,0"]
    change = plc.replace_program(network(SHORTER))
    assert change.lines() == [] and change.carried.initialised == []
    assert "prg.t_red.START" in change.carried.kept and "prg.CU1.CV" in change.carried.kept
    # The red timer has run 40 ms of its now 40: it ends at the next scan, not at
    # 100 ms; the counter counts on from 1 and is full at 3 instead of 10.
    assert rows(plc, COLUMNS, 25) == [
        "6,50,FALSE,TRUE,T#40ms,T#0ms,1,FALSE,0", "7,60,FALSE,TRUE,T#0ms,T#0ms,1,FALSE,0",
        "8,70,FALSE,TRUE,T#0ms,T#10ms,1,FALSE,0", "9,80,FALSE,TRUE,T#0ms,T#20ms,1,FALSE,0",
        "10,90,FALSE,TRUE,T#0ms,T#30ms,1,FALSE,0", "11,100,FALSE,TRUE,T#0ms,T#40ms,1,FALSE,0",
        "12,110,FALSE,TRUE,T#0ms,T#50ms,1,FALSE,0", "13,120,TRUE,FALSE,T#0ms,T#60ms,1,FALSE,1",
        "14,130,TRUE,FALSE,T#0ms,T#0ms,1,FALSE,1", "15,140,TRUE,FALSE,T#10ms,T#0ms,1,FALSE,1",
        "16,150,TRUE,FALSE,T#20ms,T#0ms,1,FALSE,1", "17,160,TRUE,FALSE,T#30ms,T#0ms,1,FALSE,1",
        "18,170,FALSE,TRUE,T#40ms,T#0ms,2,FALSE,1", "19,180,FALSE,TRUE,T#0ms,T#0ms,2,FALSE,1",
        "20,190,FALSE,TRUE,T#0ms,T#10ms,2,FALSE,1", "21,200,FALSE,TRUE,T#0ms,T#20ms,2,FALSE,1",
        "22,210,FALSE,TRUE,T#0ms,T#30ms,2,FALSE,1", "23,220,FALSE,TRUE,T#0ms,T#40ms,2,FALSE,1",
        "24,230,FALSE,TRUE,T#0ms,T#50ms,2,FALSE,1", "25,240,TRUE,FALSE,T#0ms,T#60ms,2,FALSE,2",
        "26,250,TRUE,FALSE,T#0ms,T#0ms,2,FALSE,2", "27,260,TRUE,FALSE,T#10ms,T#0ms,2,FALSE,2",
        "28,270,TRUE,FALSE,T#20ms,T#0ms,2,FALSE,2", "29,280,TRUE,FALSE,T#30ms,T#0ms,2,FALSE,2",
        "30,290,FALSE,TRUE,T#40ms,T#0ms,3,TRUE,2"]


def test_a_change_on_the_native_engine_keeps_the_timers_too():
    net = Network("prg")
    ton = net.add("t", blocks.TON(), IN=net.input("GO", BOOL), PT="T#100ms")
    net.output("Q", ton.Q)
    plc = Plc(net, cycle=0.01, engine="native")
    plc.set("GO", True)
    plc.scan(5)
    shorter = Network("prg")
    ton = shorter.add("t", blocks.TON(), IN=shorter.input("GO", BOOL), PT="T#50ms")
    shorter.output("Q", ton.Q)
    change = plc.replace_program(shorter, engine="native")
    assert change.engine == "native" and plc.get("GO") is True
    plc.scan()
    assert plc.get("Q") is True and plc.get("t.ET").total_seconds() == 0.05


SFC = """
PROGRAM prg
VAR go : BOOL; n : INT; END_VAR
INITIAL_STEP Idle: END_STEP
TRANSITION FROM Idle TO Run := go; END_TRANSITION
STEP Run: count(N); END_STEP
TRANSITION FROM Run TO Idle := NOT go; END_TRANSITION
ACTION count: n := n + 1; END_ACTION
END_PROGRAM
"""


def test_an_sfc_chart_keeps_its_active_step_by_name():
    plc = Plc(network(SFC))
    plc.write("prg.go", True)
    plc.scan(4)
    # matiec (--set go=TRUE@1) counts n 1, 2, 3, 4: Run is active from the first scan
    assert (plc.get("prg.Run.X"), plc.get("prg.n")) == (True, 4)
    # a step added before Run, and the action counting by ten: Run stays active
    changed = SFC.replace("INITIAL_STEP Idle: END_STEP", "INITIAL_STEP Idle: END_STEP\n"
                          "STEP Check: END_STEP\nTRANSITION FROM Check TO Idle := TRUE; "
                          "END_TRANSITION").replace("n := n + 1", "n := n + 10")
    change = plc.replace_program(network(changed))
    assert ("prg.Check.X", "new") in change.carried.initialised
    plc.scan(2)
    assert (plc.get("prg.Run.X"), plc.get("prg.Idle.X"), plc.get("prg.n")) == (True, False, 24)


def test_types_widen_or_initialise_and_removed_variables_are_reported():
    plc = Plc(network("PROGRAM prg VAR a : INT; b : INT; c : INT; gone : BOOL; END_VAR\n"
                      "a := a + 1; b := b - 1; c := 3; gone := TRUE; END_PROGRAM"))
    plc.scan(3)
    change = plc.replace_program(network(
        "PROGRAM prg VAR a : DINT; b : SINT; c : INT; d : INT := 9; END_VAR\n"
        "a := a + 1; b := b - 1; d := d + c; END_PROGRAM"))
    assert change.lines() == ["prg.a: converted from INT to DINT",
                              "prg.b: initialised (was INT, is SINT)",
                              "prg.d: initialised (new)",
                              "prg.gone: dropped (no longer in the program)"]
    plc.scan()
    assert (plc.get("prg.a"), plc.get("prg.b"), plc.get("prg.d")) == (4, -1, 12)


def test_a_program_that_does_not_compile_leaves_the_old_one_running():
    plc = Plc(network("PROGRAM prg VAR n : INT; END_VAR n := n + 1; END_PROGRAM"))
    plc.scan(3)
    broken = Network("prg")
    broken.add("and", blocks.AND())                 # its inputs unwired
    with pytest.raises(FbdError, match="and.IN1"):
        plc.replace_program(broken)
    with pytest.raises(FbdError, match="a Network or a compiled program, not str"):
        plc.replace_program("prog.st")
    plc.scan(2)
    assert plc.get("prg.n") == 5


def test_forces_input_values_and_traces_follow_their_paths():
    source = ("PROGRAM prg VAR x AT %IW0 : INT; y AT %IW1 : INT; END_VAR VAR n : INT; m : INT;\n"
              "END_VAR n := n + x + y; m := m + 1; END_PROGRAM")
    plc = Plc(network(source))
    plc.set("y", 5)
    plc.force("x", 2)
    plc.force("prg.m", 7)
    trace = plc.trace(["prg.n", "prg.m"])
    plc.scan(2)
    change = plc.replace_program(network(source.replace(" m : INT;", "").replace(
        " m := m + 1;", "")))
    assert change.released == ["prg.m"] and change.untraced == ["prg.m"]
    assert change.lines() == ["prg.m: dropped (no longer in the program)",
                              "prg.m: force released (no longer in the program)",
                              "prg.m: no longer traced (no longer in the program)"]
    plc.scan()
    assert plc.forces == {"x": 2} and plc.get("y") == 5
    assert trace["prg.n"].tolist() == [7, 14, 21] and trace["prg.m"].tolist() == [7, 7, 0]


def test_the_modbus_map_follows_and_a_moved_address_is_reported():
    source = ("PROGRAM prg VAR n AT %MW0 : INT; lamp AT %QX0.0 : BOOL; END_VAR\n"
              "n := n + 1; lamp := TRUE; END_PROGRAM")
    plc = Plc(network(source))
    image = ProcessImage(plc)
    seen = []
    plc.replaced.append(lambda p, change: seen.append(change.program))
    plc.scan(3)
    assert image.read(HOLDING_REGISTERS, 1024, 2) == [3, 0]
    change = plc.replace_program(network(source.replace("%MW0", "%MW1")))
    assert change.moved == [("n", "%MW0", "%MW1")] and seen == ["prg"]
    assert change.lines() == ["n: now at %MW1 (was %MW0)"]
    assert image.read(HOLDING_REGISTERS, 1024, 2) == [0, 3]     # at once, before a scan
    plc.scan()
    assert image.read(HOLDING_REGISTERS, 1024, 2) == [0, 4]


def test_2048_goes_on_after_its_processing_macro_changes():
    game = Game2048(seed=3)
    game.start()
    game.press("left")
    game.press("up")
    board, score = game.board, game.score
    change = game.plc.replace_program(build("multi_scan", "smart", 3))
    assert change.carried.dropped and change.carried.initialised   # the two macros differ
    assert game.board == board and game.score == score
    gained = 0
    for direction in ("right", "down", "left", "up"):
        expected, moved, gain = reference.move(game.board, direction)
        result = game.press(direction)
        assert result.moved == moved and result.score_gain == gain
        assert [list(r) for r in result.before_spawn] == [list(r) for r in expected]
        gained += gain
    assert game.score == score + gained
