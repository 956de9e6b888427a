"""Unit-test one network or macro alone, scan by scan, in pytest.

>>> h = Harness(latch)            # doctest: +SKIP
>>> h.set(S=True); h.scan()
>>> h.expect(Q=True)

Many input vectors at once (the batch engine, one instance per case):

>>> check_batch(macro, input_product(A=[0, 1], B=[2, 4]), reference)   # doctest: +SKIP
"""

from __future__ import annotations

from .block import REQUIRED, Block
from .errors import FbdError
from .network import Network
from .runtime.plc import Plc


class Harness:
    """A PLC around one network on simulated time, with assertion helpers.

    ``engine`` ("auto", "native" or "python") chooses the scan engine, as for
    :class:`~fbd.runtime.Plc`; a test that must hold on both runs twice.
    """

    def __init__(self, network: Network, cycle=0.005, *, engine: str = "auto", **plc_options):
        self.network = network
        self.plc = Plc(network, cycle, engine=engine, **plc_options)

    @property
    def engine(self) -> str:
        """The engine running the scans: "python" or "native"."""
        return self.plc.engine

    @classmethod
    def block(cls, block: Block, cycle=0.005, **plc_options) -> "Harness":
        """A harness around one block: its inputs become the network's inputs and
        its outputs the network's outputs, under the same names. Generic blocks
        need their type given: ``Harness.block(blocks.ADD(INT))``."""
        net = Network(f"{block.name}_alone")
        missing = [v for v in type(block).types if v not in block.bound_types]
        if missing:
            from .compiler.infer import type_hint
            raise FbdError(f"{block.name} is generic; give its type, e.g. "
                           f"{type_hint(type(block), missing[0])}")
        wires = {}
        for p in block.input_ports():
            tp = block.bound_types[p.type] if isinstance(p.type, str) else p.type
            default = p.default
            wires[p.name] = (net.input(p.name, tp) if default is REQUIRED
                             else net.input(p.name, tp, default))
        inst = net.add("blk", block, **wires)
        for p in block.output_ports():
            net.output(p.name, inst.port(p.name))
        return cls(net, cycle, **plc_options)

    # -- the pinned API --------------------------------------------------------
    def set(self, values: dict | None = None, /, **kw) -> "Harness":
        """Set network inputs by name; latched at the start of the next scan."""
        for name, value in {**(values or {}), **kw}.items():
            self.plc.set(name, value)
        return self

    def scan(self, n: int = 1) -> "Harness":
        """Run ``n`` scans. A scan that raises puts the PLC in FAULT and raises
        :class:`~fbd.runtime.faults.PlcFault` (its message first, the error its
        cause): ``pytest.raises`` it, then :meth:`restart` to go on."""
        self.plc.scan(n)
        return self

    def restart(self, cold: bool = True) -> "Harness":
        """Every variable from its initial value (forces and inputs kept), the PLC in
        RUN again, out of a FAULT too (:meth:`fbd.Plc.restart`)."""
        self.plc.restart(cold=cold)
        return self

    def get(self, path: str):
        return self.plc.get(path)

    def force(self, path: str, value) -> None:
        self.plc.force(path, value)

    def unforce(self, path: str | None = None) -> None:
        self.plc.unforce(path)

    def write(self, path: str, value) -> None:
        self.plc.write(path, value)

    @property
    def time(self) -> float:
        """Simulated seconds elapsed."""
        return self.plc.time

    @property
    def scans(self) -> int:
        return self.plc.scans

    # -- conveniences ------------------------------------------------------------
    def trace(self, *paths, capacity: int | None = None):
        return self.plc.trace(paths, capacity)

    def expect(self, values: dict | None = None, /, **kw) -> None:
        """Assert signals have these values; the message lists every mismatch."""
        wrong = []
        for path, want in {**(values or {}), **kw}.items():
            got = self.get(path)
            if got != want:
                wrong.append(f"{path} is {got!r}, expected {want!r}")
        if wrong:
            raise AssertionError(f"after scan {self.scans} (t={self.time:.3f}s): "
                                 + "; ".join(wrong))

    def run(self, steps) -> list[dict]:
        """Drive a table of scans: each step is ``({inputs}, {expected})``; returns
        the values seen, for a transcript."""
        seen = []
        for inputs, expected in steps:
            self.set(inputs)
            self.scan()
            self.expect(expected)
            seen.append({p: self.get(p) for p in expected})
        return seen


# -- many input vectors at once ---------------------------------------------------
def input_product(**domains) -> dict:
    """Every combination of the values given per input, one case per
    combination, as arrays for :func:`check_batch`:
    ``input_product(A=[0, 1], B=[2, 4, 8])`` is 6 cases."""
    import itertools

    import numpy as np
    names = list(domains)
    combos = list(itertools.product(*(list(domains[name]) for name in names)))
    return {name: np.array([c[i] for c in combos]) for i, name in enumerate(names)}


def check_batch(network: Network, inputs: dict, reference, *, outputs=None, then: dict | None = None,
                until: str | None = None, scans: int = 1, max_scans: int = 100,
                chunk: int = 1 << 16, cycle=0.005, show: int = 5, engine: str = "auto") -> int:
    """Run ``network`` once per case in batches (:class:`fbd.batch.BatchHarness`)
    and compare with a Python ``reference``; returns the number of cases.

    ``inputs``: name -> n values (one per case; a scalar is the same for all).
    ``reference(case)``: the expected values of one case, a dict of paths,
    given the case's inputs as a dict of Python values. ``outputs``: the paths
    compared (default: those the reference gives). The inputs are set before
    the first scan, ``then`` after it (a pulse: ``then={"Command": False}``);
    the outputs are read after ``scans`` scans or, with ``until`` (a BOOL
    path), on the first scan where it is TRUE in that case: a case where it
    never is within ``max_scans`` fails too. Cases run ``chunk`` at a time
    (one compilation), on the batch ``engine`` (:class:`fbd.batch.BatchHarness`'s
    choice). A mismatch raises AssertionError with the number of cases that
    differ and the first ``show`` of them.
    """
    import numpy as np

    from .batch import BatchHarness

    sizes = {len(v) for v in inputs.values() if isinstance(v, (list, tuple, np.ndarray))}
    if len(sizes) != 1:
        raise FbdError(f"check_batch: give every input the same number of cases, not {sorted(sizes)}")
    (n,) = sizes
    arrays = {k: np.asarray(v) for k, v in inputs.items() if isinstance(v, (list, tuple, np.ndarray))}
    fixed = {k: v for k, v in inputs.items() if k not in arrays}
    size = max(1, min(chunk, n))
    h = BatchHarness(network, n=size, cycle=cycle, engine=engine)
    wrong, shown = 0, []
    for start in range(0, n, size):
        stop = min(n, start + size)
        # the last chunk is padded with its last case; the padding is not compared
        idx = np.minimum(np.arange(start, start + size), stop - 1)
        h.reset()
        h.set(fixed, **{k: v[idx] for k, v in arrays.items()})
        cases = [{**fixed, **{k: v[i].item() if hasattr(v[i], "item") else v[i]
                              for k, v in arrays.items()}} for i in range(start, stop)]
        expected = [reference(case) for case in cases]
        paths = list(outputs) if outputs is not None else list(expected[0]) if expected else []
        got = _run_cases(h, paths, then, until, scans, max_scans)
        for k, (case, want) in enumerate(zip(cases, expected)):
            if got is None or not got["done"][k]:
                seen = {"never": until}
            else:
                seen = {p: got[p][k] for p in paths}
                if all(_equal(seen[p], want[p]) for p in paths):
                    continue
            wrong += 1
            if len(shown) < show:
                shown.append(f"  {case}: got {seen}, expected {dict((p, want[p]) for p in paths)}")
    if wrong:
        raise AssertionError(f"{wrong} of {n} cases differ from the reference:\n" + "\n".join(shown))
    return n


def _run_cases(h, paths, then, until, scans, max_scans):
    import numpy as np
    h.scan()
    if then:
        h.set(then)
    if until is None:
        h.scan(scans - 1)
        values = {p: h.get(p).tolist() for p in paths}
        values["done"] = [True] * h.n
        return values
    done = np.zeros(h.n, dtype=bool)
    values = {p: [None] * h.n for p in paths}
    for k in range(max_scans):
        if k:
            h.scan()
        fire = h.get(until) & ~done
        if fire.any():
            where = np.flatnonzero(fire).tolist()
            for p in paths:
                now = h.get(p).tolist()
                for i in where:
                    values[p][i] = now[i]
            done |= fire
        if done.all():
            break
    values["done"] = done.tolist()
    return values


def _equal(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return a == b and type(a) is type(b) if isinstance(a, bool) or isinstance(b, bool) else a == b
