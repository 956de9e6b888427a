"""The Python facade: play the Sudoku block program through the PLC's inputs and outputs.

:class:`SudokuGame` decides nothing: every method writes PLC inputs (the
event selector ``CMD``/``CMD_SEQ``, ``ROW``, ``COL``, ``DIGIT``,
``INIT_r_c``) and scans until the program has taken the event (``TAKEN`` =
``CMD_SEQ``); every property reads PLC outputs.

Bad input. ``tap``, ``enter`` and ``clear`` raise ValueError for a cell
outside 0..8 and ``enter`` for a digit outside 0..9; ``setup`` and the
constructor for a grid that is not 9 rows of 9 ints 0..9. The SCXML machine
itself *ignores* an invalid tap (``isValidPosition()``), and so does the
block program: :meth:`SudokuGame.submit` sends any event with any INT data
unchecked, as Qt's ``submitEvent`` would, e.g. ``g.submit("tap", x=9, y=-1)``
(ignored by the machine). Events in the wrong state (tap while idle, setup
while playing, ...) are not errors either: the machine ignores them, as the
SCXML does.
"""

from __future__ import annotations

from fbd import Network, Plc
from programs.common.facade import INT_MAX, INT_MIN, SEQ_WRAP, CommandFacade, check_int

from .control import EVENTS
from .groups import CELLS, SIZE, check_regions
from .move import UNDO_DEPTH
from .program import build


def check_grid(grid) -> list[list[int]]:
    """``grid`` as 9 lists of 9 ints 0..9 (0 = empty), or ValueError saying what is wrong."""
    try:
        rows = [list(row) for row in grid]
    except TypeError:
        raise ValueError(f"a grid is 9 rows of 9 values 0..9, not {grid!r}") from None
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError(f"a grid is 9 rows of 9 values; got {len(rows)} rows of "
                         f"{[len(row) for row in rows]} values")
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if type(v) is not int or not 0 <= v <= 9:
                raise ValueError(f"grid[{r}][{c}] = {v!r} is not a value 0..9 (0 = empty)")
    return rows


class SudokuGame(CommandFacade):
    """Qt's SCXML Sudoku, run as a block program on a simulated PLC.

    >>> g = SudokuGame(grid)            # doctest: +SKIP
    >>> g.start(); g.tap(0, 2); g.undo(); g.enter(4, 4, 7); g.clear(4, 4)
    >>> g.state, g.current, g.initial, g.conflicts

    ``grid``: 9 rows of 9 ints, 0 = empty: the initial grid the machine
    enters ``game`` with (Qt's ``setInitialValues``). ``regions``: None for
    classic Sudoku, or 9x9 region ids 0..8 for Jigsaw Sudoku. ``depth``: the
    undo stack's depth (see :data:`programs.sudoku.move.UNDO_DEPTH`). Other
    keywords go to :class:`fbd.Plc`. The constructor compiles the program
    (about half a second) and runs the first scan.

    Events (each writes its inputs and scans until the program took it, one
    or two scans): :meth:`setup`, :meth:`start`, :meth:`stop`, :meth:`tap`
    (x = row, y = column, as the Qt example), :meth:`undo`, and our
    additions :meth:`enter` and :meth:`clear` (both undoable). The handshake
    (:class:`~programs.common.facade.CommandFacade`) reads ``CMD_SEQ`` and
    ``TAKEN`` from the PLC, so another writer may send events in between.
    """

    COMMANDS = EVENTS
    WORD = "event"

    def __init__(self, grid, regions=None, *, depth: int = UNDO_DEPTH, **plc_options):
        rows = check_grid(grid)
        self.regions = check_regions(regions)
        self.network: Network = build(self.regions, depth)
        self.plc = Plc(self.network, **plc_options)
        self._write_grid(rows)
        self.plc.scan()   # entering "game": restart with the initial grid

    # -- events ----------------------------------------------------------------
    def setup(self, grid) -> None:
        """A new initial grid; taken only in ``idle`` (then ``unsolved``, restarted)."""
        self._write_grid(check_grid(grid))
        self.submit("setup")

    def start(self) -> None:
        self.submit("start")

    def stop(self) -> None:
        self.submit("stop")

    def tap(self, x: int, y: int) -> None:
        """Tap cell (row x, column y): in ``playing`` a cell empty in the initial
        grid goes up by one, 9 wraps to 0. ValueError outside 0..8 (use
        :meth:`submit` to send such a tap to the machine, which ignores it)."""
        self.submit("tap", x=check_int("x", x, 0, 8), y=check_int("y", y, 0, 8))

    def enter(self, row: int, col: int, digit: int) -> None:
        """Type ``digit`` (0..9, 0 empties) into a cell empty in the initial grid."""
        self.submit("enter", x=check_int("row", row, 0, 8), y=check_int("col", col, 0, 8),
                    digit=check_int("digit", digit, 0, 9))

    def clear(self, row: int, col: int) -> None:
        """Empty a cell that is empty in the initial grid (undoable)."""
        self.submit("clear", x=check_int("row", row, 0, 8), y=check_int("col", col, 0, 8))

    def undo(self) -> None:
        """Undo the last move; nothing on an empty stack."""
        self.submit("undo")

    def submit(self, event: str, *, x: int = 0, y: int = 0, digit: int = 0) -> int:
        """Send ``event`` with its data unchecked (any INT), as Qt's
        ``submitEvent``; scan until the program took it. Returns the scans
        from the post to the take (first waiting, scanning, for an event
        another writer left pending). ``submit("setup")`` sends the grid last
        written (:meth:`setup` writes one)."""
        return self._submit(event, self._data(x, y, digit))

    def post(self, event: str, *, x: int = 0, y: int = 0, digit: int = 0) -> int:
        """Write the inputs of ``event`` and return its CMD_SEQ at once, without
        scanning (for a GUI loop that runs the PLC itself). The program takes
        it on the next scan, or the one after if it took an event on the
        previous scan (``BUSY``). Raises
        :class:`~programs.common.facade.CommandPending` while the event before
        is not taken (``TAKEN`` differs from ``CMD_SEQ``: :attr:`pending`)."""
        return self._post(event, self._data(x, y, digit))

    def _data(self, x, y, digit) -> dict:
        return {name: check_int(name, v, INT_MIN, INT_MAX)
                for name, v in (("ROW", x), ("COL", y), ("DIGIT", digit))}

    def _write_grid(self, rows) -> None:
        for r, c in CELLS:
            self.plc.set(f"INIT_{r}_{c}", rows[r][c])

    # -- reading the PLC ---------------------------------------------------------
    @property
    def state(self) -> str:
        """The active leaf state: ``"playing"``, ``"solved"`` or ``"unsolved"``."""
        get = self.plc.get
        if get("PLAYING"):
            return "playing"
        return "solved" if get("SOLVED") else "unsolved"

    def _grid(self, prefix: str) -> list[list]:
        get = self.plc.get
        return [[get(f"{prefix}_{r}_{c}") for c in range(SIZE)] for r in range(SIZE)]

    @property
    def current(self) -> list[list[int]]:
        """The grid as played (``CELL_r_c``)."""
        return self._grid("CELL")

    @property
    def initial(self) -> list[list[int]]:
        """The initial grid (``GIVEN_r_c``)."""
        return self._grid("GIVEN")

    @property
    def conflicts(self) -> list[list[bool]]:
        """TRUE where a cell's digit is repeated in one of its groups (``CONFLICT_r_c``)."""
        return self._grid("CONFLICT")

    @property
    def undo_count(self) -> int:
        return self.plc.get("UNDO_COUNT")

    @property
    def overflow(self) -> bool:
        """The undo stack refused the last move (it was full): the move was not made."""
        return self.plc.get("OVERFLOW")

    @property
    def moved(self) -> bool:
        """The last event was a move that changed (or rewrote) a cell."""
        return self.plc.get("MOVED")

    def __repr__(self) -> str:
        kind = "classic" if self.regions is None else "jigsaw"
        return f"<SudokuGame {kind}: {self.state}, scan {self.plc.scans}>"


__all__ = ["SudokuGame", "check_grid", "SEQ_WRAP"]
