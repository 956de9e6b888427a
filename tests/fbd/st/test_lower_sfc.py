"""SFC charts lowered to ST (fbd.st.lower_sfc): every qualifier, divergence and
convergence, priorities, IL and ST conditions and actions, run scan by scan
with the rows matiec (iec2c 6bb2c339df6f, 5 ms cycle) gives; the flags by path;
the errors."""

import pytest

from fbd.st import StSemanticError, parse
from fbd.st import ast as A
from fbd.st.lower_sfc import Chart, lower_sfc
from tests.fbd.st import scans

STEP_TIME = """
PROGRAM main
VAR
  go : BOOL;
  cnt : INT;
  flag : BOOL;
  t1 : TIME;
  x1 : BOOL;
END_VAR
INITIAL_STEP S0:
END_STEP
STEP S1:
  A1(N);
  x1(P);
END_STEP
TRANSITION FROM S0 TO S1 := go; END_TRANSITION
TRANSITION FROM S1 TO S0 := S1.T >= T#20ms; END_TRANSITION
ACTION A1:
  cnt := cnt + 1;
  flag := S1.X;
  t1 := S1.T;
END_ACTION
END_PROGRAM
"""

# matiec: --scans 12 --set GO=TRUE@3 --set GO=FALSE@5 (A1 runs while S1 is active,
# not once more after, as matiec does; S1.T counts from 0 in its first scan)
STEP_TIME_ROWS = """
scan,t_ms,cnt,flag,t1,x1
1,0,0,FALSE,T#0ms,FALSE
2,5,0,FALSE,T#0ms,FALSE
3,10,1,TRUE,T#0ms,TRUE
4,15,2,TRUE,T#5ms,FALSE
5,20,3,TRUE,T#10ms,FALSE
6,25,4,TRUE,T#15ms,FALSE
7,30,4,TRUE,T#15ms,FALSE
8,35,4,TRUE,T#15ms,FALSE
9,40,4,TRUE,T#15ms,FALSE
10,45,4,TRUE,T#15ms,FALSE
11,50,4,TRUE,T#15ms,FALSE
12,55,4,TRUE,T#15ms,FALSE
"""

QUALIFIERS = """
PROGRAM main
VAR
  go : BOOL;
  stop : BOOL;
  pick : BOOL;
  n_cnt : INT;
  p_cnt : INT;
  p0_cnt : INT;
  s_cnt : INT;
  l_cnt : INT;
  d_cnt : INT;
  sd_cnt : INT;
  ds_cnt : INT;
  sl_cnt : INT;
  vs : BOOL;
  vp : BOOL;
  s0x : BOOL;
  s1x : BOOL;
  s2x : BOOL;
  s3x : BOOL;
  s4x : BOOL;
  s5x : BOOL;
  t2 : TIME;
END_VAR
INITIAL_STEP Start:
  s0x(N);
END_STEP
STEP S1:
  ActN(N);
  ActP(P);
  ActP0(P0);
  ActS(S);
  ActL(L, T#10ms);
  ActD(D, T#10ms);
  ActSD(SD, T#15ms);
  ActDS(DS, T#15ms);
  ActSL(SL, T#20ms);
  vs(S);
  vp(P);
  s1x(N);
END_STEP
STEP S2:
  ActS(R);
  s2x(N);
END_STEP
STEP S3:
  vs(R);
  s3x(N);
END_STEP
STEP S4:
  ActSD(R);
  ActDS(R);
  s4x(N);
END_STEP
STEP S5:
  s5x(N);
END_STEP
TRANSITION FROM Start TO S1 := go; END_TRANSITION
TRANSITION FROM S1 TO (S2, S3) := stop; END_TRANSITION
TRANSITION FROM (S2, S3) TO S4 :
  LD S2.T
  GE T#10ms
END_TRANSITION
TRANSITION (PRIORITY := 2) FROM S4 TO Start := TRUE; END_TRANSITION
TRANSITION (PRIORITY := 1) FROM S4 TO S5 := pick; END_TRANSITION
TRANSITION FROM S5 TO Start := NOT pick; END_TRANSITION
ACTION ActN:
  n_cnt := n_cnt + 1;
  t2 := S1.T;
END_ACTION
ACTION ActP: LD p_cnt
  ADD 1
  ST p_cnt
END_ACTION
ACTION ActP0:
  p0_cnt := p0_cnt + 1;
END_ACTION
ACTION ActS:
  s_cnt := s_cnt + 1;
END_ACTION
ACTION ActL:
  l_cnt := l_cnt + 1;
END_ACTION
ACTION ActD:
  d_cnt := d_cnt + 1;
END_ACTION
ACTION ActSD:
  sd_cnt := sd_cnt + 1;
END_ACTION
ACTION ActDS:
  ds_cnt := ds_cnt + 1;
END_ACTION
ACTION ActSL:
  sl_cnt := sl_cnt + 1;
END_ACTION
END_PROGRAM
"""

# matiec: --scans 24 --set GO=TRUE@2,16 --set GO=FALSE@3,17 --set STOP=TRUE@7,18
#         --set STOP=FALSE@8 --set PICK=TRUE@9 --set PICK=FALSE@14
QUALIFIERS_ROWS = """
scan,t_ms,n_cnt,p_cnt,p0_cnt,s_cnt,l_cnt,d_cnt,sd_cnt,ds_cnt,sl_cnt,vs,vp,s0x,s1x,s2x,s3x,s4x,s5x,t2
1,0,0,0,0,0,0,0,0,0,0,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#0ms
2,5,1,1,0,1,1,0,0,0,1,TRUE,TRUE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#0ms
3,10,2,1,0,2,2,0,0,0,2,TRUE,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#5ms
4,15,3,1,0,3,2,1,0,0,3,TRUE,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#10ms
5,20,4,1,0,4,2,2,1,1,4,TRUE,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#15ms
6,25,5,1,0,5,2,3,2,2,4,TRUE,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#20ms
7,30,5,1,1,5,2,3,3,3,4,FALSE,FALSE,FALSE,FALSE,TRUE,TRUE,FALSE,FALSE,T#20ms
8,35,5,1,1,5,2,3,4,4,4,FALSE,FALSE,FALSE,FALSE,TRUE,TRUE,FALSE,FALSE,T#20ms
9,40,5,1,1,5,2,3,4,4,4,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,TRUE,FALSE,T#20ms
10,45,5,1,1,5,2,3,4,4,4,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,TRUE,T#20ms
11,50,5,1,1,5,2,3,4,4,4,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,TRUE,T#20ms
12,55,5,1,1,5,2,3,4,4,4,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,TRUE,T#20ms
13,60,5,1,1,5,2,3,4,4,4,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,TRUE,T#20ms
14,65,5,1,1,5,2,3,4,4,4,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#20ms
15,70,5,1,1,5,2,3,4,4,4,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#20ms
16,75,6,2,1,6,3,3,4,4,5,TRUE,TRUE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#0ms
17,80,7,2,1,7,4,3,4,4,6,TRUE,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,T#5ms
18,85,7,2,2,7,4,3,4,4,7,FALSE,FALSE,FALSE,FALSE,TRUE,TRUE,FALSE,FALSE,T#5ms
19,90,7,2,2,7,4,3,5,4,8,FALSE,FALSE,FALSE,FALSE,TRUE,TRUE,FALSE,FALSE,T#5ms
20,95,7,2,2,7,4,3,5,4,8,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,TRUE,FALSE,T#5ms
21,100,7,2,2,7,4,3,5,4,8,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#5ms
22,105,7,2,2,7,4,3,5,4,8,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#5ms
23,110,7,2,2,7,4,3,5,4,8,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#5ms
24,115,7,2,2,7,4,3,5,4,8,FALSE,FALSE,TRUE,FALSE,FALSE,FALSE,FALSE,FALSE,T#5ms
"""


def test_step_time_and_an_action_while_its_step_is_active_as_in_matiec():
    rows = scans.rows(STEP_TIME, ['cnt', 'flag', 't1', 'x1'], 12, {3: {"go": True}, 5: {"go": False}})
    assert rows == scans.expected(STEP_TIME_ROWS)


def test_every_qualifier_divergence_convergence_and_priority_as_in_matiec():
    sets = {2: {"go": True}, 3: {"go": False}, 7: {"stop": True}, 8: {"stop": False},
            9: {"pick": True}, 14: {"pick": False}, 16: {"go": True}, 17: {"go": False},
            18: {"stop": True}}
    columns = ("n_cnt p_cnt p0_cnt s_cnt l_cnt d_cnt sd_cnt ds_cnt sl_cnt "
               "vs vp s0x s1x s2x s3x s4x s5x t2").split()
    assert scans.rows(QUALIFIERS, columns, 24, sets) == scans.expected(QUALIFIERS_ROWS)


def test_the_active_steps_are_variables_read_by_path_also_inside_an_fb_instance():
    text = STEP_TIME.replace("PROGRAM main", "FUNCTION_BLOCK chart")
    text = text.replace("END_PROGRAM", "END_FUNCTION_BLOCK")
    text += """
PROGRAM main
VAR inst : chart; go : BOOL; END_VAR
  inst(go := go);
END_PROGRAM
"""
    text = text.replace("VAR\n  go : BOOL;", "VAR_INPUT go : BOOL; END_VAR\nVAR")
    h = scans.harness(text)
    h.scan()
    assert (h.get("main.inst.S0.X"), h.get("main.inst.S1.X")) == (True, False)
    h.write("main.go", True)
    h.scan(3)
    assert (h.get("main.inst.S0.X"), h.get("main.inst.S1.X"), h.get("main.inst.A1.Q")) == (False, True, True)
    assert scans.text(h.get("main.inst.S1.T")) == "T#10ms"


def test_transitions_are_tested_in_matiecs_priority_order():
    def t(priority):
        return A.Transition(name=None, priority=priority, sources=(), targets=(), condition=None)
    # without a priority: at the end; with one: after those of lower or equal priority
    assert Chart.priority_order([t(None), t(1), t(None)]) == [0, 1, 2]
    assert Chart.priority_order([t(2), t(None), t(1)]) == [2, 0, 1]
    assert Chart.priority_order([t(3), t(1), t(2), t(1)]) == [1, 3, 2, 0]


def test_no_type_declarations_the_flags_are_variables_named_by_path():
    unit = parse(STEP_TIME, "chart.st")
    pou = lower_sfc(unit.pou("main"), unit, "chart.st")
    names = [d.name for d in pou.var_blocks[-1].decls]
    assert names[:6] == ["S0.X", "S0.T", "S0.PREV", "S1.X", "S1.T", "S1.PREV"]
    assert "A1.Q" in names and "x1.SET" not in names      # P needs no stored flags
    assert isinstance(pou.body, A.StBody)
    initial = pou.var_blocks[-1].decls[0]
    assert A.dump(initial.init) == "TRUE" and initial.line == 10


CHART = """PROGRAM main
VAR go : BOOL; n : INT; END_VAR
INITIAL_STEP S0: END_STEP
STEP S1: {assoc} END_STEP
TRANSITION FROM S0 TO S1 := {cond}; END_TRANSITION
ACTION A1: {action} END_ACTION
END_PROGRAM
"""


@pytest.mark.parametrize("assoc, cond, action, message", [
    ("A1(N);", "go", "S1.X := TRUE;", "read-only"),
    ("A1(N);", "S1", "n := 1;", "S1 is a step, not a value"),
    ("A1(N);", "S1.Y", "n := 1;", "the flags .X and .T, not .Y"),
    ("nope(N);", "go", "n := 1;", "neither an ACTION of this chart nor a BOOL variable"),
    ("A1(N);", "go", "A1 := TRUE;", "read-only"),
    ("A1(N);", "go", "LD go\nST S1.X\n", "read-only"),        # an IL action
])
def test_misuse_is_an_error_at_its_place(assoc, cond, action, message):
    text = CHART.format(assoc=assoc, cond=cond, action=action)
    unit = parse(text, "chart.st")
    with pytest.raises(StSemanticError, match=message) as info:
        lower_sfc(unit.pou("main"), unit, "chart.st")
    assert info.value.line in (4, 5, 6, 7) and "PROGRAM main" in str(info.value)


def test_an_action_that_is_itself_a_chart_is_refused_as_matiec_cannot_compile_it():
    """matiec parses a chart inside an ACTION, but the C it generates names steps it
    never declares (checked: 'has no member named A0'); Beremiz cannot write one."""
    action = "INITIAL_STEP A0: END_STEP TRANSITION FROM A0 TO A1 := TRUE; END_TRANSITION " \
             "STEP A1: END_STEP"
    unit = parse(CHART.format(assoc="A1(N);", cond="go", action=action), "chart.st")
    with pytest.raises(StSemanticError, match=r"action A1 is itself a chart; an action in SFC "
                                              r"is not supported \(matiec parses one, but the C"):
        lower_sfc(unit.pou("main"), unit, "chart.st")


def test_an_action_flag_reads_as_a_bool_beyond_matiec():
    text = CHART.format(assoc="A1(N);", cond="go", action="n := n + 1; go := A1 AND A1.Q;")
    h = scans.harness(text)
    h.write("main.go", True)
    h.scan(2)
    assert (h.get("main.n"), h.get("main.go"), h.get("main.A1.Q")) == (2, True, True)
