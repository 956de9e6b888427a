"""Which engine runs a program: ``engine="python" | "native" | "auto"``.

The Python engine (:mod:`fbd.compiler.pycode`) runs everything and is the
reference. The native one (:mod:`fbd.native`) runs a program whose every
block and signal has a native form, where llvmlite is installed. ``auto``
takes the native engine when it can and when a scan costs enough to gain
from it: compiling to machine code costs a few tens of milliseconds more
than generating Python, which a scan of a few library blocks never wins back
in a test or a short run. What a scan costs is weighed, not its blocks
counted (:func:`scan_weight`): a library block weighs one, an ST, IL or SFC
POU (a procedure: statements, loops, calls) at least the whole threshold,
so a program of one such POU runs native. Every decision comes with its
reason (``fbd info`` prints it): the construct, the POU and the line where
a POU has no native form.
"""

from __future__ import annotations

from ..compiler.front import _flatten, count_instances, quiet_gc
from ..compiler.pycode import ScanProgram
from ..errors import FbdError
from ..network import Network

ENGINES = ("auto", "native", "python")
#: ``auto`` keeps programs whose scan weighs less on the Python engine (see the
#: module docstring): about 200 library blocks' worth
AUTO_MIN_BLOCKS = 200
#: how much more a statement inside a loop weighs than one outside (it runs many times)
LOOP_WEIGHT = 10


def scan_weight(flat) -> int:
    """What a scan of ``flat`` costs, in library blocks (see the module docstring)."""
    weight, procedures = 0, {}
    for leaf in flat.leaves:
        procedure = leaf.block.procedure
        if procedure is None:
            weight += 1
            continue
        key = id(procedure)
        if key not in procedures:
            procedures[key] = max(AUTO_MIN_BLOCKS, procedure.weight(LOOP_WEIGHT))
        weight += procedures[key]
    return weight


def build_size(flat) -> int:
    """How big a build is, for the collector's pause (:func:`quiet_gc`): its blocks,
    and the lines of each ST, IL or SFC source its POUs are in (the measure the
    load pauses it by). Not :func:`scan_weight`, whose census of every FB type
    a program inside a POU instantiates was 0.023 s of a 10,000-line program's
    native build, spent on the collector's question alone where the engine is
    named."""
    size, sources = len(flat.leaves), set()
    for leaf in flat.leaves:
        procedure = leaf.block.procedure
        if procedure is not None:
            text = procedure.info.st_source
            if id(text) not in sources:
                sources.add(id(text))
                size += text.count("\n")
    return size


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise FbdError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


def decide(flat, engine: str = "auto", *, clock_from_zero: bool = True, ahead: bool = False):
    """``(engine, reason, native program or None)`` for a flat program; the
    native program is checked but not compiled yet (``ahead``: its build
    follows, whose LLVM work may start while it is checked, see
    :mod:`fbd.native.apart`). Raises FbdError (or :class:`~fbd.native.NotNative`)
    when ``engine="native"`` cannot be had."""
    from . import NativeProgram, NotNative, unavailable_reason
    check_engine(engine)
    if engine == "python":
        return "python", "asked for", None
    why = unavailable_reason()
    if why:
        if engine == "native":
            raise FbdError(f"the native engine is not available: {why}")
        return "python", why, None
    if not clock_from_zero:
        if engine == "native":
            raise FbdError("the native engine runs a clock from 0 on; a negative "
                           "clock_start needs engine='python'")
        return "python", "a negative clock_start (the native clock starts at 0)", None
    n = len(flat.leaves)
    if engine == "auto" and scan_weight(flat) < AUTO_MIN_BLOCKS:
        return "python", (f"{n} block{'s' if n != 1 else ''}, fewer than {AUTO_MIN_BLOCKS}: "
                          f"compiling to machine code would cost more than it saves"), None
    try:
        native = NativeProgram(flat, build=False, ahead=ahead)
    except NotNative as e:
        if engine == "native":
            raise
        return "python", str(e), None
    return "native", "every block and signal has a native form", native


def build_program(program, engine: str = "auto", dump: str | None = None, *,
                  clock_from_zero: bool = True):
    """A Network compiled for the engine asked (ScanProgram or NativeProgram),
    and the reason for it: ``(program, reason)``."""
    check_engine(engine)
    if not isinstance(program, Network):
        raise TypeError(f"expected a Network, got {type(program).__name__}")
    with quiet_gc(count_instances(program)):
        flat = _flatten(program)
    # an ST POU is one block however long: its source's lines count (a full collection
    # over a loaded program of 100,000 statements took 2 s of its native build)
    with quiet_gc(build_size(flat)):
        chosen, reason, native = decide(flat, engine, clock_from_zero=clock_from_zero,
                                        ahead=True)
        if chosen == "native":
            native.dump_path = dump if dump is not None else native.dump_path
            return native.build(), reason
        return ScanProgram(flat, dump), reason


def engine_of(program) -> str:
    return getattr(program, "engine", "python")
