"""The 2048 panel: the classic look, played by the block program on a simulated PLC.

What the panel does and does not do (the game logic lives in the blocks):

- it writes only PLC inputs, through the facade's non-blocking
  :meth:`Game2048.command` (arrow keys, WASD, the on-screen arrows, *Start*,
  *Reset*, *Try again*);
- it reads only PLC outputs (``board``, ``score``, ``game_over``, ``won``,
  ``busy``) in :meth:`Game2048Panel.refresh`, which the shell calls after each
  tick of its real-time loop; the PLC runs the game, the panel only shows it.
  A press while the PLC is busy goes to the PLC all the same: its command
  lock decides, as on the real controller;
- the only state of its own is what a screen has: whether the player chose
  *Keep going* after a win,
  and the settings of the next game (processing variant, placement, seed),
  which build a new :class:`programs.game2048.Game2048` when changed; the best
  score is the program's RETAIN variable, kept in the user's data directory
  (:class:`BestScore`).

Colours and font sizes follow gabrielecirulli/2048 (main.scss): tiles on a
#bbada0 board, empty cells #cdc1b4, dark text on 2 and 4, light text above.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

from PyQt6.QtCore import QRectF, QSize, Qt
from PyQt6.QtGui import QAction, QActionGroup, QColor, QFont, QKeyEvent, QPainter
from PyQt6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from fbd.errors import FbdError
from fbd.runtime import snapshot
from programs.game2048 import PLACEMENTS, VARIANTS, Game2048

from ..panel import GamePanel
from ..userdata import data_dir, load_json
from ..widgets import Theme, button

__all__ = ["Game2048Panel", "BoardView", "BestScore", "Settings", "tile_style", "KEYS",
           "PROCESSING", "PLACEMENT"]

log = logging.getLogger("hmi")

# -- the look ---------------------------------------------------------------------------
PAGE = "#faf8ef"
TEXT = "#776e65"        # dark text: titles, 2 and 4
LIGHT = "#f9f6f2"       # light text: tiles from 8, buttons
BOARD = "#bbada0"
EMPTY = "#cdc1b4"
BUTTON = "#8f7a66"
SUPER = "#3c3a32"       # tiles above 2048
TILE_COLOURS = {
    2: "#eee4da", 4: "#ede0c8", 8: "#f2b179", 16: "#f59563", 32: "#f67c5f", 64: "#f65e3b",
    128: "#edcf72", 256: "#edcc61", 512: "#edc850", 1024: "#edc53f", 2048: "#edc22e",
}
FAMILIES = ["Clear Sans", "Helvetica Neue", "Arial", "DejaVu Sans", "sans-serif"]
HEADING_PX = 56         # the title: 2048's 80 px on its 500 px board, made room for 800x600
MIN_BOARD = 200         # the smallest board (an 800x600 screen leaves about 230 px)


def tile_style(value: int) -> tuple[str, str, int]:
    """(background, text colour, font px on a 500 px board) of a tile, as in 2048's CSS."""
    if value <= 0:
        return EMPTY, TEXT, 55
    background = TILE_COLOURS.get(value, SUPER)
    text = TEXT if value <= 4 else LIGHT
    digits = len(str(value))
    size = 55 if digits <= 2 else 45 if digits == 3 else 35 if digits == 4 else 30
    return background, text, size


def _font(px: float, bold: bool = True) -> QFont:
    font = QFont()
    font.setFamilies(FAMILIES)
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


# -- settings of a game -------------------------------------------------------------------
# Menu texts of the facade's choices (programs.game2048.VARIANTS, PLACEMENTS); a
# choice added there shows under its own name until it gets a text here.
PROCESSING = {
    "single_pass": "Single pass: a line is processed in one scan (the article's update)",
    "multi_scan": "Multi-scan: one shift per scan, as the article first built it",
}
PLACEMENT = {
    "smart": "Smart: draw among the empty cells only",
    "article": "As in the article: retry random cells until one is empty",
}


@dataclass(frozen=True)
class Settings:
    """What a new :class:`Game2048` is built with; a seed of None draws one."""
    seed: int | None = None
    processing: str = "single_pass"
    placement: str = "smart"


# -- the best score -----------------------------------------------------------------------
class BestScore:
    """The best score: the program's RETAIN variable ``BEST`` (the largest score its
    PLC has seen), kept in a retain file (``2048.retain`` in the user's data
    directory, :mod:`fbd.runtime.snapshot`'s format, written atomically) that
    every new game's PLC starts from, as a controller's retained memory.

    A missing file is a best of 0 (or the one an earlier version kept in
    ``2048.json`` beside it); a damaged or foreign one is ignored with a logged
    warning and overwritten by the next best score.
    """

    FILE = "2048.retain"
    BEST = "best.OUT"       # the retained variable (BEST is the output it drives)

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path is not None else data_dir() / self.FILE
        self._kept = None       # the last snapshot read or written
        self.value = 0
        try:
            self._kept = snapshot.read(str(self.path))
        except FbdError as e:
            log.warning("%s; starting from 0", e)
        if self._kept is not None:
            tp, _qualifier, value = self._kept.variables.get(self.BEST, (None, None, 0))
            self.value = value if tp == "DINT" and isinstance(value, int) and value >= 0 else 0
        else:
            legacy = load_json(self.path.with_name("2048.json"), {})
            best = legacy.get("best") if isinstance(legacy, dict) else None
            if isinstance(best, int) and not isinstance(best, bool) and best > 0:
                self.value = best

    def attach(self, plc) -> None:
        """Start ``plc``'s retained variables from the kept ones (a warm start): a new
        game's, or one going on after a game that set no record."""
        if self._kept is not None:
            snapshot.restore(plc, self._kept)
        else:
            plc.write(self.BEST, self.value)

    def offer(self, plc) -> bool:
        """Keep ``plc``'s best score if it beats the kept one; return whether it did."""
        best = plc.get(self.BEST)
        if best <= self.value:
            return False
        self.value = best
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            kept = snapshot.take(plc)
            snapshot.write(str(self.path), kept)
            self._kept = kept
        except OSError as e:
            log.warning("cannot save the best score to %s: %s", self.path, e)
        return True


class BoardView(QWidget):
    """The 4x4 field, painted as one widget from a plain grid of values.

    The overlays (*Game over*, *You win!*) are child widgets laid over it.
    """

    SIZE = 4

    def __init__(self, parent=None):
        super().__init__(parent)
        self._board = [[0] * self.SIZE for _ in range(self.SIZE)]
        # the field is the largest square that fits, centred: any rectangle will do, so
        # the window may be short (800x600 screens) and the board shrinks to fit
        self.setMinimumSize(MIN_BOARD, MIN_BOARD)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.overlays: list[QWidget] = []

    def sizeHint(self) -> QSize:
        return QSize(450, 450)

    @property
    def board(self) -> list[list[int]]:
        return [row[:] for row in self._board]

    def set_board(self, board) -> None:
        board = [list(row) for row in board]
        if board != self._board:
            self._board = board
            self.update()

    def field(self) -> QRectF:
        """The square the board is painted in (centred in the widget)."""
        side = min(self.width(), self.height())
        return QRectF((self.width() - side) / 2, (self.height() - side) / 2, side, side)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        rect = self.field().toAlignedRect()
        for overlay in self.overlays:
            overlay.setGeometry(rect)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        field = self.field()
        k = field.width() / 500            # the original is drawn on a 500 px board
        gap = 15 * k
        cell = (field.width() - gap * (self.SIZE + 1)) / self.SIZE
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(BOARD))
        painter.drawRoundedRect(field, 6 * k, 6 * k)
        for r, row in enumerate(self._board):
            for c, value in enumerate(row):
                rect = QRectF(field.x() + gap + c * (cell + gap), field.y() + gap + r * (cell + gap),
                              cell, cell)
                background, text, px = tile_style(value)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(background))
                painter.drawRoundedRect(rect, 3 * k, 3 * k)
                if value:
                    painter.setPen(QColor(text))
                    painter.setFont(_font(px * k))
                    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, str(value))
        painter.end()


class Overlay(QWidget):
    """A semi-transparent layer over the field with a big message and buttons,
    placed as in 2048: the message in the middle, the buttons below it."""

    def __init__(self, board: BoardView, text: str, background: QColor, foreground: str,
                 buttons: list[tuple[str, object]]):
        super().__init__(board)
        self._background = background
        self.label = QLabel(text, self)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setStyleSheet(f"color: {foreground}; background: transparent;")
        self.buttons: dict[str, QPushButton] = {}
        self._row = QWidget(self)
        row = QHBoxLayout(self._row)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        for name, slot in buttons:
            button = _button(name)
            button.clicked.connect(slot)
            self.buttons[name] = button
            row.addWidget(button)
        board.overlays.append(self)
        self.setGeometry(board.field().toAlignedRect())
        self.hide()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        w, h = self.width(), self.height()
        k = w / 500
        self.label.setFont(_font(60 * k))
        for b in self.buttons.values():
            b.setFont(_font(max(12.0, 18 * k)))
        self.label.setGeometry(0, round(h / 2 - 45 * k), w, round(90 * k))
        hint = self._row.sizeHint()
        self._row.setGeometry(round((w - hint.width()) / 2), round(h / 2 + 60 * k),
                              hint.width(), hint.height())

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._background)
        k = self.width() / 500
        painter.drawRoundedRect(QRectF(self.rect()), 6 * k, 6 * k)
        painter.end()


THEME = Theme(page=PAGE, ink=TEXT, muted=TEXT, button=BUTTON, button_pressed="#7f6a56",
              button_disabled="#cdc1b4", button_text=LIGHT, playing="#8f7a66", solved="#edc22e",
              ready="#a59a8f", alert="#f65e3b", families=tuple(FAMILIES))


def _button(text: str, width: int | None = None) -> QPushButton:
    return button(text, THEME, px=16, width=width)


def _score_box(title: str) -> tuple[QWidget, QLabel]:
    box = QWidget()
    box.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
    box.setStyleSheet(f"background: {BOARD}; border-radius: 3px;")
    caption = QLabel(title.upper())
    caption.setFont(_font(13))
    caption.setStyleSheet("color: #eee4da;")
    caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
    value = QLabel("0")
    value.setFont(_font(25))
    value.setStyleSheet("color: white;")
    value.setAlignment(Qt.AlignmentFlag.AlignCenter)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(18, 6, 18, 6)
    layout.setSpacing(0)
    layout.addWidget(caption)
    layout.addWidget(value)
    box.setMinimumWidth(90)
    return box, value


# -- keys ---------------------------------------------------------------------------------
K = Qt.Key
KEYS = {K.Key_Up: "up", K.Key_W: "up", K.Key_Right: "right", K.Key_D: "right",
        K.Key_Down: "down", K.Key_S: "down", K.Key_Left: "left", K.Key_A: "left"}


# -- the panel --------------------------------------------------------------------------------
class Game2048Panel(GamePanel):
    """2048 played by the block program in :mod:`programs.game2048`.

    ``seed``, ``processing`` and ``placement`` go to
    :class:`programs.game2048.Game2048` (a seed of None draws one); ``best``
    is where the best score is kept (default: ``2048.retain`` in the user's
    data directory). It opens ready, as the other panels do: *Start* (F2)
    places the two first tiles.
    """

    title = "2048"
    theme = THEME
    has_undo = False      # the article's program keeps no history
    states = ("ready", "playing", "over", "won", "paused")

    def __init__(self, parent=None, *, seed: int | None = None, processing: str = "single_pass",
                 placement: str = "smart", best: BestScore | None = None):
        super().__init__(parent)
        self.settings = Settings(seed, processing, placement)
        self.best = best if best is not None else BestScore()
        self.game = None
        self._kept_going = False
        self._starting = False
        self._shown: tuple | None = None
        self._build()
        self._build_menu()
        self.new_game()

    # -- the facade -------------------------------------------------------------------
    @property
    def plc(self):
        return self.game.plc if self.game is not None else None

    def command(self, name: str) -> None:
        """Send a command to the PLC (non-blocking): up, right, down, left, start, reset."""
        if name in ("up", "right", "down", "left"):
            if self.win_overlay.isVisible():
                return    # as in 2048: the board waits for "Keep going" or "Try again"
            self.input_ignored()      # the hint, if no game is on: the PLC will ignore it
        self.game.command(name)

    def new_game(self, settings: Settings | None = None) -> None:
        """Build a new Game2048 from ``settings`` (default: the current ones), ready:
        *Start* places the first tiles."""
        if settings is not None:
            self.settings = settings
        s = self.settings
        self.game = Game2048(seed=s.seed, processing=s.processing, placement=s.placement,
                             best=True)
        self.best.attach(self.game.plc)
        self.settings = s = replace(s, seed=self.game.seed)    # the seed drawn, if None
        self._kept_going = False
        self._shown = None
        self.touched = False
        self._sync_menu()
        self.message.emit(f"new game: seed {s.seed}, processing {s.processing}, "
                          f"placement {s.placement}; Start to play")
        self.refresh()

    # -- GamePanel ---------------------------------------------------------------------
    def game_state(self) -> str:
        g = self.game
        if g.game_over:
            return "over"
        if g.won and not self._kept_going:
            return "won"
        if not any(v for row in g.board for v in row):
            return "ready"
        return "playing"

    def begin(self) -> None:
        self._kept_going = False
        self._starting = True          # clean once the PLC has zeroed the score
        self.command("start")

    def end(self) -> None:
        """Stop: the program's reset (an empty board); during a game, only once agreed."""
        if not self.may_discard():
            return
        self.command("reset")

    def new(self) -> None:
        """A new game with a new random seed (keeping the program's settings)."""
        self.new_game_asking(replace(self.settings, seed=None))

    def new_game_asking(self, settings: Settings) -> bool:
        """:meth:`new_game` with ``settings``, during a game only once the player agreed
        to discard it (else the menus show the settings still in use)."""
        if not self.may_discard():
            self._sync_menu()
            return False
        self.new_game(settings)
        return True

    # -- building the widgets ------------------------------------------------------------
    def _build(self) -> None:
        self.score_box, self.score_label = _score_box("Score")
        self.best_box, self.best_label = _score_box("Best")
        scores = QWidget()
        boxes = QHBoxLayout(scores)
        boxes.setContentsMargins(0, 0, 0, 0)
        boxes.setSpacing(5)
        boxes.addWidget(self.score_box)
        boxes.addWidget(self.best_box)

        intro = QLabel("Join the tiles, get to <b>2048!</b>")
        intro.setFont(_font(15, bold=False))
        intro.setStyleSheet(f"color: {TEXT};")
        intro.setToolTip("Played by a block program on a simulated PLC")

        self.board_view = BoardView()
        self.over_overlay = Overlay(self.board_view, "Game over!", QColor(238, 228, 218, 186),
                                    TEXT, [("Try again", self.try_again)])
        self.win_overlay = Overlay(self.board_view, "You win!", QColor(237, 194, 46, 128), LIGHT,
                                   [("Keep going", self.keep_going), ("Try again", self.try_again)])

        self.arrows: dict[str, QPushButton] = {}
        pad_widget = QWidget()
        pad = QGridLayout(pad_widget)
        pad.setContentsMargins(0, 0, 0, 0)
        pad.setSpacing(6)
        for direction, symbol, letter, row, col in (("up", "↑", "W", 0, 1), ("left", "←", "A", 1, 0),
                                                    ("down", "↓", "S", 1, 1), ("right", "→", "D", 1, 2)):
            b = _button(symbol, width=60)
            b.setFont(_font(18))
            b.setToolTip(f"{direction} (arrow key or {letter})")
            b.clicked.connect(lambda _=False, d=direction: self.command(d))
            self.arrows[direction] = b
            pad.addWidget(b, row, col)
        below = QWidget()
        centred = QHBoxLayout(below)
        centred.setContentsMargins(0, 0, 0, 0)
        centred.addStretch(1)
        centred.addWidget(pad_widget)
        centred.addStretch(1)

        self.build_frame(heading="2048", heading_px=HEADING_PX, top_right=scores, choice=[intro],
                         board=self.board_view, below=[below], extras=[],
                         instructions="Arrow keys or WASD move the tiles; equal tiles merge.",
                         new_tip="A new game with a new random seed")
        self.heading.setFont(_font(HEADING_PX))
        self.start_button.setToolTip("Start a new game (F2, PLC command 5); during one, asks "
                                     "before discarding it")
        self.stop_button.setToolTip("Clear the board (F3, PLC command 6: reset)")

    def _build_menu(self) -> None:
        menu = self.game_menu
        self.start_action = menu.start_action
        self.reset_action = menu.stop_action
        self.processing_actions = self._choice_menu(
            menu, "&Processing", {v: PROCESSING.get(v, v) for v in VARIANTS},
            lambda v: replace(self.settings, processing=v))
        self.placement_actions = self._choice_menu(
            menu, "P&lacement", {v: PLACEMENT.get(v, v) for v in PLACEMENTS},
            lambda v: replace(self.settings, placement=v))
        self.seed_action = menu.addAction("Seed...", self._ask_seed)
        self._menu = menu

    def _choice_menu(self, parent: QMenu, title: str, choices: dict, settings_for) -> dict:
        sub = parent.addMenu(title)
        group = QActionGroup(sub)
        actions = {}
        for value, text in choices.items():
            action = QAction(text, sub, checkable=True)
            action.setData(value)
            action.triggered.connect(lambda _=False, v=value: self.new_game_asking(settings_for(v)))
            group.addAction(action)
            sub.addAction(action)
            actions[value] = action
        return actions

    def _sync_menu(self) -> None:
        s = self.settings
        for actions, chosen in ((self.processing_actions, s.processing),
                                (self.placement_actions, s.placement)):
            for value, action in actions.items():
                action.setChecked(value == chosen)
        self.seed_action.setText(f"Seed ({s.seed})...")

    def _ask_seed(self) -> None:
        seed, ok = QInputDialog.getInt(self, "2048", "Seed of a new game:", self.settings.seed,
                                       0, 999_999)
        if ok:
            self.new_game_asking(replace(self.settings, seed=seed))

    # -- input -----------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        direction = KEYS.get(Qt.Key(event.key()))
        if direction is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            super().keyPressEvent(event)
            return
        self.command(direction)
        event.accept()

    def keep_going(self) -> None:
        self._kept_going = True
        self.win_overlay.hide()
        self.setFocus()
        self.refresh()

    def try_again(self) -> None:
        """The overlays' *Try again*: a new game at once, as in 2048 (nothing to discard)."""
        self.begin()
        self.setFocus()

    # -- output ----------------------------------------------------------------------
    def refresh(self) -> None:
        g = self.game
        board = [list(row) for row in g.board]
        score, over, won = g.score, g.game_over, g.won
        if not won:
            self._kept_going = False
        if self._starting and not g.busy and score == 0:
            self._starting = False         # the new game has begun: a clean one
            if self.touched:               # what the changed game made of BEST is no record
                self.best.attach(g.plc)
            self.touched = False
        records = self.sets_records and not self._starting
        shown = (board, score, over, won, self._kept_going, records)
        if shown != self._shown:
            self._shown = shown
            self.board_view.set_board(board)
            self.score_label.setText(str(score))
            if records:
                self.best.offer(g.plc)
            self.best_label.setText(str(self.best.value))
            self.best_box.setToolTip("" if records else "This game was changed in the debugger "
                                                        "(a value forced or written): its score "
                                                        "is not a record")
            self.over_overlay.setVisible(over)
            self.win_overlay.setVisible(won and not over and not self._kept_going)
        self.show_frame(busy=g.busy)

    def shutdown(self) -> None:
        if self.game is not None and self.sets_records:
            self.best.offer(self.game.plc)
