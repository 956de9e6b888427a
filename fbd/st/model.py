"""What the code generator knows of a POU: its variables, flattened.

A POU compiles to its body in the engines' form (:mod:`fbd.st.ir`, see
:mod:`fbd.st.compile`). Every variable an instance keeps from call to call is
a signal of its block: its own outputs and VARs, and for each FB instance it
holds, that instance's variables (``T1.IN``, ``T1.Q``, ``T1.M``, ... for a
TON; all of a user FB's, recursively). This list is the POU's *state*, each
entry with its path relative to the POU (``T1.Q``), the path under which the
block shows it, and its type and initial value.

Inputs are the caller's (the wire, or for an instance inside another POU,
the holder's state ``fb.IN``); those the body writes are kept by the
instance too, as IEC keeps an instance's inputs (``kept_inputs``). Globals
reached through VAR_EXTERNAL (also by the FBs inside) are state of the
outermost POU, bound to the configuration's globals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .. import types as t
from ..block import REQUIRED, Block, Extensible


def local_name(path: str) -> str:
    """The Python local of a variable path: ``T1.Q`` -> ``v_T1__Q``."""
    return "v_" + path.upper().replace(".", "__")


def eno_path(instance: str) -> str:
    """The path of the hidden BOOL holding an FB instance's ENO, for a POU that
    reads it (``IF t.ENO THEN``): matiec's every instance has one, the EN of its
    last call, TRUE before any."""
    return f"{instance}__ENO"


def global_local(name: str) -> str:
    return "g_" + name.upper()


def kept_name(name: str) -> str:
    """The state holding an input the body writes, as the instance keeps it."""
    return f"{name}__KEPT"


@dataclass
class Var:
    """A variable as the body sees it."""
    name: str
    path: str                       # relative to the POU: "X", "T1.Q"
    local: str                      # the Python expression it is (a local)
    type: t.DataType | None         # None for an FB instance
    section: str = "VAR"
    init: Any = None
    constant: bool = False
    fb: Any = None                  # PouInfo or LibraryFb for an FB instance
    node: Any = None
    retain: str | None = None       # RETAIN, NON_RETAIN, PERSISTENT as declared, or None


@dataclass
class StateEntry:
    path: str
    type: t.DataType
    init: Any
    #: RETAIN, NON_RETAIN or PERSISTENT where the variable or an instance holding it
    #: says so (the innermost that does: docs/retain.md), else None
    retain: str | None = None


@dataclass
class LibraryFb:
    """A function block of the engine's library (TON, CTU, ...) or one given
    by the caller as a Block: its code is the block's own (``code_lines``)."""
    name: str
    block: Block
    #: the inner instance this stands for, as its variables' names begin (``ITERM.``:
    #: the block keeps matiec's PID's INTEGRAL as ``ITERM.XOUT``); "" for the block
    prefix: str = ""

    @cached_property
    def ports(self) -> dict:
        # asked at each use of a member (timer.Q, timer(IN := ...)): made once
        out = {}
        inner = self.prefix.upper()
        for kind, decls in (("input", self.block.input_ports()),
                            ("output", self.block.output_ports()),
                            ("state", self.block.state_vars())):
            for p in decls:
                if p.name.upper().startswith(inner):
                    out[p.name.upper()[len(inner):]] = (kind, p)
        return out

    def inner(self, name: str) -> "LibraryFb | None":
        """The variables of an inner instance (a PID's ``ITERM``), read as
        ``ctrl.ITERM.XOUT`` as matiec allows; None if there is none of that name."""
        prefix = f"{self.prefix}{name}.".upper()
        if any(sv.name.upper().startswith(prefix) for sv in self.block.state_vars()):
            return LibraryFb(f"{self.name}.{name}", self.block, prefix)
        return None

    def flat(self) -> list[StateEntry]:
        entries = []
        bound = self.block.bound_types
        retain = self.block.retain
        for p in self.block.input_ports():
            tp = bound.get(p.type) if isinstance(p.type, str) else p.type
            init = tp.default if p.default is REQUIRED else tp.coerce(p.default)
            entries.append(StateEntry(p.name, tp, init))
        for p in self.block.output_ports():
            tp = bound.get(p.type) if isinstance(p.type, str) else p.type
            entries.append(StateEntry(p.name, tp, tp.default, retain.get(p.name)))
        for sv in self.block.state_vars():
            tp = bound.get(sv.type) if isinstance(sv.type, str) else sv.type
            init = sv.init(self.block, bound) if callable(sv.init) else (
                tp.default if sv.init is None else sv.init)
            entries.append(StateEntry(sv.name, tp, init, retain.get(sv.name)))
        return entries

    def member_type(self, name: str):
        entry = self.ports.get(name.upper())
        if entry is None:
            return None
        decl = entry[1]
        return self.block.bound_types.get(decl.type) if isinstance(decl.type, str) else decl.type

    def member_name(self, name: str) -> str | None:
        entry = self.ports.get(name.upper())
        return entry[1].name[len(self.prefix):] if entry else None


def library_fb_usable(block: Block) -> str | None:
    """Why a library block cannot be an FB instance in ST, or None."""
    if any(isinstance(p, Extensible) for p in type(block).inputs):
        return "has an extensible input group"
    for p in list(block.input_ports()) + list(block.output_ports()):
        if isinstance(p.type, str) and p.type not in block.bound_types:
            return f"leaves its type {p.type} open"
    return None


@dataclass
class PouInfo:
    """One POU, ready for calls: its interface, state, and its function."""
    name: str
    kind: str                           # FUNCTION, FUNCTION_BLOCK, PROGRAM
    node: Any
    inputs: list[Var] = field(default_factory=list)
    outputs: list[Var] = field(default_factory=list)
    in_outs: list[Var] = field(default_factory=list)
    variables: dict[str, Var] = field(default_factory=dict)    # NAME -> every own variable
    state: list[StateEntry] = field(default_factory=list)      # outputs, VARs, instances', in order
    # the inputs the body writes (assigned, a FOR variable, an output bound to them,
    # passed as a VAR_IN_OUT): the function hands them back, first, so the caller keeps
    # the instance's value (None until the body is compiled)
    kept_inputs: list[Var] | None = None
    externals: dict[str, t.DataType] = field(default_factory=dict)   # GLOBAL -> type (own and inner)
    result_type: t.DataType | None = None
    fn_name: str = ""
    code: Any = None                    # the body in the engines' form (fbd.st.ir.PouCode)
    blocks_used: list = field(default_factory=list)   # library blocks its code runs
    # its function by values (fbd.st.procedure.value_function), made when first needed
    fn: Any = None
    source: str = ""                    # the generated Python, for reading
    st_source: str = ""                 # the ST text the POU is in
    helpers: dict = field(default_factory=dict)   # what the function's globals hold
    # the debugger's: the compile Context (to generate the POU's stepped variant,
    # fbd.st.debugcode, on demand), that variant once made, an SFC POU's chart
    context: Any = field(default=None, repr=False)
    debug_fn: Any = field(default=None, repr=False)
    chart: Any = None

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"

    def flat(self) -> list[StateEntry]:
        """Everything an instance of this FB keeps: its inputs, then its state."""
        return [StateEntry(v.path, v.type, v.init, v.retain) for v in self.inputs] + list(self.state)

    def member(self, name: str) -> Var | None:
        return self.variables.get(name.upper())


__all__ = ["Var", "StateEntry", "LibraryFb", "PouInfo", "local_name", "global_local", "kept_name",
           "library_fb_usable"]
