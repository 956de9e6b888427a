"""``fbd serve``: run a program in real time and serve it over Modbus TCP (:mod:`fbd.modbus`).

Registered as a plug-in verb (entry point ``serve`` in the ``fbd.commands``
group). ``fbd serve NAME`` is a shortcut for a program that a package names in
the ``fbd.programs`` entry-point group (``2048 = "programs.game2048:build"``),
so ``fbd/`` never imports a program by name; registering imports neither the
server nor any program.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import logging
import math
import signal
import sys
import threading
import time
from importlib.metadata import entry_points

from ..loading import is_project_file, load_network
from ..tools.cli import CliError

PROGRAMS = "fbd.programs"


def program_names() -> dict[str, str]:
    """Program shortcuts: name -> ``MODULE:FUNCTION`` (the ``fbd.programs`` entry points)."""
    return {ep.name: ep.value for ep in sorted(entry_points(group=PROGRAMS), key=lambda e: e.name)}


def register(subparsers) -> None:
    names = ", ".join(program_names()) or "none installed"
    p = subparsers.add_parser(
        "serve", help="run a program in real time and serve it over Modbus TCP and OPC UA",
        description="Run MODULE:FUNCTION (or a named program: " + names + ", or a PLCopen or "
                    "ST file) on a PLC in real time and serve its located inputs and outputs "
                    "over Modbus TCP, laid out as OpenPLC lays them out (--map prints the "
                    "table), and with --opcua every variable over OPC UA. Ctrl-C stops it.")
    p.add_argument("target", metavar="MODULE:FUNCTION|NAME|FILE")
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDRESS",
                   help="the address to listen on (default 127.0.0.1, this machine only; "
                        "0.0.0.0 for every interface)")
    p.add_argument("--port", default=None,
                   help="the Modbus TCP port (default 5020; Modbus's own 502 needs root)")
    p.add_argument("--cycle", default=None,
                   help="scan cycle, e.g. 5ms, 10ms (default 5ms; for a PLCopen project, its "
                        "task's interval)")
    p.add_argument("--missed-cycles", default="skip", choices=("skip", "catch-up"),
                   help="when the host falls a whole cycle behind: skip the cycles missed, so "
                        "NOW and the timers keep wall-clock time as on a real PLC (default), or "
                        "catch-up: run them back to back, so every cycle is scanned")
    p.add_argument("--realtime-priority", default=None, metavar="N",
                   help="scan at Linux's real-time priority N (SCHED_FIFO, 1-99; needs root or "
                        "CAP_SYS_NICE), so that a busy machine does not delay the scans")
    p.add_argument("--idle-timeout", default=None, metavar="SECONDS",
                   help="close a connection after this long without a request (default 60; "
                        "0: never)")
    p.add_argument("--max-clients", default=None, metavar="N",
                   help="connections at most (default 100); a new client beyond them closes "
                        "the connection idle longest")
    p.add_argument("--on-fault", default="hold", choices=("hold", "zero"),
                   help="what the outputs do when a scan raises and the PLC goes to FAULT: "
                        "hold their last values (default) or go to zero; either way the "
                        "server goes on serving and a client restarts the PLC through "
                        "holding register 9216 (--map)")
    p.add_argument("--stats", nargs="?", const="10", default=None, metavar="SECONDS",
                   help="print a line of statistics every SECONDS (default 10) while serving")
    p.add_argument("--retain", default=None, metavar="FILE",
                   help="keep the program's RETAIN and PERSISTENT variables in FILE: read back "
                        "at start (a warm start), saved atomically every --retain-period and "
                        "when it stops (docs/retain.md)")
    p.add_argument("--retain-period", default=None, metavar="SECONDS",
                   help="how often the retained variables are saved (default 1)")
    p.add_argument("--reload-on-change", action="store_true",
                   help="watch the program's file and load a changed program at a scan "
                        "boundary, keeping every variable whose path and type are unchanged "
                        "(an online change)")
    p.add_argument("--map", action="store_true",
                   help="print the Modbus address of every located port and exit")
    p.add_argument("--modbus", action=argparse.BooleanOptionalAction, default=None,
                   help="serve Modbus TCP (default: yes, unless --opcua is given)")
    from ..opcua.cli import add_options
    add_options(p)
    p.set_defaults(func=cmd_serve)


def resolve(target: str) -> str:
    """A program shortcut (``2048``) to its ``MODULE:FUNCTION``; anything else as given."""
    if ":" in target:
        return target
    names = program_names()
    if target in names:
        return names[target]
    if is_project_file(target):
        return target   # a PLCopen or ST project: its configuration's one program (see _project_program)
    close = difflib.get_close_matches(target, list(names), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise CliError(f"no program named {_quote(target)} (named programs: "
                   f"{', '.join(names) or 'none'}); give one as MODULE:FUNCTION{hint}")


# ----------------------------------------------------------------- the options' values
MAX_CYCLE_US = 3_600_000_000     # an hour: a real-time cycle longer than that is a typo


def _quote(text: str, limit: int = 40) -> str:
    """``text`` for an error message: repr, cut to ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def _shown(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _whole(option: str, text: str | None, default: int, low: int, high: int, what: str) -> int:
    if text is None:
        return default
    body = text.strip()
    if not (body.isdigit() and len(body) <= 9 and low <= int(body) <= high):
        raise CliError(f"{option} {_shown(text)}: {what} is a whole number {low}..{high}")
    return int(body)


def _seconds(option: str, text: str | None, default: float | None, low: float,
             zero: str = "") -> float | None:
    if text is None:
        return default
    try:
        value = float(text) if len(text) <= 32 else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= low and value <= 86_400 * 365):
        raise CliError(f"{option} {_shown(text)}: give seconds, e.g. 10 or 0.5"
                       + (f" ({zero})" if zero else ""))
    return value


def _cycle(text: str) -> int:
    from ..tools.cli import _cycle_us
    if len(text) > 40:
        raise CliError(f"--cycle {_shown(text)}: not a duration (write e.g. 5ms, 100us or "
                       f"T#10ms)")
    try:
        us = _cycle_us(text)
    except (OverflowError, ValueError):
        raise CliError(f"--cycle {text}: not a duration (write e.g. 5ms, 100us or "
                       f"T#10ms)") from None
    return _bounded_cycle(us, f"--cycle {text}")


def _bounded_cycle(us: int, where: str) -> int:
    if us > MAX_CYCLE_US:
        raise CliError(f"{where}: a real-time scan cycle is at most an hour (T#1h)")
    return us


def cmd_serve(args) -> int:
    from ..runtime.plc import Plc

    port = _whole("--port", args.port, None, 0, 65535, "a TCP port")
    opcua_port = _whole("--opcua-port", args.opcua_port, None, 0, 65535, "a TCP port")
    idle_timeout = _seconds("--idle-timeout", args.idle_timeout, None, 0.0, "0: never")
    max_clients = _whole("--max-clients", args.max_clients, None, 1, 100_000,
                         "the number of clients")
    every = _seconds("--stats", args.stats, None, 0.1)
    priority = _whole("--realtime-priority", args.realtime_priority, None, 1, 99,
                      "a real-time priority")
    if priority is not None:
        from ..runtime.realtime import check_priority
        check_priority(priority)        # an FbdError: one line, status 2
    modbus = args.modbus if args.modbus is not None else not args.opcua
    if not (modbus or args.opcua):
        raise CliError("--no-modbus leaves nothing to serve; add --opcua")
    target = resolve(args.target)
    task = "main"
    retain_period = _seconds("--retain-period", args.retain_period, 1.0, 0.001)
    snap = _read_retain(args.retain) if args.retain else None
    project = _project(target) if is_project_file(target) else None
    if project is not None and (args.opcua and not args.map or _located_globals(project)):
        if args.retain:
            raise CliError("--retain serves one program: name it "
                           f"({target}:PROGRAM), or leave --opcua out")
        plc, cycle_us = _project_plc(target, args.cycle, modbus, args.on_fault, project)
    else:
        if project is not None:
            net, interval_us, task = _project_program(target, project)
            if args.cycle:
                cycle_us = _cycle(args.cycle)
            else:
                cycle_us = _bounded_cycle(interval_us or 5000, f"{target}: its task's interval")
        else:
            net = load_network(target)
            cycle_us = _cycle(args.cycle or "5ms")
        # the PLC's clock goes on from the snapshot's time, so a retained timer's start
        # time stays in its past: the time the process was down is not counted
        plc = Plc(net, cycle=f"T#{cycle_us}us", on_fault=args.on_fault, task_name=task,
                  clock_start=datetime.timedelta(microseconds=snap.time_us) if snap else 0.0)
    from .image import ProcessImage
    if args.map:
        image = ProcessImage(plc)
        image.detach()
        _print_map(plc.program.name, image.map_rows())
        return 0
    from ..runtime.realtime import RealtimeRunner
    from .server import DEFAULT_PORT, IDLE_TIMEOUT, MAX_CLIENTS, ModbusServer

    opcua = None
    if args.opcua:
        from ..opcua.cli import make_server
        opcua = make_server(plc, args, opcua_port)
    handlers = []
    for name, logger in (("modbus", "fbd.modbus"), ("opcua", "fbd.opcua")):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"fbd: {name}: %(message)s"))
        log = logging.getLogger(logger)
        log.addHandler(handler)
        handlers.append((log, handler, log.level))
        log.setLevel(logging.INFO)
    server = None
    try:
        if modbus:
            server = ModbusServer(plc, host=args.bind,
                                  port=DEFAULT_PORT if port is None else port,
                                  idle_timeout=IDLE_TIMEOUT if idle_timeout is None
                                  else idle_timeout,
                                  max_clients=MAX_CLIENTS if max_clients is None else max_clients)
        keeper = _keep_retained(plc, args.retain, snap, retain_period) if args.retain else None
        reloader = _reloader(plc, args.target, target, modbus) if args.reload_on_change \
            else None
        try:
            if server is not None:
                server.start()
            if opcua is not None:
                try:
                    opcua.start()
                except BaseException:
                    if server is not None:
                        server.stop()
                    raise
            runner = RealtimeRunner(plc, args.missed_cycles, priority=priority)
            _serve(plc, server, runner, cycle_us, args, every, opcua)
        finally:
            if reloader is not None:
                reloader.close()
            if keeper is not None:
                keeper.close()
                print(f"fbd: retain: {_plural(len(plc.retained), 'variable')} saved to {args.retain}"
                      + (f" ({keeper.error})" if keeper.error else ""), file=sys.stderr)
    finally:
        for log, handler, level in handlers:
            log.removeHandler(handler)
            log.setLevel(level)
    return 0


def _serve(plc, server, runner, cycle_us: int, args, every: float | None, opcua=None) -> None:
    stop = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (kill, a service manager) stops it as cleanly as Ctrl-C does.
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    printer = None
    t0 = time.monotonic()
    try:
        # The line a client waits for comes after the handlers, and inside the try that
        # ends the run: a Ctrl-C or a SIGTERM sent once it is out always stops cleanly
        # (on a loaded machine clients were served before this thread got that far).
        if server is not None:
            n = len(server.image.locations)
            timeout = f"idle timeout {server.idle_timeout:g} s" if server.idle_timeout else \
                "no idle timeout"
            print(f"fbd: serving {plc.program.name} ({n} located port{'s' if n != 1 else ''}) "
                  f"over Modbus TCP on {args.bind}:{server.port}, a scan every "
                  f"{cycle_us / 1000:g} ms ({_schedule_words(runner)}); at most "
                  f"{server.max_clients} clients, {timeout}; Ctrl-C stops", file=sys.stderr,
                  flush=True)
        if opcua is not None:
            n = len(opcua.space.variables)
            print(f"fbd: serving {opcua.space.root.name} ({_plural(n, 'variable')}) over OPC "
                  f"UA at {opcua.endpoint} ({opcua.security_summary}), a scan every "
                  f"{cycle_us / 1000:g} ms ({_schedule_words(runner)}); Ctrl-C stops",
                  file=sys.stderr, flush=True)
        plc.state_listeners.append(lambda p, change: _report(p, change, server is not None))
        if every:
            printer = threading.Thread(target=_print_stats,
                                       args=(runner, server, stop, every, opcua),
                                       name="fbd-serve-stats", daemon=True)
            printer.start()
        runner.run(stop)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        if printer is not None:
            printer.join()
        if server is not None:
            server.stop()
        if opcua is not None:
            opcua.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    state = "" if plc.state == "RUN" else f" (in {_state_words(plc)})"
    figures = [_client_figures(server)] if server is not None else []
    if opcua is not None:
        figures.append(_opcua_figures(opcua))
    print(f"fbd: stopped after {time.monotonic() - t0:.1f} s{state}: "
          f"{_scan_figures(plc.stats)}; {'; '.join(figures)}", file=sys.stderr)


def _schedule_words(runner) -> str:
    priority = f"; real-time priority {runner.priority}" if runner.priority else ""
    return f"missed cycles: {runner.policy}{priority}"


def _report(plc, change: str, modbus: bool) -> None:
    """A line for each change of the PLC's state: a fault once, with what to do."""
    from .control import CONTROL
    if change == "fault":
        outputs = "went to zero" if plc.on_fault == "zero" else "hold their last values"
        how = (f"write 3 (warm) or 4 (cold) to holding register {CONTROL}" if modbus else
               "call the PLC object's WarmRestart or ColdRestart over OPC UA")
        text = (f"FAULT at {plc.fault.describe()}; no scan runs, the outputs {outputs}, the "
                f"server goes on; to restart, {how}")
    elif change.endswith("restart"):
        text = f"{change}: RUN again, scan {plc.scans + 1:,} next"
    else:
        text = f"{plc.state} (asked for by a client)"
    print(f"fbd: {text}", file=sys.stderr, flush=True)


def _state_words(plc) -> str:
    """RUN, STOP, or FAULT and where it struck."""
    fault = plc.fault
    if fault is None:
        return str(plc.state)
    return f"FAULT since scan {fault.scan:,}" + (f" ({fault.place})" if fault.place else "")


def _read_retain(path: str):
    from ..errors import FbdError
    from ..runtime.snapshot import read
    try:
        return read(path)
    except FbdError as e:
        raise CliError(f"{e}; move it away to start cold") from None


def _keep_retained(plc, path: str, snap, period: float):
    """Restore the retained variables from ``snap`` and save them to ``path`` from now on."""
    from ..runtime.snapshot import RetainFile, restore
    keeper = RetainFile(plc, path, period)
    if snap is None:
        print(f"fbd: retain: no {path} yet; {_plural(len(plc.retained), 'variable')} start from their "
              f"initial values and are saved there every {period:g} s", file=sys.stderr)
        return keeper
    carried = restore(plc, snap)
    print(f"fbd: retain: {len(carried.kept) + len(carried.converted)} of "
          f"{_plural(len(plc.retained), 'variable')} restored from {path} (saved at scan "
          f"{snap.scan:,})", file=sys.stderr)
    for line in carried.lines():
        print(f"fbd: retain: {line}", file=sys.stderr)
    return keeper


def _reloader(plc, given: str, target: str, modbus: bool = True):
    """Follow the program's file (--reload-on-change)."""
    from ..tools.reload import Reloader, source_path
    from .image import locate, locate_globals
    path, module = source_path(target)

    def build():
        if plc.names is not None:       # a configuration changes as a whole
            from .. import load
            return load(target)
        return _project_program(target)[0] if is_project_file(target) else load_network(target)

    def say(line: str) -> None:
        print(f"fbd: reload: {line}", file=sys.stderr, flush=True)

    def check(program) -> None:
        program = getattr(getattr(program, "built", None), "program", program)
        if modbus and not locate(program) and not locate_globals(plc.globals)[0]:
            raise CliError(f"{program.name} has no located port to serve")
    return Reloader(plc, path, build, say, module=module, check=check)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _scan_figures(st, since=None) -> str:
    """Scans, their time, and every cycle that was late or skipped (since ``since``,
    a copy of the counters, or from the start)."""
    base = since or {"count": 0, "total_ns": 0, "overruns": 0, "late": 0, "skipped": 0}
    scans = st.count - base["count"]
    mean = (st.total_ns - base["total_ns"]) / scans / 1000 if scans else 0.0
    late, skipped = st.late - base["late"], st.skipped - base["skipped"]
    text = f"{_plural(scans, 'scan')} (mean {mean:.1f} µs"
    if since is None:
        worst = st.max_ns / 1000
        text += f", max {worst:.1f} µs)" if worst < 1000 else f", max {worst / 1000:.1f} ms)"
    else:
        text += ")"
    text += f", {_plural(st.overruns - base['overruns'], 'overrun')}, {late:,} late"
    if late and since is None:
        text += f" (worst {st.max_late_us / 1000:.1f} ms)"
    text += f", {_plural(skipped, 'cycle')} skipped"
    if skipped:
        text += f" ({skipped * st.cycle_us / 1000:,.0f} ms of simulated time jumped over)"
    return text


def _client_figures(server) -> str:
    ss, image = server.stats, server.image
    return (f"{image.reads:,} reads, {image.writes:,} writes, {ss.refused:,} refused; "
            f"{_plural(ss.accepted, 'connection')} ({ss.evicted:,} evicted, {ss.timed_out:,} "
            f"timed out)")


def _opcua_figures(opcua) -> str:
    st = opcua.stats
    return (f"OPC UA: {st.writes:,} writes, {st.refused:,} refused, {st.values:,} values "
            f"published")


def _print_stats(runner, server, stop: threading.Event, every: float, opcua=None) -> None:
    """A line every ``every`` seconds: this period's scans and requests, the clients now."""
    plc = runner.plc

    def snapshot():
        st = plc.stats
        return ({"count": st.count, "total_ns": st.total_ns, "overruns": st.overruns,
                 "late": st.late, "skipped": st.skipped},
                server.stats.requests if server is not None else 0, time.monotonic())
    last = snapshot()
    while not stop.wait(every):
        now = snapshot()
        requests = now[1] - last[1]
        seconds = now[2] - last[2]
        behind = f", {runner.lag_us / 1000:.1f} ms behind" if runner.policy == "catch-up" else ""
        parts = []
        if server is not None:
            parts.append(f"{_plural(server.clients, 'client')}, {requests / seconds:,.0f} "
                         f"requests/s, {server.stats.refused:,} refused in all")
        if opcua is not None:
            parts.append(f"OPC UA: {_plural(opcua.clients, 'client')}, "
                         f"{opcua.stats.values:,} values published in all")
        print(f"fbd: stats, last {seconds:.1f} s: {_state_words(plc)}, "
              f"{_scan_figures(plc.stats, last[0])}{behind}; {'; '.join(parts)}",
              file=sys.stderr, flush=True)
        last = now


def _project(path: str):
    from .. import load
    return load(path)


def _located_globals(project) -> bool:
    """Whether the configuration declares a located global (``g AT %IW0``): then
    ``fbd serve`` runs the whole configuration, whose globals table holds it."""
    config = project.configuration
    return config is not None and any(getattr(v, "location", None) is not None
                                      for v in config.variables.values())


def _project_plc(path: str, cycle: str | None, modbus: bool, on_fault: str, project=None):
    """``fbd serve plc.st --opcua`` (or a configuration with located globals): the
    whole configuration, every task, as :meth:`fbd.project.Project.plc` runs it;
    (plc, the main task's cycle in µs). Modbus beside it serves the main task's
    located ports and the located globals, so it takes one task."""
    from ..errors import FbdError
    project = project or _project(path)
    config = project.configuration
    if config is None or not config.tasks:
        raise CliError(f"{path} has no configuration to run; name the POU to serve, as in "
                       f"{path}:POU (its POUs: {', '.join(project.pous) or 'none'})")
    if modbus and len(config.tasks) > 1:
        raise CliError(f"{path}: its configuration runs {len(config.tasks)} programs and "
                       f"Modbus serves one; serve it over OPC UA alone (--no-modbus)")
    if cycle and any(tk.interval_us for tk in config.tasks):
        raise CliError(f"--cycle {cycle}: {path}'s tasks give their own intervals")
    try:
        plc = project.plc(cycle=f"T#{_cycle(cycle)}us" if cycle else 0.005, on_fault=on_fault)
    except FbdError as e:
        raise CliError(str(e)) from None
    return plc, _bounded_cycle(plc.main.cycle_us, f"{path}: its task's interval")


def _project_program(path: str, project=None):
    """``fbd serve plc.xml`` (or ``program.st``): the program its configuration runs,
    as OpenPLC's runtime runs the project it is given, with that task's interval and
    the instance's name (what a fault names); the
    server serves one program, so a configuration of several instances is told to name one."""
    project = project or _project(path)
    config = project.configuration
    if config is None or not config.tasks:
        raise CliError(f"{path} has no configuration to run; name the POU to serve, as in "
                       f"{path}:POU (its POUs: {', '.join(project.pous) or 'none'})")
    if len(config.tasks) > 1:
        names = ", ".join(f"{tk.name} ({tk.program})" for tk in config.tasks)
        raise CliError(f"{path}: its configuration runs {len(config.tasks)} programs ({names}) "
                       f"and fbd serve serves one; name it, as in {path}:{config.tasks[0].program}")
    spec = config.tasks[0]
    return project.network(spec.program), spec.interval_us, spec.name


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
    from .control import ROWS
    print("The PLC's own holding registers (its state and fault; a write to CONTROL restarts it):")
    width = max(len(r[0]) for r in ROWS)
    names = max(len(r[1]) for r in ROWS)
    for address, what, text in ROWS:
        print(f"  {address.ljust(width)}  {what.ljust(names)}  {text}")
