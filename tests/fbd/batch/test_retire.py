"""Retired instances (BatchHarness.retire): each reads back the values it had
when retired, the others go on as if nothing happened, and the native engine
skips a tile whose instances are all retired. Both engines, the same answers."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import blocks
from fbd import BOOL, INT, REAL, FbdError, Network
from fbd.batch import BatchHarness
from fbd.batch.layout import WIDTH
from fbd.block import Block, Port, register
from fbd.native import NativeTrap

pytest.importorskip("llvmlite")

ENGINES = ("native", "numpy")


def counter() -> Network:
    net = Network("Counter")
    pulse, reset = net.input("PULSE", BOOL), net.input("RESET", BOOL)
    ctu = net.add("ctu", blocks.CTU(), CU=pulse, R=reset, PV=net.input("LIMIT", INT, 3))
    ton = net.add("ton", blocks.TON(), IN=ctu.Q, PT="T#10ms")
    lifo = net.add("lifo", blocks.LIFO(INT, depth=3), PUSH=pulse, POP=reset, IN=ctu.CV)
    net.output("CV", ctu.CV)
    net.output("LATE", ton.Q)
    net.output("TOP", lifo.OUT)
    return net


PATHS = ("CV", "LATE", "TOP", "PULSE", "LIMIT", "ctu.CU_M", "ton.ET", "ton.START", "lifo.DATA",
         "lifo.COUNT")


def _drive(h: BatchHarness, rng: np.random.Generator) -> None:
    h.set(PULSE=rng.random(h.n) < 0.6, RESET=rng.random(h.n) < 0.1).scan()


def _values(h: BatchHarness) -> dict:
    return {path: h.get(path).tolist() for path in PATHS}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_retired_instance_reads_back_its_values_and_the_others_go_on_unchanged(engine):
    n = 3 * WIDTH + 5                    # whole tiles, and the last one padded
    net = counter()
    h, free = (BatchHarness(net, n=n, engine=engine) for _ in range(2))
    gone = np.r_[0:WIDTH, WIDTH + 3, 2 * WIDTH + 1, n - 1]   # a whole tile, and lanes of others
    for k in range(20):
        if k == 6:
            h.retire(gone)
            kept = _values(h)
        for one in (h, free):
            _drive(one, np.random.default_rng(k))
        if k >= 6:
            now, alive = _values(h), _values(free)
            for path in PATHS:
                for i in range(n):
                    want = kept[path][i] if i in gone else alive[path][i]
                    assert now[path][i] == want, (k, path, i)
    assert _values(free) != kept     # the run moved on: what was kept is not what is now


@pytest.mark.parametrize("engine", ENGINES)
def test_what_is_set_written_or_forced_for_a_retired_instance_is_ignored(engine):
    h = BatchHarness(counter(), n=WIDTH + 2, engine=engine)
    h.set(LIMIT=5, PULSE=True).scan(2)
    h.retire([1, WIDTH + 1])
    h.set(LIMIT=np.arange(h.n).astype(np.int16))
    h.write("ctu.CV", 9)
    h.force("TOP", 4)
    h.scan()
    assert h.get("LIMIT")[[0, 1, WIDTH, WIDTH + 1]].tolist() == [0, 5, WIDTH, 5]
    assert h.get("CV")[[0, 1, WIDTH + 1]].tolist() == [9, 1, 1]
    assert h.get("TOP")[[0, 1]].tolist() == [4, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_whole_retired_tile_keeps_its_values_through_sets_writes_forces_and_scans(engine):
    # the native engine keeps a whole retired tile's values in the tile itself,
    # which nothing may write again; a lane retired alone is copied out
    n = 2 * WIDTH + 2
    h, free = (BatchHarness(counter(), n=n, engine=engine) for _ in range(2))
    for one in (h, free):
        one.set(LIMIT=5, PULSE=True).scan(2).set(PULSE=False).scan()
    h.retire(np.r_[0:WIDTH]).retire([WIDTH + 1])
    # what h holds now, not read through h (that would keep a copy), nor left to
    # change with free's LIFO lists
    kept = copy.deepcopy(_values(free))
    for one in (h, free):
        one.set(LIMIT=np.arange(n).astype(np.int16))
        one.write("ctu.CV", 9)
        one.force("TOP", 4)       # a force regrows the native table
        one.set(PULSE=True).scan().set(PULSE=False).scan()
    now, alive = _values(h), _values(free)
    for path in PATHS:
        assert [now[path][i] for i in range(WIDTH)] == kept[path][:WIDTH], path
        assert now[path][WIDTH + 1] == kept[path][WIDTH + 1], path
        assert now[path][WIDTH] == alive[path][WIDTH] and now[path][-1] == alive[path][-1], path
    assert alive["CV"][0] != kept["CV"][0] and alive["TOP"][0] != kept["TOP"][0]


@pytest.mark.parametrize("engine", ENGINES)
def test_retiring_takes_indices_or_a_mask_once_and_reset_brings_every_instance_back(engine):
    h = BatchHarness(counter(), n=WIDTH + 2, engine=engine)
    h.set(PULSE=True).scan()
    h.retire(np.arange(h.n) % 2 == 0).retire([0, 0, 3]).retire([])
    assert np.flatnonzero(h.retired).tolist() == sorted({3, *range(0, h.n, 2)})
    h.set(PULSE=False).scan().set(PULSE=True).scan()
    assert h.get("CV").tolist() == [1 if i == 3 or i % 2 == 0 else 2 for i in range(h.n)]
    h.reset()
    assert not h.retired.any()
    h.set(PULSE=True).scan()
    assert h.get("CV").tolist() == [1] * h.n


@pytest.mark.parametrize("engine", ENGINES)
def test_reset_after_a_whole_tile_retired_scans_and_writes_it_again(engine):
    h = BatchHarness(counter(), n=2 * WIDTH, engine=engine)
    h.set(PULSE=True).scan()
    h.retire(np.r_[0:WIDTH]).reset()
    h.set(LIMIT=np.arange(5, 5 + 2 * WIDTH).astype(np.int16), PULSE=True).scan()
    assert h.get("LIMIT").tolist() == list(range(5, 5 + 2 * WIDTH))
    assert h.get("CV").tolist() == [1] * 2 * WIDTH
    assert h.program.read(h.s, h.flat.signal("CV").slot).tolist() == [1] * 2 * WIDTH


@pytest.mark.parametrize("bad, message", [
    ([WIDTH + 2], r"no instance 18 \(instances 0 to 17\)"),
    ([-1], "no instance -1"),
    (np.ones(3, dtype=bool), r"a mask of \(3,\) for 18 instances"),
    ([0.5], "instance indices or a mask of 18 BOOLs, not float64"),
])
def test_retiring_what_is_not_an_instance_is_one_clear_error(bad, message):
    h = BatchHarness(counter(), n=WIDTH + 2, engine="native")
    with pytest.raises(FbdError, match=message):
        h.retire(bad)
    assert not h.retired.any()


def test_only_the_native_engine_skips_retired_instances():
    assert BatchHarness(counter(), n=2, engine="native").skips_retired
    assert not BatchHarness(counter(), n=2, engine="numpy").skips_retired


def test_the_native_engine_writes_no_tile_whose_instances_are_all_retired():
    h = BatchHarness(counter(), n=2 * WIDTH, engine="native")
    h.set(LIMIT=5).scan()
    h.retire(np.r_[WIDTH:2 * WIDTH])
    h.set(LIMIT=7).scan()
    h.set(LIMIT=np.arange(2 * WIDTH).astype(np.int16)).scan()
    limit = h.program.read(h.s, h.flat.signal("LIMIT").slot)   # the table itself
    assert limit.tolist() == list(range(WIDTH)) + [5] * WIDTH


def test_the_native_engine_skips_a_tile_whose_instances_are_all_retired():
    h = BatchHarness(counter(), n=3 * WIDTH, engine="native")
    h.set(PULSE=True).scan()
    h.retire(np.r_[WIDTH:2 * WIDTH, 2 * WIDTH + 1])
    assert h.s.live.tolist() == [(1 << WIDTH) - 1, 0, ((1 << WIDTH) - 1) & ~2]
    h.set(PULSE=False).scan().set(PULSE=True).scan()
    cv = h.program.read(h.s, h.flat.signal("CV").slot)   # the table itself, not what get keeps
    assert cv[WIDTH:2 * WIDTH].tolist() == [1] * WIDTH            # not scanned
    assert cv[2 * WIDTH:].tolist() == [2] * WIDTH                 # scanned, retired lane too
    assert h.get("CV")[2 * WIDTH:].tolist() == [2, 1] + [2] * (WIDTH - 2)


@register
class BATCH_TEST_RETIRED_DIV(Block):
    """A user block dividing without a guard: Python raises on zero."""
    family = "test"
    inputs = [Port("A", INT), Port("B", INT), Port("X", REAL)]
    outputs = [Port("OUT", INT), Port("Y", REAL)]

    def code(self, io):
        return f"{io.OUT} = {io.A} // {io.B}\n{io.Y} = {io.X}"


@register
class BATCH_TEST_RETIRED_DIV_SIN(BATCH_TEST_RETIRED_DIV):
    """The same through the C library's sin: it runs lane by lane on the native
    batch engine."""
    helpers = {"math": math}

    def code(self, io):
        return f"{io.OUT} = {io.A} // {io.B}\n{io.Y} = math.sin({io.X})"


@pytest.mark.parametrize("block", [BATCH_TEST_RETIRED_DIV, BATCH_TEST_RETIRED_DIV_SIN])
def test_a_retired_instance_traps_no_more(block):
    net = Network("user")
    blk = net.add("blk", block(), A=net.input("A", INT), B=net.input("B", INT, 1),
                  X=net.input("X", REAL))
    net.output("OUT", blk.OUT)
    h = BatchHarness(net, n=2 * WIDTH, engine="native")
    assert bool(h.per_instance) == (block is BATCH_TEST_RETIRED_DIV_SIN)
    divisors = np.full(h.n, 2, dtype=np.int16)
    divisors[WIDTH + 3] = 0
    h.set(A=7).scan()
    h.set(B=divisors)
    with pytest.raises(NativeTrap, match=f"instance {WIDTH + 3}:"):
        h.scan()
    h.retire([WIDTH + 3]).scan()
    assert h.get("OUT").tolist() == [7 if i == WIDTH + 3 else 3 for i in range(h.n)]
