"""The scan's entry from Python: a built-in function that checks what it is given."""

import pytest

import blocks
from fbd import BOOL, Network, Plc
from fbd.native.engines import build_program

pytest.importorskip("llvmlite")


def _program():
    net = Network("latch")
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    ff = net.add("ff", blocks.SR(), S1=s, R=r)
    net.output("Q", ff.Q1)
    return net


def _entry(program):
    """The built-in function the scan calls."""
    return next(c.cell_contents for c in program.scan.__closure__
                if type(c.cell_contents).__name__ == "builtin_function_or_method")


def test_the_scan_enters_the_machine_code_through_a_builtin_function():
    program = build_program(_program(), "native")[0]
    assert _entry(program)(program.new_table().address, 0) == 0
    plc = Plc(program)
    plc.set("S", True)
    plc.scan()
    assert plc.get("Q") is True
    plc.set("S", False)
    plc.set("R", True)
    plc.scan()
    assert plc.get("Q") is False


@pytest.mark.parametrize("args, error", [
    ((), TypeError), ((1,), TypeError), ((1, 2, 3), TypeError),
    (("table", 0), TypeError), ((None, 0), TypeError), ((0, 1 << 70), OverflowError)])
def test_a_wrong_call_of_the_entry_raises_and_runs_nothing(args, error):
    program = build_program(_program(), "native")[0]
    with pytest.raises(error):
        _entry(program)(*args)
