"""What the application shell needs from a panel, and the frame the game panels share.

A panel is a ``QWidget`` that plays one block program, as a model without
widgets: it writes only the PLC's inputs (through the program's facade) and
reads only its outputs; the block program never reads a widget. The shell owns
time: its real-time loop runs the panel's PLC
(:attr:`Panel.plc`, read on every tick, so a panel may replace its PLC at any
time, e.g. for a new game with other settings) and then calls
:meth:`Panel.refresh`, where the panel reads the outputs it shows.

:class:`GamePanel` is the frame of the four game panels, so they behave
alike: the heading, a row for choosing the puzzle with *New* at its end, the
buttons *Start*, *Stop*, *Undo* in the same places with the state word
("Ready", "Playing", "Solved!") at the end of their row, the board, the hint
line and the PLC status line; the same Game menu; *Start* during a game asks
before discarding it; a move while no game is being played shows the same
hint; everything that would lose a game being played (Start, Stop, New, another
program or puzzle, a restart in the debugger) asks first (:meth:`Panel.may_discard`);
a game touched by the debugger (a value forced or written) is marked
and sets no record.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QColor, QPalette
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QMenu, QVBoxLayout, QWidget

from .widgets import (
    NOT_STARTED_HINT,
    GameMenu,
    HintLine,
    StateLabel,
    StatusLine,
    Theme,
    button,
    confirm_discard,
)
from .widgets import plc_status as _status_parts

__all__ = ["Panel", "GamePanel", "plc_status", "TOUCHED_NOTE"]

#: shown while a game has been changed from the debugger
TOUCHED_NOTE = "changed in the debugger: no record"


class Panel(QWidget):
    """Base class of the panels the shell hosts (see :mod:`hmi.panels`)."""

    title = "panel"
    #: a short message for the window's status bar
    message = pyqtSignal(str)

    @property
    def plc(self):
        """The running :class:`fbd.Plc` the shell should advance, or None."""
        return None

    def refresh(self) -> None:
        """Show the PLC's current outputs (called after every tick of the loop)."""

    def menus(self) -> list[QMenu]:
        """Menus the shell adds to its menu bar while this panel is shown."""
        return []

    def shutdown(self) -> None:
        """The panel is about to be closed or replaced: save what must survive."""

    def set_paused(self, paused: bool) -> None:
        """The shell paused (or resumed) the simulation."""

    def debugger_touched(self) -> None:
        """The debugger wrote or forced a value of this panel's PLC."""

    def may_discard(self, parent: QWidget | None = None) -> bool:
        """Whether what is about to replace or wipe the panel's PLC may (a game being
        played is lost only once the player agreed; ``parent``: the window asking)."""
        return True


def plc_status(plc) -> str:
    """One line about a PLC: scans, simulated time, scan time, overruns."""
    what, cost = _status_parts(plc)
    return f"{what}  ·  {cost}" if cost else what


class GamePanel(Panel):
    """The frame and the behaviour the game panels share (see the module's text).

    A subclass builds its widgets, then calls :meth:`build_frame`, and provides
    :meth:`game_state`, :meth:`begin`, :meth:`end`, :meth:`new` and (if its
    program has one) :meth:`undo`; its :meth:`refresh` calls
    :meth:`show_frame`.
    """

    theme: Theme
    has_undo = True
    #: the states :meth:`game_state` returns, and "paused" (the state word is as
    #: wide as the widest of their words)
    states: tuple[str, ...] = ("ready", "playing", "solved", "paused")
    #: what *Start* during a game discards, for the question
    discards = "the game in progress"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.paused = False
        self.touched = False            # the debugger changed this game
        #: asks before discarding a game (tests put a stand-in here)
        self.confirm = confirm_discard

    # -- what a panel provides --------------------------------------------------------
    def game_state(self) -> str:
        """ready, playing, solved, over or won, read from the PLC's outputs."""
        raise NotImplementedError

    def begin(self) -> None:
        """Start a game (the PLC's start). A new game is clean (it may set records):
        clear :attr:`touched` once the PLC has started it."""
        raise NotImplementedError

    def end(self) -> None:
        """Stop playing (the PLC's stop)."""
        raise NotImplementedError

    def new(self) -> None:
        """A new puzzle (or game) from the panel's choices."""
        raise NotImplementedError

    def undo(self) -> None:
        raise NotImplementedError

    def can_undo(self) -> bool:
        return False

    # -- the shared behaviour -------------------------------------------------------------
    def may_discard(self, parent: QWidget | None = None) -> bool:
        return self.game_state() != "playing" or self.confirm(parent or self, self.discards)

    def start(self) -> None:
        """*Start*: begins a game; during one, only once the player agreed to discard it."""
        self.setFocus()
        if not self.may_discard():
            return
        self.begin()
        self.refresh()

    def stop(self) -> None:
        self.setFocus()
        self.end()
        self.refresh()

    def input_ignored(self) -> bool:
        """Call on a move: False (and the hint shown) when no game is being played,
        so the move will be ignored by the PLC."""
        if self.game_state() == "playing":
            return False
        self.hint.flash(NOT_STARTED_HINT)
        return True

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        self.refresh()

    def debugger_touched(self) -> None:
        self.touched = True

    @property
    def sets_records(self) -> bool:
        """Whether this game may set a record: not once the debugger changed it."""
        plc = self.plc
        if plc is not None and plc.forces:
            self.touched = True
        return not self.touched

    # -- the frame ------------------------------------------------------------------------
    def build_frame(self, *, heading: str, heading_px: float, top_right: QWidget | None,
                    choice: list[QWidget], board: QWidget, below: list[QWidget],
                    extras: list[QWidget], instructions: str, new_tip: str,
                    margins=(24, 12, 24, 10)) -> None:
        t = self.theme
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(t.page))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(t.ink))
        self.setPalette(palette)
        self.setAutoFillBackground(True)

        self.heading = QLabel(heading)
        self.heading.setFont(t.font(heading_px, bold=True))
        self.heading.setStyleSheet(f"color: {t.ink};")
        top = QHBoxLayout()
        top.addWidget(self.heading)
        top.addStretch(1)
        if top_right is not None:
            top.addWidget(top_right)

        self.new_button = button("New", t)
        self.new_button.setToolTip(new_tip + " (Ctrl+N)")
        self.new_button.clicked.connect(lambda: self.new())
        choose = QHBoxLayout()
        for w in choice:
            choose.addWidget(w, 1 if w is choice[0] else 0)
        choose.addWidget(self.new_button)

        self.start_button = button("Start", t)
        self.start_button.setToolTip("Start a game (F2); during one, asks before discarding it")
        self.start_button.clicked.connect(self.start)
        self.stop_button = button("Stop", t)
        self.stop_button.setToolTip("Stop playing (F3)")
        self.stop_button.clicked.connect(self.stop)
        self.undo_button = button("Undo", t)
        self.undo_button.setToolTip("Take back the last move (Ctrl+Z)")
        self.undo_button.clicked.connect(lambda: self.undo())
        self.undo_button.setVisible(self.has_undo)
        self.state_label = StateLabel(t, states=self.states)
        buttons = QHBoxLayout()
        for w in (self.start_button, self.stop_button, self.undo_button):
            buttons.addWidget(w)
        for w in extras:
            buttons.addSpacing(10)
            buttons.addWidget(w)
        buttons.addStretch(1)
        buttons.addWidget(self.state_label)

        self.hint = HintLine(instructions, t)
        self.status_line = StatusLine(t)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(*margins)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addLayout(choose)
        layout.addLayout(buttons)
        layout.addWidget(board, 1)
        for w in below:
            layout.addWidget(w)
        layout.addWidget(self.hint)
        layout.addWidget(self.status_line)

        self.game_menu = GameMenu(self, new=lambda: self.new(), start=self.start, stop=self.stop,
                                  undo=(lambda: self.undo()) if self.has_undo else None)

    def show_frame(self, busy: bool | None = None) -> str:
        """Show the state word, the buttons' state and the status line; returns the state."""
        state = self.game_state()
        playing = state == "playing"
        self.state_label.show_state(state, self.paused)
        self.stop_button.setEnabled(playing)
        self.undo_button.setEnabled(playing and self.can_undo())
        self.game_menu.sync(playing, self.can_undo())
        self.status_line.show_plc(self.plc, busy, TOUCHED_NOTE if not self.sets_records else "")
        return state

    def menus(self) -> list[QMenu]:
        return [self.game_menu]
