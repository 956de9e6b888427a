"""The whole 2048 program: :func:`build` wires the macros together.

Layout, as in the article's final picture:

* control (top left): ``control`` (*Control*: selector, lock, sequence),
  ``random`` (*Random*), ``install`` and ``install_start`` (*Install*: a
  tile through the cells' Set, the first tile of a game through Start),
  ``smart_placement`` (*SmartPlacement*, in ``smart`` mode only), ``score``
  (*Score*);
* the cells (bottom left): ``cell_r_c`` (*Cell*, 16), each fed by
  ``cell_in_r_c`` (a MUX: the commanded direction's result for the cell),
  and ``placed`` (an OR of the cells' Done);
* command processing (top right): ``processing_up`` .. ``processing_left``
  (*Move*, four *Processing* lines each);
* helpers (bottom right): the order converters ``order_<dir>`` and
  ``reorder_<dir>`` (*Order*/*Reorder*), ``game_over`` (*GameOver*) and
  ``won`` (*Won*).

Signal flow in a scan. The selector reads the PLC inputs; the processing
macros read the cells through feedback wires (the board as it was at the
start of the scan), so a single-pass move is computed, applied to the cells
(Go, In) and its tile requested all in the command's scan; the cells read
their placement inputs (Set, Start, Four) through feedback wires too, so the
tile lands on the next scan. The placement logic, game over and win read the
cells after they have been written.

PLC inputs: ``CMD`` (INT, the selector: 1 up, 2 right, 3 down, 4 left, 5
start, 6 reset) and ``CMD_SEQ`` (INT: a value other than ``TAKEN`` issues the
command in CMD; written while a command is in progress, it waits for the lock,
so write the next command only once ``TAKEN`` equals ``CMD_SEQ`` and ``BUSY``
is off, or the waiting one is replaced).
PLC outputs: ``CELL_r_c`` (DINT), ``SCORE``, ``GAIN`` (DINT: the last
command's score), ``MOVED`` (the last command was a move), ``BUSY`` (a command
is in progress), ``PLACING`` (a new tile is being placed: the board shows the
position after the slide and merge), ``GAME_OVER``, ``WON`` (BOOL), ``TAKEN``
(INT: CMD_SEQ of the last command taken), ``EMPTY`` (INT: empty cells, in
``smart`` mode; -1 in ``article`` mode, which does not count them).

Located as Modbus clients see them (``fbd serve 2048``, OpenPLC's layout,
holding registers from 0): ``CMD`` %MW0 and ``CMD_SEQ`` %MW1 (holding
registers 1024 and 1025: write both with one request to issue a command),
``CELL_r_c`` %MD(4r+c) (holding registers 2048 + 2(4r+c), high word first),
``SCORE`` %MD16 (2080), ``GAIN`` %MD17 (2082), ``TAKEN`` %QW0 (0), ``EMPTY``
%QW1 (1), and coils ``MOVED`` %QX0.0 (0), ``BUSY`` %QX0.1 (1), ``PLACING``
%QX0.2 (2), ``GAME_OVER`` %QX0.3 (3), ``WON`` %QX0.4 (4).
"""

from __future__ import annotations

from blocks import MAX, MUX, OR
from fbd import DINT, INT, LREAL, Network

from .cell import cell_macro
from .control import MOVES, control_macro
from .game_over import game_over_macro
from .install import install_macro
from .move import move_macro
from .order import SIZE, cell_of, order_macro, reorder_macro
from .placement import PLACEMENTS, smart_placement_macro
from .processing import VARIANTS
from .rng import random_macro, seed_offset
from .score import score_macro
from .won import won_macro

CELLS = [(r, c) for r in range(SIZE) for c in range(SIZE)]


def build(processing: str = "single_pass", placement: str = "smart", seed: int = 0,
          seed_input: bool = False, best: bool = False) -> Network:
    """The whole 2048 program as one :class:`~fbd.Network` (``fbd info programs.game2048:build``).

    ``processing``: ``"single_pass"`` or ``"multi_scan"`` (the *Processing*
    variant); ``placement``: ``"smart"`` or ``"article"``; ``seed``: an integer
    whose value mod 10**6 shifts *Random*'s clock (see
    :func:`~programs.game2048.rng.seed_offset`). With ``seed_input`` the shift
    is a PLC input instead, ``SEED`` (LREAL seconds, starting at ``seed``'s),
    so that instances of one program play different games (the Monte-Carlo
    study's batch runs). With ``best`` the program also keeps the best score,
    ``BEST`` (%MD18): the largest SCORE it has seen, in a MAX that reads its own
    output and is RETAIN, so a warm start (a retain file read back: the HMI's
    panel) keeps it (docs/retain.md).
    """
    if processing not in VARIANTS:
        raise ValueError(f"unknown processing {processing!r}; choose one of {', '.join(VARIANTS)}")
    if placement not in PLACEMENTS:
        raise ValueError(f"unknown placement {placement!r}; choose one of {', '.join(PLACEMENTS)}")
    offset = seed_offset(seed)

    net = Network("Game2048", doc=f"2048 from blocks ({processing}, {placement} placement, "
                                  f"seed {seed})")
    cmd = net.input("CMD", INT, at="%MW0")
    seq = net.input("CMD_SEQ", INT, at="%MW1")
    control = net.add("control", control_macro(), Cmd=cmd, Seq=seq)
    random = net.add("random", random_macro(),
                     Seed=net.input("SEED", LREAL, offset) if seed_input else offset)

    # Command processing: a Move per direction, between its order converters.
    move = move_macro(processing)
    moves, results = {}, {}
    for d in MOVES:
        order = net.add(f"order_{d}", order_macro(d))
        moves[d] = net.add(f"processing_{d}", move, Command=control.port(d.capitalize()),
                           **{f"L{l}_{p}": order.port(f"L{l}_{p}")
                              for l in range(SIZE) for p in range(1, SIZE + 1)})
        results[d] = net.add(f"reorder_{d}", reorder_macro(d),
                             **{f"R{l}_{p}": moves[d].port(f"R{l}_{p}")
                                for l in range(SIZE) for p in range(1, SIZE + 1)})
        cap = d.capitalize()
        net.connect(moves[d].Done, control.port(f"Done{cap}"))
        net.connect(moves[d].Worked, control.port(f"Worked{cap}"))
        net.connect(moves[d].Score, control.port(f"Score{cap}"))

    # The cells.
    cell = cell_macro()
    cells = {}
    for r, c in CELLS:
        chosen = net.add(f"cell_in_{r}_{c}", MUX(DINT, n=5), K=control.Dir, IN0=0,
                         **{f"IN{i}": results[d].port(f"V_{r}_{c}")
                            for i, d in enumerate(MOVES, start=1)})
        cells[r, c] = net.add(f"cell_{r}_{c}", cell, Clear=control.Clear, Go=control.Go,
                              In=chosen.OUT)
        for d in MOVES:  # the processing reads the board of the previous scan
            net.connect(cells[r, c].Value, net[f"order_{d}"].port(f"C_{r}_{c}"), feedback=True)
    placed = net.add("placed", OR(n=16), **{f"IN{k + 1}": cells[rc].Done
                                           for k, rc in enumerate(CELLS)})
    net.connect(placed.OUT, control.Placed)

    # Tile placement.
    if placement == "smart":
        smart = net.add("smart_placement", smart_placement_macro(), Fraction=random.Fraction,
                        **{f"V_{r}_{c}": cells[r, c].Value for r, c in CELLS})
        where, empty = smart, smart.Count
    else:
        where, empty = random, -1
    install = install_macro()
    tiles = net.add("install", install, Work=control.Work, Row=where.Row, Col=where.Col)
    firsts = net.add("install_start", install, Work=control.FirstTile, Row=where.Row,
                     Col=where.Col)
    for r, c in CELLS:  # the cells read their placement inputs of the previous scan
        net.connect(tiles.port(f"S_{r}_{c}"), cells[r, c].Set, feedback=True)
        net.connect(firsts.port(f"S_{r}_{c}"), cells[r, c].Start, feedback=True)
        net.connect(random.Four, cells[r, c].Four, feedback=True)

    # Score, game over, win.
    score = net.add("score", score_macro(), Gain=control.Gain, Add=control.Go,
                    Clear=control.Clear)
    values = {f"V_{r}_{c}": cells[r, c].Value for r, c in CELLS}
    over = net.add("game_over", game_over_macro(), **values)
    won = net.add("won", won_macro(), **values)

    for r, c in CELLS:
        net.output(f"CELL_{r}_{c}", cells[r, c].Value, at=f"%MD{SIZE * r + c}")
    net.output("SCORE", score.Total, at="%MD16")
    net.output("GAIN", control.LastGain, at="%MD17")
    net.output("MOVED", control.Moved, at="%QX0.0")
    net.output("BUSY", control.Busy, at="%QX0.1")
    net.output("PLACING", control.Placing, at="%QX0.2")
    net.output("GAME_OVER", over.Over, at="%QX0.3")
    net.output("WON", won.Won, at="%QX0.4")
    net.output("TAKEN", control.Taken, at="%QW0")
    net.output("EMPTY", empty, INT, at="%QW1")
    if best:
        top = net.add("best", MAX(), IN1=score.Total)
        net.connect(top.OUT, top.IN2, feedback=True)
        net.retain("best")
        net.output("BEST", top.OUT, at="%MD18")
    return net


__all__ = ["build", "CELLS", "cell_of"]
