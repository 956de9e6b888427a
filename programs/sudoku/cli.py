"""``fbd sudoku solve FILE`` and ``fbd sudoku generate``: the puzzle tools on the command line.

Registered as a plug-in verb of ``fbd`` (entry point ``sudoku`` in the
``fbd.commands`` group). Grids are printed in the Jigsaw file format of
:mod:`.files` (9 lines, ``.`` for empty; then a blank line and region letters
for jigsaw), so the output of ``generate`` can be saved and fed to ``solve``.
"""

from __future__ import annotations

import sys

from fbd.tools.cli import CliError
from programs.common.params import MAX_SEED, int_arg


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sudoku", help="solve or generate Sudoku and Jigsaw Sudoku puzzles",
        description="Puzzle tools of the Sudoku program: a Dancing Links solver and a generator of "
                    "puzzles with exactly one solution, graded easy/medium/hard.")
    sub = p.add_subparsers(dest="sudoku_verb", metavar="{solve,generate}", required=True)
    s = sub.add_parser("solve", help="solve a grid file (Qt .data, one-line or jigsaw format)",
                       description="Solve a grid file and print the solution.")
    s.add_argument("file", metavar="FILE", help="the grid file")
    s.set_defaults(func=cmd_solve)
    g = sub.add_parser("generate", help="generate a puzzle with exactly one solution",
                       description="Generate a puzzle with exactly one solution and print it.")
    g.add_argument("--difficulty", choices=("easy", "medium", "hard"), default="medium",
                   help="easy: singles; medium: needs pairs or intersections; hard: needs search "
                        "(default medium)")
    g.add_argument("--jigsaw", action="store_true", help="irregular regions instead of 3x3 boxes")
    g.add_argument("--seed", type=int_arg(0, MAX_SEED), default=None,
                   help="random seed 0..2**63-1, for a repeatable puzzle")
    g.set_defaults(func=cmd_generate)


def cmd_solve(args) -> int:
    from .files import format_grid, read_grid
    from .solver import count_solutions, solve
    grid, regions = read_grid(args.file)
    try:
        solution = solve(grid, regions)
    except ValueError as e:
        raise CliError(f"{args.file}: {e}") from None
    if solution is None:
        raise CliError(f"{args.file}: the puzzle has no solution")
    sys.stdout.write(format_grid(solution, regions, "jigsaw"))
    if count_solutions(grid, regions, limit=2) > 1:
        print("fbd: note: the puzzle has more than one solution; this is one of them", file=sys.stderr)
    return 0


def cmd_generate(args) -> int:
    from .files import format_grid
    from .generator import generate
    puzzle, regions = generate(args.difficulty, jigsaw=args.jigsaw, seed=args.seed)
    kind = "jigsaw" if args.jigsaw else "classic"
    print(f"# {kind}, {args.difficulty}" + (f", seed {args.seed}" if args.seed is not None else ""))
    sys.stdout.write(format_grid(puzzle, regions, "jigsaw"))
    return 0
