"""Per-scan recording of chosen signals into numpy arrays, with CSV and VCD export."""

from __future__ import annotations

import csv
import io
from typing import TextIO

import numpy as np

from .. import types as t
from ..real32 import real32_text
from ..values import Kind, csv_value


def _dtype(tp: t.DataType | None):
    if tp is None or tp.kind is Kind.STRING:
        return object
    if tp.kind is Kind.BOOL:
        return np.bool_
    if tp.kind is Kind.REAL:
        return np.float64
    if not tp.signed and tp.bits == 64:
        return np.uint64
    return np.int64


class Trace:
    """Samples of signals taken after each scan.

    ``capacity`` keeps only the last N scans (a ring buffer); ``None`` keeps
    everything (the arrays grow by doubling).
    """

    def __init__(self, network: str, paths, types, slots, consts, capacity, cycle_us: int):
        self.network = network
        self.paths = list(paths)
        self.types = list(types)
        self._slots = list(slots)
        self._consts = list(consts)
        self.capacity = capacity
        self.cycle_us = cycle_us
        size = capacity or 1024
        self._scan = np.zeros(size, np.int64)
        self._time = np.zeros(size, np.int64)
        self._data = [np.zeros(size, _dtype(tp)) for tp in self.types]
        self._n = 0
        self._sources = [(slot, const, arr) for slot, const, arr in
                         zip(self._slots, self._consts, self._data)]

    def record(self, s: list, scan: int, now_us: int) -> None:
        n = self._n
        size = len(self._scan)
        if self.capacity is None and n >= size:
            self._grow(size * 2)
            size *= 2
        i = n % size
        self._scan[i] = scan
        self._time[i] = now_us
        for slot, const, arr in self._sources:
            arr[i] = const if slot is None else s[slot]
        self._n = n + 1

    def follow(self, program) -> list[str]:
        """Read ``program``'s table from now on (an online change), each column by its
        path; a path it no longer has, or of another type, records its type's
        initial value. Returns those paths."""
        lost = []
        for k, (path, tp) in enumerate(zip(self.paths, self.types)):
            if self._slots[k] is None:
                continue
            info = program.signals.get(path)
            if info is None or info.slot is None or info.type is not tp:
                lost.append(path)
                self._slots[k], self._consts[k] = None, tp.default if tp is not None else None
            else:
                self._slots[k] = info.slot
        self._sources = [(slot, const, arr) for slot, const, arr in
                         zip(self._slots, self._consts, self._data)]
        return lost

    def _grow(self, size: int) -> None:
        def grown(a):
            b = np.zeros(size, a.dtype)
            b[:len(a)] = a
            return b
        self._scan = grown(self._scan)
        self._time = grown(self._time)
        self._data = [grown(a) for a in self._data]
        self._sources = [(slot, const, arr) for slot, const, arr in
                         zip(self._slots, self._consts, self._data)]

    def __len__(self) -> int:
        return min(self._n, len(self._scan))

    def _ordered(self, a: np.ndarray) -> np.ndarray:
        n, size = self._n, len(a)
        if n <= size:
            return a[:n].copy()
        start = n % size
        return np.concatenate([a[start:], a[:start]])

    @property
    def scans(self) -> np.ndarray:
        """Scan numbers (1 = the first scan) of the kept samples."""
        return self._ordered(self._scan)

    @property
    def times(self) -> np.ndarray:
        """Simulated time in seconds at the start of each kept scan."""
        return self._ordered(self._time) / 1e6

    def __getitem__(self, path: str) -> np.ndarray:
        try:
            k = self.paths.index(path)
        except ValueError:
            raise KeyError(f"{path!r} is not traced; traced: {', '.join(self.paths)}") from None
        return self._ordered(self._data[k])

    def clear(self) -> None:
        self._n = 0

    # -- export -------------------------------------------------------------------
    def to_csv(self, out: str | TextIO) -> None:
        """One row per scan: scan, time in seconds, then each signal (TIME in seconds)."""
        if isinstance(out, str):
            with open(out, "w", newline="") as f:
                self.to_csv(f)
            return
        w = csv.writer(out)
        w.writerow(["scan", "time_s", *self.paths])
        cols = [self[p] for p in self.paths]
        for r, (scan, time) in enumerate(zip(self.scans, self.times)):
            row = [int(scan), f"{time:.6f}"]
            for tp, col in zip(self.types, cols):
                row.append(csv_value(tp, col[r]))
            w.writerow(row)

    def csv_text(self) -> str:
        buf = io.StringIO()
        self.to_csv(buf)
        return buf.getvalue()

    def to_vcd(self, out: str | TextIO) -> None:
        """Value Change Dump (IEEE 1364) at 1 us resolution; GTKWave opens it.
        Dotted paths become nested scopes. STRING signals are left out (VCD has no
        string variables)."""
        if isinstance(out, str):
            with open(out, "w") as f:
                self.to_vcd(f)
            return
        vcd = VcdWriter(out, self.network, self.paths, self.types)
        cols = [self[p] for p in self.paths]
        for r, time in enumerate(self._ordered(self._time)):
            vcd.sample(int(time), [col[r] for col in cols])

    def vcd_text(self) -> str:
        buf = io.StringIO()
        self.to_vcd(buf)
        return buf.getvalue()


class VcdWriter:
    """Writes a Value Change Dump as samples come, one scan at a time: the header
    at once, then at each sample the signals that changed (a run of any length
    holds only the last values in memory)."""

    def __init__(self, out: TextIO, network: str, paths, types):
        self.out = out
        self.types = list(types)
        self.idents: dict[int, str] = {}
        tree: dict = {}
        for k, (path, tp) in enumerate(zip(paths, self.types)):
            if tp is None or tp.kind is Kind.STRING:
                continue
            self.idents[k] = _vcd_id(k)
            node = tree
            parts = path.split(".")
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node.setdefault(None, []).append((parts[-1], k))
        out.write("$date simulated $end\n$version fbd $end\n$timescale 1us $end\n")
        _vcd_scope(out, network, tree, self.idents, self.types)
        out.write("$enddefinitions $end\n")
        self._last: dict[int, object] = {}

    def sample(self, time_us: int, values) -> None:
        """The values of every signal (in the order of ``paths``) at ``time_us``."""
        changes = []
        last = self._last
        for k, ident in self.idents.items():
            v = values[k]
            if k not in last or last[k] != v:
                last[k] = v
                changes.append(_vcd_value(self.types[k], v, ident))
        if changes:
            self.out.write(f"#{int(time_us)}\n" + "\n".join(changes) + "\n")


def _vcd_id(k: int) -> str:
    chars = [chr(c) for c in range(33, 127)]
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, len(chars))
        out = chars[r] + out
    return out


def _vcd_scope(out, name, tree, idents, types) -> None:
    out.write(f"$scope module {name} $end\n")
    for leaf_name, k in tree.get(None, []):
        tp = types[k]
        if tp.kind is Kind.REAL:
            out.write(f"$var real 64 {idents[k]} {leaf_name} $end\n")
        else:
            out.write(f"$var wire {tp.bits} {idents[k]} {leaf_name} $end\n")
    for child, sub in tree.items():
        if child is not None:
            _vcd_scope(out, child, sub, idents, types)
    out.write("$upscope $end\n")


def _vcd_value(tp, v, ident: str) -> str:
    if tp.kind is Kind.BOOL:
        return f"{int(bool(v))}{ident}"
    if tp.kind is Kind.REAL:  # a REAL as the shortest text of its single-precision value
        return f"r{real32_text(float(v)) if tp.bits == 32 else repr(float(v))} {ident}"
    value = int(v) & ((1 << tp.bits) - 1)
    return f"b{value:b} {ident}"
