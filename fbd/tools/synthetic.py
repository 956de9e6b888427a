"""Random networks of any size, for benchmarks and for property tests.

:func:`random_network` mixes BOOL and INT blocks (logic, arithmetic,
comparisons, selection, flip-flops, memories) the way real programs do:
most wires are short (a block reads from the blocks placed just before it),
some run far back, a few read network inputs or literals, and a small share
are feedback wires that read a block placed at or after the reader (its own
output included), closing loops that carry state from scan to scan.

Block types are looked up by name in :func:`fbd.registry` (after
:func:`fbd.library.load_libraries`), so ``fbd`` depends on no block module;
kinds the library does not have (yet) are left out of the mix, and a kind is
wired by its declared ports, whatever they are, as long as every required
input is BOOL or INT. Everything is drawn from ``random.Random(seed)``: the
same arguments give the same network.

:func:`control_network` is REAL arithmetic instead: first-order filters
(``y := y + k * (x - y)``) chained into one another, each with a limit and
an alarm, as process-control programs compute; its values stay finite,
which random REAL arithmetic does not.
"""

from __future__ import annotations

import gc
import random
from bisect import bisect_left
from dataclasses import dataclass

from .. import types as t
from ..block import REQUIRED, Block, registry
from ..errors import FbdError, WiringError
from ..network import Binding, Instance, Network, Ref

__all__ = ["random_network", "control_network", "usable_kinds", "DEFAULT_MIX", "Kind"]

#: (block type name, type bound to its type variable, weight)
DEFAULT_MIX: tuple = (
    ("AND", "BOOL", 4), ("OR", "BOOL", 4), ("XOR", "BOOL", 1), ("NOT", "BOOL", 2),
    ("ADD", "INT", 2), ("SUB", "INT", 1), ("GT", "INT", 1), ("EQ", "INT", 1),
    ("SEL", "INT", 1), ("SEL", "BOOL", 1), ("MOVE", "INT", 1),
    ("SR", None, 1), ("MEMORY", "INT", 1),
)

_WIRED = (t.BOOL, t.INT)


@dataclass(frozen=True)
class Kind:
    """One usable entry of the mix: a configured block and the ports to wire."""
    label: str
    block: Block
    inputs: tuple    # (port, DataType) to wire
    outputs: tuple   # (port, DataType) to offer as sources
    weight: float


def _bind(cls, want: t.DataType | None) -> dict:
    """A type for each of ``cls``'s type variables: ``want`` where its family allows
    it, else INT, else BOOL. Raises WiringError if none fits."""
    bound = {}
    for var, family in cls.types.items():
        for tp in (want, t.INT, t.BOOL):
            if tp is not None and tp in family:
                bound[var] = tp
                break
        else:
            raise WiringError(f"{cls.type_name}: type {var} takes neither BOOL nor INT")
    return bound


def usable_kinds(mix=DEFAULT_MIX, library: dict | None = None) -> list[Kind]:
    """The entries of ``mix`` the library can build and this generator can wire."""
    lib = registry() if library is None else library
    kinds = []
    for name, type_name, weight in mix:
        cls = lib.get(name)
        if cls is None or weight <= 0:
            continue
        want = t.by_name(type_name) if type_name else None
        try:
            block = cls(types=_bind(cls, want)) if cls.types else cls()
        except WiringError:
            continue
        ins, ok = [], True
        for p in block.input_ports():
            tp = block.bound_types.get(p.type) if isinstance(p.type, str) else p.type
            if tp in _WIRED:
                ins.append((p.name, tp))
            elif p.default is REQUIRED:
                ok = False  # a required TIME, REAL, ... input: not for this generator
        outs = []
        for p in block.output_ports():
            tp = block.bound_types.get(p.type) if isinstance(p.type, str) else p.type
            if tp in _WIRED:
                outs.append((p.name, tp))
        if ok and outs:
            label = f"{name}({type_name})" if cls.types and type_name else name
            kinds.append(Kind(label, block, tuple(ins), tuple(outs), float(weight)))
    return kinds


def random_network(n_blocks: int, seed: int = 0, *, mix=DEFAULT_MIX, library: dict | None = None,
                   n_inputs: int = 4, n_outputs: int = 4, feedback: float = 0.03,
                   far: float = 0.1, locality: int = 64, literal: float = 0.02,
                   from_input: float = 0.02, name: str = "synthetic",
                   checked: bool = False) -> Network:
    """A valid random network of ``n_blocks`` blocks, reproducible from ``seed``.

    ``mix``: ``(type name, type, weight)`` entries (:data:`DEFAULT_MIX`);
    ``library``: where to look the names up (default :func:`fbd.registry`).
    Each input is, with these probabilities, left for a feedback wire
    (``feedback``), wired to a network input (``from_input``), to a literal
    (``literal``), to any earlier output (``far``), else to one of the
    ``locality`` latest outputs of its type. ``n_inputs`` and ``n_outputs``
    network inputs and outputs are made per type used (BOOL and INT).

    Speed: every wire this generator draws is valid by construction (a source
    of the port's own type, placed earlier unless the wire is marked
    feedback), so by default it records instances and wires directly, as
    :meth:`Network.add` and :meth:`Network.connect` would after their checks,
    which cost about three quarters of the time of a large build.
    ``checked=True`` goes through those methods instead; both give the same
    network (a test compares them).
    """
    if not isinstance(n_blocks, int) or n_blocks < 1:
        raise FbdError(f"n_blocks must be a positive integer, not {n_blocks!r}")
    kinds = usable_kinds(mix, library)
    if not kinds:
        raise FbdError("no block type of the mix is in the library; load the libraries "
                       "first (fbd.library.load_libraries())")
    rng = random.Random(seed)
    rand = rng.random
    net = Network(name)
    types_used = [tp for tp in _WIRED
                  if any(tp == p for k in kinds for _, p in k.inputs + k.outputs)]
    prefix = {t.BOOL: "B", t.INT: "I"}
    net_ins = {tp: [net.input(f"{prefix[tp]}{j}", tp) for j in range(n_inputs)]
               for tp in types_used}
    pools: dict = {tp: [] for tp in types_used}      # output Refs in placement order
    placed: dict = {tp: [] for tp in types_used}     # the block number of each
    deferred = []

    total = sum(k.weight for k in kinds)
    cum, acc = [], 0.0
    for k in kinds:
        acc += k.weight / total
        cum.append(acc)
    last = len(kinds) - 1
    # Per kind, what its ports draw from: (port, type, pool of sources, network inputs).
    plans = [([(port, tp, pools[tp], net_ins[tp]) for port, tp in k.inputs],
              [(port, pools[tp], placed[tp]) for port, tp in k.outputs], k.block) for k in kinds]
    instances = net.instances
    p_in = feedback + from_input
    p_lit = p_in + literal
    p_far = p_lit + far

    def feedback_wire(b: int, port: str, src) -> None:
        inst = instances[f"b{b}"]
        if checked:
            net.connect(src, inst.port(port), feedback=True)
        else:
            net._wire_count += 1
            inst.bindings[port] = [Binding(src, True, net._wire_count)]

    gc_was_on = gc.isenabled()
    gc.disable()  # a large build only allocates; collections would just rescan it
    try:
        for b in range(n_blocks):
            ins_plan, outs_plan, block = plans[min(bisect_left(cum, rand()), last)]
            wires = {}
            for port, tp, pool, ins in ins_plan:
                r = rand()
                n = len(pool)
                if r < feedback:
                    deferred.append((b, port, tp))
                elif r < p_in or not n:
                    wires[port] = ins[int(rand() * len(ins))]
                elif r < p_lit:
                    wires[port] = rand() < 0.5 if tp is t.BOOL else int(rand() * 200) - 100
                elif r < p_far:
                    wires[port] = pool[int(rand() * n)]
                else:
                    wires[port] = pool[-1 - int(rand() * (n if n < locality else locality))]
            name_b = f"b{b}"
            if checked:
                inst = net.add(name_b, block, **wires)
            else:
                inst = Instance(net, name_b, block, b)
                instances[name_b] = inst
                bindings = inst.bindings
                for port, src in wires.items():
                    net._wire_count += 1
                    bindings[port] = [Binding(src, False, net._wire_count)]
            for port, pool, where in outs_plan:
                pool.append(Ref(inst, port, "out"))
                where.append(b)

        # Feedback wires: mostly from a block at or after the reader (a loop
        # through it); a quarter from a block before it (a one-scan delay: the
        # engine reads a copy taken at scan start), as when nothing of that
        # type comes after.
        for b, port, tp in deferred:
            pool, where = pools[tp], placed[tp]
            if not pool:  # nothing of this type anywhere: a plain wire from an input
                if checked:
                    net.connect(net_ins[tp][0], instances[f"b{b}"].port(port))
                else:
                    net._wire_count += 1
                    instances[f"b{b}"].bindings[port] = [
                        Binding(net_ins[tp][0], False, net._wire_count)]
                continue
            j = bisect_left(where, b)
            if j < len(pool) and (j == 0 or rand() >= 0.25):
                src = pool[j + int(rand() * min(locality, len(pool) - j))]
            else:
                src = pool[j - 1 - int(rand() * min(locality, j))]
            feedback_wire(b, port, src)
    finally:
        if gc_was_on:
            gc.enable()

    for tp in types_used:
        pool = pools[tp]
        tail = max(1, len(pool) // 4)
        for j in range(min(n_outputs, len(pool))):
            net.output(f"Q{prefix[tp]}{j}", pool[-1 - int(rand() * tail)])
    net.doc = (f"random_network({n_blocks}, seed={seed}): "
               f"{', '.join(k.label for k in kinds)}; {len(deferred)} feedback wires")
    return net


#: the blocks of one loop of :func:`control_network`
CONTROL_LOOP = ("SUB", "MUL", "ADD", "LIMIT", "GT", "SR")


def control_network(n_blocks: int, seed: int = 0, *, library: dict | None = None,
                    n_inputs: int = 4, name: str = "control") -> Network:
    """About ``n_blocks`` blocks of REAL control loops, reproducible from ``seed``.

    Each loop of six blocks filters a process value ``x`` (a network input,
    or the limited output of one of the 16 loops placed before it):
    ``y := y + k * (x - y)`` (SUB, MUL, ADD, the ADD's output read back by a
    feedback wire), ``LIMIT(lo, y, hi)``, and an alarm latched when the
    limited value passes a threshold (GT, SR); ``k``, the limits and the
    threshold are literals. Four REAL operations in six blocks, every value
    bounded by the inputs'. Outputs: the last loop's limited value and alarm.
    """
    if not isinstance(n_blocks, int) or n_blocks < 1:
        raise FbdError(f"n_blocks must be a positive integer, not {n_blocks!r}")
    lib = registry() if library is None else library
    missing = [b for b in CONTROL_LOOP if b not in lib]
    if missing:
        raise FbdError(f"the library has no {', '.join(missing)}; load the libraries "
                       "first (fbd.library.load_libraries())")
    rng = random.Random(seed)
    net = Network(name)
    real = t.REAL
    sources = [net.input(f"X{j}", real, 0.0) for j in range(n_inputs)]
    limited = alarm = None
    for b in range(max(1, n_blocks // len(CONTROL_LOOP))):
        x = sources[-1 - rng.randrange(min(16, len(sources)))]
        sub = net.add(f"e{b}", lib["SUB"](real), IN1=x)
        mul = net.add(f"d{b}", lib["MUL"](real), IN1=sub.OUT,
                      IN2=round(rng.uniform(0.01, 0.5), 2))
        add = net.add(f"y{b}", lib["ADD"](real), IN2=mul.OUT)
        net.connect(add.OUT, add.IN1, feedback=True)
        net.connect(add.OUT, sub.IN2, feedback=True)
        lo = round(rng.uniform(-100.0, 0.0), 1)
        limit = net.add(f"l{b}", lib["LIMIT"](real), MN=lo, IN=add.OUT,
                        MX=round(lo + rng.uniform(10.0, 200.0), 1))
        gt = net.add(f"g{b}", lib["GT"](real), IN1=limit.OUT,
                     IN2=round(rng.uniform(-50.0, 50.0), 1))
        latch = net.add(f"a{b}", lib["SR"](), S1=gt.OUT, R=False)
        limited, alarm = limit.OUT, latch.Q1
        sources.append(limited)
    net.output("Y", limited)
    net.output("ALARM", alarm)
    net.doc = f"control_network({n_blocks}, seed={seed}): {len(net.instances) // 6} loops"
    return net
