"""A differential campaign: generate programs, run each here and in matiec,
group what differs, reduce one example of each group.

    python -m tests.fidelity.campaign --programs 2000 --seed 1 --jobs 2 \\
        --oracle PATH/oracle.py --report campaign.json --examples reduced/
    python -m tests.fidelity.campaign --seeds 17,42 --oracle PATH/oracle.py   # reduce these

Progress goes to stderr; the summary (programs per outcome, then each
distinct difference with its count, whether it is a known one, and its
reduced program) to stdout; ``--report`` writes the same as JSON and
``--examples`` each reduced program with matiec's rows in the corpus's form
(``tests/data/fidelity``), ready to be copied there. ``--without`` leaves
constructs out (their tags, as in the report: ``REAL,TRUNC,date_arithmetic``)
to look past a known difference that would hide others.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from .generator import Config, generate
from .known import attribute
from .oracle import ORACLE_ENV, Oracle, OracleError, Rows
from .reducer import Reducer
from .runner import AGREE, DIFFER, FBD_CRASH, FBD_REFUSES, check, coarse, compare

_worker: dict = {}


def _start(oracle_script: str, excluded: frozenset, engine: str = "auto"):
    _worker["oracle"] = Oracle(oracle_script)
    _worker["engine"] = engine
    _worker["config"] = Config(excluded)
    _worker["dir"] = Path(tempfile.mkdtemp(prefix="fbd-fidelity-"))


def _run(seed: int) -> dict:
    started = time.perf_counter()
    program = generate(seed, _worker["config"])
    outcome, _ = check(program, _worker["oracle"], _worker["dir"], _worker["engine"])
    return {"seed": seed, "kind": outcome.kind, "signature": outcome.signature, "line": outcome.line(),
            "lines": program.source.count("\n"), "tags": sorted(program.tags),
            "group": coarse(outcome.signature), "seconds": round(time.perf_counter() - started, 2)}


def _reduce(job) -> dict:
    seed, budget = job
    program = generate(seed, _worker["config"])
    return reduce_program(program, _worker["oracle"], _worker["dir"], budget, _worker["engine"])


def still_differs(original, oracle, workdir: Path, engine: str = "auto"):
    """The reducer's check: does a candidate give the same outcome signature?
    What fbd refuses is checked here first (cheap) and then in matiec (it must
    accept it); anything else must load here before matiec is asked."""
    load_time = original.kind in (FBD_REFUSES, FBD_CRASH) and original.scan is None

    def still(candidate) -> bool:
        path = workdir / f"{candidate.main}.st"
        path.write_text(candidate.source)
        loaded = compare(path, (), Rows([], {}, []), candidate.main, engine=engine)
        if load_time:
            if loaded.signature != original.signature:
                return False
            try:
                oracle.run(candidate.source, candidate.sets, candidate.scans, candidate.variables())
            except OracleError:
                return False
            return True
        if loaded.kind != AGREE:
            return False
        return check(candidate, oracle, workdir, engine)[0].signature == original.signature
    return still


def reduce_program(program, oracle, workdir: Path, budget: int = 300,
                   engine: str = "auto") -> dict:
    outcome, _ = check(program, oracle, workdir, engine)
    if outcome.kind == DIFFER:
        program = replace(program, scans=outcome.scan, sets=tuple(s for s in program.sets
                                                                      if s[0] <= outcome.scan))
    reducer = Reducer(still_differs(outcome, oracle, workdir, engine), budget)
    small = reducer.reduce(program)
    final, rows = check(small, oracle, workdir, engine)
    return {"seed": program.seed, "signature": outcome.signature, "group": coarse(outcome.signature),
            "checks": reducer.checks,
            "source": small.source, "scans": small.scans, "sets": [list(s) for s in small.sets],
            "watch": small.variables(),
            "outcome": final.line(), "known": attribute(final, small),
            "rows": rows.to_json() if rows else None}


def summary(results: list, reduced: dict) -> str:
    """Programs per outcome; then each group of differences (signatures alike
    but for their types), largest first, with its reduced example."""
    kinds = collections.Counter(r["kind"] for r in results)
    groups = collections.Counter(r["group"] for r in results)
    lines = [f"{len(results)} programs: " + ", ".join(f"{n} {k}" for k, n in kinds.most_common()), ""]
    for group, n in groups.most_common():
        if group == AGREE:
            continue
        seeds = [r["seed"] for r in results if r["group"] == group]
        more = " ..." if n > 6 else ""
        lines.append(f"{n:5d}  {group}   (seeds {', '.join(map(str, seeds[:6]))}{more})")
        variants = collections.Counter(r["signature"] for r in results if r["group"] == group)
        if len(variants) > 1:
            lines += [f"         {k:4d} {signature}" for signature, k in variants.most_common(4)]
        example = reduced.get(group)
        if example:
            lines.append(f"       {example['known'] or 'NEW'}: {example['outcome']}")
            lines += ["       | " + line for line in example["source"].splitlines()]
            if example["sets"]:
                lines.append(f"       | sets {example['sets']}, {example['scans']} scans")
    return "\n".join(lines)


def write_examples(directory: Path, reduced: dict) -> None:
    (directory / "programs").mkdir(parents=True, exist_ok=True)
    entries = {}
    for example in reduced.values():
        if example["rows"] is None:
            continue
        name = f"reduced_{example['seed']}"
        (directory / "programs" / f"{name}.st").write_text(example["source"])
        entries[name] = {"origin": f"reduced from generate({example['seed']}): {example['outcome']}",
                         **{k: example[k] for k in ("scans", "sets", "watch")}, **example["rows"]}
    (directory / "corpus.json").write_text(json.dumps({"programs": entries}, indent=1) + "\n")


def write_report(a, excluded, started, results, reduced) -> None:
    if a.report:
        a.report.write_text(json.dumps({"programs": a.programs, "first_seed": a.seed,
                                        "without": sorted(excluded),
                                        "seconds": round(time.perf_counter() - started),
                                        "results": results, "reduced": list(reduced.values())}, indent=1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fidelity.campaign",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="the first seed (then seed+1, ...)")
    ap.add_argument("--jobs", type=int, default=1, help="processes (default 1; the machine is shared)")
    ap.add_argument("--oracle", default=os.environ.get(ORACLE_ENV),
                    help=f"the oracle's script (or ${ORACLE_ENV})")
    ap.add_argument("--seeds", default="", help="these seeds only, comma-separated (to reduce a campaign's)")
    ap.add_argument("--without", default="", help="construct tags not to generate, comma-separated")
    ap.add_argument("--reduce", type=int, default=20, help="reduce one example of this many groups (0: none)")
    ap.add_argument("--budget", type=int, default=250, help="checks per reduction")
    ap.add_argument("--report", type=Path, help="write the results as JSON")
    ap.add_argument("--examples", type=Path, help="write the reduced programs with matiec's rows here")
    ap.add_argument("--engine", default="auto", choices=("auto", "python", "native"),
                    help="the engine the programs run on here (default auto, as a user's do)")
    a = ap.parse_args(argv)
    if not a.oracle or not Path(a.oracle).is_file():
        ap.error(f"no oracle: give --oracle PATH or set {ORACLE_ENV} to the matiec oracle's oracle.py")
    excluded = frozenset(t for t in a.without.split(",") if t)
    seeds = [int(x) for x in a.seeds.split(",") if x] or range(a.seed, a.seed + a.programs)
    a.programs = len(seeds)
    started = time.perf_counter()
    results = []
    with multiprocessing.Pool(a.jobs, _start, (a.oracle, excluded, a.engine),
                              maxtasksperchild=200) as pool:
        for k, result in enumerate(pool.imap_unordered(_run, seeds), 1):
            results.append(result)
            if k % 10 == 0 or k == len(seeds):
                counts = collections.Counter(r["kind"] for r in results)
                rate = (time.perf_counter() - started) / k
                print(f"[{k}/{len(seeds)}] " + ", ".join(f"{n} {kind}" for kind, n in counts.most_common())
                      + f"; {rate:.2f} s a program, {rate * (len(seeds) - k) / 60:.0f} min left",
                      file=sys.stderr, flush=True)
        results.sort(key=lambda r: r["seed"])
        groups = collections.defaultdict(list)
        for r in results:
            if r["group"] != AGREE:
                groups[r["group"]].append(r)
        # the results are kept before the reductions, which can take as long as the runs
        write_report(a, excluded, started, results, {})
        worst = sorted(groups.values(), key=len, reverse=True)[:a.reduce]
        jobs = [(min(g, key=lambda r: r["lines"])["seed"], a.budget) for g in worst]
        print(f"reducing {len(jobs)} examples ...", file=sys.stderr, flush=True)
        reduced = {}
        for example in pool.imap_unordered(_reduce, jobs):
            reduced[example["group"]] = example
            print(f"  reduced {example['signature'][:90]} ({example['checks']} checks)",
                  file=sys.stderr, flush=True)
    print(summary(results, reduced))
    write_report(a, excluded, started, results, reduced)
    if a.examples:
        write_examples(a.examples, reduced)
    return 0


if __name__ == "__main__":
    sys.exit(main())
