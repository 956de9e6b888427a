"""Drive one block with random inputs in the compiled engine and in the
object-per-block interpreter, and check they agree on every signal, every scan.

Used by the memory, edge, timer and counter tests: their blocks keep state in
output and state slots, which is where the two executions differ most.
"""

import random

from fbd import BOOL, STRING, TIME
from fbd.compiler.interp import Interpreter
from fbd.testing import Harness


def _random_value(rng: random.Random, tp):
    if tp is BOOL:
        return rng.random() < 0.5
    if tp is TIME:
        return f"T#{rng.randint(-5, 40)}ms"
    if tp is STRING:
        return rng.choice(["", "a", "bc"])
    return rng.randint(-3, 3)


def assert_agrees_with_interpreter(block, scans: int = 600, seed: int = 0) -> None:
    h = Harness.block(block)
    it = Interpreter(h.plc.program)
    rng = random.Random(seed)
    program = h.plc.program
    paths = [p for p in program.signals if p.startswith("blk.")] + list(program.outputs)
    for k in range(1, scans + 1):
        for name, tp in program.input_types.items():
            if rng.random() < 0.3:
                value = _random_value(rng, tp)
                h.set({name: value})
                it.set(name, value)
        h.scan()
        it.scan()
        for path in paths:
            ours, theirs = h.get(path), it.get(path)
            assert ours == theirs or ours != ours and theirs != theirs, \
                f"{block!r} scan {k}: {path}"      # a NaN is the same NaN
