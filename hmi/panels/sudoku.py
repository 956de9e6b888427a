"""The Sudoku and Jigsaw Sudoku panels: Qt's "SCXML Sudoku" GUI, played by the block program.

What the panel does and does not do (the game logic lives in the blocks):

- it writes only PLC inputs, through the facade's non-blocking
  :meth:`SudokuGame.post` (and, for ``setup``, the ``INIT_r_c`` grid inputs):
  a click on a cell *taps* it (as in the Qt example: the value goes up by one,
  9 wraps to 0), digits 1-9 *enter* a digit in the selected cell, 0, Delete and
  Backspace *clear* it, *Start*/*Stop*, *Undo*, and choosing a grid sends
  *setup*. Events are queued and posted one at a time: the next only once the
  PLC has taken the previous one (``TAKEN``), as the facade requires;
- it reads only PLC outputs (``CELL``, ``GIVEN``, ``CONFLICT``, ``PLAYING``,
  ``SOLVED``, ``UNDO_COUNT``) in :meth:`SudokuPanel.refresh`, which the shell
  calls after each tick of its real-time loop. The PLC decides: a tap while
  idle, or an entry into a given cell, goes to the PLC, which ignores it;
- its own state is what a screen has: the selected cell, the grid chooser, and
  the region colouring (from the region map, a parameter of the program).

The group map is a parameter of the block program, so a jigsaw grid with
another region layout builds a new :class:`SudokuGame` (the shell follows
:attr:`Panel.plc`); a grid with the same layout is sent with ``setup``.
"""

from __future__ import annotations

import logging
from collections import deque

from PyQt6.QtCore import QPointF, QRectF, QSize, Qt, pyqtSignal
from PyQt6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPalette, QPen
from PyQt6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from programs.sudoku import (
    SudokuGame,
    bundled_puzzles,
    check_grid,
    four_colouring,
    generate,
    read_grid,
)

from ..background import BackgroundJob
from ..panel import Panel, plc_status

__all__ = ["SudokuPanel", "JigsawPanel", "BoardView", "REGION_COLOURS", "DIFFICULTIES"]

log = logging.getLogger("hmi")

SIZE = 9
DIFFICULTIES = ("easy", "medium", "hard")

# -- the look ---------------------------------------------------------------------------
PAGE = "#f4f1ea"
INK = "#1f2430"           # given digits, thick lines
PLAYED = "#1c5fb8"        # the player's digits
THIN = "#a9acb3"          # lines between cells
CELL = "#ffffff"          # classic cells
GIVEN_BG = "#e9e6df"      # classic given cells
CONFLICT = "#d0101c"      # a repeated digit
CONFLICT_BG = QColor(240, 50, 70, 60)
SELECT_BG = QColor(255, 214, 64, 120)
SELECT_LINE = "#e0a100"
SOLVED = "#1e8c3a"
#: the 4 soft pastels of a jigsaw's region colouring (colour 0..3 of four_colouring)
REGION_COLOURS = ("#cfe4fb", "#fde0c5", "#d6f0cf", "#eadcf6")
GIVEN_SHADE = 0.93        # given cells of a jigsaw: their region colour, a little darker
FAMILIES = ["Helvetica Neue", "Arial", "DejaVu Sans", "sans-serif"]


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setFamilies(FAMILIES)
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def _empty() -> list[list]:
    return [[0] * SIZE for _ in range(SIZE)]


# -- the board --------------------------------------------------------------------------
class BoardView(QWidget):
    """The 9x9 field, painted as one widget from plain grids (current, initial,
    conflicts) and the region map. A click on a cell emits :attr:`clicked`
    (row, column); a click on a given cell does nothing (given cells are
    disabled, as the Qt example's buttons)."""

    clicked = pyqtSignal(int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.current = _empty()
        self.initial = _empty()
        self.conflicts = [[False] * SIZE for _ in range(SIZE)]
        self.regions: list[list[int]] | None = None
        self.colours: dict[int, int] = {}
        self.selected = (0, 0)
        self.solved = False
        self.setMinimumSize(300, 300)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:
        return QSize(480, 480)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return width

    # -- what is shown ----------------------------------------------------------------
    def set_regions(self, regions) -> None:
        self.regions = [list(row) for row in regions] if regions is not None else None
        self.colours = four_colouring(self.regions) if self.regions is not None else {}
        self.update()

    def show_grids(self, current, initial, conflicts, solved: bool) -> None:
        self.current = [list(row) for row in current]
        self.initial = [list(row) for row in initial]
        self.conflicts = [[bool(v) for v in row] for row in conflicts]
        self.solved = solved
        self.update()

    def select(self, row: int, col: int) -> None:
        self.selected = (row % SIZE, col % SIZE)
        self.update()

    def is_given(self, row: int, col: int) -> bool:
        return self.initial[row][col] != 0

    # -- geometry ---------------------------------------------------------------------
    def field(self) -> QRectF:
        """The square the grid is painted in (centred, with room for the outer line)."""
        side = min(self.width(), self.height()) - 8
        return QRectF((self.width() - side) / 2, (self.height() - side) / 2, side, side)

    def cell_rect(self, row: int, col: int) -> QRectF:
        f = self.field()
        k = f.width() / SIZE
        return QRectF(f.x() + col * k, f.y() + row * k, k, k)

    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        f = self.field()
        if not f.contains(pos):
            return None
        k = f.width() / SIZE
        row = min(SIZE - 1, int((pos.y() - f.y()) // k))
        col = min(SIZE - 1, int((pos.x() - f.x()) // k))
        return row, col

    def mousePressEvent(self, event) -> None:
        cell = self.cell_at(event.position())
        if cell is None or event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self.select(*cell)
        if not self.is_given(*cell):
            self.clicked.emit(*cell)
        event.accept()

    # -- painting ---------------------------------------------------------------------
    def background(self, row: int, col: int) -> QColor:
        given = self.is_given(row, col)
        if self.regions is None:
            return QColor(GIVEN_BG if given else CELL)
        colour = QColor(REGION_COLOURS[self.colours.get(self.regions[row][col], 0) % 4])
        if given:
            colour = QColor.fromHsvF(colour.hsvHueF(), min(1.0, colour.hsvSaturationF() * 1.35),
                                     colour.valueF() * GIVEN_SHADE)
        return colour

    def _thick(self, r1: int, c1: int, r2: int, c2: int) -> bool:
        """Whether the line between neighbours (r1, c1) and (r2, c2) is a group border."""
        if self.regions is None:
            return (r1 != r2 and max(r1, r2) % 3 == 0) or (c1 != c2 and max(c1, c2) % 3 == 0)
        return self.regions[r1][c1] != self.regions[r2][c2]

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        f = self.field()
        k = f.width() / SIZE
        painter.setPen(Qt.PenStyle.NoPen)
        for r in range(SIZE):
            for c in range(SIZE):
                rect = self.cell_rect(r, c)
                painter.setBrush(self.background(r, c))
                painter.drawRect(rect)
                if (r, c) == self.selected:
                    painter.setBrush(SELECT_BG)
                    painter.drawRect(rect)
                if self.conflicts[r][c]:
                    painter.setBrush(CONFLICT_BG)
                    painter.drawRect(rect)

        thin = QPen(QColor(THIN), max(1.0, k / 45))
        thick = QPen(QColor(INK), max(2.0, k / 16))
        thick.setCapStyle(Qt.PenCapStyle.SquareCap)
        # thin lines first, then the group borders over them
        for pen, want in ((thin, False), (thick, True)):
            painter.setPen(pen)
            for r in range(SIZE):
                for c in range(SIZE):
                    x, y = f.x() + c * k, f.y() + r * k
                    if c + 1 < SIZE and self._thick(r, c, r, c + 1) == want:
                        painter.drawLine(QPointF(x + k, y), QPointF(x + k, y + k))
                    if r + 1 < SIZE and self._thick(r, c, r + 1, c) == want:
                        painter.drawLine(QPointF(x, y + k), QPointF(x + k, y + k))
        outline = QPen(QColor(SOLVED if self.solved else INK), max(3.0, k / 11))
        outline.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(outline)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(f)

        if self.selected is not None:
            r, c = self.selected
            pen = QPen(QColor(SELECT_LINE), max(2.0, k / 20))
            painter.setPen(pen)
            inset = pen.widthF() / 2 + max(1.0, k / 25)
            painter.drawRect(self.cell_rect(r, c).adjusted(inset, inset, -inset, -inset))

        # a red frame inside conflicting cells (the tint alone is faint on the pastels)
        conflict_pen = QPen(QColor(CONFLICT), max(1.5, k / 30))
        painter.setPen(conflict_pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inset = max(3.0, k / 11)
        for r in range(SIZE):
            for c in range(SIZE):
                if self.conflicts[r][c] and (r, c) != self.selected:
                    painter.drawRect(self.cell_rect(r, c).adjusted(inset, inset, -inset, -inset))

        given_font, played_font = _font(k * 0.58, bold=True), _font(k * 0.58)
        for r in range(SIZE):
            for c in range(SIZE):
                value = self.current[r][c]
                if not value:
                    continue
                given = self.is_given(r, c)
                painter.setFont(given_font if given else played_font)
                colour = CONFLICT if self.conflicts[r][c] else INK if given else PLAYED
                painter.setPen(QColor(colour))
                painter.drawText(self.cell_rect(r, c), Qt.AlignmentFlag.AlignCenter, str(value))
        painter.end()


def _button(text: str) -> QPushButton:
    button = QPushButton(text)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # the keys belong to the board
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFont(_font(15, bold=True))
    button.setMinimumWidth(84)
    button.setStyleSheet(
        "QPushButton { background: #3d5a80; color: white; border: none; border-radius: 4px;"
        " padding: 7px 16px; }"
        "QPushButton:pressed { background: #2c4463; }"
        "QPushButton:disabled { background: #b8bec8; color: #eef0f3; }")
    return button


# -- keys -----------------------------------------------------------------------------------
K = Qt.Key
MOVES = {K.Key_Up: (-1, 0), K.Key_Down: (1, 0), K.Key_Left: (0, -1), K.Key_Right: (0, 1)}
DIGITS = {getattr(K, f"Key_{d}"): d for d in range(1, 10)}
CLEAR_KEYS = {K.Key_0, K.Key_Delete, K.Key_Backspace}


# -- the panel ----------------------------------------------------------------------------------
class SudokuPanel(Panel):
    """Classic Sudoku played by the block program in :mod:`programs.sudoku`.

    ``grid`` and ``regions`` start the panel on that grid (default: the first
    bundled grid of the panel's kind); ``seed`` seeds the "New: ..." puzzles
    (None: a random puzzle each time).
    """

    title = "Sudoku"
    KIND = "classic"

    def __init__(self, parent=None, *, grid=None, regions=None, seed: int | None = None):
        super().__init__(parent)
        self.game: SudokuGame | None = None
        self.seed = seed
        self._queue: deque = deque()      # events waiting to be posted
        self._pending: int | None = None  # CMD_SEQ posted, not yet taken
        self._shown: tuple | None = None
        self._generated = 0
        self._generator = BackgroundJob(self)
        self._generator.finished.connect(self._add_generated)
        self._generator.failed.connect(
            lambda error: self.message.emit(f"could not generate a grid: {error}"))
        self.puzzles = [p for p in bundled_puzzles() if p["kind"] == self.KIND]
        self._build()
        self._build_menu()
        if grid is None:
            grid, regions = read_grid(self.puzzles[0]["path"])
            name = self.puzzles[0]["name"]
        else:
            name = "grid given"
        self._new_game(check_grid(grid), regions, name)

    # -- the facade -----------------------------------------------------------------------
    @property
    def plc(self):
        return self.game.plc if self.game is not None else None

    @property
    def jigsaw(self) -> bool:
        return self.KIND == "jigsaw"

    def send(self, event: str, **data) -> None:
        """Queue an event for the PLC (non-blocking): start, stop, tap(x, y),
        enter(x, y, digit), clear(x, y), undo, setup(grid=...)."""
        self._queue.append((event, data))
        self._pump()

    @property
    def idle(self) -> bool:
        """No event is waiting to be posted or taken."""
        return not self._queue and self._pending is None

    def _pump(self) -> None:
        """Post the next queued event once the PLC took the previous one."""
        g = self.game
        if self._pending is not None:
            if g.taken != self._pending:
                return
            self._pending = None
        if not self._queue or g.pending:   # g.pending: another writer's event, not taken yet
            return
        event, data = self._queue.popleft()
        grid = data.pop("grid", None)
        if grid is not None:     # setup: the new grid goes on the INIT_r_c inputs
            for r in range(SIZE):
                for c in range(SIZE):
                    g.plc.set(f"INIT_{r}_{c}", grid[r][c])
        self._pending = g.post(event, **data)

    def _new_game(self, grid, regions, name: str) -> None:
        """A new SudokuGame (a new program: another region layout)."""
        self.game = SudokuGame(grid, regions)
        self._queue.clear()
        self._pending = None
        self._shown = None
        self.board_view.set_regions(regions)
        self.message.emit(f"{self.KIND}: {name}")
        self.refresh()

    def load(self, grid, regions=None, name: str = "grid") -> None:
        """Play ``grid``: sent with ``setup`` (taken by the PLC only while idle), or,
        for a jigsaw of another region layout, on a new program."""
        grid = check_grid(grid)
        if self.jigsaw and regions is not None and [list(r) for r in regions] != self.game.regions:
            self._new_game(grid, regions, name)
            return
        self.send("setup", grid=grid)
        self.message.emit(f"setup: {name}")

    # -- building the widgets -------------------------------------------------------------------
    def _build(self) -> None:
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(PAGE))
        self.setPalette(palette)
        self.setAutoFillBackground(True)

        heading = QLabel("Jigsaw Sudoku" if self.jigsaw else "Sudoku")
        heading.setFont(_font(34, bold=True))
        heading.setStyleSheet(f"color: {INK};")
        self.state_label = QLabel("unsolved")
        self.state_label.setFont(_font(22, bold=True))
        self.state_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        top = QHBoxLayout()
        top.addWidget(heading)
        top.addStretch(1)
        top.addWidget(self.state_label)

        self.chooser = QComboBox()
        self.chooser.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.chooser.setFont(_font(14))
        self.chooser.setToolTip("A bundled grid, or a new one (only while not playing)")
        for p in self.puzzles:
            kind, difficulty, number = p["name"].split("-")
            self.chooser.addItem(f"{difficulty} {number}  ·  {p['givens']} givens", p)
        self.chooser.insertSeparator(self.chooser.count())
        for difficulty in DIFFICULTIES:
            self.chooser.addItem(f"New: {difficulty}", difficulty)
        self.chooser.activated.connect(self.choose)
        self.start_button = _button("Start")
        self.start_button.setToolTip("Start or stop playing (PLC events start / stop)")
        self.start_button.clicked.connect(self.start_stop)
        self.undo_button = _button("Undo")
        self.undo_button.setToolTip("Undo the last move (PLC event undo)")
        self.undo_button.clicked.connect(lambda: self.send("undo"))
        controls = QHBoxLayout()
        controls.addWidget(self.chooser, 1)
        controls.addWidget(self.start_button)
        controls.addWidget(self.undo_button)

        self.board_view = BoardView()
        self.board_view.clicked.connect(lambda r, c: self.send("tap", x=r, y=c))

        hint = QLabel("Click a cell to count it up (9 → empty), or select it and type 1-9; "
                      "0, Delete or Backspace empties it. Arrow keys move.")
        hint.setWordWrap(True)
        hint.setFont(_font(12))
        hint.setStyleSheet("color: #5b6070;")

        self.info_line = QLabel()
        self.info_line.setFont(_font(13, bold=True))
        self.info_line.setStyleSheet(f"color: {INK};")
        self.info_line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status_line = QLabel()
        self.status_line.setFont(_font(11))
        self.status_line.setStyleSheet("color: #5b6070;")
        self.status_line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 14, 24, 10)
        layout.setSpacing(10)
        layout.addLayout(top)
        layout.addLayout(controls)
        layout.addWidget(self.board_view, 1)
        layout.addWidget(self.info_line)
        layout.addWidget(hint)
        layout.addWidget(self.status_line)

    def _build_menu(self) -> None:
        menu = QMenu("&Game", self)
        self.start_action = menu.addAction("&Start / Stop", self.start_stop)
        self.start_action.setShortcut("F2")
        self.undo_action = menu.addAction("&Undo", lambda: self.send("undo"))
        self.undo_action.setShortcut("Ctrl+Z")
        menu.addSeparator()
        for difficulty in DIFFICULTIES:
            menu.addAction(f"New {difficulty} grid",
                           lambda d=difficulty: self.new_puzzle(d))
        self._menu = menu

    def menus(self) -> list[QMenu]:
        return [self._menu]

    # -- input ------------------------------------------------------------------------------
    def start_stop(self) -> None:
        self.send("stop" if self.game.state == "playing" else "start")
        self.setFocus()

    def choose(self, index: int) -> None:
        """The chooser's entry ``index`` was picked: a bundled grid or a new one."""
        data = self.chooser.itemData(index)
        if isinstance(data, str):
            self.new_puzzle(data)
        elif isinstance(data, dict):
            grid, regions = data.get("grid"), data.get("regions")
            if grid is None:
                grid, regions = read_grid(data["path"])
            self.load(grid, regions, data["name"])
        self.setFocus()

    def new_puzzle(self, difficulty: str) -> None:
        """Generate a new grid of ``difficulty`` in the background (the window and
        the PLC stay live; see :attr:`generating`), then add it to the chooser
        and play it."""
        if self.game.state == "playing":
            self.message.emit("stop the game to choose another grid")
            return
        if self._generator.busy:
            self.message.emit("a new grid is still being generated")
            return
        seed = None if self.seed is None else self.seed + self._generated
        self._generated += 1
        self._generating = f"new {difficulty} #{self._generated}"
        self._generator.start(generate, difficulty, jigsaw=self.jigsaw, seed=seed)
        self.message.emit(f"generating a {difficulty} grid with a unique solution…")

    @property
    def generating(self) -> bool:
        """A new grid is being generated."""
        return self._generator.busy

    def _add_generated(self, result) -> None:
        grid, regions = result
        name = self._generating
        givens = sum(v != 0 for row in grid for v in row)
        self.chooser.insertItem(0, f"{name}  ·  {givens} givens",
                                {"name": name, "grid": grid, "regions": regions})
        if self.game.state == "playing":  # started meanwhile: the game is not taken away
            self.message.emit(f"{name} is ready in the list; stop the game to play it")
            return
        self.chooser.setCurrentIndex(0)
        self.load(grid, regions, name)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            super().keyPressEvent(event)
            return
        r, c = self.board_view.selected
        if key in MOVES:
            dr, dc = MOVES[key]
            self.board_view.select(r + dr, c + dc)
        elif key in DIGITS:
            self.send("enter", x=r, y=c, digit=DIGITS[key])
        elif key in CLEAR_KEYS:
            self.send("clear", x=r, y=c)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    # -- output ------------------------------------------------------------------------------
    def refresh(self) -> None:
        g = self.game
        self._pump()
        state = g.state
        current, initial, conflicts = g.current, g.initial, g.conflicts
        undo_count = g.undo_count
        shown = (state, current, initial, conflicts, undo_count)
        if shown != self._shown:
            self._shown = shown
            self.board_view.show_grids(current, initial, conflicts, state == "solved")
            text, colour = {"playing": ("playing", PLAYED), "solved": ("SOLVED !!!", SOLVED)}.get(
                state, ("unsolved", "#8a8f99"))
            self.state_label.setText(text)
            self.state_label.setStyleSheet(f"color: {colour};")
            playing = state == "playing"
            self.start_button.setText("Stop" if playing else "Start")
            self.undo_button.setEnabled(playing and undo_count > 0)
            self.chooser.setEnabled(not playing)
            n = sum(bool(v) for row in conflicts for v in row)
            info = [f"{n} conflicting cell{'s' if n != 1 else ''}"] if n else []
            info.append(f"{undo_count} move{'s' if undo_count != 1 else ''} to undo")
            empty = sum(v == 0 for row in current for v in row)
            info.append(f"{empty} empty cell{'s' if empty != 1 else ''}")
            self.info_line.setText("  ·  ".join(info))
        self.status_line.setText(plc_status(g.plc))


class JigsawPanel(SudokuPanel):
    """Jigsaw Sudoku: the same program with the regions' group map, regions
    coloured with the 4-colouring."""

    title = "Jigsaw Sudoku"
    KIND = "jigsaw"
