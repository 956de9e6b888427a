"""Every real ST program of the test data (tests/data/st) runs on the native
engine with the Python engine's values, slot by slot, for 300 scans of
changing inputs (its located inputs latched, its program inputs written, its
configuration's globals set), or falls back to the Python engine under
``auto`` naming the POU, the line and what stops it; a fault stops both
engines at the same scan with the same error."""

import random
from pathlib import Path

import pytest

import fbd
from fbd.native import NotNative
from fbd.st.project import load as load_st
from tests.fbd.native.agreement import random_value, same

pytest.importorskip("llvmlite")

DATA = Path(__file__).resolve().parents[2] / "data" / "st"
PROGRAMS = sorted(DATA.rglob("*.st"))
#: matiec refuses these (tests/fbd/st/test_corpus.py), so does fbd's type check
REFUSED = {"openplc_samples/RobotStudio/Estun/generated_plc.st",
           "openplc_samples/successed_ST/Code_13.st",
           "openplc_samples/successed_ST/symbextest.st"}
#: the programs with no native form, and why
NOT_NATIVE = {}
SCANS = 300


def plcs(path: Path):
    project = fbd.load(str(path))
    if project.configuration is not None:
        return project.plc(engine="python"), project.plc(engine="native")
    net = project.network(list(project.pous)[-1])
    return fbd.Plc(net, engine="python"), fbd.Plc(net, engine="native")


def program_inputs(task) -> list:
    """(slot, type) of each PROGRAM's VAR_INPUT (state written from outside)."""
    out = []
    for leaf in task.program.flat.leaves:
        info = getattr(type(leaf.block), "st_info", None)
        if info is None or info.kind != "PROGRAM":
            continue
        for var in info.variables.values():
            if var.section == "VAR_INPUT" and var.name in leaf.state and var.type.kind in (
                    "bool", "int", "real", "time"):
                out.append((leaf.state[var.name], var.type))
    return out


def step(plc, task_inputs, globals_, rng) -> None:
    """Change about a third of the inputs (the same on both engines: one rng per PLC)."""
    for task, (latched, written) in zip(plc.tasks, task_inputs):
        for name, tp in latched:
            if rng.random() < 0.3:
                plc.set(f"{task.name}:{name}" if task is not plc.main else name,
                        _api(tp, random_value(tp, rng)))
        for slot, tp in written:
            if rng.random() < 0.3:
                task.s[slot] = tp.coerce(_api(tp, random_value(tp, rng)))
    for name, tp in globals_:
        if rng.random() < 0.3:
            plc.set(name, _api(tp, random_value(tp, rng)))


def _api(tp, raw):
    return raw / 1e6 if tp.kind == "time" else raw


def _ids(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


@pytest.mark.parametrize("path", [p for p in PROGRAMS if _ids(p) not in REFUSED], ids=_ids)
def test_every_st_program_agrees_on_both_engines_slot_by_slot(path):
    key = _ids(path)
    if key in NOT_NATIVE:
        with pytest.raises(NotNative, match=NOT_NATIVE[key]):
            plcs(path)
        return
    py, na = plcs(path)
    assert na.engine == "native" and fbd.load(str(path)).plc(engine="auto").engine == "native"
    inputs = [([(n, t.program.input_types[n]) for n in t.program.inputs
                if t.program.input_types[n].kind in ("bool", "int", "real", "time")],
               program_inputs(t)) for t in py.tasks]
    globals_ = [] if py.globals is None else [
        (n, tp) for n, tp, const in zip(py.globals.names, py.globals.types, py.globals.constant)
        if tp.kind in ("bool", "int", "real", "time") and not const]
    seeds = (random.Random(len(key)), random.Random(len(key)))
    for scan in range(1, SCANS + 1):
        errors = []
        for plc, rng in zip((py, na), seeds):
            step(plc, inputs, globals_, rng)
            try:
                plc.scan()
                errors.append(None)
            except fbd.FbdError as e:
                errors.append(str(e))
        assert errors[0] == errors[1], f"scan {scan}"
        for tp_, tn in zip(py.tasks, na.tasks):
            for slot in range(tp_.program.flat.n_slots):
                a, b = tp_.s[slot], tn.s[slot]
                assert same(a, b), (scan, tp_.name, slot, [
                    p for p, i in tp_.program.signals.items() if i.slot == slot][:2], a, b)
        if py.globals is not None:
            assert all(same(a, b) for a, b in zip(py.globals.s, na.globals.s)), scan
        if errors[0]:
            return      # both stopped here, alike


def test_the_st_programs_are_enough_to_mean_something():
    assert len([p for p in PROGRAMS if _ids(p) not in REFUSED | set(NOT_NATIVE)]) >= 60


GREETER = """FUNCTION_BLOCK Greeter
VAR_INPUT n : INT; END_VAR
VAR msg : STRING; END_VAR
  IF n > 0 THEN msg := 'hi'; END_IF;
END_FUNCTION_BLOCK
PROGRAM prg
VAR g : Greeter; k : INT; END_VAR
  k := k + 1;
  g(n := k);
END_PROGRAM
"""


def test_an_fb_type_with_no_native_form_is_named_with_its_line_by_the_program_using_it():
    net = load_st("g.st", text=GREETER).network("prg")
    auto = fbd.Plc(net)
    assert auto.engine == "python"
    assert ("prg (PROGRAM prg: FUNCTION_BLOCK Greeter, line 3: the STRING variable msg has no "
            "native form") in auto.engine_reason
    with pytest.raises(NotNative, match="FUNCTION_BLOCK Greeter, line 3"):
        fbd.Plc(net, engine="native")


def test_procedures_past_the_full_optimiser_compile_to_the_same_values(monkeypatch):
    # a big program's procedures skip -O2's inlining and loop passes: same table
    from fbd.native import apart
    from fbd.st.progbench import KERNEL
    monkeypatch.setattr(apart, "FULL_OPTIMISE_LINES", 0)
    net = load_st("k.st", text=KERNEL).network("prg")
    py, na = fbd.Plc(net, engine="python"), fbd.Plc(net, engine="native")
    for _ in range(3):
        py.scan(7)
        na.scan(7)
        assert all(same(a, b) for a, b in zip(py.main.s, na.main.s))
    assert na.get("prg.checksum") == py.get("prg.checksum") != 0
