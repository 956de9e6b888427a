"""The functions the generated vector code calls besides numpy's ufuncs.

Each is the numpy form of one Python operation that has no single ufunc
with Python's exact meaning (a REAL's integer part as an unbounded int, the
true division of two large ints, a call of a Python function), or the
conversion between Python ints on object arrays and fixed-width arrays.
They are the engine's primitives, not any block's semantics.
"""

from __future__ import annotations

import math

import numpy as np

from ..real32 import int_to_real32, round_real32

_2_63 = float(1 << 63)
_2_64 = float(1 << 64)
_EXACT = float(1 << 53)

_INT_BITS = {"int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
             "uint8": (8, False), "uint16": (16, False), "uint32": (32, False),
             "uint64": (64, False)}


def wrap_to(value: int, dtype: str) -> int:
    """A Python int modulo 2**bits, as the two's complement value ``dtype`` holds."""
    bits, signed = _INT_BITS[dtype]
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def obj_to_int(values, dtype: str) -> np.ndarray:
    """Python ints (an object array) modulo 2**bits, as a ``dtype`` array."""
    if not isinstance(values, np.ndarray):
        return wrap_to(values, dtype)
    bits, _signed = _INT_BITS[dtype]
    mask = (1 << bits) - 1
    unsigned = np.array([v & mask for v in values.tolist()], dtype=f"uint{bits}")
    return unsigned.view(dtype)


def obj_to_float(values) -> np.ndarray:
    return np.array([float(v) for v in values.tolist()], dtype=np.float64)


def single(x) -> float:
    """One value (the same in every instance) as a REAL: C's ``(float)``."""
    return int_to_real32(x) if isinstance(x, int) else round_real32(x)


def obj_to_single(values) -> np.ndarray:
    """Python ints as REALs, each rounded once (as C's cast of a 64-bit integer)."""
    return np.array([int_to_real32(v) for v in values.tolist()], dtype=np.float32)


def object_like(values) -> np.ndarray:
    """A fresh object array holding ``values`` (broadcasting a scalar is the caller's n)."""
    out = np.empty(len(values), dtype=object)
    out[...] = values
    return out


def _safe(op):
    def apply(a, b):
        n = len(a) if isinstance(a, np.ndarray) else len(b)
        xs = a.tolist() if isinstance(a, np.ndarray) else [a] * n
        ys = b.tolist() if isinstance(b, np.ndarray) else [b] * n
        out = np.empty(n, dtype=object)
        for i, (x, y) in enumerate(zip(xs, ys)):
            try:
                out[i] = op(x, y)
            except (ZeroDivisionError, ValueError):
                out[i] = 0   # a lane the block's code never reaches (it guards these)
        return out
    return apply


obj_floordiv = _safe(lambda x, y: x // y)
obj_mod = _safe(lambda x, y: x % y)
obj_lshift = _safe(lambda x, y: x << y)
obj_rshift = _safe(lambda x, y: x >> y)


def _lanes(guard, args):
    n = next(len(a) for a in (guard, *args) if isinstance(a, np.ndarray))
    if isinstance(guard, np.ndarray):
        where = np.flatnonzero(guard)
    else:
        where = np.arange(n) if guard else np.arange(0)
    return n, where


def elementwise(fn, guard, dtype: str, out, *args):
    """``fn`` called with Python scalars, lane by lane, where ``guard`` holds;
    0 elsewhere (lanes the block's code does not compute this on)."""
    n, where = _lanes(guard, args)
    cols = [a[where].tolist() if isinstance(a, np.ndarray) else [a] * len(where) for a in args]
    results = [fn(*vals) for vals in zip(*cols)]
    if dtype == "object":
        result = out if out is not None else np.empty(n, dtype=object)
        result[...] = 0
        for i, value in zip(where.tolist(), results):
            result[i] = value
        return result
    if dtype in _INT_BITS:
        bits, _signed = _INT_BITS[dtype]
        mask = (1 << bits) - 1
        results = np.array([v & mask for v in results], dtype=f"uint{bits}").view(dtype)
    result = out if out is not None else np.empty(n, dtype=dtype)
    result.fill(0)
    result[where] = results
    return result


def float_to_int(x, mode: str, dtype: str, out):
    """``math.trunc``/``floor``/``ceil`` of each REAL, modulo 2**64 (two's
    complement), as ``dtype``: exact for every finite value; NaN and the
    infinities (lanes the block does not use, Python would raise) give 0."""
    y = {"trunc": np.trunc, "floor": np.floor, "ceil": np.ceil}[mode](x)
    y = np.where(np.isfinite(y), y, 0.0)
    big = np.abs(y) >= _2_63
    if big.any():
        result = np.empty(len(y), dtype=np.int64)
        small = ~big
        result[small] = y[small].astype(np.int64)
        v = np.fmod(y[big], _2_64)             # exact, in (-2**64, 2**64)
        v = np.where(v < 0, v + _2_64, v)      # exact: a multiple of 2**11 below 2**64
        result[big] = v.astype(np.uint64).view(np.int64)
    else:
        result = y.astype(np.int64)
    if out is None:
        return result
    np.copyto(out, result, casting="unsafe")
    return out


def int_truediv(a, b, out):
    """Python's ``a / b`` of ints: the correctly rounded quotient. numpy's float
    division of the converted operands is that where both are below 2**53;
    the other lanes are divided by Python."""
    fa = a.astype(np.float64) if isinstance(a, np.ndarray) else float(a)
    fb = b.astype(np.float64) if isinstance(b, np.ndarray) else float(b)
    result = np.true_divide(fa, fb, out=out) if out is not None else np.true_divide(fa, fb)
    slow = (np.abs(fa) > _EXACT) | (np.abs(fb) > _EXACT)
    if np.any(slow):
        n = len(result)
        xs = a.tolist() if isinstance(a, np.ndarray) else [a] * n
        ys = b.tolist() if isinstance(b, np.ndarray) else [b] * n
        for i in np.flatnonzero(np.broadcast_to(slow, (n,))).tolist():
            if ys[i]:
                result[i] = xs[i] / ys[i]
    return result


def namespace() -> dict:
    """The globals of generated vector code: numpy's ufuncs by short names and the
    helpers above."""
    ns: dict = {"np": np, "math": math}
    for name in ("add", "subtract", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor",
                 "left_shift", "right_shift", "floor_divide", "remainder", "negative", "invert",
                 "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "logical_not", "isfinite", "isnan", "isinf", "copysign", "fabs", "sqrt",
                 "true_divide", "absolute", "copyto", "where", "float64", "float32", "uint64",
                 "int64"):
        ns[f"np_{name}"] = getattr(np, name)
    for dtype in _INT_BITS:
        ns[f"np_{dtype}"] = getattr(np, dtype)
    ns["np_object"] = object    # the carrier of 64-bit values beyond int64 (ULINT, LWORD)
    ns.update(_wrap_to=wrap_to, _obj_to_int=obj_to_int, _obj_to_float=obj_to_float,
              _object_like=object_like, _obj_floordiv=obj_floordiv, _obj_mod=obj_mod,
              _obj_lshift=obj_lshift, _obj_rshift=obj_rshift, _elementwise=elementwise,
              _float_to_int=float_to_int, _int_truediv=int_truediv,
              _obj_to_single=obj_to_single, _single=single)
    return ns


__all__ = ["namespace", "wrap_to", "elementwise", "float_to_int", "int_truediv"]
