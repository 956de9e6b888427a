"""fbd: IEC 61131-3 Function Block Diagrams, compiled and scanned on simulated time.

Build a :class:`Network` from blocks (``import blocks``) and other networks
(macros), then run it on a :class:`Plc` or test it with
:class:`fbd.testing.Harness`.
"""

from .block import Block, Port, State, extensible, register, registry
from .compiler.pycode import ScanProgram, compile_network
from .errors import FbdError, UnknownSignal, ValidationError, WiringError
from .network import Network
from .runtime.plc import Plc
from .types import (
    ANY,
    ANY_BIT,
    ANY_DURATION,
    ANY_ELEMENTARY,
    ANY_INT,
    ANY_MAGNITUDE,
    ANY_NUM,
    ANY_REAL,
    ANY_SIGNED,
    ANY_STRING,
    ANY_UNSIGNED,
    BOOL,
    BYTE,
    DINT,
    DWORD,
    INT,
    LINT,
    LREAL,
    LWORD,
    REAL,
    SINT,
    STRING,
    TIME,
    UDINT,
    UINT,
    ULINT,
    USINT,
    WORD,
    DataType,
)


def load(path):
    """A project from a file: PLCopen TC6 XML (``.xml``, :mod:`fbd.plcopen`) or IEC
    61131-3 Structured Text (``.st``, :mod:`fbd.st`). Both give ``pous``,
    ``network(name)``, ``configuration``, ``plc(cycle=...)`` and ``errors``."""
    text = str(path).lower()
    if text.endswith(".st"):
        from .st.project import load as load_st
        return load_st(path)
    if text.endswith(".xml"):
        from .plcopen.project import load_project
        return load_project(path)
    raise FbdError(f"{path}: not a project file; fbd.load reads .xml (PLCopen) and .st "
                   f"(Structured Text)")


__all__ = [
    "load", "Network", "Plc", "ScanProgram", "compile_network", "Block", "Port", "State",
    "extensible", "register", "registry", "FbdError", "ValidationError", "WiringError",
    "UnknownSignal", "DataType",
    "BOOL", "SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT", "BYTE", "WORD",
    "DWORD", "LWORD", "REAL", "LREAL", "TIME", "STRING",
    "ANY", "ANY_BIT", "ANY_DURATION", "ANY_ELEMENTARY", "ANY_INT", "ANY_MAGNITUDE", "ANY_NUM",
    "ANY_REAL", "ANY_SIGNED", "ANY_STRING", "ANY_UNSIGNED",
]
