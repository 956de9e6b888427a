"""What a generated POU can name: its variables (elementary, arrays, structures,
enumerations, FB instances), the functions declared before it, the loops it
is inside, and matiec's prototypes of the standard functions (what iec2c
accepts, read from the library text it ships)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from tests.paths import DATA

PROTOTYPES = DATA / "st" / "matiec" / "lib" / "standard_functions.txt"

# The standard FBs: inputs and outputs with their types (matiec's lib/*.txt)
STANDARD_FBS = {
    **{n: ((("IN", "BOOL"), ("PT", "TIME")), (("Q", "BOOL"), ("ET", "TIME"))) for n in ("TON", "TOF", "TP")},
    **{"CTU" + s: ((("CU", "BOOL"), ("R", "BOOL"), ("PV", t)), (("Q", "BOOL"), ("CV", t)))
       for s, t in (("", "INT"), ("_DINT", "DINT"), ("_UDINT", "UDINT"))},
    **{"CTD" + s: ((("CD", "BOOL"), ("LD", "BOOL"), ("PV", t)), (("Q", "BOOL"), ("CV", t)))
       for s, t in (("", "INT"), ("_LINT", "LINT"))},
    **{"CTUD" + s: ((("CU", "BOOL"), ("CD", "BOOL"), ("R", "BOOL"), ("LD", "BOOL"), ("PV", t)),
                    (("QU", "BOOL"), ("QD", "BOOL"), ("CV", t)))
       for s, t in (("", "INT"), ("_ULINT", "ULINT"))},
    "R_TRIG": ((("CLK", "BOOL"),), (("Q", "BOOL"),)),
    "F_TRIG": ((("CLK", "BOOL"),), (("Q", "BOOL"),)),
    "SR": ((("S1", "BOOL"), ("R", "BOOL")), (("Q1", "BOOL"),)),
    "RS": ((("S", "BOOL"), ("R1", "BOOL")), (("Q1", "BOOL"),)),
}
# matiec's other library FBs (lib/*_st.txt, rtc.txt, sema.txt)
LIBRARY_FBS = {
    "PID": ((("AUTO", "BOOL"), ("PV", "REAL"), ("SP", "REAL"), ("X0", "REAL"), ("KP", "REAL"), ("TR", "REAL"),
             ("TD", "REAL"), ("CYCLE", "TIME")), (("XOUT", "REAL"),)),
    "RAMP": ((("RUN", "BOOL"), ("X0", "REAL"), ("X1", "REAL"), ("TR", "TIME"), ("CYCLE", "TIME")),
             (("BUSY", "BOOL"), ("XOUT", "REAL"))),
    "HYSTERESIS": ((("XIN1", "REAL"), ("XIN2", "REAL"), ("EPS", "REAL")), (("Q", "BOOL"),)),
    "INTEGRAL": ((("RUN", "BOOL"), ("R1", "BOOL"), ("XIN", "REAL"), ("X0", "REAL"), ("CYCLE", "TIME")),
                 (("Q", "BOOL"), ("XOUT", "REAL"))),
    "DERIVATIVE": ((("RUN", "BOOL"), ("XIN", "REAL"), ("CYCLE", "TIME")), (("XOUT", "REAL"),)),
    "RTC": ((("IN", "BOOL"), ("PDT", "DT")), (("Q", "BOOL"), ("CDT", "DT"))),
    "SEMA": ((("CLAIM", "BOOL"), ("RELEASE", "BOOL")), (("BUSY", "BOOL"),)),
}


@functools.cache
def prototypes() -> frozenset:
    """``(name, result, (parameter types...))`` of every standard function matiec
    declares; an extensible input (``IN 1 ..``) is ``(type, "..")``."""
    found = set()
    text = PROTOTYPES.read_text()
    for name, result, params in re.findall(r"FUNCTION (\w+) : (\w+) VAR_INPUT (.*?) END_VAR", text):
        types = []
        for p in params.split(";"):
            if ":" in p:
                names, tp = p.split(":")
                types.append((tp.strip(), "..") if ".." in names else tp.strip())
        found.add((name, result, tuple(types)))
    return frozenset(found)


def has(name: str, result: str, *args: str) -> bool:
    """Whether matiec declares ``name`` with this result and these argument types."""
    protos = prototypes()
    if (name, result, tuple(args)) in protos:
        return True
    return any(n == name and r == result and params and isinstance(params[-1], tuple)
               and all(a == (params[min(i, len(params) - 1)] if i < len(params) - 1
                             else params[-1][0]) for i, a in enumerate(args))
               for n, r, params in protos)


@dataclass(frozen=True)
class ArrayShape:
    element: str
    dims: tuple          # ((lo, hi), ...)


@dataclass(frozen=True)
class StructShape:
    name: str
    fields: tuple        # ((name, type), ...)


@dataclass(frozen=True)
class EnumShape:
    name: str
    values: tuple


@dataclass(frozen=True)
class FbShape:
    name: str
    inputs: tuple        # ((name, type), ...)
    outputs: tuple
    in_outs: tuple = ()
    standard: bool = False


@dataclass(frozen=True)
class FunctionShape:
    name: str
    result: str
    inputs: tuple
    outputs: tuple = ()
    in_outs: tuple = ()


@dataclass
class Var:
    name: str
    type: str                      # an elementary type, or the name of an enumeration
    shape: object = None           # None, ArrayShape, StructShape, EnumShape or FbShape
    writable: bool = True


@dataclass
class Scope:
    """The names one POU body sees while it is generated."""
    pou: str
    kind: str                                     # PROGRAM, FUNCTION_BLOCK or FUNCTION
    vars: list = field(default_factory=list)
    functions: list = field(default_factory=list)  # FunctionShape callable from here
    loops: list = field(default_factory=list)      # (loop variable, lo, hi) of the FOR loops we are in
    in_loop: int = 0                               # loops of any kind we are in
    reserved: set = field(default_factory=set)     # names no statement may write (loop counters)
    extra_decls: list = field(default_factory=list)  # declarations the body asked for (loop variables)

    def elementary(self, type_: str, writable: bool = False) -> list[Var]:
        return [v for v in self.vars if v.shape is None or isinstance(v.shape, EnumShape)
                if v.type == type_ and (not writable or (v.writable and v.name not in self.reserved))]

    def arrays(self, element: str | None = None, writable: bool = False) -> list[Var]:
        return [v for v in self.vars if isinstance(v.shape, ArrayShape)
                and (element is None or v.shape.element == element) and (v.writable or not writable)]

    def structs(self, field_type: str, writable: bool = False) -> list[tuple[Var, str]]:
        return [(v, f) for v in self.vars if isinstance(v.shape, StructShape) and (v.writable or not writable)
                for f, t in v.shape.fields if t == field_type]

    def fb_outputs(self, type_: str) -> list[tuple[Var, str]]:
        return [(v, o) for v in self.vars if isinstance(v.shape, FbShape)
                for o, t in v.shape.outputs if t == type_]

    def instances(self) -> list[Var]:
        return [v for v in self.vars if isinstance(v.shape, FbShape)]

    def loop_index(self, lo: int, hi: int) -> list[str]:
        """FOR variables of the loops we are in whose every value lies in lo..hi."""
        return [name for name, a, b in self.loops if lo <= a and b <= hi]
