"""Regenerate the bundled puzzles: ``python -m programs.sudoku.bundle``.

Writes ``puzzles/<kind>-<difficulty>-<nn>.<ext>`` (classic in the Qt ``.data``
format, so the folder doubles as the Qt example's data folder; jigsaw in the
``.jigsaw`` format of :mod:`.files`) and ``puzzles/index.json``. Each puzzle is
generated from a fixed seed, then re-read from its file and verified: exactly one
solution and graded at its difficulty. ``puzzles/top95.txt`` (the benchmark's hard
set) is not touched and not in the index.
"""

from __future__ import annotations

import json
import sys

from .files import PUZZLE_DIR, read_grid, write_grid
from .generator import generate
from .grader import DIFFICULTIES, grade
from .solver import count_solutions

COUNTS = {"classic": 7, "jigsaw": 4}  # per difficulty: 21 classic, 12 jigsaw


def main() -> int:
    index = []
    for kind, n in COUNTS.items():
        for difficulty in DIFFICULTIES:
            for k in range(1, n + 1):
                seed = 1000 * (kind == "jigsaw") + 100 * DIFFICULTIES.index(difficulty) + k
                puzzle, regions = generate(difficulty, jigsaw=kind == "jigsaw", seed=seed)
                name = f"{kind}-{difficulty}-{k:02d}"
                file = name + (".jigsaw" if regions else ".data")
                write_grid(PUZZLE_DIR / file, puzzle, regions)
                grid, back = read_grid(PUZZLE_DIR / file)
                assert grid == puzzle and back == regions
                assert count_solutions(grid, back) == 1 and grade(grid, back) == difficulty, name
                index.append({"name": name, "kind": kind, "difficulty": difficulty, "file": file,
                              "givens": sum(v != 0 for row in grid for v in row), "seed": seed})
                print(f"{name}: {index[-1]['givens']} givens", file=sys.stderr)
    (PUZZLE_DIR / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
