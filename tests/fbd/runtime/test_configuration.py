"""A configuration's program instances run as matiec runs them, tick by tick: event
tasks (SINGLE), the tick, task priorities and VAR_CONFIG. Each expected table is
the matiec oracle's output (iec2c 6bb2c339) for the program above it, with the
command that printed it; where IEC 61131-3 and matiec differ, the test says which
this follows and keeps matiec's rows beside it."""

from __future__ import annotations

import re

import pytest

from fbd.errors import FbdError
from fbd.st.project import load
from tests.fbd.st.scans import configuration_rows, expected

COUNTER = """
PROGRAM counter
  VAR n : INT; END_VAR
  n := n + 1;
END_PROGRAM
"""

EVENTS = COUNTER + """
PROGRAM setter
  VAR_EXTERNAL trig : BOOL; END_VAR
  VAR k : INT; END_VAR
  k := k + 1;
  trig := (k MOD 3) = 0;
END_PROGRAM

CONFIGURATION conf
  VAR_GLOBAL trig : BOOL; ext : BOOL; END_VAR
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
    TASK ev(SINGLE := ext, PRIORITY := 0);
    TASK byprog(SINGLE := trig, PRIORITY := 2);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH ev : counter;
    PROGRAM s WITH fast : setter;
    PROGRAM c WITH byprog : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_an_event_task_runs_in_each_tick_its_global_rose_sampled_before_any_program():
    """b runs where ext (set from outside) rose; c one tick after s wrote trig TRUE,
    since every trigger is sampled before the tick's programs run.
    oracle.py events.st --scans 12 --set ext=TRUE@3 --set ext=FALSE@5
    --set ext=TRUE@6,7 --set ext=FALSE@8 --set ext=TRUE@10 --watch ext --watch b.n
    --watch trig --watch c.n --watch a.n --watch s.k"""
    sets = {3: {"ext": True}, 5: {"ext": False}, 6: {"ext": True}, 7: {"ext": True},
            8: {"ext": False}, 10: {"ext": True}}
    assert configuration_rows(EVENTS, ["ext", "b.n", "trig", "c.n", "a.n", "s.k"], 12,
                              sets) == expected("""
        scan,t_ms,ext,b.n,trig,c.n,a.n,s.k
        1,0,FALSE,0,FALSE,0,1,1
        2,10,FALSE,0,FALSE,0,2,2
        3,20,TRUE,1,TRUE,0,3,3
        4,30,TRUE,1,FALSE,1,4,4
        5,40,FALSE,1,FALSE,1,5,5
        6,50,TRUE,2,TRUE,1,6,6
        7,60,TRUE,2,FALSE,2,7,7
        8,70,FALSE,2,FALSE,2,8,8
        9,80,FALSE,2,TRUE,2,9,9
        10,90,TRUE,3,FALSE,3,10,10
        11,100,TRUE,3,FALSE,3,11,11
        12,110,TRUE,3,TRUE,3,12,12""")


ONCE = COUNTER + """
CONFIGURATION conf
  VAR_GLOBAL go : BOOL := TRUE; END_VAR
  RESOURCE res ON PLC
    TASK tick(INTERVAL := T#10ms, PRIORITY := 0);
    TASK once(SINGLE := go, PRIORITY := 0);
    PROGRAM first WITH once : counter;
    PROGRAM a WITH tick : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_a_global_true_from_the_start_runs_its_event_task_once_in_the_first_tick():
    """matiec's R_TRIG starts FALSE (Beremiz's wxHMI example runs its initialiser so).
    oracle.py once.st --scans 4 --watch go --watch first.n --watch a.n"""
    assert configuration_rows(ONCE, ["go", "first.n", "a.n"], 4) == expected("""
        scan,t_ms,go,first.n,a.n
        1,0,TRUE,1,1
        2,10,TRUE,1,2
        3,20,TRUE,1,3
        4,30,TRUE,1,4""")


def test_the_main_task_is_the_first_instance_of_a_periodic_task():
    plc = load("once.st", text=ONCE).plc()
    plc.scan(3)
    assert (plc.main.name, plc.scans, plc.get("a.n"), plc.get("first.n")) == ("a", 3, 3, 1)


BOTH = COUNTER + """
CONFIGURATION conf
  VAR_GLOBAL go : BOOL; END_VAR
  RESOURCE res ON PLC
    TASK tick(INTERVAL := T#10ms, PRIORITY := 0);
    TASK both(SINGLE := go, INTERVAL := T#30ms, PRIORITY := 1);
    PROGRAM a WITH tick : counter;
    PROGRAM c WITH both : counter;
  END_RESOURCE
END_CONFIGURATION
"""
#: oracle.py both.st --scans 12 --set go=TRUE@3 --set go=FALSE@5 --set go=TRUE@6
#: --set go=FALSE@9 --watch go --watch a.n --watch c.n: matiec ignores the INTERVAL of
#: a SINGLE task (its resource tests the R_TRIG alone)
MATIEC_BOTH = """
    scan,t_ms,go,a.n,c.n
    1,0,FALSE,1,0
    2,10,FALSE,2,0
    3,20,TRUE,3,1
    4,30,TRUE,4,1
    5,40,FALSE,5,1
    6,50,TRUE,6,2
    7,60,TRUE,7,2
    8,70,TRUE,8,2
    9,80,FALSE,9,2
    10,90,FALSE,10,2
    11,100,FALSE,11,2
    12,110,FALSE,12,2"""


def test_single_with_an_interval_also_runs_every_interval_while_the_global_is_false():
    """IEC 61131-3 (2.7.2): scheduled on each rising edge of SINGLE, and every
    INTERVAL "as long as the SINGLE input stands at zero"; matiec runs the edges
    only. The edges agree (c at 20 ms and 50 ms); the INTERVAL adds 0 ms and 90 ms,
    where go is FALSE, and nothing at 30 ms and 60 ms, where it is TRUE."""
    sets = {3: {"go": True}, 5: {"go": False}, 6: {"go": True}, 9: {"go": False}}
    ours = configuration_rows(BOTH, ["go", "a.n", "c.n"], 12, sets).splitlines()
    matiec = expected(MATIEC_BOTH).splitlines()
    assert [row.rsplit(",", 1)[0] for row in ours] == [row.rsplit(",", 1)[0] for row in matiec]
    edges = [int(row.rsplit(",", 1)[1]) for row in matiec]
    at_0_ms, at_90_ms = [1] * 12, [0] * 9 + [1] * 3
    assert [int(row.rsplit(",", 1)[1]) for row in ours] == [
        e + a + b for e, a, b in zip(edges, at_0_ms, at_90_ms)]


TICK = COUNTER + """
CONFIGURATION conf
  RESOURCE res ON PLC
    TASK t20(INTERVAL := T#20ms, PRIORITY := 0);
    TASK t30(INTERVAL := T#30ms, PRIORITY := 0);
    TASK free(PRIORITY := 0);
    PROGRAM a WITH t20 : counter;
    PROGRAM b WITH t30 : counter;
    PROGRAM c WITH free : counter;
    PROGRAM d : counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_a_task_without_interval_and_an_instance_without_task_run_every_tick():
    """The tick is the GCD of the intervals (10 ms here, though no task runs every
    10 ms), matiec's common_ticktime.
    oracle.py tick.st --scans 7 --watch a.n --watch b.n --watch c.n --watch d.n"""
    assert configuration_rows(TICK, ["a.n", "b.n", "c.n", "d.n"], 7) == expected("""
        scan,t_ms,a.n,b.n,c.n,d.n
        1,0,1,1,1,1
        2,10,1,1,2,2
        3,20,2,1,3,3
        4,30,2,2,4,4
        5,40,3,2,5,5
        6,50,3,2,6,6
        7,60,4,3,7,7""")


PRIORITIES = """
PROGRAM writer
  VAR_EXTERNAL g : INT; END_VAR
  g := g + 1;
END_PROGRAM
PROGRAM reader
  VAR_EXTERNAL g : INT; END_VAR
  VAR seen : INT; END_VAR
  seen := g;
END_PROGRAM

CONFIGURATION conf
  VAR_GLOBAL g : INT; END_VAR
  RESOURCE res ON PLC
    TASK lo(INTERVAL := T#10ms, PRIORITY := 5);
    TASK hi(INTERVAL := T#10ms, PRIORITY := 0);
    TASK none(PRIORITY := 1);
    PROGRAM w WITH hi : writer;
    PROGRAM r WITH lo : reader;
    PROGRAM r2 WITH none : reader;
    PROGRAM r3 : reader;
  END_RESOURCE
END_CONFIGURATION
"""
REVERSED = PRIORITIES.replace("PROGRAM w WITH hi : writer;\n    PROGRAM r WITH lo : reader;",
                              "PROGRAM r WITH lo : reader;\n    PROGRAM w WITH hi : writer;")


def test_programs_declared_in_priority_order_run_as_matiec_runs_them():
    """oracle.py priorities.st --scans 3 --watch g --watch r.seen --watch r2.seen
    --watch r3.seen"""
    assert configuration_rows(PRIORITIES, ["g", "r.seen", "r2.seen", "r3.seen"], 3) == expected("""
        scan,t_ms,g,r.seen,r2.seen,r3.seen
        1,0,1,1,1,1
        2,10,2,2,2,2
        3,20,3,3,3,3""")


def test_tasks_due_in_one_tick_run_by_priority_where_matiec_runs_declaration_order():
    """IEC 61131-3 (2.7.2): the highest priority (0) runs first; matiec ignores
    PRIORITY and runs r (priority 5, declared first) before w, so r sees the
    previous tick's g. Here w runs first, as the priorities say.
    matiec (oracle.py reversed.st, same watches): 1,0,1,0,1,1 / 2,10,2,1,2,2 /
    3,20,3,2,3,3"""
    assert REVERSED != PRIORITIES
    assert configuration_rows(REVERSED, ["g", "r.seen", "r2.seen", "r3.seen"], 3) == \
        configuration_rows(PRIORITIES, ["g", "r.seen", "r2.seen", "r3.seen"], 3)


def test_an_instance_without_task_runs_after_every_task_of_the_tick():
    plc = load("p.st", text=PRIORITIES).plc()
    assert [tk.name for tk in plc.tasks] == ["w", "r2", "r", "r3"]


BODY = """
  n := n + 1;
  a();
  t(IN := TRUE, PT := t.PT);
  k := a.total;
END_PROGRAM
"""
ACC = """
FUNCTION_BLOCK acc
  VAR_INPUT inc : INT := 1; END_VAR
  VAR total : INT := 100; END_VAR
  total := total + inc;
END_FUNCTION_BLOCK
"""
VAR_CONFIG = ACC + """
PROGRAM counter
  VAR n : INT := 10; k : INT; a : acc; t : TON; END_VAR""" + BODY + """
CONFIGURATION conf
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
    PROGRAM x WITH fast : counter;
    PROGRAM y WITH fast : counter;
  END_RESOURCE
  VAR_CONFIG
    res.x.n : INT := 50;
    res.x.a.total : INT := 7;
    res.x.a.inc : INT := 3;
    res.y.t.PT : TIME := T#20ms;
  END_VAR
END_CONFIGURATION
"""
#: the same instances with VAR_CONFIG's values written into their declarations,
#: one PROGRAM type each: what IEC says VAR_CONFIG means
AS_DECLARED = ACC + """
PROGRAM counter_x
  VAR n : INT := 50; k : INT; a : acc := (inc := 3, total := 7); t : TON; END_VAR""" + BODY + """
PROGRAM counter_y
  VAR n : INT := 10; k : INT; a : acc; t : TON := (PT := T#20ms); END_VAR""" + BODY + """
CONFIGURATION conf
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
    PROGRAM x WITH fast : counter_x;
    PROGRAM y WITH fast : counter_y;
  END_RESOURCE
END_CONFIGURATION
"""
INIT_COLUMNS = ["x.n", "x.k", "x.a.inc", "y.n", "y.k", "y.t.PT", "y.t.Q", "x.t.Q"]
#: oracle.py as_declared.st --scans 4, a --watch for each of INIT_COLUMNS
DECLARED_ROWS = """
    scan,t_ms,x.n,x.k,x.a.inc,y.n,y.k,y.t.PT,y.t.Q,x.t.Q
    1,0,51,10,3,11,101,T#20ms,FALSE,FALSE
    2,10,52,13,3,12,102,T#20ms,FALSE,TRUE
    3,20,53,16,3,13,103,T#20ms,TRUE,TRUE
    4,30,54,19,3,14,104,T#20ms,TRUE,TRUE"""
#: oracle.py var_config.st, the same watches: matiec parses VAR_CONFIG and generates
#: no code for it (iec2c 6bb2c339 keeps its generator under #if 0)
MATIEC_IGNORES_IT = """
    scan,t_ms,x.n,x.k,x.a.inc,y.n,y.k,y.t.PT,y.t.Q,x.t.Q
    1,0,11,101,1,11,101,T#0ms,FALSE,FALSE
    2,10,12,102,1,12,102,T#0ms,TRUE,TRUE
    3,20,13,103,1,13,103,T#0ms,TRUE,TRUE
    4,30,14,104,1,14,104,T#0ms,TRUE,TRUE"""


def test_var_config_starts_an_instance_and_an_fb_member_inside_it_at_its_values():
    """IEC: an instance-specific initial value; x.n starts at 50, the FB members
    x.a.total and x.a.inc at 7 and 3, y's timer at 20 ms; matiec ignores them."""
    assert configuration_rows(VAR_CONFIG, INIT_COLUMNS, 4) == expected(DECLARED_ROWS)
    assert configuration_rows(AS_DECLARED, INIT_COLUMNS, 4) == expected(DECLARED_ROWS)
    without = VAR_CONFIG[:VAR_CONFIG.index("  VAR_CONFIG")] + "END_CONFIGURATION\n"
    assert configuration_rows(without, INIT_COLUMNS, 4) == expected(MATIEC_IGNORES_IT)


def test_var_config_initialises_an_fb_instance_by_its_members():
    text = VAR_CONFIG.replace("res.y.t.PT : TIME := T#20ms;", "res.y.t : TON := (PT := T#20ms);")
    assert configuration_rows(text, INIT_COLUMNS, 4) == expected(DECLARED_ROWS)


def test_a_cold_restart_starts_again_from_var_configs_values():
    plc = load("vc.st", text=VAR_CONFIG).plc()
    plc.scan(3)
    plc.restart()
    plc.scan()
    assert (plc.get("x.n"), plc.get("x.k"), plc.get("y.n")) == (51, 10, 11)


@pytest.mark.parametrize("line, message", [
    ("res.q.n : INT := 1;", "VAR_CONFIG res.q.n: no program instance 'q'"),
    ("res.x.zz : INT := 1;", "VAR_CONFIG res.x.zz: unknown signal 'x.zz'"),
    ("res.x.n : DINT := 1;", "VAR_CONFIG res.x.n : DINT does not match the variable's type INT"),
    ("res.x.n AT %MW3 : INT := 1;", "VAR_CONFIG res.x.n AT %MW3: a location given in VAR_CONFIG "
                                    "is not supported"),
    ("res.x.a : acc := 5;", "VAR_CONFIG res.x.a: acc is a function block; initialise its members"),
    ("res.x.n : INT := 99999;", "99999"),
])
def test_a_var_config_line_that_cannot_apply_is_one_error_naming_its_line(line, message):
    text = VAR_CONFIG.replace("res.x.n : INT := 50;", line)
    with pytest.raises(FbdError, match=r"conf.st:\d+:\d+: .*" + re.escape(message)):
        load("conf.st", text=text).plc()


def test_var_config_refuses_a_var_external_naming_its_global():
    text = PRIORITIES.replace("  END_RESOURCE\n", "  END_RESOURCE\n  VAR_CONFIG res.r.g : INT := 4;"
                                                  " END_VAR\n")
    with pytest.raises(FbdError, match="VAR_CONFIG res.r.g: a VAR_EXTERNAL; give the VAR_GLOBAL "
                                       "its initial value instead"):
        load("p.st", text=text).plc()


@pytest.mark.parametrize("single, message", [
    ("%IX0.0", "task ev: SINGLE takes a BOOL global variable"),
    ("level", "task ev: SINGLE := level, which is INT; SINGLE takes a BOOL"),
])
def test_single_takes_a_bool_global(single, message):
    text = EVENTS.replace("ext : BOOL; END_VAR", "ext : BOOL; level : INT; END_VAR") \
        .replace("VAR k : INT; END_VAR", "VAR k : INT; END_VAR\n  VAR x AT %IX0.0 : BOOL; END_VAR") \
        .replace("SINGLE := ext", f"SINGLE := {single}")
    with pytest.raises(FbdError, match=r"conf.st:\d+:\d+: .*" + re.escape(message)):
        load("conf.st", text=text).plc()


def test_globals_are_read_and_written_by_name_and_a_cold_restart_resets_them():
    plc = load("e.st", text=EVENTS).plc()
    plc.set("ext", True)
    plc.scan(2)
    assert (plc.get("ext"), plc.get("conf.ext"), plc.get("CONF.RES.B.N"), plc.globals["ext"]) == (
        True, True, 1, True)
    plc.restart()
    assert plc.get("ext") is False and plc.get("b.n") == 0
    with pytest.raises(FbdError, match="ext is a global variable: force it where a program uses it"):
        plc.force("ext", True)
