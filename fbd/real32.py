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

Two forms, one meaning:

* :func:`round_real32` for values in hand (coercion, Modbus, a parser);
* :func:`real32_code` for generated code: an expression the Python engine
  runs as two C calls, ``struct``'s pack and unpack in native mode, whose
  pack is C's ``(float)`` cast (no test for overflow: CPython's native mode
  casts; where a Python raises instead, :data:`CAST` is false and the code
  guards the cast with a comparison); the cheapest exact rounding measured
  (docs/performance.md). The native engine translates it to
  ``fptrunc``/``fpext`` and the batch engine to a float32 cast, finding it
  with :func:`match_real32_code`.

Rounding is to nearest, ties to even, as C's ``(float)`` of a double:
subnormals keep what binary32 can hold, a value at or past ``FLT_MAX`` plus
half its unit in the last place (:data:`OVERFLOW`) becomes an infinity of its
sign, infinities stay, and a NaN stays a NaN of its sign.
"""

from __future__ import annotations

import ast
import math
import struct

_F32 = struct.Struct("f")
_pack, _unpack = _F32.pack, _F32.unpack

#: the largest finite REAL
FLT_MAX = 3.4028234663852886e38
#: the least magnitude that rounds to infinity: FLT_MAX plus half its last place
#: (a tie, and FLT_MAX's last bit is odd, so it goes to the even infinity)
OVERFLOW = 3.4028235677973366e38


def _real32_beyond(x: float) -> float:
    """What the fast path does not take: NaN (rounded as C does, keeping its
    sign), an infinity, or a finite value past :data:`OVERFLOW` (an infinity)."""
    if x != x:
        return _unpack(_pack(x))[0]
    return math.copysign(math.inf, x)


def _packs_as_a_c_cast() -> bool:
    """struct's native ``f`` packs a double as C's ``(float)`` does: past FLT_MAX
    an infinity, not an error (CPython's native mode casts; its standard ``<f``
    raises OverflowError)."""
    try:
        return (_unpack(_pack(1e39))[0] == math.inf and _unpack(_pack(-OVERFLOW))[0] == -math.inf
                and _unpack(_pack(math.nextafter(OVERFLOW, 0.0)))[0] == FLT_MAX)
    except (OverflowError, struct.error):
        return False


#: the generated code rounds with a bare pack and unpack (else it guards them)
CAST = _packs_as_a_c_cast()


def round_real32(x) -> float:
    """``x`` (a float or an int a double holds) as the nearest REAL, as C's
    ``(float)x``."""
    if -OVERFLOW < x < OVERFLOW:
        return _unpack(_pack(x))[0]
    return _real32_beyond(float(x))


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
NAMES = {"_f32_pack": _pack, "_f32_unpack": _unpack, "_f32_beyond": _real32_beyond}
#: the name its expression assigns (a walrus), free for generated code to reuse
TEMP = "_r32"


def real32_code(expr: str) -> str:
    """A Python expression rounding ``expr`` (a float expression) to REAL.

    Written out rather than a call of :func:`round_real32`: a call costs a
    frame more than the two C calls it makes.
    """
    if CAST:
        return f"_f32_unpack(_f32_pack({expr}))[0]"
    return guarded_real32_code(expr)


def guarded_real32_code(expr: str) -> str:
    """:func:`real32_code` where packing a double past FLT_MAX raises: the cast
    only within range. Nested roundings are safe: each reads ``_r32`` right
    after assigning it."""
    return (f"(_f32_unpack(_f32_pack({TEMP}))[0] if {-OVERFLOW!r} < ({TEMP} := {expr}) "
            f"< {OVERFLOW!r} else _f32_beyond({TEMP}))")


def match_real32_code(node, namespace: dict):
    """``(name, expression)`` when the ``ast`` node is :func:`real32_code`'s
    expression, either form, in code whose globals are ``namespace`` (its names
    REAL's own): the name the guarded form assigns (None for the bare one) and
    the expression it rounds; else None. The engines that translate Python
    code (native, batch) know REAL's rounding by this."""
    def calls(e, name: str) -> bool:
        return (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == name
                and len(e.args) == 1 and not e.keywords and namespace.get(name) is NAMES[name])

    def number(e) -> float | None:
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            inner = number(e.operand)
            return None if inner is None else -inner
        return e.value if isinstance(e, ast.Constant) and type(e.value) is float else None

    def cast(e):
        """The operand of ``_f32_unpack(_f32_pack(operand))[0]``, or None."""
        if (isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant)
                and e.slice.value == 0 and calls(e.value, "_f32_unpack")
                and calls(e.value.args[0], "_f32_pack")):
            return e.value.args[0].args[0]
        return None

    bare = cast(node)
    if bare is not None:
        return None, bare
    if not isinstance(node, ast.IfExp) or not isinstance(node.test, ast.Compare):
        return None
    test, body, other = node.test, node.body, node.orelse
    if len(test.ops) != 2 or not all(isinstance(o, ast.Lt) for o in test.ops):
        return None
    named = test.comparators[0]
    if not (isinstance(named, ast.NamedExpr) and number(test.left) == -OVERFLOW
            and number(test.comparators[1]) == OVERFLOW):
        return None
    name = named.target.id
    inner = cast(body)
    if not (isinstance(inner, ast.Name) and inner.id == name and calls(other, "_f32_beyond")
            and isinstance(other.args[0], ast.Name) and other.args[0].id == name):
        return None
    return name, named.value


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


__all__ = ["FLT_MAX", "OVERFLOW", "NAMES", "TEMP", "CAST", "round_real32", "int_to_real32",
           "is_real32", "real32_code", "guarded_real32_code", "match_real32_code", "real32_text"]
