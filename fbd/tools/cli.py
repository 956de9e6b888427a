"""The ``fbd`` command: run, describe and benchmark networks; list the block library.

Core verbs live here: ``run``, ``info``, ``blocks``, ``export``, ``bench``. Verbs that
belong to a program or to the HMI are plug-ins: a package names a function
``register(subparsers)`` in the ``fbd.commands`` entry-point group; it adds
its parser with ``subparsers.add_parser(...)`` and sets
``parser.set_defaults(func=handler)``, where ``handler(args)`` returns the exit
status (``None`` means 0) and raises :class:`~fbd.errors.FbdError` for a user
error. ``fbd`` imports none of those packages by name: dependencies point
hmi -> programs -> blocks -> fbd, never back.

Errors a user can make (an unknown module or signal, a bad ``--set``, an
invalid network) print one line, ``fbd: error: ...``, on stderr and exit with
status 2; ``fbd --traceback ...`` (or ``FBD_TRACEBACK=1``) shows the Python
traceback instead.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path

from .. import types as t
from ..block import registry
from ..compiler.pycode import ScanProgram, compile_network
from ..errors import FbdError, UnknownSignal, ValidationError
from ..library import command_plugins, load_libraries
from ..loading import is_project_file, load, load_network, one_line
from ..runtime.faults import PlcFault
from ..runtime.plc import Plc
from ..values import NS_PER_US, parse_value
from .rows import RowWriter

__all__ = ["main", "build_parser", "load_network", "CliError"]

PROG = "fbd"
PROGRESS_OVER = 100_000  # runs longer than this many scans report progress on stderr
ORDER_SHOWN = 100        # ``fbd info`` lists this much of the execution order unless --full


class CliError(FbdError):
    """A mistake on the command line; printed as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (and does not exit by itself)."""

    def error(self, message: str):
        raise CliError(f"{message} (see '{self.prog} --help')")


def _compile(args, dump: str | None = None) -> ScanProgram:
    return compile_network(load_network(args.target), dump=dump)


def _compile_for(args, dump: str | None = None):
    """The network compiled for ``--engine`` (auto, native or python)."""
    from ..native.engines import build_program
    return build_program(load_network(args.target), args.engine, dump)[0]


# ------------------------------------------------------------------ values in and out
def _parse_set(text: str, program: ScanProgram, scans: int):
    name, eq, rest = text.partition("=")
    name = name.strip()
    if not eq or not name:
        raise CliError(f"--set {text!r}: write NAME=VALUE or NAME=VALUE@SCAN")
    info = program.signal(name)
    # a text program's own variables (its VAR_INPUT among them) are held in the table,
    # not the network's inputs: they are written, as the debugger writes them
    if info.kind not in ("input", "global", "state"):
        raise CliError(f"--set {name}: not an input or a variable of {program.name} (its "
                       f"inputs: {', '.join(program.inputs) or 'none'})")
    value, at = rest, 1
    head, at_sign, tail = rest.rpartition("@")
    if at_sign and not (info.type.kind == "string" and not tail.strip().isdigit()):
        if not tail.strip().isdigit() or len(tail.strip()) > 30:
            raise CliError(f"--set {text!r}: the scan after @ must be a number (1 is the "
                           f"first scan)")
        value, at = head, int(tail)
        if not 1 <= at <= scans:
            raise CliError(f"--set {text!r}: scan {at} is outside this run's scans 1..{scans}")
    raw = parse_value(info.type, value, f"--set {name}")
    return at, name, info.type.to_python(raw), info.kind == "state"


def _cycle_us(text: str) -> int:
    from ..runtime.plc import to_us
    body = text.strip()
    try:
        float(body)
    except ValueError:
        pass
    else:
        raise CliError(f"--cycle {text}: give a unit, e.g. {body}ms or T#{body}ms")
    try:
        us = to_us(body, "--cycle")
    except t.InvalidValue as e:
        raise CliError(f"--cycle {text}: not a duration (write e.g. 5ms, 100us or T#10ms)") from e
    if us <= 0:
        raise CliError(f"--cycle {text}: the cycle must be positive")
    return us


# ------------------------------------------------------------------------------- run
def cmd_run(args) -> int:
    if args.scans < 0:
        raise CliError(f"--scans {args.scans}: cannot run a negative number of scans")
    cycle_us = _cycle_us(args.cycle)
    if args.program:
        if not is_project_file(args.target):
            raise CliError(f"--program {args.program}: only for a PLCopen file "
                           f"(FILE.xml --program NAME)")
        args.target = f"{args.target}:{args.program}"
    elif is_project_file(args.target):
        return _run_configuration(args, cycle_us)
    program = _compile_for(args, dump=args.dump)
    sets = sorted((_parse_set(text, program, args.scans) for text in args.set),
                  key=lambda s: s[0])
    watch = args.watch or list(program.outputs)
    for path in watch:
        program.signal(path)  # an unknown path fails here, before the run
    plc = Plc(program, cycle=f"T#{cycle_us}us")
    infos = [program.signal(p) for p in watch]
    with _outputs(args) as vcd:
        rows = RowWriter(args.format, sys.stdout, program.name, infos, cycle_us, vcd)
        plc.main.traces.append(rows)
        _run_scans(plc, args.scans, sets)
        rows.close()
    st = plc.stats.summary()
    if st["scans"]:
        print(f"fbd: {st['scans']:,} scans of {program.name} every {t.format_time(cycle_us * NS_PER_US)}: "
              f"scan mean {st['mean_us']:.1f} µs, max {st['max_us']:.1f} µs, "
              f"{st['overruns']} overrun{'s' if st['overruns'] != 1 else ''} "
              f"({getattr(program, 'engine', 'python')} engine)",
              file=sys.stderr)
    return 0


@contextmanager
def _outputs(args):
    """The --vcd file, opened before the run so that a path that cannot be written
    fails at once, not after the whole simulation."""
    if not args.vcd:
        yield None
        return
    _check_writable(args.vcd, "--vcd")
    try:
        f = open(args.vcd, "w")
    except OSError as e:
        raise CliError(f"--vcd {args.vcd}: {e.strerror or e}") from None
    with f:
        yield f


def _run_scans(plc, total: int, sets) -> None:
    """``total`` scans, the --set values applied before their scans; progress on
    stderr for long runs."""
    report = total > PROGRESS_OVER
    step = max(10_000, total // 100)
    tty = sys.stderr.isatty()
    done = 0
    last_shown = -1

    def advance(n: int) -> None:
        nonlocal done, last_shown
        while n > 0:
            k = min(n, step) if report else n
            plc.scan(k)
            done += k
            n -= k
            if report:
                pct = done * 100 // total
                if tty:
                    print(f"\rfbd: scan {done:,}/{total:,} ({pct}%)", end="",
                          file=sys.stderr, flush=True)
                elif pct // 10 != last_shown:
                    last_shown = pct // 10
                    print(f"fbd: scan {done:,}/{total:,} ({pct}%)", file=sys.stderr, flush=True)

    for at, name, value, variable in sets:
        advance(at - 1 - done)
        (plc.write if variable else plc.set)(name, value)
    advance(total - done)
    if report and tty:
        print(file=sys.stderr)


class _Configuration:
    """A configuration's variables seen as one program's signals, by their IEC names
    (``instance.variable``, a global alone): what ``fbd run plc.xml`` sets, traces
    and prints."""

    def __init__(self, plc, name: str):
        self.plc = plc
        self.name = name
        instances = plc.names.instances.values()
        self.inputs = [i.iec_path(n) for i in instances for n in i.task.program.inputs]
        self.inputs += plc.globals.names
        self.outputs = [i.iec_path(n) for i in instances for n in i.task.program.outputs]

    def signal(self, path: str):
        return self.plc._locate(path)[1]

    def rows(self, fmt: str, paths, vcd) -> RowWriter:
        """A row writer over ``paths``, called once every program due at an instant
        of the main task has run (the instant's last values, as ``plc.scan()``
        leaves them)."""
        infos = []
        for p in paths:
            task, info = self.plc._locate(p)
            if info.type is None:
                raise CliError(f"{p} is a block's internal storage, not an IEC value")
            slot = None if info.slot is None else (task, info.slot)
            infos.append(info._replace(path=p, slot=slot))
        writer = RowWriter(fmt, sys.stdout, self.name, infos, self.plc.main.cycle_us, vcd)
        self.plc.record_ticks(writer)
        return writer


def _run_configuration(args, cycle_us: int) -> int:
    """``fbd run plc.xml``: the project's configuration, one PLC task per program
    instance; a row after each instant of the main task (docs/st.md); variables
    are named ``instance.variable``."""
    from .. import load as load_project
    project = load_project(args.target)
    plc = project.plc(cycle=f"T#{cycle_us}us", dump=args.dump)
    view = _Configuration(plc, project.configuration.name)
    sets = sorted((_parse_set(text, view, args.scans) for text in args.set), key=lambda s: s[0])
    watch = args.watch or view.outputs
    for path in watch:
        view.signal(path)
    with _outputs(args) as vcd:
        rows = view.rows(args.format, watch, vcd)
        _run_scans(plc, args.scans, sets)
        rows.close()
    tasks = ", ".join(f"{tk.name} ({tk.program.name}) "
                      f"{'on its event, sampled ' if tk.trigger is not None else ''}every "
                      f"{t.format_time(tk.cycle_us * NS_PER_US)}: {tk.scans:,} scans" for tk in
                      (plc.task(spec.name) for spec in project.configuration.tasks))
    print(f"fbd: configuration {project.configuration.name}: {tasks}", file=sys.stderr)
    return 0


def _check_writable(path: str, what: str) -> None:
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise CliError(f"{what} {path}: no directory {parent}")


# ------------------------------------------------------------------------------ info
def cmd_info(args) -> int:
    from ..native.engines import decide
    program = _compile(args)
    info = program.info()
    info["doc"] = program.network.doc
    engine, why, _native = decide(program.flat, "auto")
    info["engine"] = {"auto": engine, "reason": why}
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    lines = [f"network {info['network']}: {info['blocks']} block{'s' if info['blocks'] != 1 else ''}, "
             f"{info['slots']} slots, {info['feedback_copies']} feedback cop"
             f"{'ies' if info['feedback_copies'] != 1 else 'y'}"]
    if info["doc"]:
        lines.append(f"  {one_line(info['doc'])}")
    lines.append("inputs:      " + (", ".join(f"{n}: {tp}" for n, tp in info["inputs"].items())
                                    or "(none)"))
    lines.append("outputs:     " + (", ".join(f"{n}: {tp}" for n, tp in info["outputs"].items())
                                    or "(none)"))
    lines.append("block types: " + (", ".join(f"{n} x{c}" for n, c in info["block_types"].items())
                                    or "(none)"))
    lines.append("macros:      " + (", ".join(f"{n} x{c}" for n, c in info["macros"].items())
                                    or "(none)"))
    lines.append(f"engine:      auto runs it on the {engine} engine: {one_line(why)}")
    order = program.order
    shown = order if args.full else order[:ORDER_SHOWN]
    lines.append("execution order:")
    width = len(str(len(order)))
    for pos, index in enumerate(shown, 1):
        leaf = program.leaves[index]
        lines.append(f"  {pos:>{width}}  {leaf.path}  {leaf.block!r}")
    if len(shown) < len(order):
        lines.append(f"  ... {len(order) - len(shown)} more (--full lists them all)")
    print("\n".join(lines))
    return 0


# ---------------------------------------------------------------------------- blocks
def _library() -> dict:
    load_libraries()
    return registry()


def _ports(cls) -> str:
    ins = []
    for p in cls.inputs:
        ins.append(f"{p.prefix}1..{p.prefix}n" if hasattr(p, "prefix") else p.name)
    outs = [p.name for p in cls.outputs]
    return f"{', '.join(ins) or '-'} → {', '.join(outs) or '-'}"


def cmd_blocks(args) -> int:
    lib = _library()
    if args.name:
        by_upper = {n.upper(): cls for n, cls in lib.items()}
        cls = by_upper.get(args.name.upper())
        if cls is None:
            raise UnknownSignal(args.name, lib, "block type")
        if args.json:
            print(json.dumps(_block_json(cls), indent=2))
            return 0
        print(f"{cls.type_name} ({cls.family or 'no family'})")
        print()
        print(inspect.cleandoc(cls.__doc__ or ""))
        return 0
    classes = sorted(lib.values(), key=lambda c: (c.family, c.type_name))
    if args.json:
        print(json.dumps([_block_json(c) for c in classes], indent=2))
        return 0
    if not classes:
        print("no block types registered (no block library installed?)")
        return 0
    table = [("family", "name", "ports", "summary")]
    table += [(c.family or "-", c.type_name, _ports(c), c.summary()) for c in classes]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  "
              f"{row[3]}".rstrip())
    return 0


def _block_json(cls) -> dict:
    def port(p):
        if hasattr(p, "prefix"):
            return {"name": f"{p.prefix}1..{p.prefix}n", "type": str(p.type), "min": p.min}
        return {"name": p.name, "type": str(p.type)}
    return {"name": cls.type_name, "family": cls.family, "summary": cls.summary(),
            "stateful": cls.stateful,
            "types": {v: str(f) for v, f in cls.types.items()},
            "inputs": [port(p) for p in cls.inputs], "outputs": [port(p) for p in cls.outputs],
            "params": {k: repr(v) for k, v in cls.params.items()},
            "doc": inspect.cleandoc(cls.__doc__ or "")}


# ---------------------------------------------------------------------------- export
def cmd_export(args) -> int:
    from .. import plcopen
    from ..plcopen.names import refused as refused_names
    whole = args.target.lower().endswith(".st")   # a whole .st file: its POUs, its configuration
    if whole:
        from ..plcopen.st_export import project_xml
        project = load(args.target)
        name = args.target
    else:
        network = load_network(args.target)
        name = network.name
    _check_writable(args.output, "-o")
    cycle_us = _cycle_us(args.cycle)
    cycle = t.format_time(cycle_us * NS_PER_US)
    if whole:
        tree = project_xml(project, cycle=cycle)
        what = "its configuration" if project.compiled.context.unit.configurations \
            else f"a {cycle} task"
    else:
        tree = plcopen.to_xml(network, cycle=cycle)
        what = f"a {cycle} task"
    plcopen.write_tree(tree, args.output)
    # names in POUs brought from a file, which the export keeps as their text uses them
    for problem in refused_names(tree.getroot()):
        print(f"fbd: warning: {args.output}: {problem}", file=sys.stderr)
    checked = ""
    if args.validate:
        plcopen.validate(args.output)
        checked = ", valid against the TC6 v2.01 schema"
    print(f"fbd: wrote {name} to {args.output} (PLCopen TC6 XML, {what}{checked})",
          file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    from . import bench
    load_libraries()
    return bench.main(args)


# ---------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Run, inspect and benchmark IEC 61131-3 "
                                            "Function Block Diagram networks.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--traceback", action="store_true",
                        help="on an error, show the Python traceback instead of one line")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = sub.add_parser("run", help="run a network for some scans and print watched signals",
                       description="Run MODULE:FUNCTION (a function returning a Network, or a "
                                   "Network) on a simulated PLC and print one row per scan. "
                                   "A PLCopen FILE.xml or ST FILE.st runs its configuration (one task per "
                                   "program instance, variables as instance.variable, globals "
                                   "alone; a row once every program of the tick has run); "
                                   "FILE.xml:POU or --program POU runs one POU.")
    p.add_argument("target", metavar="MODULE:FUNCTION")
    p.add_argument("--scans", type=int, default=10, help="scans to run (default 10)")
    p.add_argument("--cycle", default="5ms", help="cycle time, e.g. 5ms, 100us, T#10ms "
                                                  "(default 5ms)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE[@SCAN]",
                   help="set an input (or write a text program's variable, its VAR_INPUT "
                        "say) before scan SCAN (1-based; default before the first); "
                        "values in IEC syntax: TRUE, 5, 16#FF, T#1s, 1.5. Repeatable")
    p.add_argument("--watch", action="append", default=[], metavar="PATH",
                   help="a signal to print (repeatable; default: every network output)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    p.add_argument("--vcd", metavar="FILE", help="also write the watched signals as a VCD file")
    p.add_argument("--dump", metavar="FILE",
                   help="write the generated code of the scan (Python, or LLVM IR when native)")
    p.add_argument("--engine", choices=("auto", "native", "python"), default="auto",
                   help="the scan engine: native (LLVM machine code), python, or auto "
                        "(native where the program allows it; fbd info says which and why)")
    p.add_argument("--program", metavar="NAME",
                   help="with a PLCopen FILE.xml: run this POU alone (as FILE.xml:NAME) "
                        "instead of the file's configuration")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("info", help="describe a network: blocks, types, macros, order",
                       description="Describe the network MODULE:FUNCTION builds.")
    p.add_argument("target", metavar="MODULE:FUNCTION")
    p.add_argument("--json", action="store_true", help="print it as JSON")
    p.add_argument("--full", action="store_true",
                   help=f"list the whole execution order (default: the first {ORDER_SHOWN})")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("blocks", help="list the block library, or show one block type",
                       description="List the registered block types, or show the whole "
                                   "documentation of one.")
    p.add_argument("name", nargs="?", metavar="NAME")
    p.add_argument("--json", action="store_true", help="print it as JSON")
    p.set_defaults(func=cmd_blocks)

    p = sub.add_parser("export", help="write a network as a PLCopen XML project",
                       description="Write the network MODULE:FUNCTION builds as a PLCopen "
                                   "TC6 XML project (Beremiz, OpenPLC Editor): its macros as "
                                   "function blocks, the network as a program, a configuration "
                                   "running it in a cyclic task. FILE.st writes the whole "
                                   "Structured Text file: its POUs as written, its TYPEs and "
                                   "its configuration; FILE.st:PROGRAM or FILE.xml:POU one "
                                   "program.")
    p.add_argument("target", metavar="MODULE:FUNCTION")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the .xml file to write")
    p.add_argument("--cycle", default="5ms", help="the task's interval (default 5ms)")
    p.add_argument("--validate", action="store_true",
                   help="check the written file against the PLCopen TC6 v2.01 schema "
                        "(shipped with fbd); the first error is reported with its line")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("bench", help="measure the compiled scan against its targets",
                       description="Time the compiled scan, the interpreter baseline, "
                                   "compilation and simpy's overhead on synthetic networks.")
    from .bench import add_arguments
    add_arguments(p)
    p.set_defaults(func=cmd_bench)

    for ep in command_plugins():
        try:
            ep.load()(sub)
        except Exception as e:  # a broken plug-in must not take the core verbs down
            print(f"{PROG}: warning: plug-in command {ep.name!r} ({ep.value}) not loaded: "
                  f"{type(e).__name__}: {one_line(str(e))}", file=sys.stderr)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("fbd-sim")
    except PackageNotFoundError:
        return "(not installed)"


# ------------------------------------------------------------------------------ main
def _message(e: BaseException) -> str:
    if isinstance(e, PlcFault):       # the run ends here: no restart() to offer
        return _shorten(f"fault at {one_line(e.fault.describe())}")
    if isinstance(e, ValidationError):
        n = len(e.problems)
        head = f"network {e.network!r} is not valid ({n} problem{'s' if n != 1 else ''})"
        shown = e.problems[:3]
        more = f"; ... and {n - len(shown)} more (--traceback lists them)" if n > len(shown) else ""
        return _shorten(f"{head}: {'; '.join(shown)}{more}")
    return _shorten(one_line(str(e)) or type(e).__name__)


_LONG_WORD = re.compile(r"\S{121,}")


def _shorten(text: str, limit: int = 1000) -> str:
    """One error line a terminal can show: any run of over 120 characters without
    a blank (a pasted literal, a path deep in macros) is cut to its first 100."""
    text = _LONG_WORD.sub(lambda m: m.group(0)[:100] + "...", text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def main(argv=None) -> int:
    """Entry point of the ``fbd`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    show_tb = bool(os.environ.get("FBD_TRACEBACK")) or "--traceback" in argv
    try:
        args = build_parser().parse_args(argv)
        status = args.func(args)
        return 0 if status is None else int(status)
    except SystemExit as e:  # --help and --version exit through argparse
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `fbd run ... | head`: the reader left; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (FbdError, t.InvalidValue, OSError) as e:
        if show_tb:
            raise
        print(f"{PROG}: error: {_message(e)}", file=sys.stderr)
        return 2
    except (RecursionError, MemoryError) as e:  # a limit we missed: still one line
        if show_tb:
            raise
        what = "nested too deeply" if isinstance(e, RecursionError) else "too large for memory"
        print(f"{PROG}: error: the input is {what} to process ({type(e).__name__}); "
              f"--traceback shows where", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
