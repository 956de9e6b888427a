"""The object-per-block interpreter agrees with the compiled scan, signal for signal."""

import datetime

import pytest

from fbd import BOOL, INT, TIME, FbdError, Network, Plc, UnknownSignal, compile_network
from fbd.compiler.interp import Interpreter
from tests.fbd.standins import ADD, AND, CLOCK, EDGE, MOVE, NOT, OR, SEL, SR


def lockstep(net: Network, inputs_per_scan, scans: int | None = None):
    """Run a Plc and an Interpreter side by side; after every scan compare every
    signal path the program knows. Returns the interpreter and the Plc."""
    program = compile_network(net)
    plc = Plc(program, cycle=0.005)
    it = Interpreter(program, cycle_us=5000)
    scans = len(inputs_per_scan) if scans is None else scans
    for k in range(scans):
        for name, value in (inputs_per_scan[k] if k < len(inputs_per_scan) else {}).items():
            plc.set(name, value)
            it.set(name, value)
        plc.scan()
        it.scan(plc.now_us - plc.main.cycle_us)
        for path in program.signals:
            assert it.get(path) == plc.get(path), f"scan {k + 1}: {path}"
    return it, plc


def delay_line() -> Network:
    """src runs first; 'late' reads it over a feedback wire, so it must see the
    previous scan's value (a snapshot), while 'now_' reads the current one."""
    net = Network("delay")
    g = net.input("G", BOOL)
    count = net.add("count", ADD(INT), IN2=1)
    net.connect(count.OUT, count.IN1, feedback=True)          # self-loop: a counter
    late = net.add("late", MOVE(INT))
    net.connect(count.OUT, late.IN, feedback=True)            # source ran earlier
    now_ = net.add("now_", MOVE(INT), IN=count.OUT)
    pick = net.add("pick", SEL(INT), G=g, IN0=late.OUT, IN1=now_.OUT)
    net.output("LATE", late.OUT)
    net.output("NOW", now_.OUT)
    net.output("PICK", pick.OUT)
    net.output("K", 7, INT)
    net.output("ECHO", g)
    return net


def test_feedback_reads_the_previous_scan():
    it, plc = lockstep(delay_line(), [{}, {}, {"G": True}, {}, {"G": False}])
    assert it.get("NOW") == 5 and it.get("LATE") == 4
    assert it.get("K") == 7 and it.get("ECHO") is False
    assert plc.get("LATE") == 4


def test_interpreter_alone_gives_the_scan_values():
    it = Interpreter(delay_line())
    seen = []
    for _ in range(3):
        it.scan()
        seen.append((it.get("count.OUT"), it.get("late.OUT"), it.get("PICK")))
    assert seen == [(1, 0, 0), (2, 1, 1), (3, 2, 2)]
    assert it.scans == 3


def latch_loop() -> Network:
    """A loop through three blocks where the feedback source runs after its reader."""
    net = Network("latch")
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    set_or = net.add("set_or", OR(), IN1=s)
    inv = net.add("inv", NOT(), IN=r)
    hold = net.add("hold", AND(), IN1=set_or.OUT, IN2=inv.OUT)
    net.connect(hold.OUT, set_or.IN2, feedback=True)
    ff = net.add("ff", SR(), S1=hold.OUT, R=r)
    net.output("Q", hold.OUT)
    net.output("Q1", ff.Q1)
    return net


def test_loop_with_late_source_and_flip_flop():
    steps = [{}, {"S": True}, {"S": False}, {}, {"R": True}, {"R": False}, {"S": True}]
    it, _ = lockstep(latch_loop(), steps)
    assert it.get("Q") is True and it.get("ff.Q1") is True


def macro_net() -> Network:
    """A macro with state (EDGE), a temporary, a feedback wire across the macro
    boundary, and a TIME output from ``now``."""
    cell = Network("Cell")
    clk = cell.input("CLK", BOOL)
    bias = cell.input("BIAS", INT, 10)
    e = cell.add("edge", EDGE(), CLK=clk)
    total = cell.add("total", ADD(INT), IN1=e.N, IN2=bias)
    cell.output("Q", e.Q)
    cell.output("TOTAL", total.OUT)

    net = Network("top")
    x = net.input("X", BOOL)
    a = net.add("a", cell, CLK=x)
    b = net.add("b", cell)
    net.connect(a.Q, b.CLK, feedback=True)
    both = net.add("both", OR(), IN1=a.Q, IN2=b.Q)
    net.output("ANY", both.OUT)
    net.output("SUM", b.TOTAL)
    return net


def test_macros_state_and_temporaries():
    steps = [{"X": v} for v in (False, True, True, False, True, False, True)]
    it, plc = lockstep(macro_net(), steps)
    assert it.get("a.edge.N") == 3 == plc.get("a.edge.N")
    assert it.get("b.BIAS") == 10
    assert it.get("a.edge.M") is True  # state variables by path too


def test_now_and_time_values():
    net = Network("clock")
    c = net.add("c", CLOCK())
    net.output("T", c.T)
    net.output("DD", net.input("D", TIME))
    it, plc = lockstep(net, [{"D": "T#1s"}, {}, {}])
    assert it.get("T") == datetime.timedelta(milliseconds=10) == plc.get("T")
    assert it.get_raw("D") == 1_000_000_000


def test_one_function_per_distinct_block_code():
    it = Interpreter(delay_line())
    late, now_ = it.object("late"), it.object("now_")
    assert late.fn is now_.fn  # same code text, same function
    assert "o['OUT'] = i['IN']" in late.source
    assert it.object("count").type_name == "ADD"


def test_errors_say_what_to_do():
    it = Interpreter(delay_line())
    with pytest.raises(FbdError, match="not an input"):
        it.set("NOW", 1)
    with pytest.raises(UnknownSignal, match="did you mean"):
        it.get("count.OUTT")
    with pytest.raises(UnknownSignal):
        it.object("nobody")
    with pytest.raises(FbdError, match="Network or a FlatProgram"):
        Interpreter(42)


def test_forces_belong_to_the_plc_not_to_the_program_the_interpreter_runs():
    program = compile_network(delay_line())
    plc = Plc(program)
    plc.force("count.OUT", 3)
    it = Interpreter(program)  # the flat program: no scratch slots, no forces
    it.scan(0)
    assert it.get("count.OUT") != 3 and plc.get("count.OUT") == 3
