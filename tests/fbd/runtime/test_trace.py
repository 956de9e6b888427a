"""Traces: per-scan samples in numpy arrays, ring buffers, CSV and VCD export."""

import csv
import io
import re

import numpy as np

from fbd import BOOL, INT, LREAL, REAL, Network
from fbd.testing import Harness
from tests.fbd.toys import CLOCK, TICKS


def counter() -> Network:
    net = Network("Counter")
    en = net.input("EN", BOOL)
    t = net.add("t", TICKS(), EN=en)
    net.output("N", t.N)
    net.output("EN_OUT", en)
    net.output("T", net.add("clock", CLOCK()).T)
    net.output("K", 0.5, REAL)
    return net


def test_trace_records_every_scan_into_typed_arrays():
    h = Harness(counter())
    tr = h.trace("N", "EN_OUT", "T", "K")
    h.set(EN=True).scan(3)
    h.set(EN=False).scan(2)
    assert len(tr) == 5
    assert tr["N"].tolist() == [1, 2, 3, 3, 3] and tr["N"].dtype == np.int64
    assert tr["EN_OUT"].tolist() == [True, True, True, False, False]
    assert tr["T"].tolist() == [0, 5_000_000, 10_000_000, 15_000_000, 20_000_000]  # TIME in ns
    assert tr["K"].tolist() == [0.5] * 5
    assert tr.scans.tolist() == [1, 2, 3, 4, 5]
    assert np.allclose(tr.times, [0, 0.005, 0.010, 0.015, 0.020])


def test_a_ring_buffer_keeps_the_last_scans_in_order():
    h = Harness(counter())
    tr = h.trace("N", capacity=4)
    h.set(EN=True).scan(10)
    assert tr["N"].tolist() == [7, 8, 9, 10]
    assert tr.scans.tolist() == [7, 8, 9, 10]


def test_unbounded_traces_grow_past_their_first_allocation():
    h = Harness(counter())
    tr = h.trace("N")
    h.set(EN=True).scan(3000)
    assert len(tr) == 3000 and tr["N"][-1] == 3000


def test_csv_has_a_header_and_one_row_per_scan():
    h = Harness(counter())
    tr = h.trace("N", "EN_OUT", "T")
    h.set(EN=True).scan(2)
    rows = list(csv.reader(io.StringIO(tr.csv_text())))
    assert rows == [["scan", "time_s", "N", "EN_OUT", "T"],
                    ["1", "0.000000", "1", "1", "0.000000"],
                    ["2", "0.005000", "2", "1", "0.005000"]]


def test_vcd_declares_nested_scopes_and_writes_only_changes(tmp_path):
    net = Network("Top")
    inner = Network("Inner")
    inner.output("N", inner.add("t", TICKS(), EN=inner.input("EN", BOOL)).N)
    m = net.add("m", inner, EN=net.input("EN", BOOL))
    net.output("N", m.N)
    h = Harness(net)
    tr = h.trace("EN", "m.t.N", "N")
    h.set(EN=True).scan(2)
    h.set(EN=False).scan(2)
    path = tmp_path / "run.vcd"
    tr.to_vcd(str(path))
    text = path.read_text()
    header, body = text.split("$enddefinitions $end\n")
    assert "$timescale 1us $end" in header
    assert "$scope module Top $end" in header and "$scope module m $end" in header
    assert "$scope module t $end" in header
    assert "$var wire 1 ! EN $end" in header and "$var wire 16 # N $end" in header
    # time 0: everything; 5000: N changes; 10000: EN falls; 15000: nothing changes
    assert re.split(r"^#", body, flags=re.M)[1:] == [
        "0\n1!\nb1 \"\nb1 #\n", "5000\nb10 \"\nb10 #\n", "10000\n0!\n"]


def test_vcd_writes_negative_integers_in_twos_complement_and_reals():
    net = Network("N")
    net.output("XO", net.input("X", INT))
    net.output("RO", net.input("R", REAL))
    h = Harness(net)
    tr = h.trace("XO", "RO")
    h.set(X=-2, R=1.5).scan()
    body = tr.vcd_text().split("$enddefinitions $end\n")[1]
    assert "b1111111111111110 !" in body and "r1.5 \"" in body


def test_a_trace_of_two_tasks_samples_once_the_later_task_has_run():
    """The second task has priority 1, so it runs after the main task in each tick:
    its N is sampled after it ran, 1, 2, 3, not 0, 1, 2 (fbd run's rows likewise)."""
    from fbd import Plc
    plc = Plc(counter(), 0.01)
    plc.add_task("second", counter(), "T#10ms", priority=1)
    plc.set("EN", True)
    plc.set("second:EN", True)
    tr = plc.trace(["N", "second:N"])
    plc.scan(3)
    assert list(tr["N"]) == list(tr["second:N"]) == [1, 2, 3]


def test_a_tick_recorder_of_one_task_waits_for_a_task_added_after_it():
    from fbd import Plc
    plc = Plc(counter(), 0.01)
    seen = []

    class Recorder:
        def record(self, view, scan, now_us):
            seen.append((scan, view[(plc.task("second"), n_slot)]))

    plc.record_ticks(Recorder())
    second = plc.add_task("second", counter(), "T#10ms", priority=1)
    n_slot = second.program.signal("N").slot
    plc.set("second:EN", True)
    plc.scan(2)
    assert seen == [(1, 1), (2, 2)]


def test_a_real_is_traced_as_its_single_precision_value_and_written_as_its_shortest_text():
    net = Network("N")
    net.output("RO", net.input("R", REAL))
    net.output("LO", net.input("L", LREAL))
    h = Harness(net)
    tr = h.trace("RO", "LO")
    h.set(R=0.1, L=0.1).scan()
    assert tr["RO"].tolist() == [0.10000000149011612] and tr["LO"].tolist() == [0.1]
    rows = list(csv.reader(io.StringIO(tr.csv_text())))
    assert rows[1][2:] == ["0.1", "0.1"]                # not 0.10000000149011612
    body = tr.vcd_text().split("$enddefinitions $end\n")[1]
    assert "r0.1 !" in body and "r0.1 \"" in body
