"""``fbd run``'s output, written scan by scan as the run goes.

A run may be long (``--scans 10**9``): nothing here keeps more than one row,
so memory stays the same whatever the length. Each format is a recorder the
PLC calls after every scan (``record(s, scan, now_us)``, as a trace is):

* ``table``: aligned columns of IEC text (``TRUE``, ``T#1s``, ``'text'``); a
  column is as wide as its header and its type's widest value, so rows can be
  printed before the run has seen them all;
* ``csv``: numbers for spreadsheets (BOOL 0/1, TIME in seconds);
* ``json``: one object, its rows streamed one per line;
* ``--vcd FILE``: a Value Change Dump, written as values change.
"""

from __future__ import annotations

import csv
import json
from typing import TextIO

from .. import values as v
from ..runtime.trace import VcdWriter
from ..values import Kind

#: the width of a value of each kind whose width its type does not tell
_WIDTH = {Kind.BOOL: 5, Kind.REAL: 12, Kind.TIME: 10, Kind.STRING: 12, Kind.DATE: 13,
          Kind.TOD: 14, Kind.DT: 23}


def _width(tp) -> int:
    if tp is None:
        return 8
    if tp.kind in (Kind.INT, Kind.BITS):
        return max(len(v.format_value(tp, tp.min)), len(v.format_value(tp, tp.max)))
    return _WIDTH.get(tp.kind, 12)


class RowWriter:
    """Writes one row per scan of ``paths`` (their SignalInfos ``infos``) to ``out``."""

    def __init__(self, fmt: str, out: TextIO, network: str, infos, cycle_us: int,
                 vcd: TextIO | None = None):
        self.fmt, self.out = fmt, out
        self.paths = [i.path for i in infos]
        self.types = [i.type for i in infos]
        self._sources = [(i.slot, i.const) for i in infos]
        self._digits = 3 if cycle_us % 1000 == 0 else 6
        self._rows = 0
        self._vcd = VcdWriter(vcd, network, self.paths, self.types) if vcd else None
        if fmt == "csv":
            self._csv = csv.writer(out)
            self._csv.writerow(["scan", "time_s", *self.paths])
        elif fmt == "json":
            signals = json.dumps({p: str(tp) for p, tp in zip(self.paths, self.types)})
            out.write(f'{{"network": {json.dumps(network)}, "cycle_us": {cycle_us}, '
                      f'"signals": {signals}, "rows": [')
        else:
            self._widths = [max(len("scan"), 6), max(len("time s"), 9)] + [
                max(len(p), _width(tp)) for p, tp in zip(self.paths, self.types)]
            self._line(["scan", "time s", *self.paths])

    def _line(self, cells) -> None:
        self.out.write("  ".join(c.rjust(w) for c, w in zip(cells, self._widths)).rstrip()
                       + "\n")

    def record(self, s, scan: int, now_us: int) -> None:
        values = [const if slot is None else s[slot] for slot, const in self._sources]
        if self._vcd is not None:
            self._vcd.sample(now_us, values)
        if self.fmt == "csv":
            self._csv.writerow([scan, f"{now_us / 1e6:.6f}",
                                *(v.csv_value(tp, x) for tp, x in zip(self.types, values))])
        elif self.fmt == "json":
            row = {"scan": scan, "time_s": now_us / 1e6,
                   "values": {p: v.json_value(tp, x)
                              for p, tp, x in zip(self.paths, self.types, values)}}
            self.out.write(("\n " if self._rows == 0 else ",\n ") + json.dumps(row))
        else:
            self._line([str(scan), f"{now_us / 1e6:.{self._digits}f}",
                        *(v.format_value(tp, x) for tp, x in zip(self.types, values))])
        self._rows += 1

    def close(self) -> None:
        if self.fmt == "json":
            self.out.write("\n]}\n")
        self.out.flush()


__all__ = ["RowWriter"]
