"""``fbd hmi [PROGRAM]``: open the HMI simulator window on a program's panel.

Registered as a plug-in verb of the ``fbd`` command (entry point ``hmi`` in
the ``fbd.commands`` group of pyproject.toml). Registering imports neither Qt
nor any program, so other verbs stay quick; the handler imports them.
"""

from __future__ import annotations

import difflib

from fbd.tools.cli import CliError

from .panels import PANELS


def register(subparsers) -> None:
    names = ", ".join(PANELS)
    p = subparsers.add_parser(
        "hmi", help="open the HMI simulator window on a program's panel",
        description=f"Open the HMI simulator: the program's panel, played by its block program "
                    f"on a simulated PLC in real time (5 ms scans). Programs: {names}.")
    p.add_argument("program", nargs="?", default="2048", metavar="PROGRAM",
                   help=f"the program to open (default 2048; one of: {names})")
    p.set_defaults(func=cmd_hmi)


def cmd_hmi(args) -> int:
    if args.program not in PANELS:
        close = difflib.get_close_matches(args.program, list(PANELS), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise CliError(f"no HMI panel for program {args.program!r} (there are: "
                       f"{', '.join(PANELS)}){hint}")
    from . import app
    problem = app.display_problem()
    if problem:
        raise CliError(problem)
    return app.run(args.program)
