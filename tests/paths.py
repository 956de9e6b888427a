"""Where the tests find their data: inside the clone, never beside it.

Test-only data lives in ``tests/data/``, one folder per origin, each with a
README naming every file's source and licence; data the package itself needs
(the PLCopen schema) is package data under ``fbd/data/``. A missing file makes
the test that reads it fail, never skip.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
PLCOPEN = DATA / "plcopen"
SUDOKU_QT = DATA / "sudoku-qt"


def plcopen_example(stem: str) -> Path:
    """One of the real projects in tests/data/plcopen/, by its name without ``.plc.xml``."""
    return PLCOPEN / f"{stem}.plc.xml"
