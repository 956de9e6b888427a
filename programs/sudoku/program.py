"""The whole Sudoku program: :func:`build` wires the macros together.

Qt's "SCXML Sudoku" (``sudoku.scxml`` + ``sudoku.js``) as function blocks:

* ``control`` (*Command*, :mod:`programs.common.command`): the event
  selector and its one-scan lock;
* ``machine`` (*Machine*, :mod:`programs.common.machine`): the states idle
  (unsolved, solved) and playing;
* ``move`` (*Move*): tap, enter, clear, undo and the undo stack (LIFO);
* ``cell_r_c`` (*Cell*, 81): initial and current value, mask, conflict;
* ``given_at``, ``current_at`` (MUX of 81): the addressed cell's initial and
  current value for *Move* (the current one through feedback wires: the
  value at the start of the scan);
* ``peers`` (*Peers*) and ``groups`` (*Groups*): built from the group map,
  the only part that differs between classic and jigsaw.

Signal flow in a scan: the selector takes an event; *Move* decides and
computes the write (reading the state of the previous scan); the cells are
written; *Groups* checks the grid after the write, and *Machine* goes to
``solved`` in the same scan when the move solved it.

PLC inputs (INT): ``CMD`` (1 start, 2 stop, 3 setup, 4 tap, 5 undo, 6
enter, 7 clear), ``CMD_SEQ`` (change it to issue the event in CMD), ``ROW``,
``COL`` (tap's x and y, enter's and clear's cell), ``DIGIT`` (enter),
``INIT_r_c`` (the grid for setup, and the initial grid on the first scan).
PLC outputs: ``IDLE``, ``UNSOLVED``, ``SOLVED``, ``PLAYING`` (BOOL: the
active states), ``CELL_r_c`` (INT, the current grid), ``GIVEN_r_c`` (INT,
the initial grid), ``CONFLICT_r_c`` (BOOL), ``BUSY``, ``TAKEN`` (the
selector), ``MOVED`` (the last scan made a move), ``OVERFLOW`` (the undo
stack refused a move: it was not made), ``UNDO_COUNT`` (INT).
"""

from __future__ import annotations

from blocks import MUX
from fbd import INT, Network
from programs.common.machine import machine_macro

from .board import groups_macro, peers_macro
from .cell import cell_macro
from .control import control_macro
from .groups import CELLS, check_regions
from .move import UNDO_DEPTH, move_macro


def build(regions=None, depth: int = UNDO_DEPTH) -> Network:
    """The Sudoku program as one :class:`~fbd.Network`.

    ``regions``: None for classic Sudoku (rows, columns, 3x3 boxes), or a 9x9
    grid of region ids 0..8 (9 cells each) for Jigsaw Sudoku (rows, columns,
    regions). ``depth``: the undo stack's depth (at least 729).
    """
    regions = check_regions(regions)
    if not 729 <= depth <= 32767:
        raise ValueError(f"undo depth {depth} must be 729..32767 (81 cells x 9 digits at least)")
    kind = "classic" if regions is None else "jigsaw"
    net = Network("Sudoku", doc=f"SCXML Sudoku from blocks ({kind}, undo depth {depth})")
    cmd = net.input("CMD", INT, 0)
    seq = net.input("CMD_SEQ", INT, 0)
    row = net.input("ROW", INT, 0)
    col = net.input("COL", INT, 0)
    digit = net.input("DIGIT", INT, 0)
    init = {(r, c): net.input(f"INIT_{r}_{c}", INT, 0) for r, c in CELLS}

    control = net.add("control", control_macro(), Cmd=cmd, Seq=seq)
    machine = net.add("machine", machine_macro(), Start=control.Start, Stop=control.Stop,
                      Setup=control.Setup)
    move = net.add("move", move_macro(depth), Tap=control.Tap, Undo=control.Undo,
                   Enter=control.Enter, Clear=control.Clear, Row=row, Col=col, Digit=digit,
                   Restart=machine.Restart)
    net.connect(machine.Playing, move.Playing, feedback=True)

    cell = cell_macro()
    cells = {}
    for k, (r, c) in enumerate(CELLS):
        cells[r, c] = net.add(f"cell_{r}_{c}", cell, Init=init[r, c], Load=machine.Load,
                              Restart=machine.Restart, Index=k, Addr=move.Addr,
                              Write=move.Write, New=move.Value)
    given_at = net.add("given_at", MUX(INT, n=81), K=move.Addr,
                       **{f"IN{k}": cells[rc].Given for k, rc in enumerate(CELLS)})
    current_at = net.add("current_at", MUX(INT, n=81), K=move.Addr)
    for k, rc in enumerate(CELLS):
        net.connect(cells[rc].Value, current_at.port(f"IN{k}"), feedback=True)
    net.connect(given_at.OUT, move.Given)
    net.connect(current_at.OUT, move.Current)

    masks = {f"M_{r}_{c}": cells[r, c].Mask for r, c in CELLS}
    peers = net.add("peers", peers_macro(regions), **masks)
    for r, c in CELLS:
        net.connect(peers.port(f"P_{r}_{c}"), cells[r, c].Peers)
    groups = net.add("groups", groups_macro(regions), **masks)
    net.connect(groups.Solved, machine.Solved)
    net.connect(move.Moved, machine.Moved)

    net.output("IDLE", machine.Idle)
    net.output("UNSOLVED", machine.Unsolved)
    net.output("SOLVED", machine.SolvedState)
    net.output("PLAYING", machine.Playing)
    for r, c in CELLS:
        net.output(f"CELL_{r}_{c}", cells[r, c].Value)
        net.output(f"GIVEN_{r}_{c}", cells[r, c].Given)
        net.output(f"CONFLICT_{r}_{c}", cells[r, c].Conflict)
    net.output("BUSY", control.Issue)
    net.output("TAKEN", control.Taken)
    net.output("MOVED", move.Moved)
    net.output("OVERFLOW", move.Overflow)
    net.output("UNDO_COUNT", move.Count)
    return net


__all__ = ["build"]
