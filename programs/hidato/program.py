"""The whole Hidato program: :func:`build` wires the macros for one board shape.

Following the Sudoku program (:mod:`programs.sudoku.program`):

* ``control`` (*Command*, :mod:`programs.common.command`): the event
  selector and its one-scan lock;
* ``machine`` (*Machine*, :mod:`programs.common.machine`, as Sudoku's): the
  states idle (unsolved, solved) and playing;
* ``move`` (*Move*): enter, clear, undo and the undo stacks (LIFO);
* ``cell_r_c`` (*Cell*, one per cell of the board; holes have none):
  initial and current value;
* ``given_at``, ``current_at`` (MUX over the rectangle, ``row * cols +
  col``): the addressed cell's initial and current value for *Move*; a
  hole's entry is the literal -1, so a move on a hole is never made;
* ``rules`` (*Rules*, :mod:`.rules`): the conflicts and ``Solved``.

The shape (rows, cols, holes, first, last) is fixed when the program is
built; ``setup`` loads new givens into that shape.

PLC inputs (INT): ``CMD`` (1 start, 2 stop, 3 setup, 4 enter, 5 clear, 6
undo), ``CMD_SEQ`` (change it to issue the event in CMD), ``ROW``, ``COL``
(the cell of enter and clear), ``NUMBER`` (enter), ``INIT_r_c`` (the givens
for setup, 0 for an empty cell; also the initial board on the first scan).
PLC outputs: ``IDLE``, ``UNSOLVED``, ``SOLVED``, ``PLAYING`` (BOOL: the
active states), ``CELL_r_c`` (INT, the board as played), ``GIVEN_r_c``
(INT, the givens), ``CONFLICT_r_c`` (BOOL), ``COMPLETE`` (the board is a
solution now), ``BUSY``, ``TAKEN``, ``MOVED``, ``OVERFLOW``, ``UNDO_COUNT``.
"""

from __future__ import annotations

from blocks import AND, EQ, MEMORY, MUX, OR, SEL
from fbd import BOOL, INT, Network
from programs.common.machine import machine_macro

from .control import control_macro
from .move import UNDO_DEPTH, move_macro
from .rules import board_cells, rules_macro

MAX_CELLS = 100


def cell_macro() -> Network:
    """Build the *Cell* macro (6 blocks), as Sudoku's without the checks:
    ``initial`` stores ``Init`` on ``Load``; ``current`` takes the initial
    value on ``Restart``, else ``New`` when ``Write`` addresses ``Index``."""
    net = Network("Cell", doc="one cell: initial and current value")
    init = net.input("Init", INT, 0)
    load = net.input("Load", BOOL, False)
    restart = net.input("Restart", BOOL, False)
    index = net.input("Index", INT, 0)
    addr = net.input("Addr", INT, 0)
    write = net.input("Write", BOOL, False)
    value = net.input("New", INT, 0)

    initial = net.add("initial", MEMORY(INT), IN=init, SET=load)
    here = net.add("here", EQ(INT), IN1=addr, IN2=index)
    hit = net.add("hit", AND(), IN1=here.OUT, IN2=write)
    new = net.add("new", SEL(INT), G=restart, IN0=value, IN1=initial.OUT)
    store = net.add("store", OR(), IN1=hit.OUT, IN2=restart)
    current = net.add("current", MEMORY(INT), IN=new.OUT, SET=store.OUT)
    net.output("Value", current.OUT)
    net.output("Given", initial.OUT)
    return net


def check_shape(rows: int, cols: int, holes=(), first: int = 1, last: int | None = None):
    """The shape as (rows, cols, sorted holes, first, last), or ValueError."""
    for name, x in (("rows", rows), ("cols", cols), ("first", first)):
        if type(x) is not int:
            raise TypeError(f"{name} must be an int, not {x!r}")
    if not (1 <= rows and 1 <= cols):
        raise ValueError(f"a board of {rows}x{cols} has no cells")
    holes = sorted({(int(r), int(c)) for r, c in holes})
    for r, c in holes:
        if not (0 <= r < rows and 0 <= c < cols):
            raise ValueError(f"hole ({r}, {c}) is outside the {rows}x{cols} board")
    n = rows * cols - len(holes)
    if not 2 <= n <= MAX_CELLS:
        raise ValueError(f"the board has {n} cells; the program takes 2..{MAX_CELLS}")
    if last is None:
        last = first + n - 1
    if first < 1 or last != first + n - 1 or last > 32766:
        raise ValueError(f"{n} cells need numbers first..first + {n - 1} with first >= 1, "
                         f"not {first}..{last}")
    return rows, cols, holes, first, last


def shape_of(board) -> dict:
    """The shape of a :class:`~programs.hidato.Board` as keywords for :func:`build`."""
    rows, cols = board.shape
    holes = [(r, c) for r in range(rows) for c in range(cols) if board[r, c] == -1]
    return {"rows": rows, "cols": cols, "holes": holes, "first": board.first, "last": board.last}


def build(rows: int, cols: int, holes=(), first: int = 1, last: int | None = None,
          depth: int = UNDO_DEPTH) -> Network:
    """The Hidato program for one board shape as one :class:`~fbd.Network`.

    ``rows`` x ``cols`` rectangle, ``holes`` the (row, col) cells that are not
    part of the board, numbers ``first..last`` (one per cell; 2..100 cells).
    ``depth``: the undo stacks' depth. ``build(**shape_of(board))`` for a board.
    """
    rows, cols, holes, first, last = check_shape(rows, cols, holes, first, last)
    if not 1 <= depth <= 32767:
        raise ValueError(f"undo depth {depth} must be 1..32767")
    cells = board_cells(rows, cols, holes)
    net = Network("Hidato", doc=f"Hidato from blocks: {rows}x{cols}, {len(holes)} holes, "
                                f"numbers {first}..{last}, undo depth {depth}")
    cmd = net.input("CMD", INT, 0)
    seq = net.input("CMD_SEQ", INT, 0)
    row = net.input("ROW", INT, 0)
    col = net.input("COL", INT, 0)
    number = net.input("NUMBER", INT, 0)
    init = {(r, c): net.input(f"INIT_{r}_{c}", INT, 0) for r, c in cells}

    control = net.add("control", control_macro(), Cmd=cmd, Seq=seq)
    machine = net.add("machine", machine_macro(), Start=control.Start, Stop=control.Stop,
                      Setup=control.Setup)
    move = net.add("move", move_macro(rows, cols, first, last, depth), Enter=control.Enter,
                   Clear=control.Clear, Undo=control.Undo, Row=row, Col=col, Number=number,
                   Restart=machine.Restart)
    net.connect(machine.Playing, move.Playing, feedback=True)

    cell = cell_macro()
    cs = {}
    for r, c in cells:
        cs[r, c] = net.add(f"cell_{r}_{c}", cell, Init=init[r, c], Load=machine.Load,
                           Restart=machine.Restart, Index=r * cols + c, Addr=move.Addr,
                           Write=move.Write, New=move.Value)
    size = rows * cols
    given_at = net.add("given_at", MUX(INT, n=size), K=move.Addr,
                       **{f"IN{r * cols + c}": (cs[r, c].Given if (r, c) in cs else -1)
                          for r in range(rows) for c in range(cols)})
    current_at = net.add("current_at", MUX(INT, n=size), K=move.Addr)
    for r in range(rows):
        for c in range(cols):
            port = current_at.port(f"IN{r * cols + c}")
            if (r, c) in cs:
                net.connect(cs[r, c].Value, port, feedback=True)
            else:
                net.connect(-1, port)
    net.connect(given_at.OUT, move.Given)
    net.connect(current_at.OUT, move.Current)

    rules = net.add("rules", rules_macro(rows, cols, holes, first, last),
                    **{f"V_{r}_{c}": cs[r, c].Value for r, c in cells})
    net.connect(rules.Solved, machine.Solved)
    net.connect(move.Moved, machine.Moved)

    net.output("IDLE", machine.Idle)
    net.output("UNSOLVED", machine.Unsolved)
    net.output("SOLVED", machine.SolvedState)
    net.output("PLAYING", machine.Playing)
    for r, c in cells:
        net.output(f"CELL_{r}_{c}", cs[r, c].Value)
        net.output(f"GIVEN_{r}_{c}", cs[r, c].Given)
        net.output(f"CONFLICT_{r}_{c}", rules.port(f"C_{r}_{c}"))
    net.output("COMPLETE", rules.Solved)
    net.output("BUSY", control.Issue)
    net.output("TAKEN", control.Taken)
    net.output("MOVED", move.Moved)
    net.output("OVERFLOW", move.Overflow)
    net.output("UNDO_COUNT", move.Count)
    return net


__all__ = ["build", "shape_of", "check_shape", "cell_macro", "MAX_CELLS"]
