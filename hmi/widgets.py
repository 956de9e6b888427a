"""Widgets the panels and the debugger share: fonts, buttons, the state word, the
hint line, the PLC status line, a status-bar message field, the Game menu.

One implementation, so the four panels look and behave alike: the same words
("Ready", "Playing", "Solved!"), the same hint when input is ignored because
the game is not started, the same Game menu (New, Start, Stop, Undo, the
panel's choices), the same status line that never clips (it elides and keeps
the whole text as its tooltip). Each panel gives its colours as a
:class:`Theme`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PyQt6.QtCore import QRect, Qt, QTimer
from PyQt6.QtGui import QFont, QFontMetrics, QKeySequence
from PyQt6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QWidget,
)

__all__ = ["FAMILIES", "font", "Theme", "button", "ElidedLabel", "StateLabel", "HintLine",
           "StatusLine", "MessageField", "GameMenu", "plc_status", "engine_name", "engine_tip",
           "confirm_discard", "STATE_WORDS", "NOT_STARTED_HINT", "fit_to_screen", "minimum_height"]

FAMILIES = ["Helvetica Neue", "Arial", "DejaVu Sans", "sans-serif"]

#: what a game's state is called, in every panel
STATE_WORDS = {"ready": "Ready", "playing": "Playing", "solved": "Solved!",
               "over": "Game over", "won": "You win!", "paused": "Paused"}
#: the hint shown when a move is ignored because no game is being played
NOT_STARTED_HINT = "Press Start (F2) to play"


def font(px: float, bold: bool = False, families: list[str] | None = None) -> QFont:
    f = QFont()
    f.setFamilies(families or FAMILIES)
    f.setPixelSize(max(1, round(px)))
    f.setBold(bold)
    return f


@dataclass(frozen=True)
class Theme:
    """A panel's colours (and font families) for the shared widgets."""
    page: str
    ink: str
    muted: str
    button: str
    button_pressed: str
    button_disabled: str
    button_text: str = "white"
    playing: str = "#1f5fa8"
    solved: str = "#2e8b57"
    ready: str = "#7f8c8d"
    alert: str = "#c0392b"
    families: tuple[str, ...] = tuple(FAMILIES)

    def font(self, px: float, bold: bool = False) -> QFont:
        return font(px, bold, list(self.families))


def button(text: str, theme: Theme, px: float = 15, width: int | None = None) -> QPushButton:
    """A flat panel button that never takes the keyboard focus (the keys belong
    to the board)."""
    b = QPushButton(text)
    b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    b.setCursor(Qt.CursorShape.PointingHandCursor)
    b.setFont(theme.font(px, bold=True))
    b.setStyleSheet(
        f"QPushButton {{ background: {theme.button}; color: {theme.button_text}; border: none;"
        f" border-radius: 4px; padding: 6px 14px; }}"
        f"QPushButton:pressed {{ background: {theme.button_pressed}; }}"
        f"QPushButton:disabled {{ background: {theme.button_disabled}; }}")
    if width:
        b.setFixedWidth(width)
    return b


class ElidedLabel(QLabel):
    """A one-line label that is never wider than its layout gives it: the text is
    elided at the right ("…") and shown whole in the tooltip."""

    def __init__(self, text: str = "", parent=None, tip: str = ""):
        super().__init__(parent)
        self._full = ""
        self._tip = tip
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(1)
        self.setText(text)

    def setText(self, text: str) -> None:   # noqa: N802 (Qt's name)
        if text != self._full:
            self._full = text
            self.updateGeometry()           # its size hint is its text's width
        self._elide()

    def full_text(self) -> str:
        return self._full

    def set_tip(self, tip: str) -> None:
        """What the tooltip says besides the whole text (shown when elided)."""
        if tip != self._tip:
            self._tip = tip
            self._elide()

    def sizeHint(self):                     # noqa: N802
        hint = super().sizeHint()
        hint.setWidth(QFontMetrics(self.font()).horizontalAdvance(self._full) + 4)
        return hint

    def minimumSizeHint(self):              # noqa: N802
        hint = super().minimumSizeHint()
        hint.setWidth(1)
        return hint

    def _elide(self) -> None:
        shown = QFontMetrics(self.font()).elidedText(self._full, Qt.TextElideMode.ElideRight,
                                                      max(1, self.width()))
        super().setText(shown)
        tip = self._full if shown != self._full else ""
        self.setToolTip("\n\n".join(t for t in (tip, self._tip) if t))

    def setFont(self, f) -> None:          # noqa: N802
        super().setFont(f)
        self._elide()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()


class StateLabel(QLabel):
    """The game's state in one word, in the panel's colour for it."""

    def __init__(self, theme: Theme, px: float = 20,
                 states: tuple[str, ...] = ("ready", "playing", "solved", "paused")):
        super().__init__(STATE_WORDS["ready"])
        self.theme = theme
        self.state = "ready"
        self.setFont(theme.font(px, bold=True))
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # as wide as the widest word, so the row does not shift as the state changes
        metrics = QFontMetrics(self.font())
        self.setMinimumWidth(max(metrics.horizontalAdvance(STATE_WORDS[w]) for w in states) + 4)
        self.show_state("ready")

    def show_state(self, state: str, paused: bool = False) -> None:
        """``state``: ready, playing, solved, over or won; ``paused``: the simulation
        is paused (said instead, where the player looks)."""
        self.state = state
        shown = "paused" if paused else state
        t = self.theme
        colour = {"playing": t.playing, "solved": t.solved, "won": t.solved,
                  "over": t.alert, "paused": t.alert}.get(shown, t.ready)
        text = STATE_WORDS.get(shown, shown)
        if self.text() != text:
            self.setText(text)
        self.setStyleSheet(f"color: {colour};")
        self.setToolTip("The simulation is paused (Simulation > Pause, Ctrl+P)" if paused else "")


class HintLine(QLabel):
    """The panel's instructions; :meth:`flash` shows a notice in their place for a
    few seconds (an ignored move: :data:`NOT_STARTED_HINT`)."""

    def __init__(self, text: str, theme: Theme, px: float = 12):
        super().__init__(text)
        self.theme = theme
        self.instructions = text
        self.setWordWrap(True)
        self.setFont(theme.font(px))
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._restore)
        self._restore()

    def flash(self, text: str, ms: int = 4000) -> None:
        self.setText(text)
        self.setStyleSheet(f"color: {self.theme.alert}; font-weight: bold;")
        self._timer.start(ms)

    @property
    def flashing(self) -> bool:
        return self._timer.isActive()

    def _restore(self) -> None:
        self.setText(self.instructions)
        self.setStyleSheet(f"color: {self.theme.muted};")


def plc_status(plc) -> tuple[str, str]:
    """Two short parts about a PLC: (scans and simulated time, the engine running
    it, scan time and overruns); each fits a narrow window on its own."""
    if plc is None:
        return "no PLC", ""
    st = plc.stats
    overruns = f"{st.overruns} overrun{'s' if st.overruns != 1 else ''}"
    return (f"scan {plc.scans:,}  ·  {plc.time:,.1f} s",
            f"{engine_name(plc)} engine  ·  {st.mean_us:.0f} µs/scan, max {st.max_ns / 1000:,.0f}"
            f"  ·  {overruns}")


def engine_name(plc) -> str:
    """``native`` or ``Python``: the engine running the PLC's main task."""
    return "native" if getattr(plc, "engine", "python") == "native" else "Python"


def engine_tip(plc) -> str:
    """Why that engine runs the PLC (``auto`` picks native where the program allows it)."""
    reason = getattr(plc, "engine_reason", "")
    return (f"engine: {engine_name(plc)}" + (f" ({reason})" if reason else "")
            + ". The native engine runs each scan as machine code; the Python engine is "
              "the reference and runs everything.")


class StatusLine(QWidget):
    """The PLC's state under the board: left what it is doing (scans, simulated
    time), then a note the player must see (a game changed in the debugger sets no
    record: in the alert colour, never cut), right what it costs (scan time,
    overruns). When room runs short the cost elides; the tooltips say what the
    terms mean."""

    COST_TIP = ("wall-clock time one scan takes (mean, max); an overrun is a scan that "
                "took longer than the 5 ms cycle")

    def __init__(self, theme: Theme, px: float = 11):
        super().__init__()
        self.left = ElidedLabel(tip="scans run and simulated time since the PLC started")
        self.note = QLabel()
        self.right = ElidedLabel(tip=self.COST_TIP)
        self.right.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        for label in (self.left, self.note, self.right):
            label.setFont(theme.font(px))
            label.setStyleSheet(f"color: {theme.muted};")
        self.note.setStyleSheet(f"color: {theme.alert}; font-weight: bold;")
        self.note.hide()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(12)
        # what it is doing keeps its whole width (its size hint is its text's); the cost
        # takes the rest and elides
        self.left.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Preferred)
        row.addWidget(self.left, 0)
        row.addWidget(self.note, 0)
        row.addWidget(self.right, 1)

    def show_plc(self, plc, busy: bool | None = None, note: str = "") -> None:
        what, cost = plc_status(plc)
        state = "" if busy is None else ("PLC busy  ·  " if busy else "PLC ready  ·  ")
        self.left.setText(state + what)
        if note != self.note.text():
            self.note.setText(note)
            self.note.setToolTip("This game was changed in the debugger (a value forced or "
                                 "written): its score is not a record" if note else "")
        self.note.setVisible(bool(note))
        self.right.set_tip(self.COST_TIP if plc is None
                           else f"{engine_tip(plc)}\n\n{self.COST_TIP}")
        self.right.setText(cost)

    def text(self) -> str:
        parts = (self.left.full_text(), self.note.text(), self.right.full_text())
        return "  ·  ".join(p for p in parts if p)


class MessageField(ElidedLabel):
    """A status bar's message, as a normal field beside its permanent ones (a
    QStatusBar's own message is drawn over them when long): elided, shown for
    a while, whole in the tooltip."""

    def __init__(self, parent=None):
        super().__init__("", parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        # a bound method, not a lambda: PyQt drops the connection with the label, so a
        # timer never calls into a label Qt has already deleted
        self._timer.timeout.connect(self.clear_message)

    def show_message(self, text: str, ms: int = 0) -> None:
        self.setText(text)
        if ms:
            self._timer.start(ms)
        else:
            self._timer.stop()

    def clear_message(self) -> None:
        self.setText("")

    def message(self) -> str:
        return self.full_text()


def fit_to_screen(window: QWidget, width: int, height: int, available: QRect | None = None) -> None:
    """Give ``window`` the size ``width`` x ``height``, or less where the screen (its
    available part: without task bars) has less room, keeping room for the title bar
    and the frame; ``available``: the screen's area (default: the window's screen)."""
    area = available if available is not None else window.screen().availableGeometry()
    window.resize(max(1, min(width, area.width() - FRAME[0])),
                  max(1, min(height, area.height() - FRAME[1])))


#: what a window's frame and title bar take beside its client area, at most (px)
FRAME = (16, 40)


def minimum_height(layout, width: int) -> int:
    """The least height a vertical box ``layout`` needs at ``width``: each item at its
    minimum height, a wrapped text at its height for that width. (Qt's own
    ``totalHeightForWidth`` uses the items' preferred heights: it would hold a
    window at its preferred height.)"""
    margins = layout.contentsMargins()
    inner = width - margins.left() - margins.right()
    items = [layout.itemAt(i) for i in range(layout.count())]
    items = [it for it in items if not it.isEmpty()]
    total = margins.top() + margins.bottom() + max(0, len(items) - 1) * max(0, layout.spacing())
    for item in items:
        least = item.minimumSize().height()
        if item.hasHeightForWidth():
            least = max(least, item.heightForWidth(inner))
        total += least
    return total


def confirm_discard(parent: QWidget, what: str = "the game in progress") -> bool:
    """Ask before something replaces or wipes a game being played."""
    answer = QMessageBox.question(
        parent, "Discard the game?", f"Discard {what}?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class GameMenu(QMenu):
    """The Game menu every panel has: New, Start, Stop, Undo, then the panel's
    choices (a puzzle, a size, a program variant) below a separator."""

    def __init__(self, parent: QWidget, *, new: Callable, start: Callable, stop: Callable,
                 undo: Callable | None, new_text: str = "&New"):
        super().__init__("&Game", parent)
        self.new_action = self.addAction(new_text, new)
        self.new_action.setShortcut(QKeySequence.StandardKey.New)
        self.start_action = self.addAction("&Start", start)
        self.start_action.setShortcut("F2")
        self.stop_action = self.addAction("S&top", stop)
        self.stop_action.setShortcut("F3")
        if undo is not None:
            self.undo_action = self.addAction("&Undo", undo)
        else:     # the program has no undo: said, not hidden, so the menus stay alike
            self.undo_action = self.addAction("&Undo (this program has none)")
            self.undo_action.setEnabled(False)
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.addSeparator()

    def sync(self, playing: bool, can_undo: bool) -> None:
        self.stop_action.setEnabled(playing)
        if self.undo_action.text().startswith("&Undo ("):
            return
        self.undo_action.setEnabled(playing and can_undo)
