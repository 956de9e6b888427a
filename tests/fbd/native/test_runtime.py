"""Everything around the scan works on the native engine as on the Python one:
the table read and written from Python in place, forcing, writes, traces,
stepping into a scan, the debugger, restarts, the Modbus image; what cannot
run native says so by name; a Python exception becomes a named trap."""

import math
import random

import numpy as np
import pytest

import blocks
from fbd import BOOL, INT, LREAL, Network, Plc, PlcFault
from fbd.block import Block, Port, register
from fbd.compiler import flatten
from fbd.debug.debugger import Debugger
from fbd.errors import FbdError
from fbd.native import NativeTrap, NotNative
from fbd.native.engines import AUTO_MIN_BLOCKS, decide
from fbd.native.table import NativeTable
from fbd.testing import Harness
from fbd.tools.synthetic import random_network
from programs.game2048 import build as build_2048
from programs.sudoku import build as build_sudoku
from tests.fbd.native.agreement import differences

pytest.importorskip("llvmlite")


def latch() -> Network:
    net = Network("latch")
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    x = net.input("X", INT)
    ff = net.add("ff", blocks.SR(), S1=s, R=r)
    total = net.add("total", blocks.ADD(INT), IN1=x, IN2=5)
    mem = net.add("mem", blocks.MEMORY(INT), IN=total.OUT, SET=ff.Q1)
    double = net.add("double", blocks.ADD(INT), IN1=mem.OUT, IN2=mem.OUT)
    net.output("Q", ff.Q1)
    net.output("M", double.OUT)
    return net


def both(net, **kw):
    return Plc(net, engine="python", **kw), Plc(net, engine="native", **kw)


def test_the_table_is_the_native_buffer_read_and_written_from_python_in_place():
    plc = Plc(latch(), engine="native")
    s = plc.main.s
    assert isinstance(s, NativeTable) and len(s) == plc.program.flat.n_slots
    plc.set("S", True)
    plc.set("X", 7)
    plc.scan()
    view = s.ints()                       # no copy: the scan's writes show through it
    slot = plc.program.signal("mem.OUT").slot
    assert s[slot] == 12 and view[slot] == 12 and s[plc.program.signal("ff.Q1").slot] is True
    plc.set("X", 8)
    plc.scan()
    assert view[slot] == 13 and np.shares_memory(view, s.ints())
    s[slot] = -3
    assert plc.get("mem.OUT") == -3 and list(s)[slot] == -3
    copy = s.copy()
    s[slot] = 4
    assert copy[slot] == -3
    with pytest.raises(IndexError):
        s[len(s)]


def test_forcing_writing_and_releasing_match_the_python_engine():
    py, na = both(latch())
    script = [("set", "S", True), ("set", "X", 3), ("scan",), ("force", "ff.Q1", False),
              ("set", "X", 9), ("scan",), ("force", "mem.OUT", 100), ("scan",),
              ("force", "M", 1), ("scan",), ("unforce", "ff.Q1"), ("scan",),
              ("unforce", "mem.OUT"), ("write", "mem.OUT", 7), ("scan",), ("force", "S", False),
              ("scan",), ("unforce", None), ("scan",)]
    for op, *args in script:
        for plc in (py, na):
            getattr(plc, op)(*args)
        assert not differences(py, na), (op, args, differences(py, na))
        assert py.forces == na.forces
    assert na.get("M") == py.get("M")


def test_a_forced_value_holds_inside_the_scan_for_every_reader():
    plc = Plc(latch(), engine="native")
    plc.set("X", 1)
    plc.set("S", True)
    plc.force("total.OUT", 40)           # mem reads the forced value in this very scan
    plc.scan()
    assert plc.get("mem.OUT") == 40 and plc.get("M") == 80
    plc.unforce("total.OUT")
    plc.scan()
    assert plc.get("mem.OUT") == 6


def test_traces_record_the_same_values():
    py, na = both(build_2048())
    paths = ["SCORE", "MOVED", "cell_0_0.memory.OUT", "BUSY"]
    traces = [p.trace(paths) for p in (py, na)]
    rng = random.Random(3)
    for k in range(300):
        if k % 7 == 0:
            for p in (py, na):
                p.set("CMD", rng.randint(1, 4))
                p.set("CMD_SEQ", k)
        py.scan()
        na.scan()
    for path in paths:
        assert list(traces[0][path]) == list(traces[1][path])


def test_stepping_into_a_native_scan_leaves_the_table_a_whole_scan_leaves():
    whole, stepped = Plc(build_sudoku(), engine="native"), Plc(build_sudoku(), engine="native")
    for scan in range(6):
        for p in (whole, stepped):
            p.set("CMD", [3, 1, 4, 6, 5, 2][scan])
            p.set("CMD_SEQ", scan + 1)
        whole.scan()
        st = stepped.step_into()
        if scan == 3:
            st.step()
            stepped.force("CMD", 6)   # a force between steps acts on the blocks still to run
            whole.force("CMD", 6)
        st.finish()
        assert not differences(whole, stepped), (scan, differences(whole, stepped))
    assert stepped.scans == whole.scans == 6


def test_the_debugger_breaks_steps_and_forces_on_the_native_engine():
    plc = Plc(build_2048(), engine="native")
    dbg = Debugger(plc)
    dbg.add_breakpoint("BUSY")
    plc.set("CMD", 1)
    plc.set("CMD_SEQ", 1)
    hit = dbg.run_until_break(max_scans=50)
    assert hit is not None and dbg.get("BUSY") is True
    dbg.step_into()
    assert dbg.in_scan and dbg.current_block is not None
    dbg.finish_scan()
    dbg.force("SCORE", 123)
    dbg.step()
    assert dbg.get("SCORE") == 123 and dbg.is_forced("SCORE")


def test_a_restart_is_a_cold_start_on_a_fresh_table():
    plc = Plc(latch(), engine="native")
    plc.set("S", True)
    plc.set("X", 4)
    plc.scan(3)
    old = plc.main.s
    plc.restart()
    assert plc.main.s is not old and plc.get("mem.OUT") == 0 and plc.get("ff.Q1") is False
    plc.scan()
    assert plc.get("mem.OUT") == 9


def test_the_modbus_image_serves_a_native_program():
    from fbd.modbus import HOLDING_REGISTERS, INPUT_REGISTERS, IW_WINDOW, ProcessImage
    net = Network("io")
    w = net.input("W", INT, at="%IW5")
    out = net.add("add", blocks.ADD(INT), IN1=w, IN2=1000)
    net.output("QW", out.OUT, at="%QW7")
    plc = Plc(net, engine="native")
    image = ProcessImage(plc)
    assert image.write(HOLDING_REGISTERS, IW_WINDOW + 5, [0xFFFE]) is None   # -2
    plc.scan()
    assert plc.get("QW") == 998
    assert image.read(HOLDING_REGISTERS, 7, 1) == [998]
    assert image.read(INPUT_REGISTERS, 5, 1) == [0xFFFE]


# ------------------------------------------------------------ what cannot run native
@register
class NATIVE_TEST_LIST(Block):
    """A user block keeping a Python list: no native form."""
    family = "test"
    inputs = [Port("IN", INT)]
    outputs = [Port("OUT", INT)]

    def code(self, io):
        return f"{io.OUT} = len([{io.IN}, {io.IN}])"


@register
class NATIVE_TEST_DIV(Block):
    """A user block dividing without a guard: Python raises on zero."""
    family = "test"
    inputs = [Port("A", INT), Port("B", INT)]
    outputs = [Port("OUT", INT)]

    def code(self, io):
        return f"{io.OUT} = {io.A} // {io.B}"


@register
class NATIVE_TEST_UNWRAPPED(Block):
    """A user block forgetting to wrap: Python keeps an out-of-range INT."""
    family = "test"
    inputs = [Port("A", INT), Port("B", INT)]
    outputs = [Port("OUT", INT)]

    def code(self, io):
        return f"{io.OUT} = {io.A} + {io.B}"


def _one(block, **wires) -> Network:
    net = Network("user")
    ins = {name: net.input(name, INT) for name in wires}
    inst = net.add("blk", block, **ins)
    net.output("OUT", inst.OUT)
    return net


def test_a_block_without_a_native_form_is_named_and_auto_falls_back():
    net = _one(NATIVE_TEST_LIST(), IN=1)
    with pytest.raises(NotNative, match=r"NATIVE_TEST_LIST \(the expression"):
        Plc(net, engine="native")
    engine, why, _ = decide(flatten(net), "auto")
    assert engine == "python" and "fewer than" in why
    big = random_network(AUTO_MIN_BLOCKS, 1)
    big.add("odd", NATIVE_TEST_LIST(), IN=1)
    plc = Plc(big)
    assert plc.engine == "python" and "NATIVE_TEST_LIST" in plc.engine_reason


def test_a_python_exception_on_the_path_taken_is_a_trap_naming_the_block():
    net = _one(NATIVE_TEST_DIV(), A=1, B=1)
    py, na = both(net)
    for plc in (py, na):
        plc.set("A", 7)
        plc.set("B", 2)
        plc.scan()
    assert py.get("OUT") == na.get("OUT") == 3
    for plc in (py, na):
        plc.set("B", 0)
    # either way the PLC is in FAULT, the error the cause of the one raised
    with pytest.raises(PlcFault, match="ZeroDivisionError") as raised:
        py.scan()
    assert isinstance(raised.value.__cause__, ZeroDivisionError)
    with pytest.raises(PlcFault, match=r"blk \(NATIVE_TEST_DIV\(\)\): division or modulo by zero") \
            as raised:
        na.scan()
    assert isinstance(raised.value.__cause__, NativeTrap)
    assert (py.fault.kind, py.fault.block, na.fault.kind, na.fault.block) == \
        ("exception", "blk", "trap", "blk")


def test_a_value_its_signal_cannot_hold_is_a_trap_not_a_silent_wrap():
    net = _one(NATIVE_TEST_UNWRAPPED(), A=1, B=1)
    plc = Plc(net, engine="native")
    plc.set("A", 30000)
    plc.set("B", 30000)
    with pytest.raises(PlcFault, match="outside its signal's type") as raised:
        plc.scan()
    assert isinstance(raised.value.__cause__, NativeTrap) and plc.state == "FAULT"


def test_engine_choice_is_checked_and_explained():
    with pytest.raises(FbdError, match="engine must be one of"):
        Plc(latch(), engine="fast")
    small = Plc(latch())
    assert small.engine == "python" and f"fewer than {AUTO_MIN_BLOCKS}" in small.engine_reason
    assert Plc(latch(), engine="native").engine == "native"
    assert Harness(latch(), engine="native").engine == "native"
    assert Plc(latch(), engine="native", clock_start=0).engine == "native"
    with pytest.raises(FbdError, match="negative clock_start"):
        Plc(latch(), engine="native", clock_start=-1)
    assert Plc(build_2048(), clock_start=-1).engine == "python"


def test_real_results_keep_ieee_specials():
    net = Network("reals")
    a, b = net.input("A", LREAL), net.input("B", LREAL)
    d = net.add("d", blocks.DIV(LREAL), IN1=a, IN2=b)
    net.output("Q", d.OUT)
    py, na = both(net)
    for x, y in ((1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, -0.0), (math.inf, 2.0)):
        for plc in (py, na):
            plc.set("A", x)
            plc.set("B", y)
            plc.scan()
        assert not differences(py, na), (x, y)
