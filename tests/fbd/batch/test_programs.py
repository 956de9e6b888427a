"""The shipped programs in one native batch: every instance plays its own random
game (commands, cells, digits, new boards) and equals a scalar run of the same
play on both scalar engines, its outputs every scan and every signal every
few dozen scans. 17 instances: a tile of 16 and one more."""

import numpy as np
import pytest

from programs.game2048 import build as build_2048
from programs.hidato.program import build as build_hidato
from programs.sudoku import build as build_sudoku
from programs.sudoku.regions import jigsaw_regions
from tests.fbd.batch.agreement import SCALAR_ENGINES, Pair
from tests.fbd.native.test_programs import random_play

pytest.importorskip("llvmlite")

LANES = 17
EVERY = 40   # scans between two comparisons of every signal


def _agree(net, scans: int, seed: int, commands: int, size: int) -> None:
    pair = Pair(net, LANES, "native", scalar=SCALAR_ENGINES)
    assert pair.batch.engine == "native", pair.batch.engine_reason
    types = pair.program.input_types
    plays = [random_play(types, scans, seed * 1000 + lane, commands, size) for lane in range(LANES)]
    now = {name: [pair.program.new_table()[slot]] * LANES for name, slot in pair.program.inputs.items()}
    outputs = list(pair.program.outputs)
    for k in range(scans):
        changed = set()
        for lane, play in enumerate(plays):
            for name, value in next(play).items():
                now[name][lane] = value
                changed.add(name)
        for name in sorted(changed):
            pair.set(name, now[name])
        pair.scan()
        wrong = pair.mismatches(None if (k + 1) % EVERY == 0 else outputs)
        assert not wrong, "\n".join(wrong)
    assert len(set(map(tuple, np.array([pair.batch.get(o) for o in outputs]).T.tolist()))) > 1


def test_2048_in_a_batch_equals_its_scalar_runs():
    _agree(build_2048(), 400, 1, 4, 4)


def test_sudoku_classic_in_a_batch_equals_its_scalar_runs():
    _agree(build_sudoku(), 240, 2, 8, 9)


def test_sudoku_jigsaw_in_a_batch_equals_its_scalar_runs():
    _agree(build_sudoku(regions=jigsaw_regions(seed=5)), 120, 3, 8, 9)


def test_hidato_in_a_batch_equals_its_scalar_runs():
    _agree(build_hidato(5, 5), 240, 4, 8, 5)
