"""``fbd hidato solve|generate``: output in the text format, one-line errors, exit codes."""

from fbd.tools.cli import main
from programs.hidato import Board, count_solutions


def test_solve(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("1 _ .\n_ 5 _\n")
    assert main(["hidato", "solve", str(path)]) == 0
    solution = Board.parse(capsys.readouterr().out)
    assert solution.solves(Board.read(path))


def test_solve_count_and_no_solution(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("1 _\n_ 4\n")
    assert main(["hidato", "solve", "--count", str(path)]) == 0
    assert capsys.readouterr().out.strip() == "2"
    path.write_text("1 _ 2\n_ _ _\n_ _ 9\n")
    assert main(["hidato", "solve", str(path)]) == 1
    assert "no solution" in capsys.readouterr().err


def test_generate(capsys):
    assert main(["hidato", "generate", "4", "5", "--holes", "2", "--seed", "3",
                 "--difficulty", "hard"]) == 0
    board = Board.parse(capsys.readouterr().out)
    assert board.shape == (4, 5) and board.cells == 18
    assert count_solutions(board) == 1


def test_generate_with_solution(capsys):
    assert main(["hidato", "generate", "3", "3", "--seed", "1", "--first", "5", "--solution"]) == 0
    puzzle, solution = capsys.readouterr().out.split("\n\n")
    assert Board.parse(solution).solves(Board.parse(puzzle))


def _one_line_error(capsys, argv, words):
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("fbd: error: ") and "\n" not in err and words in err
    assert captured.out == ""


def test_user_errors_are_one_line(tmp_path, capsys):
    _one_line_error(capsys, ["hidato", "solve", str(tmp_path / "missing.txt")],
                    "missing.txt: no such file")
    bad = tmp_path / "bad.txt"
    bad.write_text("1 _ 3\n_ 3 _\n_ _ 9\n")
    _one_line_error(capsys, ["hidato", "solve", str(bad)], "line 2")
    _one_line_error(capsys, ["hidato", "generate", "0", "3"], "rows = 0 is outside 1..400")
    _one_line_error(capsys, ["hidato", "generate", "3", "x"], "not a whole number: 'x'")
    _one_line_error(capsys, ["hidato", "generate", "30", "30"], "too large")
    _one_line_error(capsys, ["hidato", "frobnicate"], "invalid choice")


def test_generator_arguments_are_bounded_in_one_line(capsys):
    _one_line_error(capsys, ["hidato", "generate", "5", "5", "--seed", "-1"], "outside 0..")
    _one_line_error(capsys, ["hidato", "generate", "5", "9" * 5000], "(5,000 characters)")
    _one_line_error(capsys, ["hidato", "generate", "5", "5", "--holes", "24"],
                    "leaves 1 cells")
    _one_line_error(capsys, ["hidato", "generate", "5", "5", "--first", "0"],
                    "first = 0 is outside 1..1,000,000")
