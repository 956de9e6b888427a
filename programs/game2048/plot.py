"""Bar charts as PNG files, from numpy alone: the Monte-Carlo study's figure.

``programs/`` does not use Qt (pyqtgraph's exporter needs a QApplication), so
this draws on an RGB array (rectangles, lines, a 5x7 bitmap font) and writes
the PNG itself (zlib and the chunk format). Enough for grouped bar charts
with axes, labels and a legend; nothing more.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_GLYPHS = {
    "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14), "2": (14, 17, 1, 2, 4, 8, 31),
    "3": (31, 2, 4, 2, 1, 17, 14), "4": (2, 6, 10, 18, 31, 2, 2), "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8), "8": (14, 17, 17, 14, 17, 17, 14),
    "9": (14, 17, 17, 15, 1, 2, 12), "A": (14, 17, 17, 31, 17, 17, 17), "B": (30, 17, 17, 30, 17, 17, 30),
    "C": (14, 17, 16, 16, 16, 17, 14), "D": (28, 18, 17, 17, 17, 18, 28),
    "E": (31, 16, 16, 30, 16, 16, 31), "F": (31, 16, 16, 30, 16, 16, 16),
    "G": (14, 17, 16, 23, 17, 17, 15), "H": (17, 17, 17, 31, 17, 17, 17), "I": (14, 4, 4, 4, 4, 4, 14),
    "J": (7, 2, 2, 2, 2, 18, 12), "K": (17, 18, 20, 24, 20, 18, 17), "L": (16, 16, 16, 16, 16, 16, 31),
    "M": (17, 27, 21, 21, 17, 17, 17), "N": (17, 17, 25, 21, 19, 17, 17),
    "O": (14, 17, 17, 17, 17, 17, 14), "P": (30, 17, 17, 30, 16, 16, 16),
    "Q": (14, 17, 17, 17, 21, 18, 13), "R": (30, 17, 17, 30, 20, 18, 17),
    "S": (15, 16, 16, 14, 1, 1, 30), "T": (31, 4, 4, 4, 4, 4, 4), "U": (17, 17, 17, 17, 17, 17, 14),
    "V": (17, 17, 17, 17, 17, 10, 4), "W": (17, 17, 17, 21, 21, 21, 10),
    "X": (17, 17, 10, 4, 10, 17, 17), "Y": (17, 17, 17, 10, 4, 4, 4), "Z": (31, 1, 2, 4, 8, 16, 31),
    " ": (0,) * 7, ".": (0, 0, 0, 0, 0, 12, 12), ",": (0, 0, 0, 0, 12, 4, 8), "-": (0, 0, 0, 31, 0, 0, 0),
    ":": (0, 12, 12, 0, 12, 12, 0), "%": (24, 25, 2, 4, 8, 19, 3), "(": (2, 4, 8, 8, 8, 4, 2),
    ")": (8, 4, 2, 2, 2, 4, 8), "/": (0, 1, 2, 4, 8, 16, 0), "=": (0, 0, 31, 0, 31, 0, 0),
    "+": (0, 4, 4, 31, 4, 4, 0), "_": (0, 0, 0, 0, 0, 0, 31), "<": (2, 4, 8, 16, 8, 4, 2),
    ">": (8, 4, 2, 1, 2, 4, 8),
}
WHITE, BLACK, GREY = (255, 255, 255), (40, 40, 40), (200, 200, 200)
COLOURS = ((52, 101, 164), (232, 128, 32))   # blue, orange


class Canvas:
    """An RGB image to draw on; ``save`` writes it as a PNG."""

    def __init__(self, width: int, height: int):
        self.px = np.full((height, width, 3), 255, dtype=np.uint8)

    def rect(self, x0: int, y0: int, x1: int, y1: int, colour) -> None:
        h, w = self.px.shape[:2]
        x0, x1 = sorted((max(0, min(w, int(x0))), max(0, min(w, int(x1)))))
        y0, y1 = sorted((max(0, min(h, int(y0))), max(0, min(h, int(y1)))))
        self.px[y0:y1, x0:x1] = colour

    def text(self, x: int, y: int, s: str, colour=BLACK, scale: int = 2, anchor: str = "left") -> None:
        width = len(s) * 6 * scale
        if anchor == "centre":
            x -= width // 2
        elif anchor == "right":
            x -= width
        for k, ch in enumerate(s.upper()):
            rows = _GLYPHS.get(ch, _GLYPHS["-"])
            for r, bits in enumerate(rows):
                for c in range(5):
                    if bits & (16 >> c):
                        px = x + (k * 6 + c) * scale
                        self.rect(px, y + r * scale, px + scale, y + (r + 1) * scale, colour)

    def save(self, path) -> None:
        h, w = self.px.shape[:2]
        raw = b"".join(b"\x00" + row.tobytes() for row in self.px)

        def chunk(tag: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + tag + data
                    + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def bars(canvas: Canvas, box: tuple, title: str, labels: list, series: list, unit: str = "%") -> None:
    """Grouped bars in ``box`` (x, y, width, height): one group per label, one bar
    per series (lists of values, as many as labels), a y axis from 0 to the
    largest value, the labels under the groups (every k-th where they crowd)."""
    x, y, w, h = box
    left, bottom, top = x + 70, y + h - 40, y + 40
    canvas.text(x + w // 2, y + 8, title, scale=2, anchor="centre")
    peak = max((max(s) for s in series if len(s)), default=0) or 1
    step = _nice(peak / 4)
    ymax = step * int(np.ceil(peak / step))
    for k in range(int(round(ymax / step)) + 1):
        v = k * step
        yy = bottom - (bottom - top) * v / ymax
        canvas.rect(left, yy, x + w - 10, yy + 1, GREY)
        canvas.text(left - 6, int(yy) - 7, f"{v:g}{unit}", scale=2, anchor="right")
    canvas.rect(left, top, left + 2, bottom, BLACK)
    canvas.rect(left, bottom, x + w - 10, bottom + 2, BLACK)
    groups = len(labels)
    gw = (x + w - 10 - left) / max(groups, 1)
    bw = gw * 0.8 / max(len(series), 1)
    every = max(1, int(np.ceil(groups * max(len(str(s)) for s in labels) * 12 / (w - 80))))
    for g, label in enumerate(labels):
        gx = left + g * gw + gw * 0.1
        for k, values in enumerate(series):
            v = values[g]
            canvas.rect(gx + k * bw, bottom - (bottom - top) * v / ymax, gx + (k + 1) * bw - 1, bottom,
                        COLOURS[k % len(COLOURS)])
        if g % every == 0:
            canvas.text(int(left + (g + 0.5) * gw), bottom + 10, str(label), scale=2, anchor="centre")


def legend(canvas: Canvas, x: int, y: int, names: list) -> None:
    for k, name in enumerate(names):
        canvas.rect(x, y + k * 26, x + 18, y + k * 26 + 18, COLOURS[k % len(COLOURS)])
        canvas.text(x + 28, y + k * 26 + 2, name, scale=2)


def _nice(v: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``v``."""
    if v <= 0:
        return 1.0
    p = 10 ** np.floor(np.log10(v))
    for m in (1, 2, 5, 10):
        if m * p >= v:
            return float(m * p)
    return float(10 * p)


__all__ = ["Canvas", "bars", "legend"]
