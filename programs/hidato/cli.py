"""``fbd hidato solve FILE`` and ``fbd hidato generate ROWS COLS ...``: boards in the text format.

Registered as a plug-in verb of the ``fbd`` command (entry point ``hidato`` in
the ``fbd.commands`` group of pyproject.toml). A user error (a missing or
malformed file, an impossible size, a search that ran out of its budget)
raises an :class:`~fbd.errors.FbdError`, which ``fbd`` prints as one line
``fbd: error: ...`` with exit status 2.
"""

from __future__ import annotations

import sys

from programs.common.params import MAX_SEED, int_arg, seconds_arg

#: ``solve``'s default budget: a published puzzle needs a few thousand nodes at most.
MAX_NODES = 1_000_000
MAX_SECONDS = 10.0


def register(subparsers) -> None:
    p = subparsers.add_parser("hidato", help="solve or generate Hidato puzzles",
                              description="Solve or generate Hidato puzzles, printed in the text "
                                          "format (one row per line; _ empty, . hole).")
    verbs = p.add_subparsers(dest="hidato_verb", metavar="VERB", required=True)
    s = verbs.add_parser("solve", help="print the solution of a puzzle file",
                         description="Print a solution of the puzzle in FILE ('-' reads stdin); "
                                     "exit 1 if it has none. --count reports how many solutions "
                                     "(up to 2) instead. Boards of up to 400 cells (20x20); the "
                                     "search gives up at its budget (--max-nodes, --max-seconds).")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--count", action="store_true", help="print 0, 1 or 2 (2 = 'two or more')")
    s.add_argument("--max-nodes", type=int_arg(1, 10**9), default=MAX_NODES, metavar="N",
                   help=f"give up after N search nodes (default {MAX_NODES:,})")
    s.add_argument("--max-seconds", type=seconds_arg(86_400), default=MAX_SECONDS, metavar="S",
                   help=f"give up after S seconds of search (default {MAX_SECONDS:g})")
    s.set_defaults(func=cmd_solve)
    g = verbs.add_parser("generate", help="print a new puzzle with a unique solution",
                         description="Print a random puzzle of ROWS x COLS with a unique solution.")
    # Only the argument's form is checked here; generate() says what is out of range.
    number = int_arg(-10**9, 10**9)
    g.add_argument("rows", type=number, metavar="ROWS")
    g.add_argument("cols", type=number, metavar="COLS")
    g.add_argument("--first", type=number, default=1, help="the first number (default 1)")
    g.add_argument("--last", type=number, default=None,
                   help="the last number (default: first + cells - 1; fewer numbers make holes)")
    g.add_argument("--holes", type=number, default=0, help="cells left out of the board (default 0)")
    g.add_argument("--seed", type=int_arg(0, MAX_SEED), default=None,
                   help="random seed, 0..2**63-1 (the same seed, the same puzzle)")
    g.add_argument("--difficulty", choices=("easy", "medium", "hard"), default="medium")
    g.add_argument("--solution", action="store_true", help="also print the solution after a blank line")
    g.set_defaults(func=cmd_generate)


def _read(path: str):
    from .board import Board
    if path == "-":
        return Board.read_stream(sys.stdin.buffer, "<stdin>")
    return Board.read(path)


def _progress(stats) -> None:
    print(f"fbd hidato: searching: {stats.nodes:,} nodes so far", file=sys.stderr, flush=True)


def cmd_solve(args) -> int:
    from fbd.errors import FbdError

    from .board import BoardError
    from .solver import SolverGaveUp, count_solutions, solve
    board = _read(args.file)
    budget = {"max_nodes": args.max_nodes, "max_seconds": args.max_seconds,
              "progress": _progress if sys.stderr.isatty() else None}
    try:
        if args.count:
            print(count_solutions(board, limit=2, **budget))
            return 0
        solution = solve(board, **budget)
    except SolverGaveUp as e:
        raise FbdError(f"{args.file}: {e}; allow more with --max-nodes or --max-seconds") from None
    except BoardError as e:   # read fine, but beyond the solver's size
        raise FbdError(f"{args.file}: {e}") from None
    if solution is None:
        print(f"{args.file}: no solution", file=sys.stderr)
        return 1
    sys.stdout.write(str(solution))
    return 0


def cmd_generate(args) -> int:
    from .generator import generate
    from .solver import solve
    board = generate(args.rows, args.cols, first=args.first, last=args.last, holes=args.holes,
                     seed=args.seed, difficulty=args.difficulty)
    sys.stdout.write(str(board))
    if args.solution:
        sys.stdout.write("\n" + str(solve(board)))
    return 0
