"""Which engine runs a program: ``engine="python" | "native" | "auto"``.

The Python engine (:mod:`fbd.compiler.pycode`) runs everything and is the
reference. The native one (:mod:`fbd.native`) runs a program whose every
block and signal has a native form, where llvmlite is installed. ``auto``
takes the native engine when it can and when the program is big enough to
gain from it: compiling to machine code costs a few tens of milliseconds
more than generating Python, which a program of a few blocks never wins
back in a test or a short run. Every decision comes with its reason
(``fbd info`` prints it).
"""

from __future__ import annotations

from ..compiler.front import _flatten, count_instances, quiet_gc
from ..compiler.pycode import ScanProgram
from ..errors import FbdError
from ..network import Network

ENGINES = ("auto", "native", "python")
#: ``auto`` keeps smaller programs on the Python engine (see the module docstring)
AUTO_MIN_BLOCKS = 200


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise FbdError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


def decide(flat, engine: str = "auto", *, clock_from_zero: bool = True):
    """``(engine, reason, native program or None)`` for a flat program; the
    native program is checked but not compiled yet. Raises FbdError (or
    :class:`~fbd.native.NotNative`) when ``engine="native"`` cannot be had."""
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
    if engine == "auto" and n < AUTO_MIN_BLOCKS:
        return "python", (f"{n} block{'s' if n != 1 else ''}, fewer than {AUTO_MIN_BLOCKS}: "
                          f"compiling to machine code would cost more than it saves"), None
    try:
        native = NativeProgram(flat, build=False)
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
        chosen, reason, native = decide(flat, engine, clock_from_zero=clock_from_zero)
        if chosen == "native":
            native.dump_path = dump if dump is not None else native.dump_path
            return native.build(), reason
        return ScanProgram(flat, dump), reason


def engine_of(program) -> str:
    return getattr(program, "engine", "python")
