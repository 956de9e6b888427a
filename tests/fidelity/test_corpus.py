"""Generated ST programs run here as matiec ran them: every variable after
every scan, bit for bit (tests/data/fidelity, chosen by
``python -m tests.fidelity.corpus select``; reduced programs from campaigns,
``python -m tests.fidelity.campaign``, each showing one difference).

A program that differs today because of a known defect is marked with it;
the mark is strict, so the test fails when the fix lands: then take the mark
away (and the defect's entry in tests/fidelity/known.py)."""

import pytest

from tests.fidelity import corpus
from tests.fidelity.runner import AGREE, FBD_REFUSES, compare

ENTRIES = corpus.load()
# program -> the known difference it shows today
DIFFER_TODAY = {
    # matiec defects (docs/st.md): its timespec sum leaves 10**9 ns unnormalised; ...
    "reduced_time_sum_of_a_whole_second": "RAMP's T of 4 CYCLEs of T#250ms is 0 s + 10**9 ns in matiec, "
                                          "below TR = T#1s, so BUSY stays TRUE a scan longer there",
    "reduced_date_of_a_dt_just_before_1970": "DT_TO_DATE(DT#1970-01-01-00:00:00 - T#30ms) is 1970-01-01 in "
                                             "matiec (whole seconds toward zero), 1969-12-31 here",
    "reduced_dt_whole_second_before_1970": "DT#1969-12-30-12:00:05 reached by subtracting 11:59:58.75 is "
                                           "left unnormalised in matiec (a second short), so DT_TO_INT "
                                           "gives 1478 there, 1477 here",
    "reduced_untyped_literal_past_lint": "a + 18446744073709551614 for a ULINT: gcc types the C constant "
                                         "as a 128-bit integer, so matiec's sum is 2**64 (MOD gives 1, > 5 "
                                         "TRUE); a ULINT here, as IEC types it, wrapping to 0",
    # documented (docs/st.md, what the programs keep out of): an order C leaves unspecified
    "reduced_index_and_in_out_call": "a[v MOD 4 + 1] := f(io := v): the index is computed after the call "
                                     "here, before it in matiec's C (the order C leaves unspecified)",
}


def cases():
    for name in sorted(ENTRIES):
        marks = [pytest.mark.xfail(strict=True, reason=DIFFER_TODAY[name])] if name in DIFFER_TODAY else []
        yield pytest.param(name, marks=marks)


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("name", list(cases()))
def test_the_program_runs_as_matiec_ran_it(name, engine):
    """On each engine: ``auto`` runs these on the native one, and the Python engine
    (the fallback, and what the debugger steps) must compute the same."""
    entry = ENTRIES[name]
    outcome = compare(corpus.PROGRAMS / f"{name}.st", corpus.sets(entry), corpus.rows(entry),
                      engine=engine)
    if outcome.kind == FBD_REFUSES and "cannot run on the native engine" in outcome.line():
        pytest.skip(outcome.line().rpartition(": ")[2])     # strings, say: auto runs Python
    assert outcome.kind == AGREE, outcome.line()


def test_every_program_file_has_its_rows_and_every_mark_its_program():
    assert {p.stem for p in corpus.PROGRAMS.glob("*.st")} == set(ENTRIES)
    assert set(DIFFER_TODAY) <= set(ENTRIES)
