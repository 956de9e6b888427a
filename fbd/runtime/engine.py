"""A task's program compiled on the engine asked for ("python", "native" or
"auto": :mod:`fbd.native.engines` chooses), for a new :class:`~fbd.runtime.plc.Plc`,
a task added to it, or an online change (:mod:`.online`)."""

from __future__ import annotations

from ..compiler.pycode import ScanProgram, compile_network
from ..network import Network


def compile_program(net: Network, engine: str, dump, clock_from_zero: bool):
    """(program, why this engine): see fbd.native.engines."""
    if engine == "python":
        return compile_network(net, dump=dump), "asked for"
    from ..native.engines import build_program
    return build_program(net, engine, dump, clock_from_zero=clock_from_zero)


def is_program(program) -> bool:
    """``program`` is compiled already, for one engine or the other."""
    if isinstance(program, ScanProgram):
        return True
    from ..native import NativeProgram
    return isinstance(program, NativeProgram)
