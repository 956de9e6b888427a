"""A program's recorded scenario (tests/fbd/st/corpus_scenario.py) run here and
compared with matiec's rows, every variable after every scan, exactly.

With the matiec oracle, any folder of ``.st`` files (public programs one wants
to try, say) goes through the same scenario and comparison, nothing stored::

    FBD_MATIEC_ORACLE=PATH/oracle.py python -m tests.fbd.st.corpus_compare DIR

which prints one line a file and engine: refused here, refused by matiec,
agree, or the first differences.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import fbd
from fbd.errors import FbdError
from fbd.values import parse_value
from tests.fbd.st import corpus_scenario
from tests.fbd.st.scans import resolve
from tests.fidelity.oracle import ORACLE_ENV
from tests.fidelity.runner import comparable, same

ENGINES = ("python", "native")


def differences(path: Path, entry: dict, engine: str, defects: dict | None = None):
    """Each scan's first column that differs from matiec's, as a line; and the
    known matiec defects seen (``defects``: column -> (why, a test of (here,
    matiec) in comparable units that holds where the defect shows)). An
    FbdError loading the program on ``engine`` is raised."""
    project = fbd.load(path)
    spec, _ = corpus_scenario.program_of(project)
    plc = project.plc(engine=engine)
    instances = {s.name.upper(): (s.name, s.program, {p.upper(): p for p in plc.task(s.name).program.signals})
                 for s in project.configuration.tasks}
    by_scan = {}
    for scan, column, value in entry["sets"]:
        by_scan.setdefault(scan, []).append((column, value))
    found, seen = [], set()
    defects = defects or {}
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


def verdicts(oracle: str, folder: Path):
    """(file, engine or None, what happened) for each ``.st`` file under ``folder``."""
    for path in sorted(folder.rglob("*.st")):
        relative = str(path.relative_to(folder))
        try:
            corpus_scenario.program_of(fbd.load(path))
        except FbdError as e:
            yield relative, None, f"refused here: {str(e).splitlines()[0]}"
            continue
        except (AttributeError, IndexError, KeyError):
            yield relative, None, "no configuration with a program to run"
            continue
        try:
            entry = corpus_scenario.record(oracle, relative, folder)
        except Exception as e:      # the oracle's own failure, whatever it is, is one line
            yield relative, None, f"not run by matiec: {str(e).splitlines()[-1][:300]}"
            continue
        for engine in ENGINES:
            try:
                found, _ = differences(path, entry, engine)
            except FbdError as e:
                yield relative, engine, f"fault here: {str(e).splitlines()[0]}"
                continue
            yield relative, engine, ("agree" if not found else "differ: " + "; ".join(found[:3]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fbd.st.corpus_compare",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--oracle", default=os.environ.get(ORACLE_ENV))
    a = ap.parse_args(argv)
    if not a.oracle:
        ap.error(f"give --oracle PATH or set {ORACLE_ENV}")
    for relative, engine, verdict in verdicts(a.oracle, a.folder):
        print(f"{relative}{f' [{engine}]' if engine else ''}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
