"""The debugger's side views: hierarchy tree, watch list, breakpoints (trends: :mod:`.trends`).

Each is a widget over the :class:`fbd.debug.Debugger` model with a
``refresh()`` the window calls (at most 30 Hz); none holds logic of its own.
"""

from __future__ import annotations

from PyQt6.QtCore import QStringListModel, Qt
from PyQt6.QtGui import QBrush, QColor
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fbd.debug.debugger import ConditionError
from fbd.errors import FbdError

__all__ = ["HierarchyTree", "WatchPanel", "BreakpointPanel", "PathEdit", "PATH_ROLE"]

FORCED = QColor("#d62728")
PATH_ROLE = Qt.ItemDataRole.UserRole


class PathEdit(QLineEdit):
    """A line edit for a signal path, completed by ``debugger.complete()``."""

    def __init__(self, debugger, placeholder: str = "signal path, e.g. cell_0_0.memory.OUT"):
        super().__init__()
        self.debugger = debugger
        self.setPlaceholderText(placeholder)
        self.model = QStringListModel(self)
        completer = QCompleter(self.model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompleter(completer)
        self.textEdited.connect(self._complete)

    def _complete(self, text: str) -> None:
        self.model.setStringList(self.debugger.complete(text) if text.strip() else [])


# =========================================================================== hierarchy
class HierarchyTree(QTreeWidget):
    """Program → macro instances → blocks → ports and variables (type, live value).
    A block's ports are made when it is expanded, and only expanded blocks are refreshed.
    A configuration's other tasks follow the main task's program, their paths
    ``instance:path``."""

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.setHeaderLabels(["name", "type", "value"])
        self.setColumnCount(3)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self._open: dict[int, tuple[QTreeWidgetItem, object]] = {}   # id(item) -> (item, probe)
        plc = debugger.plc
        for task in [plc.main, *(t for t in plc.tasks if t is not plc.main)]:
            program = task.program
            main = task is plc.main
            root = QTreeWidgetItem([program.name if main else f"{task.name}: {program.name}",
                                    "program", ""])
            if not main:
                root.setData(0, PATH_ROLE, f"{task.name}:")
                root.setToolTip(0, f"program instance {task.name} of {program.name}, in a task "
                                   f"of its own: its signals are {task.name}:path")
            self.addTopLevelItem(root)
            self._fill(root, program.network, "" if main else f"{task.name}:", program.signals)
            root.setExpanded(main)
        self.itemExpanded.connect(self._expanded)
        self.itemCollapsed.connect(lambda item: self._open.pop(id(item), None))

    def _fill(self, parent: QTreeWidgetItem, net, prefix: str, signals) -> None:
        task = prefix if prefix.endswith(":") else ""
        for name, inst in net.instances.items():
            item = QTreeWidgetItem([name, inst.type_name, ""])
            item.setData(0, PATH_ROLE, prefix + name)
            parent.addChild(item)
            if inst.is_macro:
                self._fill(item, inst.element, f"{prefix}{name}.", signals)
            else:
                ports = [p.name for p in inst.input_ports()] + [p.name for p in inst.output_ports()]
                # and its variables: an ST POU's, a timer's elapsed time, a memory's state
                ports += [v.name for v in inst.element.state_vars()]
                local = prefix[len(task):]
                item.setData(1, PATH_ROLE, [f"{prefix}{name}.{p}" for p in ports
                                            if f"{local}{name}.{p}" in signals])
                item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)

    def _expanded(self, item: QTreeWidgetItem) -> None:
        paths = item.data(1, PATH_ROLE)
        if not paths:
            return
        if item.childCount() == 0:
            block = len(item.data(0, PATH_ROLE)) + 1
            for path in paths:
                info = self.debugger.info(path)
                direction = {"in": "in", "input": "in", "state": "var"}.get(info.kind, "out")
                # named within the block: an inner instance's variable by its member path
                # (ITERM.XOUT of a PID, T1.Q of an ST block)
                kept = self.debugger.retention(path)
                child = QTreeWidgetItem([f"{path[block:]} ({direction}"
                                         + (f", {kept})" if kept else ")"),
                                         info.type.name if info.type else "", ""])
                if kept:
                    child.setToolTip(0, f"{kept}: kept by a warm restart"
                                        + (" and a cold one" if kept == "PERSISTENT" else ""))
                child.setData(0, PATH_ROLE, path)
                item.addChild(child)
        self._open[id(item)] = (item, self.debugger.probe(paths))
        self._show(item, self._open[id(item)][1])

    def _show(self, item, probe) -> None:
        forced = probe.forced()
        for i, text in enumerate(probe.texts()):
            child = item.child(i)
            child.setText(2, text + ("  [F]" if forced[i] else ""))
            child.setForeground(2, QBrush(FORCED if forced[i] else QColor("black")))

    def find(self, path: str) -> QTreeWidgetItem | None:
        """The item of a block or macro instance by its path."""
        item = self.topLevelItem(0)
        for part in path.split("."):
            for i in range(item.childCount()):
                if item.child(i).text(0) == part:
                    item = item.child(i)
                    break
            else:
                return None
        return item

    def refresh(self) -> None:
        for item, probe in self._open.values():
            self._show(item, probe)


# =========================================================================== watch list
class WatchPanel(QWidget):
    """The watch list (edit a value to write it once), force/unforce, and the forces."""

    COLUMNS = ["path", "type", "value", "forced"]

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.path_edit = PathEdit(debugger)
        self.path_edit.returnPressed.connect(self._add)
        add = QPushButton("Watch")
        add.clicked.connect(self._add)
        remove = QPushButton("Remove")
        remove.clicked.connect(self._remove)
        self.value_edit = QLineEdit()
        self.value_edit.setPlaceholderText("value (IEC: TRUE, 42, T#1s)")
        self.value_edit.setToolTip("A value for the selected rows: Return writes it once (the "
                                   "program may overwrite it at its next scan); Force holds it")
        self.value_edit.setMaximumWidth(180)
        self.value_edit.returnPressed.connect(lambda: self.write_selected(self.value_edit.text()))
        self.force_button = QPushButton("Force")
        self.force_button.setToolTip("Hold the selected rows at the value until unforced")
        self.force_button.clicked.connect(lambda: self.force_selected(self.value_edit.text()))
        unforce = QPushButton("Unforce")
        unforce.clicked.connect(self.unforce_selected)
        top = QHBoxLayout()
        for w in (self.path_edit, add, remove, self.value_edit, self.force_button, unforce):
            top.addWidget(w)
        top.setStretch(0, 1)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(self.COLUMNS)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.itemChanged.connect(self._edited)
        self.forces_list = QListWidget()
        self.forces_list.setMaximumWidth(300)
        self.message = QLabel()
        self.message.setStyleSheet("color: #b00020")
        body = QHBoxLayout()
        body.addWidget(self.table, 1)
        side = QVBoxLayout()
        side.addWidget(QLabel("Forces (hold until unforced):"))
        side.addWidget(self.forces_list, 1)
        release = QPushButton("Unforce all")
        release.clicked.connect(lambda: self._do(self.debugger.unforce))
        side.addWidget(release)
        body.addLayout(side)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(body, 1)
        layout.addWidget(self.message)
        self._updating = False
        self._rows: list[str] = []

    def _do(self, fn, *args) -> bool:
        self.message.setStyleSheet("color: #b00020")
        try:
            fn(*args)
        except FbdError as e:
            self.message.setText(str(e))
            return False
        self.message.setText("")
        return True

    def _add(self) -> None:
        if self._do(self.debugger.watch, self.path_edit.text().strip()):
            self.path_edit.clear()
        self.refresh()

    def _remove(self) -> None:
        for path in self.selected():
            self._do(self.debugger.unwatch, path)
        self.refresh()

    def selected(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self._rows[r] for r in rows if r < len(self._rows)]

    def write_selected(self, value: str) -> None:
        """Write ``value`` once into the selected rows (Return in the value field)."""
        paths = self.selected()
        if not paths:
            self.message.setText("select a watched row to write the value to")
            return
        done = [p for p in paths if self._do(self.debugger.write, p, value.strip())]
        if done:
            self.message.setText(f"wrote {value.strip()} once to {', '.join(done)}")
            self.message.setStyleSheet("color: #1a7a30")
        self.refresh()

    def force_selected(self, value: str) -> None:
        paths = self.selected()
        if not paths:
            self.message.setText("select a watched row to force")
            return
        for path in paths:
            self._do(self.debugger.force, path, value.strip())
        self.refresh()

    def unforce_selected(self) -> None:
        for path in self.selected():
            if self.debugger.is_forced(path):
                self._do(self.debugger.unforce, path)
        self.refresh()

    def _edited(self, item: QTableWidgetItem) -> None:
        if self._updating or item.column() != 2:
            return
        path = self._rows[item.row()]
        self._do(self.debugger.write, path, item.text().strip())
        self.refresh()

    def refresh(self) -> None:
        rows = self.debugger.watch_values()
        self._updating = True
        try:
            if [r.path for r in rows] != self._rows:
                self._rows = [r.path for r in rows]
                self.table.setRowCount(len(rows))
                for i, r in enumerate(rows):
                    for c, text in enumerate((r.path, r.type)):
                        cell = QTableWidgetItem(text)
                        cell.setFlags(cell.flags() & ~Qt.ItemFlag.ItemIsEditable)
                        self.table.setItem(i, c, cell)
                    self.table.setItem(i, 2, QTableWidgetItem())
                    cell = QTableWidgetItem()
                    cell.setFlags(cell.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    self.table.setItem(i, 3, cell)
            editing = self.table.state() == QAbstractItemView.State.EditingState
            for i, r in enumerate(rows):
                value = self.table.item(i, 2)
                if not (editing and self.table.currentRow() == i) and value.text() != r.text:
                    value.setText(r.text)
                value.setForeground(QBrush(FORCED if r.forced else QColor("black")))
                self.table.item(i, 3).setText("F" if r.forced else "")
                self.table.item(i, 3).setForeground(QBrush(FORCED))
            # in IEC form, as the table holds the forced value (TRUE, T#3s, 'text')
            forces = [f"{p} = {self.debugger.text(p)}" for p in self.debugger.forces]
            if forces != [self.forces_list.item(i).text() for i in range(self.forces_list.count())]:
                self.forces_list.clear()
                self.forces_list.addItems(forces)
        finally:
            self._updating = False


# =========================================================================== breakpoints
class BreakpointPanel(QWidget):
    """Add a condition (validated as it is typed), enable/disable, remove; the last hit."""

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.edit = PathEdit(debugger, "condition, e.g. cell_0_0.memory.OUT >= 2048 or "
                                       "changed(processing_left.Done)")
        self.edit.textChanged.connect(self.validate)
        self.edit.returnPressed.connect(self.add)
        self.add_button = QPushButton("Add breakpoint")
        self.add_button.clicked.connect(self.add)
        remove = QPushButton("Remove")
        remove.clicked.connect(self.remove_selected)
        top = QHBoxLayout()
        top.addWidget(self.edit, 1)
        top.addWidget(self.add_button)
        top.addWidget(remove)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["on", "condition", "hits"])
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.itemChanged.connect(self._toggled)
        self.last_hit = QLabel("no breakpoint has fired")
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.last_hit)
        self._updating = False
        self._ids: list[int] = []
        self.validate("")

    def validate(self, text: str) -> bool:
        if not text.strip():
            self.error.setText("")
            self.add_button.setEnabled(False)
            return False
        try:
            self.debugger.check_condition(text)
        except ConditionError as e:
            where = f"column {e.column}: " if e.column is not None else ""
            self.error.setText(f"✗ {where}{e.reason}")
            self.add_button.setEnabled(False)
            return False
        self.error.setText("")
        self.add_button.setEnabled(True)
        return True

    def add(self) -> None:
        if self.validate(self.edit.text()):
            self.debugger.add_breakpoint(self.edit.text().strip())
            self.edit.clear()
        self.refresh()

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        for r in rows:
            self.debugger.remove_breakpoint(self._ids[r])
        self.refresh()

    def _toggled(self, item: QTableWidgetItem) -> None:
        if self._updating or item.column() != 0:
            return
        self.debugger.enable_breakpoint(self._ids[item.row()],
                                        item.checkState() == Qt.CheckState.Checked)

    def refresh(self) -> None:
        bps = self.debugger.breakpoints
        self._updating = True
        try:
            if [b.id for b in bps] != self._ids:
                self._ids = [b.id for b in bps]
                self.table.setRowCount(len(bps))
                for i, b in enumerate(bps):
                    on = QTableWidgetItem()
                    on.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled
                                | Qt.ItemFlag.ItemIsSelectable)
                    self.table.setItem(i, 0, on)
                    self.table.setItem(i, 1, QTableWidgetItem(b.text))
                    self.table.setItem(i, 2, QTableWidgetItem())
            for i, b in enumerate(bps):
                state = Qt.CheckState.Checked if b.enabled else Qt.CheckState.Unchecked
                if self.table.item(i, 0).checkState() != state:
                    self.table.item(i, 0).setCheckState(state)
                self.table.item(i, 2).setText(str(b.hits))
            hit = self.debugger.last_hit
            if hit is not None:
                self.last_hit.setText(f"last hit: {hit.describe()}")
        finally:
            self._updating = False
