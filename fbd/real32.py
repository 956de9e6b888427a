"""IEC 61131-3 REAL: IEEE 754 single precision (binary32), held in Python floats.

A REAL value is, everywhere at run time, a Python float whose value binary32
can represent (the native engine holds the same value in its double cell, the
batch engine in a float32 array). Every REAL result is rounded to it where
matiec's C rounds (a C ``float``): after each operation on REAL operands, at
each block output, store, call parameter, conversion, and for every value
written from outside. Computing in double and rounding once is exactly C's
float arithmetic for ``+ - * /`` and square roots (53 >= 2 * 24 + 2 bits,
so the double rounding is innocuous); the transcendental functions are C's
double ones rounded, as matiec's library computes them. LREAL stays a double.

Rounding is to nearest, ties to even, as C's ``(float)`` of a double:
subnormals keep what binary32 can hold, a value at or past ``FLT_MAX`` plus
half its unit in the last place (:data:`OVERFLOW`) becomes an infinity of its
sign, infinities stay, and a NaN stays a NaN of its sign. Two forms, one
meaning:

* :func:`round_real32` for values in hand (coercion, Modbus, a parser):
  ``struct``'s pack and unpack of a C float;
* :func:`real32_code` for generated code, where a REAL operation's cost is
  mostly its rounding: Veltkamp's split, ``c = x * (2**29 + 1); c - (c - x)``,
  which in double arithmetic is ``x`` rounded to nearest on 53 - 29 = 24 bits,
  ties to even (checked against the float32 cast on every 24-bit mantissa,
  its ties and their neighbours), three float operations and no call. It is
  single precision's rounding wherever single precision has 24 bits: zero
  and the normal range below :data:`OVERFLOW`; anything else (subnormals,
  overflow, infinities, NaN) takes :func:`round_real32`. Cheaper than the two
  struct calls written inline, the next best (docs/performance.md). The native engine
  translates it to ``fptrunc``/``fpext`` and the batch engine to a float32
  cast, finding it with :func:`match_real32_code`.
"""

from __future__ import annotations

import ast
import math
import struct

_F32 = struct.Struct("<f")
_pack, _unpack = _F32.pack, _F32.unpack

#: the largest finite REAL
FLT_MAX = 3.4028234663852886e38
#: the least magnitude that rounds to infinity: FLT_MAX plus half its last place
#: (a tie, and FLT_MAX's last bit is odd, so it goes to the even infinity)
OVERFLOW = 3.4028235677973366e38
#: the least normal REAL, 2**-126: below it single precision has fewer bits
FLT_MIN = 1.1754943508222875e-38
#: Veltkamp's constant for a 24-bit high part of a 53-bit double
_SPLIT = 536870913.0    # 2**29 + 1


def round_real32(x) -> float:
    """``x`` (a float or an int a double holds) as the nearest REAL, as C's
    ``(float)x``."""
    if -OVERFLOW < x < OVERFLOW:
        return _unpack(_pack(x))[0]
    x = float(x)
    if x != x:
        return _unpack(_pack(x))[0]     # a NaN of its sign
    return math.copysign(math.inf, x)


def int_to_real32(n: int) -> float:
    """The REAL nearest to the integer ``n``, rounded once, as C's ``(float)`` of a
    64-bit integer (through a double, an integer past 2**53 would round twice:
    2**60 + 2**36 + 1 would become 2**60 instead of 2**60 + 2**37)."""
    size = abs(n)
    if size <= 1 << 53:
        return round_real32(n)
    shift = size.bit_length() - 52
    kept = size >> shift
    if size & ((1 << shift) - 1):
        kept |= 1    # a sticky bit: something below decides a tie upward
    try:
        held = round_real32(math.ldexp(kept, shift))
    except OverflowError:
        held = math.inf
    return held if n > 0 else -held


def is_real32(x: float) -> bool:
    """``x`` is a REAL value already (NaNs count: every NaN rounds to a NaN)."""
    return x != x or round_real32(x) == x


#: the names :func:`real32_code` uses, with what they stand for in generated code
NAMES = {"_f32_round": round_real32}
#: the names its expression assigns (walruses), free for generated code to reuse
TEMP, _HIGH = "_r32", "_c32"


def real32_code(expr: str) -> str:
    """A Python expression rounding ``expr`` (a float expression) to REAL (see the
    module docstring). Nested roundings are safe: each reads its names right
    after assigning them."""
    r, c = TEMP, _HIGH
    # each bound a comparison of its own (not chained): CPython runs a compare
    # followed by its jump as one specialised step, a chained one copies first
    return (f"((({c} := {r} * {_SPLIT!r}) - ({c} - {r})) if (({r} := {expr}) >= {FLT_MIN!r} "
            f"and {r} < {OVERFLOW!r}) or ({r} <= {-FLT_MIN!r} and {r} > {-OVERFLOW!r}) "
            f"or {r} == 0.0 else _f32_round({r}))")


_HOLE = "__real32_operand__"
_SHAPE = ast.dump(ast.parse(real32_code(_HOLE), mode="eval").body)


def match_real32_code(node, namespace: dict):
    """``(name, expression)`` when the ``ast`` node is :func:`real32_code`'s
    expression in code whose globals are ``namespace`` (its names REAL's own):
    the name it assigns and the expression it rounds; else None. The engines
    that translate Python code (native, batch) know REAL's rounding by this."""
    if not (isinstance(node, ast.IfExp) and isinstance(node.test, ast.BoolOp)
            and namespace.get("_f32_round") is round_real32):
        return None
    try:
        named = node.test.values[0].values[0].left
        inner = named.value
    except (AttributeError, IndexError):
        return None
    if not isinstance(named, ast.NamedExpr):
        return None
    hole = ast.Name(id=_HOLE, ctx=ast.Load())
    named.value = hole              # the shape with the operand taken out, compared
    try:
        same = ast.dump(node) == _SHAPE
    finally:
        named.value = inner
    return (TEMP, inner) if same else None


def real32_text(x: float) -> str:
    """The shortest decimal that reads back as the REAL ``x`` (``0.1``, not
    ``0.10000000149011612``), spelled as Python's ``repr`` spells a float;
    ``inf``, ``-inf`` and ``nan`` as Python's."""
    if not math.isfinite(x):
        return repr(x)
    for digits in range(1, 10):    # 9 significant digits tell every binary32 apart
        text = "%.*g" % (digits, x)
        if round_real32(float(text)) == x:
            return repr(float(text))
    return repr(x)


__all__ = ["FLT_MAX", "FLT_MIN", "OVERFLOW", "NAMES", "TEMP", "round_real32", "int_to_real32",
           "is_real32", "real32_code", "match_real32_code", "real32_text"]
