"""A function block's inputs are instance data, as IEC and matiec keep them: a call
sets those it is given, the body may change them, and the next call without them
sees what the body left, in ST, IL and SFC, called from ST or placed in a network."""

from fbd import INT, Network
from fbd.st.project import load
from fbd.testing import Harness
from tests.fbd.st import scans

FB = """
FUNCTION_BLOCK Fb
VAR_INPUT x : INT; END_VAR
VAR_OUTPUT y : INT; END_VAR
  x := x + 10;
  y := x;
END_FUNCTION_BLOCK
"""
CALLED_TWICE = FB + """
PROGRAM main
VAR f : Fb; a : INT; b : INT; END_VAR
  f(x := 1);
  a := f.y;
  f();
  b := f.y;
END_PROGRAM
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --scans 2 --watch f.x --watch f.y --watch a --watch b
CALLED_TWICE_ROWS = """
scan,t_ms,f.x,f.y,a,b
1,0,21,21,11,21
2,5,21,21,11,21
"""


def test_a_call_without_an_input_sees_what_the_body_wrote_into_it():
    assert scans.rows(CALLED_TWICE, "f.x f.y a b".split(), 2) == scans.expected(CALLED_TWICE_ROWS)


EVERY_WAY = """
TYPE Point : STRUCT a : INT; b : INT; END_STRUCT; END_TYPE

FUNCTION_BLOCK Inner
VAR_OUTPUT o : INT; END_VAR
  o := 7;
END_FUNCTION_BLOCK

FUNCTION_BLOCK Acc
VAR_IN_OUT io : INT; END_VAR
  io := io + 1;
END_FUNCTION_BLOCK

FUNCTION_BLOCK Fb
VAR_INPUT arr : ARRAY[1..2] OF INT; s : Point; k : INT; m : INT; n : INT; END_VAR
VAR_OUTPUT y : INT; END_VAR
VAR q : Inner; adder : Acc; END_VAR
  arr[1] := arr[1] + 1;
  s.a := s.a + 2;
  FOR k := 1 TO 3 DO y := y + 1; END_FOR;
  q(o => m);
  adder(io := n);
  IF y > 5 THEN RETURN; END_IF;
  n := n + 100;
END_FUNCTION_BLOCK

PROGRAM main
VAR f : Fb; END_VAR
  f();
END_PROGRAM
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --scans 3, the same program (a RETURN added:
# what the body wrote before it is kept too)
EVERY_WAY_ROWS = """
scan,t_ms,f.arr[1],f.s.a,f.k,f.m,f.n,f.y
1,0,1,2,3,7,101,3
2,5,2,4,3,7,102,6
3,10,3,6,3,7,103,9
"""


def test_an_element_a_member_a_for_variable_an_output_bound_and_an_in_out_are_kept_too():
    h = scans.harness(EVERY_WAY)
    rows = []
    for k in range(1, 4):
        h.scan()
        arr, s = h.get("main.f.arr"), h.get("main.f.s")
        rows.append(",".join(str(v) for v in [k, (k - 1) * 5, arr[0], s["a"]] + [
            h.get(f"main.f.{n}") for n in "kmny"]))
    assert "\n".join(rows) == scans.expected(EVERY_WAY_ROWS)


IL_AND_SFC = """
FUNCTION_BLOCK Fil
VAR_INPUT x : INT; END_VAR
VAR_OUTPUT y : INT; END_VAR
  LD x
  ADD 10
  ST x
  ST y
END_FUNCTION_BLOCK

FUNCTION_BLOCK Fsfc
VAR_INPUT x : INT; END_VAR
VAR_OUTPUT y : INT; END_VAR
  INITIAL_STEP s0: bump(N); END_STEP
  ACTION bump:
    x := x + 10;
    y := x;
  END_ACTION
END_FUNCTION_BLOCK

PROGRAM main
VAR a : Fil; b : Fsfc; END_VAR
  a(x := 1);
  a();
  b(x := 1);
  b();
END_PROGRAM
"""


def test_il_and_sfc_function_blocks_keep_what_they_wrote_into_an_input():
    # matiec (iec2c 6bb2c339df6f): a.x, a.y, b.x, b.y = 21 in every scan
    assert scans.rows(IL_AND_SFC, "a.x a.y b.x b.y".split(), 2) == "1,0,21,21,21,21\n2,5,21,21,21,21"


# matiec (iec2c 6bb2c339df6f), the ST Beremiz writes for the network below (an open
# input is not named in the call): f1(); f2(x := a); with a = 1:
# scan,t_ms,f1.x,f1.y,f2.x,f2.y
# 1,0,10,10,11,11
# 2,20,20,20,11,11
# 3,40,30,30,11,11


def two_instances() -> Network:
    block = load("fb.st", text=FB).blocks["Fb"]
    net = Network("two")
    a = net.input("a", INT, 1)
    f1, f2 = net.add("f1", block()), net.add("f2", block(), x=a)
    net.output("y1", f1.y)
    net.output("y2", f2.y)
    return net


def test_in_a_network_a_wired_input_is_set_every_scan_and_an_open_one_keeps_its_value():
    h = Harness(two_instances())
    seen = []
    for _ in range(3):
        h.scan()
        seen.append((h.get("f1.x"), h.get("y1"), h.get("f2.x__KEPT"), h.get("y2")))
    assert seen == [(10, 10, 11, 11), (20, 20, 11, 11), (30, 30, 11, 11)]
    assert h.get("f2.x") == 1       # the wire's value; the instance's is f2.x__KEPT


def test_the_batch_engine_keeps_an_open_input_in_every_instance():
    from fbd.batch import BatchHarness
    h = BatchHarness(two_instances(), n=2)
    h.set(a=[1, 2])
    seen = [(h.scan().get("y1").tolist(), h.get("y2").tolist()) for _ in range(3)]
    assert seen == [([10, 10], [11, 12]), ([20, 20], [11, 12]), ([30, 30], [11, 12])]


def test_a_function_block_drawn_in_fbd_keeps_what_it_wrote_into_an_open_input(tmp_path):
    """The same FB drawn in FBD (x := x + 10; y := x), placed twice: g with x open, g2
    with x wired to 1; matiec runs the ST Beremiz writes for it as the rows above."""
    from fbd.plcopen import load_project
    from tests.fbd.plcopen import files as f
    fb = f.pou("Fb", f.group("inputVars", f.var("x", "INT")) + f.group("outputVars", f.var("y", "INT")),
               f.inv(1, "x") + f.inv(2, "10")
               + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
               + f.outv(4, "x", 3, pin="OUT") + f.inv(5, "x", y=40) + f.outv(6, "y", 5, y=40),
               kind="functionBlock")
    instances = "".join(f'<variable name="{n}"><type><derived name="Fb"/></type></variable>'
                        for n in ("g", "g2"))
    main = f.pou("Main", f.group("outputVars", f.var("Y", "INT"), f.var("Y2", "INT"))
                 + f.group("localVars", instances),
                 f.block(1, "Fb", {}, ["y"], inst="g") + f.outv(2, "Y", 1, pin="y")
                 + f.inv(3, "1", y=60) + f.block(4, "Fb", {"x": (3, None)}, ["y"], inst="g2", y=60)
                 + f.outv(5, "Y2", 4, pin="y", y=60))
    path = tmp_path / "fb.xml"
    path.write_text(f.HEAD + fb + main + f.TAIL)
    h = Harness(load_project(path).network("Main"))
    seen = [(h.scan().get("Y"), h.get("g.x"), h.get("Y2")) for _ in range(3)]
    assert seen == [(10, 10, 11), (20, 20, 11), (30, 30, 11)]
