"""The corpus the default test suite runs: generated programs chosen to cover
every construct the generator makes, and reduced programs that show one
difference each, with matiec's rows (``tests/data/fidelity``), so no test
needs matiec.

    python -m tests.fidelity.corpus select --oracle PATH [--candidates 400] [--size 30]   # tops it up
    python -m tests.fidelity.corpus add DIR NAME...   # reduced examples a campaign wrote (--examples DIR)
    python -m tests.fidelity.corpus record --oracle PATH [NAME...]   # ask matiec again

A program is ``programs/NAME.st``; ``corpus.json`` holds how it runs (scans,
input writes, the variables watched) and what matiec gave.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tests.paths import DATA

from .generator import Config, generate
from .known import KNOWN_REFUSALS, KNOWN_TAGS
from .oracle import ORACLE_ENV, Oracle, Rows
from .runner import compared

FOLDER = DATA / "fidelity"
PROGRAMS = FOLDER / "programs"
INDEX = FOLDER / "corpus.json"
ABOUT = ("matiec (iec2c 6bb2c339df6f, -f -l -p, through the matiec oracle) running each program of "
         "programs/ for its scans at a 20 ms cycle, the inputs written before the scans given "
         "(--set NAME=VALUE@SCAN), every variable watched after every scan: REAL and LREAL as the "
         "exact double, TIME in ms, DATE/TOD/DT as IEC literals, enumerated values as TYPE#VALUE")


def load() -> dict:
    return json.loads(INDEX.read_text())["programs"] if INDEX.is_file() else {}


def save(entries: dict) -> None:
    """One line per key and per scan's row, so a diff shows what changed."""
    out = ["{", f' "about": {json.dumps(ABOUT)},', ' "programs": {']
    for k, (name, entry) in enumerate(sorted(entries.items())):
        out.append(f"  {json.dumps(name)}: {{")
        keys = [key for key in entry if key != "rows"]
        out += [f"   {json.dumps(key)}: {json.dumps(entry[key])}," for key in keys]
        out.append('   "rows": [')
        out.append(",\n".join(f"    {json.dumps(row)}" for row in entry["rows"]))
        out.append("   ]")
        out.append("  }" + ("," if k < len(entries) - 1 else ""))
    out += [" }", "}"]
    INDEX.write_text("\n".join(out) + "\n")


def rows(entry: dict) -> Rows:
    return Rows.from_json(entry)


def sets(entry: dict) -> list:
    return [tuple(s) for s in entry["sets"]]


def record_entry(oracle: Oracle, name: str, entry: dict) -> dict:
    source = (PROGRAMS / f"{name}.st").read_text()
    answer = oracle.run(source, sets(entry), entry["scans"], entry["watch"])
    answer = answer.only(compared(answer.columns, source))
    return {**{k: entry[k] for k in ("origin", "scans", "sets", "watch", "tags") if k in entry},
            **answer.to_json()}


def select(candidates: int, size: int, covered: frozenset = frozenset()) -> list:
    """Programs that together use every construct not in ``covered`` (what the
    corpus already has), small ones first: each pick adds the most constructs
    not yet covered per line of text. The first picks leave out the
    constructs of known differences (so they run as matiec runs them today);
    the last ones cover those that run here but give other values. (What the
    front end refuses today is shown by reduced programs, one difference each.)"""
    covered, chosen = set(covered), []
    for config, share in ((Config(KNOWN_TAGS), size * 2 // 3), (Config(frozenset(KNOWN_REFUSALS)), size)):
        programs = [generate(seed, config) for seed in range(candidates)]
        while len(chosen) < share:
            taken = {p.source for p, _ in chosen}
            best = max((p for p in programs if p.source not in taken), key=lambda p, seen=frozenset(covered):
                       len(p.tags - seen) / (20 + p.source.count("\n")))
            if not best.tags - covered:
                break
            chosen.append((best, config))
            covered |= best.tags
    return chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fidelity.corpus", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["select", "add", "record"])
    ap.add_argument("names", nargs="*", help="add: DIR then names; record: names (default all)")
    ap.add_argument("--oracle", default=os.environ.get(ORACLE_ENV))
    ap.add_argument("--candidates", type=int, default=400)
    ap.add_argument("--size", type=int, default=30)
    a = ap.parse_args(argv)
    entries = load()
    PROGRAMS.mkdir(parents=True, exist_ok=True)
    if a.command == "add":
        source_dir, names = Path(a.names[0]), a.names[1:]
        found = json.loads((source_dir / "corpus.json").read_text())["programs"]
        for name in names:
            (PROGRAMS / f"{name}.st").write_text((source_dir / "programs" / f"{name}.st").read_text())
            entries[name] = found[name]
        save(entries)
        return 0
    if not a.oracle:
        ap.error(f"give --oracle PATH or set {ORACLE_ENV}")
    oracle = Oracle(a.oracle)
    if a.command == "select":
        covered = frozenset(tag for entry in entries.values() for tag in entry.get("tags", ()))
        for program, config in select(a.candidates, a.size, covered):
            known = config.excluded != KNOWN_TAGS
            name = f"generated_{program.seed}" + ("_known" if known else "")
            if name in entries:     # the same seed under an older generator: another program
                continue
            (PROGRAMS / f"{name}.st").write_text(program.source)
            origin = f"generate({program.seed}, Config({'KNOWN_REFUSALS' if known else 'KNOWN_TAGS'}))"
            entry = {"origin": origin, "scans": program.scans,
                     "sets": [list(s) for s in program.sets], "watch": program.variables(),
                     "tags": sorted(program.tags)}
            entries[name] = record_entry(oracle, name, entry)
            print(name, len(program.tags), "constructs", file=sys.stderr)
    else:
        for name in a.names or sorted(entries):
            entries[name] = record_entry(oracle, name, entries[name])
    save(entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
