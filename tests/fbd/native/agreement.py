"""Run one network on both engines with the same inputs and compare every slot.

Shared by the native engine's tests: :func:`every_block_network` places one
instance of every block type of the library for every binding of its type
variables (extensible ones with 2 and 3 inputs), each input wired to a
network input of its own, so that random input values reach every block
alone; :func:`edge_values` gives the values worth trying per type (limits,
zero, NaN, infinities, signed zero, the 2**53 boundary, halves);
:func:`compare_runs` steps two PLCs side by side.
"""

from __future__ import annotations

import itertools
import math
import random

import blocks  # noqa: F401  (registers the library)
from fbd import Network, Plc, registry
from fbd import types as t
from fbd.block import Extensible
from fbd.values import format_time

SKIP_TYPES = {t.STRING}             # STRING has no native form


def _bindings(cls):
    """Every binding of the block type's type variables to non-STRING types."""
    if not cls.types:
        return [{}]
    choices = [[tp for tp in sorted(fam.members, key=lambda x: x.name) if tp not in SKIP_TYPES]
               for fam in cls.types.values()]
    return [dict(zip(cls.types, combo)) for combo in itertools.product(*choices)]


def native_blocks():
    """(label, Block) for every configuration the native engine must run."""
    out = []
    for name, cls in sorted(registry().items()):
        if not cls.__module__.startswith("blocks."):
            continue  # a test's own block, not the library's
        group = next((p for p in cls.inputs if isinstance(p, Extensible)), None)
        sizes = [None] if group is None else [group.min, group.min + 1]
        params = [{}]
        if "first_scan_pulse" in cls.params:
            params = [{"first_scan_pulse": True}, {"first_scan_pulse": False}]
        if "depth" in cls.params:
            params = [{"depth": 1}, {"depth": 3}]
        for types in _bindings(cls):
            for n in sizes:
                for p in params:
                    try:
                        block = cls(types=types, n=n, **p) if n else cls(types=types, **p)
                    except Exception:
                        continue
                    ports = [*block.input_ports(), *block.output_ports()]
                    if any((types.get(q.type) if isinstance(q.type, str) else q.type)
                           in SKIP_TYPES for q in ports):
                        continue
                    out.append((f"{name}_{len(out)}", block))
    return out


def every_block_network(configs=None, name: str = "every_block", literals: float = 0.0,
                        seed: int = 0) -> tuple[Network, dict]:
    """A network of ``configs`` (default :func:`native_blocks`), each input a network
    input of its own, or with probability ``literals`` a constant (an edge value of
    its type, so the code generated for constants is tested too); returns it and
    {input name: type}."""
    net = Network(name)
    inputs = {}
    rng = random.Random(seed)
    for label, block in configs or native_blocks():
        wires = {}
        for p in block.input_ports():
            tp = block.bound_types[p.type] if isinstance(p.type, str) else p.type
            if rng.random() < literals:
                wires[p.name] = api_value(tp, rng.choice(edge_values(tp)))
                continue
            iname = f"{label}_{p.name}"
            wires[p.name] = net.input(iname, tp)
            inputs[iname] = tp
        net.add(label, block, **wires)
    return net, inputs


_REALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 0.49999999999999994, 1e-300,
          5e-324, 1e300, -1e300, 1.7976931348623157e308, 9007199254740993.0, 2.0 ** 63,
          -(2.0 ** 63), 2.0 ** 64, 3.0e19, 123.456, -7.25, math.inf, -math.inf, math.nan,
          math.pi, 10.0, 0.001]
#: REAL's own: its range and the values whose single rounding shows (sums of 0.1 and
#: 0.2, 2**24 and its neighbours, a third, the least subnormal); Plc.set rounds them
_SINGLES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 0.1, 0.2, 1 / 3, 16777216.0,
            16777218.0, 8388608.5, 1e-45, 1.1754943508222875e-38, 3.4028234663852886e38,
            -3.4028234663852886e38, 1e38, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 3.0e19,
            123.456, -7.25, math.inf, -math.inf, math.nan, math.pi, 10.0, 0.001]


def edge_values(tp):
    """Values of type ``tp`` that exercise wrap-around, signs and IEEE specials."""
    if tp.kind == "bool":
        return [False, True]
    if tp.kind == "real":
        return _SINGLES if tp.bits == 32 else _REALS
    lo, hi = tp.min, tp.max
    vals = {lo, hi, 0, 1, lo + 1, hi - 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 65, 1000}
    if lo < 0:
        vals |= {-1, -2, -7, -8, -16, -64, -1000, lo // 2}
    vals |= {hi // 2, hi // 3}
    return sorted(v for v in vals if lo <= v <= hi)


def api_value(tp, raw):
    """A run-time value as Plc.set takes it (TIME as its literal: a timedelta holds µs)."""
    return format_time(raw) if tp.kind == "time" else raw


def random_value(tp, rng: random.Random):
    """A raw value of ``tp``: an edge value more often than not."""
    if rng.random() < 0.6:
        return rng.choice(edge_values(tp))
    if tp.kind == "bool":
        return rng.random() < 0.5
    if tp.kind == "real":
        return rng.choice([rng.uniform(-1e6, 1e6), rng.uniform(-2, 2),
                           rng.uniform(-1e20, 1e20), float(rng.randint(-1000, 1000))])
    if tp.kind == "time":
        return rng.choice([rng.randint(-10**10, 10**10), rng.randint(tp.min, tp.max)])
    return rng.randint(tp.min, tp.max)


def same(a, b) -> bool:
    """Equal values, NaN equal to NaN, and -0.0 told from 0.0 (lists element by element)."""
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b)))
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if a != a or b != b:
            return a != a and b != b
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def differences(py: Plc, na: Plc, limit: int = 5) -> list:
    """Slots whose values differ, with the path of what writes them."""
    a, b = py.main.s, na.main.s
    prog = py.program
    out = []
    for k in range(prog.flat.n_slots):
        if not same(a[k], b[k]):
            who = prog.leaves[prog.writer[k]].path if k in prog.writer else f"slot {k}"
            out.append((who, a[k], b[k]))
            if len(out) >= limit:
                break
    return out


def compare_runs(net: Network, steps, **plc_options) -> tuple[Plc, Plc]:
    """Run ``net`` on both engines; ``steps`` yields {input: value} per scan.
    Fails on the first scan where any slot differs."""
    py = Plc(net, engine="python", **plc_options)
    na = Plc(net, engine="native", **plc_options)
    assert na.engine == "native"
    for scan, values in enumerate(steps, 1):
        for name, value in values.items():
            value = api_value(py.program.input_types[name], value)
            py.set(name, value)
            na.set(name, value)
        py.scan()
        na.scan()
        diff = differences(py, na)
        assert not diff, f"scan {scan}: (path, python, native): {diff}"
    return py, na
