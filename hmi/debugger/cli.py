"""``fbd debug MODULE:FUNCTION``: open the debugger on any block program.

Registered as a plug-in verb of the ``fbd`` command (entry point ``debug`` in
the ``fbd.commands`` group of pyproject.toml); registering imports no Qt.
"""

from __future__ import annotations

from fbd.loading import load_network
from fbd.tools.cli import CliError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "debug", help="open the debugger on a program",
        description="Open the debugger on the network MODULE:FUNCTION builds, on a simulated "
                    "PLC (paused): step scans or blocks, watch, force, break, trend.")
    p.add_argument("target", metavar="MODULE:FUNCTION")
    p.add_argument("--cycle", type=float, default=0.005, help="the scan cycle in seconds "
                   "(default 0.005)")
    p.set_defaults(func=cmd_debug)


def cmd_debug(args) -> int:
    from fbd.runtime.plc import Plc
    net = load_network(args.target)
    if not args.cycle > 0:
        raise CliError(f"--cycle must be positive, not {args.cycle}")
    plc = Plc(net, cycle=args.cycle)
    from ..app import _exec, application, display_problem
    problem = display_problem()
    if problem:
        raise CliError(problem)
    app = application()
    from .window import DebuggerWindow
    window = DebuggerWindow(plc)
    window.show()
    return _exec(app)
