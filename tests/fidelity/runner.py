"""Run a program here and compare it with matiec's rows, every variable after
every scan, bit for bit; and say what happened in one :class:`Outcome`.

Here the program runs as a user runs it: ``fbd.load(path)``, the file's PLC at
the oracle's cycle, each input written just before its scan as the oracle's
``--set`` writes it (a located input through the process image, latched at
the start of the scan). Values compare exactly: REAL and LREAL as the same
double (a REAL here that is no binary32 value differs from every matiec REAL),
the sign of a zero included, NaN equal to NaN (matiec's JSON drops its sign);
TIME, DATE, TOD and DT in ns (here µs, matiec ns).

Not compared: EN and ENO (matiec gives every FB instance both; here an FB
has them only where a call names them) and the standard FBs' internal
variables (``STATE``, ``PREV_IN``, ``CU_T`` ...: each implementation's own).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import signal
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import fbd
from fbd.errors import FbdError
from fbd.st.stdlib import STANDARD
from fbd.values import parse_value
from tests.fbd.st.scans import resolve

from . import iectypes as ty
from .oracle import CYCLE_MS, OracleError

AGREE = "agree"
DIFFER = "differ"
FBD_REFUSES = "fbd refuses"
FBD_FAULT = "fbd fault"                # an FbdError while scanning (the PLC stops the scan)
FBD_CRASH = "fbd crash"                # any other exception: a traceback a user would see
MATIEC_REFUSES = "matiec refuses"      # the generator wrote something matiec does not take
MATIEC_CRASH = "matiec crash"
TIMEOUT = "timeout"
ORACLE_FAILED = "oracle failed"

NOT_COMPARED = frozenset({"EN", "ENO"} | {name for pou in map(STANDARD.lookup, STANDARD.names())
                                          if pou.kind == "FUNCTION_BLOCK" for name in pou.internals})
_EPOCH = _dt.datetime(1970, 1, 1)


@dataclass
class Outcome:
    kind: str
    detail: str = ""
    scan: int | None = None
    column: str | None = None
    type: str | None = None
    mine: object = None
    theirs: object = None
    relation: str = ""

    @property
    def signature(self) -> str:
        """What groups outcomes of one cause: the kind, the type and how the values
        differ, or the error with its names and numbers blotted out."""
        if self.kind == DIFFER:
            return f"differ: {type_class(self.type)} {self.relation}".strip()
        if self.kind == AGREE:
            return AGREE
        return f"{self.kind}: {normalise(self.detail)}"

    def line(self) -> str:
        if self.kind == DIFFER:
            return (f"scan {self.scan}: {self.column} ({self.type}) is {self.mine!r} here, "
                    f"matiec {self.theirs!r}")
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


def coarse(signature: str) -> str:
    """A signature with its type names blotted out too: one cause often shows
    with many types (``cannot assign INT to di_N, which is DINT``, ``... UDINT``)."""
    if signature.startswith(DIFFER):
        return signature
    types = "|".join(ty.ELEMENTARY)
    signature = re.sub(rf"\b(?:{types})_TO_(?:{types})\b", "T_TO_T", signature)
    return re.sub(rf"\b({types})\b|\b[a-z]+_N\b", lambda m: "T" if m[1] else "x_N", signature)


def type_class(tp: str | None) -> str:
    return tp if tp in ty.ELEMENTARY else "enumeration"


def normalise(message: str) -> str:
    """An error without what differs from one program to the next."""
    m = re.sub(r"^.*?\.st:\d+(:\d+)?:\s*", "", message.strip())
    m = re.sub(r': "[^"]*"$', "", m)
    m = re.sub(r"^in (PROGRAM|FUNCTION|FUNCTION_BLOCK) \w+: ", "", m)
    m = re.sub(r"\b([a-z]+)_\d+\b", r"\1_N", m, flags=re.I)
    m = re.sub(r"\b(scan|line|column) \d+", r"\1 N", m)
    m = re.sub(r"(?<![\w#])-?\d+(\.\d+)?\b", "N", m)
    return m[:200]


# -- values ----------------------------------------------------------------------
def iec_date_ns(text: str) -> int:
    """``D#2024-01-31``, ``TOD#12:00:00.5``, ``DT#2024-01-31-12:00:00`` as ns since 1970."""
    prefix, body = text.split("#", 1)
    if prefix.upper() == "D":
        day = _dt.datetime.strptime(body, "%Y-%m-%d")
        return (day - _EPOCH) // _dt.timedelta(microseconds=1) * 1000
    clock = body if prefix.upper() == "TOD" else body[11:]
    h, m, s = clock.split(":")
    whole, _, frac = s.partition(".")
    ns = ((int(h) * 60 + int(m)) * 60 + int(whole)) * 10**9 + int((frac + "000000000")[:9])
    if prefix.upper() == "DT":
        ns += iec_date_ns("D#" + body[:10])
    return ns


def comparable(tp: str, mine, theirs):
    """(here, matiec) in one unit: ns for times, floats for reals, names for enumerations."""
    if tp in ("TIME", *ty.DATES):
        # the oracle prints tv_sec * 10**9 + tv_nsec as a C long long, which wraps 292 years
        # from 0 (matiec's timespec holds more): so is ours read
        mine_ns = (int(mine) * 1000 + 2**63) % 2**64 - 2**63
        if tp == "TOD":   # the oracle prints a TOD's clock only: -1 s and 25 h as 23:59:59, 01:00:00
            mine_ns %= 86_400 * 10**9
        if tp != "TIME":
            return mine_ns, iec_date_ns(theirs)
        # a TIME comes as a JSON number of ms, a double beyond 2**53 ns: ours as it would come
        mine_ms = mine_ns // 10**6 if mine_ns % 10**6 == 0 else mine_ns / 10**6
        return round(mine_ms * 10**6), round(theirs * 10**6)
    if tp in ty.REALS:
        return float(mine), float(theirs)
    if tp == "BOOL":
        return bool(mine), theirs
    if tp in ty.ELEMENTARY:
        return mine, theirs
    return str(mine).upper(), str(theirs).split("#", 1)[-1].upper()


def same(tp: str, mine, theirs) -> bool:
    if tp in ty.REALS:
        if math.isnan(mine) or math.isnan(theirs):
            return math.isnan(mine) and math.isnan(theirs)
        return mine == theirs and math.copysign(1, mine) == math.copysign(1, theirs)
    return mine == theirs


def relation(tp: str, mine, theirs) -> str:
    """How two differing values differ, for grouping."""
    if tp == "REAL" and math.isfinite(mine) and ty.float32(mine) != mine:
        return "not a binary32 value here"
    if tp in ty.REALS and math.isfinite(mine) and math.isfinite(theirs) and mine and theirs:
        ulp = math.ulp(theirs) * (2 ** 29 if tp == "REAL" else 1)     # binary32 has 29 bits fewer
        if abs(mine - theirs) <= 2 * ulp:
            return "in the last bits"
    if tp in ("TIME", *ty.DATES) and abs(mine - theirs) < 1000:
        return "below 1 µs"
    return ""


# -- running ---------------------------------------------------------------------------
@contextmanager
def time_limit(seconds: float):
    """Stop a run here that takes longer (a generated program never should)."""
    def expire(*_):
        raise TimeoutError(f"stopped after {seconds:g} s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def compare(path: Path, sets, rows, main: str = "prg", seconds: float = 30,
            engine: str = "auto") -> Outcome:
    """Run the program of ``path`` here, on ``engine``, as matiec ran it for
    ``rows`` (its :class:`~tests.fidelity.oracle.Rows`) and compare after every scan."""
    try:
        with time_limit(seconds):
            return _compare(path, sets, rows, main, engine)
    except TimeoutError as e:
        return Outcome(TIMEOUT, f"here: {e}")


def _compare(path, sets, rows, main, engine) -> Outcome:
    try:
        plc = fbd.load(path).plc(cycle=CYCLE_MS / 1000, engine=engine)
    except FbdError as e:
        return Outcome(FBD_REFUSES, str(e).splitlines()[0])
    except Exception as e:   # a traceback where a user should get an error line
        return Outcome(FBD_CRASH, f"loading: {type(e).__name__}: {e}")
    task = plc.main
    program = task.program
    signals = {p.upper(): p for p in program.signals}
    columns = [(j, rows.columns[j]) for j in compared(rows.columns, Path(path).read_text())]
    by_scan = {}
    for scan, name, value in sets:
        by_scan.setdefault(scan, []).append((name, value))
    for k, row in enumerate(rows.rows, start=1):
        try:
            for name, value in by_scan.get(k, []):
                write(plc, signals, main, name, value)
            plc.scan()
        except FbdError as e:
            return Outcome(FBD_FAULT, str(e).splitlines()[0], scan=k)
        except Exception as e:
            return Outcome(FBD_CRASH, f"scan {k}: {type(e).__name__}: {e}", scan=k)
        for j, column in columns:
            tp = rows.types[column]
            try:
                mine = resolve(plc, task.name, signals, main, column)
            except KeyError:
                return Outcome(DIFFER, scan=k, column=column, type=tp, mine="<no such variable>",
                               theirs=row[j], relation="missing here")
            a, b = comparable(tp, mine, row[j])
            if not same(tp, a, b):
                return Outcome(DIFFER, scan=k, column=column, type=tp, mine=mine, theirs=row[j],
                               relation=relation(tp, a, b))
    if rows.error:
        return Outcome(MATIEC_CRASH, rows.error, scan=len(rows.rows) + 1)
    return Outcome(AGREE)


def compared(columns, source: str) -> list[int]:
    """The indices of the columns compared: not EN, ENO, a standard FB's
    internals or an FB's VAR_IN_OUT (see the module's docstring)."""
    skipped = NOT_COMPARED | in_outs(source)
    return [j for j, c in enumerate(columns)
            if not skipped & {part.upper() for part in re.findall(r"[A-Za-z_]\w*", c)[1:]}]


def in_outs(source: str) -> set:
    """The names declared VAR_IN_OUT: an FB instance's in-out is a reference
    here, not a member (matiec copies it in and out and keeps a copy)."""
    found = set()
    for body in re.findall(r"VAR_IN_OUT\b(.*?)END_VAR", source, re.S | re.I):
        found.update(n.upper() for n in re.findall(r"^\s*(\w+)\s*:", body, re.M))
    return found


def write(plc, signals, main: str, name: str, value: str) -> None:
    """An input written before a scan: a located one into the process image
    (latched as the scan starts), a VAR_INPUT of the program as its variable."""
    path = signals[f"{main}.{name}".upper()]
    info = plc.main.program.signal(path)
    parsed = parse_value(info.type, value) if value.startswith("'") else value
    if info.kind == "input":
        plc.set(path, parsed)
    else:
        plc.write(path, parsed)


def check(program, oracle, workdir: Path, engine: str = "auto") -> tuple[Outcome, object]:
    """Run one generated program on both sides (here on ``engine``): (its outcome,
    matiec's rows or None)."""
    source = program.source
    path = workdir / f"{program.main}.st"
    path.write_text(source)
    try:
        rows = oracle.run(source, program.sets, program.scans, program.variables(), program.main)
    except OracleError as e:
        kind = {"refused": MATIEC_REFUSES, "timeout": TIMEOUT}.get(e.kind, ORACLE_FAILED)
        return Outcome(kind, f"matiec: {e}" if kind == TIMEOUT else str(e)), None
    return compare(path, program.sets, rows, program.main, engine=engine), rows
