"""The Hidato program through its facade: states, moves, undo, givens and
holes, solved detection on bundled puzzles, conflicts, bad input, post()."""

import pytest

from fbd import FbdError
from programs.hidato import Board, HidatoGame, bundled, solve

#: A small board with holes: 1..7, numbers 1 and 7 given.
SMALL = Board.from_rows([[1, 0, -1],
                         [0, 0, 0],
                         [-1, 0, 7]])
SMALL_SOLUTION = [[1, 2, -1], [3, 4, 5], [-1, 6, 7]]


@pytest.fixture(scope="module")
def easy():
    board = bundled()["5x5-easy-s1"]
    return board, solve(board)


def fill(g, board, solution, skip=()):
    rows, cols = board.shape
    for r in range(rows):
        for c in range(cols):
            if board[r, c] == 0 and (r, c) not in skip:
                g.enter(r, c, solution[r, c])


def test_states_and_solved_on_a_bundled_puzzle(easy):
    board, solution = easy
    g = HidatoGame(board)
    assert g.state == "unsolved" and g.current == board.rows and g.givens == board.rows
    g.enter(0, 0, 5)                                   # idle: ignored
    assert g.current == board.rows and g.undo_count == 0
    g.start()
    assert g.state == "playing"
    fill(g, board, solution)
    assert g.state == "solved" and g.complete
    assert g.current == solution.rows
    assert not any(any(row) for row in g.conflicts)
    g.start()                                          # solved + start: restart
    assert g.state == "playing" and g.current == board.rows and g.undo_count == 0


def test_solved_at_10x10():
    board = bundled()["10x10-medium-s11"]
    solution = solve(board)
    g = HidatoGame(board)
    g.start()
    empties = [(r, c) for r in range(10) for c in range(10) if board[r, c] == 0]
    fill(g, board, solution, skip=empties[-1:])
    assert g.state == "playing" and not g.complete
    r, c = empties[-1]
    g.enter(r, c, solution[r, c])
    assert g.state == "solved"


def test_undo_is_a_lifo_and_restores_old_values():
    g = HidatoGame(SMALL)
    g.start()
    g.enter(0, 1, 3)
    g.enter(0, 1, 2)
    g.clear(0, 1)
    g.enter(1, 0, 3)
    assert g.current[0][1] == 0 and g.current[1][0] == 3 and g.undo_count == 4
    g.undo()
    assert g.current[1][0] == 0
    g.undo()
    assert g.current[0][1] == 2
    g.undo()
    assert g.current[0][1] == 3
    g.undo()
    g.undo()                                           # empty stack: nothing
    assert g.current == SMALL.rows and g.undo_count == 0
    g.stop()
    assert g.state == "unsolved"
    g.undo()                                           # idle: ignored
    assert g.current == SMALL.rows


def test_givens_are_immutable_and_holes_ignore_events():
    g = HidatoGame(SMALL)
    g.start()
    g.enter(0, 0, 2)                                   # a given
    g.clear(2, 2)                                      # a given
    g.enter(0, 2, 3)                                   # a hole
    g.clear(2, 0)
    assert g.current == SMALL.rows and g.undo_count == 0 and not g.moved
    g.submit("enter", 0, 1, number=8)                  # out of range, unchecked: ignored
    g.submit("enter", 5, 1, number=2)
    assert g.current == SMALL.rows


def test_conflicts_and_win_by_last_move():
    g = HidatoGame(SMALL)
    g.start()
    g.enter(1, 1, 2)                                   # 2 next to 1: fine
    assert not any(any(row) for row in g.conflicts)
    g.enter(2, 1, 2)                                   # duplicate 2
    assert g.conflicts[1][1] and g.conflicts[2][1]
    g.enter(2, 1, 6)
    g.enter(0, 1, 3)                                   # 3 next to 2
    assert not any(any(row) for row in g.conflicts)
    g.enter(1, 2, 4)                                   # 4 next to 3 (diagonally)
    assert not any(any(row) for row in g.conflicts)
    g.enter(1, 0, 5)                                   # 5 far from 4, next to 6
    assert g.conflicts[1][0] and g.conflicts[1][2] and not g.conflicts[2][1]
    for r, c in [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)]:
        g.clear(r, c)
    for r in range(3):
        for c in range(3):
            if SMALL[r, c] == 0:
                g.enter(r, c, SMALL_SOLUTION[r][c])
    assert g.state == "solved" and g.current == SMALL_SOLUTION


def test_setup_loads_new_givens_in_idle_only():
    other = Board.from_rows([[1, 2, -1], [0, 0, 0], [-1, 0, 7]])
    g = HidatoGame(SMALL)
    g.start()
    g.setup(other)                                     # playing: ignored
    assert g.givens == SMALL.rows
    g.stop()
    g.setup(other)
    assert g.state == "unsolved" and g.givens == other.rows and g.current == other.rows
    with pytest.raises(ValueError, match="shape"):
        g.setup(bundled()["5x5-easy-s1"])


def test_bad_input_is_a_clear_error():
    g = HidatoGame(SMALL)
    with pytest.raises(ValueError, match="row = 3"):
        g.enter(3, 0, 2)
    with pytest.raises(ValueError, match="col = -1"):
        g.clear(0, -1)
    with pytest.raises(ValueError, match="number = 8 is outside 1..7"):
        g.enter(0, 1, 8)
    with pytest.raises(TypeError):
        g.enter(0, 1, "2")
    with pytest.raises(ValueError, match="unknown event"):
        g.post("tap")


def test_post_does_not_scan_and_busy_follows_taken():
    g = HidatoGame(SMALL)
    scans = g.plc.scans
    seq = g.post("start")
    assert g.plc.scans == scans and g.busy and g.state == "unsolved"
    g.plc.scan()
    assert not g.busy and g.taken == seq and g.state == "playing"
    g.post("enter", 0, 1, number=2)
    g.plc.scan()                                       # locked after start: still pending
    assert g.busy
    g.plc.scan()
    assert not g.busy and g.current[0][1] == 2


def test_submit_fails_loudly_when_seq_is_forced():
    g = HidatoGame(SMALL)
    g.plc.force("CMD_SEQ", 0)
    with pytest.raises(FbdError, match="did not take"):
        g.start()


def test_another_writers_event_is_taken_first_not_overwritten():
    g = HidatoGame(SMALL)
    g.start()
    plc = g.plc                                   # another writer: a script, a debugger
    for name, value in (("ROW", 1), ("COL", 0), ("NUMBER", 3), ("CMD", 4), ("CMD_SEQ", 77)):
        plc.set(name, value)                      # enter 3 at (1, 0), numbered its own way
    assert g.busy
    with pytest.raises(FbdError, match="not taken"):
        g.post("enter", 0, 1, number=2)           # would overwrite it
    g.enter(0, 1, 2)                              # waits for it, then its own
    assert g.current[1][0] == 3 and g.current[0][1] == 2 and g.taken == 78
