"""The shipped programs run native with the Python engine's values, slot by slot,
for thousands of scans of random play (commands, cells, digits, new boards)."""

import random

import pytest

from fbd import Plc
from programs.game2048 import build as build_2048
from programs.hidato.program import build as build_hidato
from programs.sudoku import build as build_sudoku
from programs.sudoku.regions import jigsaw_regions
from tests.fbd.native.agreement import compare_runs

pytest.importorskip("llvmlite")


def random_play(program_inputs: dict, scans: int, seed: int, commands: int, size: int):
    """Each scan, now and then an event: CMD (1..commands) with a new CMD_SEQ and
    random ROW/COL/DIGIT/NUMBER; now and then new INIT values (a new board)."""
    rng = random.Random(seed)
    seq = 0
    for _ in range(scans):
        step = {}
        if rng.random() < 0.25:
            seq += 1
            step["CMD"] = rng.randint(0, commands)
            step["CMD_SEQ"] = seq % 30000
            for name, hi in (("ROW", size), ("COL", size), ("DIGIT", 9), ("NUMBER", size * size)):
                if name in program_inputs:
                    step[name] = rng.randint(-1, hi)
        if rng.random() < 0.02:
            for name in program_inputs:
                if name.startswith("INIT_"):
                    step[name] = rng.choice([0, 0, rng.randint(1, size * size)])
        yield step


def _agree(net, scans: int, seed: int, commands: int, size: int):
    ins = Plc(net, engine="python").program.input_types
    py, na = compare_runs(net, random_play(ins, scans, seed, commands, size))
    assert na.engine == "native" and na.scans == scans


def test_2048_agrees_over_thousands_of_scans():
    _agree(build_2048(), 4000, 1, 4, 4)


def test_sudoku_classic_agrees_over_thousands_of_scans():
    _agree(build_sudoku(), 2500, 2, 8, 9)


def test_sudoku_jigsaw_agrees():
    _agree(build_sudoku(regions=jigsaw_regions(seed=5)), 1000, 3, 8, 9)


def test_hidato_agrees_over_thousands_of_scans():
    _agree(build_hidato(5, 5), 2500, 4, 8, 5)


def test_auto_runs_every_shipped_program_native():
    for net in (build_2048(), build_sudoku(), build_hidato(4, 4)):
        plc = Plc(net)
        assert plc.engine == "native", plc.engine_reason
