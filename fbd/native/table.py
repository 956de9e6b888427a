"""The native engine's signal table: one flat buffer of 8-byte cells.

The compiled scan reads and writes the buffer directly (cell ``k`` at byte
``8 * k``); Python reads and writes the very same memory between scans, with
no copy, through memoryviews of it, so everything written against the Python
engine's list (``s[slot]``, ``s[slot] = v``, ``len(s)``, ``s.append(v)``
for a forcing's scratch slot) works unchanged. Each cell holds one kind of
value, fixed by its signal's type:

* ``b``: BOOL as 0 or 1 (read back as ``bool``);
* ``q``: signed integers, every integer type narrower than 64 bits, TIME;
* ``Q``: ULINT and LWORD, unsigned 64-bit;
* ``d``: REAL and LREAL, IEEE doubles.

An ARRAY or STRUCT signal's slot holds nothing itself: its elements live in a
region of cells (:mod:`.regions`), read and written through the slot as the
nested list the Python engine keeps.

The buffer is allocated once with room for every scratch slot a forcing can
ask for, so its address never changes and a numpy view of it
(:meth:`NativeTable.ints`, :meth:`NativeTable.floats`) stays valid.
"""

from __future__ import annotations

import numpy as np

from . import regions

KIND_CODES = {"q": 0, "d": 1, "b": 2, "Q": 3}
STORE = 4   # a LIFO/FIFO's DATA: its elements live in a region of the table (fbd.native.stores)
AGGREGATE = 5   # an ARRAY or STRUCT: its elements live in a region of the table


class NativeTable:
    """The signal table of one native program run (see the module docstring)."""

    __slots__ = ("_buf", "_q", "_d", "_b", "_Q", "_kinds", "_n", "address", "capacity", "_stores",
                 "_regions")

    def __init__(self, kinds: bytearray, capacity: int, stores: dict | None = None,
                 regions_: dict | None = None):
        self.capacity = capacity
        self._buf = np.zeros(capacity, dtype=np.int64)
        self.address = self._buf.ctypes.data
        raw = memoryview(self._buf).cast("B")
        self._q = raw.cast("q")
        self._d = raw.cast("d")
        self._Q = raw.cast("Q")
        self._b = raw.cast("?")   # the low byte of each cell: 8 * slot (little-endian)
        self._kinds = kinds       # the program's, shared: scratch slots add to it
        self._stores = stores or {}
        self._regions = regions_ if regions_ is not None else {}   # slot -> (first cell, type)
        self._n = 0

    # -- the list protocol the runtime uses --------------------------------------------
    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        # the hot path (a trace, a watch, the HMI read s[slot] with slot >= 0): one
        # look at the cell's kind and one read of the buffer
        k = self._kinds[i]
        if k == 0 and i >= 0:
            return self._q[i]
        if k == 2 and i >= 0:
            return self._b[i << 3]
        if k == 1 and i >= 0:
            return self._d[i]
        return self._other(i, k)

    def _other(self, i, k):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("signal table index out of range")
        k = self._kinds[i]
        if k == STORE:
            return self._store(i)
        if k == AGGREGATE:
            base, tp = self._regions[i]
            return regions.read(self._cell_of_kind, base, tp)
        return self._cell(k, i)

    def _cell_of_kind(self, kind: str, i: int):
        return self._cell(KIND_CODES[kind], i)

    def _cell(self, kind: int, i: int):
        if kind == 0:
            return self._q[i]
        if kind == 2:
            return self._b[i << 3]
        if kind == 1:
            return self._d[i]
        return self._Q[i]

    def _store(self, slot: int) -> list:
        """A LIFO/FIFO's elements, oldest first (a copy: the block owns them)."""
        base, depth, fifo, kind = self._stores[slot]
        count = min(max(self._q[base], 0), depth)
        head = self._q[base + 1] % depth if fifo else 0
        return [self._cell(kind, base + 2 + (head + j) % depth) for j in range(count)]

    def _set_store(self, slot: int, values) -> None:
        base, depth, fifo, kind = self._stores[slot]
        values = list(values)[:depth]
        self._q[base], self._q[base + 1] = len(values), 0
        for j, v in enumerate(values):
            self._set_cell(kind, base + 2 + j, v)

    def __setitem__(self, i, value) -> None:
        if type(i) is not int:
            i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("signal table index out of range")
        k = self._kinds[i]
        if k == STORE:
            self._set_store(i, value)
        elif k == AGGREGATE:
            base, tp = self._regions[i]
            regions.write(self._set_cell_of_kind, base, tp, value)
        else:
            self._set_cell(k, i, value)

    def _set_cell_of_kind(self, kind: str, i: int, value) -> None:
        self._set_cell(KIND_CODES[kind], i, value)

    def _set_cell(self, k: int, i: int, value) -> None:
        if k == 0:
            self._q[i] = int(value)
        elif k == 2:
            self._q[i] = 1 if value else 0
        elif k == 1:
            self._d[i] = float(value)
        else:
            self._Q[i] = int(value)

    def __iter__(self):
        for i in range(self._n):
            yield self[i]

    def append(self, value) -> None:
        """A scratch slot (forcing); its kind is already in the program's kinds."""
        if self._n >= self.capacity - 1:  # the last cell is the trap cell
            raise IndexError("the native signal table is full")
        self._n += 1
        self[self._n - 1] = value

    def fill(self, values) -> None:
        """Set the first ``len(values)`` cells (a cold start)."""
        self._n = max(self._n, len(values))
        for i, v in enumerate(values):
            self[i] = v

    def copy(self) -> "NativeTable":
        other = NativeTable(self._kinds, self.capacity, self._stores, self._regions)
        other._buf[:] = self._buf
        other._n = self._n
        return other

    def tolist(self) -> list:
        return list(self)

    def __eq__(self, other) -> bool:
        """Two tables (or a table and a list) holding the same values, slot by slot."""
        if isinstance(other, (NativeTable, list)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None

    # -- zero-copy views ---------------------------------------------------------------
    def ints(self) -> np.ndarray:
        """Every cell as int64 (BOOL 0/1, integers, TIME; ULINT's bits), no copy."""
        return self._buf[:self._n]

    def floats(self) -> np.ndarray:
        """Every cell as float64 (meaningful for REAL and LREAL cells), no copy."""
        return self._buf[:self._n].view(np.float64)

    @property
    def trap(self) -> int:
        return self._q[self.capacity - 1]

    def __repr__(self) -> str:
        return f"<NativeTable {self._n} slots at 0x{self.address:x}>"
