"""Mutants of real ST programs and PLCopen projects (tests.robustness.fuzz): each
gives a project or one FbdError, never another exception or a hang. A few hundred
in the default run; thousands more with ``-m slow``."""

from __future__ import annotations

import pytest

from tests.robustness.fuzz import run

DEFAULT = {"st": range(0, 200), "plcopen": range(0, 60)}
SLOW = {"st": range(200, 5000), "plcopen": range(60, 2000)}


def _check(kind: str, seeds, folder) -> None:
    outcomes = {"project": 0, "FbdError": 0}
    for seed in seeds:
        try:
            error = run(kind, seed, folder)
        except Exception as e:
            raise AssertionError(f"mutant {kind} {seed} raised {type(e).__name__}: {str(e)[:300]} "
                                 f"(see it: python -m tests.robustness.fuzz {kind} {seed})") from e
        outcomes["project" if error is None else "FbdError"] += 1
    # the mutants reach past the parser: a share of them load, compile and run
    assert outcomes["project"] >= len(seeds) // 10, outcomes


@pytest.mark.parametrize("kind", sorted(DEFAULT))
def test_mutants_give_a_project_or_one_error(tmp_path, kind):
    _check(kind, DEFAULT[kind], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(SLOW))
def test_thousands_of_mutants_give_a_project_or_one_error(tmp_path, kind):
    _check(kind, SLOW[kind], tmp_path)
