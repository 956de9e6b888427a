"""Every real ST program of tests/data/st runs here scan by scan as matiec runs it,
on the Python engine and on the native one: through 100 scans of inputs of
every type (tests/fbd/st/corpus_scenario.py), every variable matiec's oracle
lists equals matiec's after every scan, bit for bit (REAL as its binary32,
LREAL as its double, TIME and the dates in ns, strings exactly)."""

import re

import pytest

import fbd
from fbd.errors import FbdError
from tests.fbd.st import corpus_scenario
from tests.fbd.st.scans import resolve
from tests.fidelity.runner import comparable, same, write

RECORDED = corpus_scenario.load()
DATA = corpus_scenario.FOLDER
# matiec refuses these (see tests/data/st/README.md); so does the compiler here
REFUSED = {
    "openplc_samples/RobotStudio/Estun/generated_plc.st": "SFUN_SERVO_INPUT_UPDATE is not declared",
    "openplc_samples/successed_ST/Code_13.st": "cannot assign UINT to Crane_TimeDelay_Timer_ET",
}


def differences(name: str, engine: str):
    """Each scan's first column that differs from matiec's, as a line."""
    entry = RECORDED[name]
    project = fbd.load(DATA / name)
    spec, _ = corpus_scenario.program_of(project)
    try:
        plc = project.plc(engine=engine)
    except FbdError as e:
        if "native engine" in str(e):
            pytest.skip(str(e).splitlines()[0])
        raise
    instances = {s.name.upper(): (s.name, s.program, {p.upper(): p for p in plc.task(s.name).program.signals})
                 for s in project.configuration.tasks}
    signals = instances[spec.name.upper()][2]
    by_scan = {}
    for scan, column, value in entry["sets"]:
        by_scan.setdefault(scan, []).append((column, value))
    found = []
    for scan, row in corpus_scenario.rows(entry):
        for column, value in by_scan.get(scan, ()):
            write(plc, signals, spec.program, column, value)
        plc.scan()
        for column, theirs in row.items():
            tp = entry["types"][column]
            mine = read(plc, instances, spec.name, column)
            if not same(tp, *comparable(tp, mine, theirs)):
                found.append(f"scan {scan}: {column} ({tp}) is {mine!r} here, matiec {theirs!r}")
                break
    return found


def read(plc, instances, main: str, column: str):
    """A column of the oracle's: a variable of the instance it runs, or
    ``INSTANCE1.X`` of another instance of the configuration."""
    task, program, signals = instances[main.upper()]
    head, _, rest = column.partition(".")
    if rest and head.upper() in instances and f"{program}.{head}".upper() not in signals:
        task, program, signals = instances[head.upper()]
        column = rest
    return resolve(plc, task, signals, program, column)


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("name", sorted(RECORDED))
def test_program_gives_matiecs_scans(name, engine):
    found = differences(name, engine)
    assert not found, "\n".join(found[:5])


@pytest.mark.parametrize("name, message", sorted(REFUSED.items()))
def test_what_matiec_refuses_is_refused(name, message):
    with pytest.raises(fbd.FbdError, match=re.escape(message)):
        fbd.load(DATA / name)
