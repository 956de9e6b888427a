"""Synthetic networks: valid, reproducible, mixed; and the interpreter agrees
with the compiled scan on them (a property test over seeds)."""

import random

import pytest

from fbd import FbdError, Plc, compile_network
from fbd.interp import Interpreter
from fbd.library import load_libraries
from fbd.synthetic import random_network, usable_kinds
from tests.fbd.standins import LIBRARY

MIX = (("AND", None, 3), ("OR", None, 3), ("XOR", None, 1), ("NOT", None, 2),
       ("ADD", "INT", 2), ("SUB", "INT", 1), ("GT", "INT", 1), ("EQ", "INT", 1),
       ("SEL", "INT", 1), ("SEL", "BOOL", 1), ("MOVE", "INT", 1), ("SR", None, 1),
       ("MEMORY", "INT", 1), ("EDGE", None, 1), ("DELAY", None, 1), ("MISSING", None, 1))


def _wires(net):
    out = []
    for name, inst in net.instances.items():
        for port, binds in inst.bindings.items():
            for b in binds:
                src = getattr(b.source, "path", repr(b.source))
                out.append((name, inst.element.name, port, src, b.feedback, b.order))
    return out


def test_same_seed_same_network_and_the_fast_path_matches_the_checked_one():
    a = random_network(400, seed=5, mix=MIX, library=LIBRARY)
    b = random_network(400, seed=5, mix=MIX, library=LIBRARY)
    checked = random_network(400, seed=5, mix=MIX, library=LIBRARY, checked=True)
    assert _wires(a) == _wires(b) == _wires(checked)
    assert compile_network(a).source() == compile_network(checked).source()
    assert _wires(random_network(400, seed=6, mix=MIX, library=LIBRARY)) != _wires(a)


def test_mix_feedback_and_interface():
    net = random_network(2000, seed=1, mix=MIX, library=LIBRARY, n_inputs=3, n_outputs=2)
    info = compile_network(net).info()
    assert info["blocks"] == 2000
    used = set(info["block_types"])
    assert {"AND", "ADD", "SEL", "SR", "MEMORY", "EDGE", "GT"} <= used
    assert "DELAY" not in used  # its TIME input cannot be wired by the generator
    assert info["feedback_copies"] > 0
    fb = sum(b.feedback for w in net.instances.values() for bs in w.bindings.values() for b in bs)
    assert fb > 20
    assert set(info["inputs"]) == {"B0", "B1", "B2", "I0", "I1", "I2"}
    assert set(info["outputs"]) == {"QB0", "QB1", "QI0", "QI1"}
    assert "feedback wires" in net.doc


def test_labels_of_usable_kinds():
    labels = [k.label for k in usable_kinds(MIX, LIBRARY)]
    assert "SEL(INT)" in labels and "SEL(BOOL)" in labels and "SR" in labels
    assert "DELAY" not in labels and "MISSING" not in labels


def test_bad_arguments():
    with pytest.raises(FbdError, match="no block type"):
        random_network(10, library={})
    with pytest.raises(FbdError, match="positive"):
        random_network(0, library=LIBRARY)


@pytest.mark.parametrize("seed", range(6))
def test_interpreter_agrees_with_the_compiled_scan(seed):
    net = random_network(300, seed=seed, mix=MIX, library=LIBRARY, feedback=0.08)
    program = compile_network(net)
    plc = Plc(program)
    it = Interpreter(program)
    rng = random.Random(seed)
    paths = [p for p, info in program.signals.items() if info.kind in ("out", "state", "output")]
    for k in range(12):
        for name, tp in program.input_types.items():
            if rng.random() < 0.3:
                value = rng.random() < 0.5 if tp.name == "BOOL" else rng.randint(-300, 300)
                plc.set(name, value)
                it.set(name, value)
        plc.scan()
        it.scan(plc.now_us - plc.main.cycle_us)
        got = {p: it.get(p) for p in paths}
        want = {p: plc.get(p) for p in paths}
        assert got == want, f"seed {seed}, scan {k + 1}: " + ", ".join(
            f"{p}: {got[p]!r} != {want[p]!r}" for p in paths if got[p] != want[p])[:500]


def test_the_real_library_builds_and_agrees():
    load_libraries()
    net = random_network(500, seed=3)
    program = compile_network(net)
    plc, it = Plc(program), Interpreter(program)
    for _ in range(5):
        plc.scan()
        it.scan(plc.now_us - plc.main.cycle_us)
    for path, info in program.signals.items():
        if info.kind == "out":
            assert it.get(path) == plc.get(path), path
