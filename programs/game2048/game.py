"""The Python facade: play the block program through the PLC's inputs and outputs.

Nothing here decides a move, a merge, a spawn or game over: :class:`Game2048`
writes the selector inputs (``CMD``, ``CMD_SEQ``), runs scans and reads
outputs and cell memories. :meth:`Game2048.load_board` writes the 16 cells'
memories with the runtime's write API, as a debugger's "write value" would.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from fbd import FbdError, Network, Plc
from programs.common.facade import CommandFacade

from .control import COMMANDS
from .order import DIRECTIONS, SIZE
from .placement import PLACEMENTS
from .processing import VARIANTS
from .program import build

#: The largest tile load_board accepts: merges stay within DINT, and so does the score.
MAX_TILE = 1 << 24
_TILES = frozenset([0] + [1 << k for k in range(1, MAX_TILE.bit_length())])
#: No command of this program takes this many scans; more means a stuck PLC.
MAX_SCANS = 100_000


@dataclass(frozen=True)
class PressResult:
    """What one press did, read from the PLC.

    ``moved``: the press changed the board (a move), so a tile was placed;
    ``score_gain``: the sum of its merges; ``scans``: scans from the one that
    took the command to the one that finished it (the lock released), both
    included; ``processing_scans``: of those, the scans until the cells held
    the processed board (before the new tile); ``before_spawn``: that board;
    ``after``: the board when the command finished. For a press that
    changes nothing, ``before_spawn`` is ``after`` and ``processing_scans`` is
    ``scans``.
    """
    direction: str
    moved: bool
    score_gain: int
    scans: int
    processing_scans: int
    before_spawn: tuple
    after: tuple


class Game2048(CommandFacade):
    """The 2048 block program on a simulated PLC.

    >>> g = Game2048(seed=1, processing="single_pass", placement="smart")
    >>> g.start()                      # command 5; scans until both tiles are placed
    >>> r = g.press("left")            # scans until the command completes
    >>> r.moved, r.score_gain, r.scans, r.before_spawn, r.after
    >>> g.board, g.score, g.game_over, g.won, g.busy

    ``processing``: ``"single_pass"`` or ``"multi_scan"``; ``placement``:
    ``"smart"`` or ``"article"`` (see :func:`programs.game2048.build`).
    ``seed``: an integer; the program's *Random* macro adds ``1000 + (seed mod
    10**6) / 1000`` seconds to the PLC clock it reads (the clock itself
    starts at 0), so the same seed, the same commands on the same scans give
    the same game, bit for bit. ``seed=None`` draws one from the operating
    system (kept in :attr:`seed`). ``best``: the program keeps the best
    score in its RETAIN variable ``BEST`` (:attr:`best`). Other keywords go to
    :class:`fbd.Plc` (``cycle``, default 5 ms; ``realtime``; ``speed``).

    **Blocking use** (tests, scripts): :meth:`start`, :meth:`press`,
    :meth:`reset` scan until their command has finished (first waiting, with
    :meth:`wait`, for a command already in progress). A press that changes
    nothing finishes on its second scan: the lock stays one scan after its
    processing, so two commands never arrive on neighbouring scans.
    :meth:`load_board` writes any position into the cells.

    **Real-time use** (an HMI): :meth:`command` only writes the PLC inputs of
    a command (``"up"``, ``"right"``, ``"down"``, ``"left"``, ``"start"``,
    ``"reset"``) and returns; the GUI loop runs the PLC itself
    (``g.plc.scan()``, ``g.plc.run_for(...)``) and reads :attr:`board`,
    :attr:`score`, :attr:`game_over`, :attr:`won`, :attr:`busy` (a command in
    progress: the program takes no command until it is FALSE, as the
    article's lock does), :attr:`moved` and :attr:`last_gain`. A command
    takes effect on the next scan. :attr:`plc` is the running PLC, for the
    debugger.

    **Other writers.** The facade reads ``CMD_SEQ`` and ``TAKEN`` from the PLC
    (:class:`~programs.common.facade.CommandFacade`), so a SCADA client
    serving the same PLC over Modbus (``fbd serve``, the HMI's *Serve over
    Modbus TCP*) may send commands in between: the facade never reuses the
    client's number nor overwrites a command the program has not taken.

    The PLC's interface (also for ``fbd run programs.game2048:build``):
    inputs ``CMD`` (the selector: 1 up, 2 right, 3 down, 4 left, 5 start, 6
    reset) and ``CMD_SEQ`` (a command is issued on the scan where it changes);
    outputs ``CELL_r_c``, ``SCORE``, ``GAIN``, ``MOVED``, ``BUSY``,
    ``PLACING``, ``GAME_OVER``, ``WON``, ``TAKEN``, ``EMPTY`` (see
    :mod:`programs.game2048.program`). Outputs are published at the end of
    a scan; :attr:`board` reads the cells' memories, so it is current right
    after :meth:`load_board` too.
    """

    COMMANDS = COMMANDS
    #: One scan: the busy lock opens the scan after a command finishes, and
    #: :meth:`submit` waits for that before posting.
    TAKE_SCANS = 1
    READY_SCANS = MAX_SCANS

    def __init__(self, seed: int | None = 0, processing: str = "single_pass",
                 placement: str = "smart", best: bool = False, **plc_options):
        if processing not in VARIANTS:
            raise ValueError(f"unknown processing {processing!r}; choose one of "
                             f"{', '.join(VARIANTS)}")
        if placement not in PLACEMENTS:
            raise ValueError(f"unknown placement {placement!r}; choose one of "
                             f"{', '.join(PLACEMENTS)}")
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "big") % 1_000_000
        self.seed = seed
        self.processing = processing
        self.placement = placement
        self.network: Network = build(processing, placement, seed, best=best)
        self.plc = Plc(self.network, **plc_options)
        self._cells = [[f"cell_{r}_{c}.memory.OUT" for c in range(SIZE)] for r in range(SIZE)]

    # -- reading the PLC -------------------------------------------------------
    @property
    def board(self) -> list[list[int]]:
        """board[row][col] from the 16 cell memories; 0 is empty."""
        get = self.plc.get
        return [[get(path) for path in row] for row in self._cells]

    def _snapshot(self) -> tuple:
        get = self.plc.get
        return tuple([tuple([get(path) for path in row]) for row in self._cells])

    @property
    def score(self) -> int:
        return self.plc.get("SCORE")

    @property
    def best(self) -> int:
        """The best score the program keeps (``best=True``: its RETAIN variable BEST)."""
        return self.plc.get("BEST")

    @property
    def game_over(self) -> bool:
        return self.plc.get("GAME_OVER")

    @property
    def won(self) -> bool:
        return self.plc.get("WON")

    @property
    def busy(self) -> bool:
        return self.plc.get("BUSY")

    @property
    def moved(self) -> bool:
        """The last command taken was a move."""
        return self.plc.get("MOVED")

    @property
    def last_gain(self) -> int:
        """The score the last command earned."""
        return self.plc.get("GAIN")

    @property
    def ready(self) -> bool:
        """No command in progress (:attr:`busy`) and none written and not taken yet."""
        return not self.plc.get("BUSY") and not self.pending

    # -- real-time use -----------------------------------------------------------
    def command(self, name: str) -> bool:
        """Write the selector inputs for ``name`` and return at once (no scan):
        True when written (the program takes it on the next scan), False when
        the PLC is not :attr:`ready` (a command in progress, or one not yet
        taken, maybe another writer's), in which case nothing is written: the
        press is ignored, as the article's lock ignores it."""
        self._code(name)           # an unknown name is an error, ready or not
        if not self.ready:
            return False
        self._post(name, {})
        return True

    # -- blocking use --------------------------------------------------------------
    def start(self) -> int:
        """Start a new game (command 5) and scan until both tiles are placed.
        Returns the scans it took."""
        return self._run("start")[0]

    def reset(self) -> int:
        """Reset (command 6): an empty board and a zero score. Returns the scans it took."""
        return self._run("reset")[0]

    def press(self, direction: str) -> PressResult:
        """Press an arrow and scan until the command has completed (the tile
        placed, or at once when nothing moved)."""
        if direction not in DIRECTIONS:
            raise ValueError(f"unknown direction {direction!r}; choose one of "
                             f"{', '.join(DIRECTIONS)}")
        scans, processing, before = self._run(direction)
        after = self._snapshot()
        get = self.plc.get
        return PressResult(direction, get("MOVED"), get("GAIN"), scans, processing,
                           after if before is None else before, after)

    def _run(self, name: str):
        """Issue ``name`` and scan until the program has finished it: returns
        (scans, scans until the board was processed, that board or None)."""
        get = self.plc.get
        self._submit(name, {})     # waits for the lock, posts, takes it in one scan
        scans, processing, before = 1, None, None
        while True:
            if processing is None and get("PLACING"):
                processing, before = scans, self._snapshot()
            if not get("BUSY"):
                return scans, processing if processing is not None else scans, before
            if scans >= MAX_SCANS:
                raise FbdError(f"command {name!r} still in progress after {scans} scans")
            self.plc.scan()
            scans += 1

    def wait(self) -> int:
        """Scan until no command is in progress or pending; returns the scans it took."""
        return self.wait_ready(MAX_SCANS)

    # -- positions -----------------------------------------------------------------
    def load_board(self, grid, settle: bool = True) -> None:
        """Write ``grid`` (4 rows of 4 ints: 0 or a power of two from 2 to
        2**24) into the 16 cell memories with the runtime's write API.

        The score is kept. With ``settle`` (the default) one scan follows, so
        the outputs (``game_over``, ``won``, ``CELL_r_c``) describe the new
        board; :attr:`board` is current either way. Refused while a command
        is in progress.
        """
        rows = check_board(grid)
        if self.busy:
            raise FbdError("a command is in progress; load a board when the PLC is not busy "
                           "(Game2048.wait())")
        write = self.plc.write
        for paths, row in zip(self._cells, rows):
            for path, value in zip(paths, row):
                write(path, value)
        if settle:
            self.plc.scan()

    def __repr__(self) -> str:
        return (f"<Game2048 {self.processing}, {self.placement} placement, seed {self.seed}: "
                f"score {self.score}, scan {self.plc.scans}>")


def check_board(grid) -> list[list[int]]:
    """``grid`` as a list of 4 lists of 4 tiles, or ValueError saying what is wrong."""
    try:
        rows = [list(row) for row in grid]
    except TypeError:
        raise ValueError(f"a board is 4 rows of 4 values, not {grid!r}") from None
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        shape = [len(row) for row in rows]
        raise ValueError(f"a board is 4 rows of 4 values; got {len(rows)} rows of "
                         f"{shape} values")
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if type(v) is not int or v not in _TILES:
                if type(v) is not int:   # bool too: True is not a tile
                    raise ValueError(f"board[{r}][{c}] = {v!r} is not an integer tile")
                raise ValueError(f"board[{r}][{c}] = {v} is not a tile: 0 (empty) or a power "
                                 f"of two from 2 to {MAX_TILE} (2**{MAX_TILE.bit_length() - 1})")
    return rows

