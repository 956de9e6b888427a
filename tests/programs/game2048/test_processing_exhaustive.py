"""Both Processing variants on every line of four cells with tiles up to 2**17:
0 (empty), 2, 4, ..., 131072 in each cell, 18**4 = 104,976 lines, all of them,
in one batch each (fbd.testing.check_batch), against the reference line, on
both batch engines.

A line is pushed with a one-scan Command pulse and read on the scan its Done
pulse comes (the single-pass variant: that scan; the original: after its
compaction passes). Its outputs, Worked and Score must be the reference's.
"""

import pytest

from fbd.testing import check_batch, input_product
from programs.game2048.processing import VARIANTS, processing_macro
from tests.fbd.batch.agreement import BATCH_ENGINES
from tests.programs.game2048.reference import slide_line

TILES = [0] + [1 << k for k in range(1, 18)]


def reference(case: dict) -> dict:
    line = [case[f"E{i}"] for i in range(1, 5)]
    want, gained = slide_line(line)
    return {**{f"O{i}": v for i, v in enumerate(want, start=1)},
            "Worked": want != line, "Score": gained}


@pytest.mark.parametrize("engine", BATCH_ENGINES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_line_of_tiles_up_to_2_17_matches_the_reference(variant, engine):
    lines = input_product(E1=TILES, E2=TILES, E3=TILES, E4=TILES)
    checked = check_batch(processing_macro(variant), {**lines, "Command": True}, reference,
                          then={"Command": False}, until="Done", max_scans=6,
                          chunk=len(TILES) ** 4, engine=engine)
    assert checked == 18 ** 4


def test_a_wrong_reference_is_reported_with_the_cases():
    lines = input_product(E1=[0, 2], E2=[2], E3=[0], E4=[2])
    with pytest.raises(AssertionError, match=r"(?s)2 of 2 cases differ.*'E1': 0.*got \{'O4': 4\}"):
        check_batch(processing_macro("single_pass"), {**lines, "Command": True},
                    lambda case: {"O4": 0}, until="Done")
