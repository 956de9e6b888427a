"""Synthetic networks: valid, reproducible, mixed; and the interpreter agrees
with the compiled scan on them (a property test over seeds)."""

import math
import random

import pytest

from fbd import FbdError, Plc, compile_network
from fbd.compiler.interp import Interpreter
from fbd.library import load_libraries
from fbd.tools.synthetic import control_network, random_network, usable_kinds
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
    _compare_with_interpreter(program, plc, it, rng, 12, paths)


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


def _compare_with_interpreter(program, plc, it, rng, scans, paths):
    for k in range(scans):
        for name, tp in program.input_types.items():
            if rng.random() < 0.3:
                value = rng.random() < 0.5 if tp.name == "BOOL" else rng.randint(-300, 300)
                plc.set(name, value)
                it.set(name, value)
        plc.scan()
        it.scan(plc.now_us - plc.main.cycle_us)
        wrong = [p for p in paths if it.get(p) != plc.get(p)]
        assert not wrong, f"scan {k + 1}: " + ", ".join(
            f"{p}: {it.get(p)!r} != {plc.get(p)!r}" for p in wrong)[:500]


def test_a_program_of_several_chunks_scans_as_the_interpreter_forced_or_not():
    """Values cross chunk boundaries (loaded, stored, written back at the end) and a
    force recompiles the chunk that writes the signal: still block for block the same.
    The interpreter has no forcing: the forced block's object overrides its output
    after its code runs, which is what a force on a stateless block means."""
    from fbd.compiler.pycode import CHUNK
    net = random_network(2 * CHUNK + 300, seed=11, mix=MIX, library=LIBRARY, feedback=0.05)
    program = compile_network(net)
    assert "_chunk_2" in program.source()
    plc, it = Plc(program), Interpreter(program)
    rng = random.Random(11)
    paths = [p for p, info in program.signals.items() if info.kind in ("out", "state", "output")]
    _compare_with_interpreter(program, plc, it, rng, 6, paths)

    stateless = ("AND", "OR", "XOR", "NOT", "ADD", "SUB", "GT", "EQ", "SEL", "MOVE")
    leaf = next(lf for lf in program.leaves[CHUNK + 50:] if lf.block.name in stateless)
    middle = f"{leaf.path}.OUT"
    value = not plc.get(middle) if isinstance(plc.get(middle), bool) else 7
    plc.force(middle, value)
    obj = it.object(leaf.path)
    computed = obj.fn

    def forced(i, o, st, now):
        computed(i, o, st, now)
        o["OUT"] = value

    obj.fn = forced
    _compare_with_interpreter(program, plc, it, rng, 6, paths)
    assert plc.get(middle) == value
    plc.unforce(middle)
    obj.fn = computed
    _compare_with_interpreter(program, plc, it, rng, 6, paths)


def test_a_chunk_hands_out_local_names_again_once_their_values_are_dead():
    """CPython needs an extra instruction for every access to a local numbered
    256 or more; a chunk has over a thousand values but far fewer alive at once."""
    from fbd.compiler.pycode import CHUNK
    program = compile_network(random_network(2 * CHUNK, seed=5, mix=MIX, library=LIBRARY))
    chunks = [program._namespace[f"_chunk_{c}"] for c in range(2)]
    assert all(fn.__code__.co_nlocals < 256 for fn in chunks), [
        fn.__code__.co_nlocals for fn in chunks]
    # ... and a value read once from the table is read where it is used
    assert " = s[" in program.source() and "if s[" in program.source() or "(s[" in program.source()


def test_compiling_on_two_cores_gives_the_program_one_core_gives(monkeypatch):
    from fbd.compiler import forkmap
    from fbd.compiler.pycode import CHUNK
    net = random_network(forkmap.MIN_ITEMS * CHUNK + 10, seed=3, mix=MIX, library=LIBRARY)
    forked = compile_network(net)
    monkeypatch.setenv("FBD_COMPILE_JOBS", "1")
    alone = compile_network(net)
    assert forked.source() == alone.source()
    s1, s2 = forked.new_table(), alone.new_table()
    for k in range(5):
        forked.scan(s1, k * 5000)
        alone.scan(s2, k * 5000)
    assert s1 == s2


def test_control_loops_are_reproducible_and_their_real_values_stay_finite():
    load_libraries()
    net = control_network(600, seed=4)
    assert _wires(net) == _wires(control_network(600, seed=4))
    assert _wires(net) != _wires(control_network(600, seed=5))
    assert len(net.instances) == 600 and net.doc.endswith("100 loops")
    plc = Plc(compile_network(net))
    for name, value in {"X0": 1e6, "X1": -1e6, "X2": 0.25, "X3": -3.5}.items():
        plc.set(name, value)
    plc.scan(500)
    values = [plc.get(f"l{b}.OUT") for b in range(100)]
    assert all(math.isfinite(v) for v in values) and len(set(values)) > 50
    assert isinstance(plc.get("ALARM"), bool)


def test_control_loops_need_the_blocks_they_are_made_of():
    with pytest.raises(FbdError, match="the library has no SUB, MUL, ADD, LIMIT, GT, SR"):
        control_network(60, library={})
