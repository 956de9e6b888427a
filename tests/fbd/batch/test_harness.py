"""The BatchHarness API on both batch engines: values for all or per instance,
reading any signal, forcing and writing as a Harness does, time, and the
errors that name the place."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

import blocks
from fbd import BOOL, INT, LINT, LREAL, REAL, STRING, TIME, FbdError, Network, UnknownSignal
from fbd.batch import BatchHarness
from fbd.testing import Harness
from fbd.types import string_of
from tests.fbd.batch.agreement import BATCH_ENGINES


@pytest.fixture(params=BATCH_ENGINES)
def engine(request) -> str:
    return request.param


def counter() -> Network:
    """A counter of rising edges with a reset, its count held in a MEMORY, and a timer."""
    net = Network("Counter")
    pulse, reset = net.input("PULSE", BOOL), net.input("RESET", BOOL)
    limit = net.input("LIMIT", INT, 3)
    ctu = net.add("ctu", blocks.CTU(), CU=pulse, R=reset, PV=limit)
    hold = net.add("hold", blocks.MEMORY(INT), IN=ctu.CV, SET=ctu.Q)
    ton = net.add("ton", blocks.TON(), IN=ctu.Q, PT="T#10ms")
    net.output("Q", ctu.Q)
    net.output("CV", ctu.CV)
    net.output("HELD", hold.OUT)
    net.output("LATE", ton.Q)
    return net


def test_one_value_for_all_and_one_per_instance_are_latched_at_the_next_scan(engine):
    h = BatchHarness(counter(), n=4, engine=engine)
    h.set(PULSE=True, LIMIT=np.array([1, 2, 3, 4]))
    assert (h.get("ctu.PV") == 3).all()          # not latched before a scan
    h.scan()
    assert h.get("CV").tolist() == [1, 1, 1, 1]
    assert h.get("Q").tolist() == [True, False, False, False]
    h.set(PULSE=[False, True, False, True]).scan()
    h.set(PULSE=[True, True, True, True]).scan()
    # instance 0 stops at its PV of 1 (CTU counts while CV < PV, as matiec's);
    # instances 1 and 3 held PULSE: no edge
    assert h.get("CV").tolist() == [1, 1, 2, 1]
    assert h.get("Q").dtype == bool and h.get("CV").dtype == np.int16
    assert h.scans == 3 and h.time == pytest.approx(0.015)


def test_each_instance_is_its_own_harness(engine):
    nets = counter()
    h = BatchHarness(nets, n=3, engine=engine)
    scalar = [Harness(nets) for _ in range(3)]
    rng = np.random.default_rng(1)
    for _ in range(40):
        pulse = rng.random(3) < 0.5
        reset = rng.random(3) < 0.1
        h.set(PULSE=pulse, RESET=reset).scan()
        for i, s in enumerate(scalar):
            s.set(PULSE=bool(pulse[i]), RESET=bool(reset[i])).scan()
        for path in ("Q", "CV", "HELD", "LATE", "ctu.CU_M", "hold.SET", "ton.ET"):
            assert h.get(path).tolist() == [s.get(path) for s in scalar], path


def test_time_comes_as_timedelta64_and_goes_in_as_timedeltas_or_timedelta64(engine):
    net = Network("Delay")
    go, pt = net.input("GO", BOOL), net.input("PT", TIME)
    ton = net.add("ton", blocks.TON(), IN=go, PT=pt)
    net.output("Q", ton.Q)
    h = BatchHarness(net, n=3, engine=engine)
    h.set(GO=True, PT=np.array([0, 5, 10], "timedelta64[ms]")).scan(2)
    assert h.get("ton.ET").dtype == np.dtype("timedelta64[us]")
    assert h.get("ton.ET").tolist() == [datetime.timedelta(0), datetime.timedelta(milliseconds=5),
                                        datetime.timedelta(milliseconds=5)]
    assert h.get("Q").tolist() == [True, True, False]
    h.set(PT="T#1ms").scan()
    assert h.get("Q").all()
    h.set(PT=[datetime.timedelta(seconds=1), "T#2s", "T#3s"])
    with pytest.raises(FbdError, match="timedelta64"):
        h.set(PT=np.array([1, 2, 3]))
    h.set(PT=np.array([1, 2, 3], "timedelta64[ns]")).scan()      # TIME holds ns
    assert h.get_raw("PT").tolist() == [1, 2, 3]
    with pytest.raises(FbdError, match="below the ns"):
        h.set(PT=np.array([1, 2, 3], "timedelta64[ps]"))


def test_reals_are_single_precision_in_and_out_and_one_out_of_range_is_refused(engine):
    net = Network("Sum")
    x, y = net.input("X", REAL), net.input("Y", LREAL)
    net.output("S", net.add("s", blocks.ADD(REAL), IN1=x, IN2=0.2).OUT)
    net.output("T", net.add("t", blocks.ADD(LREAL), IN1=y, IN2=0.2).OUT)
    net.output("L", net.add("l", blocks.LINT_TO_REAL(), IN=net.input("N", LINT)).OUT)
    h = BatchHarness(net, n=3, engine=engine)
    h.set(X=np.array([0.1, 16777217.0, -3e38]), Y=[0.1, 16777217.0, -3e38],
          N=np.array([2**60 + 2**36 + 1, 1, -1])).scan()
    assert h.get("S").dtype == np.float32 and h.get("T").dtype == np.float64
    assert h.get("S").tolist() == [0.30000001192092896, 16777216.0, -3.0000000054977558e38]
    assert h.get("T").tolist() == [0.30000000000000004, 16777217.2, -3e38]
    assert h.get("L").tolist() == [2.0**60 + 2.0**37, 1.0, -1.0]   # rounded once
    with pytest.raises(FbdError, match=r"X\[1\]: 3.5e\+38 is out of range for REAL"):
        h.set(X=np.array([0.0, 3.5e38, 1.0]))
    h.set(Y=np.array([0.0, 3.5e38, 1.0]))     # an LREAL holds it


def test_a_constant_driven_signal_reads_as_n_copies(engine):
    h = BatchHarness(counter(), n=2, engine=engine)
    assert h.get("ton.PT").tolist() == [datetime.timedelta(milliseconds=10)] * 2


def test_force_and_unforce_behave_as_in_the_scalar_harness(engine):
    net = counter()
    h = BatchHarness(net, n=2, engine=engine)
    s = Harness(net)
    steps = [("force", "ctu.CV", 7), ("set", "PULSE", True), ("scan",), ("scan",),
             ("force", "HELD", 99), ("set", "PULSE", False), ("scan",), ("force", "PULSE", True),
             ("scan",), ("unforce", "ctu.CV"), ("scan",), ("unforce", "PULSE"), ("scan",),
             ("scan",), ("unforce", None), ("scan",), ("write", "hold.OUT", 5), ("scan",)]
    for step in steps:
        for target in (h, s):
            if step[0] == "scan":
                target.scan()
            elif step[0] == "set":
                target.set({step[1]: step[2]})
            elif step[0] == "force":
                target.force(step[1], step[2])
            elif step[0] == "write":
                target.write(step[1], step[2])
            else:
                target.unforce(step[1])
        for path in ("Q", "CV", "HELD", "ctu.CV", "hold.OUT", "PULSE", "ctu.CU"):
            assert h.get(path).tolist() == [s.get(path)] * 2, (step, path)


def test_a_force_may_differ_per_instance(engine):
    net = counter()
    h = BatchHarness(net, n=3, engine=engine)
    scalar = [Harness(net) for _ in range(3)]
    cv, pulse = [1, 2, 3], [True, False, True]
    h.force("ctu.CV", np.array(cv))               # what reads CV sees the forced values
    h.force("PULSE", pulse)
    for s, c, p in zip(scalar, cv, pulse):
        s.force("ctu.CV", c)
        s.force("PULSE", p)
    for step in range(3):
        for target in (h, *scalar):
            if step == 1:
                target.unforce("ctu.CV")
            target.scan()
        for path in ("CV", "hold.IN", "Q", "ctu.CU"):
            assert h.get(path).tolist() == [s.get(path) for s in scalar], (step, path)
    assert h.get("CV").tolist() == [1, 2, 3]


def test_reset_starts_every_instance_again_without_compiling(engine):
    h = BatchHarness(counter(), n=2, engine=engine)
    program = h.program
    h.set(PULSE=True).scan(3)
    h.reset()
    assert h.scans == 0 and h.get("CV").tolist() == [0, 0] and h.get("PULSE").tolist() == [False] * 2
    assert h.program is program


def test_blocks_that_cannot_be_vectorised_run_per_instance_and_say_why():
    net = Network("Stack")
    push, value = net.input("PUSH", BOOL), net.input("V", INT)
    text = net.input("S", STRING)
    lifo = net.add("lifo", blocks.LIFO(INT, depth=4), PUSH=push, IN=value)
    net.add("len", blocks.LEN(), IN=text)
    net.output("TOP", lifo.OUT)
    h = BatchHarness(net, n=3, engine="numpy")
    assert set(h.per_instance) == {"LIFO(INT, depth=4)", "LEN(INT)"}
    assert "list" in h.per_instance["LIFO(INT, depth=4)"]
    h.set(PUSH=True, V=[1, 2, 3], S=["", "ab", "xyz"]).scan()
    h.set(PUSH=False).scan()
    h.set(PUSH=True, V=[10, 20, 30]).scan()
    assert h.get("TOP").tolist() == [10, 20, 30] and h.get("lifo.COUNT").tolist() == [2, 2, 2]
    assert h.get("lifo.DATA").tolist() == [[1, 10], [2, 20], [3, 30]]
    assert h.get("len.OUT").tolist() == [0, 2, 3]


def test_a_declared_string_holds_its_length_in_every_instance():
    net = Network("Texts")
    text = net.input("S", string_of(200))
    net.output("N", net.add("len", blocks.LEN(), IN=text).OUT)
    net.output("SHORT", net.add("short", blocks.MOVE(string_of(10)), IN=text).OUT)
    h = BatchHarness(net, n=3, engine="numpy")
    h.set(S=["a" * 200, "b" * 5, "c" * 130]).scan()
    assert h.get("S").tolist() == ["a" * 200, "b" * 5, "c" * 130]
    assert h.get("N").tolist() == [126, 5, 126]         # LEN's STRING parameter: 126 of them
    assert h.get("SHORT").tolist() == ["a" * 10, "b" * 5, "c" * 10]
    with pytest.raises(FbdError, match=r"S: string of 201 characters is longer than STRING\[200\]'s 200"):
        h.set(S="x" * 201)


def test_errors_name_the_place(engine):
    h = BatchHarness(counter(), n=4, engine=engine)
    with pytest.raises(UnknownSignal, match="ctu.CVV.*did you mean ctu.CV"):
        h.get("ctu.CVV")
    with pytest.raises(FbdError, match="'CV' is not an input"):
        h.set(CV=1)
    with pytest.raises(FbdError, match="LIMIT: 3 values for 4 instances"):
        h.set(LIMIT=[1, 2, 3])
    with pytest.raises(FbdError, match=r"LIMIT\[2\]: 40000 is out of range for INT"):
        h.set(LIMIT=np.array([1, 2, 40000, 4]))
    with pytest.raises(FbdError, match="LIMIT.*not an INT"):
        h.set(LIMIT=1.5)
    with pytest.raises(FbdError, match="float64 are not INTs"):
        h.set(LIMIT=np.array([1.0, 2, 3, 4]))
    with pytest.raises(FbdError, match="ton.PT is wired to the constant"):
        h.force("ton.PT", "T#1s")
    with pytest.raises(FbdError, match="HELD is not forced"):
        h.unforce("HELD")
    with pytest.raises(FbdError, match="n must be an integer"):
        BatchHarness(counter(), n=0, engine=engine)
    with pytest.raises(FbdError, match="cannot run -1 scans"):
        h.scan(-1)


def test_a_timers_start_time_stays_what_the_block_keeps_there(engine):
    # TON only ever stores the PLC clock in START: the vector code relies on it
    h = BatchHarness(counter(), n=2, engine=engine)
    h.write("ton.START", "T#1h")
    with pytest.raises(FbdError, match="ton.START: the batch engine keeps this state within"):
        h.write("ton.START", datetime.timedelta(days=10 ** 5))   # beyond 2**61 ns


def test_memory_is_checked_before_anything_is_allocated(engine):
    net = counter()
    small = BatchHarness(net, n=10, engine=engine)
    per = small.program.bytes_per_instance()
    assert small.memory_needed() == 10 * per
    with pytest.raises(FbdError, match=r"1000000 instances of Counter need about .* MiB .* "
                                       r"over the batch limit of 1.0 MiB: lower n"):
        BatchHarness(net, n=1_000_000, memory_limit=1 << 20, engine=engine)


def test_reals_rounding_is_vector_code_a_float32_cast(engine):
    net = Network("Reals")
    x = net.input("X", REAL)
    net.output("S", net.add("s", blocks.MUL(REAL, n=3), IN1=x, IN2=x, IN3=0.1).OUT)
    h = BatchHarness(net, n=4, engine=engine)
    assert h.per_instance == {}
    h.set(X=[0.1, 3e38, -1e-30, float("nan")]).scan()   # normal, overflowing, subnormal, NaN
    scalar = Harness(net)
    for k, value in enumerate([0.1, 3e38, -1e-30, float("nan")]):
        want = scalar.set(X=value).scan().get("S")
        got = float(h.get("S")[k])
        assert got == want or (want != want and got != got), (value, got, want)
