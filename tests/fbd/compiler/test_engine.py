"""Scan semantics: order, feedback, macros, forcing, tasks, time, determinism."""

import datetime

import pytest

import blocks
from fbd import BOOL, INT, Network, Plc, compile_network
from fbd.errors import FbdError
from fbd.testing import Harness
from tests.fbd.toys import CLOCK, INC, PLUS, TICKS


def chain(n: int) -> Network:
    net = Network("Chain")
    x = net.input("X", INT)
    for i in range(n):
        x = net.add(f"inc{i}", INC(), IN=x).OUT
    net.output("Y", x)
    return net


def test_order_is_topological_with_ties_in_the_order_added():
    net = Network("N")
    a = net.input("A", BOOL)
    late = net.add("late", blocks.NOT())          # added first, fed by 'early'
    early = net.add("early", blocks.NOT(), IN=a)
    other = net.add("other", blocks.NOT(), IN=a)
    net.connect(early.OUT, late.IN)
    net.output("Q", late.OUT)
    net.output("R", other.OUT)
    assert compile_network(net).info()["order"] == ["early", "late", "other"]


def test_every_block_runs_once_per_scan_and_a_chain_settles_in_one_scan():
    h = Harness(chain(50))
    h.set(X=7).scan()
    assert h.get("Y") == 57
    assert h.get("inc0.OUT") == 8


def test_feedback_reads_the_previous_scan_even_when_the_source_runs_first():
    net = Network("N")
    src = net.add("src", INC(INT), IN=0)
    count = net.add("count", TICKS())
    # src runs before dst in the order, so dst must see src's value from the scan before.
    dst = net.add("dst", PLUS(), A=count.N)
    net.connect(count.N, dst.B, feedback=True)
    net.output("NOW", count.N)
    net.output("SUM", dst.OUT)
    net.output("ONE", src.OUT)
    h = Harness(net)
    seen = []
    for _ in range(4):
        h.scan()
        seen.append((h.get("NOW"), h.get("SUM")))
    assert seen == [(1, 1), (2, 3), (3, 5), (4, 7)]


def test_an_accumulator_wired_to_itself_counts_scans():
    net = Network("Acc")
    acc = net.add("acc", PLUS(), B=1)
    net.connect(acc.OUT, acc.A, feedback=True)
    net.output("N", acc.OUT)
    h = Harness(net)
    h.scan(5)
    assert h.get("N") == 5
    assert h.get("acc.A") == 5  # an input reads what drives it


def test_feedback_on_the_first_scan_reads_the_initial_value():
    net = Network("N")
    a = net.add("a", INC(INT))
    b = net.add("b", INC(), IN=a.OUT)
    net.connect(b.OUT, a.IN, feedback=True)
    net.output("B", b.OUT)
    h = Harness(net)
    h.scan()
    assert h.get("B") == 2  # a saw 0, b saw 1
    h.scan()
    assert h.get("B") == 4


def latch() -> Network:
    net = Network("Latch")
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    q = net.add("or_", blocks.OR())
    keep = net.add("keep", blocks.AND(), IN1=q.OUT, IN2=net.add("nr", blocks.NOT(), IN=r).OUT)
    net.connect(s, q.IN1)
    net.connect(keep.OUT, q.IN2, feedback=True)
    net.output("Q", keep.OUT)
    return net


def test_macros_nest_three_deep_and_every_level_is_reachable_by_path():
    inner = latch()
    mid = Network("Mid")
    m = mid.add("latch", inner, S=mid.input("S", BOOL), R=mid.input("R", BOOL))
    mid.output("Q", m.Q)
    outer = Network("Outer")
    o = outer.add("mid", mid, S=outer.input("S", BOOL), R=False)
    outer.output("Q", o.Q)
    top = Network("Top")
    t1 = top.add("outer_1", outer, S=top.input("S1", BOOL))
    t2 = top.add("outer_2", outer, S=top.input("S2", BOOL))
    top.output("Q1", t1.Q)
    top.output("Q2", t2.Q)

    h = Harness(top)
    h.set(S1=True).scan()
    h.set(S1=False).scan(3)
    assert (h.get("Q1"), h.get("Q2")) == (True, False)
    assert h.get("outer_1.mid.latch.keep.OUT") is True
    assert h.get("outer_1.mid.latch.S") is False      # a macro input port reads its driver
    assert h.get("outer_1.mid.R") is False            # a literal bound to a macro input
    assert h.get("outer_2.mid.Q") is False            # a macro output port
    info = compile_network(top).info()
    assert info["macros"] == {"Latch": 2, "Mid": 2, "Outer": 2}
    assert info["blocks"] == 6


def test_an_unconnected_macro_input_takes_its_default():
    inner = Network("Inner")
    inner.output("Y", inner.add("n", blocks.NOT(), IN=inner.input("X", BOOL, default=True)).OUT)
    top = Network("Top")
    top.output("Y", top.add("m", inner).Y)
    h = Harness(top)
    h.scan()
    assert h.get("Y") is False


def test_outputs_are_published_at_the_end_of_the_scan_and_inputs_latched_at_the_start():
    h = Harness(chain(1))
    h.set(X=1)
    assert h.get("Y") == 0 and h.get("X") == 0   # nothing happens between scans
    h.scan()
    assert h.get("X") == 1 and h.get("Y") == 2


def test_force_holds_a_block_output_for_every_reader_until_unforced():
    net = Network("N")
    a = net.input("A", BOOL)
    g = net.add("g", blocks.NOT(), IN=a)
    n = net.add("n", blocks.NOT(), IN=g.OUT)
    net.output("Q", n.OUT)
    h = Harness(net)
    h.scan()
    assert h.get("Q") is False
    h.force("g.OUT", False)
    h.scan(3)
    assert h.get("g.OUT") is False and h.get("Q") is True
    assert h.plc.forces == {"g.OUT": False}
    h.set(A=True).scan()
    assert h.get("g.OUT") is False          # the block cannot overwrite a force
    h.unforce("g.OUT")
    h.scan()
    assert h.get("g.OUT") is False and h.get("Q") is True  # now really computed: NOT TRUE
    h.set(A=False).scan()
    assert h.get("Q") is False
    with pytest.raises(FbdError, match="is not forced"):
        h.unforce("g.OUT")


def test_force_an_input_and_an_output_image():
    h = Harness(chain(2))
    h.force("X", 10)
    h.set(X=1).scan()
    assert h.get("Y") == 12
    h.force("Y", 0)
    h.scan()
    assert h.get("Y") == 0 and h.get("inc1.OUT") == 12
    h.unforce()
    h.scan()
    assert h.get("Y") == 3 and h.plc.forces == {}


def test_forcing_a_stateful_blocks_output_keeps_its_inner_state_running():
    net = Network("N")
    t = net.add("t", TICKS())
    net.output("N", t.N)
    h = Harness(net)
    h.scan(2)
    h.force("t.N", 100)
    h.scan(3)
    assert h.get("N") == 100 and h.get("t.seen") == 5
    h.unforce("t.N")
    h.scan()
    assert h.get("N") == 6


def test_write_sets_a_value_once_and_a_force_blocks_writes():
    net = Network("N")
    t = net.add("t", TICKS())
    net.output("N", t.N)
    h = Harness(net)
    h.write("t.seen", 40)
    h.scan()
    assert h.get("N") == 41
    h.force("t.seen", 1)
    with pytest.raises(FbdError, match="is forced"):
        h.write("t.seen", 2)


def test_simulated_time_advances_by_the_cycle_and_blocks_read_it():
    net = Network("N")
    net.output("T", net.add("c", CLOCK()).T)
    h = Harness(net, cycle="T#10ms")
    h.scan()
    assert h.get("T") == datetime.timedelta(0) and h.time == pytest.approx(0.010)
    h.scan(99)
    assert h.get("T") == datetime.timedelta(milliseconds=990)
    assert h.scans == 100 and h.plc.now_us == 1_000_000


def test_clock_start_offsets_the_time_blocks_read():
    net = Network("N")
    net.output("T", net.add("c", CLOCK()).T)
    plc = Plc(net, clock_start=2.5)
    plc.scan()
    assert plc.get("T") == datetime.timedelta(seconds=2.5)


def test_run_for_and_run_until():
    plc = Plc(chain(1), cycle=0.005)
    plc.run_for("T#100ms")
    assert plc.scans == 20
    plc.set("X", 5)
    assert plc.run_until(lambda p: p.get("Y") == 6) == 1
    with pytest.raises(FbdError, match="still false after 3 scans"):
        plc.run_until(lambda p: False, max_scans=3)


def test_tasks_run_at_their_own_periods_in_priority_order():
    plc = Plc(chain(1), cycle=0.010)
    fast_net = Network("Fast")
    fast_net.output("N", fast_net.add("t", TICKS()).N)
    fast = plc.add_task("fast", fast_net, cycle=0.002, priority=-1)
    plc.scan(5)
    assert plc.scans == 5 and fast.scans == 25
    assert plc.get("fast:N") == 25
    assert "fast:t.seen" in plc.signals()


def test_cold_restart_returns_every_value_to_its_initial_value():
    net = Network("N")
    net.output("N", net.add("t", TICKS()).N)
    h = Harness(net)
    h.scan(7)
    h.plc.restart()
    assert h.get("N") == 0
    h.scan()
    assert h.get("N") == 1


class ScanClock:
    """The wall clock scans are timed with, advancing by the next of ``costs`` (ns)
    between a scan's start and its end: each scan takes what the test says, on any
    machine."""

    def __init__(self, costs):
        self.costs = iter(costs)
        self.now = 0
        self.started = False

    def __call__(self) -> int:
        if self.started:
            self.now += next(self.costs)
        self.started = not self.started
        return self.now


def test_the_watchdog_counts_scans_slower_than_their_cycle():
    # a 1 ms cycle; scans of 1.5 ms, 0.2 ms, 1 ms (exactly the cycle: in time), 4 ms
    clock = ScanClock([1_500_000, 200_000, 1_000_000, 4_000_000])
    h = Harness(chain(3), cycle="T#1ms", clock=clock)
    reports = []
    h.plc.main.on_overrun.append(lambda task, scan, us: reports.append((scan, us)))
    h.scan(4)
    stats = h.plc.stats.summary()
    assert stats["scans"] == 4 and stats["overruns"] == 2
    assert reports == [(1, 1500.0), (4, 4000.0)]
    assert (stats["min_us"], stats["mean_us"], stats["max_us"]) == (200.0, 1675.0, 4000.0)


def test_same_program_and_inputs_give_the_same_scans_bit_for_bit():
    def run():
        net = latch()
        h = Harness(net)
        tr = h.trace("Q", "keep.OUT", "or_.OUT")
        for k in range(200):
            h.set(S=(k * 7919) % 13 == 0, R=(k * 104729) % 17 == 0).scan()
        return tr.csv_text()
    assert run() == run()


def test_generated_source_can_be_dumped(tmp_path):
    path = tmp_path / "scan.py"
    prog = compile_network(chain(3), dump=str(path))
    text = path.read_text()
    assert "def scan(s, now):" in text and "# inc2: INC" in text
    assert text == prog.source()


def test_generated_source_dump_by_environment(tmp_path, monkeypatch):
    path = tmp_path / "env.py"
    monkeypatch.setenv("FBD_DUMP", str(path))
    compile_network(chain(1))
    assert "def _chunk_0(s, now):" in path.read_text()


def test_step_into_a_scan_block_by_block_matches_the_whole_scan():
    net = chain(4)
    prog = compile_network(net)
    s = prog.new_table()
    s[prog.inputs["X"]] = 3
    prog.snapshot(s)
    for i in prog.order:
        prog.leaf_function(i)(s, 0)
    prog.publish(s)
    whole = prog.new_table()
    whole[prog.inputs["X"]] = 3
    prog.scan(whole, 0)
    assert s == whole


def test_a_blocks_internal_storage_can_be_read_but_not_written_forced_or_traced():
    h = Harness.block(blocks.LIFO(INT))
    h.set(IN=3, PUSH=True).scan()
    assert h.get("blk.DATA") == [3]
    for act in (lambda: h.write("blk.DATA", [1]), lambda: h.force("blk.DATA", [1]),
                lambda: h.trace("blk.DATA")):
        with pytest.raises(FbdError, match="blk.DATA is a block's internal storage"):
            act()


def test_other_simpy_processes_interleave_with_scans_at_their_own_times():
    net = Network("N")
    net.output("N", net.add("t", TICKS()).N)
    plc = Plc(net, cycle=0.005)
    seen = []

    def plant(env):
        while True:
            yield env.timeout(12_000)          # every 12 ms of simulated time
            seen.append((env.now, plc.get("N")))

    plc.env.process(plant(plc.env))
    plc.scan(10)
    # scans at 0, 5, 10 ms have run by 12 ms; 0..20 by 24 ms; 0..35 by 36 ms; 0..45 by 48
    assert seen == [(12_000, 3), (24_000, 5), (36_000, 8), (48_000, 10)]
    assert plc.scans == 10 and plc.now_us == 50_000


def test_a_programs_input_starts_at_its_declared_default():
    net = Network("N")
    x = net.input("X", INT, 7)
    net.output("Y", net.add("m", blocks.MOVE(INT), IN=x).OUT)
    h = Harness(net)
    h.scan()
    assert h.get("X") == 7 and h.get("Y") == 7
    h.force("X", 1)
    h.scan()
    h.unforce("X")
    h.scan()
    assert h.get("Y") == 7          # back to the value the process gives it


def test_a_before_scan_hook_writes_inputs_that_the_same_scan_latches():
    net = Network("Echo")
    net.output("OUT", net.add("m", blocks.MOVE(), IN=net.input("IN", INT)).OUT)
    plc = Plc(net)
    seen = []

    def hook(task):
        seen.append(task.scans)
        plc.set("IN", 10 * (task.scans + 1))

    plc.main.before_scan.append(hook)
    plc.scan()
    assert plc.get("OUT") == 10
    plc.scan(2)
    assert plc.get("OUT") == 30 and seen == [0, 1, 2]
    plc.main.before_scan.remove(hook)
    plc.scan()
    assert plc.get("OUT") == 30 and seen == [0, 1, 2]


def test_a_program_nobody_holds_any_more_is_freed():
    """Compiled programs and their networks have reference cycles; compilation must
    not leave them where the collector never looks (a new game compiles anew)."""
    import gc
    import weakref

    def compile_one():
        net = Network("Counter")
        acc = net.add("acc", blocks.ADD(INT), IN2=1)
        net.connect(acc.OUT, acc.IN1, feedback=True)
        net.output("N", acc.OUT)
        plc = Plc(net)
        plc.scan(3)
        return weakref.ref(plc.main.program), weakref.ref(net)

    program, net = compile_one()
    gc.collect()
    assert program() is None and net() is None


def test_a_block_that_assigns_its_output_and_then_wraps_it_reads_no_old_value():
    """ADD assigns OUT and then wraps it in place, so the scan does not load OUT's
    last value before the block; MEMORY assigns OUT only when it writes, so it must."""
    net = Network("Wraps")
    a, w = net.input("A", INT), net.input("W", BOOL)
    add = net.add("add", blocks.ADD(), IN1=a, IN2=1)
    net.add("diff", blocks.SUB(), IN1=add.OUT, IN2=a)
    mem = net.add("mem", blocks.MEMORY(), IN=add.OUT, SET=w)
    net.output("Q", mem.OUT)
    program = compile_network(net)
    source = program.source()
    for pure in ("add.OUT", "diff.OUT"):
        assert f"= s[{program.signal(pure).slot}]\n" not in source, pure
    assert f"= s[{program.signal('mem.OUT').slot}]\n" in source
    h = Harness(net)
    h.set(A=32767, W=True)
    h.scan()
    assert (h.get("add.OUT"), h.get("diff.OUT"), h.get("Q")) == (-32768, 1, -32768)
    h.set(A=-32768, W=False)
    h.scan()
    assert (h.get("add.OUT"), h.get("diff.OUT"), h.get("Q")) == (-32767, 1, -32768)


def test_a_source_compiled_in_runs_keeps_each_line_where_it_is(monkeypatch):
    from fbd.compiler import compileruns
    monkeypatch.setattr(compileruns, "COMPILE_BYTES", 10)
    functions = ["def first(x):\n    return x + 1\n",
                 "def second(x):\n    y = x * 2\n    return y\n",
                 "def third(x):\n    y = x - 1\n    return 1 // y\n"]
    src = "\n".join(functions)
    codes = compileruns.compile_functions(functions, "<runs>")
    namespace: dict = {}
    for code in codes:
        exec(code, namespace)
    assert len(codes) == 3 and functions == []      # each text let go once compiled
    assert (namespace["first"](1), namespace["second"](3), namespace["third"](3)) == (2, 6, 0)
    with pytest.raises(ZeroDivisionError) as failed:
        namespace["third"](1)
    # both counted from 0
    assert failed.traceback[-1].lineno == src.splitlines().index("    return 1 // y")
