"""The flat program form: one immutable description that every backend reads."""

import gc
import weakref

import pytest

import blocks
from fbd import BOOL, INT, Network, ValidationError
from fbd.compiler import FlatProgram, ScanProgram, compile_network, flatten
from fbd.compiler.front import QUIET_GC_OVER, count_instances, quiet_gc
from fbd.compiler.interp import Interpreter


def counter_with_late_reader() -> Network:
    """``count`` feeds itself and ``late`` over feedback wires: ``late`` runs
    after its source, so it must read a copy taken at scan start."""
    net = Network("counter")
    en = net.input("EN", BOOL, default=True)
    count = net.add("count", blocks.ADD(INT), IN2=1)
    net.connect(count.OUT, count.IN1, feedback=True)
    late = net.add("late", blocks.MOVE(INT))
    net.connect(count.OUT, late.IN, feedback=True)
    pick = net.add("pick", blocks.SEL(INT), G=en, IN0=0, IN1=late.OUT)
    net.output("COUNT", count.OUT)
    net.output("LATE", pick.OUT)
    net.output("K", 7, INT)
    return net


def test_the_form_is_immutable():
    flat = flatten(counter_with_late_reader())
    assert isinstance(flat.leaves, tuple) and isinstance(flat.order, tuple)
    with pytest.raises(TypeError):
        flat.inputs["EN"] = 3
    with pytest.raises(TypeError):
        flat.snapshots[0] = 1
    with pytest.raises(AttributeError):
        flat.order = ()


def test_a_feedback_wire_whose_source_ran_earlier_reads_the_scan_start_copy():
    flat = flatten(counter_with_late_reader())
    count, late = (next(leaf for leaf in flat.leaves if leaf.path == p) for p in ("count", "late"))
    src = late.inputs["IN"]
    assert src.feedback and flat.position[count.index] < flat.position[late.index]
    copy = flat.read_slot(late.index, src)
    assert copy == flat.snapshots[count.outputs["OUT"]] != count.outputs["OUT"]
    # its own output, read back by the block itself, needs no copy
    assert flat.read_slot(count.index, count.inputs["IN1"]) == count.outputs["OUT"]
    assert [(flat.leaves[i].path, port) for i, port, _src in flat.feedback_edges()] == \
        [("count", "IN1"), ("late", "IN")]


def test_outputs_are_an_image_published_from_their_sources():
    flat = flatten(counter_with_late_reader())
    published = dict(flat.publish)
    assert set(published) == {flat.outputs["COUNT"], flat.outputs["LATE"]}
    assert flat.outputs["K"] not in published          # a constant output is never copied
    table = flat.new_table()
    assert table[flat.outputs["K"]] == 7 and table[flat.outputs["COUNT"]] == 0


def test_every_backend_runs_the_same_form_to_the_same_values():
    flat = flatten(counter_with_late_reader())
    program = ScanProgram(flat)
    it = Interpreter(flat)
    s = program.new_table()
    for scan in range(5):
        program.scan(s, scan * 5_000_000)        # the clock a program reads: ns
        it.scan(scan * 5000)
        for path in ("COUNT", "LATE", "late.OUT", "count.OUT"):
            assert s[flat.signal(path).slot] == it.get_raw(path), (scan, path)
    assert s[flat.signal("COUNT").slot] == 5 and s[flat.signal("LATE").slot] == 4


def test_a_compiled_program_keeps_only_the_form_not_the_builder():
    from fbd.compiler import front
    made = []
    real = front._Builder

    class Watched(real):
        def __init__(self, net):
            super().__init__(net)
            made.append(weakref.ref(self))

    front._Builder = Watched
    try:
        program = compile_network(counter_with_late_reader())
    finally:
        front._Builder = real
    gc.collect()
    assert made and made[0]() is None
    assert isinstance(program.flat, FlatProgram)


def test_validation_problems_come_before_any_backend():
    net = Network("broken")
    net.add("add", blocks.ADD(INT), IN1=1)  # IN2 is not connected
    with pytest.raises(ValidationError, match="(?s)broken.*add.IN2: input is not connected"):
        flatten(net)


def test_instances_are_counted_through_macros_without_walking_each_placement():
    cell = Network("Cell")
    x = cell.input("X", INT)
    cell.output("Y", cell.add("inc", blocks.ADD(INT), IN1=x, IN2=1).OUT)
    row = Network("Row")
    for i in range(4):
        row.add(f"c{i}", cell, X=i)
    top = Network("Top")
    for j in range(3):
        top.add(f"r{j}", row)
    top.add("alone", blocks.NOT(), IN=True)
    assert count_instances(top) == 3 * 4 + 1 == len(flatten(top).leaves)


def test_the_collector_is_left_alone_for_small_programs_and_restored_for_big_ones():
    assert gc.isenabled()
    with quiet_gc(10):
        assert gc.isenabled()
    with quiet_gc(QUIET_GC_OVER):
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with quiet_gc(QUIET_GC_OVER):
            pass
        assert not gc.isenabled()  # a host that had it off keeps it off
    finally:
        gc.enable()
