"""Online change of a running configuration (plc.replace_configuration): every
program instance changes at one scan boundary with its values, the globals
and the event tasks' edges kept; a change of the tasks, or a project that
does not compile, is refused and the running configuration goes on."""

import pytest

from fbd.errors import FbdError
from fbd.runtime.online_configuration import ConfigurationChange, prepare
from fbd.st.project import load

COUNTERS = """
PROGRAM counter
  VAR_EXTERNAL total : INT; END_VAR
  VAR n : INT; t : TON; END_VAR
  n := n + 1;
  total := total + 1;
  t(IN := TRUE, PT := T#100ms);
END_PROGRAM

CONFIGURATION conf
  VAR_GLOBAL total : INT; END_VAR
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
    TASK slow(INTERVAL := T#20ms, PRIORITY := 2);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH slow : counter;
  END_RESOURCE
END_CONFIGURATION
"""

BY_TEN = COUNTERS.replace("n := n + 1;", "n := n + 10;")


def project(text: str):
    return load("conf.st", text=text)


def values(plc, names=("a.n", "b.n", "total", "a.t.ET", "b.t.ET")) -> list:
    return [plc.get(name) for name in names]


def test_every_instance_runs_its_changed_program_with_its_values_and_the_globals_kept():
    plc = project(COUNTERS).plc()
    plc.scan(4)                     # a at 0, 10, 20, 30 ms; b at 0, 20 ms
    assert [str(v) for v in values(plc)] == ["4", "2", "6", "0:00:00.030000",
                                             "0:00:00.020000"]
    change = plc.replace_configuration(project(BY_TEN))
    assert isinstance(change, ConfigurationChange)
    assert change.lines() == []
    assert set(change.instances) == {"a", "b"} and change.globals.kept == ["total"]
    plc.scan(2)                     # a at 40, 50 ms; b at 40 ms
    # each count goes on by ten from where it stood; the shared total by one a run;
    # each TON's start time was kept, so its ET goes on counting
    assert [str(v) for v in values(plc)] == ["24", "12", "9", "0:00:00.050000",
                                             "0:00:00.040000"]


def test_a_changed_global_type_and_a_new_global_are_initialised_and_said_so():
    changed = (COUNTERS.replace("VAR_GLOBAL total : INT; END_VAR",
                                "VAR_GLOBAL total : DINT; flag : BOOL := TRUE; "
                                "cap : INT := 7; END_VAR")
               .replace("VAR_EXTERNAL total : INT;", "VAR_EXTERNAL total : DINT;"))
    plc = project(COUNTERS.replace("VAR_GLOBAL total : INT;",
                                   "VAR_GLOBAL total : INT; cap : STRING := 'x';")).plc()
    plc.scan(3)
    change = plc.replace_configuration(project(changed))
    assert change.globals.converted == [("total", "INT", "DINT")]
    assert change.lines() == ["global total: converted from INT to DINT",
                              "global flag: initialised (new)",
                              "global cap: initialised (was STRING, is INT)"]
    assert plc.get("total") == 5 and plc.get("flag") is True and plc.get("cap") == 7
    plc.scan()                      # 30 ms: a alone
    assert plc.get("total") == 6


def test_a_constant_global_takes_its_new_value():
    plc = project(COUNTERS.replace("VAR_GLOBAL total : INT; END_VAR",
                                   "VAR_GLOBAL total : INT; END_VAR "
                                   "VAR_GLOBAL CONSTANT incr : INT := 1; END_VAR")).plc()
    plc.scan()
    plc.replace_configuration(project(COUNTERS.replace(
        "VAR_GLOBAL total : INT; END_VAR",
        "VAR_GLOBAL total : INT; END_VAR VAR_GLOBAL CONSTANT incr : INT := 5; END_VAR")))
    assert plc.get("incr") == 5


def test_a_new_variable_starts_from_its_var_config_value():
    config = "  VAR_CONFIG res.a.most : INT := 42; END_VAR\nEND_CONFIGURATION"
    changed = (BY_TEN.replace("VAR n : INT;", "VAR n : INT; most : INT := 3;")
               .replace("END_CONFIGURATION", config))
    plc = project(COUNTERS).plc()
    plc.scan(2)
    change = plc.replace_configuration(project(changed))
    assert change.lines() == ["a.most: initialised (new)", "b.most: initialised (new)"]
    assert plc.get("a.most") == 42 and plc.get("b.most") == 3
    assert plc.get("a.n") == 2


@pytest.mark.parametrize("edit, message", [
    (("T#20ms", "T#40ms"), "program instance 'b': its task's period changed (T#20ms -> "
                           "T#40ms); an online change keeps the tasks: restart to load it"),
    (("PRIORITY := 2", "PRIORITY := 3"), "program instance 'b': its task's priority changed "
                                         "(2 -> 3)"),
    (("PROGRAM b WITH slow : counter;", ""), "program instance 'b' is gone"),
    (("PROGRAM b WITH slow : counter;",
      "PROGRAM b WITH slow : counter; PROGRAM c WITH slow : counter;"),
     "program instance 'c' is new"),
])
def test_a_change_of_the_tasks_is_refused_by_name_and_the_configuration_runs_on(edit, message):
    plc = project(COUNTERS).plc()
    plc.scan(2)
    with pytest.raises(FbdError) as refused:
        plc.replace_configuration(project(BY_TEN.replace(*edit)))
    assert str(refused.value).startswith("configuration conf: ")
    assert message in str(refused.value)
    plc.scan()
    assert values(plc)[:3] == [3, 2, 5]            # the old programs, counting by one


def test_a_project_that_does_not_compile_changes_nothing():
    plc = project(COUNTERS).plc()
    plc.scan()
    with pytest.raises(FbdError):
        plc.replace_configuration(project(COUNTERS.replace("n := n + 1;", "n := n + 1.5;")))
    plc.scan()
    assert plc.get("a.n") == 2


def test_an_event_task_keeps_the_edge_it_saw():
    """b runs on trig's rising edge; trig stays TRUE across the change, so the
    change must not make b run again as if trig had just risen."""
    events = """
    PROGRAM counter
      VAR n : INT; END_VAR
      n := n + 1;
    END_PROGRAM
    CONFIGURATION conf
      VAR_GLOBAL trig : BOOL; END_VAR
      RESOURCE res ON PLC
        TASK fast(INTERVAL := T#10ms, PRIORITY := 1);
        TASK ev(SINGLE := trig, PRIORITY := 0);
        PROGRAM a WITH fast : counter;
        PROGRAM b WITH ev : counter;
      END_RESOURCE
    END_CONFIGURATION
    """
    plc = project(events).plc()
    plc.set("trig", True)
    plc.scan(3)
    assert plc.get("b.n") == 1
    plc.replace_configuration(project(events.replace("n := n + 1;", "n := n + 2;")))
    plc.scan(3)
    assert plc.get("b.n") == 1 and plc.get("a.n") == 9


def test_listeners_hear_of_the_change_once_and_a_prepared_change_applies_later():
    plc = project(COUNTERS).plc()
    heard = []
    plc.replaced.append(lambda p, change: heard.append((p, change)))
    prepared = prepare(plc, project(BY_TEN))      # what a watcher does on its thread
    plc.scan()
    change = plc.replace_configuration(prepared)
    assert heard == [(plc, change)]
    plc.scan()
    assert plc.get("a.n") == 11


def test_replace_program_points_a_configuration_to_replace_configuration():
    plc = project(COUNTERS).plc()
    with pytest.raises(FbdError, match="plc.replace_configuration"):
        plc.replace_program(project(BY_TEN).network("counter"))
