"""The Processing macro alone, both variants, against the reference line."""

import itertools

import pytest

from fbd import compile_network
from fbd.testing import Harness
from programs.game2048.processing import VARIANTS, processing_macro
from tests.programs.game2048.reference import slide_line

# Every line of 0, 2, 4, 8 (256), and lines with larger and mixed tiles.
LINES = [list(t) for t in itertools.product((0, 2, 4, 8), repeat=4)] + [
    [16, 16, 32, 32], [1024, 1024, 2048, 0], [0, 65536, 0, 65536], [2, 0, 2, 4],
    [4, 4, 8, 8], [8, 0, 0, 8], [0, 2, 0, 0], [2048, 1024, 512, 512]]


def passes_needed(line) -> int:
    """Passes of the original compaction: each fills the last gap behind a tile."""
    line, n = list(line), 0
    while True:
        gaps = [p for p in range(1, 4) if line[p] == 0 and any(line[:p])]
        if not gaps:
            return n
        p = gaps[-1]
        line[:p + 1] = [0] + line[:p]
        n += 1


def process(h: Harness, line, max_scans=10):
    """Pulse Command with ``line``; scan until Done; return (outputs, scans)."""
    h.set(Command=True, **{f"E{i}": v for i, v in enumerate(line, start=1)})
    for scans in range(1, max_scans + 1):
        h.scan()
        h.set(Command=False)
        if h.get("Done"):
            return [h.get(f"O{i}") for i in range(1, 5)], h.get("Worked"), h.get("Score"), scans
    raise AssertionError(f"no Done for {line} within {max_scans} scans")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_line_matches_the_reference(variant):
    h = Harness(processing_macro(variant))
    h.scan()
    for line in LINES:
        out, worked, score, scans = process(h, line)
        want, gained = slide_line(line)
        assert (out, worked, score) == (want, want != line, gained), line
        assert scans == (1 if variant == "single_pass" else passes_needed(line) + 1), line
        h.scan()   # Done is a one-scan pulse
        assert h.get("Done") is False


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("line, want, score", [
    ([2, 2, 2, 2], [0, 0, 4, 4], 8),          # merges start from the far end
    ([4, 4, 8, 8], [0, 0, 8, 16], 24),
    ([2, 2, 4, 0], [0, 0, 4, 4], 4),          # a merged tile does not merge again
    ([2, 0, 0, 0], [0, 0, 0, 2], 0),          # slides as far as it can
    ([2, 4, 8, 16], [2, 4, 8, 16], 0),        # nothing moves: not Worked
])
def test_the_rules(variant, line, want, score):
    h = Harness(processing_macro(variant))
    out, worked, got, _ = process(h, line)
    assert (out, got, worked) == (want, score, want != line)


def test_the_original_takes_up_to_three_passes_over_several_scans():
    h = Harness(processing_macro("multi_scan"))
    h.set(Command=True, E1=2, E2=0, E3=0, E4=0).scan()
    h.set(Command=False)
    seen = [[h.get(f"m{i}.OUT") for i in range(1, 5)]]
    for _ in range(3):
        h.scan()
        seen.append([h.get(f"m{i}.OUT") for i in range(1, 5)])
    assert seen == [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 2]]
    assert h.get("Done") and h.get("O4") == 2
    # The outputs are held until the next command.
    h.set(E1=4).scan(5)
    assert [h.get(f"O{i}") for i in range(1, 5)] == [0, 0, 0, 2] and not h.get("Done")


def test_the_original_latches_on_the_rising_edge_only():
    h = Harness(processing_macro("multi_scan"))
    h.set(Command=True, E1=2, E2=2, E3=0, E4=0)
    for _ in range(6):              # Command held high: one processing, one Done
        h.scan()
    dones = 0
    h.set(Command=True, E1=8, E2=8, E3=8, E4=8)
    for _ in range(6):
        h.scan()
        dones += h.get("Done")
    assert dones == 0 and [h.get(f"O{i}") for i in range(1, 5)] == [0, 0, 0, 4]


def test_single_pass_has_no_memories_or_feedback():
    info = compile_network(processing_macro("single_pass")).info()
    assert info["blocks"] == 43 and info["feedback_copies"] == 0
    assert set(info["block_types"]) == {"ADD", "EQ", "NE", "OR", "SEL"}


def test_multi_scan_blocks():
    info = compile_network(processing_macro("multi_scan")).info()
    assert info["blocks"] == 53
    assert info["block_types"]["MEMORY"] == 4 and info["block_types"]["R_TRIG"] == 1


def test_unknown_variant():
    with pytest.raises(ValueError, match="single_pass, multi_scan"):
        processing_macro("quick")
