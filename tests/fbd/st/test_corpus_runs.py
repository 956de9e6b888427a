"""Every real ST program of tests/data/st runs here scan by scan as matiec runs it,
on the Python engine and on the native one: through 100 scans of inputs of
every type (tests/fbd/st/corpus_scenario.py), every variable matiec's oracle
lists equals matiec's after every scan, bit for bit (REAL as its binary32,
LREAL as its double, TIME and the dates in ns, strings exactly)."""

import re

import pytest

import fbd
from fbd.errors import FbdError
from fbd.values import parse_value
from tests.fbd.st import corpus_scenario
from tests.fbd.st.scans import resolve
from tests.fidelity.runner import comparable, same

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
    """Each scan's first column that differs from matiec's, as a line; and the
    known matiec defects seen (their columns)."""
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
    by_scan = {}
    for scan, column, value in entry["sets"]:
        by_scan.setdefault(scan, []).append((column, value))
    found, seen = [], set()
    defects = MATIEC_DEFECTS.get(name, {})
    for scan, row in corpus_scenario.rows(entry):
        for column, value in by_scan.get(scan, ()):
            write(plc, instances, spec.name, column, value)
        plc.scan()
        for column, theirs in row.items():
            tp = entry["types"][column]
            mine = read(plc, instances, spec.name, column)
            pair = comparable(tp, mine, theirs)
            if same(tp, *pair):
                continue
            if column in defects and defects[column][1](*pair):
                seen.add(column)
            else:
                found.append(f"scan {scan}: {column} ({tp}) is {mine!r} here, matiec {theirs!r}")
                break
    if "SIGFPE" in entry.get("error", ""):
        # matiec's program died dividing an integer by zero; here the quotient is 0
        # (docs/st.md) and the scan ends as any other
        for column, value in by_scan.get(entry["scans"] + 1, ()):
            write(plc, instances, spec.name, column, value)
        plc.scan()
    return found, seen


def locate(instances, main: str, column: str):
    """(task, program, its signals, the name in it) of one of the oracle's names:
    a variable of the instance it runs, or ``INSTANCE1.X`` of another instance."""
    task, program, signals = instances[main.upper()]
    head, _, rest = column.partition(".")
    if rest and head.upper() in instances and f"{program}.{head}".upper() not in signals:
        return (*instances[head.upper()], rest)
    return task, program, signals, column


def read(plc, instances, main: str, column: str):
    task, program, signals, name = locate(instances, main, column)
    return resolve(plc, task, signals, program, name)


def write(plc, instances, main: str, column: str, value: str) -> None:
    """As the oracle's ``--set``: a located input through the process image
    (latched as the scan starts), any other variable at once."""
    task, program, signals, name = locate(instances, main, column)
    path = signals[f"{program}.{name}".upper()]
    info = plc.task(task).program.signal(path)
    parsed = parse_value(info.type, value) if value.startswith("'") else value
    if info.kind == "input":
        plc.set(f"{task}:{path}", parsed)
    else:
        plc.write(f"{task}:{path}", parsed)


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
