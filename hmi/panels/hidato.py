"""The Hidato panel: a numbered path on a board with holes, played by the block program.

What the panel does and does not do (the game logic lives in the blocks):

- it writes only PLC inputs, through the facade's non-blocking
  :meth:`HidatoGame.post` (and ``INIT_r_c`` for *setup*). Events wait in a
  small queue and go out one at a time, each once the PLC has taken the one
  before (``post`` overwrites an event not yet taken);
- it reads only PLC outputs (``state``, ``current``, ``givens``,
  ``conflicts``, ``undo_count``, ``busy``) in :meth:`HidatoPanel.refresh`,
  which the shell calls after each tick of its real-time loop. Whether a move
  is legal (a given, a hole, the wrong state) is the PLC's business;
- its own state is what a screen has: the selected cell, the digits typed
  but not confirmed, the last number the PLC placed (for *next number*
  mode: it follows what the PLC did, never what the panel asked for), the
  puzzle chosen.

Playing: click a cell and type a number; a number that cannot grow by
another digit goes in at once, otherwise *Enter* confirms (or another
digit). *Backspace* takes back a typed digit or clears the cell, *Delete*
clears it, *Escape* drops the digits, arrow keys move the selection. In
*next number* mode a click on an empty cell places the smallest missing
number after the last one placed; a click on a number continues from it.
"""

from __future__ import annotations

import random
from collections import deque

from PyQt6.QtCore import QPointF, QRectF, QSize, Qt, pyqtSignal
from PyQt6.QtGui import (
    QAction,
    QActionGroup,
    QColor,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QPainter,
    QPen,
)
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QSizePolicy,
    QWidget,
)

from programs.hidato import DIFFICULTIES, Board, HidatoGame, bundled, generate

from ..background import BackgroundJob
from ..panel import GamePanel
from ..widgets import Theme

__all__ = ["HidatoPanel", "BoardView", "cell_style", "next_number", "path_segments", "PAGE",
           "CONFLICT", "GIVEN_TEXT", "ENTERED_TEXT", "PATH", "SELECTION_FRAME", "GIVEN_HINT"]

# -- the look ---------------------------------------------------------------------------
PAGE = "#f3f0e8"
INK = "#2f3640"
CELL = "#ffffff"
GIVEN_CELL = "#e6e1d3"
GRID = "#a39e93"
SELECTED = "#ffe08a"
SELECTION_FRAME = "#e0a100"     # around the selected cell, whatever its background
CONFLICT = "#f4b4b0"
CONFLICT_TEXT = "#c0392b"
GIVEN_TEXT = "#1e272e"
ENTERED_TEXT = "#1f5fa8"
PATH = QColor(46, 160, 140, 150)
ENDPOINT = QColor(46, 160, 140, 220)
BUTTON = "#4a6572"
STATE_COLOURS = {"playing": "#1f5fa8", "solved": "#2e8b57", "unsolved": "#7f8c8d"}
STATE_TEXTS = {"playing": "Playing", "solved": "Solved!", "unsolved": "Unsolved"}
FAMILIES = ["Helvetica Neue", "Arial", "DejaVu Sans", "sans-serif"]


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setFamilies(FAMILIES)
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def cell_style(given: bool, conflict: bool, selected: bool) -> tuple[str, str]:
    """(background, text colour) of a cell that is not a hole."""
    if conflict:
        return CONFLICT, CONFLICT_TEXT
    background = SELECTED if selected else GIVEN_CELL if given else CELL
    return background, GIVEN_TEXT if given else ENTERED_TEXT


def next_number(current, first: int, last: int, after: int | None) -> int | None:
    """The smallest number missing from ``current`` above ``after`` (wrapping to the
    smallest missing at all); None when the board is full."""
    placed = {v for row in current for v in row if v > 0}
    missing = [n for n in range(first, last + 1) if n not in placed]
    if not missing:
        return None
    if after is not None:
        above = [n for n in missing if n > after]
        if above:
            return above[0]
    return missing[0]


#: how far from a cell's centre the path stops: the number's room (in cell sides)
PATH_GAP = 0.3


def path_segments(where: dict[int, tuple[int, int]], side: float, origin=(0.0, 0.0)):
    """The visible part of each link of the path: from the edge of number v's room
    to the edge of number v + 1's, for consecutive numbers placed in touching
    cells (``where``: number -> (row, col); cells of ``side`` from ``origin``)."""
    out = []
    for v, (r, c) in sorted(where.items()):
        nxt = where.get(v + 1)
        if nxt is None or max(abs(nxt[0] - r), abs(nxt[1] - c)) != 1:
            continue
        dr, dc = nxt[0] - r, nxt[1] - c
        norm = (dr * dr + dc * dc) ** 0.5
        gap = PATH_GAP * side * (1.25 if dr and dc else 1.0)   # a diagonal: past the corner
        ax = origin[0] + (c + 0.5) * side + dc / norm * gap
        ay = origin[1] + (r + 0.5) * side + dr / norm * gap
        bx = origin[0] + (nxt[1] + 0.5) * side - dc / norm * gap
        by = origin[1] + (nxt[0] + 0.5) * side - dr / norm * gap
        out.append(((ax, ay), (bx, by)))
    return out


# -- the board ------------------------------------------------------------------------------
class BoardView(QWidget):
    """The board painted from plain grids (holes -1 are not drawn); emits ``clicked(r, c)``."""

    clicked = pyqtSignal(int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.current: list[list[int]] = [[0]]
        self.givens: list[list[int]] = [[0]]
        self.conflicts: list[list[bool]] = [[False]]
        self.selected: tuple[int, int] | None = None
        self.typed = ""
        self.ends: tuple[int, ...] = ()
        self.setMinimumSize(250, 250)         # 25 px a cell at 10x10: room for 800x600
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:
        return QSize(520, 520)

    def show_grids(self, current, givens, conflicts, selected, typed) -> None:
        state = ([list(r) for r in current], [list(r) for r in givens],
                 [list(r) for r in conflicts], selected, typed)
        if state != (self.current, self.givens, self.conflicts, self.selected, self.typed):
            self.current, self.givens, self.conflicts, self.selected, self.typed = state
            self.update()

    @property
    def rows(self) -> int:
        return len(self.current)

    @property
    def cols(self) -> int:
        return len(self.current[0])

    def _geometry(self) -> tuple[float, float, float]:
        """(x, y, side of a cell) of the board centred in the widget."""
        margin = 12
        side = min((self.width() - 2 * margin) / self.cols, (self.height() - 2 * margin) / self.rows)
        x = (self.width() - side * self.cols) / 2
        y = (self.height() - side * self.rows) / 2
        return x, y, side

    def cell_rect(self, row: int, col: int) -> QRectF:
        x, y, side = self._geometry()
        return QRectF(x + col * side, y + row * side, side, side)

    def cell_at(self, point) -> tuple[int, int] | None:
        x, y, side = self._geometry()
        c, r = int((point.x() - x) // side), int((point.y() - y) // side)
        if 0 <= r < self.rows and 0 <= c < self.cols and self.current[r][c] != -1:
            return r, c
        return None

    def mousePressEvent(self, event) -> None:
        cell = self.cell_at(event.position())
        if cell is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(*cell)
            event.accept()
        else:
            super().mousePressEvent(event)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        _, _, side = self._geometry()
        inset = max(1.0, side * 0.04)
        # the cells (holes are not drawn)
        for r, row in enumerate(self.current):
            for c, value in enumerate(row):
                if value == -1:
                    continue
                given = self.givens[r][c] > 0
                background, _ = cell_style(given, self.conflicts[r][c], (r, c) == self.selected)
                painter.setPen(QPen(QColor(GRID), 1))
                painter.setBrush(QColor(background))
                painter.drawRoundedRect(self.cell_rect(r, c).adjusted(inset, inset, -inset, -inset),
                                        side * 0.12, side * 0.12)
        if self.selected is not None and self.current[self.selected[0]][self.selected[1]] != -1:
            # a frame, so the selection shows on any background (a conflict's red too)
            frame = QPen(QColor(SELECTION_FRAME), max(2.0, side * 0.07))
            painter.setPen(frame)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            ring = inset + frame.widthF() / 2
            painter.drawRoundedRect(self.cell_rect(*self.selected).adjusted(ring, ring, -ring, -ring),
                                    side * 0.12, side * 0.12)
        # the path: consecutive numbers placed next to each other, joined from the
        # edge of one number to the edge of the next, under the numbers, so it
        # never runs through a digit
        where = {v: (r, c) for r, row in enumerate(self.current) for c, v in enumerate(row) if v > 0}
        pen = QPen(PATH, max(2.0, side * 0.09))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        x0, y0, _ = self._geometry()
        for a, b in path_segments(where, side, (x0, y0)):
            painter.drawLine(QPointF(*a), QPointF(*b))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ENDPOINT)
        for v in self.ends:                          # the first and last numbers: ringed
            if v in where:
                painter.drawEllipse(self.cell_rect(*where[v]).center(), side * 0.36, side * 0.36)
        # the numbers, above the path
        for r, row in enumerate(self.current):
            for c, value in enumerate(row):
                rect = self.cell_rect(r, c)
                typing = (r, c) == self.selected and self.typed
                if value <= 0 and not typing:
                    continue
                given = self.givens[r][c] > 0
                _, colour = cell_style(given, self.conflicts[r][c], False)
                text = self.typed + "…" if typing else str(value)
                if typing:
                    colour = "#8a6d00"
                digits = len(text)
                px = side * (0.42 if digits <= 2 else 0.34)
                pill = QRectF(0, 0, side * (0.2 + 0.2 * digits), px * 1.25)
                pill.moveCenter(rect.center())
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(255, 255, 255, 215))
                painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
                painter.setPen(QColor(colour))
                painter.setFont(_font(px, bold=given))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.end()


THEME = Theme(page=PAGE, ink=INK, muted="#6b6b6b", button=BUTTON, button_pressed="#344955",
              button_disabled="#b0bec5", playing=STATE_COLOURS["playing"],
              solved=STATE_COLOURS["solved"], ready=STATE_COLOURS["unsolved"],
              alert=CONFLICT_TEXT, families=tuple(FAMILIES))

#: said when a number is typed into a given cell
GIVEN_HINT = "That number is given: it cannot be changed. Pick an empty cell."

MOVES = {Qt.Key.Key_Up: (-1, 0), Qt.Key.Key_Down: (1, 0), Qt.Key.Key_Left: (0, -1),
         Qt.Key.Key_Right: (0, 1)}


# -- the panel --------------------------------------------------------------------------------
class HidatoPanel(GamePanel):
    """Hidato played by the block program in :mod:`programs.hidato`.

    ``puzzle``: the name of a bundled puzzle (default: the first, the
    smallest) or a :class:`~programs.hidato.Board`. It opens ready, as the
    other panels do: *Start* (F2) plays.
    """

    title = "Hidato"
    theme = THEME
    discards = "the puzzle being played"

    def __init__(self, parent=None, *, puzzle: str | Board | None = None):
        super().__init__(parent)
        self.puzzles = bundled()
        self._shown_index = 0
        self.game: HidatoGame | None = None
        self.board: Board | None = None
        self.selected: tuple[int, int] | None = None
        self.typed = ""
        #: the last number the PLC placed (or the player continued from): next number mode
        self.last_placed: int | None = None
        self._queue: deque = deque()
        self._entered: tuple | None = None    # (seq, row, col, number): an enter posted
        self._generated = 0
        self._generator = BackgroundJob(self)
        self._generator.finished.connect(self._play_generated)
        self._generator.failed.connect(self._generation_failed)
        self._build()
        if isinstance(puzzle, Board):
            self.load(puzzle, "custom")
        else:
            self.choose(puzzle or next(iter(self.puzzles)))

    # -- the facade ---------------------------------------------------------------------
    @property
    def plc(self):
        return self.game.plc if self.game is not None else None

    @property
    def idle(self) -> bool:
        """No event waits in the queue or for the PLC to take it."""
        return not self._queue and not self.game.busy

    def send(self, event: str, row: int = 0, col: int = 0, number: int = 0) -> None:
        """Queue an event for the PLC; it is posted once the PLC took the ones before."""
        self._queue.append((event, row, col, number))
        self._pump()

    def _pump(self) -> None:
        self._check_entered()
        if self._queue and not self.game.busy:
            event, row, col, number = self._queue.popleft()
            seq = self.game.post(event, row, col, number=number)
            if event == "enter":
                self._entered = (seq, row, col, number)

    def _check_entered(self) -> None:
        """An enter the PLC took: next number mode goes on from it only if the PLC
        placed it (a move it refused, e.g. before Start, leaves "next" where it was)."""
        if self._entered is None or self.game.busy:
            return
        _seq, row, col, number = self._entered
        self._entered = None
        if self.game.current[row][col] == number:
            self.last_placed = number

    def enter(self, row: int, col: int, number: int) -> None:
        self.input_ignored()
        self.send("enter", row, col, number)

    def clear(self, row: int, col: int) -> None:
        self.input_ignored()
        self.send("clear", row, col)

    def load(self, board: Board, name: str) -> None:
        """Show ``board``, ready to play: setup on the running program when the
        shape is the same (a game being played is stopped first), else a new
        :class:`HidatoGame`. *Start* plays it."""
        self.selected, self.typed, self.last_placed, self._entered = None, "", None, None
        same = (self.game is not None and self.board is not None
                and board.shape == self.board.shape and board.first == self.board.first
                and [[v == -1 for v in row] for row in board.rows]
                == [[v == -1 for v in row] for row in self.board.rows])
        self.board = board
        self.touched = False
        self._queue.clear()
        if same:
            if self.game.state == "playing":
                self.send("stop")
            for r, c in self.game.cells:                # the givens, taken by "setup"
                self.game.plc.set(f"INIT_{r}_{c}", board[r, c])
            self.send("setup")
        else:
            self.game = HidatoGame(board)
        rows, cols = board.shape
        if rows == cols:            # the size list shows the board's size
            index = self.size_box.findData(rows)
            if index >= 0:
                self.size_box.setCurrentIndex(index)
        difficulty = next((d for d in DIFFICULTIES if d in name.replace("-", " ").split()), None)
        if difficulty is not None:  # and its difficulty, if it has one (a published one has not)
            self.difficulty_box.setCurrentText(difficulty)
        for key, action in self.puzzle_actions.items():
            action.setChecked(key == name)
        self.message.emit(f"{name}: {rows}x{cols}, {board.first}..{board.last}; Start to play")
        self.refresh()

    def choose(self, name: str) -> None:
        """Play the bundled puzzle ``name``."""
        index = self.chooser.findData(name)
        if index >= 0 and self.chooser.currentIndex() != index:
            self.chooser.blockSignals(True)
            self.chooser.setCurrentIndex(index)
            self.chooser.blockSignals(False)
        self.load(self.puzzles[name], name)

    def _chosen(self, index: int) -> None:
        """The puzzle list's entry ``index`` was picked (a bundled or a generated one);
        during a game, only once the player agreed to discard it."""
        data = self.chooser.itemData(index)
        if data is None:
            return
        if not self.may_discard():
            self.chooser.blockSignals(True)
            self.chooser.setCurrentIndex(self._shown_index)
            self.chooser.blockSignals(False)
            return
        self.chooser.blockSignals(True)
        self.chooser.setCurrentIndex(index)
        self.chooser.blockSignals(False)
        if isinstance(data, Board):
            self.load(data, self.chooser.itemText(index))
        else:
            self.choose(data)

    def new_puzzle(self, size: int | None = None, difficulty: str | None = None,
                   seed: int | None = None) -> None:
        """Generate a new puzzle on a square of ``size`` (size and difficulty from
        the controls) with a few holes cut out, as printed Hidatos have, so the
        shape changes from one puzzle to the next; the seed decides both. It is
        generated in the background (up to a few seconds at 10x10; the window
        stays live, see :attr:`generating`), added to the puzzle list and
        shown when ready."""
        if self._generator.busy:
            self.message.emit("a new puzzle is still being generated")
            return
        size = size or self.size_box.currentData()
        difficulty = difficulty or self.difficulty_box.currentText()
        seed = random.randrange(1_000_000) if seed is None else seed
        holes = random.Random(seed).randint(0, size * size // 8)
        shape = f" ({holes} hole{'s' if holes != 1 else ''})" if holes else ""
        self._generated += 1
        self._generating = f"new {size}x{size} {difficulty}{shape}, seed {seed}"
        self._generator.start(generate, size, size, holes=holes, seed=seed,
                              difficulty=difficulty)
        self.new_button.setEnabled(False)
        self.message.emit(f"generating a {size}x{size} {difficulty} puzzle with a unique "
                          f"solution…")

    @property
    def generating(self) -> bool:
        """A new puzzle is being generated."""
        return self._generator.busy

    def _generation_failed(self, error: Exception) -> None:
        self.new_button.setEnabled(True)
        self.message.emit(f"could not generate a puzzle: {error}")

    def _play_generated(self, board: Board) -> None:
        self.new_button.setEnabled(True)
        self.chooser.blockSignals(True)
        self.chooser.insertItem(0, self._generating, board)
        if self.game_state() == "playing":   # started meanwhile: not taken away
            self.chooser.blockSignals(False)
            self.message.emit(f"{self._generating} is ready in the puzzle list")
            return
        self.chooser.setCurrentIndex(0)
        self.chooser.blockSignals(False)
        self.load(board, self._generating)

    # -- GamePanel ----------------------------------------------------------------------
    def game_state(self) -> str:
        return {"playing": "playing", "solved": "solved"}.get(self.game.state, "ready")

    def begin(self) -> None:
        if self.game.state == "playing":     # the program takes start only while idle
            self.send("stop")
        self.last_placed, self._entered = None, None
        self.touched = False
        self.send("start")

    def end(self) -> None:
        self.send("stop")

    def new(self) -> None:
        self.new_puzzle()

    def undo(self) -> None:
        self.send("undo")

    def can_undo(self) -> bool:
        return self.game.undo_count > 0

    # -- building the widgets -----------------------------------------------------------
    def _build(self) -> None:
        self.chooser = QComboBox()
        self.chooser.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for name in self.puzzles:
            self.chooser.addItem(name, name)
        self.chooser.setToolTip("The puzzle: a bundled one, or one made with New")
        self.chooser.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.chooser.setMinimumContentsLength(10)
        self.chooser.currentIndexChanged.connect(lambda i: i >= 0 and self._chosen(i))
        self.size_box = QComboBox()
        self.size_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for n in range(3, 11):
            self.size_box.addItem(f"{n} × {n}", n)
        self.size_box.setCurrentIndex(3)
        self.size_box.setToolTip("Size of a new puzzle")
        self.difficulty_box = QComboBox()
        self.difficulty_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.difficulty_box.addItems(list(DIFFICULTIES))
        self.difficulty_box.setCurrentText("medium")
        self.difficulty_box.setToolTip("Difficulty of a new puzzle")

        self.board_view = BoardView()
        self.board_view.clicked.connect(self.cell_clicked)

        self.next_mode = QCheckBox("Next number")
        self.next_mode.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.next_mode.setToolTip("A click on an empty cell places the smallest missing number "
                                  "after the last one placed; a click on a number continues "
                                  "from it")
        self.next_mode.toggled.connect(lambda _on: self.refresh())
        # the number a click places next is said in the box itself ("Next number: 5"),
        # which keeps room for it from the start
        self.next_mode.setMinimumWidth(self.next_mode.sizeHint().width() + QFontMetrics(
            self.next_mode.font()).horizontalAdvance(": 100"))

        self.build_frame(heading="Hidato", heading_px=40, top_right=None,
                         choice=[self.chooser, self.size_box, self.difficulty_box],
                         board=self.board_view, below=[], extras=[self.next_mode],
                         instructions="Fill in 1, 2, 3… as a path of touching cells (diagonals "
                                      "count): click a cell, type a number, Enter confirms.",
                         new_tip="Generate a new puzzle of this size and difficulty, with a "
                                 "unique solution")
        self.start_button.setToolTip("Start from the givens (F2, PLC event 1); during a game, "
                                     "asks before discarding it")
        self.stop_button.setToolTip("Stop playing (F3, PLC event 2)")
        self.undo_button.setToolTip("Take back the last number entered or cleared (Ctrl+Z, "
                                    "PLC event 6)")
        # the old name of the state word, kept for scripts that read it
        self.status_label = self.state_label
        menu = self.game_menu
        sub = menu.addMenu("&Puzzle")
        puzzles = QActionGroup(sub)
        self.puzzle_actions: dict[str, QAction] = {}
        for name in self.puzzles:
            action = QAction(name, sub, checkable=True)
            action.triggered.connect(lambda _=False, n=name: self._chosen(self.chooser.findData(n)))
            puzzles.addAction(action)
            sub.addAction(action)
            self.puzzle_actions[name] = action
        self.next_action = menu.addAction("Ne&xt number mode")
        self.next_action.setToolTip(self.next_mode.toolTip())
        self.next_action.setCheckable(True)
        self.next_action.toggled.connect(self.next_mode.setChecked)
        self.next_mode.toggled.connect(self.next_action.setChecked)

    # -- input ------------------------------------------------------------------------
    def cell_clicked(self, row: int, col: int) -> None:
        self.setFocus()
        if (row, col) != self.selected:
            self._confirm()
        self.selected = (row, col)
        if self.next_mode.isChecked():
            value = self.game.current[row][col]
            if value > 0:
                self.last_placed = value              # continue from this number
            elif self.game.givens[row][col] == 0:
                number = next_number(self.game.current, self.game.first, self.game.last,
                                     self.last_placed)
                if number is not None:
                    self.enter(row, col, number)
        self.refresh()

    def _confirm(self) -> None:
        """Enter the digits typed into the selected cell, if they make a number."""
        if self.selected is not None and self.typed:
            number = int(self.typed)
            if self.game.first <= number <= self.game.last:
                self.enter(*self.selected, number)
            else:
                self.message.emit(f"{number} is outside {self.game.first}..{self.game.last}")
        self.typed = ""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        text = event.text()
        if self.selected is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            super().keyPressEvent(event)
            return
        r, c = self.selected
        if text.isdigit() and len(text) == 1 and self.game.givens[r][c] > 0:
            self.hint.flash(GIVEN_HINT)               # a given number stays as it is
        elif text.isdigit() and len(text) == 1:
            self.typed = (self.typed + text).lstrip("0")
            if self.typed and int(self.typed) * 10 > self.game.last:
                self._confirm()                       # no further digit could follow
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._confirm()
        elif key == Qt.Key.Key_Backspace and self.typed:
            self.typed = self.typed[:-1]
        elif key in (Qt.Key.Key_Backspace, Qt.Key.Key_Delete):
            self.typed = ""
            self.clear(r, c)
        elif key == Qt.Key.Key_Escape:
            self.typed = ""
        elif key in MOVES:
            self._confirm()
            dr, dc = MOVES[key]
            nr, nc = r + dr, c + dc
            while 0 <= nr < self.game.rows and 0 <= nc < self.game.cols:
                if (nr, nc) in self.game.cells:
                    self.selected = (nr, nc)
                    break
                nr, nc = nr + dr, nc + dc
        else:
            super().keyPressEvent(event)
            return
        event.accept()
        self.refresh()

    # -- output ----------------------------------------------------------------------
    def refresh(self) -> None:
        g = self.game
        self._pump()
        self._shown_index = self.chooser.currentIndex()
        self.board_view.ends = (g.first, g.last)
        self.board_view.show_grids(g.current, g.givens, g.conflicts, self.selected, self.typed)
        number = next_number(g.current, g.first, g.last, self.last_placed)
        self.next_mode.setText(f"Next number: {number}" if self.next_mode.isChecked()
                               and number is not None else "Next number")
        self.show_frame(busy=not self.idle)
