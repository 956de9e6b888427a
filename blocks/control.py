"""Control: PID, RAMP, HYSTERESIS, INTEGRAL, DERIVATIVE, the closed-loop blocks of
matiec's library, which Beremiz and OpenPLC Editor offer beside IEC's standard ones
("additional function blocks").

They are the examples of IEC 61131-3's second edition (its final draft), which
matiec keeps in ST (its ``lib/*_st.txt``) and compiles to C: their values are
what that C computes, and these blocks reproduce it bit for bit (checked with
iec2c 6bb2c339df6f over scripted runs):

* every operation on two REALs rounds to single precision, as C's ``float``
  arithmetic does (``PV - SP``, ``XIN * CYCLE``, ``KP * (...)``);
* an untyped real literal in matiec's ST is a C ``double``: DERIVATIVE's
  ``3.0 * (XIN - X3) + X1 - X2`` and ``10.0 * CYCLE`` are computed in double
  and rounded once, where the quotient is stored;
* CYCLE, a TIME, enters as ``TIME_TO_REAL(CYCLE)``: seconds as a REAL
  (T#100ms is 0.1 rounded to single precision);
* a division by zero (CYCLE = T#0s in DERIVATIVE, TR = 0.0 in PID) is C's:
  +-inf, or NaN for 0 / 0, which then flows on; no block here stops a scan.

The blocks are sampled systems: they do not read the PLC clock but trust
CYCLE to be the time between two calls, as matiec's do (a CYCLE that is not
the task's interval scales the integral and the derivative by the ratio).
"""

from fbd.block import Block, Port, State, register
from fbd.types import BOOL, REAL, TIME

from .arith import _arith_div_by_zero
from .convert import _expression

_HELPERS = {"_arith_div_by_zero": _arith_div_by_zero}


def _seconds(time: str) -> str:
    """``TIME_TO_REAL(time)``, as the library's conversion computes it."""
    return _expression(TIME, REAL, time)


def _quotient(a: str, b: str) -> str:
    """``a / b`` of two values held in doubles, rounded to REAL; C's +-inf or NaN
    for a zero ``b`` (where Python would raise)."""
    return f"({REAL.wrap(f'{a} / {b}')} if {b} else _arith_div_by_zero({a}, {b}))"


def _integral(q: str, xout: str, run: str, r1: str, xin: str, x0: str, cycle: str) -> list[str]:
    """INTEGRAL's body over the names given: PID runs it as its ITERM."""
    step = REAL.wrap(f"{xin} * {_seconds(cycle)}")
    return [f"{q} = not {r1}",
            f"if {r1}:",
            f"    {xout} = {x0}",
            f"elif {run}:",
            f"    {xout} = {REAL.wrap(f'{xout} + {step}')}"]


def _derivative(io, xout: str, run: str, xin: str, cycle: str, x1: str, x2: str,
                x3: str) -> list[str]:
    """DERIVATIVE's body over the names given: PID runs it as its DTERM."""
    num, den = io.tmp(), io.tmp()
    return [f"if {run}:",
            f"    {num} = 3.0 * {REAL.wrap(f'{xin} - {x3}')} + {x1} - {x2}",
            f"    {den} = 10.0 * {_seconds(cycle)}",
            f"    {xout} = {_quotient(num, den)}",
            f"    {x3} = {x2}",
            f"    {x2} = {x1}",
            f"    {x1} = {xin}",
            "else:",
            f"    {xout} = 0.0",
            f"    {x1} = {xin}",
            f"    {x2} = {xin}",
            f"    {x3} = {xin}"]


@register
class INTEGRAL(Block):
    """Integral: XOUT adds XIN * CYCLE on every scan while RUN; R1 sets it to X0.

    matiec's body: ``Q := NOT R1; IF R1 THEN XOUT := X0 ELSIF RUN THEN XOUT :=
    XOUT + XIN * TIME_TO_REAL(CYCLE)``. R1 has priority; with RUN FALSE XOUT
    holds. The product and the sum each round to single precision, as the
    C float arithmetic does, so a long integration drifts exactly as on
    matiec (0.1 * 0.1 s added 1,000 times is not 10.0). XOUT starts at 0.0.
    """
    family = "control"
    stateful = True
    helpers = _HELPERS
    inputs = [Port("RUN", BOOL, default=False, doc="integrate (FALSE: hold)"),
              Port("R1", BOOL, default=False, doc="overriding reset: XOUT := X0"),
              Port("XIN", REAL, default=0.0, doc="input variable"),
              Port("X0", REAL, default=0.0, doc="initial value"),
              Port("CYCLE", TIME, default="T#0s", doc="sampling period")]
    outputs = [Port("Q", BOOL, doc="NOT R1"),
               Port("XOUT", REAL, doc="integrated output")]

    def code(self, io):
        return _integral(io.Q, io.XOUT, io.RUN, io.R1, io.XIN, io.X0, io.CYCLE)


@register
class DERIVATIVE(Block):
    """Derivative: XOUT is the slope of XIN over its last four samples while RUN.

    matiec's body: ``XOUT := (3.0 * (XIN - X3) + X1 - X2) / (10.0 *
    TIME_TO_REAL(CYCLE)); X3 := X2; X2 := X1; X1 := XIN`` while RUN; RUN FALSE
    gives XOUT = 0.0 and X1, X2, X3 := XIN, so the first scan after RUN rises
    differentiates against XIN of the scan before. The literals 3.0 and 10.0
    are C doubles: the numerator and the denominator are computed in double
    and the quotient rounded once to REAL. CYCLE = T#0s divides by zero:
    XOUT is +-inf, or NaN when the numerator is 0 too (IEEE, as the C does).
    """
    family = "control"
    stateful = True
    helpers = _HELPERS
    inputs = [Port("RUN", BOOL, default=False, doc="differentiate (FALSE: reset, XOUT = 0.0)"),
              Port("XIN", REAL, default=0.0, doc="input to be differentiated"),
              Port("CYCLE", TIME, default="T#0s", doc="sampling period")]
    outputs = [Port("XOUT", REAL, doc="differentiated output")]
    state = [State("X1", REAL, doc="XIN of the previous scan"),
             State("X2", REAL, doc="XIN two scans ago"),
             State("X3", REAL, doc="XIN three scans ago")]

    def code(self, io):
        return _derivative(io, io.XOUT, io.RUN, io.XIN, io.CYCLE, io.X1, io.X2, io.X3)


#: PID's own variables, named as matiec names its members (``PID1.ITERM.XOUT``)
_ITERM, _DTERM = "ITERM.XOUT", "DTERM.XOUT"
_DTERM_X = ("DTERM.X1", "DTERM.X2", "DTERM.X3")


@register
class PID(Block):
    """PID controller: XOUT = KP * (ERROR + ITERM / TR + DTERM * TD), ERROR = PV - SP.

    matiec's PID, made of an INTEGRAL (ITERM) and a DERIVATIVE (DTERM) of
    ERROR, both running while AUTO::

        ERROR := PV - SP;
        ITERM(RUN := AUTO, R1 := NOT AUTO, XIN := ERROR,
              X0 := TR * (X0 - ERROR), CYCLE := CYCLE);
        DTERM(RUN := AUTO, XIN := ERROR, CYCLE := CYCLE);
        XOUT := KP * (ERROR + ITERM.XOUT / TR + DTERM.XOUT * TD);

    ERROR is PV - SP (not SP - PV): a process that rises with XOUT needs a
    negative KP. With AUTO FALSE (manual) ITERM is reset to TR * (X0 - ERROR)
    and DTERM to 0, so XOUT is KP * X0 (up to rounding): the controller
    tracks the manual value X0 and switching AUTO on starts from it without a
    bump. Each operation rounds to single precision as matiec's C float
    arithmetic does. TR is the reset (integral) time in seconds and divides:
    TR = 0.0 gives +-inf or NaN, as on matiec; TD = 0.0 leaves out the
    derivative term, unless CYCLE = T#0s made it +-inf or NaN (see
    DERIVATIVE), when 0.0 times it is NaN.
    The state shows ITERM.XOUT, DTERM.XOUT and DTERM's samples under matiec's
    names.
    """
    family = "control"
    stateful = True
    helpers = _HELPERS
    inputs = [Port("AUTO", BOOL, default=False, doc="TRUE: automatic; FALSE: manual (XOUT "
                                                    "tracks KP * X0)"),
              Port("PV", REAL, default=0.0, doc="process variable"),
              Port("SP", REAL, default=0.0, doc="set point"),
              Port("X0", REAL, default=0.0, doc="manual output adjustment"),
              Port("KP", REAL, default=0.0, doc="proportionality constant"),
              Port("TR", REAL, default=0.0, doc="reset time, in seconds"),
              Port("TD", REAL, default=0.0, doc="derivative time constant, in seconds"),
              Port("CYCLE", TIME, default="T#0s", doc="sampling period")]
    outputs = [Port("XOUT", REAL, doc="controller output")]
    state = [State("ERROR", REAL, doc="PV - SP"),
             State(_ITERM, REAL, doc="the integral term (an INTEGRAL of ERROR)"),
             State(_DTERM, REAL, doc="the derivative term (a DERIVATIVE of ERROR)"),
             *(State(name, REAL, doc=f"DTERM's {name[-2:]}") for name in _DTERM_X)]

    def code(self, io):
        error, iterm, dterm = io.ERROR, getattr(io, _ITERM), getattr(io, _DTERM)
        x1, x2, x3 = (getattr(io, name) for name in _DTERM_X)
        auto, reset = io.AUTO, io.tmp()
        # ITERM's X0, computed where INTEGRAL reads it: only in manual
        x0 = REAL.wrap(f"{io.TR} * {REAL.wrap(f'{io.X0} - {error}')}")
        lines = [f"{io.ERROR} = {REAL.wrap(f'{io.PV} - {io.SP}')}",
                 f"{reset} = not {auto}"]
        lines += _integral(io.tmp(), iterm, auto, reset, error, x0, io.CYCLE)
        lines += _derivative(io, dterm, auto, error, io.CYCLE, x1, x2, x3)
        proportional = REAL.wrap(f"{error} + {_quotient(iterm, io.TR)}")
        total = REAL.wrap(f"{proportional} + {REAL.wrap(f'{dterm} * {io.TD}')}")
        return lines + [f"{io.XOUT} = {REAL.wrap(f'{io.KP} * {total}')}"]


@register
class RAMP(Block):
    """Ramp: XOUT goes from X0 to X1 in a straight line over TR while RUN, then stays at X1.

    matiec's body: ``BUSY := RUN; IF RUN THEN IF T >= TR THEN BUSY := 0;
    XOUT := X1 ELSE XOUT := XI + (X1 - XI) * TIME_TO_REAL(T) /
    TIME_TO_REAL(TR); T := T + CYCLE END_IF ELSE XOUT := X0; XI := X0; T :=
    T#0s``. RUN FALSE tracks X0 (and remembers it as the ramp's start XI);
    with RUN TRUE the elapsed time T counts CYCLE per scan from T#0s and
    XOUT is interpolated from XI towards X1 (X1 is read every scan: moving it
    bends the ramp), each operation rounded to single precision; once T
    reaches TR, XOUT is X1 and BUSY falls. So a ramp of TR = n * CYCLE is
    BUSY for n scans and reaches X1 on scan n + 1; TR <= T#0s gives X1 at
    once. A RUN TRUE from the first scan ramps from XI's initial 0.0, not
    from X0, as matiec's does.
    """
    family = "control"
    stateful = True
    helpers = _HELPERS
    inputs = [Port("RUN", BOOL, default=False, doc="FALSE: track X0; TRUE: ramp to and track X1"),
              Port("X0", REAL, default=0.0, doc="value tracked while RUN is FALSE"),
              Port("X1", REAL, default=0.0, doc="the ramp's target"),
              Port("TR", TIME, default="T#0s", doc="ramp duration"),
              Port("CYCLE", TIME, default="T#0s", doc="sampling period")]
    outputs = [Port("BUSY", BOOL, doc="TRUE while ramping"),
               Port("XOUT", REAL, doc="the ramp's value")]
    state = [State("XI", REAL, doc="the ramp's start: X0 when RUN was last FALSE"),
             State("T", TIME, doc="elapsed time of the ramp")]

    def code(self, io):
        share, duration = io.tmp(), io.tmp()
        rise = REAL.wrap(f"{io.X1} - {io.XI}")
        return [f"{io.BUSY} = {io.RUN}",
                f"if {io.RUN}:",
                f"    if {io.T} >= {io.TR}:",
                f"        {io.BUSY} = False",
                f"        {io.XOUT} = {io.X1}",
                "    else:",
                f"        {share} = {REAL.wrap(f'{rise} * {_seconds(io.T)}')}",
                f"        {duration} = {_seconds(io.TR)}",
                f"        {io.XOUT} = {REAL.wrap(f'{io.XI} + ' + _quotient(share, duration))}",
                *("        " + line for line in TIME.wrap_into(io.T, f"{io.T} + {io.CYCLE}")),
                "else:",
                f"    {io.XOUT} = {io.X0}",
                f"    {io.XI} = {io.X0}",
                f"    {io.T} = 0"]


@register
class HYSTERESIS(Block):
    """Hysteresis: Q rises when XIN1 > XIN2 + EPS and falls when XIN1 < XIN2 - EPS.

    matiec's body: ``IF Q THEN IF XIN1 < XIN2 - EPS THEN Q := 0 END_IF ELSIF
    XIN1 > XIN2 + EPS THEN Q := 1 END_IF``: between the two thresholds Q
    holds, and Q starts FALSE. The thresholds are rounded to single precision
    before the comparison, as C's float arithmetic gives them; a NaN compares
    false, so it leaves Q as it is.
    """
    family = "control"
    stateful = True
    inputs = [Port("XIN1", REAL, default=0.0, doc="value watched"),
              Port("XIN2", REAL, default=0.0, doc="reference"),
              Port("EPS", REAL, default=0.0, doc="half the width of the band")]
    outputs = [Port("Q", BOOL, doc="TRUE above the band, FALSE below it, held inside")]

    def code(self, io):
        return [f"if {io.Q}:",
                f"    if {io.XIN1} < {REAL.wrap(f'{io.XIN2} - {io.EPS}')}:",
                f"        {io.Q} = False",
                f"elif {io.XIN1} > {REAL.wrap(f'{io.XIN2} + {io.EPS}')}:",
                f"    {io.Q} = True"]
