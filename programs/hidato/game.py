"""The Python facade: play the Hidato block program through the PLC's inputs and outputs.

:class:`HidatoGame` decides nothing: every method writes PLC inputs (the
event selector ``CMD``/``CMD_SEQ``, ``ROW``, ``COL``, ``NUMBER``,
``INIT_r_c``) and scans until the program has taken the event (``TAKEN`` =
``CMD_SEQ``); every property reads PLC outputs (holes, fixed by the shape
the program was built for, read as -1).

Bad input raises at once: ``enter``/``clear`` with a row or column outside
the board, ``enter`` with a number outside first..last, ``setup`` with a
board of another shape (holes, first, last: build a new game for it).
Moves on a hole or a given and events in the wrong state are not errors:
the program ignores them, as Sudoku's does. :meth:`HidatoGame.post` sends
an event without scanning, for a GUI that runs the PLC itself.
"""

from __future__ import annotations

from fbd import Network, Plc
from programs.common.facade import INT_MAX, INT_MIN, SEQ_WRAP, CommandFacade, check_int

from .board import Board
from .control import EVENTS
from .move import UNDO_DEPTH
from .program import build, shape_of
from .rules import board_cells


class HidatoGame(CommandFacade):
    """Hidato run as a block program on a simulated PLC.

    >>> g = HidatoGame(board)            # doctest: +SKIP
    >>> g.start(); g.enter(0, 0, 2); g.undo(); g.clear(0, 0); g.stop()
    >>> g.state, g.current, g.givens, g.conflicts

    ``board``: a :class:`~programs.hidato.Board` (or rows for
    :meth:`Board.from_rows`); the program is built for its shape and enters
    ``game`` with its givens. ``depth``: the undo stacks' depth. Other
    keywords go to :class:`fbd.Plc`. The handshake
    (:class:`~programs.common.facade.CommandFacade`) reads ``CMD_SEQ`` and
    ``TAKEN`` from the PLC, so another writer may send events in between.
    """

    COMMANDS = EVENTS
    WORD = "event"

    def __init__(self, board, *, depth: int = UNDO_DEPTH, **plc_options):
        board = self._board(board)
        self.shape = shape_of(board)
        self.rows, self.cols = self.shape["rows"], self.shape["cols"]
        self.first, self.last = self.shape["first"], self.shape["last"]
        self.cells = board_cells(self.rows, self.cols, self.shape["holes"])
        self.network: Network = build(**self.shape, depth=depth)
        self.plc = Plc(self.network, **plc_options)
        self._write_board(board)
        self.plc.scan()   # entering "game": restart with the givens

    @staticmethod
    def _board(board) -> Board:
        return board if isinstance(board, Board) else Board.from_rows(board)

    # -- events ----------------------------------------------------------------
    def setup(self, board) -> None:
        """New givens (same shape); taken only in ``idle`` (then ``unsolved``, restarted)."""
        board = self._board(board)
        if shape_of(board) != self.shape:
            raise ValueError(f"setup needs a board of this game's shape {self.shape}, got "
                             f"{shape_of(board)}; make a new HidatoGame for it")
        self._write_board(board)
        self.submit("setup")

    def start(self) -> None:
        self.submit("start")

    def stop(self) -> None:
        self.submit("stop")

    def enter(self, row: int, col: int, number: int) -> None:
        """Write ``number`` (first..last) into a cell that is empty in the givens (undoable)."""
        self.submit("enter", *self._cell(row, col),
                    number=check_int("number", number, self.first, self.last))

    def clear(self, row: int, col: int) -> None:
        """Empty a cell that is empty in the givens (undoable)."""
        self.submit("clear", *self._cell(row, col))

    def undo(self) -> None:
        """Undo the last enter or clear; nothing on an empty stack."""
        self.submit("undo")

    def _cell(self, row, col) -> tuple[int, int]:
        return (check_int("row", row, 0, self.rows - 1), check_int("col", col, 0, self.cols - 1))

    def submit(self, event: str, row: int = 0, col: int = 0, *, number: int = 0) -> int:
        """Send ``event`` with its data unchecked (any INT) and scan until the
        program took it. Returns the scans from the post to the take.
        ``submit("setup")`` sends the givens last written."""
        return self._submit(event, self._data(row, col, number))

    def post(self, event: str, row: int = 0, col: int = 0, *, number: int = 0) -> int:
        """Write the inputs of ``event`` and return its CMD_SEQ at once, without
        scanning (for a GUI loop that runs the PLC itself). Post the next event
        only once :attr:`busy` is False; before, this raises
        :class:`~programs.common.facade.CommandPending`."""
        return self._post(event, self._data(row, col, number))

    @staticmethod
    def _data(row, col, number) -> dict:
        return {name: check_int(name, v, INT_MIN, INT_MAX)
                for name, v in (("ROW", row), ("COL", col), ("NUMBER", number))}

    @property
    def busy(self) -> bool:
        """An event has been posted (by anyone) and not taken yet (``TAKEN``
        differs from ``CMD_SEQ``); the same as :attr:`pending`."""
        return self.pending

    def _write_board(self, board: Board) -> None:
        for r, c in self.cells:
            self.plc.set(f"INIT_{r}_{c}", board[r, c])

    # -- reading the PLC ---------------------------------------------------------
    @property
    def state(self) -> str:
        """The active leaf state: ``"playing"``, ``"solved"`` or ``"unsolved"``."""
        get = self.plc.get
        if get("PLAYING"):
            return "playing"
        return "solved" if get("SOLVED") else "unsolved"

    def _grid(self, prefix: str, hole) -> list[list]:
        get = self.plc.get
        cells = set(self.cells)
        return [[get(f"{prefix}_{r}_{c}") if (r, c) in cells else hole for c in range(self.cols)]
                for r in range(self.rows)]

    @property
    def current(self) -> list[list[int]]:
        """The board as played (``CELL_r_c``; -1 for a hole, 0 empty)."""
        return self._grid("CELL", -1)

    @property
    def givens(self) -> list[list[int]]:
        """The givens (``GIVEN_r_c``; -1 for a hole, 0 empty)."""
        return self._grid("GIVEN", -1)

    @property
    def conflicts(self) -> list[list[bool]]:
        """TRUE where a number is duplicated or its placed successor or
        predecessor is not next to it (``CONFLICT_r_c``; False for holes)."""
        return self._grid("CONFLICT", False)

    @property
    def complete(self) -> bool:
        """The board as played is a solution (``COMPLETE``), whatever the state."""
        return self.plc.get("COMPLETE")

    @property
    def undo_count(self) -> int:
        return self.plc.get("UNDO_COUNT")

    @property
    def overflow(self) -> bool:
        return self.plc.get("OVERFLOW")

    @property
    def moved(self) -> bool:
        return self.plc.get("MOVED")

    def __repr__(self) -> str:
        return (f"<HidatoGame {self.rows}x{self.cols} {self.first}..{self.last}: {self.state}, "
                f"scan {self.plc.scans}>")


__all__ = ["HidatoGame", "SEQ_WRAP"]
