"""A configuration's variables by their IEC names: ``instance.variable``, as matiec's
variable list and the Beremiz and OpenPLC debuggers write them (``CONF.RES.A.N``),
for every verb of the Plc; the older ``instance:network-path`` still works."""

from __future__ import annotations

import pytest

from fbd.errors import FbdError, UnknownSignal
from fbd.st.project import load

TWO = """
PROGRAM counter
  VAR_INPUT go : BOOL; END_VAR
  VAR n : INT; t : TON; END_VAR
  IF go THEN n := n + 1; END_IF;
  t(IN := go, PT := T#20ms);
END_PROGRAM

CONFIGURATION conf
  VAR_GLOBAL g : INT := 3; END_VAR
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH fast : counter;
  END_RESOURCE
END_CONFIGURATION
"""


@pytest.fixture
def plc():
    return load("two.st", text=TWO).plc()


def test_two_instances_of_one_program_are_named_by_their_instances(plc):
    plc.write("b.go", True)
    plc.scan(3)
    assert (plc.get("a.n"), plc.get("b.n"), plc.get("a.t.Q"), plc.get("b.t.Q")) == (0, 3, False, True)
    assert {"g", "a.n", "a.go", "a.t.ET", "b.n", "b.t.Q"} <= set(plc.signals())
    assert not [p for p in plc.signals() if ":" in p or "counter" in p]


def test_the_configuration_and_the_resource_may_qualify_a_name_which_ignores_case(plc):
    plc.write("CONF.RES.B.GO", True)
    plc.scan()
    assert [plc.get(p) for p in ("conf.res.b.n", "res.b.n", "B.N", "b.n")] == [1, 1, 1, 1]
    assert [plc.get(p) for p in ("g", "conf.g", "res.g")] == [3, 3, 3]


def test_the_older_spellings_name_what_they_named(plc):
    plc.write("b:counter.go", True)
    plc.scan(2)
    assert (plc.get("b:counter.n"), plc.get("counter.n"), plc.get("a:counter.n")) == (2, 0, 0)


@pytest.mark.parametrize("path, hint", [
    ("a.m", r"unknown signal 'a.m'; did you mean a.t.M, a.n\?"),   # suggestions ignore case
    ("conf.res.zz", "unknown signal 'conf.res.zz'"),
    ("conf.res.a.zz", "unknown signal 'a.zz'"),
    ("n", "unknown signal 'n'; did you mean a.n, b.n"),
])
def test_an_unknown_name_is_told_with_the_iec_names_near_it(plc, path, hint):
    with pytest.raises(UnknownSignal, match=hint):
        plc.get(path)


def test_forces_are_listed_and_released_by_their_iec_names(plc):
    plc.force("b.n", 7)
    plc.scan()
    assert plc.forces == {"b.n": 7} and plc.get("b.n") == 7
    plc.unforce("B.N")
    assert plc.forces == {}


def test_a_trace_of_several_instances_samples_each_tick_after_its_last_program():
    """b runs after a, the main task: its values are sampled once it has run."""
    plc = load("two.st", text=TWO).plc()
    plc.write("a.go", True)
    plc.write("b.go", True)
    trace = plc.trace(["a.n", "b.n"])
    plc.scan(3)
    assert list(trace["a.n"]) == list(trace["b.n"]) == [1, 2, 3]
    assert trace.paths == ["a.n", "b.n"]
    plc.untrace(trace)
    plc.scan()
    assert len(trace) == 3


def test_a_global_is_written_at_once_and_cannot_be_forced(plc):
    plc.set("g", 9)
    assert plc.get("conf.g") == 9 and plc.globals["G"] == 9
    with pytest.raises(FbdError, match="g is a global variable"):
        plc.force("g", 1)


def test_a_resource_names_only_its_own_instances():
    text = TWO.replace("  END_RESOURCE\n", "  END_RESOURCE\n  RESOURCE other ON PLC\n"
                       "    TASK slow(INTERVAL := T#20ms, PRIORITY := 0);\n"
                       "    PROGRAM c WITH slow : counter;\n  END_RESOURCE\n")
    plc = load("three.st", text=text).plc()
    assert plc.get("other.c.n") == plc.get("conf.other.c.n") == 0
    with pytest.raises(UnknownSignal, match="unknown signal 'res.c.n'"):
        plc.get("res.c.n")


def test_two_resources_may_not_name_an_instance_alike():
    text = TWO.replace("  END_RESOURCE\n", "  END_RESOURCE\n  RESOURCE other ON PLC\n"
                       "    PROGRAM a : counter;\n  END_RESOURCE\n")
    with pytest.raises(FbdError, match=r"two.st:\d+:\d+: .*program instance a is declared in "
                                       r"resource res too"):
        load("two.st", text=text).plc()


EXTERNAL = """
PROGRAM prg
  VAR_EXTERNAL g : INT; END_VAR
  VAR n : INT; END_VAR
  n := g + 1;
END_PROGRAM

CONFIGURATION conf
  VAR_GLOBAL g : INT := 3; END_VAR
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM a WITH fast : prg;
    PROGRAM b WITH fast : prg;
  END_RESOURCE
END_CONFIGURATION
"""


def test_writing_an_instances_var_external_writes_its_global_for_every_instance():
    """A VAR_EXTERNAL is the global itself (matiec's is a pointer to it); the
    program's copy here is loaded from the global before each scan, which a
    write of the copy alone lost. matiec, ``--set b.g=10@2``: scan 1 a.n, g,
    b.n, b.g = 4, 3, 4, 3; scan 2 11, 10, 11, 10."""
    plc = load("ext.st", text=EXTERNAL).plc()
    plc.scan()
    assert [plc.get(p) for p in ("a.n", "g", "b.n", "b.g")] == [4, 3, 4, 3]
    plc.write("b.g", 10)
    assert plc.get("g") == 10
    plc.scan()
    assert [plc.get(p) for p in ("a.n", "g", "b.n", "b.g")] == [11, 10, 11, 10]
