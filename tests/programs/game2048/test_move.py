"""The Move macro alone: four lines, one Done when the slowest is in, Worked, Score."""

import random

import pytest

from fbd import compile_network
from fbd.testing import Harness
from programs.game2048.move import move_macro
from programs.game2048.processing import VARIANTS
from tests.programs.game2048.reference import slide_line


def press(h: Harness, lines):
    """Pulse Command with 4 lines; return (results, Worked, Score, Done scans)."""
    h.set(Command=True, **{f"L{l}_{p}": lines[l][p - 1] for l in range(4) for p in range(1, 5)})
    done_at = []
    for scan in range(1, 9):
        h.scan()
        h.set(Command=False)
        if h.get("Done"):
            done_at.append(scan)
    results = [[h.get(f"R{l}_{p}") for p in range(1, 5)] for l in range(4)]
    return results, h.get("Worked"), h.get("Score"), done_at


@pytest.mark.parametrize("variant", VARIANTS)
def test_four_lines_against_the_reference(variant):
    rng = random.Random(5)
    h = Harness(move_macro(variant))
    for _ in range(60):
        lines = [[rng.choice((0, 0, 2, 2, 4, 8)) for _p in range(4)] for _l in range(4)]
        results, worked, score, done_at = press(h, lines)
        want = [slide_line(line) for line in lines]
        assert results == [w[0] for w in want]
        assert score == sum(w[1] for w in want)
        assert worked == any(w[0] != line for w, line in zip(want, lines))
        assert len(done_at) == 1          # one Done pulse per command
        if variant == "single_pass":
            assert done_at == [1]


def test_multi_scan_waits_for_the_slowest_line():
    h = Harness(move_macro("multi_scan"))
    # Line 0 is packed (Done at once), line 3 needs three passes.
    lines = [[0, 0, 2, 2], [0, 0, 0, 0], [0, 4, 0, 4], [2, 0, 0, 0]]
    results, worked, score, done_at = press(h, lines)
    assert done_at == [4] and worked and score == 12
    assert results == [[0, 0, 0, 4], [0, 0, 0, 0], [0, 0, 0, 8], [0, 0, 0, 2]]
    # A second command whose lines are all packed already is Done in its own scan.
    results, worked, score, done_at = press(h, [[0, 0, 2, 4]] * 4)
    assert done_at == [1] and not worked and score == 0


def test_block_counts():
    assert compile_network(move_macro("single_pass")).info()["blocks"] == 4 * 43 + 3
    assert compile_network(move_macro("multi_scan")).info()["blocks"] == 4 * 53 + 9
