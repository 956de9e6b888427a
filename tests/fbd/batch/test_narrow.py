"""The native batch engine's narrowed rows: a timer's ET in 32 bits where its
literal PT proves it fits (the clock readings in START never more than 2**31 ns
past the clock), every value equal to the scalar engines' to the ns, and the
rare path that builds the program again with 64-bit rows when a write, a
force or the clock goes beyond what the narrowed code assumes."""

from __future__ import annotations

import numpy as np
import pytest

import blocks
from fbd import BOOL, TIME, Network
from fbd.batch import BatchHarness
from fbd.batch.bench import mixed_network
from fbd.batch.layout import WIDTH
from fbd.testing import Harness

pytest.importorskip("llvmlite")

EDGE = (1 << 31) - 1                  # ns: the largest PT whose ET fits 32 bits
EDGE_PT = "T#2s147ms483us647ns"       # = EDGE
PAST_EDGE_PT = "T#2s147ms483us648ns"  # = 2**31: its ET needs 64 bits


def timers(pt: str = EDGE_PT) -> Network:
    """TON, TOF and TP at the literal ``pt``, a TON at T#10s (ET beyond 32 bits),
    one whose PT is an input, and blocks reading the ETs (narrowed and not)."""
    net = Network("Timers")
    go = net.input("GO", BOOL)
    ton = net.add("ton", blocks.TON(), IN=go, PT=pt)
    net.add("tof", blocks.TOF(), IN=go, PT=pt)
    net.add("tp", blocks.TP(), IN=go, PT=pt)
    long = net.add("long", blocks.TON(), IN=go, PT="T#10s")
    net.add("wired", blocks.TON(), IN=go, PT=net.input("PT", TIME, "T#1s"))
    later = net.add("later", blocks.MAX(TIME), IN1=ton.ET, IN2=long.ET)
    net.output("LATER", later.OUT)
    net.output("TON_ET", ton.ET)
    return net


PATHS = ("ton.ET", "tof.ET", "tp.ET", "long.ET", "wired.ET", "LATER", "TON_ET", "ton.START",
         "tof.START", "tp.START", "ton.Q", "tof.Q", "tp.Q", "long.Q")


def _row(h: BatchHarness, path: str) -> str:
    return h.program.layout.rows[h.flat.signal(path).slot].ir


def _agree(h: BatchHarness, scalars: list, scans: int, rng, paths=PATHS, step=None) -> None:
    """``scans`` scans of random GO per instance; every path, raw ns, equal."""
    for k in range(scans):
        go = rng.random(h.n) < 0.6
        h.set(GO=go)
        for i, s in enumerate(scalars):
            s.set(GO=bool(go[i]))
        if step is not None:
            step(k)
        h.scan()
        for s in scalars:
            s.scan()
        for path in paths:
            assert h.get_raw(path).tolist() == [s.plc.get_raw(path) for s in scalars], (k, path)


def _both(n: int, engine: str = "python", **options) -> tuple[BatchHarness, list]:
    """A batch of ``n`` instances of :func:`timers` at a 0.5 s cycle, and ``n`` scalar harnesses."""
    net = timers()
    return (BatchHarness(net, n=n, cycle=0.5, **options),
            [Harness(net, 0.5, engine=engine, **options) for _ in range(n)])


def _write(h: BatchHarness, scalars: list, path: str, value, how: str = "write") -> None:
    """Write (or force) ``path`` in the batch and in every scalar harness."""
    for target in (h, *scalars):
        getattr(target, how)(path, value)


def test_a_timers_et_is_a_32_bit_row_where_its_literal_pt_fits_and_64_bits_elsewhere():
    h = BatchHarness(timers(), n=4, cycle=0.5)
    assert h.engine == "native"
    assert [_row(h, p) for p in ("ton.ET", "tof.ET", "tp.ET", "TON_ET")] == ["i32"] * 4
    assert [_row(h, p) for p in ("long.ET", "wired.ET", "ton.START", "LATER")] == ["i64"] * 4
    past = BatchHarness(timers(PAST_EDGE_PT), n=4)
    assert _row(past, "ton.ET") == "i64"
    assert h.program.bytes_per_instance() < past.program.bytes_per_instance()
    assert h.get_raw("ton.ET").dtype == np.int64    # values read out as TIME's


@pytest.mark.parametrize("engine", ["python", "native"])
def test_narrowed_timers_agree_with_the_scalar_engines_to_the_ns_up_to_the_rows_edge(engine):
    n = WIDTH + 3
    h, scalars = _both(n, engine)
    pts = np.array([EDGE, EDGE - 1, 1, 0] * n, dtype=np.int64)[:n].astype("timedelta64[ns]")
    h.set(PT=pts)
    for i, s in enumerate(scalars):
        s.set(PT=f"T#{int(pts[i].astype(np.int64))}ns")
    _agree(h, scalars, 24, np.random.default_rng(1))
    assert h.program.narrow and EDGE in h.get_raw("ton.ET").tolist()   # ET = PT, the edge
    assert (h.get_raw("long.ET") > EDGE).any()


def test_an_et_written_beyond_what_its_timer_stores_widens_the_rows_and_stays_exact():
    n = 5
    h, scalars = _both(n)
    rng = np.random.default_rng(2)
    _agree(h, scalars, 3, rng)
    _write(h, scalars, "tof.ET", f"T#{EDGE}ns")   # what TOF can store: still narrow
    assert h.program.narrow
    _write(h, scalars, "ton.ET", "T#1h")          # beyond: the program is built again, wide
    assert not h.program.narrow and _row(h, "ton.ET") == "i64"
    assert h.get_raw("ton.ET").tolist() == [3_600 * 10 ** 9] * n
    _agree(h, scalars, 8, rng)


def test_a_force_beyond_the_narrowed_row_widens_it_and_holds():
    n = 3
    h, scalars = _both(n)
    _write(h, scalars, "TON_ET", "T#-3s", "force")
    assert not h.program.narrow
    _agree(h, scalars, 6, np.random.default_rng(3))
    assert h.get_raw("TON_ET").tolist() == [-3 * 10 ** 9] * n


@pytest.mark.parametrize("clock_start", [-(EDGE + 1) / 1e9 + 1e-6, -3.0])
def test_a_clock_start_more_than_2_31_ns_before_the_start_times_widens_only_past_the_edge(
        clock_start):
    n = 4
    h, scalars = _both(n, clock_start=clock_start)   # (the scalar native clock: from 0 on)
    _agree(h, scalars, 10, np.random.default_rng(4))
    assert h.program.narrow == (clock_start > -3.0)


def test_a_start_written_ahead_of_the_clock_widens_at_the_next_scan():
    n = 4
    h, scalars = _both(n)
    rng = np.random.default_rng(5)
    _agree(h, scalars, 2, rng)
    # the next scan is at 1 s: START 2**31 ns ahead of it, the edge, gives ET = -2**31
    _write(h, scalars, "ton.M", True)
    _write(h, scalars, "ton.Q", False)
    _write(h, scalars, "ton.START", f"T#{10 ** 9 + (1 << 31)}ns")
    for target in (h, *scalars):
        target.set(GO=True).scan()
    assert h.get_raw("ton.ET").tolist() == [s.plc.get_raw("ton.ET") for s in scalars] \
        == [-(1 << 31)] * n
    assert h.program.narrow
    _write(h, scalars, "ton.M", True)
    _write(h, scalars, "ton.START", "T#1h")
    _agree(h, scalars, 4, rng)
    assert not h.program.narrow


def test_widening_keeps_forces_retired_instances_and_a_scan_function_taken_before():
    n = WIDTH + 2
    h, scalars = _both(n)
    rng = np.random.default_rng(6)
    _write(h, scalars, "tp.Q", True, "force")
    _agree(h, scalars, 4, rng)
    retired = [1, WIDTH + 1]
    kept = {path: h.get_raw(path)[retired].tolist() for path in PATHS}
    h.retire(retired)
    scan = h.program.scan                # as BatchHarness.scan holds it for k scans
    h.write("ton.ET", "T#1h")
    assert not h.program.narrow
    h.set(GO=True)
    scan(h.s, 10 ** 10)                  # the narrow program's function runs the wide code
    h.retire([0])                        # records made before the widening, moved
    for path in PATHS:
        assert h.get_raw(path)[retired].tolist() == kept[path], path
    assert h.get_raw("tp.Q").tolist() == [True] * n


def test_the_benchmarks_timers_stream_32_bit_ets():
    h = BatchHarness(mixed_network(300, 1), n=WIDTH)
    ets = [p for p in h.signals() if p.endswith(".ET")]
    assert ets and all(_row(h, p) == "i32" for p in ets)
