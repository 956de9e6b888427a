"""The debugger toolbar's icons, painted: the shapes CODESYS and VS Code debuggers
use (a triangle to run, bars to pause, an arrow into a dot to step into, out of
it to finish, over it to step over, a circle arrow to restart), in colours that
tell running from stepping from restarting.

Painted rather than taken from a theme or a font: Qt's standard icons lack most
of them, an icon font may lack a glyph, and a painted one looks the same on
every desktop. Each is drawn at twice its size for high-density screens; Qt
greys it out when its action is disabled.
"""

from __future__ import annotations

import math

from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QBrush, QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

__all__ = ["icon", "ICONS"]

SIZE = 24                 # logical pixels
RUN = QColor("#2e8b3a")
STOP = QColor("#c0392b")
STEP = QColor("#1f5fa8")
LINE = QColor("#7b3fa0")
RESTART = QColor("#b36b00")
INK = QColor("#34495e")


def _triangle(p: QPainter, x: float, y: float, w: float, h: float, colour: QColor) -> None:
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(colour))
    p.drawPolygon(QPolygonF([QPointF(x, y), QPointF(x + w, y + h / 2), QPointF(x, y + h)]))


def _bar(p: QPainter, x: float, y: float, w: float, h: float, colour: QColor) -> None:
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(colour))
    p.drawRoundedRect(QRectF(x, y, w, h), 1, 1)


def _dot(p: QPainter, x: float, y: float, r: float, colour: QColor) -> None:
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(colour))
    p.drawEllipse(QPointF(x, y), r, r)


def _arrow(p: QPainter, path: QPainterPath, tip: QPointF, angle: float, colour: QColor) -> None:
    """A stroked ``path`` ending in an arrowhead at ``tip``, pointing at ``angle`` (radians)."""
    pen = QPen(colour, 2.2)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPath(path)
    head = [QPointF(tip.x() + 6 * math.cos(angle + a), tip.y() + 6 * math.sin(angle + a))
            for a in (math.pi * 0.8, -math.pi * 0.8)]
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(colour))
    p.drawPolygon(QPolygonF([tip, *head]))


def _down_into(p: QPainter, colour: QColor) -> None:
    path = QPainterPath(QPointF(12, 2))
    path.lineTo(12, 13)
    _arrow(p, path, QPointF(12, 15), math.pi / 2, colour)
    _dot(p, 12, 20, 2.6, INK)


def _up_out(p: QPainter, colour: QColor) -> None:
    path = QPainterPath(QPointF(12, 15))
    path.lineTo(12, 5)
    _arrow(p, path, QPointF(12, 3), -math.pi / 2, colour)
    _dot(p, 12, 20, 2.6, INK)


def _over(p: QPainter, colour: QColor) -> None:
    path = QPainterPath(QPointF(4, 15))
    path.cubicTo(5, 3, 19, 3, 19, 12)
    _arrow(p, path, QPointF(19.5, 15), math.pi / 2, colour)
    _dot(p, 12, 20, 2.6, INK)


def _circle_arrow(p: QPainter, colour: QColor, letter: str) -> None:
    path = QPainterPath()
    path.arcMoveTo(QRectF(3, 3, 18, 18), 60)
    path.arcTo(QRectF(3, 3, 18, 18), 60, 280)
    end = path.currentPosition()
    _arrow(p, path, QPointF(end.x() + 1.5, end.y() - 3.5), -math.pi / 2.6, colour)
    p.setPen(QPen(colour))
    font = p.font()
    font.setPixelSize(9)
    font.setBold(True)
    p.setFont(font)
    p.drawText(QRectF(3, 3, 18, 18), Qt.AlignmentFlag.AlignCenter, letter)


def _draw(name: str, p: QPainter) -> None:
    if name == "run":
        _triangle(p, 6, 4, 14, 16, RUN)
    elif name == "pause":
        _bar(p, 6, 5, 4, 14, STOP)
        _bar(p, 14, 5, 4, 14, STOP)
    elif name == "step":                      # one whole scan: play to a bar
        _triangle(p, 4, 5, 11, 14, STEP)
        _bar(p, 16, 5, 3, 14, STEP)
    elif name == "step_n":                    # N whole scans
        _triangle(p, 2, 5, 9, 14, STEP)
        _triangle(p, 10, 5, 9, 14, STEP)
        _bar(p, 19, 5, 3, 14, STEP)
    elif name == "step_into":
        _down_into(p, STEP)
    elif name == "finish":
        _up_out(p, STEP)
    elif name == "until":                     # run to a breakpoint: play to a red disc
        _triangle(p, 2, 5, 11, 14, RUN)
        _dot(p, 18, 12, 4.5, STOP)
    elif name == "step_line":
        _down_into(p, LINE)
    elif name == "step_over":
        _over(p, LINE)
    elif name == "warm":
        _circle_arrow(p, RESTART, "W")
    elif name == "cold":
        _circle_arrow(p, STEP, "C")
    elif name == "up":                        # the level above
        path = QPainterPath(QPointF(12, 20))
        path.lineTo(12, 7)
        _arrow(p, path, QPointF(12, 4), -math.pi / 2, INK)
    else:
        raise KeyError(f"no icon {name!r}; there are {', '.join(ICONS)}")


#: the icons there are
ICONS = ("run", "pause", "step", "step_n", "step_into", "finish", "until", "step_line",
         "step_over", "warm", "cold", "up")


def icon(name: str) -> QIcon:
    """The icon ``name`` (one of :data:`ICONS`)."""
    pixmap = QPixmap(SIZE * 2, SIZE * 2)
    pixmap.setDevicePixelRatio(2.0)
    pixmap.fill(Qt.GlobalColor.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    try:
        _draw(name, p)
    finally:
        p.end()
    return QIcon(pixmap)
