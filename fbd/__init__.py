"""fbd: IEC 61131-3 Function Block Diagrams, compiled and scanned on simulated time.

Build a :class:`Network` from blocks (``import blocks``) and other networks
(macros), then run it on a :class:`Plc` or test it with
:class:`fbd.testing.Harness`.
"""

from .block import Block, Port, State, extensible, register, registry
from .compiler.pycode import ScanProgram, compile_network
from .errors import FbdError, UnknownSignal, ValidationError, WiringError
from .loading import load, load_network
from .network import Network
from .runtime.faults import Fault, PlcFault, PlcState
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

__all__ = [
    "load", "load_network", "Network", "Plc", "PlcState", "PlcFault", "Fault", "ScanProgram",
    "compile_network", "Block", "Port", "State",
    "extensible", "register", "registry", "FbdError", "ValidationError", "WiringError",
    "UnknownSignal", "DataType",
    "BOOL", "SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT", "BYTE", "WORD",
    "DWORD", "LWORD", "REAL", "LREAL", "TIME", "STRING",
    "ANY", "ANY_BIT", "ANY_DURATION", "ANY_ELEMENTARY", "ANY_INT", "ANY_MAGNITUDE", "ANY_NUM",
    "ANY_REAL", "ANY_SIGNED", "ANY_STRING", "ANY_UNSIGNED",
]
