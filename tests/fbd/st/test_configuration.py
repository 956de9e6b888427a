"""CONFIGURATION / RESOURCE / TASK / PROGRAM ... WITH, and globals."""

from fbd.st import dump, parse

PROGRAMS = """
PROGRAM Main VAR_INPUT single, interval, priority : BOOL; END_VAR
  VAR_OUTPUT done : BOOL; END_VAR
  VAR_EXTERNAL limit : INT; END_VAR
  VAR t : TON; END_VAR
  done := single;
END_PROGRAM
"""


def configuration(text):
    (config,) = parse(PROGRAMS + text, "config.st").configurations
    return config


def test_resources_tasks_and_program_instances():
    config = configuration("""
    CONFIGURATION Plant
      VAR_GLOBAL limit : INT := 10; lamp AT %QX0.0 : BOOL; END_VAR
      VAR_GLOBAL CONSTANT k : INT := 3; END_VAR
      RESOURCE Cpu ON PLC
        VAR_GLOBAL local : BOOL; END_VAR
        TASK fast(INTERVAL := T#20ms, PRIORITY := 0);
        TASK slow(SINGLE := trigger, INTERVAL := T#1s, PRIORITY := 5);
        TASK background(PRIORITY := 9);
        PROGRAM inst1 WITH fast : Main;
        PROGRAM RETAIN inst2 WITH slow : Main (single := TRUE, interval := local, done => lamp, t WITH fast);
        PROGRAM inst3 : Main;
      END_RESOURCE
    END_CONFIGURATION""")
    assert config.name == "Plant"
    assert [(b.kind, b.qualifier, [d.name for d in b.decls]) for b in config.var_blocks] == [
        ("VAR_GLOBAL", None, ["limit", "lamp"]), ("VAR_GLOBAL", "CONSTANT", ["k"])]
    (cpu,) = config.resources
    assert (cpu.name, cpu.processor, [d.name for d in cpu.var_blocks[0].decls]) == ("Cpu", "PLC", ["local"])
    fast, slow, background = cpu.tasks
    assert (fast.name, dump(fast.interval), fast.single, fast.priority) == ("fast", "20000000ns", None, 0)
    assert (dump(slow.single), slow.priority) == ("trigger", 5)
    assert (background.interval, background.priority) == (None, 9)
    inst1, inst2, inst3 = cpu.programs
    assert (inst1.name, inst1.task, inst1.type_name, inst1.retain) == ("inst1", "fast", "Main", None)
    assert inst2.retain == "RETAIN"
    assert [(dump(c.parameter), dump(c.value), c.output) for c in inst2.connections] == [
        ("single", "TRUE", False), ("interval", "local", False), ("done", "lamp", True)]
    assert [(f.fb, f.task) for f in inst2.fb_tasks] == [("t", "fast")]
    assert inst3.task is None


def test_task_properties_are_names_outside_a_task():
    config = configuration("CONFIGURATION c RESOURCE r ON PLC TASK t(PRIORITY := 1); "
                           "PROGRAM i WITH t : Main (single := TRUE, interval := FALSE, priority := TRUE); "
                           "END_RESOURCE END_CONFIGURATION")
    assert [dump(c.parameter) for c in config.resources[0].programs[0].connections] == [
        "single", "interval", "priority"]


def test_a_configuration_without_resource_has_one_unnamed_resource():
    config = configuration("CONFIGURATION c TASK t(INTERVAL := T#1s, PRIORITY := 4);\n"
                           "PROGRAM p1 WITH t: Main; END_CONFIGURATION")
    (res,) = config.resources
    assert (res.name, res.processor, [t.name for t in res.tasks], [p.name for p in res.programs]) == (
        None, None, ["t"], ["p1"])


def test_several_resources_and_var_config():
    config = configuration("""CONFIGURATION c
      RESOURCE a ON PLC PROGRAM pa : Main; END_RESOURCE
      RESOURCE b ON PLC PROGRAM pb : Main; END_RESOURCE
      VAR_CONFIG
        a.pa.t.PT : TIME := T#5s;
        b.pb.x AT %IX1.0 : BOOL;
      END_VAR
    END_CONFIGURATION""")
    assert [r.name for r in config.resources] == ["a", "b"]
    first, second = config.var_config
    assert first.path == ("a", "pa", "t", "PT") and dump(first.init) == "5000000000ns"
    assert second.location.text == "%IX1.0"


EXTERNAL_FROM_CONFIGURATION = """
PROGRAM Main
  VAR_EXTERNAL g : INT; END_VAR
  VAR n : INT; END_VAR
  n := g + 1;
  g := g + 1;
END_PROGRAM
CONFIGURATION C
  VAR_GLOBAL g : INT := 7; END_VAR
  RESOURCE R ON PLC
    TASK t(INTERVAL := T#5ms, PRIORITY := 0);
    PROGRAM inst WITH t : Main;
  END_RESOURCE
END_CONFIGURATION
"""


def test_a_program_run_alone_starts_its_externals_at_the_globals_initial_values(tmp_path):
    from fbd.st.project import load
    from fbd.testing import Harness

    path = tmp_path / "ext.st"
    path.write_text(EXTERNAL_FROM_CONFIGURATION)
    project = load(path)
    alone = Harness(project.network("Main"))
    plc = project.plc()
    for _ in range(3):
        alone.scan()
        plc.scan()
    assert alone.get("Main.n") == plc.get("Main.n") == 10     # 7 + 1, + 1, + 1


def test_program_connections_are_refused_saying_matiecs_c_for_them_does_not_compile(tmp_path):
    import pytest

    from fbd.errors import FbdError
    from fbd.st.project import load

    path = tmp_path / "conn.st"
    path.write_text(EXTERNAL_FROM_CONFIGURATION.replace("PROGRAM Main\n", "PROGRAM Main\n"
                    "  VAR_INPUT x : INT; END_VAR\n").replace(": Main;", ": Main (x := g);"))
    with pytest.raises(FbdError, match=r"conn.st:\d+:\d+: .*connections of a program instance .*"
                                       r"the C matiec generates for them does not compile"):
        load(path).plc()
