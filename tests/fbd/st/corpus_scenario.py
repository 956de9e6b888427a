"""The scenario each real program of tests/data/st runs through, here and in
matiec, and the rows matiec gave for it (``corpus_scans.json``).

One scenario a program: 100 scans at its task's interval; before scans the
program's inputs (its VAR_INPUTs and located ``%I`` variables) take values a
seeded sequence gives, suited to each type: a BOOL toggling at its own period,
an integer jumping among its limits, small values and anywhere in its range
(so that sums and products wrap), a REAL among fractions, negatives, huge and
tiny (denormal) magnitudes, a TIME among durations from 0 to minutes,
negative ones included, an enumeration through its values. The seed is the
file's name, so every machine writes the same values.

With the matiec oracle (a tool beside the repository) the rows are recorded
again; CI has no matiec and only reads them::

    FBD_MATIEC_ORACLE=PATH/oracle.py python -m tests.fbd.st.corpus_scenario [FILE...]

matiec's rows are stored as changes: the first scan's every value, then per
scan only the values that changed (REAL and LREAL as the exact double, TIME in
ms, DATE/TOD/DT as IEC literals, enumerated values as ``TYPE#VALUE``, as the
oracle's JSON gives them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import fbd
from fbd.errors import FbdError
from fbd.st.ranges import written
from fbd.values import Kind
from tests.fidelity.iectypes import float32, int_range
from tests.fidelity.oracle import ORACLE_ENV
from tests.fidelity.runner import compared
from tests.paths import DATA

FOLDER = DATA / "st"
RECORDED = Path(__file__).resolve().parent / "corpus_scans.json"
SCANS = 100
ABOUT = ("matiec (iec2c 6bb2c339df6f, -f -l -p, through the matiec oracle) running each program of "
         "tests/data/st for 100 scans at its task's interval, the inputs written before the scans "
         "of 'sets' (--set NAME=VALUE@SCAN; tests/fbd/st/corpus_scenario.py makes them), every "
         "variable the oracle lists watched but EN, ENO and the standard FBs' internals; 'changes' "
         "holds the first scan's values and then each scan's changed ones: REAL and LREAL as the "
         "exact double, TIME in ms, DATE/TOD/DT as IEC literals, enumerated values as TYPE#VALUE")

BOOL_PERIODS = (1, 2, 3, 4, 5, 7, 10, 13, 20, 33)
REALS32 = (0.0, -0.0, 1.0, -1.0, 0.1, 0.5, -0.25, 1 / 3, 2.5, -3.75, 100.0, 4095.0, 1e6, -1e6,
           16777216.0, 16777217.0, 3.4e38, -3.4e38, 1e-3, 1e-30, 1.4e-45, -1e-38, 123.456, 0.7)
DURATIONS_MS = (0, 1, 5, 20, 49, 50, 51, 100, 250, 999, 1000, 1500, 5000, 20000, 60000, 3_600_000, -5, -1000)
STRINGS = ("", "a", "Hello", "42", "-7", "TRUE", "x y z", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def program_of(project):
    """(task spec, PouInfo of its PROGRAM) of the first task: what the oracle runs."""
    spec = project.configuration.tasks[0]
    return spec, project.blocks[spec.program].st_info


def inputs(project) -> list:
    """(name, type) of each variable a scenario writes, named as the oracle names
    it (``X`` in the instance it runs, ``INSTANCE1.X`` in another): of every
    program instance, its VAR_INPUTs, located ``%I`` variables and the variables
    its body never writes (read only: set from outside, by an HMI or a Modbus
    master), of elementary or enumerated type, in declaration order; of the
    first instance also the globals it reads and nothing writes."""
    found = []
    for k, spec in enumerate(project.configuration.tasks):
        info = project.blocks[spec.program].st_info
        writes = written(info.code.body)
        prefix = f"{spec.name}." if k else ""
        for name, var in info.variables.items():
            if var.fb is not None or var.type is None or var.constant \
                    or var.type.canonical.kind in (Kind.ARRAY, Kind.STRUCT):
                continue
            located = getattr(getattr(var.node, "location", None), "area", None)
            read_only = name.upper() not in writes and (
                var.section == "VAR" or var.section == "VAR_EXTERNAL" and not prefix and "*" not in writes)
            if var.section == "VAR_INPUT" or located == "I" or read_only:
                found.append((prefix + name, var.type.canonical))
    return found


def value_text(rnd: random.Random, tp, nonzero: bool) -> str:
    """One value of the type, as the oracle's ``--set`` and ``Plc.write`` read it."""
    kind = tp.kind
    if kind is Kind.BOOL:
        return rnd.choice(["TRUE", "FALSE"])
    if kind in (Kind.INT, Kind.BITS):
        lo, hi = int_range(tp.name)
        pool = [lo, lo + 1, hi, hi - 1, hi // 2, 0, 1, 2, 3, 7, 10, 100, 1000, 4095,
                rnd.randint(lo, hi), rnd.randint(lo, hi), rnd.randint(max(lo, -50), min(hi, 50))]
        if lo < 0:
            pool += [-1, -2, -100]
        value = min(hi, max(lo, rnd.choice(pool)))
        if nonzero and value in (0, -1):    # no SIGFPE in matiec: x / 0 and MIN / -1
            value = 1
        return str(value)
    if kind is Kind.REAL:
        if rnd.random() < 0.5:
            x = rnd.choice(REALS32)
        else:
            x = rnd.uniform(-1, 1) * 10.0 ** rnd.randint(-8, 8)
        return repr(float32(x) if tp.name == "REAL" else x)
    if kind is Kind.TIME:
        ms = rnd.choice(DURATIONS_MS) if rnd.random() < 0.7 else rnd.randint(0, 100_000)
        return f"T#{ms}ms"
    if kind is Kind.STRING:
        return "'" + rnd.choice(STRINGS) + "'"
    if kind is Kind.ENUM:
        return rnd.choice(tp.values)
    raise ValueError(f"no values for {tp.name}")


def sequence(name: str, tp, rnd: random.Random, nonzero: bool) -> list:
    """[(scan, value text)]: when the input changes, and to what."""
    if tp.kind is Kind.BOOL:
        period, phase = rnd.choice(BOOL_PERIODS), rnd.randrange(SCANS)
        level = [((k + phase) // period) % 2 == 1 for k in range(SCANS)]
        return [(k + 1, "TRUE" if level[k] else "FALSE") for k in range(SCANS)
                if k == 0 or level[k] != level[k - 1]]
    hold = rnd.choice((1, 2, 3, 5, 8))
    return [(k, value_text(rnd, tp, nonzero)) for k in range(1, SCANS + 1, hold)]


def scenario(relative: str, project, nonzero: bool = False) -> list:
    """[[scan, name, value text]] in scan order: the writes before each scan."""
    seed = int(hashlib.sha256(relative.encode()).hexdigest()[:12], 16)
    rnd = random.Random(seed)
    sets = []
    for name, tp in inputs(project):
        sets += [[scan, name, text] for scan, text in sequence(name, tp, rnd, nonzero)]
    return sorted(sets, key=lambda s: s[0])


# -- the stored rows -------------------------------------------------------------------
def load() -> dict:
    return json.loads(RECORDED.read_text())["programs"]


def rows(entry: dict):
    """Each scan's full row (column -> value), from the stored changes."""
    current: dict = {}
    changes = iter(entry["changes"])
    pending = next(changes, None)
    for scan in range(1, entry["scans"] + 1):
        if pending is not None and pending[0] == scan:
            current.update(pending[1])
            pending = next(changes, None)
        yield scan, current


def save(entries: dict) -> None:
    """One line per program's key and per scan of changes, so a diff shows what changed."""
    out = ["{", f' "about": {json.dumps(ABOUT)},', ' "programs": {']
    for k, (name, entry) in enumerate(sorted(entries.items())):
        out.append(f"  {json.dumps(name)}: {{")
        out += [f"   {json.dumps(key)}: {json.dumps(entry[key])}," for key in entry if key != "changes"]
        out.append('   "changes": [')
        out.append(",\n".join(f"    {json.dumps(change)}" for change in entry["changes"]))
        out.append("   ]")
        out.append("  }" + ("," if k < len(entries) - 1 else ""))
    out += [" }", "}"]
    RECORDED.write_text("\n".join(out) + "\n")


# -- recording ------------------------------------------------------------------------
def oracle_json(oracle: str, path: Path, args: list) -> tuple[dict | None, str]:
    done = subprocess.run([sys.executable, oracle, str(path), "--format", "json", *args],
                          capture_output=True, text=True, timeout=600)
    message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    try:
        return json.loads(done.stdout), message if done.returncode else ""
    except json.JSONDecodeError:
        return None, message or f"exit status {done.returncode}"


def watched(oracle: str, path: Path, source: str) -> list:
    """Every name the oracle lists but EN, ENO and the standard FBs' internals; an
    array or structure (listed as ``A[1..20]``, ``S.*``) by its name, which the
    oracle expands to its elements."""
    done = subprocess.run([sys.executable, oracle, str(path), "--list"], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{path.name}: {(done.stderr.strip().splitlines() or ['the oracle failed'])[-1]}")
    names = []
    for line in done.stdout.splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("%") or "->" in line:
            continue        # a located address, or an SFC transition's flag (not watchable)
        name = re.sub(r"(\[[^\]]*\.\.[^\]]*\]|\.\*).*$", "", line.split()[0])
        if name not in names:
            names.append(name)
    return [names[j] for j in compared(names, source)]


def record(oracle: str, relative: str, folder: Path = FOLDER) -> dict:
    """matiec's rows for the file ``folder/relative`` through its scenario."""
    path = folder / relative
    return record_columns(oracle, relative, watched(oracle, path, path.read_text(errors="replace")), folder)


def record_columns(oracle: str, relative: str, columns: list, folder: Path = FOLDER) -> dict:
    path = folder / relative
    project = fbd.load(path)
    for nonzero in (False, True):
        sets = scenario(relative, project, nonzero)
        args = ["--scans", str(SCANS)]
        for scan, name, value in sets:
            args += ["--set", f"{name}={value}@{scan}"]
        for column in columns:
            args += ["--watch", column]
        data, error = oracle_json(oracle, path, args)
        unwatchable = re.search(r"‘(\w+)’ has no member named ‘(\w+)’", error)
        if data is None and unwatchable:
            # the oracle's harness cannot reach a member matiec's variable list names
            # (an FB's EN in a program, a program's CLK, an SFC step): watched without it
            member = unwatchable[2].upper()
            kept = [c for c in columns if member not in c.upper().split(".")]
            if len(kept) == len(columns):
                raise RuntimeError(f"{relative}: {error}")
            return record_columns(oracle, relative, kept, folder)
        if data is None:
            raise RuntimeError(f"{relative}: {error}")
        if not error or "SIGFPE" not in error:
            break
    changes, previous = [], {}
    for scan in data["scans"]:
        values = scan["values"]
        changed = {c: v for c, v in values.items() if c not in previous or previous[c] != v
                   or (isinstance(v, float) and str(v) != str(previous[c]))}
        if changed or not changes:
            changes.append([scan["scan"], changed])
        previous = values
    entry = {"inputs": sorted({s[1] for s in sets}), "scans": len(data["scans"]),
             "types": data["types"], "sets": sets, "changes": changes}
    if error:
        entry["error"] = error
    return entry


def runnable(folder: Path = FOLDER) -> list:
    """The files of ``folder`` with a configuration to run here (relative paths)."""
    found = []
    for path in sorted(folder.rglob("*.st")):
        try:
            project = fbd.load(path)
            program_of(project)
        except (FbdError, AttributeError, IndexError, KeyError):
            continue
        found.append(str(path.relative_to(folder)))
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fbd.st.corpus_scenario",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="paths under tests/data/st (default: every runnable one)")
    ap.add_argument("--oracle", default=os.environ.get(ORACLE_ENV))
    a = ap.parse_args(argv)
    if not a.oracle:
        ap.error(f"give --oracle PATH or set {ORACLE_ENV}")
    entries = load() if RECORDED.is_file() and a.files else {}
    for relative in a.files or runnable():
        try:
            entries[relative] = record(a.oracle, relative)
        except RuntimeError as e:
            print(f"{relative}: not recorded: {e}", file=sys.stderr)
            continue
        print(relative, len(entries[relative]["types"]), "columns",
              len(entries[relative]["sets"]), "writes", entries[relative].get("error", ""), file=sys.stderr)
    save(entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
