"""The debugger's ST views: an ST (IL, SFC) POU instance's source with live
values and line breakpoints, and an SFC instance's steps.

:class:`SourcePanel` picks an instance (the list of the program's ST POU
instances, or a click on an ST block in the diagram) and shows its text with
line numbers; the gutter marks the lines that hold a statement (a small dot),
the line breakpoints (a red disc; a click toggles one), the statement a
paused call runs next (a yellow band and arrow) and the lines of the calls it
is inside (a paler band); in FAULT, the line that stopped the scan (a red
band). The values of the variables each line names are
drawn after its text, as the model gives them (a paused call's locals). The
text is set once per instance; a refresh repaints only the values and marks.

:class:`SfcPanel` lists an SFC instance's steps, the active ones green, with
how long each has been active and its action associations.
Both are views over :class:`fbd.debug.Debugger`: they read it and call it.
"""

from __future__ import annotations

from PyQt6.QtCore import QPoint, QRect, QSize, Qt, pyqtSignal
from PyQt6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QFontMetrics,
    QPainter,
    QPolygon,
    QTextFormat,
)
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from fbd.errors import FbdError

__all__ = ["SourcePanel", "SourceView", "SfcPanel"]

CURRENT_LINE = QColor("#ffe58a")
ARROW = QColor("#b36b00")
CALLER_LINE = QColor("#fff4cc")
BREAKPOINT = QColor("#d62728")
STATEMENT_DOT = QColor("#b9c2cc")
VALUE_COLOUR = QColor("#1f5fa8")
GUTTER = QColor("#f2f2f2")
ACTIVE_STEP = QColor("#c9f0d3")
FAULT_LINE = QColor("#f7c6c6")


class _Gutter(QWidget):
    def __init__(self, view: "SourceView"):
        super().__init__(view)
        self.view = view

    def sizeHint(self) -> QSize:
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event) -> None:
        self.view.paint_gutter(event)

    def mousePressEvent(self, event) -> None:
        self.view.gutter_clicked(event.position().y())


class SourceView(QPlainTextEdit):
    """One POU's text, read-only, with the gutter and the values (see the module)."""

    #: a line number was clicked in the gutter
    line_clicked = pyqtSignal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(9.0, font.pointSizeF()))
        self.setFont(font)
        self.first_line = 1          # the source line of the first text line
        self.rows: list = []         # the model's SourceLine rows now shown
        self.fault_line: int | None = None   # the line a fault stopped the scan at
        self._shown_text = None      # (first line, the lines' texts) the document holds
        self.gutter = _Gutter(self)
        self.blockCountChanged.connect(lambda _n: self._margins())
        self.updateRequest.connect(self._scrolled)
        self._margins()
        # the values are drawn past the text, where the document does not reach: the
        # horizontal range is widened to the widest line with its values
        self._widest = 0
        self.horizontalScrollBar().rangeChanged.connect(lambda _lo, _hi: self._widen())

    # -- content ------------------------------------------------------------------------
    def set_rows(self, rows) -> None:
        """Show ``rows`` (SourceLine): the text when it changed, the marks and values always."""
        key = (rows[0].line if rows else 1, tuple(r.text for r in rows))
        if key != self._shown_text:
            self._shown_text = key
            self.setPlainText("\n".join(r.text for r in rows))
            self.first_line = key[0]
        self.rows = rows
        self._mark_lines()
        self._widest = self._width_with_values()
        self._widen()
        self.viewport().update()
        self.gutter.update()

    def _width_with_values(self) -> int:
        """The width of the widest line with its values, as :meth:`paintEvent` draws it."""
        plain = self.fontMetrics()
        italic = QFont(self.font())
        italic.setItalic(True)
        values = QFontMetrics(italic)
        widest = 0
        for row in self.rows:
            if row.values:
                widest = max(widest, 4 + plain.horizontalAdvance(row.text + "   ")
                             + values.horizontalAdvance(self.values_text(row)))
        return widest + 2 * plain.horizontalAdvance("9")

    def _widen(self) -> None:
        bar = self.horizontalScrollBar()
        needed = self._widest - self.viewport().width()
        if needed > bar.maximum():
            blocked = bar.blockSignals(True)
            bar.setRange(0, needed)
            bar.setPageStep(self.viewport().width())
            bar.blockSignals(blocked)
            bar.show()

    @staticmethod
    def values_text(row) -> str:
        """What is drawn after a line: its variables and their values."""
        return "⟵ " + "   ".join(f"{k} = {v}" for k, v in row.values.items())

    def visible_lines(self) -> range:
        """The source lines on screen (and a few around), whose values are read."""
        first = self.first_line + self.firstVisibleBlock().blockNumber()
        shown = self.viewport().height() // max(1, self.fontMetrics().height())
        return range(first - 5, first + shown + 5)

    def row_of(self, line: int):
        k = line - self.first_line
        return self.rows[k] if 0 <= k < len(self.rows) else None

    def show_line(self, line: int) -> None:
        """Scroll ``line`` into view (the current statement)."""
        block = self.document().findBlockByNumber(line - self.first_line)
        if block.isValid():
            cursor = self.textCursor()
            cursor.setPosition(block.position())
            self.setTextCursor(cursor)
            self.ensureCursorVisible()

    def _mark_lines(self) -> None:
        marks = []
        for k, row in enumerate(self.rows):
            failed = row.line == self.fault_line
            if row.current or row.caller or failed:
                sel = QTextEdit.ExtraSelection()
                sel.format.setBackground(FAULT_LINE if failed else
                                         CURRENT_LINE if row.current else CALLER_LINE)
                sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                cursor = self.textCursor()
                cursor.setPosition(self.document().findBlockByNumber(k).position())
                sel.cursor = cursor
                marks.append(sel)
        self.setExtraSelections(marks)

    # -- the gutter -----------------------------------------------------------------------
    def gutter_width(self) -> int:
        digits = len(str(self.first_line + max(1, self.blockCount())))
        return 40 + self.fontMetrics().horizontalAdvance("9") * digits

    def _margins(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scrolled(self, rect, dy) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._widen()
        r = self.contentsRect()
        self.gutter.setGeometry(QRect(r.left(), r.top(), self.gutter_width(), r.height()))

    def paint_gutter(self, event) -> None:
        p = QPainter(self.gutter)
        p.fillRect(event.rect(), GUTTER)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = self.gutter.width()
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        line_h = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            row = self.row_of(self.first_line + block.blockNumber())
            if row is not None:
                cy = top + line_h // 2
                p.setPen(QColor("#777777"))
                p.drawText(QRect(0, top, width - 28, line_h),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                           str(row.line))
                if row.breakpoints:
                    on = any(bp.enabled for bp in row.breakpoints)
                    p.setPen(BREAKPOINT)
                    p.setBrush(QBrush(BREAKPOINT if on else QColor("white")))
                    p.drawEllipse(width - 15, cy - 5, 10, 10)
                elif row.statement:
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(QBrush(STATEMENT_DOT))
                    p.drawEllipse(width - 12, cy - 2, 4, 4)
                if row.current or row.caller:     # an arrow: where the call (or a caller) is
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(QBrush(ARROW if row.current else CALLER_LINE.darker(130)))
                    x = width - 26
                    p.drawPolygon(QPolygon([QPoint(x, cy - 5), QPoint(x + 8, cy), QPoint(x, cy + 5)]))
            block = block.next()
            top += height

    def gutter_clicked(self, y: float) -> None:
        # the gutter and the viewport share their top: y is the viewport's too
        cursor = self.cursorForPosition(QPoint(5, int(y)))
        self.line_clicked.emit(self.first_line + cursor.blockNumber())

    # -- the values -----------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        p = QPainter(self.viewport())
        font = QFont(self.font())
        font.setItalic(True)
        p.setFont(font)
        p.setPen(VALUE_COLOUR)
        metrics = self.fontMetrics()
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        while block.isValid():
            geometry = self.blockBoundingGeometry(block).translated(offset)
            if geometry.top() > event.rect().bottom():
                break
            row = self.row_of(self.first_line + block.blockNumber())
            if row is not None and row.values:
                x = offset.x() + 4 + metrics.horizontalAdvance(block.text() + "   ")
                p.drawText(int(x), int(geometry.top() + metrics.ascent()), self.values_text(row))
            block = block.next()


class SourcePanel(QWidget):
    """The instance list, the source view and a line of status (see the module)."""

    #: a message for the status bar (a breakpoint moved to the next statement, an error)
    message = pyqtSignal(str)

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.instances = QComboBox()
        self.instances.setToolTip("the ST, IL or SFC POU instance shown (a click on its block "
                                  "in the diagram shows it too)")
        self.instances.addItems(list(debugger.st_instances()))
        self.instances.currentTextChanged.connect(lambda _t: self.refresh())
        self.where = QLabel()
        self.where.setStyleSheet("color: #555555")
        top = QHBoxLayout()
        top.addWidget(QLabel("POU instance"))
        top.addWidget(self.instances, 1)
        self.view = SourceView()
        self.view.line_clicked.connect(self.toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.where)
        self._followed: tuple | None = None
        self._shown_where = None
        self.view.verticalScrollBar().valueChanged.connect(lambda _v: self._scrolled())

    @property
    def shown(self) -> str:
        """The instance (or FUNCTION) whose source is shown."""
        return self.instances.currentText()

    def show_instance(self, where: str) -> bool:
        """Show ``where`` (an instance path or a FUNCTION's name); False if it is none."""
        if not self._select(where):
            return False
        self.refresh()
        return True

    def show_fault(self) -> bool:
        """Show the POU and line the debugger's fault names (its instance when the
        faulting block is one, else the POU); False when it names no text POU."""
        fault = self.debugger.fault
        if fault is None or fault.pou is None:
            return False
        instances = self.debugger.st_instances()
        info = instances.get(fault.block)
        where = fault.block if info is not None and info.label == fault.pou \
            else fault.pou.split()[-1]
        if not self._select(where):
            return False
        self.refresh()
        self.view.show_line(fault.line)
        self._rows(where)
        return True

    def _select(self, where: str) -> bool:
        if self.instances.findText(where) < 0:
            try:
                self.debugger.st_pou(where)
            except FbdError:
                return False
            self.instances.addItem(where)      # a FUNCTION: listed once it has been shown
        blocked = self.instances.blockSignals(True)
        self.instances.setCurrentText(where)
        self.instances.blockSignals(blocked)
        return True

    def toggle(self, line: int) -> None:
        """A click in the gutter: add a line breakpoint there, or remove the ones there."""
        where = self.shown
        row = self.view.row_of(line)
        if not where or row is None:
            return
        try:
            bp = self.debugger.toggle_line_breakpoint(where, line)
        except FbdError as e:
            self.message.emit(str(e))
            return
        if bp is not None and bp.note:
            self.message.emit(bp.note)
        self.refresh()

    def refresh(self) -> None:
        dbg = self.debugger
        current = dbg.current_line
        arrived = current is not None and current != self._followed   # a new statement
        self._followed = current
        if arrived and current[0] != self.shown:
            self._select(current[0])
        where = self.shown
        if not where:
            self.where.setText("no ST, IL or SFC POU in this program")
            return
        self._rows(where)
        if arrived and current[0] == where:
            self.view.show_line(current[1])
            self._rows(where)           # scrolled to it: the values of the lines now shown
        info, _inst = dbg.st_pou(where)
        fault = dbg.fault
        faulted = fault is not None and fault.pou == info.label and fault.file is not None
        if (fault.line if faulted else None) != self.view.fault_line:
            self.view.fault_line = fault.line if faulted else None
            self.view.set_rows(self.view.rows)
        if faulted:
            self.where.setText(f"FAULT: {fault.message}")
        elif current is not None and current[0] == where:
            self.where.setText(f"paused before line {current[1]} of {info.label} "
                               f"({dbg.frames[-1].instance})")
        else:
            self.where.setText(f"{info.label} · click a line number to set or clear a breakpoint")

    def _rows(self, where: str) -> None:
        """The rows of ``where``, with the values of the lines on screen."""
        if where != self._shown_where:        # a new text first: its lines are laid out
            self._shown_where = where
            self.view.set_rows(self.debugger.source(where, range(0)))
        self.view.set_rows(self.debugger.source(where, self.view.visible_lines()))

    def _scrolled(self) -> None:
        if self.shown and self.shown == self._shown_where:
            self._rows(self.shown)


class SfcPanel(QWidget):
    """An SFC instance's steps: active ones green, how long active, actions."""

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.instances = QComboBox()
        self.instances.addItems(debugger.sfc_instances())
        self.instances.currentTextChanged.connect(lambda _t: self.refresh(rebuild=True))
        top = QHBoxLayout()
        top.addWidget(QLabel("SFC instance"))
        top.addWidget(self.instances, 1)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["step", "active", "time active (.T)", "actions"])
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self._names: list[str] = []

    def refresh(self, rebuild: bool = False) -> None:
        where = self.instances.currentText()
        if not where:
            return
        steps = self.debugger.sfc_steps(where)
        if rebuild or [s.name for s in steps] != self._names:
            self._names = [s.name for s in steps]
            self.table.setRowCount(len(steps))
            for i, s in enumerate(steps):
                for c in range(4):
                    self.table.setItem(i, c, QTableWidgetItem())
                self.table.item(i, 0).setText(s.name + ("  (initial)" if s.initial else ""))
                self.table.item(i, 3).setText(", ".join(s.actions))
        for i, s in enumerate(steps):
            brush = QBrush(ACTIVE_STEP if s.active else QColor("white"))
            self.table.item(i, 1).setText("TRUE" if s.active else "")
            self.table.item(i, 2).setText(s.time)
            for c in range(4):
                self.table.item(i, c).setBackground(brush)
