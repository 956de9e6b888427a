"""``fbd serve``: run a program in real time and serve it over Modbus TCP (:mod:`fbd.modbus`).

Registered as a plug-in verb (entry point ``serve`` in the ``fbd.commands``
group). ``fbd serve NAME`` is a shortcut for a program that a package names in
the ``fbd.programs`` entry-point group (``2048 = "programs.game2048:build"``),
so ``fbd/`` never imports a program by name; registering imports neither the
server nor any program.
"""

from __future__ import annotations

import difflib
import signal
import sys
import threading
from importlib.metadata import entry_points

from ..tools.cli import CliError, load_network

PROGRAMS = "fbd.programs"


def program_names() -> dict[str, str]:
    """Program shortcuts: name -> ``MODULE:FUNCTION`` (the ``fbd.programs`` entry points)."""
    return {ep.name: ep.value for ep in sorted(entry_points(group=PROGRAMS), key=lambda e: e.name)}


def register(subparsers) -> None:
    names = ", ".join(program_names()) or "none installed"
    p = subparsers.add_parser(
        "serve", help="run a program in real time and serve it over Modbus TCP",
        description="Run MODULE:FUNCTION (or a named program: " + names + ") on a PLC in real "
                    "time and serve its located inputs and outputs over Modbus TCP, laid out as "
                    "OpenPLC lays them out (--map prints the table). Ctrl-C stops it.")
    p.add_argument("target", metavar="MODULE:FUNCTION|NAME")
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDRESS",
                   help="the address to listen on (default 127.0.0.1, this machine only; "
                        "0.0.0.0 for every interface)")
    p.add_argument("--port", type=int, default=None,
                   help="the TCP port (default 5020; Modbus's own 502 needs root)")
    p.add_argument("--cycle", default=None,
                   help="scan cycle, e.g. 5ms, 10ms (default 5ms; for a PLCopen project, its "
                        "task's interval)")
    p.add_argument("--map", action="store_true",
                   help="print the Modbus address of every located port and exit")
    p.set_defaults(func=cmd_serve)


def resolve(target: str) -> str:
    """A program shortcut (``2048``) to its ``MODULE:FUNCTION``; anything else as given."""
    if ":" in target:
        return target
    names = program_names()
    if target in names:
        return names[target]
    if target.lower().endswith(".xml"):
        return target   # a PLCopen project: its configuration's one program (see _xml_program)
    close = difflib.get_close_matches(target, list(names), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise CliError(f"no program named {target!r} (named programs: {', '.join(names) or 'none'}); "
                   f"give one as MODULE:FUNCTION{hint}")


def cmd_serve(args) -> int:
    from ..runtime.plc import Plc
    from ..runtime.realtime import run_realtime
    from ..tools.cli import _cycle_us
    from .image import ProcessImage
    from .server import DEFAULT_PORT, ModbusServer

    target = resolve(args.target)
    if target.lower().endswith(".xml"):
        net, interval_us = _xml_program(target)
        cycle_us = _cycle_us(args.cycle) if args.cycle else interval_us or 5000
    else:
        net = load_network(target)
        cycle_us = _cycle_us(args.cycle or "5ms")
    plc = Plc(net, cycle=f"T#{cycle_us}us")
    if args.map:
        image = ProcessImage(plc)
        image.detach()
        _print_map(plc.program.name, image.map_rows())
        return 0
    server = ModbusServer(plc, host=args.bind,
                          port=DEFAULT_PORT if args.port is None else args.port)
    server.start()
    n = len(server.image.locations)
    print(f"fbd: serving {plc.program.name} ({n} located port{'s' if n != 1 else ''}) over "
          f"Modbus TCP on {args.bind}:{server.port}, a scan every {cycle_us / 1000:g} ms; "
          f"Ctrl-C stops", file=sys.stderr, flush=True)
    stop = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (kill, a service manager) stops it as cleanly as Ctrl-C does.
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        run_realtime(plc, stop)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    image, st = server.image, plc.stats.summary()
    print(f"fbd: stopped after {st['scans']:,} scans (mean {st['mean_us']:.1f} µs, "
          f"{st['overruns']} overrun{'s' if st['overruns'] != 1 else ''}); "
          f"{image.reads:,} reads, {image.writes:,} writes, {image.refused:,} refused",
          file=sys.stderr)
    return 0


def _xml_program(path: str):
    """``fbd serve plc.xml``: the program its configuration runs, as OpenPLC's runtime
    runs the project it is given, with that task's interval; the server serves one
    program, so a configuration of several instances is told to name one."""
    from ..plcopen.reader import load_project
    project = load_project(path)
    config = project.configuration
    if config is None or not config.tasks:
        raise CliError(f"{path} has no configuration to run; name the POU to serve, as in "
                       f"{path}:POU (its FBD POUs: {', '.join(project.pous) or 'none'})")
    if len(config.tasks) > 1:
        names = ", ".join(f"{tk.name} ({tk.program})" for tk in config.tasks)
        raise CliError(f"{path}: its configuration runs {len(config.tasks)} programs ({names}) "
                       f"and fbd serve serves one; name it, as in {path}:{config.tasks[0].program}")
    spec = config.tasks[0]
    return project.network(spec.program), spec.interval_us


def _print_map(name: str, rows) -> None:
    from .image import IW_WINDOW, IX_WINDOW
    table = [("location", "modbus (from 0)", "name", "type", "direction", "client access"),
             *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    print(f"{name}: Modbus TCP address map (OpenPLC's layout, PDU addresses from 0)")
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print(f"Input window: clients drive %IX inputs by writing coils {IX_WINDOW}-{IX_WINDOW + 799} "
          f"(%IXb.i at {IX_WINDOW} + 8*b + i)\nand %IW inputs by writing holding registers "
          f"{IW_WINDOW}-{IW_WINDOW + 1023} (%IWn at {IW_WINDOW} + n).")
    print("Writes are applied at the start of the next scan; reads show the last complete scan.\n"
          "32- and 64-bit values are sent high word first (mbpoll -B).")
