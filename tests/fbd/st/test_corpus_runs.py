"""Every real ST program of tests/data/st runs here scan by scan as matiec runs it,
on the Python engine and on the native one: through 100 scans of inputs of
every type (tests/fbd/st/corpus_scenario.py), every variable matiec's oracle
lists equals matiec's after every scan, bit for bit (REAL as its binary32,
LREAL as its double, TIME and the dates in ns, strings exactly)."""

import re

import pytest

import fbd
from fbd.errors import FbdError
from tests.fbd.st import corpus_compare, corpus_scenario

RECORDED = corpus_scenario.load()
DATA = corpus_scenario.FOLDER
# matiec refuses these (see tests/data/st/README.md); so does the compiler here
REFUSED = {
    "openplc_samples/RobotStudio/Estun/generated_plc.st": "SFUN_SERVO_INPUT_UPDATE is not declared",
    "openplc_samples/successed_ST/Code_13.st": "cannot assign UINT to Crane_TimeDelay_Timer_ET",
}

# programs that run here but have no recorded scenario, and why
NOT_RECORDED = {
    "openplc_samples/successed_ST/cex.st": "matiec refuses it: a PROGRAM named P clashes with its "
                                           "library's parameters under -p",
    "openplc_samples/successed_ST/struct_embedding.st": "matiec refuses it: a FUNCTION named G clashes "
                                                        "with its library's parameters under -p",
}
# where matiec is wrong: program -> column -> (why, a test of (here, matiec) in ns,
# floats ..., true where the defect shows); each must show, or its entry goes
MATIEC_DEFECTS = {
    "openplc_samples/successed_ST/Code_5.st": {
        "TIMER1.PT": ("matiec defect: its literal TIME#1.0ms, read through a double and cut to the ns, "
                      "is 999999 ns (docs/st.md: T#0.25ms)", lambda mine, theirs: mine - theirs == 1),
    },
}


def differences(name: str, engine: str):
    try:
        return corpus_compare.differences(DATA / name, RECORDED[name], engine, MATIEC_DEFECTS.get(name))
    except FbdError as e:
        if "native engine" in str(e):
            pytest.skip(str(e).splitlines()[0])     # strings, say: auto runs Python
        raise


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("name", sorted(RECORDED))
def test_program_gives_matiecs_scans(name, engine):
    found, seen = differences(name, engine)
    assert not found, "\n".join(found[:5])
    assert seen == set(MATIEC_DEFECTS.get(name, ())), "a known matiec defect no longer shows"


def test_every_program_that_runs_here_has_its_recorded_scenario():
    assert set(corpus_scenario.runnable()) == set(RECORDED) | set(NOT_RECORDED)


def test_the_recorded_writes_are_what_the_scenario_makes_today():
    """Else the scenario's code and matiec's rows went apart: record them again
    (``python -m tests.fbd.st.corpus_scenario``, with the oracle)."""
    for name, entry in RECORDED.items():
        project = fbd.load(DATA / name)
        made = [corpus_scenario.scenario(name, project, nonzero) for nonzero in (False, True)]
        assert entry["sets"] in made, name


def test_the_scenario_drives_every_input_type_to_its_edges():
    """Integers reach both ends of their range, REALs huge, tiny and negative
    values, TIMEs negative ones, BOOLs both levels (what the whole corpus writes)."""
    written = {}
    for entry in RECORDED.values():
        for _scan, column, value in entry["sets"]:
            written.setdefault(entry["types"].get(column, "?"), set()).add(value)
    assert {"-32768", "32767", "0"} <= written["INT"] and {"0", "65535"} <= written["UINT"]
    reals = [float(v) for v in written["REAL"]]
    assert max(reals) > 3e38 and min(reals) < -3e38 and 0 < min(abs(x) for x in reals if x) < 1e-44
    assert any(x != int(x) for x in reals)
    assert "T#-1000ms" in written["TIME"] and {"TRUE", "FALSE"} <= written["BOOL"]


@pytest.mark.parametrize("name, message", sorted(REFUSED.items()))
def test_what_matiec_refuses_is_refused(name, message):
    with pytest.raises(fbd.FbdError, match=re.escape(message)):
        fbd.load(DATA / name)
