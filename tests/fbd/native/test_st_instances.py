"""How the native engine cuts a POU into functions (docs/native.md, "ST, IL
and SFC POUs"): the instances of one FB type share one function taking their
bases, each keeping its own state; a long body runs as functions of a
bounded size called in turn. Both as on the Python engine and in matiec's C."""

import pytest

import fbd
from fbd.native import apart
from fbd.st import pyemit
from fbd.st.project import load as load_st
from fbd.testing import Harness
from tests.fbd.native.agreement import same
from tests.fbd.st.scans import expected, text
from tests.fbd.st.test_generated_code import LONG_BODY, LONG_BODY_ROWS

pytest.importorskip("llvmlite")

COUNTERS = """FUNCTION_BLOCK Counter
  VAR_INPUT inc : INT; END_VAR
  VAR_OUTPUT total : INT; END_VAR
  VAR hist : ARRAY[0..3] OF INT; k : INT; t : TON; END_VAR
  total := total + inc;
  hist[k MOD 4] := total;
  k := k + 1;
  t(IN := TRUE, PT := T#1s);
END_FUNCTION_BLOCK

FUNCTION_BLOCK Pair
  VAR_INPUT x : INT; END_VAR
  VAR_OUTPUT y : INT; END_VAR
  VAR a, b : Counter; END_VAR
  a(inc := x);
  b(inc := 2 * x);
  y := a.total + b.total;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR_INPUT go : INT; END_VAR
  VAR c1, c2 : Counter; p1, p2 : Pair; s1, s2, s3, h1, h2, h3 : INT; END_VAR
  c1(inc := go);
  c2(inc := 3);
  p1(x := 1);
  p2(x := go);
  s1 := c1.total; s2 := c2.total; s3 := p1.y + 100 * p2.y;
  h1 := c1.hist[1]; h2 := c2.hist[2]; h3 := p2.b.hist[3];
END_PROGRAM
"""

#: matiec's rows (the oracle, go = k - 1 in scan k): s1, s2, s3, h1, h2, h3
MATIEC = [(0, 3, 3, 0, 0, 0), (1, 6, 306, 1, 0, 0), (3, 9, 909, 1, 9, 0),
          (6, 12, 1812, 1, 9, 12), (10, 15, 3015, 1, 9, 12), (15, 18, 4518, 15, 9, 12)]


def test_instances_of_one_fb_type_share_a_function_and_keep_their_own_state():
    net = load_st("two.st", text=COUNTERS).network("prg")
    py, na = fbd.Plc(net, engine="python"), fbd.Plc(net, engine="native")
    for scan, row in enumerate(MATIEC):
        for plc in (py, na):
            plc.write("prg.go", scan)
            plc.scan(1)
            assert tuple(plc.get(f"prg.{n}") for n in ("s1", "s2", "s3", "h1", "h2", "h3")) == row
        assert all(same(a, b) for a, b in zip(py.main.s, na.main.s)), scan
    assert na.get("prg.p2.b.hist") == py.get("prg.p2.b.hist") != na.get("prg.p2.a.hist")
    source = na.main.program.source()
    # the program's, Counter's (four instances: two in the program, two in each Pair)
    # and Pair's (two instances)
    assert source.count("define internal i64 @\"p0_m1") == 3


def test_an_instance_written_from_outside_changes_only_itself_on_the_native_engine():
    net = load_st("two.st", text=COUNTERS).network("prg")
    na = fbd.Plc(net, engine="native")
    na.scan(1)
    na.write("prg.p1.b.total", 1000)
    na.write("prg.go", 0)
    na.scan(1)
    assert (na.get("prg.p1.a.total"), na.get("prg.p1.b.total"), na.get("prg.p2.b.total")) == \
        (2, 1002, 0)
    assert na.get("prg.s3") == 2 + 1002


WHOLE = pyemit.PART_STATEMENTS


@pytest.mark.parametrize("part", [2, 3, WHOLE])
def test_a_long_body_cut_into_functions_gives_matiecs_rows_and_the_python_engines_table(
        monkeypatch, part):
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", part)
    net = load_st("prog.st", text=LONG_BODY).network("prg")
    py = Harness(net, engine="python", cycle=0.02)
    na = Harness(net, engine="native", cycle=0.02)
    got = []
    for k in range(1, 9):
        for h in (py, na):
            if k == 5:
                h.write("prg.k", -2)
            h.scan()
        assert all(same(a, b) for a, b in zip(py.plc.main.s, na.plc.main.s)), k
        got.append(",".join([str(k), str((k - 1) * 20)] + [
            text(na.get(f"prg.{c}"), c == "r") for c in ("a", "b", "c", "r", "stop")]))
    assert "\n".join(got) == expected(LONG_BODY_ROWS)
    parts = na.plc.main.program.source().count("define internal i64 @\"p0_m1.part")
    assert parts == (0 if part == WHOLE else -(-11 // part))


APART = """FUNCTION Twice : INT
  VAR_INPUT x : INT; END_VAR
  Twice := x * 2 + 1;
END_FUNCTION

FUNCTION_BLOCK Adder
  VAR_INPUT inc : INT; END_VAR
  VAR_OUTPUT total : INT; END_VAR
  total := total + inc;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR_INPUT k : INT := 1; END_VAR
  VAR_OUTPUT n : INT; END_VAR
  VAR a, b : INT; ad : Adder; cells : ARRAY[0..3] OF INT; stop : BOOL; END_VAR
  a := Twice(a MOD 100);
  ad(inc := a);
  b := ad.total MOD 1000;
  stop := b MOD 4 = -1;
  IF stop THEN
    RETURN;
  END_IF;
  cells[k] := cells[k] + Twice(b);
  n := n + 1;
  ad(inc := k);
  a := a - Twice(k);
END_PROGRAM
"""

#: matiec's oracle: --scans 8 --set k=3@5 (a PROGRAM alone runs every 20 ms)
APART_ROWS = """scan,t_ms,a,b,n,stop,ad.total,cells[1],cells[3]
1,0,-2,1,1,FALSE,2,3,0
2,20,-3,-1,1,TRUE,-1,3,0
3,40,-8,-6,2,FALSE,-5,-8,0
4,60,-18,-20,3,FALSE,-19,-47,0
5,80,-42,-54,4,FALSE,-51,-47,-107
6,100,-90,-134,5,FALSE,-131,-47,-374
7,120,-186,-310,6,FALSE,-307,-47,-993
8,140,-178,-478,7,FALSE,-475,-47,-1948"""


def test_a_long_body_compiled_apart_part_by_part_links_its_calls_and_keeps_the_values(
        monkeypatch):
    # past FULL_OPTIMISE_LINES (here 0) each part is a module of its own, linked by
    # name to the FUNCTION and the FB function it calls and to the POU calling it
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", 2)
    monkeypatch.setattr(apart, "FULL_OPTIMISE_LINES", 0)
    net = load_st("apart.st", text=APART).network("prg")
    py = Harness(net, engine="python", cycle=0.02)
    na = Harness(net, engine="native", cycle=0.02)
    source = na.plc.main.program.source()
    assert source.count("define i64 @\"p0_m1.part") == 5
    assert "define internal" not in source.split("define void @c0_v0")[0]
    got = []
    for k in range(1, 9):
        for h in (py, na):
            if k == 5:
                h.write("prg.k", 3)
            h.scan()
        assert all(same(a, b) for a, b in zip(py.plc.main.s, na.plc.main.s)), k
        cells = na.get("prg.cells")
        got.append(",".join([str(k), str((k - 1) * 20)] + [text(na.get(f"prg.{c}")) for c in (
            "a", "b", "n", "stop", "ad.total")] + [text(cells[1]), text(cells[3])]))
    assert "\n".join(got) == expected(APART_ROWS)
    errors = []
    for h in (py, na):      # forcing an output recompiles the chunk, the parts apart again
        h.plc.force("prg.n", 100)
        h.scan()
        h.write("prg.k", 4)
        with pytest.raises(fbd.FbdError) as e:
            h.scan()
        errors.append((str(e.value), h.get("prg.a"), h.get("prg.ad.total"), h.get("prg.cells")))
    assert errors[0] == errors[1]
    assert errors[1][0].startswith("apart.st:23: in PROGRAM prg: array index 4 is outside 0..3")
    assert na.plc.main.program.source().count("define i64 @\"p0_m2.part") == 5


FAULTS = """FUNCTION_BLOCK Ring
  VAR_INPUT pos : INT; END_VAR
  VAR cells : ARRAY[0..3] OF INT; END_VAR
  cells[pos] := cells[pos] + 1;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR_INPUT k : INT; END_VAR
  VAR r1, r2 : Ring; n : INT; END_VAR
  n := n + 1;
  r1(pos := 0);
  r2(pos := k);
  n := n + 10;
END_PROGRAM
"""


@pytest.mark.parametrize("part", [1, WHOLE])
def test_a_fault_in_one_instance_of_a_shared_function_or_in_a_part_names_the_pou_and_line(
        monkeypatch, part):
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", part)
    net = load_st("ring.st", text=FAULTS).network("prg")
    errors = []
    for engine in ("python", "native"):
        h = Harness(net, engine=engine)
        h.write("prg.k", 3)
        h.scan()
        h.write("prg.k", 4)
        with pytest.raises(fbd.FbdError) as e:
            h.scan()
        errors.append((str(e.value), h.get("prg.n"), h.get("prg.r1.cells"), h.get("prg.r2.cells")))
    assert errors[0] == errors[1]
    assert errors[1][0].startswith(
        "ring.st:4: in FUNCTION_BLOCK Ring: array index 4 is outside 0..3")
    assert errors[1][1:] == (12, [2, 0, 0, 0], [0, 0, 0, 1])


def test_a_variable_forced_in_one_instance_of_a_shared_function_holds_there_only():
    net = load_st("two.st", text=COUNTERS).network("prg")
    plcs = [fbd.Plc(net, engine="python"), fbd.Plc(net, engine="native")]
    for k in range(8):
        for plc in plcs:
            plc.write("prg.go", k)
            if k == 2:
                plc.force("prg.c2.total", 100)
                plc.force("prg.p1.b.k", 7)
            if k == 5:
                plc.unforce("prg.c2.total")
            plc.scan(1)
        assert all(same(a, b) for a, b in zip(plcs[0].main.s, plcs[1].main.s)), k
    na = plcs[1]
    assert (na.get("prg.c1.total"), na.get("prg.c2.total"), na.get("prg.p1.b.k"),
            na.get("prg.p2.b.k")) == (28, 109, 7, 8)
    assert (na.get("prg.p1.b.hist"), na.get("prg.p2.b.hist")) == ([2, 4, 0, 16], [20, 30, 42, 56])


def test_two_program_instances_of_one_type_keep_their_fb_instances_apart():
    text = COUNTERS + """
CONFIGURATION cfg
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM one WITH fast : prg;
    PROGRAM two WITH fast : prg;
  END_RESOURCE
END_CONFIGURATION
"""
    project = load_st("cfg.st", text=text)
    py, na = project.plc(engine="python"), project.plc(engine="native")
    for k in range(6):
        for plc in (py, na):
            plc.write("two.go", k)
            plc.scan(1)
        assert all(same(a, b) for a, b in zip(py.main.s, na.main.s)), k
    assert (na.get("one.s3"), na.get("two.s3")) == (3 * 6 + 0, 4518)


def test_checking_the_native_form_is_the_build_so_each_function_is_lowered_once(monkeypatch):
    from fbd.native import pou
    made = []
    function = pou.PouLowering.function
    monkeypatch.setattr(pou.PouLowering, "function",
                        lambda self: made.append(self.name) or function(self))
    net = load_st("two.st", text=COUNTERS).network("prg")
    plc = fbd.Plc(net)      # auto: the check, then the build
    assert plc.engine == "native"
    # the program's, Counter's and Pair's: once each, for six instances
    assert sorted(made) == ['@"p0_m1"', '@"p0_m1.c1"', '@"p0_m1.p1"']


TIMERS = """PROGRAM prg
  VAR_INPUT go : BOOL; pt : TIME; END_VAR
  VAR ton1 : TON; tof1 : TOF; tp1 : TP; END_VAR
  ton1(IN := go, PT := pt);
  tof1(IN := go, PT := pt);
  tp1(IN := go, PT := pt);
END_PROGRAM
"""
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


@pytest.mark.parametrize("clock_start", [0.0, 9.2e9])   # now near 0 and near TIME's top
def test_a_timers_elapsed_time_is_exact_for_every_start_and_now(clock_start):
    """``now - START`` needs 65 bits (the debugger may set START to anything) and
    is computed from a 64-bit difference and its overflow flag: the three timers
    give the Python engine's values, slot by slot, at both ends of both ranges."""
    net = load_st("timers.st", text=TIMERS).network("prg")
    py = fbd.Plc(net, engine="python", clock_start=clock_start)
    na = fbd.Plc(net, engine="native", clock_start=clock_start)
    clock = round(clock_start * 1e9)
    starts = [I64_MIN, I64_MIN + 1, -1, 0, 1, clock + 1, I64_MAX - 1, I64_MAX]
    presets = [I64_MIN, -1, 0, 1, 10**18, I64_MAX]
    scans = 0
    for start in starts:
        for pt in presets:
            for go in (True, True, False, False, True):
                for plc in (py, na):
                    plc.write("prg.go", go)
                    plc.write("prg.pt", f"T#{pt}ns")
                    for timer in ("ton1", "tof1", "tp1"):
                        plc.write(f"prg.{timer}.START", f"T#{start}ns")
                    plc.scan()
                scans += 1
                for path in py.signals():
                    assert same(py.get(path), na.get(path)), (start, pt, go, path)
    assert scans == len(starts) * len(presets) * 5
