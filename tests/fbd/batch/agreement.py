"""Run one network in the batch engine and as n scalar runs, and compare.

The scalar side is the compiled engine itself (:class:`fbd.compiler.ScanProgram`,
and the native one's :class:`fbd.native.NativeProgram` where asked), one
signal table per instance, latched and scanned exactly as a :class:`fbd.Plc`
does; the batch side is a :class:`fbd.batch.BatchHarness` with the same
inputs per instance. Every signal of every instance is compared
after every scan: integers and BOOLs equal, REALs bit for bit (every NaN
counts as NaN: the payload of a NaN is not an IEC value), STRINGs and a
LIFO's elements equal.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from fbd import STRING, TIME
from fbd.batch import BatchHarness
from fbd.compiler import compile_network
from fbd.native import available, compile_native
from fbd.native.engines import engine_of
from fbd.values import NS_PER_US

CYCLE_US = 5000
#: the batch engines, the native one where llvmlite is installed
BATCH_ENGINES = [pytest.param("numpy"), pytest.param("native", marks=pytest.mark.skipif(
    not available(), reason="llvmlite is not installed"))]
#: the scalar engines a batch instance is compared with
SCALAR_ENGINES = ("python", "native") if available() else ("python",)


def same(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(map(same, a, b)))
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, float) and isinstance(b, float)):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return type(a) is type(b) and a == b
    return a == b


class Pair:
    """A network compiled for a batch ``engine`` (``"numpy"`` or ``"native"``) and
    for the ``scalar`` engines (``"python"``, ``"native"``), to be driven with
    per-instance inputs."""

    def __init__(self, net, lanes: int, engine: str, scalar=("python",)):
        self.lanes = lanes
        self.programs = [compile_network(net) if e == "python" else compile_native(net)
                         for e in scalar]
        self.program = self.programs[0]
        self.batch = BatchHarness(net, n=lanes, engine=engine)
        self.paths = [p for p, info in self.program.signals.items()
                      if info.kind in ("out", "state", "in", "output")]
        self.reset()

    def reset(self):
        self.runs = [(program, [program.new_table() for _ in range(self.lanes)])
                     for program in self.programs]
        self.batch.reset()
        self.scans = 0

    def set(self, name: str, values: list) -> None:
        """Write input ``name``: one raw value (TIME in ns) per instance."""
        slot = self.program.inputs[name]
        tp = self.program.input_types[name]
        for _program, tables in self.runs:
            for table, v in zip(tables, values):
                table[slot] = v
        if tp is TIME:
            arr = np.array(values, dtype=np.int64).view("timedelta64[ns]")
        elif tp is STRING:
            arr = np.empty(self.lanes, dtype=object)
            arr[...] = values
        else:
            arr = np.array(values, dtype=self.batch.program.slot_dtypes[slot])
        self.batch.set({name: arr})

    def scan(self) -> None:
        now = self.scans * CYCLE_US * NS_PER_US     # the scan's clock, a TIME in ns
        for program, tables in self.runs:
            for table in tables:
                program.scan(table, now)
        self.batch.scan()
        self.scans += 1

    def mismatches(self, paths=None, limit: int = 5) -> list:
        """What differs, of ``paths`` (default: every signal), between the batch's
        instances and the scalar runs."""
        wrong = []
        signals = self.program.signals
        for path in self.paths if paths is None else paths:
            info = signals[path]
            raw = self.batch.get_raw(path)
            got = raw.tolist()
            for program, tables in self.runs:
                wants = [table[info.slot] for table in tables] if info.slot is not None \
                    else [info.const] * self.lanes
                if raw.dtype.kind in "iu" and got == wants or raw.dtype.kind == "b" \
                        and got == wants and all(type(w) is bool for w in wants):
                    continue   # the common case, at C speed
                for lane, want in enumerate(wants):
                    if not same(got[lane], want):
                        wrong.append(f"scan {self.scans}, instance {lane}: {path} is "
                                     f"{got[lane]!r} in the batch, {want!r} on the scalar "
                                     f"{engine_of(program)} engine")
                        if len(wrong) >= limit:
                            return wrong
        return wrong
