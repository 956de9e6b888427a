"""What large and hostile sources cost the ST front end: ``python -m fbd.st.bench_sources``.

Two tables, for docs/performance.md:

* **one huge token**: a program whose one token is ``--token-mb`` megabytes (a
  name, a string literal, a number, a pragma, a comment), parsed: the CPU time
  and the peak of Python's allocations (``tracemalloc``) beyond the text
  itself, and what came of it (refused as too long, or read);
* **parse time per megabyte**: the programs of :func:`fbd.st.bench.program`
  (function blocks with timers, IF/CASE/FOR, arithmetic, calls) of
  ``--mb`` megabytes, parsed and analysed: CPU seconds, seconds per megabyte
  and the peak of allocations per megabyte.

CPU time (``time.process_time``) is what other work on a shared machine
disturbs least; tracemalloc counts what Python allocates, not what the
process holds (``ru_maxrss`` is printed once at the end for that).
"""

from __future__ import annotations

import argparse
import gc
import resource
import time
import tracemalloc

from ..errors import FbdError
from .bench import program
from .parser import parse
from .semantic import analyze

_MB = 1_000_000


def _tokens(size: int) -> dict[str, str]:
    return {
        "name": "PROGRAM p VAR " + "n" * size + " : INT; END_VAR x := 1; END_PROGRAM",
        "string literal": "PROGRAM p VAR s : STRING; END_VAR s := '" + "s" * size + "'; END_PROGRAM",
        "number": "PROGRAM p VAR x : LINT; END_VAR x := " + "0" * size + "1; END_PROGRAM",
        "pragma": "PROGRAM p VAR x : INT; END_VAR {" + "c" * size + "}\nx := 1; END_PROGRAM",
        "comment": "PROGRAM p VAR x : INT; END_VAR (*" + "c" * size + "*) x := 1; END_PROGRAM",
    }


def _run(fn):
    try:
        return fn()
    except FbdError as e:
        return e


def _measure(fn):
    """(CPU seconds, peak bytes allocated while ``fn`` ran, its result or error):
    timed in one run, its allocations traced in another (tracing slows it)."""
    gc.collect()
    start = time.process_time()
    outcome = _run(fn)
    seconds = time.process_time() - start
    del outcome
    gc.collect()
    tracemalloc.start()
    outcome = _run(fn)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, outcome


def token_table(megabytes: float) -> list[tuple]:
    rows = []
    for what, text in _tokens(int(megabytes * _MB)).items():
        seconds, peak, outcome = _measure(lambda text=text: parse(text, "token.st"))
        said = "read" if not isinstance(outcome, FbdError) else "refused: " + outcome.message[:48]
        rows.append((what, seconds, peak, said))
    return rows


def parse_table(sizes_mb) -> list[tuple]:
    rows = []
    for mb in sizes_mb:
        lines = 10
        while len(program(lines)) < mb * _MB:       # about 24 bytes a line: find the size
            lines = int(lines * mb * _MB / max(1, len(program(lines)))) + 10
        text = program(lines)
        seconds, peak, unit = _measure(lambda text=text: analyze(parse(text, "bench.st")))
        rows.append((len(text) / _MB, text.count("\n"), seconds, peak))
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m fbd.st.bench_sources", description=__doc__.split("\n")[0])
    ap.add_argument("--token-mb", type=float, nargs="+", default=[1.0, 10.0],
                    help="sizes of the one huge token, in MB (default 1 10)")
    ap.add_argument("--mb", type=float, nargs="+", default=[1.0, 4.0],
                    help="sizes of the programs parsed, in MB (default 1 4)")
    args = ap.parse_args(argv)
    parse("PROGRAM p VAR x : INT; END_VAR x := 1; END_PROGRAM")     # the tables, loaded once
    for mb in args.token_mb:
        print(f"\none token of {mb:g} MB")
        print(f"{'token':<16}{'CPU s':>8}{'peak MB':>10}  outcome")
        for what, seconds, peak, said in token_table(mb):
            print(f"{what:<16}{seconds:8.3f}{peak / _MB:10.3f}  {said}")
    print("\nparse and analysis")
    print(f"{'MB':>6}{'lines':>10}{'CPU s':>8}{'s / MB':>8}{'peak MB':>10}{'peak / MB':>11}")
    for mb, lines, seconds, peak in parse_table(args.mb):
        print(f"{mb:6.2f}{lines:10,}{seconds:8.2f}{seconds / mb:8.2f}{peak / _MB:10.0f}"
              f"{peak / _MB / mb:11.0f}")
    print(f"\nmax RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
