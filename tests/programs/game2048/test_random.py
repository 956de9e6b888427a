"""The Random macro alone: ranges, the 10 % four-flag, uniform cells, determinism."""

import math
from collections import Counter

import numpy as np
import pytest

from fbd.batch import BatchHarness
from fbd.testing import Harness
from programs.game2048.rng import SAW_BOTTOM, SAW_STEP, SAW_TOP, random_macro, seed_offset


def run(seed: int, scans: int):
    """(Row, Col, Four, Fraction) of every scan."""
    h = Harness(random_macro())
    h.set(Seed=seed_offset(seed))
    out = []
    for _ in range(scans):
        h.scan()
        out.append((h.get("Row"), h.get("Col"), h.get("Four"), h.get("Fraction")))
    return out


@pytest.fixture(scope="module")
def draws():
    return run(1, 16_000)


def test_outputs_are_coordinates_and_a_fraction(draws):
    for row, col, four, fraction in draws:
        assert 0 <= row <= 3 and 0 <= col <= 3 and isinstance(four, bool)
        assert 0.0 <= fraction < 1.0
        # x16, floor, divide by 4 with remainder
        assert divmod(math.trunc(fraction * 16), 4) == (row, col)


def test_four_flag_is_set_about_one_scan_in_ten(draws):
    share = sum(d[2] for d in draws) / len(draws)
    assert 0.09 < share < 0.11


def test_every_cell_is_drawn_about_equally(draws):
    counts = Counter((d[0], d[1]) for d in draws)
    assert len(counts) == 16
    expected = len(draws) / 16
    assert all(abs(n - expected) < 0.1 * expected for n in counts.values()), counts


def test_neighbouring_scans_give_unrelated_cells(draws):
    cells = [4 * d[0] + d[1] for d in draws]
    same = sum(a == b for a, b in zip(cells, cells[1:])) / (len(cells) - 1)
    assert 0.04 < same < 0.09          # 1/16 for independent draws
    pairs = Counter(zip(cells, cells[1:]))
    assert len(pairs) == 256           # every (cell, next cell) pair occurs


def test_same_seed_same_numbers_other_seed_other_numbers():
    assert run(7, 300) == run(7, 300)
    assert run(7, 300) != run(8, 300)


def test_sawtooth_ramps_between_its_bottom_and_top():
    h = Harness(random_macro())
    h.set(Seed=seed_offset(0))
    seen = []
    for _ in range(2000):
        h.scan()
        seen.append(h.get("saw.OUT"))
    assert seen[0] == SAW_STEP                      # from 0.0 on the first scan
    falls = [i for i in range(1, len(seen)) if seen[i] < seen[i - 1]]
    assert len(falls) == 2 and falls[1] - falls[0] == 913
    assert seen[falls[0]] == SAW_BOTTOM
    assert all(0 < v <= SAW_TOP for v in seen)
    assert all(SAW_BOTTOM <= v <= SAW_TOP for v in seen[falls[0]:])


def test_seed_offset():
    assert seed_offset(0) == 1000.0
    assert all(1000.0 <= seed_offset(s) < 2000.0 for s in range(0, 1_000_000, 997))
    assert len({seed_offset(s) for s in range(100_000)}) == 100_000
    assert seed_offset(1_000_000) == seed_offset(0)
    with pytest.raises(TypeError):
        seed_offset(1.5)


@pytest.mark.parametrize("scan", [1, 2, 3, 5, 8, 40, 913])
def test_games_started_together_draw_independently_on_each_scan(scan):
    """A Monte-Carlo batch: 4,096 games seeded 1..4096, all on the same scan.
    Across the games, the four-flag is set in about a tenth and the cells
    are uniform (offsets on a millisecond grid gave every game nearly the
    same draw on the first scans)."""
    games = 4096
    h = BatchHarness(random_macro(), n=games)
    h.set(Seed=np.array([seed_offset(s) for s in range(1, games + 1)]))
    for _ in range(scan):
        h.scan()
    four = h.get("Four").mean()
    assert 0.085 < four < 0.115, four
    counts = np.bincount(4 * h.get("Row") + h.get("Col"), minlength=16)
    expected = games / 16
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 37.7, counts          # the 0.1 % point of chi-square, 15 degrees
