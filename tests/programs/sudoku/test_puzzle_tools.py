"""Puzzle tools: DLX solver, grader, generator, jigsaw regions, colouring, files, CLI."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from fbd.errors import FbdError
from fbd.tools.cli import main as fbd_main
from programs.sudoku import (
    bundled_puzzles,
    count_solutions,
    four_colouring,
    generate,
    jigsaw_regions,
    read_grid,
    solve,
    write_grid,
)
from programs.sudoku.dlx import DancingLinks
from programs.sudoku.files import GridFileError
from programs.sudoku.grader import grade
from programs.sudoku.regions import FALLBACK, adjacency, is_valid_layout, layout_with_solution
from programs.sudoku.solver import has_other_solution, is_valid_solution
from tests.paths import SUDOKU_QT

QT_PUZZLE = SUDOKU_QT / "sudoku.data"
QT_NEARLY = SUDOKU_QT / "nearly-solved-sudoku.data"

ARTO_INKALA = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."


def line_grid(text: str):
    return [[0 if ch == "." else int(ch) for ch in text[r * 9:r * 9 + 9]] for r in range(9)]


# ------------------------------------------------------------------ DLX and solver
def test_dlx_knuth_example():
    # Knuth's example from "Dancing Links": the unique cover is rows 0, 3, 4.
    rows = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]
    dl = DancingLinks(7, rows)
    assert [sorted(s) for s in dl.solve(limit=5)] == [[0, 3, 4]]
    forced = dl.copy()
    assert forced.select(3) and not forced.select(5)  # row 5 shares column 3 with row 3
    assert [sorted(s) for s in forced.solve(limit=5)] == [[0, 4]]
    assert [sorted(s) for s in dl.solve(limit=5)] == [[0, 3, 4]]  # the original is untouched
    stuck = DancingLinks(2, [[0]])
    assert stuck.solve() == [] and not stuck.aborted
    with pytest.raises(ValueError):
        DancingLinks(2, [[0, 2]])


def test_solves_the_qt_example_grids():
    grid, regions = read_grid(QT_PUZZLE)
    assert regions is None
    solution = solve(grid)
    assert is_valid_solution(solution)
    assert all(solution[r][c] == v for r in range(9) for c in range(9) if (v := grid[r][c]))
    assert count_solutions(grid) == 1
    nearly, _ = read_grid(QT_NEARLY)
    assert solve(nearly) == solution and solution[0][0] == 4  # the same solution, one blank


def test_hard_puzzles_and_the_hard_set_file():
    assert is_valid_solution(solve(line_grid(ARTO_INKALA)))
    top95 = (Path(__file__).resolve().parents[3] / "programs/sudoku/puzzles/top95.txt").read_text()
    lines = [ln for ln in top95.splitlines() if ln and not ln.startswith("#")]
    assert len(lines) == 95
    for ln in lines[:5]:
        assert is_valid_solution(solve(line_grid(ln)))


def test_several_and_no_solutions():
    grid = line_grid(ARTO_INKALA)
    grid[0][0] = 0
    assert count_solutions(grid, limit=2) == 2
    n = count_solutions(grid, limit=1000)
    assert 2 <= n < 1000 and count_solutions(grid, limit=n + 5) == n
    assert has_other_solution(grid, None, 0, 8)  # emptied cell 0 held 8
    assert not has_other_solution(line_grid(ARTO_INKALA), None, 1, 1)  # unique: cell 1 is 1
    empty = [[0] * 9 for _ in range(9)]
    assert count_solutions(empty, limit=3) == 3
    clash = [row[:] for row in empty]
    clash[0][0] = clash[0][8] = 5
    assert solve(clash) is None and count_solutions(clash) == 0
    with pytest.raises(ValueError):
        solve([[0] * 8] * 9)


def test_jigsaw_solutions_respect_regions():
    regions = [list(row) for row in FALLBACK]
    sol = solve([[0] * 9 for _ in range(9)], regions)
    assert is_valid_solution(sol, regions)
    for g in range(9):
        cells = [sol[r][c] for r in range(9) for c in range(9) if regions[r][c] == g]
        assert sorted(cells) == list(range(1, 10))


def _reference_count(grid, regions=None, limit=10**9) -> int:
    """Plain backtracking over the empty cells (fewest candidates first)."""
    key = regions or [[(r // 3) * 3 + c // 3 for c in range(9)] for r in range(9)]
    cells = [(r, c) for r in range(9) for c in range(9)]
    vals = {rc: grid[rc[0]][rc[1]] for rc in cells}
    peers = {(r, c): [p for p in cells if p != (r, c) and (
        p[0] == r or p[1] == c or key[p[0]][p[1]] == key[r][c])] for r, c in cells}
    if any(v and any(vals[p] == v for p in peers[rc]) for rc, v in vals.items()):
        return 0

    def options(r, c):
        seen = {vals[p] for p in peers[(r, c)]}
        return [d for d in range(1, 10) if d not in seen]

    def count() -> int:
        empty = [rc for rc in cells if not vals[rc]]
        if not empty:
            return 1
        rc = min(empty, key=lambda e: len(options(*e)))
        total = 0
        for d in options(*rc):
            vals[rc] = d
            total += count()
            vals[rc] = 0
            if total >= limit:
                break
        return total

    return min(count(), limit)


def test_dlx_size_search_matches_min_fallback_and_reference():
    # Column sizes under 128 take the bytearray find() path, larger ones the
    # min() list path: both give every cover, in the same order.
    small = DancingLinks(3, [[0], [1], [2], [0, 1], [1, 2], [0, 1, 2]])
    assert sorted(sorted(s) for s in small.solve(limit=10)) == [[0, 1, 2], [0, 4], [2, 3], [5]]
    wide = DancingLinks(2, [[0]] * 130 + [[1]] * 3 + [[0, 1]])
    found = wide.solve(limit=1000)
    assert len(found) == 130 * 3 + 1 and wide.S[1:] == [131, 4]  # sizes restored
    # Sudoku counts against plain backtracking: several, one, none; classic and jigsaw.
    solved = solve([[0] * 9 for _ in range(9)])
    several = [row[:] for row in solved]
    for r, c in [(0, 0), (0, 1), (1, 0), (1, 1), (4, 4), (8, 8), (3, 5), (5, 3)]:
        several[r][c] = 0
    several[0] = [0] * 9  # rows 0-2 of the boxes can be permuted: several solutions
    several[1] = [0] * 9
    several[2] = [0] * 9
    dead = [row[:] for row in several]
    dead[0][0] = solved[0][1] if solved[0][1] != solved[0][0] else 1
    jig = [list(row) for row in FALLBACK]
    jsol = solve([[0] * 9 for _ in range(9)], jig)
    jgrid = [[v if (r * 9 + c) % 4 else 0 for c, v in enumerate(row)] for r, row in enumerate(jsol)]
    for grid, regions in [(several, None), (dead, None),
                          (jgrid, jig), ([[0] * 9 for _ in range(9)], jig),
                          ([[0] * 9 for _ in range(9)], None)]:
        want = _reference_count(grid, regions, limit=10)
        assert count_solutions(grid, regions, limit=10) == want
        sol = solve(grid, regions)
        assert (sol is None) == (want == 0)
        if sol is not None:
            assert is_valid_solution(sol, regions)
    assert _reference_count(several) >= 2 and _reference_count(dead) == 0


# ------------------------------------------------------------------ grader and generator
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("jigsaw", [False, True])
def test_generated_puzzles_unique_and_graded(difficulty, jigsaw):
    puzzle, regions = generate(difficulty, jigsaw=jigsaw, seed=7)
    assert (regions is not None) == jigsaw
    assert count_solutions(puzzle, regions) == 1
    assert grade(puzzle, regions) == difficulty
    assert generate(difficulty, jigsaw=jigsaw, seed=7) == (puzzle, regions)  # seeded = repeatable


def test_grader_levels_on_known_puzzles():
    assert grade(line_grid(ARTO_INKALA)) == "hard"
    solved = solve(line_grid(ARTO_INKALA))
    few_holes = [row[:] for row in solved]
    few_holes[0][0] = few_holes[4][4] = 0
    assert grade(few_holes) == "easy"
    with pytest.raises(ValueError):
        generate("expert")


# ------------------------------------------------------------------ regions and colouring
@functools.lru_cache(maxsize=1)
def many_layouts():
    return [jigsaw_regions(seed) for seed in range(25)]


def test_regions_connected_of_nine_for_many_seeds():
    for seed, regions in enumerate(many_layouts()):
        assert is_valid_layout(regions), seed
        assert sorted(v for row in regions for v in row) == sorted(list(range(9)) * 9)
    assert jigsaw_regions(5) == jigsaw_regions(5)
    assert is_valid_layout(FALLBACK) and solve([[0] * 9 for _ in range(9)], FALLBACK) is not None


def test_regions_fall_back_when_every_attempt_fails(monkeypatch):
    import programs.sudoku.regions as reg
    monkeypatch.setattr(reg, "solve", lambda grid, regions, rng=None, max_nodes=None:
                        None if max_nodes else solve(grid, regions))
    regions, solution = layout_with_solution(1)
    assert regions == [list(row) for row in FALLBACK] and is_valid_solution(solution, regions)


def test_colourings_proper_with_four_colours():
    layouts = many_layouts() + [[list(r) for r in FALLBACK]]
    for regions in layouts:
        colours = four_colouring(regions)
        assert set(colours) == set(range(9)) and set(colours.values()) <= {0, 1, 2, 3}
        for g, nbrs in adjacency(regions).items():
            assert all(colours[g] != colours[n] for n in nbrs)
    stripes = [[c for c in range(9)] for _ in range(9)]
    assert max(four_colouring(stripes).values()) <= 1


# ------------------------------------------------------------------ files
def test_round_trips_in_three_formats(tmp_path):
    rng = random.Random(3)
    grid = [[rng.choice([0, 0, 1, 5, 9]) for _ in range(9)] for _ in range(9)]
    regions = jigsaw_regions(3)
    for name, fmt, regs in [("a.data", None, None), ("b.txt", None, None), ("c.sdk", "line", None),
                            ("d.jigsaw", None, regions), ("e.txt", "jigsaw", None), ("f.data", "qt", None)]:
        write_grid(tmp_path / name, grid, regs, fmt)
        assert read_grid(tmp_path / name) == (grid, regs), name
    assert (tmp_path / "a.data").read_text().splitlines()[0].count(", ") == 8
    assert len((tmp_path / "b.txt").read_text().strip()) == 81


def test_qt_file_is_byte_identical_after_round_trip(tmp_path):
    grid, _ = read_grid(QT_PUZZLE)
    write_grid(tmp_path / "x.data", grid)
    assert (tmp_path / "x.data").read_bytes() == QT_PUZZLE.read_bytes()


def test_qt_format_is_lenient_like_the_example(tmp_path):
    bare = tmp_path / "bare.data"
    bare.write_text("5\n\n7")  # no comma, but a .data file: read the Qt way
    assert read_grid(bare)[0][0][0] == 5 and read_grid(bare)[0][2][0] == 7
    p = tmp_path / "odd.data"
    p.write_text("1, 2, x, 13, , 7\n 4 ,5,6,7,8,9,1,2,3,4,5,6\n+3, 99999999999\n")
    grid, regions = read_grid(p)
    assert grid[0] == [1, 2, 0, 3, 0, 7, 0, 0, 0]   # bad item 0, modulo 10, missing 0
    assert grid[1] == [4, 5, 6, 7, 8, 9, 1, 2, 3]   # extra items ignored
    assert grid[2] == [3, 0, 0, 0, 0, 0, 0, 0, 0]   # overflow is not an int: 0
    assert grid[3:] == [[0] * 9] * 6 and regions is None  # missing rows


@pytest.mark.parametrize("text, line, words", [
    ("123\n", 1, "expected 81 characters"),
    ("# c\n" + "1" * 80 + "x\n", 2, "unexpected character 'x'"),
    ("." * 81 + "\n" + "." * 81 + "\n", 2, "after the 81-character"),
    ("." * 9 + "\n" * 1 + "." * 8 + "\n", 2, "expected 9 characters"),
    (("." * 9 + "\n") * 5, 6, "grid row 6"),
    (("." * 9 + "\n") * 9 + "aaaaaaaaa\n", 10, "blank line"),
    (("." * 9 + "\n") * 9 + "\n" + "abcdefghi\n" * 3 + "abcdefghj\n", 14, "letters a-i"),
    (("." * 9 + "\n") * 9 + "\n" + "abcdefghi\n" * 8 + "bacdefghi\n", 11, "not 9 connected"),
    ("1, 2, -3\n", 1, "negative"),
])
def test_malformed_files_name_file_and_line(tmp_path, text, line, words):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(GridFileError) as e:
        read_grid(p)
    assert isinstance(e.value, FbdError) and e.value.line == line
    assert str(e.value).startswith(f"{p}, line {line}: ") and words in str(e.value)


def test_non_text_file(tmp_path):
    p = tmp_path / "bin.data"
    p.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(GridFileError, match="not a text file"):
        read_grid(p)


# ------------------------------------------------------------------ bundled puzzles
def test_bundled_puzzles_are_unique_and_graded():
    entries = bundled_puzzles()
    kinds = {(e["kind"], e["difficulty"]) for e in entries}
    assert kinds == {(k, d) for k in ("classic", "jigsaw") for d in ("easy", "medium", "hard")}
    assert sum(e["kind"] == "classic" for e in entries) >= 20
    assert sum(e["kind"] == "jigsaw" for e in entries) >= 10
    for e in entries:
        grid, regions = read_grid(e["path"])
        assert (regions is not None) == (e["kind"] == "jigsaw"), e["name"]
        assert count_solutions(grid, regions) == 1, e["name"]
        assert grade(grid, regions) == e["difficulty"], e["name"]
    for e in (entries[0], entries[-1]):  # reproducible from the recorded seed
        assert generate(e["difficulty"], jigsaw=e["kind"] == "jigsaw", seed=e["seed"]) == read_grid(e["path"])


# ------------------------------------------------------------------ CLI
def test_cli_solve(capsys):
    assert fbd_main(["sudoku", "solve", str(QT_PUZZLE)]) == 0
    out = capsys.readouterr().out.split()
    assert out[0] == "435269781" and len(out) == 9


def test_cli_generate_and_solve_back(capsys, tmp_path):
    assert fbd_main(["sudoku", "generate", "--difficulty", "easy", "--jigsaw", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# jigsaw, easy, seed 4\n")
    (tmp_path / "p.jigsaw").write_text(text)
    assert fbd_main(["sudoku", "solve", str(tmp_path / "p.jigsaw")]) == 0
    assert is_valid_solution(*read_grid_from_text(capsys.readouterr().out, tmp_path))


def read_grid_from_text(text, tmp_path):
    (tmp_path / "s.jigsaw").write_text(text)
    return read_grid(tmp_path / "s.jigsaw")


@pytest.mark.parametrize("argv, words", [
    (["sudoku"], "required"),
    (["sudoku", "generate", "--difficulty", "expert"], "invalid choice"),
    (["sudoku", "generate", "--seed", "x"], "not a whole number: 'x'"),
    (["sudoku", "generate", "--seed", "-3"], "-3 is outside 0..9,223,372,036,854,775,807"),
    (["sudoku", "generate", "--seed", "9" * 5000], "(5,000 characters) is outside"),
    (["sudoku", "solve", "/no/such/file.data"], "/no/such/file.data: no such file"),
    (["sudoku", "solve", "/"], "/: is a directory"),
])
def test_cli_user_errors_are_one_line_exit_2(capsys, argv, words):
    assert fbd_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and err.count("\n") == 1 and words in err


def test_cli_unsolvable_and_malformed(capsys, tmp_path):
    bad = tmp_path / "clash.txt"
    bad.write_text("55" + "." * 79 + "\n")
    assert fbd_main(["sudoku", "solve", str(bad)]) == 2
    assert "no solution" in capsys.readouterr().err
    bad.write_text("5" * 80 + "\n")
    assert fbd_main(["sudoku", "solve", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1" in err


@pytest.mark.parametrize("seed, words", [(-1, "seed = -1 is outside"), (2**63, "is outside"),
                                         ("7", "seed must be a whole number"),
                                         (1.5, "seed must be a whole number")])
def test_generator_seeds_are_bounded(seed, words):
    from programs.common.params import ParameterError
    with pytest.raises(ParameterError, match=words):
        generate("easy", seed=seed)
