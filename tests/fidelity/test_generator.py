"""The generator of the differential tests: its programs are the same on
every machine, keep out of what matiec gets wrong or leaves undefined in C,
and the front end here accepts them (no matiec needed for these tests)."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from fbd.errors import FbdError
from fbd.st.project import load
from fbd.st.stdlib import STANDARD
from tests.fidelity import iectypes as ty
from tests.fidelity.generator import Config, generate, iec_for_count
from tests.fidelity.known import KNOWN_REFUSALS

PROGRAMS = [generate(seed) for seed in range(40)]
# a small program using each construct the front end refuses today, generated
# without the others (the reasons: tests/fidelity/known.py)
REFUSED_TODAY: dict[str, int] = {}
# a small program for each construct the front end accepts since the fidelity fixes
ACCEPTED_SINCE_THE_FIDELITY_FIXES = {
    "TRUNC": 284, "untyped_literal_left_of_bit_operator": 158, "array_of_time_initialiser": 310,
    "time_initialiser_in_type": 302, "PID": 180, "RAMP": 194, "HYSTERESIS": 361, "INTEGRAL": 42,
    "DERIVATIVE": 346, "RTC": 162, "SEMA": 164, "LEN": 300, "FIND": 387, "date_arithmetic": 361,
    "date_function": 4}


def test_every_construct_refused_today_has_its_program():
    assert set(REFUSED_TODAY) == set(KNOWN_REFUSALS)


def test_a_seed_gives_the_same_program_every_time():
    assert [generate(seed).source for seed in range(5)] == [p.source for p in PROGRAMS[:5]]
    assert [generate(seed).sets for seed in range(5)] == [p.sets for p in PROGRAMS[:5]]
    assert len({p.source for p in PROGRAMS}) == len(PROGRAMS)


def test_no_for_loop_with_literal_bounds_runs_exactly_once():
    # matiec runs FOR i := 1 TO 1 zero times (a documented matiec defect)
    loops = [m for p in PROGRAMS
             for m in re.findall(r"FOR \w+ := (-?\d+) TO (-?\d+)(?: BY (-?\d+))? DO", p.source)]
    assert len(loops) > 20
    assert all(iec_for_count(int(a), int(b), int(s or 1)) != 1 for a, b, s in loops)


def test_time_literals_are_ones_matiec_stores_exactly():
    exact = {ty.time_text(ms) for ms in ty.DURATIONS_MS} | {ty.time_text(-ms) for ms in ty.DURATIONS_MS}
    literals = {m for p in PROGRAMS
                for m in re.findall(r"(?<![A-Z_])T#-?[\dhms]+", re.sub(r"'(\$.|[^'])*'", "", p.source))}
    assert literals and literals <= exact, literals - exact


def test_no_division_by_a_literal_zero():
    # matiec refuses one; an integer variable divides only as MAX(x, 1), never zero
    divisors = [d for p in PROGRAMS for d in re.findall(r" (?:/|MOD) (\(?[^ ;,]+)", p.source)]
    literals = [d for d in divisors if re.fullmatch(r"\(*(\w+#)?-?[\d.]+\)*", d)]
    assert len(literals) > 20 and all(float(d.strip("()").split("#")[-1]) != 0 for d in literals)
    assert any(d.startswith("MAX(") for d in divisors)


def test_no_name_clashes_with_matiecs_library():
    # under -p matiec refuses a POU or type named like one of its library's parameters
    reserved = STANDARD.parameter_names() | set(STANDARD.names()) | set(ty.ELEMENTARY) | {"D", "T"}
    for p in PROGRAMS:
        names = re.findall(r"^(?:FUNCTION|FUNCTION_BLOCK|PROGRAM)\s+(\w+)|^\s+(\w+)\s*:\s*(?:\(|STRUCT)",
                           p.source, re.M)
        assert not {n.upper() for pair in names for n in pair if n} & reserved


def test_every_program_writes_its_inputs_within_its_scans():
    for p in PROGRAMS:
        assert all(1 <= scan <= p.scans and name in p.inputs for scan, name, _ in p.sets)


def test_excluded_constructs_are_never_generated():
    config = Config(frozenset({"REAL", "FOR", "CASE", "fb"}))
    for seed in range(20):
        p = generate(seed, config)
        assert not p.tags & config.excluded
        assert not re.search(r"\bREAL\b|\bFOR\b|\bCASE\b|FUNCTION_BLOCK", p.source.replace("REAL#", ""))


@settings(max_examples=12, deadline=None)
@given(st_.integers(0, 2**31))
def test_the_front_end_accepts_every_generated_program(seed):
    load("generated.st", text=generate(seed, Config(frozenset(KNOWN_REFUSALS))).source)


@pytest.mark.parametrize("construct", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=reason, raises=(FbdError, AttributeError)))
    for c, reason in sorted(KNOWN_REFUSALS.items())])
def test_the_front_end_accepts_generated_programs_using(construct):
    program = generate(REFUSED_TODAY[construct], Config(frozenset(KNOWN_REFUSALS) - {construct}))
    assert construct in program.tags, "the generator changed: pick another seed using it"
    load("generated.st", text=program.source)


@pytest.mark.parametrize("construct", sorted(ACCEPTED_SINCE_THE_FIDELITY_FIXES))
def test_the_front_end_accepts_what_the_fidelity_fixes_opened(construct):
    program = generate(ACCEPTED_SINCE_THE_FIDELITY_FIXES[construct], Config(frozenset(KNOWN_REFUSALS)))
    assert construct in program.tags, "the generator changed: pick another seed using it"
    load("generated.st", text=program.source)


def _calls_writing_an_index_of_their_target(source: str) -> list:
    """``a[v MOD 4 + 1] := f(io := v)``-like assignments: a call on the right binding a
    variable of the target's index to an in-out or an output."""
    found = []
    for index, call in re.findall(r"^\s*\w+\[([^\]]*)\] := \w+\((.*)\);$", source, re.M):
        bound = set(re.findall(r"(?::=|=>)\s*(\w+)", call))
        if bound & set(re.findall(r"[A-Za-z_]\w*", index)):
            found.append((index, call))
    return found


def test_no_call_writes_a_variable_of_its_assignments_index():
    # matiec's C computes the index before the call, here after it (C leaves the order open)
    # seed 448 without LEN, FIND, date arithmetic: `a_21[udi_19 MOD 4 + 1] := fn_1(..., udi_3 := udi_19)`
    programs = [generate(448, Config(frozenset({"LEN", "FIND", "date_arithmetic", "date_function"})))] + \
        [generate(seed) for seed in range(300)]
    assert [p.seed for p in programs if _calls_writing_an_index_of_their_target(p.source)] == []
