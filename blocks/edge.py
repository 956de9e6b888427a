"""Edge detection: R_TRIG and F_TRIG, a one-scan pulse on a change of CLK.

Both keep the CLK of the previous scan in a state variable ``M`` and compare
it with this scan's CLK; Q is TRUE for exactly the one scan in which the
edge is seen.
"""

from fbd.block import Block, Port, State, register
from fbd.errors import WiringError
from fbd.types import BOOL


@register
class R_TRIG(Block):
    """Rising edge: Q is TRUE for one scan when CLK goes from FALSE to TRUE.

    M starts FALSE (IEC 61131-3 ed. 2, and CODESYS alike), so a CLK that is
    already TRUE on the first scan counts as a rising edge: Q fires on scan 1.
    """
    family = "edge"
    stateful = True
    inputs = [Port("CLK", BOOL, default=False, doc="signal watched")]
    outputs = [Port("Q", BOOL, doc="TRUE for the one scan of a rising edge")]
    state = [State("M", BOOL, doc="CLK of the previous scan")]

    def code(self, io):
        return [f"{io.Q} = {io.CLK} and not {io.M}",
                f"{io.M} = {io.CLK}"]


def _f_trig_memory(block, types):
    # M is "CLK of the previous scan". Starting it TRUE makes a CLK that is
    # FALSE on the first scan look like a falling edge: IEC ed. 2's
    # Q := NOT CLK AND NOT M; M := NOT CLK with M initially FALSE.
    return bool(block.p["first_scan_pulse"])


@register
class F_TRIG(Block):
    """Falling edge: Q is TRUE for one scan when CLK goes from TRUE to FALSE.

    The first scan is where the editions differ. IEC 61131-3 ed. 2 writes the
    body as ``Q := NOT CLK AND NOT M; M := NOT CLK`` with M initially FALSE,
    so Q fires on the first scan when CLK is FALSE then. CODESYS's library
    (``Q := NOT CLK AND M; M := CLK``) does not. The parameter chooses:

    * ``F_TRIG()`` or ``F_TRIG(first_scan_pulse=True)``: IEC ed. 2, the default;
    * ``F_TRIG(first_scan_pulse=False)``: CODESYS, no pulse until CLK has been
      TRUE.

    Either way the state M shown here is the CLK of the previous scan (TRUE
    before the first scan when first_scan_pulse is set).
    """
    family = "edge"
    stateful = True
    params = {"first_scan_pulse": True}
    inputs = [Port("CLK", BOOL, default=False, doc="signal watched")]
    outputs = [Port("Q", BOOL, doc="TRUE for the one scan of a falling edge")]
    state = [State("M", BOOL, init=_f_trig_memory, doc="CLK of the previous scan")]

    def check_params(self):
        if not isinstance(self.p["first_scan_pulse"], bool):
            raise WiringError(f"F_TRIG: first_scan_pulse must be True or False, "
                              f"not {self.p['first_scan_pulse']!r}")

    def code(self, io):
        return [f"{io.Q} = not {io.CLK} and {io.M}",
                f"{io.M} = {io.CLK}"]

    def st(self, types):
        if self.p["first_scan_pulse"]:
            return None     # IEC's own F_TRIG
        # CODESYS's F_TRIG: no pulse before CLK has been TRUE
        return [("M", BOOL)], "Q := NOT CLK AND M;\nM := CLK;"
