"""``fbd debug TARGET``: open the debugger on any block program or project.

TARGET is ``MODULE:FUNCTION`` (a network built in Python), ``FILE.st`` or
``FILE.xml`` (the project's configuration, every program instance a task, as
``fbd run FILE.st`` runs it; a .st file with one PROGRAM and no
CONFIGURATION is that program) or ``FILE.st:PROGRAM`` (one POU alone).

Registered as a plug-in verb of the ``fbd`` command (entry point ``debug`` in
the ``fbd.commands`` group of pyproject.toml); registering imports no Qt.
"""

from __future__ import annotations

from fbd.loading import is_project_file, load, load_network
from fbd.tools.cli import CliError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "debug", help="open the debugger on a program",
        description="Open the debugger on a program, on a simulated PLC (paused): step "
                    "scans or blocks, watch, force, break, trend. TARGET: MODULE:FUNCTION, "
                    "FILE.st or FILE.xml (its configuration, as fbd run runs it; a .st file's "
                    "one PROGRAM), or FILE.st:PROGRAM.")
    p.add_argument("target", metavar="TARGET", help="MODULE:FUNCTION, FILE.st, FILE.xml or "
                                                    "FILE.st:PROGRAM")
    p.add_argument("--cycle", type=float, default=0.005, help="the scan cycle in seconds "
                   "(default 0.005; a configuration's task keeps its own interval)")
    p.set_defaults(func=cmd_debug)


def cmd_debug(args) -> int:
    if not args.cycle > 0:
        raise CliError(f"--cycle must be positive, not {args.cycle}")
    plc = debug_plc(args.target, args.cycle)
    from ..app import _exec, application, display_problem
    problem = display_problem()
    if problem:
        raise CliError(problem)
    app = application()
    from .window import DebuggerWindow
    window = DebuggerWindow(plc)
    window.show()
    return _exec(app)


def debug_plc(target: str, cycle: float):
    """The PLC ``target`` names, on simulated time (see the module)."""
    from fbd.runtime.plc import Plc
    if is_project_file(target):
        project = load(target)
        if project.configuration is None:
            kind = "PROGRAM" if target.lower().endswith(".st") else "POU"
            pous = list(project.pous)
            raise CliError(f"{target} has {len(pous)} {kind}s and no CONFIGURATION to say which "
                           f"to run: name one, as in {target}:{pous[0] if pous else kind} "
                           f"({', '.join(pous) or 'none'})")
        return project.plc(cycle=cycle)
    return Plc(load_network(target), cycle=cycle)
