"""Unit-test one network or macro alone, scan by scan, in pytest.

>>> h = Harness(latch)            # doctest: +SKIP
>>> h.set(S=True); h.scan()
>>> h.expect(Q=True)
"""

from __future__ import annotations

from .block import Block
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
            wires[p.name] = (net.input(p.name, tp) if default is _required()
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
        self.plc.scan(n)
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


def _required():
    from .block import REQUIRED
    return REQUIRED
