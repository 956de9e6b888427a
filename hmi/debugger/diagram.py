"""The diagram view: one network level as FBD boxes and wires with live values.

The layout comes from :mod:`fbd.debug.layout`; this module only draws it
and refreshes the values (one :class:`~fbd.debug.Probe` per level, read at
each refresh, touching only the wires whose value changed; a hidden view
refreshes when shown). The program's top level opens whole; a macro entered
at a readable zoom (the whole level if it fits at :data:`READABLE` or more,
else its top left). Double-click a
macro's box to enter it; the breadcrumb above the view (:mod:`.diagram_panel`), its
Up button or Backspace go back up. The wheel zooms, dragging pans.
"""

from __future__ import annotations

from PyQt6.QtCore import QPointF, QRectF, Qt, pyqtSignal
from PyQt6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QPainter,
    QPainterPath,
    QPen,
)
from PyQt6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from fbd.debug.debugger import format_value
from fbd.debug.layout import HEADER_H, PORT_H, Level, layout_level
from fbd.network import Network
from fbd.values import Kind

__all__ = ["DiagramView", "TRUE_COLOUR", "FORCED_COLOUR", "CURRENT_COLOUR"]

TRUE_COLOUR = QColor("#1a9e3a")
WIRE_COLOUR = QColor("#555555")
FORCED_COLOUR = QColor("#d62728")
CURRENT_COLOUR = QColor("#ffb000")
SELECTED_COLOUR = QColor("#2f6fdb")
BLOCK_FILL = QColor("#f4f6fb")
MACRO_FILL = QColor("#e3ecfa")
PSEUDO_FILL = QColor("#eeeeee")
BOX_PEN = QColor("#34495e")
LITERAL_COLOUR = QColor("#7f3fbf")
CONNECTOR_FILL = QColor("#fff6da")
CONNECTOR_PEN = QColor("#8a6d00")
READABLE = 0.9   # the smallest default zoom (8 pt labels stay legible)
ROLE = 0   # QGraphicsItem.data key: "box:<name>"


def _font(pt: float, bold: bool = False) -> QFont:
    f = QFont("DejaVu Sans Mono")
    f.setStyleHint(QFont.StyleHint.Monospace)
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


def level_network(root: Network, prefix: str) -> Network:
    """The network seen at ``prefix`` ("" is ``root``; "a.b." is macro b inside a)."""
    net = root
    for name in [p for p in prefix.split(".") if p]:
        net = net.instances[name].element
    return net


class DiagramView(QGraphicsView):
    """One level of the program as a diagram; :meth:`refresh` shows live values."""

    entered = pyqtSignal(str)   # the prefix of the level now shown
    box_clicked = pyqtSignal(str)   # the path of a box clicked

    def __init__(self, debugger, parent=None):
        super().__init__(parent)
        self.debugger = debugger
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QBrush(QColor("white")))
        self.prefix = ""
        self.level: Level | None = None
        self.box_items: dict[str, QGraphicsRectItem] = {}
        self._wires: list[tuple[QGraphicsPathItem, QGraphicsSimpleTextItem, QGraphicsSimpleTextItem,
                                int | None]] = []
        self._probe = None
        self._bool: list[bool] = []
        self._by_signal: list[list] = []      # per probed signal: its wires' items
        self._shown_raw: list | None = None   # the values and forces last shown
        self._shown_forced: list[bool] | None = None
        self._stale = False
        self._auto_fit = True
        self._highlighted: str | None = None
        self.current: str | None = None
        self.selected: str | None = None        # a box picked in the hierarchy
        self._layouts: dict[str, Level] = {}
        self._home: str | None = None           # the level shown before a scan was followed
        self.show_level("")

    # -- building -------------------------------------------------------------------
    def show_level(self, prefix: str) -> None:
        dbg = self.debugger
        net = level_network(dbg.program.network, prefix)
        self.prefix = prefix
        level = self._layouts.get(prefix)
        if level is None:        # a level's layout never changes: made once
            level = self._layouts[prefix] = layout_level(net, prefix, dbg.order,
                                                         dbg.program.signals)
        self.level = level
        self.selected = None
        scene = self.scene()
        scene.clear()
        self.box_items.clear()
        self._wires.clear()
        for box in level.boxes.values():
            self._add_box(scene, box)
        paths: dict[str, int] = {}
        self._wire_index = {}
        self._targets = {}
        for wire in level.wires:
            self._add_wire(scene, level, wire, paths)
            if wire.connector is not None:
                self._targets.setdefault(wire.src, []).append(wire.dst)
        self._source_index = {}
        for wire in level.wires:
            index = self._wire_index.get(wire.dst)
            if wire.src is not None and index is not None:
                self._source_index.setdefault(wire.src, index)
        self._stubs = {i: [] for i in range(len(paths))}
        self.connector_items = []
        self._next_end = {}
        for c in level.connectors:
            self._add_connector(scene, c)
        self._probe = dbg.probe(list(paths))
        self._bool = [tp is not None and tp.kind is Kind.BOOL for tp in self._probe.types]
        self._by_signal = [[] for _ in paths]
        for item, label, badge, index in self._wires:
            if index is not None:
                self._by_signal[index].append((item, label, badge))
        for index, stubs in self._stubs.items():
            for stub in stubs:
                self._by_signal[index].append((stub, None, None))
        self._shown_raw = self._shown_forced = None
        self._highlighted = self.current = None
        scene.setSceneRect(QRectF(-60, -40, level.width + 160, level.height + 80))
        self.fit_level()
        self.refresh()
        self.entered.emit(prefix)

    def _add_box(self, scene: QGraphicsScene, box) -> None:
        fill = {"block": BLOCK_FILL, "macro": MACRO_FILL}.get(box.kind, PSEUDO_FILL)
        rect = QGraphicsRectItem(box.x, box.y, box.w, box.h)
        rect.setBrush(QBrush(fill))
        pen = QPen(BOX_PEN, 2 if box.kind == "macro" else 1.2)
        if box.kind in ("inputs", "outputs"):
            pen.setStyle(Qt.PenStyle.DashLine)
        rect.setPen(pen)
        rect.setData(ROLE, f"box:{box.name}")
        rect.setToolTip(f"{box.path or 'the program'} ({box.title})"
                        + ("\ndouble-click to enter" if box.kind == "macro" else ""))
        scene.addItem(rect)
        self.box_items[box.name] = rect
        if box.kind in ("block", "macro"):
            title = QGraphicsSimpleTextItem(box.title, rect)
            title.setFont(_font(8.5, True))
            title.setPos(box.x + (box.w - title.boundingRect().width()) / 2, box.y + 2)
            name = QGraphicsSimpleTextItem(box.name, rect)
            name.setFont(_font(8))
            name.setBrush(QBrush(QColor("#2c3e50")))
            name.setPos(box.x + (box.w - name.boundingRect().width()) / 2,
                        box.y - name.boundingRect().height() - 1)
            line = QGraphicsPathItem(rect)
            p = QPainterPath()
            p.moveTo(box.x, box.y + HEADER_H - 2)
            p.lineTo(box.x + box.w, box.y + HEADER_H - 2)
            line.setPath(p)
            line.setPen(QPen(QColor("#aab4c3"), 0.8))
        else:
            title = QGraphicsSimpleTextItem(box.title, rect)
            title.setFont(_font(8, True))
            title.setPos(box.x + 4, box.y + 3)
        for i, port in enumerate(box.inputs):
            text = QGraphicsSimpleTextItem(port, rect)
            text.setFont(_font(8))
            text.setPos(box.x + 4, box.y + HEADER_H + i * PORT_H + 2)
        for i, port in enumerate(box.outputs):
            text = QGraphicsSimpleTextItem(port, rect)
            text.setFont(_font(8))
            text.setPos(box.x + box.w - 4 - text.boundingRect().width(),
                        box.y + HEADER_H + i * PORT_H + 2)

    def _add_wire(self, scene: QGraphicsScene, level: Level, wire, paths: dict[str, int]) -> None:
        if wire.src is None:    # a literal into an input, in IEC form
            dx, dy = wire.label_at
            text = QGraphicsSimpleTextItem(wire.text)
            text.setFont(_font(8))
            text.setBrush(QBrush(LITERAL_COLOUR))
            # above its pin's line, as a wire's value is above its wire: beside the value of
            # the next pin down, never over it (MUX IN0 and IN1)
            text.setPos(dx - text.boundingRect().width() - 6, dy - text.boundingRect().height() - 1)
            scene.addItem(text)
            return
        index = None
        if wire.path is not None:
            index = paths.setdefault(wire.path, len(paths))
        items = []
        if wire.points:     # the route comes from the layout: tracks in the gaps
            items.append(self._polyline(scene, wire.points, wire.feedback, wire.path))
        label = QGraphicsSimpleTextItem("")
        label.setFont(_font(8, True))
        label.setZValue(2)
        scene.addItem(label)
        badge = QGraphicsSimpleTextItem("F")
        badge.setFont(_font(8, True))
        badge.setBrush(QBrush(FORCED_COLOUR))
        badge.setZValue(2)
        badge.setVisible(False)
        scene.addItem(badge)
        label.setData(ROLE, wire.label_at)
        label.setData(ROLE + 1, wire.connector is not None)
        for item in items:
            self._wires.append((item, label, badge, index))
        if not items:
            self._wires.append((None, label, badge, index))
        self._wire_index[wire.dst] = index

    def _polyline(self, scene, points, dashed: bool, tip: str | None) -> QGraphicsPathItem:
        (sx, sy), *rest = points
        path = QPainterPath(QPointF(sx, sy))
        for x, y in rest:
            path.lineTo(x, y)
        item = QGraphicsPathItem(path)
        pen = QPen(WIRE_COLOUR, 1.3)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        item.setPen(pen)
        item.setZValue(-1)
        if tip:
            item.setToolTip(tip)
        scene.addItem(item)
        return item

    def _add_connector(self, scene: QGraphicsScene, c) -> None:
        """A named end of a long wire: an arrow-shaped tag with the net's name (the
        source's connector, or a continuation at a target), and its stub."""
        stub = self._polyline(scene, c.stub, False, None)
        x, y, w, h = c.x, c.y - c.h / 2, c.w, c.h
        shape = QPainterPath(QPointF(x, y))
        for px, py in ((x + w - 6, y), (x + w, y + h / 2), (x + w - 6, y + h), (x, y + h)):
            shape.lineTo(px, py)
        shape.closeSubpath()
        tag = QGraphicsPathItem(shape)
        tag.setBrush(QBrush(CONNECTOR_FILL))
        pen = QPen(CONNECTOR_PEN, 1)
        if c.feedback:
            pen.setStyle(Qt.PenStyle.DashLine)
        tag.setPen(pen)
        tag.setZValue(1)
        role = f"{c.kind}:{c.name}"
        tag.setData(ROLE, role)
        if c.kind == "connector":
            targets = [f"{d[0]}.{d[1]}" for d in self._targets.get(c.src, [])]
            tag.setToolTip(f"connector {c.name}" + (" (previous scan)" if c.feedback else "")
                           + "\nto " + ", ".join(targets) + "\ndouble-click: the next continuation")
        else:
            tag.setToolTip(f"continuation of {c.name}" + (" (previous scan)" if c.feedback else "")
                           + "\ndouble-click: go to its connector")
        scene.addItem(tag)
        text = QGraphicsSimpleTextItem(c.name, tag)
        # small enough that its descent (an underscore) is inside the tag's border, not on it
        font = _font(8)
        font.setPixelSize(max(6, int(h) - 4))
        text.setFont(font)
        text.setBrush(QBrush(CONNECTOR_PEN))
        text.setPos(x + 3, y + (h - text.boundingRect().height()) / 2)
        self.connector_items.append((c, tag))
        index = self._wire_index.get(c.dst) if c.dst is not None else self._source_index.get(c.src)
        if index is not None:
            self._stubs[index].append(stub)

    # -- live values ------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the current values (labels, TRUE wires, forces, the block stepped into).

        Cheap when called at 30 Hz: one read of the level's signals (a
        :class:`~fbd.debug.Probe`), and only the wires whose value or force
        changed since the last refresh are touched (formatting and Qt calls are
        the cost, not the read). A hidden view only notes that it is stale and
        catches up when shown."""
        if self._probe is None:
            return
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        raw = self._probe.read_raw()
        forced = self._probe.forced()
        if raw != self._shown_raw or forced != self._shown_forced:
            last_raw, last_forced = self._shown_raw, self._shown_forced
            types = self._probe.types
            changed = [i for i in range(len(raw))
                       if last_raw is None or raw[i] != last_raw[i] or forced[i] != last_forced[i]
                       or type(raw[i]) is not type(last_raw[i])]
            texts = {i: format_value(types[i], raw[i]) for i in changed}
            for i in changed:
                on = self._bool[i] and bool(raw[i])
                for item, label, badge in self._by_signal[i]:
                    self._show_wire(item, label, badge, texts[i], on, forced[i])
            self._shown_raw, self._shown_forced = raw, forced
        self._highlight(self.debugger.current_block)

    def _show_wire(self, item, label, badge, text: str, on: bool, forced: bool) -> None:
        if label is not None:
            dx, dy = label.data(ROLE)
            if label.text() != text:
                label.setText(text)
            rect = label.boundingRect()
            # above its wire; beside a continuation, level with it
            y = dy - rect.height() / 2 if label.data(ROLE + 1) else dy - rect.height() - 1
            label.setPos(dx - rect.width() - 6, y)
            badge.setPos(dx - rect.width() - 18, y)
            badge.setVisible(forced)
            label.setBrush(QBrush(TRUE_COLOUR if on else QColor("#1f3a93")))
        if item is not None:
            pen = item.pen()
            pen.setColor(TRUE_COLOUR if on else WIRE_COLOUR)
            pen.setWidthF(2.2 if on else 1.3)
            item.setPen(pen)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def _highlight(self, block: str | None) -> None:
        current = None
        if block is not None and block.startswith(self.prefix):
            current = block[len(self.prefix):].split(".", 1)[0]
        previous, self.current = self._highlighted, current
        if current == previous:
            return
        self._highlighted = current
        if previous in self.box_items:
            self._unmark(previous)
            if previous == self.selected:
                self.box_items[previous].setPen(QPen(SELECTED_COLOUR, 3))
        if current in self.box_items:
            rect = self.box_items[current]
            rect.setBrush(QBrush(CURRENT_COLOUR.lighter(150)))
            rect.setPen(QPen(CURRENT_COLOUR, 3))

    # -- following a scan stepped into ------------------------------------------------------
    def follow(self, block: str | None) -> None:
        """Show the level that holds ``block`` (the block a stepped scan runs next),
        centred on it; with None (the scan ended), go back to the level shown
        before the scan was followed."""
        if block is None:
            if self._home is not None:
                home, self._home = self._home, None
                if home != self.prefix:
                    self.show_level(home)
            return
        prefix = block.rsplit(".", 1)[0] + "." if "." in block else ""
        if self._home is None:
            self._home = self.prefix
        if prefix != self.prefix:
            self.show_level(prefix)
        self._highlight(block)
        name = block[len(prefix):]
        if name in self.box_items and not self._on_screen(self.box_items[name]):
            self.centerOn(self.box_items[name])

    def _on_screen(self, item) -> bool:
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        return shown.contains(item.sceneBoundingRect())

    def select_box(self, name: str) -> None:
        """Mark the box ``name`` of the level shown (picked in the hierarchy) and
        bring it into view."""
        if self.selected in self.box_items and self.selected != self._highlighted:
            self._unmark(self.selected)
        self.selected = name
        rect = self.box_items[name]
        if name != self._highlighted:
            rect.setPen(QPen(SELECTED_COLOUR, 3))
        self.centerOn(rect)

    def _unmark(self, name: str) -> None:
        box = self.level.boxes[name]
        rect = self.box_items[name]
        rect.setBrush(QBrush({"block": BLOCK_FILL, "macro": MACRO_FILL}.get(box.kind, PSEUDO_FILL)))
        rect.setPen(QPen(BOX_PEN, 2 if box.kind == "macro" else 1.2))

    # -- interaction ------------------------------------------------------------------
    def enter(self, name: str) -> None:
        """Enter the macro instance ``name`` of the level shown."""
        box = self.level.boxes.get(name)
        if box is None or box.kind != "macro":
            raise KeyError(f"{self.prefix}{name} is not a macro instance")
        self.show_level(f"{self.prefix}{name}.")

    def up(self) -> None:
        """Show the level above the one shown (nothing at the program's top)."""
        if self.prefix:
            parts = self.prefix.rstrip(".").split(".")
            self.show_level("".join(p + "." for p in parts[:-1]))

    def box_at(self, item: QGraphicsItem | None) -> str | None:
        while item is not None:
            role = item.data(ROLE)
            if isinstance(role, str) and role.startswith("box:"):
                return role[4:]
            item = item.parentItem()
        return None

    def mousePressEvent(self, event) -> None:
        name = self.box_at(self.itemAt(event.position().toPoint()))
        if name is not None and self.level.boxes[name].kind == "block":
            self.box_clicked.emit(self.prefix + name)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        item = self.itemAt(event.position().toPoint())
        role = item.data(ROLE) if item is not None else None
        if role is None and item is not None and item.parentItem() is not None:
            role = item.parentItem().data(ROLE)
        if isinstance(role, str) and role.startswith(("connector:", "continuation:")):
            self.jump(role)
            return
        name = self.box_at(item)
        if name is not None and self.level.boxes[name].kind == "macro":
            self.enter(name)
            return
        super().mouseDoubleClickEvent(event)

    def jump(self, role: str) -> None:
        """From a continuation to its connector; from a connector to the next of its
        continuations (the wire's other end, as an FBD editor's "go to")."""
        kind, _, name = role.partition(":")
        ends = [(c, tag) for c, tag in self.connector_items if c.name == name]
        if kind == "continuation":
            targets = [tag for c, tag in ends if c.kind == "connector"]
        else:
            targets = [tag for c, tag in ends if c.kind == "continuation"]
            if targets:
                self._next_end[name] = (self._next_end.get(name, -1) + 1) % len(targets)
                targets = [targets[self._next_end[name]]]
        if targets:
            self.centerOn(targets[0])

    def wheelEvent(self, event) -> None:
        factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.zoom(factor)

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.05 <= scale <= 8:
            self._auto_fit = False
            self.scale(factor, factor)

    def fit_level(self) -> None:
        """The default zoom of a level just opened: the program's top level whole, an
        overview to enter macros from; a macro entered whole if it fits at a readable
        size (:data:`READABLE` .. 1.25), else readable from its top left (scroll or
        zoom out for the rest). Kept while the view is resized, until the user zooms."""
        self._auto_fit = True
        rect = self.scene().sceneRect()
        vp = self.viewport().size()
        if rect.width() <= 0 or vp.width() <= 0:
            return
        scale = min(vp.width() / rect.width(), vp.height() / rect.height())
        if self.prefix:
            scale = max(scale, READABLE)
        scale = min(scale, 1.25)
        self.resetTransform()
        self.scale(scale, scale)
        w, h = vp.width() / scale, vp.height() / scale
        # what does not fit is shown from its top left corner: no box cut at the top
        cx = rect.center().x() if w >= rect.width() else rect.left() + w / 2
        cy = rect.center().y() if h >= rect.height() else rect.top() + h / 2
        self.centerOn(cx, cy)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._auto_fit:
            self.fit_level()

    def fit(self) -> None:
        self._auto_fit = False
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
