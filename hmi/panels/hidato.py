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
  but not confirmed, the last number placed (for *next number* mode), the
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

from PyQt6.QtCore import QRectF, QSize, Qt, pyqtSignal
from PyQt6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPalette, QPen
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from programs.hidato import DIFFICULTIES, Board, HidatoGame, bundled, generate

from ..background import BackgroundJob
from ..panel import Panel, plc_status

__all__ = ["HidatoPanel", "BoardView", "cell_style", "next_number", "PAGE", "CONFLICT",
           "GIVEN_TEXT", "ENTERED_TEXT", "PATH"]

# -- the look ---------------------------------------------------------------------------
PAGE = "#f3f0e8"
INK = "#2f3640"
CELL = "#ffffff"
GIVEN_CELL = "#e6e1d3"
GRID = "#a39e93"
SELECTED = "#ffe08a"
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
        self.setMinimumSize(320, 320)
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
        # the path: consecutive numbers placed next to each other, joined
        where = {v: (r, c) for r, row in enumerate(self.current) for c, v in enumerate(row) if v > 0}
        pen = QPen(PATH, max(2.0, side * 0.09))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        for v, (r, c) in where.items():
            nxt = where.get(v + 1)
            if nxt and max(abs(nxt[0] - r), abs(nxt[1] - c)) == 1:
                painter.drawLine(self.cell_rect(r, c).center(), self.cell_rect(*nxt).center())
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
                painter.setBrush(QColor(255, 255, 255, 170))
                painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
                painter.setPen(QColor(colour))
                painter.setFont(_font(px, bold=given))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.end()


def _button(text: str) -> QPushButton:
    button = QPushButton(text)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)    # the keys belong to the board
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFont(_font(14, bold=True))
    button.setStyleSheet(
        f"QPushButton {{ background: {BUTTON}; color: white; border: none; border-radius: 4px;"
        f" padding: 6px 14px; }}"
        f"QPushButton:pressed {{ background: #344955; }}"
        f"QPushButton:disabled {{ background: #b0bec5; }}")
    return button


# -- the panel --------------------------------------------------------------------------------
class HidatoPanel(Panel):
    """Hidato played by the block program in :mod:`programs.hidato`.

    ``puzzle``: the name of a bundled puzzle (default: the first, the
    smallest) or a :class:`~programs.hidato.Board`.
    """

    title = "Hidato"

    def __init__(self, parent=None, *, puzzle: str | Board | None = None):
        super().__init__(parent)
        self.puzzles = bundled()
        self.game: HidatoGame | None = None
        self.board: Board | None = None
        self.selected: tuple[int, int] | None = None
        self.typed = ""
        self.last_placed: int | None = None
        self._queue: deque = deque()
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
        if self._queue and not self.game.busy:
            event, row, col, number = self._queue.popleft()
            self.game.post(event, row, col, number=number)

    def enter(self, row: int, col: int, number: int) -> None:
        self.send("enter", row, col, number)
        self.last_placed = number

    def clear(self, row: int, col: int) -> None:
        self.send("clear", row, col)

    def load(self, board: Board, name: str) -> None:
        """Play ``board``: setup on the running program when the shape is the same, else
        a new :class:`HidatoGame`; then start."""
        self.selected, self.typed, self.last_placed = None, "", None
        same = (self.game is not None and self.board is not None
                and board.shape == self.board.shape and board.first == self.board.first
                and [[v == -1 for v in row] for row in board.rows]
                == [[v == -1 for v in row] for row in self.board.rows])
        self.board = board
        if same:
            self._queue.clear()
            self.send("stop")
            for r, c in self.game.cells:                # the givens, taken by "setup"
                self.game.plc.set(f"INIT_{r}_{c}", board[r, c])
            self.send("setup")
        else:
            self._queue.clear()
            self.game = HidatoGame(board)
        self.send("start")
        rows, cols = board.shape
        self.message.emit(f"{name}: {rows}x{cols}, {board.first}..{board.last}")
        self.refresh()

    def choose(self, name: str) -> None:
        """Play the bundled puzzle ``name``."""
        index = self.chooser.findData(name)
        if index >= 0 and self.chooser.currentIndex() != index:
            self.chooser.blockSignals(True)
            self.chooser.setCurrentIndex(index)
            self.chooser.blockSignals(False)
        self.load(self.puzzles[name], name)

    def new_puzzle(self, size: int | None = None, difficulty: str | None = None,
                   seed: int | None = None) -> None:
        """Generate a new puzzle on a square of ``size`` (size and difficulty from
        the controls) with a few holes cut out, as printed Hidatos have, so the
        shape changes from one puzzle to the next; the seed decides both. It is
        generated in the background (up to a few seconds at 10x10; the window
        stays live, see :attr:`generating`) and played when ready."""
        if self._generator.busy:
            self.message.emit("a new puzzle is still being generated")
            return
        size = size or self.size_box.currentData()
        difficulty = difficulty or self.difficulty_box.currentText()
        seed = random.randrange(1_000_000) if seed is None else seed
        holes = random.Random(seed).randint(0, size * size // 8)
        shape = f" ({holes} hole{'s' if holes != 1 else ''})" if holes else ""
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
        self.chooser.setCurrentIndex(-1)
        self.chooser.blockSignals(False)
        self.load(board, self._generating)

    # -- building the widgets -----------------------------------------------------------
    def _build(self) -> None:
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(PAGE))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(INK))
        self.setPalette(palette)
        self.setAutoFillBackground(True)

        heading = QLabel("Hidato")
        heading.setFont(_font(40, bold=True))
        heading.setStyleSheet(f"color: {INK};")
        self.status_label = QLabel()
        self.status_label.setFont(_font(20, bold=True))
        self.status_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        top = QHBoxLayout()
        top.addWidget(heading)
        top.addStretch(1)
        top.addWidget(self.status_label)

        intro = QLabel("Fill the board so that 1, 2, 3… form a path of touching cells "
                       "(diagonals count). Played by a block program on a simulated PLC.")
        intro.setWordWrap(True)
        intro.setFont(_font(13))
        intro.setStyleSheet(f"color: {INK};")

        self.chooser = QComboBox()
        self.chooser.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for name in self.puzzles:
            self.chooser.addItem(name, name)
        self.chooser.setToolTip("The bundled puzzles")
        self.chooser.currentIndexChanged.connect(
            lambda i: i >= 0 and self.choose(self.chooser.itemData(i)))
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
        self.new_button = _button("New")
        self.new_button.setToolTip("Generate a new puzzle with a unique solution")
        self.new_button.clicked.connect(lambda: self.new_puzzle())
        choose = QHBoxLayout()
        choose.addWidget(QLabel("Puzzle"))
        choose.addWidget(self.chooser, 1)
        choose.addSpacing(12)
        choose.addWidget(self.size_box)
        choose.addWidget(self.difficulty_box)
        choose.addWidget(self.new_button)

        self.board_view = BoardView()
        self.board_view.clicked.connect(self.cell_clicked)

        self.start_button = _button("Start")
        self.start_button.setToolTip("Start (again) from the givens (PLC event 1)")
        self.start_button.clicked.connect(lambda: self.send("start"))
        self.stop_button = _button("Stop")
        self.stop_button.setToolTip("Stop playing (PLC event 2)")
        self.stop_button.clicked.connect(lambda: self.send("stop"))
        self.undo_button = _button("Undo")
        self.undo_button.setToolTip("Take back the last number entered or cleared (PLC event 6)")
        self.undo_button.clicked.connect(lambda: self.send("undo"))
        self.next_mode = QCheckBox("Next number mode")
        self.next_mode.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.next_mode.setToolTip("A click on an empty cell places the smallest missing number "
                                  "after the last one placed; a click on a number continues from it")
        self.next_label = QLabel()
        self.next_label.setFont(_font(13, bold=True))
        self.next_label.setStyleSheet(f"color: {ENTERED_TEXT};")
        self.next_label.setMinimumWidth(80)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.undo_button)
        buttons.addSpacing(16)
        buttons.addWidget(self.next_mode)
        buttons.addWidget(self.next_label)
        buttons.addStretch(1)

        self.help_line = QLabel("Click a cell and type a number (Enter confirms); Backspace/Delete "
                                "clears; arrows move.")
        self.help_line.setFont(_font(12))
        self.help_line.setStyleSheet("color: #6b6b6b;")
        self.status_line = QLabel()
        self.status_line.setFont(_font(11))
        self.status_line.setStyleSheet("color: #6b6b6b;")
        self.status_line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 12, 20, 10)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(intro)
        layout.addLayout(choose)
        layout.addWidget(self.board_view, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.help_line)
        layout.addWidget(self.status_line)

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
        moves = {Qt.Key.Key_Up: (-1, 0), Qt.Key.Key_Down: (1, 0), Qt.Key.Key_Left: (0, -1),
                 Qt.Key.Key_Right: (0, 1)}
        if text.isdigit() and len(text) == 1:
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
        elif key in moves:
            self._confirm()
            dr, dc = moves[key]
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
        current = g.current
        state = g.state
        self.board_view.ends = (g.first, g.last)
        self.board_view.show_grids(current, g.givens, g.conflicts, self.selected, self.typed)
        self.status_label.setText(STATE_TEXTS.get(state, state))
        self.status_label.setStyleSheet(f"color: {STATE_COLOURS.get(state, INK)};")
        playing = state == "playing"
        self.stop_button.setEnabled(playing)
        self.undo_button.setEnabled(playing and g.undo_count > 0)
        if self.next_mode.isChecked():
            number = next_number(current, g.first, g.last, self.last_placed)
            self.next_label.setText(f"next: {number}" if number is not None else "")
        else:
            self.next_label.setText("")
        busy = "busy" if not self.idle else "ready"
        self.status_line.setText(f"PLC {busy}  ·  {plc_status(g.plc)}")
