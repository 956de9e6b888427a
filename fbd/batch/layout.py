"""The native batch engine's signal table: tiles of W instances, a row per slot.

n instances are cut into tiles of W (:data:`WIDTH`) consecutive instances;
the last tile is padded. A tile holds one *row* per slot of the flat
program: that slot's values for the tile's W instances, side by side, in
the slot's own width (a bit per instance for a BOOL, two bytes for an INT,
four for a REAL: :class:`~.vector.Row`). The scan runs every block over one
tile, then the next, so a tile's rows (a few hundred kilobytes for a
program of a few thousand blocks) stay in the cache while its blocks run,
and each block's work is a handful of vector instructions over W lanes.

Rows lie largest first, so each is aligned to its size (up to 64 bytes: a
tile is 64-byte aligned), which the vector code's loads state. A LIFO's or
FIFO's region (``[count, head, elements]``, as in :mod:`fbd.native.stores`)
is a row of 64-bit lanes per cell. Scratch rows for forced slots are added
at the end of the tile, so the rows already placed keep their offsets.

:class:`TileTable` is one run's table: the tiles in one buffer, and a small
control block the scan reads its arguments from and reports a trap in.
Python reads and writes any slot's n values through numpy views of the rows.
"""

from __future__ import annotations

import numpy as np

from ..native.lower import slot_kind
from .template import dtype_of
from .vector import Row

#: Instances per tile: the lanes of the vector code.
WIDTH = 16

_IR = {"bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
       "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
       "float32": "float", "float64": "double"}
#: the control block's cells (int64): what the scan is given and what it reports
#: (LIVE: the address of the tiles' masks of lanes still scanned)
TRAP, TRAP_LANE, TABLE, TILES, INSTANCES, LIVE = range(6)


def row_of(tp) -> Row | None:
    """The row of a slot of IEC type ``tp`` (None: no native cell, such as a STRING)."""
    kind = slot_kind(tp)
    if kind is None:
        return None
    dtype = dtype_of(tp)
    return Row(_IR[dtype], dtype.startswith("int"), kind, dtype)


#: the range of a 64-bit integer slot that a row of 32 bits holds
NARROW_RANGE = (-(1 << 31), (1 << 31) - 1)


def narrowed_row(row: Row) -> Row:
    """``row`` (a 64-bit signed integer's) in 32-bit lanes, its values still read
    out as its own dtype: for a slot whose writer keeps it in :data:`NARROW_RANGE`."""
    return Row("i32", True, row.kind, "int32", row.dtype)


def internal_row(init) -> Row:
    """The row of a block's internal number that no block writes (its initial
    value's Python type), as :class:`fbd.native.NativeProgram` gives it a cell."""
    if isinstance(init, bool):
        return Row("i1", False, "b", "bool")
    if isinstance(init, float):
        return Row("double", True, "d", "float64")
    return Row("i64", True, "q", "int64")


class Layout:
    """Where each slot's row lies in a tile of ``width`` instances.

    ``rows[slot]``: its :class:`~.vector.Row` (None for a LIFO/FIFO's DATA,
    whose elements are the region of its block); ``regions[slot]``: that
    region's (offset, depth, fifo, element row); ``offsets[slot]``: byte offset
    of its row (or region) in the tile; ``tile``: bytes per tile."""

    def __init__(self, rows: list, regions: dict, width: int = WIDTH):
        self.width = width
        self.rows = list(rows)
        self.regions: dict[int, tuple] = {}
        self.offsets: list[int] = [0] * len(rows)
        sizes = [(row.size(width) if row is not None else 0, slot)
                 for slot, row in enumerate(rows)]
        at = 0
        for size, slot in sorted(sizes, key=lambda p: -p[0]):
            if size:
                self.offsets[slot] = at
                at += size
        for slot, (depth, fifo, element) in sorted(regions.items()):
            self.offsets[slot] = at
            self.regions[slot] = (at, depth, fifo, element)
            at += (2 + depth) * 8 * width
        self.tile = -(-at // 64) * 64 or 64

    def add(self, like: int) -> int:
        """A scratch row like slot ``like``'s, at the end of the tile; its slot."""
        slot = len(self.rows)
        self.rows.append(self.rows[like])
        self.offsets.append(self.tile)
        self.tile += -(-self.rows[like].size(self.width) // 64) * 64
        return slot


class TileTable:
    """One run's signal table over ``layout`` for ``n`` instances (see the
    module docstring). ``address`` is the control block's, which the scan takes."""

    def __init__(self, layout: Layout, n: int):
        self.layout = layout
        self.n = n
        self.tiles = -(-n // layout.width)
        self.tile = layout.tile     # the layout's tile grows with a force's scratch rows
        self.size = self.tiles * self.tile
        self._raw = np.zeros(self.size + 64, dtype=np.uint8)
        start = -self._raw.ctypes.data % 64
        self.buf = self._raw[start:start + self.size]
        self.ctl = np.zeros(8, dtype=np.int64)
        self.ctl[TABLE] = self.buf.ctypes.data
        self.ctl[TILES] = self.tiles
        self.ctl[INSTANCES] = n
        # bit l of live[t]: instance t*W + l is scanned (padding lanes are not
        # instances; a tile whose mask is 0 is skipped: see retire)
        self.live = np.full(self.tiles, (1 << layout.width) - 1, dtype=np.int64)
        self.live[-1] = (1 << (n - (self.tiles - 1) * layout.width)) - 1
        self.ctl[LIVE] = self.live.ctypes.data
        self.address = self.ctl.ctypes.data
        self._views: dict[int, np.ndarray] = {}
        # the earliest clock the program's code may scan this table at (its clock
        # readings no more than a slack past the clock: NativeBatchProgram.scan)
        self.clock_floor = -(1 << 63)

    @property
    def trap(self) -> int:
        return int(self.ctl[TRAP])

    @property
    def trap_instance(self) -> int:
        return int(self.ctl[TRAP_LANE])

    # -- rows as numpy views ------------------------------------------------------------
    def _view(self, offset: int, dtype, lanes: int) -> np.ndarray:
        """(tiles, lanes) elements of ``dtype`` at ``offset`` in every tile."""
        dtype = np.dtype(dtype)
        return np.ndarray((self.tiles, lanes), dtype, self.buf, offset,
                          (self.tile, dtype.itemsize))

    def rows(self, slot: int) -> np.ndarray:
        """Slot ``slot``'s rows: (tiles, W) values, or (tiles, W/8) bytes of bits."""
        view = self._views.get(slot)
        if view is None:
            row, width = self.layout.rows[slot], self.layout.width
            if row.ir == "i1":
                view = self._view(self.layout.offsets[slot], np.uint8, width // 8)
            else:
                view = self._view(self.layout.offsets[slot], row.dtype, width)
            self._views[slot] = view
        return view

    def read(self, slot: int) -> np.ndarray:
        """The n values of a slot (a copy)."""
        if slot in self.layout.regions:
            return self._store(slot)
        rows = self.rows(slot)
        if self.layout.rows[slot].ir == "i1":    # a tile's bits follow the last tile's
            lanes = np.unpackbits(rows.reshape(-1), bitorder="little").view(bool)
        else:    # one copy (widened, for a narrowed row), then views of it
            lanes = np.array(rows, dtype=self.layout.rows[slot].values or None)
        return lanes.reshape(-1)[:self.n]

    def write(self, slot: int, values) -> None:
        """Set a slot in every instance: one value, or n values."""
        row, rows = self.layout.rows[slot], self.rows(slot)
        bits = row.ir == "i1"
        if np.ndim(values) == 0:
            rows[...] = (0xFF if values else 0) if bits else values
            return
        values = np.asarray(values)
        lanes = self.tiles * self.layout.width
        if len(values) != lanes:       # the last tile's padding: the last instance again
            padded = np.empty(lanes, dtype=row.dtype)
            padded[:self.n] = values
            padded[self.n:] = padded[self.n - 1]
            values = padded
        if bits:    # packed whole: a tile's bytes follow the last tile's (20 times faster
            # than packing tile by tile, which made inputs a tenth of a scan)
            rows[...] = np.packbits(values, bitorder="little").reshape(rows.shape)
        else:
            rows[...] = values.reshape(rows.shape)

    def _store(self, slot: int) -> np.ndarray:
        """A LIFO's or FIFO's elements per instance, oldest first (as the block's list)."""
        offset, depth, fifo, element = self.layout.regions[slot]
        width = self.layout.width
        cells = [self._view(offset + k * 8 * width, np.int64, width).reshape(-1)[:self.n]
                 for k in range(2 + depth)]
        cell = {"q": np.int64, "Q": np.uint64, "d": np.float64, "b": np.int64}[element.kind]
        values = [self._view(offset + (2 + k) * 8 * width, cell, width).reshape(-1)[:self.n]
                  for k in range(depth)]
        out = np.empty(self.n, dtype=object)
        counts = np.clip(cells[0], 0, depth).tolist()
        heads = (cells[1] % depth).tolist() if fifo else [0] * self.n
        columns = [v.tolist() for v in values]
        as_bool = element.kind == "b"
        for i in range(self.n):
            items = [columns[(heads[i] + j) % depth][i] for j in range(counts[i])]
            out[i] = [bool(x) for x in items] if as_bool else items
        return out

    # -- whole tables --------------------------------------------------------------------
    def fill_from(self, tile: np.ndarray) -> None:
        """Every tile a copy of ``tile`` (one tile's bytes)."""
        self.buf.reshape(self.tiles, self.tile)[...] = tile

    def regrown(self, layout: Layout) -> "TileTable":
        """This table under ``layout``, which has rows added at the end of the tile
        (a force's scratch rows): every row kept, the new ones zero."""
        other = TileTable(layout, self.n)
        other.buf.reshape(self.tiles, other.tile)[:, :self.tile] = \
            self.buf.reshape(self.tiles, self.tile)
        other.live[...] = self.live
        other.clock_floor = self.clock_floor
        return other

    def copy_into(self, other: "TileTable", slots, scratch: dict) -> None:
        """Every value of ``slots`` (and of the scratch rows ``scratch``: this
        table's slot -> ``other``'s), and which lanes are live, into ``other``, a
        table of another layout of the same instances (rows of other widths)."""
        mine, theirs = self.layout, other.layout
        grid = self.buf.reshape(self.tiles, self.tile)
        into = other.buf.reshape(other.tiles, other.tile)
        for slot in slots:
            if slot in mine.regions:       # 64-bit cells either way: bytes
                at, depth = mine.offsets[slot], mine.regions[slot][1]
                size, to = (2 + depth) * 8 * mine.width, theirs.offsets[slot]
                into[:, to:to + size] = grid[:, at:at + size]
            elif mine.rows[slot] is not None:
                other.write(slot, self.read(slot))
        for slot, theirs_slot in scratch.items():
            other.write(theirs_slot, self.read(slot))
        other.live[...] = self.live

    # -- retired instances ---------------------------------------------------------------
    def retire(self, instances: np.ndarray) -> None:
        """Scan ``instances`` no more: their lanes leave their tiles' live masks
        (a tile left without one is skipped, a lane left is still computed with
        its tile, but its traps are not reported)."""
        width = self.layout.width
        np.bitwise_and.at(self.live, instances // width, ~(1 << (instances % width)))

    def records(self, instances: np.ndarray, plan: "Records") -> dict:
        """Every row's values of ``instances``, as :class:`Records` ``plan`` groups
        them: for each width, a line of elements per instance."""
        width = self.layout.width
        tiles, lanes = instances // width, instances % width
        grid = self.buf.reshape(self.tiles, self.tile)
        out = {}
        for size, (start, count) in plan.groups.items():
            cut = grid[:, start:start + count * plan.row_bytes(size)]
            if size == 0:      # bit rows: the byte of the lane's bit, then the bit
                rows = cut.reshape(self.tiles, count, width // 8)
                picked = rows[tiles, :, lanes // 8]
                out[size] = (picked >> (lanes % 8).astype(np.uint8)[:, None]) & 1
            else:
                rows = cut.view(f"u{size}").reshape(self.tiles, count, width)
                out[size] = rows[tiles, :, lanes]
        return out


class Records:
    """The real slots' rows of a :class:`Layout` by width, to copy an instance's
    values out of the tiles in a few strided gathers (:meth:`TileTable.records`):
    rows lie largest first, so the rows of one element size are side by side.
    ``groups[size]``: (first byte, rows) of the rows of ``size``-byte elements
    (0: bit rows); ``where[slot]``: (size, its index among them). The LIFO's and
    FIFO's regions are not in it (their values are lists, copied as such)."""

    def __init__(self, layout: Layout, slots: range):
        self.width = layout.width
        self.layout = layout
        self.where: dict[int, tuple] = {}
        self.rows: dict = {}
        found: dict[int, list] = {}
        for slot in slots:
            row = layout.rows[slot]
            if row is None or slot in layout.regions:
                continue
            self.rows[slot] = row
            size = 0 if row.ir == "i1" else np.dtype(row.dtype).itemsize
            found.setdefault(size, []).append((layout.offsets[slot], slot))
        self.groups: dict[int, tuple] = {}
        for size, rows in found.items():
            rows.sort()
            start, step = rows[0][0], self.row_bytes(size)
            for k, (offset, slot) in enumerate(rows):
                if offset != start + k * step:      # Layout places rows so; a safeguard
                    raise AssertionError(f"rows of {size}-byte elements are not side by side")
                self.where[slot] = (size, k)
            self.groups[size] = (start, len(rows))

    def row_bytes(self, size: int) -> int:
        return self.width // 8 if size == 0 else self.width * size

    def empty(self, n: int) -> dict:
        """Records of ``n`` instances, to fill with :meth:`TileTable.records`."""
        return {size: np.zeros((n, count), dtype=f"u{size or 1}")
                for size, (_, count) in self.groups.items()}

    def values(self, kept: dict, which, slot: int) -> np.ndarray:
        """Slot ``slot``'s values of the instances ``which`` in ``kept`` (records of
        every instance, :meth:`empty`), as its rows held them (not the layout's now:
        the program may have widened its rows since)."""
        size, k = self.where[slot]
        column = kept[size][which, k]
        if size == 0:
            return column.astype(bool)
        row = self.rows[slot]
        values = column.view(row.dtype)
        return values.astype(row.values) if row.values else values

    def moved(self, kept: dict, other: "Records", n: int) -> dict:
        """``kept`` (records of ``n`` instances under this plan) under the plan ``other``
        of a layout whose rows may be wider."""
        out = other.empty(n)
        every = np.arange(n)
        for slot, (size, k) in other.where.items():
            values = self.values(kept, every, slot)
            out[size][:, k] = (values if size == 0
                               else values.astype(other.rows[slot].dtype).view(f"u{size}"))
        return out


__all__ = ["WIDTH", "Layout", "TileTable", "Records", "row_of", "internal_row", "narrowed_row",
           "NARROW_RANGE", "TRAP",
           "TRAP_LANE", "TABLE", "TILES", "INSTANCES", "LIVE"]
