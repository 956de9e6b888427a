"""The diagram's panel: the view of one level (:mod:`.diagram`) under its
breadcrumb (program > cell_0_0 > ...), with a button up one level (Backspace in
the diagram too) and the zoom buttons."""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QKeySequence, QShortcut
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from .diagram import DiagramView
from .icons import icon

__all__ = ["DiagramPanel"]


class DiagramPanel(QWidget):
    """The diagram with its breadcrumb (program > cell_0_0 > ...), a button up one
    level (Backspace in the diagram too) and zoom buttons. None of them takes the
    keyboard focus: after a click it is the diagram's."""

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        up = QShortcut(QKeySequence(Qt.Key.Key_Backspace), self)
        up.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        up.activated.connect(self.go_up)
        self.crumbs = QHBoxLayout()
        self.crumbs.setContentsMargins(0, 0, 0, 0)
        bar = QWidget()
        bar.setLayout(self.crumbs)
        self.view = DiagramView(debugger)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(bar)
        layout.addWidget(self.view, 1)
        self.crumb_buttons: list[QPushButton] = []
        self.view.entered.connect(self._crumbs)
        self._crumbs(self.view.prefix)

    def _crumbs(self, prefix: str) -> None:
        while self.crumbs.count():
            w = self.crumbs.takeAt(0).widget()
            if w is not None:
                w.hide()
                w.deleteLater()
        self.crumb_buttons = []
        parts = [p for p in prefix.split(".") if p]
        names = [self.view.debugger.program.name, *parts]
        self.up_button = QPushButton()
        self.up_button.setIcon(icon("up"))
        self.up_button.setToolTip("Up one level (Backspace)")
        self.up_button.setFixedWidth(32)
        self.up_button.setEnabled(bool(parts))
        self.up_button.clicked.connect(self.go_up)
        self.crumbs.addWidget(self.up_button)
        for i, name in enumerate(names):
            if i:
                self.crumbs.addWidget(QLabel("›"))
            button = QPushButton(name)
            button.setFlat(True)
            target = "".join(p + "." for p in parts[:i])
            button.clicked.connect(lambda _=False, t=target: self.go_to(t))
            button.setEnabled(i < len(names) - 1)
            self.crumbs.addWidget(button)
            self.crumb_buttons.append(button)
        for i in range(self.crumbs.count()):
            widget = self.crumbs.itemAt(i).widget()
            if widget is not None and self.isVisible():
                widget.show()
        self.crumbs.addStretch(1)
        for text, slot in (("−", lambda: self.view.zoom(1 / 1.25)),
                           ("+", lambda: self.view.zoom(1.25)), ("Fit", self.view.fit)):
            b = QPushButton(text)
            b.setFixedWidth(40)
            b.clicked.connect(slot)
            self.crumbs.addWidget(b)
            if self.isVisible():
                b.show()
        for i in range(self.crumbs.count()):
            widget = self.crumbs.itemAt(i).widget()
            if widget is not None:     # a click leaves the keyboard to the diagram
                widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def go_to(self, prefix: str) -> None:
        """Show the level at ``prefix`` (a breadcrumb), the keyboard to the diagram."""
        self.view.show_level(prefix)
        self.view.setFocus()

    def go_up(self) -> None:
        self.view.up()
        self.view.setFocus()

    def refresh(self) -> None:
        self.view.refresh()
