"""matiec's rows for a program: from the matiec oracle (a tool beside the
repository that compiles the program with iec2c, runs the C scan by scan and
prints every variable as JSON), or from rows it gave before and that were
recorded in a file, so that CI needs no matiec.

The oracle's script is named by the environment variable ``FBD_MATIEC_ORACLE``
(or ``--oracle`` of the campaign). Its JSON gives BOOL as true/false, REAL and
LREAL as the exact double (NaN and infinities as text), TIME as a number of
milliseconds with its fraction (matiec counts ns), DATE, TOD and DT as IEC
literals, STRING as latin-1 text, enumerated values as ``TYPE#VALUE``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ORACLE_ENV = "FBD_MATIEC_ORACLE"
CYCLE_MS = 20


@dataclass
class Rows:
    """What matiec gave: ``rows[k][j]`` is column ``j`` after scan ``k + 1``;
    ``error`` says why the rows stop early (the program crashed)."""
    columns: list
    types: dict
    rows: list
    error: str | None = None

    def only(self, keep) -> Rows:
        """These columns only (their indices)."""
        columns = [self.columns[j] for j in keep]
        rows = [[row[j] for j in keep] for row in self.rows]
        return Rows(columns, {c: self.types[c] for c in columns}, rows, self.error)

    def to_json(self) -> dict:
        return {"columns": self.columns, "types": self.types, "rows": self.rows,
                **({"error": self.error} if self.error else {})}

    @classmethod
    def from_json(cls, data: dict) -> Rows:
        return cls(data["columns"], data["types"], data["rows"], data.get("error"))


class OracleError(Exception):
    """matiec refused the program (``kind`` "refused"), or the run failed."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def run_key(source: str, sets, scans: int, watch) -> str:
    """What identifies one run: the text, the writes, the scans and the columns asked for."""
    data = json.dumps([source, [list(s) for s in sets], scans, list(watch)])
    return hashlib.sha256(data.encode()).hexdigest()[:16]


class Oracle:
    """The live oracle: ``python3 SCRIPT prg.st --scans N --set ... --watch ... --format json``."""

    def __init__(self, script: str | os.PathLike, timeout: float = 30):
        self.script, self.timeout = str(script), timeout

    @classmethod
    def from_environment(cls) -> Oracle | None:
        script = os.environ.get(ORACLE_ENV)
        return cls(script) if script and Path(script).is_file() else None

    def run(self, source: str, sets, scans: int, watch, main: str = "prg") -> Rows:
        with tempfile.TemporaryDirectory(prefix="fbd-fidelity-") as tmp:
            path = Path(tmp) / f"{main}.st"
            path.write_text(source)
            args = [sys.executable, self.script, str(path), "--program", main, "--scans", str(scans),
                    "--cycle", f"{CYCLE_MS}ms", "--format", "json", "--timeout", str(self.timeout)]
            for scan, name, value in sets:
                args += ["--set", f"{name}={value}@{scan}"]
            for name in watch:
                args += ["--watch", name]
            try:
                done = subprocess.run(args, capture_output=True, text=True, timeout=self.timeout + 60)
            except subprocess.TimeoutExpired:
                raise OracleError("timeout", "the oracle did not finish") from None
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        message = message.replace(str(path), f"{main}.st")
        if done.returncode != 0 and "compile error" in message:
            raise OracleError("refused", message)
        try:
            data = json.loads(done.stdout)
        except json.JSONDecodeError:
            raise OracleError("failed", message or f"exit status {done.returncode}") from None
        rows = [[scan["values"][c] for c in data["columns"]] for scan in data["scans"]]
        error = None
        if done.returncode != 0:
            error = message
            if "stopped after" in message:
                raise OracleError("timeout", message)
        return Rows(data["columns"], data["types"], rows, error)


@dataclass
class Recorded:
    """Rows the oracle gave before, by :func:`run_key`; with ``oracle`` given, a
    run not recorded yet is asked for and recorded (``save`` writes the file)."""
    path: Path
    oracle: Oracle | None = None
    runs: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.path.is_file():
            self.runs = json.loads(self.path.read_text())["runs"]

    def run(self, source: str, sets, scans: int, watch, main: str = "prg") -> Rows:
        key = run_key(source, sets, scans, watch)
        if key in self.runs:
            found = self.runs[key]
            if "refused" in found:
                raise OracleError("refused", found["refused"])
            return Rows.from_json(found)
        if self.oracle is None:
            raise OracleError("failed", f"no recorded rows for this run ({key}) and no oracle "
                                        f"(set {ORACLE_ENV} to the matiec oracle's script)")
        try:
            rows = self.oracle.run(source, sets, scans, watch, main)
        except OracleError as e:
            if e.kind == "refused":
                self.runs[key] = {"refused": str(e)}
            raise
        self.runs[key] = rows.to_json()
        return rows

    def save(self, about: str) -> None:
        self.path.write_text(json.dumps({"about": about, "runs": self.runs}, indent=0, sort_keys=True) + "\n")
