"""The native batch engine: which engine a BatchHarness takes and why, instances
in tiles of 16 (the last one padded), blocks run lane by lane, traps that name
the block and the instance, and a force on a table of several tiles."""

from __future__ import annotations

import numpy as np
import pytest

import blocks
import fbd.native
from fbd import BOOL, INT, REAL, STRING, FbdError, Network
from fbd.batch import BatchHarness
from fbd.batch.layout import WIDTH
from fbd.block import Block, Port, register
from fbd.native import NativeTrap, NotNative
from fbd.st.project import load as load_st
from fbd.testing import Harness

pytest.importorskip("llvmlite")


def counter() -> Network:
    net = Network("Counter")
    pulse, reset = net.input("PULSE", BOOL), net.input("RESET", BOOL)
    ctu = net.add("ctu", blocks.CTU(), CU=pulse, R=reset, PV=net.input("LIMIT", INT, 3))
    ton = net.add("ton", blocks.TON(), IN=ctu.Q, PT="T#10ms")
    net.output("CV", ctu.CV)
    net.output("LATE", ton.Q)
    return net


def strings() -> Network:
    net = Network("Strings")
    net.output("N", net.add("len", blocks.LEN(), IN=net.input("S", STRING)).OUT)
    return net


def test_auto_takes_the_native_engine_and_says_why():
    h = BatchHarness(counter(), n=4)
    assert h.engine == "native" and "native form" in h.engine_reason
    numpy = BatchHarness(counter(), n=4, engine="numpy")
    assert numpy.engine == "numpy" and numpy.engine_reason == "asked for"


def test_a_program_without_a_native_form_runs_on_numpy_under_auto_and_is_refused_by_native():
    h = BatchHarness(strings(), n=3)
    assert h.engine == "numpy" and "LEN" in h.engine_reason
    with pytest.raises(NotNative, match="LEN"):
        BatchHarness(strings(), n=3, engine="native")
    with pytest.raises(FbdError, match="engine must be one of auto, native, numpy"):
        BatchHarness(counter(), n=3, engine="llvm")


ACCUMULATOR = """FUNCTION_BLOCK Acc
VAR_INPUT x : INT; END_VAR
VAR_OUTPUT total : INT; END_VAR
VAR a : ARRAY[1..3] OF INT; i : INT; END_VAR
  FOR i := 1 TO 3 DO a[i] := a[i] + x; END_FOR;
  total := a[1] + a[2] + a[3];
END_FUNCTION_BLOCK
PROGRAM prg
VAR k : INT; y : INT; f : Acc; END_VAR
  k := k + 1; f(x := k); y := f.total;
END_PROGRAM
"""


def test_an_st_program_runs_on_numpy_under_auto_though_the_scalar_engine_runs_it_native():
    # its POUs are functions of their own on the scalar native engine: none over lanes
    net = load_st("acc.st", text=ACCUMULATOR).network("prg")
    h = BatchHarness(net, n=4)
    assert h.engine == "numpy" and "PROGRAM prg is compiled from a text language" in \
        h.engine_reason
    for _ in range(3):
        h.scan()
    assert list(h.get("prg.y")) == [18] * 4        # a[i] = 1 + 2 + 3 each
    with pytest.raises(NotNative, match="PROGRAM prg is compiled from a text language"):
        BatchHarness(net, n=4, engine="native")


def test_without_llvmlite_auto_runs_numpy_and_native_says_why(monkeypatch):
    monkeypatch.setattr(fbd.native, "unavailable_reason", lambda: "llvmlite is not installed")
    h = BatchHarness(counter(), n=2)
    assert h.engine == "numpy" and h.engine_reason == "llvmlite is not installed"
    with pytest.raises(FbdError, match="native batch engine is not available: llvmlite"):
        BatchHarness(counter(), n=2, engine="native")


@pytest.mark.parametrize("n", [1, WIDTH - 1, WIDTH, WIDTH + 1, 3 * WIDTH + 5])
def test_every_instance_of_every_tile_is_its_own_harness(n):
    net = counter()
    h = BatchHarness(net, n=n)
    scalar = [Harness(net) for _ in range(n)]
    rng = np.random.default_rng(n)
    limits = rng.integers(0, 5, n).astype(np.int16)
    h.set(LIMIT=limits)
    for s, limit in zip(scalar, limits.tolist()):
        s.set(LIMIT=limit)
    for _ in range(12):
        pulse, reset = rng.random(n) < 0.6, rng.random(n) < 0.1
        h.set(PULSE=pulse, RESET=reset).scan()
        for i, s in enumerate(scalar):
            s.set(PULSE=bool(pulse[i]), RESET=bool(reset[i])).scan()
        for path in ("CV", "LATE", "ctu.Q", "ctu.CU_M", "ton.ET", "ton.START", "PULSE"):
            assert h.get(path).tolist() == [s.get(path) for s in scalar], path


def test_a_lifo_and_a_fifo_run_lane_by_lane_and_keep_their_elements_per_instance():
    net = Network("Stores")
    push, pop = net.input("PUSH", BOOL), net.input("POP", BOOL)
    lifo = net.add("lifo", blocks.LIFO(INT, depth=3), PUSH=push, POP=pop, IN=net.input("V", INT))
    fifo = net.add("fifo", blocks.FIFO(REAL, depth=2), PUSH=push, POP=pop,
                   IN=net.input("X", REAL))
    net.output("TOP", lifo.OUT)
    net.output("FIRST", fifo.OUT)
    n = WIDTH + 3
    h = BatchHarness(net, n=n)
    assert h.engine == "native"
    assert set(h.per_instance) == {"LIFO(INT, depth=3)", "FIFO(REAL, depth=2)"}
    scalar = [Harness(net) for _ in range(n)]
    rng = np.random.default_rng(7)
    for _ in range(14):
        inputs = {"PUSH": rng.random(n) < 0.5, "POP": rng.random(n) < 0.3,
                  "V": rng.integers(-99, 99, n).astype(np.int16), "X": rng.random(n) * 10}
        h.set(inputs).scan()
        for i, s in enumerate(scalar):
            s.set({k: v[i].item() for k, v in inputs.items()}).scan()
        for path in ("TOP", "FIRST", "lifo.COUNT", "lifo.FULL", "lifo.OVERFLOW", "fifo.EMPTY",
                     "fifo.UNDERFLOW", "lifo.DATA", "fifo.DATA"):
            assert h.get(path).tolist() == [s.get(path) for s in scalar], path


@register
class BATCH_TEST_DIV(Block):
    """A user block dividing without a guard: Python raises on zero."""
    family = "test"
    inputs = [Port("A", INT), Port("B", INT)]
    outputs = [Port("OUT", INT)]

    def code(self, io):
        return f"{io.OUT} = {io.A} // {io.B}"


def divider() -> Network:
    net = Network("user")
    blk = net.add("blk", BATCH_TEST_DIV(), A=net.input("A", INT), B=net.input("B", INT, 1))
    net.output("OUT", blk.OUT)
    return net


def test_a_trap_names_the_block_and_the_first_instance_where_python_would_raise():
    h = BatchHarness(divider(), n=2 * WIDTH + 3)
    divisors = np.full(h.n, 3, dtype=np.int16)
    divisors[[WIDTH + 4, 2 * WIDTH + 1]] = 0
    h.set(A=7, B=divisors)
    with pytest.raises(NativeTrap, match=rf"blk \(BATCH_TEST_DIV\(\)\), instance {WIDTH + 4}: "
                                         r"division or modulo by zero") as trap:
        h.scan()
    assert trap.value.path == "blk"     # what a PLC's FAULT names


def test_the_padding_lanes_of_the_last_tile_never_trap():
    h = BatchHarness(divider(), n=WIDTH + 3)
    h.set(A=7, B=2).scan()
    padding = h.s.rows(h.flat.inputs["B"])[-1]     # the last tile's lanes of B
    padding[3:] = 0
    h.scan()
    assert h.get("OUT").tolist() == [3] * h.n


def test_a_force_on_a_table_of_several_tiles_is_what_the_numpy_engine_gives():
    # (the numpy engine's forces are the scalar Harness's: tests/fbd/batch/test_harness.py)
    net = counter()
    n = 2 * WIDTH + 7
    native, numpy = (BatchHarness(net, n=n, engine=e) for e in ("native", "numpy"))
    forced = np.arange(n) % 4
    steps = [("set", "PULSE", True), ("force", "ctu.CV", forced), ("scan",), ("scan",),
             ("force", "ctu.Q", True), ("scan",), ("unforce", "ctu.CV"), ("scan",),
             ("force", "PULSE", np.arange(n) % 2 == 0), ("scan",), ("unforce", None), ("scan",)]
    for step in steps:
        for h in (native, numpy):
            if step[0] == "scan":
                h.scan()
            elif step[0] == "set":
                h.set({step[1]: step[2]})
            elif step[0] == "force":
                h.force(step[1], step[2])
            else:
                h.unforce(step[1])
        for path in native.signals():
            assert native.get(path).tolist() == numpy.get(path).tolist(), (step, path)
    assert native.get("CV").tolist() != [0] * n
