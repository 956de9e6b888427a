"""What breaking on ST lines costs a run: ``python -m fbd.debug.linebench``.

With a line breakpoint enabled, the debugger runs every scan stepped (block by
block) and each ST block that may reach the breakpoint statement by statement
(a generator stopping before each statement, :mod:`fbd.st.debugcode`); without
one, the compiled scan. This times both on two programs, with a breakpoint on a
statement that never runs (so every scan is run the slow way and none stops):

* ``fbd.st.bench``'s generated program: one PROGRAM calling ``--stations``
  function blocks (timers, IF/CASE/FOR/WHILE, arrays), one ST block with
  nested calls;
* ``--blocks`` instances of a small ST function block placed in a network, as
  an FBD program using ST blocks would.

It prints microseconds per scan of the compiled run (``Debugger.step``), of
the line-stepped run (``run_until_break``), their ratio, and the cost of one
:meth:`~fbd.debug.Debugger.step_line` (a statement), the median of
``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

_CALC = """FUNCTION_BLOCK Calc
  VAR_INPUT a, b : INT; en : BOOL; END_VAR
  VAR_OUTPUT y : INT; q : BOOL; END_VAR
  VAR t1 : TON; END_VAR
  y := (a + b) * 3 - a / 7;
  q := y > 100 AND en;
  t1(IN := q, PT := T#1s);
  IF a < -1000 THEN
    y := 0;
  END_IF;
END_FUNCTION_BLOCK
"""
_NEVER_CALC = 9          # y := 0 (a is 5)


def station_program(stations: int):
    """(Debugger, POU, line that never runs) on fbd.st.bench's program."""
    from ..st.bench import program
    from ..st.project import load
    from .debugger import Debugger
    text = program(stations * 45)
    never = next(n for n, line in enumerate(text.splitlines(), 1)
                 if "level := level - 1000.0" in line)
    return Debugger(load("bench.st", text).plc(cycle=0.02)), "Station0", never


def block_network(instances: int):
    """(Debugger, POU, line that never runs): ``instances`` Calc blocks in a network."""
    from .. import Network, Plc
    from .. import types as t
    from ..st import compile_unit, parse
    from .debugger import Debugger
    calc = compile_unit(parse(_CALC, "calc.st"))["Calc"]
    net = Network("calc_blocks")
    a, b = net.input("A", t.INT, 5), net.input("B", t.INT, 60)
    en = net.input("EN", t.BOOL, True)
    last = None
    for k in range(instances):
        last = net.add(f"c{k}", calc(), a=a, b=b, en=en).q
    net.output("Q", last)
    return Debugger(Plc(net, cycle=0.005, engine="python")), "Calc", _NEVER_CALC


def _median_us(fn, units: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e6 * statistics.median(times) / units


def measure(dbg, pou: str, never: int, scans: int, repeat: int) -> dict:
    dbg.step(5)
    compiled = _median_us(lambda: dbg.step(scans), scans, repeat)
    bp = dbg.add_line_breakpoint(pou, never)
    dbg.run_until_break(5)
    stepped = _median_us(lambda: dbg.run_until_break(scans), scans, repeat)
    dbg.remove_breakpoint(bp)
    statements = 2_000
    line = _median_us(lambda: [dbg.step_line() for _ in range(statements)], statements, repeat)
    return {"compiled_us": compiled, "lines_us": stepped, "ratio": stepped / compiled,
            "step_line_us": line}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m fbd.debug.linebench",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--stations", type=int, nargs="*", default=[1, 20])
    ap.add_argument("--blocks", type=int, nargs="*", default=[1, 100])
    ap.add_argument("--scans", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    from ..library import load_libraries
    load_libraries()
    print("| program | compiled µs/scan | line-stepped µs/scan | ratio | step_line µs |")
    print("|---|---:|---:|---:|---:|")
    cases = [(f"PROGRAM calling {n} Station FBs", station_program, n) for n in args.stations]
    cases += [(f"{n} Calc ST blocks in a network", block_network, n) for n in args.blocks]
    for label, make, n in cases:
        r = measure(*make(n), args.scans, args.repeat)
        print(f"| {label} | {r['compiled_us']:,.1f} | {r['lines_us']:,.1f} | "
              f"{r['ratio']:.1f}x | {r['step_line_us']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
