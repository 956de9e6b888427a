"""Every real ST program of tests/data/st runs here scan by scan as matiec runs it:
the rows matiec gave for one scenario (corpus_scans.json says which) are what
the same scenario gives here, for every variable of the program."""

import json
import math
import re
from pathlib import Path

import pytest

import fbd
from fbd.values import DATES, NS_PER_US, Kind
from tests.fbd.st.scans import resolve_typed

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "data" / "st"
RECORDED = json.loads((HERE / "corpus_scans.json").read_text())["programs"]
# matiec refuses these (see tests/data/st/README.md); so does the compiler here
REFUSED = {
    "openplc_samples/RobotStudio/Estun/generated_plc.st": "SFUN_SERVO_INPUT_UPDATE is not declared",
    "openplc_samples/successed_ST/Code_13.st": "cannot assign UINT to Crane_TimeDelay_Timer_ET",
}


def same(mine, theirs) -> bool:
    if isinstance(theirs, float) or isinstance(mine, float):
        return math.isclose(float(mine), float(theirs), rel_tol=1e-6, abs_tol=1e-6)
    if isinstance(theirs, str) and isinstance(mine, str):
        return mine.upper() == theirs.upper()
    return mine == theirs


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_program_gives_matiecs_scans(name):
    recorded = RECORDED[name]
    project = fbd.load(DATA / name)
    plc = project.plc()
    spec = project.configuration.tasks[0]
    program = plc.task(spec.name).program
    signals = {p.upper(): p for p in program.signals}
    for scan, row in enumerate(recorded["rows"], start=1):
        for n in recorded["inputs"]:
            value = {3: True, 7: False}.get(scan)
            if value is None:
                continue
            path = signals.get(n.upper()) or signals[f"{spec.program}.{n}".upper()]
            if program.signal(path).kind == "input":
                plc.set(f"{spec.name}:{path}", value)
            else:
                plc.write(f"{spec.name}:{path}", value)
        plc.scan()
        for column, theirs in row.items():
            mine, tp = resolve_typed(plc, spec.name, signals, spec.program, column)
            if tp.kind is Kind.TIME or tp.kind in DATES:
                theirs *= NS_PER_US    # recorded in µs, held in ns
            assert same(mine, theirs), f"scan {scan}: {column} is {mine!r}, matiec {theirs!r}"


@pytest.mark.parametrize("name, message", sorted(REFUSED.items()))
def test_what_matiec_refuses_is_refused(name, message):
    with pytest.raises(fbd.FbdError, match=re.escape(message)):
        fbd.load(DATA / name)
