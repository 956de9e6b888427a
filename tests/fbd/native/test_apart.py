"""A big program's procedures compiled apart in groups, the first ones by a
thread while the rest is still being lowered (fbd.native.apart): the same
machine code whichever compiled it, the same values, nothing left running
when the program has no native form."""

import sys
import threading

import pytest

import fbd
from fbd.compiler import forkmap
from fbd.native import NotNative, apart
from fbd.native import program as native_program
from fbd.st import pyemit
from fbd.st.project import load as load_st
from fbd.testing import Harness
from tests.fbd.native.agreement import same
from tests.fbd.native.test_st_instances import APART

pytest.importorskip("llvmlite")


@pytest.fixture
def small_groups(monkeypatch):
    """Every function a group of its own, compiled apart and ahead from the first."""
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", 2)
    monkeypatch.setattr(apart, "FULL_OPTIMISE_LINES", 0)
    monkeypatch.setattr(apart, "AHEAD_LINES", 0)
    monkeypatch.setattr(apart, "GROUP_LINES", 1)


@pytest.fixture
def built(monkeypatch):
    """``build(net, jobs)``: the network's native Harness, the object files it
    linked and the threads that compiled its groups (``jobs="1"``: no thread)."""
    seen: dict = {}
    add, group = native_program.NativeProgram._add_objects, native_program.NativeProgram._group_object

    def spy_add(self, objs):
        seen["objects"].extend(objs)
        add(self, objs)

    def spy_group(self, module, k):
        seen["threads"].append(threading.current_thread().name)
        return group(self, module, k)
    monkeypatch.setattr(native_program.NativeProgram, "_add_objects", spy_add)
    monkeypatch.setattr(native_program.NativeProgram, "_group_object", spy_group)

    def build(net, jobs: str = "2"):
        monkeypatch.setenv("FBD_COMPILE_JOBS", jobs)     # 2: the thread, whatever the load
        seen["objects"], seen["threads"] = [], []
        return Harness(net, engine="native", cycle=0.02), seen["objects"], seen["threads"]
    return build


def test_groups_compiled_by_the_thread_are_the_bytes_compiled_in_place(small_groups, built):
    net = load_st("apart.st", text=APART).network("prg")
    ahead, ahead_objects, ahead_threads = built(net)
    here, here_objects, here_threads = built(net, jobs="1")
    assert "fbd-llvm" in ahead_threads and "fbd-llvm" not in here_threads
    assert len(ahead_objects) > 5 and ahead_objects == here_objects
    assert ahead.plc.main.program.source() == here.plc.main.program.source()
    for _ in range(6):
        ahead.scan()
        here.scan()
        assert all(same(a, b) for a, b in zip(ahead.plc.main.s, here.plc.main.s))
    assert ahead.get("prg.n") == here.get("prg.n") > 0
    errors = []
    for h in (ahead, here):     # a fault in a group the thread compiled names its line
        h.write("prg.k", 4)
        with pytest.raises(fbd.FbdError) as e:
            h.scan()
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    assert errors[0].startswith("apart.st:23: in PROGRAM prg: array index 4 is outside 0..3")
    assert threading.active_count() == 1


def test_a_group_declares_the_functions_lowered_before_it_and_defines_its_own_external(
        monkeypatch):
    monkeypatch.setattr(apart, "GROUP_LINES", 2)
    groups = apart.Groups()
    for name in ("@a", "@b", "@c"):
        groups.declare(name, ["ptr %s", "i64 %now"])
        groups.define(name, f"define internal i64 {name}(ptr %s, i64 %now) {{\n  ret i64 0\n}}")
    assert groups.n_groups() == 3 and groups.lines == 6
    assert groups.group_source(2).splitlines() == [
        "declare i64 @a(ptr, i64)", "declare i64 @b(ptr, i64)",
        "define i64 @c(ptr %s, i64 %now) {", "  ret i64 0", "}"]


def test_a_module_that_stays_under_the_threshold_compiles_whole_though_groups_went_ahead(
        monkeypatch, built):
    # groups went to the thread from the first line, but 20,000 lines were never
    # reached: the -O2 pipeline over the whole module, its functions internal
    monkeypatch.setattr(apart, "AHEAD_LINES", 0)
    monkeypatch.setattr(apart, "GROUP_LINES", 1)
    net = load_st("apart.st", text=APART).network("prg")
    ahead, objects, threads = built(net)
    assert "fbd-llvm" in threads and len(objects) == 1     # the chunk's, whole
    source = ahead.plc.main.program.source()
    assert "define internal i64 @f._st_" in source and "define i64 @f._st_" not in source
    py = Harness(net, engine="python", cycle=0.02)
    for _ in range(6):
        ahead.scan()
        py.scan()
        assert all(same(a, b) for a, b in zip(ahead.plc.main.s, py.plc.main.s))


def test_the_thread_compiles_ahead_only_with_a_core_to_spare(small_groups, built, monkeypatch):
    # on a machine whose cores are all taken the GIL's hand-offs cost more than the
    # thread saves: the same bytes, compiled by the main thread
    net = load_st("apart.st", text=APART).network("prg")
    monkeypatch.setattr(forkmap.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    got = {}
    for load in (0.5, 2.5):
        monkeypatch.setattr(forkmap, "_load", lambda load=load: (load, 1))
        _harness, objects, threads = built(net, jobs="")
        got[load] = (objects, "fbd-llvm" in threads)
    assert got[0.5][1] and not got[2.5][1]
    assert got[0.5][0] == got[2.5][0] and len(got[0.5][0]) > 5


def test_a_program_with_no_native_form_leaves_no_thread_running(small_groups, monkeypatch):
    monkeypatch.setenv("FBD_COMPILE_JOBS", "2")
    greeter = ("FUNCTION_BLOCK Greeter\n  VAR_INPUT n : INT; END_VAR\n  VAR msg : STRING; END_VAR\n"
               "  IF n > 0 THEN msg := 'hi'; END_IF;\nEND_FUNCTION_BLOCK\n")
    text = greeter + APART.replace("stop : BOOL; END_VAR", "stop : BOOL; g : Greeter; END_VAR") \
        .replace("  n := n + 1;", "  n := n + 1;\n  g(n := n);")
    interval = sys.getswitchinterval()
    net = load_st("apart.st", text=text).network("prg")
    with pytest.raises(NotNative, match="FUNCTION_BLOCK Greeter, line 3"):
        fbd.Plc(net, engine="native")
    assert threading.active_count() == 1
    assert sys.getswitchinterval() == interval
    assert fbd.Plc(net).engine == "python"
