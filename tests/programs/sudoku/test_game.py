"""The Sudoku program through its facade, against a scripted copy of the SCXML
machine: every event in every state, invalid taps, wraps, undo, setup while
playing, random event sequences step by step, solved detection (classic and
jigsaw), conflicts, the undo stack's depth and overflow, bad input."""

import random
from pathlib import Path

import pytest

from fbd import FbdError
from programs.sudoku import SudokuGame, build
from tests.paths import SUDOKU_QT
from tests.programs.sudoku.scxml_reference import ScxmlSudoku, conflicts, is_solved

#: A valid Jigsaw Sudoku layout and its solution (checked below, independently
#: of the program); the solution breaks the classic 3x3 boxes.
JIGSAW_REGIONS = [
    [0, 0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 2, 0, 0, 0, 1, 1, 1], [3, 2, 2, 2, 2, 2, 2, 2, 1],
    [3, 3, 2, 4, 4, 4, 4, 5, 5], [3, 3, 3, 4, 4, 5, 4, 5, 5], [3, 3, 3, 4, 6, 5, 5, 5, 7],
    [8, 8, 8, 4, 6, 5, 7, 7, 7], [8, 8, 6, 6, 6, 6, 6, 6, 7], [8, 8, 8, 8, 6, 7, 7, 7, 7]]
JIGSAW_SOLUTION = [
    [7, 4, 5, 3, 8, 9, 1, 6, 2], [9, 8, 3, 6, 2, 1, 4, 7, 5], [6, 1, 2, 5, 4, 7, 9, 8, 3],
    [1, 7, 6, 2, 5, 4, 8, 3, 9], [4, 2, 8, 9, 6, 5, 3, 1, 7], [5, 3, 9, 7, 1, 6, 2, 4, 8],
    [2, 6, 7, 1, 3, 8, 5, 9, 4], [3, 9, 4, 8, 7, 2, 6, 5, 1], [8, 5, 1, 4, 9, 3, 7, 2, 6]]


def read_data(path: Path) -> list[list[int]]:
    """The Qt example's format, as strictly as these two files need."""
    return [[int(v) % 10 for v in line.split(",")] for line in path.read_text().splitlines()]


NEARLY = read_data(SUDOKU_QT / "nearly-solved-sudoku.data")
PUZZLE = read_data(SUDOKU_QT / "sudoku.data")
SOLUTION = [row[:] for row in NEARLY]
SOLUTION[0][0] = 4


def with_blanks(grid, cells):
    out = [row[:] for row in grid]
    for r, c in cells:
        out[r][c] = 0
    return out


@pytest.fixture(scope="module")
def game():
    """One compiled classic game, shared; each test starts it with setup."""
    return SudokuGame(PUZZLE)


def fresh(g: SudokuGame, grid) -> SudokuGame:
    """Back to idle/unsolved with ``grid`` as the initial grid."""
    if g.state == "playing":
        g.stop()
    g.setup(grid)
    assert g.state == "unsolved" and g.initial == grid and g.current == grid
    return g


def same(g: SudokuGame, ref: ScxmlSudoku, where=""):
    assert g.state == ref.state, where
    assert g.current == ref.current, where
    assert g.initial == ref.init_state, where
    assert g.undo_count == len(ref.undo_stack), where
    assert g.conflicts == conflicts(g.current, ref.regions), where


# -- the data ------------------------------------------------------------------
def test_the_test_data():
    assert is_solved(SOLUTION) and not is_solved(NEARLY) and NEARLY[0][0] == 0
    assert is_solved(JIGSAW_SOLUTION, JIGSAW_REGIONS) and not is_solved(JIGSAW_SOLUTION)
    assert sum(v == 0 for row in PUZZLE for v in row) == 45


# -- the state machine, event by event -----------------------------------------------
def test_entering_game_restarts_with_the_initial_grid():
    g = SudokuGame(NEARLY)
    assert g.state == "unsolved" and g.current == NEARLY and g.initial == NEARLY
    assert g.undo_count == 0 and not g.overflow
    assert g.plc.get("IDLE") and g.plc.get("UNSOLVED") and not g.plc.get("SOLVED")


EVENTS = [("start", {}), ("stop", {}), ("setup", {"grid": NEARLY}), ("tap", {"x": 0, "y": 0}),
          ("tap", {"x": 0, "y": 1}), ("undo", {}), ("enter", {"x": 0, "y": 0, "digit": 7}),
          ("clear", {"x": 0, "y": 0})]


def _to_state(g, ref, state):
    """Drive both to ``state`` (with a move on the stack in playing)."""
    for target in (g, ref):
        target_submit = (lambda e, **kw: _submit(g, e, **kw)) if target is g else ref.submit
        target_submit("start")
        if state == "solved":
            target_submit("tap", x=0, y=0)  # 4 taps: 0 -> 4, the answer
            target_submit("tap", x=0, y=0)
            target_submit("tap", x=0, y=0)
            target_submit("tap", x=0, y=0)
        elif state == "playing":
            target_submit("tap", x=0, y=0)
        else:
            target_submit("stop")


def _submit(g, event, grid=None, **kw):
    if event == "setup":
        g.setup(grid)
    else:
        g.submit(event, **kw)


@pytest.mark.parametrize("state", ["unsolved", "solved", "playing"])
@pytest.mark.parametrize("event, data", EVENTS, ids=[f"{e}{sorted(d.items())}"[:24]
                                                     for e, d in EVENTS])
def test_every_event_in_every_state(game, state, event, data):
    g = fresh(game, NEARLY)
    ref = ScxmlSudoku(NEARLY)
    _to_state(g, ref, state)
    same(g, ref, f"reaching {state}")
    assert g.state == state
    _submit(g, event, **data)
    ref.submit(event, **data)
    same(g, ref, f"{event} in {state}")


def test_setup_is_ignored_while_playing(game):
    g = fresh(game, PUZZLE)
    g.start()
    g.tap(0, 2)
    g.setup(NEARLY)
    assert g.state == "playing" and g.initial == PUZZLE and g.current[0][2] == 1
    g.stop()
    g.setup(NEARLY)
    assert g.state == "unsolved" and g.initial == NEARLY and g.current == NEARLY


@pytest.mark.parametrize("x, y", [(-1, 2), (9, 2), (2, -1), (2, 9), (32767, -32768),
                                  (0, 3)])  # (0, 3) is given in PUZZLE: 2
def test_invalid_taps_are_ignored(game, x, y):
    g = fresh(game, PUZZLE)
    g.start()
    g.submit("tap", x=x, y=y)
    assert g.current == PUZZLE and g.undo_count == 0 and g.state == "playing"
    assert not g.moved


def test_taps_only_while_playing(game):
    g = fresh(game, PUZZLE)
    g.tap(0, 2)
    assert g.current == PUZZLE and g.undo_count == 0


def test_tap_wraps_9_to_0_and_undo_wraps_0_to_9(game):
    g = fresh(game, PUZZLE)
    g.start()
    seen = []
    for _ in range(11):
        g.tap(0, 2)
        seen.append(g.current[0][2])
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
    back = []
    for _ in range(11):
        g.undo()
        back.append(g.current[0][2])
    assert back == [0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    assert g.undo_count == 0


def test_undo_on_an_empty_stack_changes_nothing(game):
    g = fresh(game, PUZZLE)
    g.start()
    g.undo()
    assert g.current == PUZZLE and g.state == "playing" and g.undo_count == 0
    g.tap(1, 1)
    g.undo()
    g.undo()
    assert g.current == PUZZLE and g.undo_count == 0
    assert not g.plc.get("move.stack.UNDERFLOW")


def test_enter_and_clear_are_undoable_and_only_on_empty_cells(game):
    g = fresh(game, PUZZLE)
    g.start()
    g.enter(0, 2, 4)
    g.tap(0, 2)
    g.clear(0, 2)
    g.enter(0, 3, 9)               # given: ignored
    g.submit("enter", x=0, y=1, digit=10)   # not a digit: ignored
    g.submit("enter", x=0, y=1, digit=-1)
    assert g.current[0][:4] == [0, 0, 0, 2] and g.undo_count == 3
    steps = []
    for _ in range(4):
        g.undo()
        steps.append(g.current[0][2])
    assert steps == [5, 4, 0, 0]


def test_start_restarts_the_grid_and_stop_keeps_it(game):
    g = fresh(game, PUZZLE)
    g.start()
    g.enter(0, 2, 4)
    g.stop()
    assert g.state == "unsolved" and g.current[0][2] == 4 and g.undo_count == 1
    g.start()
    assert g.current == PUZZLE and g.undo_count == 0


def test_random_event_sequences_match_the_scxml(game):
    """Seeded random sequences, compared with the reference after every event:
    states, both grids, the stack's size and the conflicts. The grid has a
    few blanks, so solved is reached now and then."""
    rng = random.Random(61131)
    solution_blanks = [(0, 0), (1, 4), (4, 4), (8, 8), (5, 2)]
    grids = [with_blanks(SOLUTION, solution_blanks[:2]), with_blanks(SOLUTION, solution_blanks)]
    solved_seen = 0
    for run in range(3):
        g = fresh(game, grids[0])
        ref = ScxmlSudoku(grids[0])
        for step in range(250):
            event = rng.choices(["start", "stop", "setup", "tap", "undo", "enter", "clear"],
                                [8, 3, 4, 30, 12, 35, 5])[0]
            data = {}
            if event == "setup":
                data["grid"] = rng.choice(grids)
            elif event in ("tap", "enter", "clear"):
                if rng.random() < 0.8:
                    data["x"], data["y"] = rng.choice(solution_blanks)
                else:
                    data["x"], data["y"] = rng.randint(-1, 9), rng.randint(-1, 9)
                if event == "enter":
                    data["digit"] = rng.choice([SOLUTION[data["x"] % 9][data["y"] % 9]] * 12
                                               + list(range(-1, 11)))
            _submit(g, event, **data)
            ref.submit(event, **data)
            same(g, ref, f"run {run} step {step}: {event} {data}")
            solved_seen += ref.state == "solved"
    assert solved_seen >= 10


# -- solved ------------------------------------------------------------------------
def test_nearly_solved_classic_is_solved_by_four_taps(game):
    g = fresh(game, NEARLY)
    g.start()
    for k in range(1, 4):
        g.tap(0, 0)
        assert g.current[0][0] == k and g.state == "playing"
    g.tap(0, 0)
    assert g.current == SOLUTION and g.state == "solved"
    assert g.plc.get("SOLVED") and g.plc.get("IDLE") and not g.plc.get("UNSOLVED")
    g.tap(0, 0)                     # idle: ignored, the solved grid stays on show
    g.undo()
    assert g.current == SOLUTION and g.state == "solved"
    g.start()
    assert g.state == "playing" and g.current == NEARLY


def test_solved_by_enter_too_but_not_by_undo_or_start(game):
    g = fresh(game, NEARLY)
    g.start()
    g.enter(0, 0, 4)
    assert g.state == "solved"
    g.start()
    g.enter(0, 0, 4)                 # solved ...
    g.start()                        # ... restart, play a wrong digit and undo it:
    g.tap(0, 0)
    g.undo()
    assert g.state == "playing"      # the SCXML checks only after a tap
    solved = SudokuGame(SOLUTION)
    solved.start()
    assert solved.state == "playing"  # nor on entering playing


def test_a_wrong_full_grid_is_not_solved(game):
    g = fresh(game, NEARLY)
    g.start()
    for digit in (1, 2, 3, 5, 6, 7, 8, 9):
        g.enter(0, 0, digit)
        assert g.state == "playing" and g.conflicts[0][0]


def test_jigsaw_solved_detection_uses_the_regions():
    blanks = [(0, 0), (4, 4), (8, 8)]
    puzzle = with_blanks(JIGSAW_SOLUTION, blanks)
    g = SudokuGame(puzzle, regions=JIGSAW_REGIONS)
    classic = SudokuGame(puzzle)
    for game_ in (g, classic):
        game_.start()
        for r, c in blanks:
            game_.enter(r, c, JIGSAW_SOLUTION[r][c])
    assert g.state == "solved" and g.current == JIGSAW_SOLUTION
    assert not any(any(row) for row in g.conflicts)
    assert classic.state == "playing" and any(any(row) for row in classic.conflicts)


# -- conflicts -----------------------------------------------------------------------
def test_conflicts_in_row_column_and_box(game):
    g = fresh(game, PUZZLE)     # row 0: . . . 2 6 . 7 . 1; box 0 holds 6 8 1 9
    g.start()
    assert not any(any(row) for row in g.conflicts)
    g.enter(0, 2, 2)            # the row's 2, given at (0, 3)
    assert g.conflicts[0][2] and g.conflicts[0][3]
    assert sum(map(sum, g.conflicts)) == 2
    g.enter(0, 2, 8)            # the box's 8 at (1, 1)
    assert g.conflicts[0][2] and g.conflicts[1][1] and not g.conflicts[0][3]
    assert sum(map(sum, g.conflicts)) == 2
    g.enter(0, 2, 3)            # the column's 3 at (8, 2)
    assert g.conflicts[0][2] and g.conflicts[8][2] and sum(map(sum, g.conflicts)) == 2
    g.enter(0, 2, 0)
    assert not any(any(row) for row in g.conflicts)
    g.enter(0, 0, 7)            # row (0, 6) and column (8, 0): three cells
    assert g.conflicts == conflicts(g.current)
    assert g.conflicts[0][0] and g.conflicts[0][6] and g.conflicts[8][0]
    assert sum(map(sum, g.conflicts)) == 3


def test_jigsaw_conflicts_follow_regions():
    puzzle = with_blanks(JIGSAW_SOLUTION, [(0, 0), (0, 1)])
    g = SudokuGame(puzzle, regions=JIGSAW_REGIONS)
    g.start()
    # (1, 2) is region 2 (box 0 in classic); put (0, 0)'s 7 next to ... region 0 has (1, 0)=9
    g.enter(0, 0, 9)
    assert g.conflicts == conflicts(g.current, JIGSAW_REGIONS)
    assert g.conflicts[0][0] and g.conflicts[1][0]
    g.enter(0, 0, 3)        # 3 at (1, 2): same classic box, other jigsaw region
    assert g.conflicts == conflicts(g.current, JIGSAW_REGIONS)
    assert g.conflicts != conflicts(g.current)


# -- the undo stack ------------------------------------------------------------------
def _moves(g, n):
    """n undoable moves on the empty cells of PUZZLE (enter, cycling digits)."""
    blanks = [(r, c) for r in range(9) for c in range(9) if PUZZLE[r][c] == 0]
    for k in range(n):
        r, c = blanks[k % len(blanks)]
        g.enter(r, c, k % 10)


def test_the_stack_holds_729_moves_and_undoes_them_all(game):
    g = fresh(game, PUZZLE)
    g.start()
    _moves(g, 729)
    assert g.undo_count == 729 and not g.overflow
    for _ in range(729):
        g.undo()
    assert g.current == PUZZLE and g.undo_count == 0


def test_a_full_stack_refuses_the_move_with_overflow():
    g = SudokuGame(PUZZLE, depth=729)
    g.start()
    _moves(g, 729)
    before = g.current
    assert g.undo_count == 729 and not g.overflow
    g.tap(0, 2)
    assert g.overflow and g.current == before and g.undo_count == 729 and not g.moved
    g.undo()
    assert not g.overflow and g.undo_count == 728
    g.tap(0, 2)
    assert not g.overflow and g.undo_count == 729
    with pytest.raises(ValueError, match="depth"):
        build(depth=100)


# -- the facade ------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda g: g.tap(9, 0), "x = 9"),
    (lambda g: g.tap(0, -1), "y = -1"),
    (lambda g: g.enter(0, 2, 10), "digit = 10"),
    (lambda g: g.clear(0, 9), "col = 9"),
    (lambda g: g.setup([[0] * 9] * 8), "9 rows"),
    (lambda g: g.setup([[0] * 9] * 8 + [[0] * 10]), "9 rows"),
    (lambda g: g.setup([[0] * 9] * 8 + [[0] * 8 + [10]]), r"grid\[8\]\[8\] = 10"),
    (lambda g: g.submit("jump"), "unknown event"),
    (lambda g: g.submit("tap", x=40000), "outside"),
])
def test_bad_input_is_a_clear_error(game, call, message):
    with pytest.raises(ValueError, match=message):
        call(game)


def test_bad_types_and_regions(game):
    with pytest.raises(TypeError, match="int"):
        game.tap(1.5, 0)
    with pytest.raises(TypeError, match="int"):
        game.enter(0, 0, True)
    with pytest.raises(ValueError, match="region"):
        SudokuGame(PUZZLE, regions=[[0] * 9] * 9)
    with pytest.raises(ValueError, match="region id"):
        build(regions=[[9] * 9] * 9)


def test_the_facade_reports_a_stuck_selector(game):
    g = fresh(game, PUZZLE)
    g.plc.force("CMD_SEQ", 0)
    try:
        with pytest.raises(FbdError, match="did not take"):
            g.start()
    finally:
        g.plc.unforce("CMD_SEQ")


def test_post_writes_without_scanning(game):
    g = fresh(game, PUZZLE)
    assert g.plc.get("BUSY")           # setup was just taken
    g.plc.scan()
    assert not g.plc.get("BUSY")
    seq = g.post("start")
    assert g.state == "unsolved" and g.taken != seq
    g.plc.scan()
    assert g.taken == seq and g.state == "playing" and g.plc.get("BUSY")
    seq = g.post("tap", x=0, y=0)
    g.plc.scan()                       # locked for one scan after an event
    assert g.taken != seq and g.current[0][0] == 0
    g.plc.scan()
    assert g.taken == seq and g.current[0][0] == 1


def test_another_writers_event_is_taken_first_not_overwritten(game):
    g = fresh(game, PUZZLE)
    g.start()
    first, second = [(r, c) for r in range(9) for c in range(9) if PUZZLE[r][c] == 0][:2]
    plc = g.plc                                   # another writer: a script, a debugger
    plc.set("ROW", first[0])
    plc.set("COL", first[1])
    plc.set("CMD", 4)                             # tap
    theirs = g.taken + 100                        # numbered its own way
    plc.set("CMD_SEQ", theirs)
    assert g.pending
    g.tap(*second)                                # waits for the other tap, then its own
    assert g.current[first[0]][first[1]] == 1 and g.current[second[0]][second[1]] == 1
    assert g.taken == g.seq == theirs + 1 and g.undo_count == 2
