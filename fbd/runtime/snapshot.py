"""The retain file: a PLC's RETAIN and PERSISTENT variables kept on disk, as a
controller keeps them in battery-backed memory through a power cycle.

The file is one line of header, then a JSON body (UTF-8)::

    fbd-retain 2 <length of the body in bytes> <SHA-256 of the body, hex>
    {"program": "prg", "scan": 1200, "time_us": 6000000, "variables": [
      {"path": "prg.n", "type": "INT", "qualifier": "RETAIN", "value": 1200}, ...]}

A value is the variable's run-time form (TIME and the dates in ns, an ARRAY or
STRUCT a list; a REAL's float is written by its shortest repr, which reads back
to the same binary32 value). Version 1, written before TIME held ns, counted
them in µs: its TIME and date values are read as µs (times 1000) where the
variable's type is still the file's. A file that does not start with the
magic word, has another version, or whose length or checksum do not match is
refused whole, by name: a torn or foreign file never restores anything.

Writing is atomic: the body goes to a temporary file in the same directory,
which is flushed and fsynced, then renamed over the file (``os.replace``), and
the directory is fsynced so the rename itself survives a power loss. A
process killed at any instant leaves either the previous complete file or the
new one (and perhaps a temporary file, removed at the next start).

:class:`RetainFile` saves a PLC's retained variables every ``period`` seconds
of PLC time (taken at a scan boundary in the PLC's thread, written by a
thread of its own so a slow disk never delays a scan) and on :meth:`close`
(unless the PLC is in FAULT: the file keeps the last complete scan's);
:func:`read` and :meth:`RetainFile.restore` read them back (docs/retain.md).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import threading
from dataclasses import dataclass

from .. import types as t
from ..errors import FbdError
from ..types import deep_copy
from ..values import DATES, NS_PER_US, Kind
from .retain import Carried, Variable, carry, type_key

__all__ = ["Snapshot", "read", "write", "encode", "decode", "RetainFile", "MAGIC", "VERSION"]

MAGIC = "fbd-retain"
VERSION = 2
#: the versions read: 1 held TIME and the dates in µs
READABLE = ("1", "2")


@dataclass(frozen=True)
class Snapshot:
    """A retain file's content: program name, the scan and PLC time it was taken
    at, and each variable's path -> (type key, qualifier, value)."""
    program: str
    scan: int
    time_us: int
    variables: dict
    version: int = VERSION


def take(plc) -> Snapshot:
    """The retained variables of ``plc``'s main task, and a configuration's retained
    globals (by their names), as they stand (between scans)."""
    task = plc.main
    values = {v.path: (type_key(v.type), v.qualifier, deep_copy(task.s[v.slot]))
              for v in plc.retained}
    for v in _globals(plc):
        values[v.path] = (type_key(v.type), v.qualifier, deep_copy(plc.globals.s[v.slot]))
    return Snapshot(task.program.name, task.scans, plc.now_us + plc.clock_start_us, values)


def _globals(plc) -> list[Variable]:
    """A configuration's VAR_GLOBAL RETAIN and PERSISTENT, slots of its globals' table."""
    table = plc.globals
    if table is None:
        return []
    return [Variable(table.names[i], table.types[i], i, table.qualifiers[i])
            for i in table.retained]


def encode(snap: Snapshot) -> bytes:
    body = json.dumps({"program": snap.program, "scan": snap.scan, "time_us": snap.time_us,
                       "variables": [{"path": p, "type": tp, "qualifier": q, "value": v}
                                     for p, (tp, q, v) in snap.variables.items()]},
                      separators=(",", ":")).encode()
    header = f"{MAGIC} {VERSION} {len(body)} {hashlib.sha256(body).hexdigest()}\n".encode()
    return header + body


def decode(data: bytes, where: str) -> Snapshot:
    """The snapshot in ``data``; FbdError naming ``where`` for a torn or foreign file."""
    head, _, body = data.partition(b"\n")
    words = head.decode("ascii", "replace").split()
    if len(words) != 4 or words[0] != MAGIC:
        raise FbdError(f"{where}: not a retain file (it does not begin with '{MAGIC}')")
    if words[1] not in READABLE:
        raise FbdError(f"{where}: a retain file of version {words[1][:10]}, this fbd reads "
                       f"version {VERSION}")
    if not words[2].isdigit() or int(words[2]) != len(body) \
            or hashlib.sha256(body).hexdigest() != words[3]:
        raise FbdError(f"{where}: the retain file is torn or damaged (its length or checksum "
                       f"does not match); nothing restored from it")
    try:
        doc = json.loads(body)
        variables = {v["path"]: (v["type"], v["qualifier"], v["value"]) for v in doc["variables"]}
        return Snapshot(doc["program"], int(doc["scan"]), int(doc["time_us"]), variables,
                        int(words[1]))
    except (ValueError, KeyError, TypeError) as e:
        raise FbdError(f"{where}: the retain file's body is not what fbd writes ({e})") from None


def write(path: str, snap: Snapshot) -> None:
    """Write ``snap`` to ``path`` atomically (see the module's text)."""
    directory = os.path.dirname(os.path.abspath(path))
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as f:
            f.write(encode(snap))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read(path: str) -> Snapshot | None:
    """The snapshot in ``path``, None if there is no such file yet (a first start).
    Temporary files a killed writer left beside it are removed."""
    for stale in glob.glob(glob.escape(path) + ".*.tmp"):
        try:
            os.unlink(stale)
        except OSError:
            pass
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FbdError(f"{path}: cannot read the retain file ({e.strerror})") from None
    return decode(data, path)


def restore(plc, snap: Snapshot, kept=None) -> Carried:
    """Put ``snap``'s values into ``plc``'s retained variables (those of ``kept``
    qualifiers, default all retained): what matches by path and type; see
    :func:`fbd.runtime.retain.carry`. Outputs published from a restored variable
    show it at once."""
    task = plc.main
    def wanted(var) -> bool:
        return kept is None or var.qualifier in kept
    old = {p: (tp, v) for p, (tp, q, v) in snap.variables.items()
           if kept is None or q in kept}
    if snap.version == 1:
        old = _in_ns(old, [*plc.retained, *_globals(plc)])
    carried = carry(old, [v for v in plc.retained if wanted(v)], task.s,
                    new_why="not in the retain file")
    in_globals = [v for v in _globals(plc) if wanted(v)]
    if in_globals:
        names = {v.path.upper() for v in in_globals}
        rest = {p: old[p] for p in carried.dropped if p.upper() in names}
        carried.dropped = [p for p in carried.dropped if p not in rest]
        carry(rest, in_globals, plc.globals.s, carried, new_why="not in the retain file")
    flat = task.program.flat
    for out_slot, source in flat.publish:
        task.s[out_slot] = task.s[source]
    return carried


def _in_ns(old: dict, variables) -> dict:
    """A version-1 file's values with its TIME and dates (µs there) in ns, for the
    variables whose type is still the file's (another type is carried, or not, as
    any other)."""
    types = {v.path.upper(): v.type for v in variables}
    def scaled(tp, value):
        tp = tp.canonical
        if tp.kind is Kind.TIME or tp.kind in DATES:
            return tp.wrap_value(int(value) * NS_PER_US)
        if isinstance(tp, t.ArrayType):
            return [scaled(tp.element, x) for x in value]
        if isinstance(tp, t.StructType):
            return [scaled(f.type, x) for f, x in zip(tp.fields, value)]
        return value
    out = {}
    for path, (key, value) in old.items():
        tp = types.get(path.upper())
        out[path] = (key, scaled(tp, value)) if tp is not None and key == type_key(tp) else (key, value)
    return out


class RetainFile:
    """Keeps ``plc``'s retained variables in ``path`` (see the module's text)."""

    def __init__(self, plc, path: str, period: float = 1.0):
        if not period > 0:
            raise FbdError(f"the retain period must be positive, not {period!r}")
        self.plc = plc
        self.path = path
        self.period_us = round(period * 1e6)
        self.saves = 0
        self.error: str | None = None     # the last write's failure, if it failed
        self._due = plc.now_us + self.period_us
        self._pending: Snapshot | None = None
        self._wake = threading.Condition()
        self._closing = False
        self._writer = threading.Thread(target=self._write_loop, name="fbd-retain", daemon=True)
        self._writer.start()
        plc.main.traces.append(self)

    def restore(self) -> tuple[Snapshot | None, Carried | None]:
        """Read the file into the PLC's retained variables (a warm start):
        (the snapshot, what was carried), or (None, None) with no file yet."""
        snap = read(self.path)
        return (snap, restore(self.plc, snap)) if snap is not None else (None, None)

    def record(self, _s, _scan: int, now_us: int) -> None:
        """After a scan: take the snapshot when a period has passed."""
        if now_us - self.plc.clock_start_us >= self._due:
            self._due = now_us - self.plc.clock_start_us + self.period_us
            self.save()

    def save(self) -> None:
        """Hand the variables as they stand now to the writer (the latest wins)."""
        snap = take(self.plc)
        with self._wake:
            self._pending = snap
            self._wake.notify()

    def _write_loop(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._closing:
                    self._wake.wait()
                snap, self._pending = self._pending, None
                if snap is None:
                    return
            try:
                write(self.path, snap)
                self.saves += 1
                self.error = None
            except OSError as e:
                self.error = f"{self.path}: cannot write the retain file ({e.strerror})"

    def close(self) -> None:
        """Save once more (an orderly stop) and wait until it is on disk. A PLC in
        FAULT is not saved again: the scan that raised left its variables half
        done, and the file keeps the last complete scan's."""
        if self in self.plc.main.traces:
            self.plc.main.traces.remove(self)
        if self.plc.state != "FAULT":
            self.save()
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._writer.join()
