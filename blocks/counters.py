"""Counters: CTU, CTD, CTUD as IEC 61131-3 ed. 2 defines them, on INT.

CU and CD are edge-triggered (``R_EDGE`` in the standard): each counter keeps
the previous scan's CU/CD in a state variable and counts once per rising
edge, however long the input stays TRUE. The edge memory follows the input
on every scan, also while R or LD is active, so an input held TRUE through
a reset does not count when the reset is released. As with R_TRIG, an input
already TRUE on the first scan is a rising edge.

CV never wraps. IEC bounds the count by PVmax and PVmin and leaves their values to
the implementation; we take matiec's (the library Beremiz and OpenPLC run): CTU
counts up only while CV < PV, CTD down only while CV > 0, and CTUD both. A CV
written from outside beyond those bounds stays there until R or LD.

IEC 61131-3 ed. 3's typed counters, which matiec's library has and drawings
place (``CTU_ULINT``), are the same counters on another type of PV and CV:
CTU_DINT, CTU_LINT, CTU_UDINT, CTU_ULINT and likewise CTD_... and CTUD_...;
their CV stops at the same bounds.
"""

from fbd.block import Block, Port, State, register
from fbd.types import BOOL, DINT, INT, LINT, UDINT, ULINT


@register
class CTU(Block):
    """Up counter: CV counts rising edges of CU; Q is TRUE when CV >= PV; R resets CV to 0.

    ``IF R THEN CV := 0 ELSIF CU(edge) AND CV < PV THEN CV := CV + 1;
    Q := CV >= PV``. R has priority over CU. CV stops at PV (matiec's PVmax).
    """
    family = "counters"
    stateful = True
    inputs = [Port("CU", BOOL, default=False, doc="count up on a rising edge"),
              Port("R", BOOL, default=False, doc="reset CV to 0 (priority)"),
              Port("PV", INT, default=0, doc="preset value")]
    outputs = [Port("Q", BOOL, doc="CV >= PV"),
               Port("CV", INT, doc="current value")]
    state = [State("CU_M", BOOL, doc="CU of the previous scan")]
    cv_type = INT

    def code(self, io):
        return f"""\
if {io.R}:
    {io.CV} = 0
elif {io.CU} and not {io.CU_M} and {io.CV} < {io.PV}:
    {io.CV} = {io.CV} + 1
{io.CU_M} = {io.CU}
{io.Q} = {io.CV} >= {io.PV}"""


@register
class CTD(Block):
    """Down counter: CV counts rising edges of CD down; Q is TRUE when CV <= 0; LD loads PV.

    ``IF LD THEN CV := PV ELSIF CD(edge) AND CV > 0 THEN CV := CV - 1;
    Q := CV <= 0``. LD has priority over CD. CV stops at 0 (matiec's PVmin). CV starts at
    0, so Q is TRUE until the first load.
    """
    family = "counters"
    stateful = True
    inputs = [Port("CD", BOOL, default=False, doc="count down on a rising edge"),
              Port("LD", BOOL, default=False, doc="load PV into CV (priority)"),
              Port("PV", INT, default=0, doc="preset value")]
    outputs = [Port("Q", BOOL, doc="CV <= 0"),
               Port("CV", INT, doc="current value")]
    state = [State("CD_M", BOOL, doc="CD of the previous scan")]
    cv_type = INT

    def code(self, io):
        return f"""\
if {io.LD}:
    {io.CV} = {io.PV}
elif {io.CD} and not {io.CD_M} and {io.CV} > 0:
    {io.CV} = {io.CV} - 1
{io.CD_M} = {io.CD}
{io.Q} = {io.CV} <= 0"""


@register
class CTUD(Block):
    """Up-down counter: CU edges count up, CD edges down; QU = CV >= PV, QD = CV <= 0.

    Priority as IEC ed. 2: R (CV := 0) over LD (CV := PV) over counting. Edges
    of CU and CD in the same scan cancel out (no change). CU counts up only
    while CV < PV, CD down only while CV > 0 (matiec's bounds).
    """
    family = "counters"
    stateful = True
    inputs = [Port("CU", BOOL, default=False, doc="count up on a rising edge"),
              Port("CD", BOOL, default=False, doc="count down on a rising edge"),
              Port("R", BOOL, default=False, doc="reset CV to 0 (first priority)"),
              Port("LD", BOOL, default=False, doc="load PV into CV (second priority)"),
              Port("PV", INT, default=0, doc="preset value")]
    outputs = [Port("QU", BOOL, doc="CV >= PV"),
               Port("QD", BOOL, doc="CV <= 0"),
               Port("CV", INT, doc="current value")]
    state = [State("CU_M", BOOL, doc="CU of the previous scan"),
             State("CD_M", BOOL, doc="CD of the previous scan")]
    cv_type = INT

    def code(self, io):
        up, down = io.tmp(), io.tmp()
        return f"""\
{up} = {io.CU} and not {io.CU_M}
{down} = {io.CD} and not {io.CD_M}
{io.CU_M} = {io.CU}
{io.CD_M} = {io.CD}
if {io.R}:
    {io.CV} = 0
elif {io.LD}:
    {io.CV} = {io.PV}
elif {up} and not {down}:
    if {io.CV} < {io.PV}:
        {io.CV} = {io.CV} + 1
elif {down} and not {up}:
    if {io.CV} > 0:
        {io.CV} = {io.CV} - 1
{io.QU} = {io.CV} >= {io.PV}
{io.QD} = {io.CV} <= 0"""


def _typed(base, tp):
    """``base`` on PV and CV of type ``tp`` (IEC ed. 3's CTU_DINT, ...)."""
    name = f"{base.type_name}_{tp.name}"

    def retype(ports):
        return [Port(p.name, tp, p.default, p.doc) if p.name in ("PV", "CV") else p
                for p in ports]
    doc = f"{base.type_name} on {tp.name}: PV and CV are {tp.name}s; CV stops at PV and 0 as on INT."
    return register(type(name, (base,), {
        "__doc__": doc, "__module__": __name__, "__qualname__": name, "type_name": name,
        "inputs": retype(base.inputs), "outputs": retype(base.outputs), "cv_type": tp}))


for _base in (CTU, CTD, CTUD):
    for _tp in (DINT, LINT, UDINT, ULINT):
        globals()[f"{_base.type_name}_{_tp.name}"] = _typed(_base, _tp)
del _base, _tp
