"""The Sudoku and Jigsaw Sudoku panels: Qt's "SCXML Sudoku" GUI, played by the block program.

What the panel does and does not do (the game logic lives in the blocks):

- it writes only PLC inputs, through the facade's non-blocking
  :meth:`SudokuGame.post` (and, for ``setup``, the ``INIT_r_c`` grid inputs):
  digits 1-9 *enter* a digit in the selected cell, 0, Delete and Backspace
  *clear* it; a click selects a cell, or, in Qt's way (Game > Click on a
  cell), also *taps* it (the value goes up by one, 9 wraps to 0); *Start*,
  *Stop*, *Undo*, and choosing a grid sends *setup*. Events are queued and
  posted one at a time: the next only once the PLC has taken the previous one
  (``TAKEN``), as the facade requires;
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
from PyQt6.QtGui import QAction, QActionGroup, QColor, QFont, QKeyEvent, QPainter, QPen
from PyQt6.QtWidgets import (
    QComboBox,
    QLabel,
    QSizePolicy,
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
from ..panel import GamePanel
from ..widgets import Theme

__all__ = ["SudokuPanel", "JigsawPanel", "BoardView", "REGION_COLOURS", "DIFFICULTIES", "SELECT",
           "COUNT_UP"]

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
        # the grid is the largest square that fits, centred: the window may be short
        self.setMinimumSize(9 * 27, 9 * 27)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:
        return QSize(480, 480)

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


THEME = Theme(page=PAGE, ink=INK, muted="#5b6070", button="#3d5a80", button_pressed="#2c4463",
              button_disabled="#b8bec8", playing=PLAYED, solved=SOLVED, ready="#8a8f99",
              alert=CONFLICT, families=tuple(FAMILIES))

# -- keys -----------------------------------------------------------------------------------
K = Qt.Key
MOVES = {K.Key_Up: (-1, 0), K.Key_Down: (1, 0), K.Key_Left: (0, -1), K.Key_Right: (0, 1)}
DIGITS = {getattr(K, f"Key_{d}"): d for d in range(1, 10)}
CLEAR_KEYS = {K.Key_0, K.Key_Delete, K.Key_Backspace}

#: said when a digit is typed into a given cell (the PLC ignores it)
GIVEN_HINT = "That number is given: it cannot be changed. Pick an empty cell."
#: what a click on a cell does: select it (then type), or count it up as Qt's example
SELECT, COUNT_UP = "select", "count up"
INSTRUCTIONS = {
    SELECT: "Click a cell and type 1-9; 0, Delete or Backspace empties it. Arrow keys move.",
    COUNT_UP: "Click a cell to count it up (9 → empty), or type 1-9; 0, Delete or Backspace "
              "empties it.",
}


# -- the panel ----------------------------------------------------------------------------------
class SudokuPanel(GamePanel):
    """Classic Sudoku played by the block program in :mod:`programs.sudoku`.

    ``grid`` and ``regions`` start the panel on that grid (default: the first
    bundled grid of the panel's kind); ``seed`` seeds the *New* puzzles (None:
    a random puzzle each time). ``click`` is what a click on a cell does:
    :data:`SELECT` (select it, then type a digit: one move, one undo step) or
    :data:`COUNT_UP` (Qt's example: each click is a move, the value one up).
    """

    title = "Sudoku"
    KIND = "classic"
    theme = THEME
    discards = "the grid being played"

    def __init__(self, parent=None, *, grid=None, regions=None, seed: int | None = None,
                 click: str = SELECT):
        super().__init__(parent)
        self.game: SudokuGame | None = None
        self.seed = seed
        self.click_mode = click
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
        self.set_click_mode(click)
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
        self.touched = False
        self.board_view.set_regions(regions)
        self._chosen = name
        self._show_chosen(name)
        self.message.emit(f"{self.KIND}: {name}")
        self.refresh()

    def load(self, grid, regions=None, name: str = "grid") -> None:
        """Play ``grid``: sent with ``setup`` (the PLC takes it while not playing: a
        game being played is stopped first), or, for a jigsaw of another region
        layout, on a new program."""
        grid = check_grid(grid)
        if self.jigsaw and regions is not None and [list(r) for r in regions] != self.game.regions:
            self._new_game(grid, regions, name)
            return
        if self.game.state == "playing":
            self.send("stop")
        self.send("setup", grid=grid)
        self.touched = False
        self._chosen = name
        self._show_chosen(name)
        self.message.emit(f"{name}: Start to play")

    # -- GamePanel ------------------------------------------------------------------------------
    def game_state(self) -> str:
        return {"playing": "playing", "solved": "solved"}.get(self.game.state, "ready")

    def begin(self) -> None:
        if self.game.state == "playing":     # the machine takes start only while idle
            self.send("stop")
        self.touched = False
        self.send("start")

    def end(self) -> None:
        self.send("stop")

    def new(self) -> None:
        self.new_puzzle(self.difficulty_box.currentText())

    def undo(self) -> None:
        self.send("undo")

    def can_undo(self) -> bool:
        return self.game.undo_count > 0

    # -- building the widgets -------------------------------------------------------------------
    def _build(self) -> None:
        self.chooser = QComboBox()
        self.chooser.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.chooser.setFont(_font(14))
        self.chooser.setToolTip("A bundled grid, or one made with New")
        for p in self.puzzles:
            kind, difficulty, number = p["name"].split("-")
            self.chooser.addItem(f"{difficulty} {number}  ·  {p['givens']} givens", p)
        self.chooser.activated.connect(self.choose)
        self.difficulty_box = QComboBox()
        self.difficulty_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.difficulty_box.setFont(_font(14))
        self.difficulty_box.addItems(list(DIFFICULTIES))
        self.difficulty_box.setToolTip("Difficulty of a new grid")

        self.board_view = BoardView()
        self.board_view.clicked.connect(self.cell_clicked)

        self.info_line = QLabel()
        self.info_line.setFont(_font(13, bold=True))
        self.info_line.setStyleSheet(f"color: {INK};")
        self.info_line.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.build_frame(heading="Jigsaw Sudoku" if self.jigsaw else "Sudoku", heading_px=34,
                         top_right=None, choice=[self.chooser, self.difficulty_box],
                         board=self.board_view, below=[self.info_line], extras=[],
                         instructions=INSTRUCTIONS[SELECT],
                         new_tip="Generate a new grid of this difficulty, with a unique "
                                 "solution")
        self.start_button.setToolTip("Start playing the grid (F2, PLC event start); during "
                                     "a game, asks before discarding it")
        self.stop_button.setToolTip("Stop playing (F3, PLC event stop)")
        self.undo_button.setToolTip("Undo the last move (Ctrl+Z, PLC event undo)")

    def _build_menu(self) -> None:
        menu = self.game_menu
        self.start_action = menu.start_action
        self.undo_action = menu.undo_action
        sub = menu.addMenu("&Grid")
        grids = QActionGroup(sub)
        self.grid_actions: dict[str, QAction] = {}
        for i, p in enumerate(self.puzzles):
            action = QAction(self.chooser.itemText(i), sub, checkable=True)
            action.triggered.connect(lambda _=False, p=p: self._pick(p))
            grids.addAction(action)
            sub.addAction(action)
            self.grid_actions[p["name"]] = action
        self.click_actions = {}
        clicks = menu.addMenu("&Click on a cell")
        group = QActionGroup(clicks)
        for mode, text in ((SELECT, "&Selects it, then type a digit"),
                           (COUNT_UP, "&Counts it up (Qt's example)")):
            action = QAction(text, clicks, checkable=True)
            action.triggered.connect(lambda _=False, m=mode: self.set_click_mode(m))
            group.addAction(action)
            clicks.addAction(action)
            self.click_actions[mode] = action
        self._menu = menu

    def set_click_mode(self, mode: str) -> None:
        """:data:`SELECT` or :data:`COUNT_UP`: what a click on a cell does."""
        if mode not in INSTRUCTIONS:
            raise ValueError(f"unknown click mode {mode!r}; choose {SELECT!r} or {COUNT_UP!r}")
        self.click_mode = mode
        for m, action in self.click_actions.items():
            action.setChecked(m == mode)
        self.hint.instructions = INSTRUCTIONS[mode]
        if not self.hint.flashing:
            self.hint.setText(INSTRUCTIONS[mode])

    # -- input ------------------------------------------------------------------------------
    def cell_clicked(self, row: int, col: int) -> None:
        """A click on a cell that is not given: selected; in count-up mode also tapped."""
        self.setFocus()
        if self.click_mode == COUNT_UP:
            self.input_ignored()
            self.send("tap", x=row, y=col)

    def _pick(self, puzzle: dict) -> None:
        for i in range(self.chooser.count()):
            data = self.chooser.itemData(i)     # a copy of the dict given (Qt's), not it
            if isinstance(data, dict) and data["name"] == puzzle["name"]:
                self.choose(i)
                return

    def _show_chosen(self, name: str) -> None:
        """The grid now played, shown where it is chosen: the list, the Grid menu's
        checkmark (none for a generated grid), the difficulty of the next New."""
        for i in range(self.chooser.count()):
            data = self.chooser.itemData(i)
            if isinstance(data, dict) and data["name"] == name:
                self.chooser.setCurrentIndex(i)
        for key, action in self.grid_actions.items():
            action.setChecked(key == name)
        difficulty = next((d for d in DIFFICULTIES if f"-{d}-" in f"-{name}-".replace(" ", "-")),
                          None)
        if difficulty is not None:
            self.difficulty_box.setCurrentText(difficulty)

    def choose(self, index: int) -> None:
        """The chooser's entry ``index`` was picked: a bundled or a generated grid."""
        data = self.chooser.itemData(index)
        self.setFocus()
        if not isinstance(data, dict):
            return
        if not self.may_discard():
            self._show_chosen(self._chosen)
            return
        grid, regions = data.get("grid"), data.get("regions")
        if grid is None:
            grid, regions = read_grid(data["path"])
        self.load(grid, regions, data["name"])

    def new_puzzle(self, difficulty: str) -> None:
        """Generate a new grid of ``difficulty`` in the background (the window and
        the PLC stay live; see :attr:`generating`), then add it to the chooser
        and load it (ready: *Start* plays it)."""
        if self._generator.busy:
            self.message.emit("a new grid is still being generated")
            return
        seed = None if self.seed is None else self.seed + self._generated
        self._generated += 1
        self._generating = f"new {difficulty} #{self._generated}"
        self._generator.start(generate, difficulty, jigsaw=self.jigsaw, seed=seed)
        self.new_button.setEnabled(False)
        self.message.emit(f"generating a {difficulty} grid with a unique solution…")

    @property
    def generating(self) -> bool:
        """A new grid is being generated."""
        return self._generator.busy

    def _add_generated(self, result) -> None:
        self.new_button.setEnabled(True)
        grid, regions = result
        name = self._generating
        givens = sum(v != 0 for row in grid for v in row)
        self.chooser.insertItem(0, f"{name}  ·  {givens} givens",
                                {"name": name, "grid": grid, "regions": regions})
        if self.game.state == "playing":  # started meanwhile: the game is not taken away
            self.message.emit(f"{name} is ready in the list; choose it to play it")
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
        elif key in DIGITS or key in CLEAR_KEYS:
            if not self.input_ignored() and self.board_view.is_given(r, c):
                self.hint.flash(GIVEN_HINT)       # the PLC ignores it: said where one looks
            if key in DIGITS:
                self.send("enter", x=r, y=c, digit=DIGITS[key])
            else:
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
            n = sum(bool(v) for row in conflicts for v in row)
            info = [f"{n} conflicting cell{'s' if n != 1 else ''}"] if n else []
            moves = f"{undo_count} move{'s' if undo_count != 1 else ''}"
            if state == "solved":
                info.append(f"solved in {moves}")
            else:
                info.append(f"{moves} to undo")
                empty = sum(v == 0 for row in current for v in row)
                info.append(f"{empty} empty cell{'s' if empty != 1 else ''}")
            self.info_line.setText("  ·  ".join(info))
        self.show_frame()


class JigsawPanel(SudokuPanel):
    """Jigsaw Sudoku: the same program with the regions' group map, regions
    coloured with the 4-colouring."""

    title = "Jigsaw Sudoku"
    KIND = "jigsaw"
