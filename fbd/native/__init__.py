"""The native scan engine: a FlatProgram compiled to machine code through LLVM.

:func:`compile_native` turns a network (or its flat program) into a
:class:`~.program.NativeProgram`; :func:`available` says whether llvmlite,
which bundles LLVM, is installed (it has no wheel for every platform: where
it is missing the Python engine runs everything). :mod:`.engines` decides
what ``Plc(net, engine="auto")`` runs, and why.

Block semantics come from the one definition every engine shares
(``Block.code``), translated by :mod:`.lower`; a program with blocks that
have no native form raises :class:`~.program.NotNative` naming them.
"""

from __future__ import annotations

from ..compiler.front import _flatten, count_instances, quiet_gc
from ..network import Network
from .program import NativeProgram, NativeTrap, NotNative

__all__ = ["available", "compile_native", "NativeProgram", "NotNative", "NativeTrap",
           "unavailable_reason"]

_IMPORT_ERROR: list = []


def unavailable_reason() -> str | None:
    """Why the native engine cannot run here (None when it can)."""
    if not _IMPORT_ERROR:
        try:
            import llvmlite.binding  # noqa: F401
            _IMPORT_ERROR.append(None)
        except ImportError as e:  # no wheel for this platform, or not installed
            _IMPORT_ERROR.append(f"llvmlite is not installed ({e})")
    return _IMPORT_ERROR[0]


def available() -> bool:
    return unavailable_reason() is None


def compile_native(program, dump: str | None = None) -> NativeProgram:
    """Compile a Network or FlatProgram for the native engine.

    Raises :class:`NotNative` naming every block type without a native form,
    and FbdError when llvmlite is missing."""
    from ..errors import FbdError
    why = unavailable_reason()
    if why:
        raise FbdError(f"the native engine is not available: {why}")
    if isinstance(program, Network):
        with quiet_gc(count_instances(program)):
            return NativeProgram(_flatten(program), dump)
    return NativeProgram(program, dump)
