"""How fast the ST front end reads programs: ``python -m fbd.st.bench``.

Generates Structured Text programs of the sizes asked for (function blocks
with timers, IF/CASE/FOR, arithmetic, calls: the mix of a real machine
program), an IL one, and times parsing, analysis and compilation to block
types (:func:`fbd.st.compile_unit`), printing the median of several runs and
its spread. The first parse of a process also pays for the parser tables
(loaded from lark's cache after the first run on a machine); that cost is
printed separately.

Then the scan: ``--instances`` copies of one function block written in ST
(arithmetic, a comparison, a TON) against the same computation as a network
of library blocks (ADD, MUL, DIV, SUB, GT, AND, TON), each run by the Python
engine, microseconds per scan and the ratio.

``--programs`` times real programs on both engines beside matiec's C,
``--hour`` an hour of PLC time fast-forwarded, ``--big`` the compile of big
programs (:mod:`.progbench`).
"""

from __future__ import annotations

import argparse
import statistics
import time

_FB = """FUNCTION_BLOCK Station{n}
  VAR_INPUT
    start, stop : BOOL;
    setpoint : INT := 100;
  END_VAR
  VAR_OUTPUT
    running : BOOL;
    level : REAL;
    count : DINT;
  END_VAR
  VAR
    timer : TON;
    edge : R_TRIG;
    samples : ARRAY[0..9] OF INT;
    i : INT;
    state : INT;
  END_VAR
  edge(CLK := start);
  IF edge.Q AND NOT stop THEN
    running := TRUE;
    count := count + 1;
  ELSIF stop THEN
    running := FALSE;
  END_IF;
  timer(IN := running, PT := T#2s500ms);
  CASE state OF
    0: IF timer.Q THEN state := 1; END_IF;
    1, 2: level := level + INT_TO_REAL(setpoint) * 0.5 / (1.0 + level);
          state := state + 1;
    3..9: state := 0;
  ELSE
    state := 0;
  END_CASE;
  FOR i := 0 TO 9 BY 1 DO
    samples[i] := (samples[i] * 3 + setpoint) MOD 1000;
  END_FOR;
  WHILE level > 1000.0 DO
    level := level - 1000.0;
  END_WHILE;
  (* a comment, as real programs have *)
  running := running AND (count < 100000) OR (state = 2 XOR start);
END_FUNCTION_BLOCK

"""

_IL = """FUNCTION_BLOCK Latch{n}
  VAR_INPUT set, reset : BOOL; END_VAR
  VAR_OUTPUT q : BOOL; END_VAR
  VAR pulse : TP; END_VAR
    LD set
    ANDN reset
    OR( q
    ANDN reset
    )
    ST q
    CAL pulse(
      IN := q,
      PT := T#100ms
    )
    LD pulse.Q
    JMPC done
    LD FALSE
done:
    RET
END_FUNCTION_BLOCK

"""


def program(lines: int, il: bool = False) -> str:
    """An ST (or IL) source of about ``lines`` lines, with a PROGRAM that
    instantiates every block and a configuration that runs it."""
    template = _IL if il else _FB
    per = template.count("\n")
    n = max(1, lines // per)
    kind = "Latch" if il else "Station"
    parts = [template.format(n=i) for i in range(n)]
    decls = "\n".join(f"    s{i} : {kind}{i};" for i in range(n))
    calls = "\n".join(f"  s{i}(" + ("set := go, reset := FALSE" if il else "start := go, stop := FALSE")
                      + ");" for i in range(n))
    parts.append(f"PROGRAM main\n  VAR\n    go : BOOL;\n{decls}\n  END_VAR\n{calls}\nEND_PROGRAM\n\n"
                 "CONFIGURATION config\n  RESOURCE res ON PLC\n    TASK main_task(INTERVAL := T#20ms, "
                 "PRIORITY := 0);\n    PROGRAM inst WITH main_task : main;\n  END_RESOURCE\n"
                 "END_CONFIGURATION\n")
    return "".join(parts)


def _time(fn, repeat: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each run (on a shared machine the CPU
    time is the steadier figure)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


_CALC = """FUNCTION_BLOCK Calc
  VAR_INPUT a, b : INT; en : BOOL; END_VAR
  VAR_OUTPUT y : INT; q : BOOL; END_VAR
  VAR t1 : TON; END_VAR
  y := (a + b) * 3 - a / 7;
  q := y > 100 AND en;
  t1(IN := q, PT := T#1s);
END_FUNCTION_BLOCK
"""


def scan_networks(instances: int):
    """(ST network, block network): ``instances`` copies of Calc each, on the same inputs."""
    from .. import Network
    from .. import types as t
    from ..library import block_type
    from . import compile_unit, parse
    ADD, MUL, DIV, SUB, GT, AND, TON = (block_type(n, "the ST benchmark") for n in
                                        ("ADD", "MUL", "DIV", "SUB", "GT", "AND", "TON"))
    calc = compile_unit(parse(_CALC, "calc.st"))["Calc"]
    st_net, blk_net = Network("st_calc"), Network("block_calc")
    for net in (st_net, blk_net):
        a, b = net.input("A", t.INT, 5), net.input("B", t.INT, 60)
        en = net.input("EN", t.BOOL, True)
        last = None
        for k in range(instances):
            if net is st_net:
                last = net.add(f"c{k}", calc(), a=a, b=b, en=en).q
                continue
            s = net.add(f"add{k}", ADD(t.INT), IN1=a, IN2=b)
            m = net.add(f"mul{k}", MUL(t.INT), IN1=s.OUT, IN2=3)
            d = net.add(f"div{k}", DIV(t.INT), IN1=a, IN2=7)
            y = net.add(f"sub{k}", SUB(t.INT), IN1=m.OUT, IN2=d.OUT)
            g = net.add(f"gt{k}", GT(t.INT), IN1=y.OUT, IN2=100)
            q = net.add(f"and{k}", AND(t.BOOL), IN1=g.OUT, IN2=en)
            net.add(f"ton{k}", TON(), IN=q.OUT, PT="T#1s")
            last = q.OUT
        net.output("Q", last)
    return st_net, blk_net


def scan_times(instances: int, scans: int = 200, repeat: int = 5) -> dict:
    """Median µs per scan of the ST and the block network (Python engine)."""
    from ..testing import Harness
    out = {}
    for name, net in zip(("st", "blocks"), scan_networks(instances)):
        h = Harness(net, engine="python")
        h.scan(10)
        wall, _cpu = _time(lambda h=h: h.scan(scans), repeat)
        out[name] = 1e6 * statistics.median(wall) / scans
    out["ratio"] = out["st"] / out["blocks"]
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m fbd.st.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, nargs="*", default=[1000, 10000, 50000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--instances", type=int, nargs="*", default=[1, 100, 1000])
    ap.add_argument("--programs", action="store_true",
                    help="real programs' scans on each engine beside matiec's C (fbd.st.progbench)")
    ap.add_argument("--hour", action="store_true", help="an hour of PLC time, fast-forwarded")
    ap.add_argument("--big", action="store_true",
                    help="load and compile 10,000 lines and 100,000 statements")
    ap.add_argument("--matiec", help="matiec's directory (iec2c, lib/); default $FBD_MATIEC_DIR")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    if args.programs or args.hour or args.big:
        from ..library import load_libraries
        from . import progbench
        load_libraries()
        if args.programs:
            progbench.programs(args.matiec, args.rounds)
        if args.hour:
            progbench.an_hour()
        if args.big:
            progbench.compiles()
        return

    t0 = time.perf_counter()
    from . import parse
    from .parser import _parser
    _parser()
    print(f"parser tables: {1000 * (time.perf_counter() - t0):.0f} ms (import and load, once per process)")
    from ..library import load_libraries
    from .compile import compile_unit
    from .semantic import analyze
    load_libraries()
    print(f"{'program':>10} {'lines':>7} {'KiB':>5} {'parse ms':>9} {'(cpu)':>7} {'spread':>7} {'lines/s':>8}"
          f" {'analyze ms':>11} {'(cpu)':>7} {'compile ms':>11} {'(cpu)':>7}")
    for il in (False, True):
        for lines in args.lines:
            text = program(lines, il=il)
            n = text.count("\n")
            unit = [None]

            def run(text=text, unit=unit):
                unit[0] = parse(text, "bench.st")
            wall, cpu = _time(run, args.repeat)
            med = statistics.median(wall)
            spread = (max(wall) - min(wall)) / med if med else 0.0
            row = (f"{('IL' if il else 'ST') + ' FBs':>10} {n:>7} {len(text) / 1024:>5.0f} "
                   f"{1000 * med:>9.1f} {1000 * statistics.median(cpu):>7.1f} {100 * spread:>6.0f}% "
                   f"{n / med:>8.0f}")
            awall, acpu = _time(lambda unit=unit: analyze(unit[0]), args.repeat)
            row += f" {1000 * statistics.median(awall):>11.1f} {1000 * statistics.median(acpu):>7.1f}"
            try:    # analysis again, then types and code: what fbd.st.load does after parsing
                cwall, ccpu = _time(lambda unit=unit: compile_unit(unit[0]), args.repeat)
                row += f" {1000 * statistics.median(cwall):>11.1f} {1000 * statistics.median(ccpu):>7.1f}"
            except Exception as e:      # IL until its lowering is written
                row += f"  (not compiled: {str(e)[:60]})"
            print(row, flush=True)
    print(f"\n{'instances':>10} {'ST us/scan':>11} {'blocks us/scan':>15} {'ratio':>6}")
    for n in args.instances:
        r = scan_times(n, repeat=args.repeat)
        print(f"{n:>10} {r['st']:>11.1f} {r['blocks']:>15.1f} {r['ratio']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
