"""The elementary types the generator uses: their ranges, and literals and
input values that both compilers read the same way.

Every literal here was checked with matiec (iec2c 6bb2c339df6f): its TIME
literals go through a long double of seconds and are truncated to ns, so
``T#1ms``, ``T#2ms`` and ``T#65ms`` come out one ns short (a documented
matiec defect); the pools below hold only durations it stores exactly.
"""

from __future__ import annotations

import struct

SIGNED = {"SINT": 8, "INT": 16, "DINT": 32, "LINT": 64}
UNSIGNED = {"USINT": 8, "UINT": 16, "UDINT": 32, "ULINT": 64}
BITS = {"BYTE": 8, "WORD": 16, "DWORD": 32, "LWORD": 64}
INTEGERS = {**SIGNED, **UNSIGNED}
REALS = ("REAL", "LREAL")
DATES = ("DATE", "TOD", "DT")
ELEMENTARY = ("BOOL", *INTEGERS, *BITS, *REALS, "TIME", *DATES, "STRING")
# variable name prefixes, one per type (names never clash with matiec's library)
PREFIX = {"BOOL": "b", "SINT": "si", "INT": "i", "DINT": "di", "LINT": "li", "USINT": "usi",
          "UINT": "ui", "UDINT": "udi", "ULINT": "uli", "BYTE": "by", "WORD": "w", "DWORD": "dw",
          "LWORD": "lw", "REAL": "r", "LREAL": "lr", "TIME": "tm", "DATE": "da", "TOD": "tod",
          "DT": "dt", "STRING": "s"}

# multiples of 5 ms that matiec stores exactly (checked one by one)
DURATIONS_MS = (0, 5, 10, 20, 25, 30, 40, 50, 60, 75, 80, 100, 120, 150, 200, 250, 300, 500,
                750, 1000, 1500, 2000, 2250, 10000, 60000)
DURATION_TEXT = {0: "T#0ms", 1000: "T#1s", 1500: "T#1s500ms", 2000: "T#2s", 2250: "T#2s250ms",
                 10000: "T#10s", 60000: "T#1m"}
STRINGS = ("", "a", "ab", "abc", "Hello", "x1", "42", "-7", "TRUE", "16#1F", "3.5", "zz", "a$'b",
           "AbCdEf", "T#5s")
DAYS = ("1970-01-01", "2000-02-29", "2024-01-31", "2024-12-31", "1999-06-15")
CLOCKS = ("00:00:00", "12:00:00", "23:59:59", "06:30:15", "12:34:56.5", "00:00:01.25")


def int_range(type_: str) -> tuple[int, int]:
    if type_ in SIGNED:
        bits = SIGNED[type_]
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    bits = UNSIGNED.get(type_) or BITS[type_]
    return 0, (1 << bits) - 1


def width(type_: str) -> int:
    return INTEGERS.get(type_) or BITS[type_]


def pick_int(rnd, type_: str, small: bool = False) -> int:
    """An integer of the type: often an edge (0, 1, the extremes), else small or anywhere."""
    lo, hi = int_range(type_)
    choices = [0, 1, 2, 3, 5, 7, 10, 42, 100]
    if lo < 0:
        choices += [-1, -2, -5, -100]
    if not small:
        choices += [lo, hi, hi - 1, lo + 1, hi // 2, rnd.randint(lo, hi), rnd.randint(lo, hi)]
    return max(lo, min(hi, rnd.choice(choices)))


def int_text(value: int, type_: str | None, base: int = 10) -> str:
    """``INT#-5``, ``BYTE#16#0F``, or untyped ``5`` / ``16#0F`` (``type_`` None)."""
    if base == 16 and value >= 0:
        body = f"16#{value:X}"
    elif base == 2 and value >= 0:
        body = f"2#{value:b}"
    else:
        body = str(value)
    return f"{type_}#{body}" if type_ else body


def float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def pick_real(rnd, type_: str) -> float:
    x = rnd.choice([0.0, 1.0, -1.0, 0.5, 0.1, 2.5, -3.75, 100.0, 1.0e6, 1.0e-3, 3.14159, -0.0,
                    rnd.uniform(-1000, 1000), rnd.uniform(-1, 1)])
    return float32(x) if type_ == "REAL" else x


def real_text(x: float, type_: str | None) -> str:
    """A literal that reads back as ``x`` exactly (the shortest repr of the double)."""
    body = repr(x)
    if "e" in body or "E" in body:
        mantissa, exponent = body.lower().split("e")
        body = f"{mantissa if '.' in mantissa else mantissa + '.0'}E{int(exponent)}"
    return f"{type_}#{body}" if type_ else body


def time_text(ms: int) -> str:
    if ms in DURATION_TEXT:
        return DURATION_TEXT[ms]
    return f"T#{'-' if ms < 0 else ''}{abs(ms)}ms"


def string_text(text: str) -> str:
    return "'" + text + "'"


def literal(rnd, type_: str) -> str:
    """A typed literal of the type (valid anywhere)."""
    if type_ == "BOOL":
        return rnd.choice(["TRUE", "FALSE", "BOOL#1", "BOOL#0"])
    if type_ in INTEGERS:
        return int_text(pick_int(rnd, type_), type_)
    if type_ in BITS:
        return int_text(pick_int(rnd, type_), type_, rnd.choice([10, 16, 16, 2]))
    if type_ in REALS:
        return real_text(pick_real(rnd, type_), type_)
    if type_ == "TIME":
        ms = rnd.choice(DURATIONS_MS)
        return time_text(-ms if ms and rnd.random() < 0.1 else ms)
    if type_ == "DATE":
        return "D#" + rnd.choice(DAYS)
    if type_ == "TOD":
        return "TOD#" + rnd.choice(CLOCKS)
    if type_ == "DT":
        return f"DT#{rnd.choice(DAYS)}-{rnd.choice(CLOCKS)}"
    if type_ == "STRING":
        return string_text(rnd.choice(STRINGS))
    raise ValueError(type_)


def default_literal(type_: str) -> str:
    """The type's initial value as a typed literal: what the reducer puts in place
    of an expression."""
    return {"BOOL": "FALSE", "TIME": "T#0ms", "DATE": "D#1970-01-01", "TOD": "TOD#00:00:00",
            "DT": "DT#1970-01-01-00:00:00", "STRING": "''", "REAL": "REAL#0.0",
            "LREAL": "LREAL#0.0"}.get(type_, f"{type_}#0")


def input_value(rnd, type_: str) -> str:
    """A value for the runner to write into an input, as the oracle's ``--set`` reads it."""
    if type_ == "BOOL":
        return rnd.choice(["TRUE", "FALSE"])
    if type_ in INTEGERS or type_ in BITS:
        return str(pick_int(rnd, type_))
    if type_ in REALS:
        return repr(pick_real(rnd, type_))
    if type_ == "TIME":
        return f"T#{rnd.choice(DURATIONS_MS)}ms"
    if type_ == "STRING":
        return string_text(rnd.choice([s for s in STRINGS if "$" not in s]))
    return literal(rnd, type_)
