"""Timers: TON, TOF, TP as IEC 61131-3 defines them, NOW, the PLC clock, and RTC,
matiec's real-time clock.

Every timer reads the PLC's simulated clock (``io.now``, a TIME, integer ns at the
start of the scan), never the wall clock: the same inputs give the same scans.
Time advances only from scan to scan, so a timer sees elapsed time in steps
of the cycle; a preset that is not a multiple of the cycle is reached on the
first scan at or after it.

Decisions shared by the three timers (the standard describes them only by
timing diagrams):

* the elapsed time is measured from the scan that saw the starting edge
  (that scan has ET = T#0s);
* PT is read on every scan while the timer runs, so changing it takes
  effect at once: ET is compared with the new PT (lengthening PT lengthens
  the running delay or pulse, shortening it below the time already elapsed
  ends it on this scan); once a timer has finished, a change of PT does not
  move Q or ET until the next start;
* ET stops at PT when the time is up, whatever PT is: a negative PT gives
  ET = PT there, as matiec's timers do (IEC leaves PT <= 0 open);
* the scan that sees the starting edge only records the start (matiec's
  state machines, checked with iec2c 6bb2c339df6f): it does not compare ET
  with PT, so a PT of zero or less still delays TON by one scan, gives TP a
  pulse of one scan and keeps TOF's Q TRUE for one scan after IN falls.
"""

from fbd.block import Block, Port, State, register
from fbd.types import BOOL, DT, LINT, LREAL, TIME


def _timing(io, done: bool, indent: str) -> str:
    """The running timer's step, shared by the three: ET counts up from START; once
    PT has passed Q becomes ``done`` and ET stops at PT (matiec: START + PT <= now)."""
    et = io.tmp()
    return "\n".join(indent + line for line in f"""\
{et} = {io.now} - {io.START}
if {et} >= {io.PT}:
    {io.Q} = {done}
    {io.ET} = {io.PT}
else:
    {io.ET} = {et}""".split("\n"))


class _Timer(Block):
    family = "timers"
    stateful = True
    inputs = [Port("IN", BOOL, default=False, doc="start input"),
              Port("PT", TIME, default="T#0s", doc="preset time")]
    outputs = [Port("Q", BOOL, doc="timer output"),
               Port("ET", TIME, doc="elapsed time, at most PT")]


@register
class TON(_Timer):
    """On-delay timer: Q goes TRUE once IN has been TRUE for PT, and falls with IN.

    The delay starts in the scan where IN is first seen TRUE; Q rises on the
    first later scan whose time is at least PT after it, so even PT = T#0s
    delays Q by one scan, as matiec's TON does (its rising-edge scan only
    records the start time). At a 5 ms cycle, IN set before
    scan 1 and PT = T#10ms give ET = 0, 5 ms, 10 ms on scans 1, 2, 3 and Q TRUE
    from scan 3; PT = T#12ms gives Q on scan 4 with ET = T#12ms. While Q is TRUE
    it holds (with ET = PT) until IN falls; IN FALSE resets Q to FALSE and ET
    to T#0s at once.
    """
    state = [State("M", BOOL, doc="IN has been TRUE since START (timing or done)"),
             State("START", TIME, doc="PLC time of the scan IN was first seen TRUE")]

    def code(self, io):
        return f"""\
if {io.IN}:
    if not {io.M}:
        {io.M} = True
        {io.START} = {io.now}
    elif not {io.Q}:
{_timing(io, True, "        ")}
else:
    {io.M} = False
    {io.Q} = False
    {io.ET} = 0"""


@register
class TOF(_Timer):
    """Off-delay timer: Q follows IN up at once, and falls PT after IN falls.

    While IN is TRUE, Q is TRUE and ET is T#0s. The delay starts in the scan
    where IN is first seen FALSE (Q still TRUE, ET still T#0s there) and Q
    falls on the first later scan at least PT after it, when ET stops at PT
    and stays there until IN rises again. IN TRUE during the delay cancels it
    (Q stays TRUE, ET back to T#0s). Q is FALSE before IN has ever been TRUE.
    """
    state = [State("M", BOOL, doc="IN was TRUE on the previous scan"),
             State("START", TIME, doc="PLC time of the scan IN was first seen FALSE")]

    def code(self, io):
        return f"""\
if {io.IN}:
    {io.M} = True
    {io.Q} = True
    {io.ET} = 0
elif {io.M}:
    {io.M} = False
    {io.START} = {io.now}
elif {io.Q}:
{_timing(io, False, "    ")}"""


@register
class TP(_Timer):
    """Pulse timer: a rising edge of IN gives a pulse of length PT on Q; not retriggerable.

    The pulse starts in the scan where a rising edge of IN is seen while no
    pulse is running (IN already TRUE on the first scan counts as an edge) and
    Q is TRUE on that scan and on every later scan less than PT after it, so
    a pulse lasts at least one scan. Edges of IN during the pulse
    are ignored, and so is an IN still TRUE when the pulse ends: a new pulse
    needs a new rising edge. ET counts up to PT and stays there after the
    pulse while IN is TRUE; it is T#0s whenever Q and IN are both FALSE.
    """
    state = [State("M", BOOL, doc="IN of the previous scan (edge detection)"),
             State("START", TIME, doc="PLC time the running pulse started")]

    def code(self, io):
        return f"""\
if not {io.Q} and {io.IN} and not {io.M}:
    {io.Q} = True
    {io.START} = {io.now}
elif {io.Q}:
{_timing(io, False, "    ")}
if not {io.Q} and not {io.IN}:
    {io.ET} = 0
{io.M} = {io.IN}"""


@register
class NOW(Block):
    """The PLC's current time: OUT as a TIME, SEC as LREAL seconds.

    This is the simulated clock the timers read (``io.now``): T#0s on the first
    scan, then one cycle more on every scan (T#5ms, T#10ms, ... at 5 ms),
    unless the PLC was started with ``clock_start``, which offsets it. Not a
    pure function, since it reads the clock, but it keeps no state. SEC is 0.0
    on the first scan: guard a division by it.
    """
    family = "timers"
    outputs = [Port("OUT", TIME, doc="time since the PLC clock's start"),
               Port("SEC", LREAL, doc="the same, in seconds")]

    def code(self, io):
        return [f"{io.OUT} = {io.now}",
                f"{io.SEC} = {io.now} / 1e9"]

    def st(self, types):
        # IEC's ST cannot name the PLC clock; matiec's RTC reads it (its CDT, while IN is
        # FALSE, is the __CURRENT_TIME its timers read). Counting from the first call makes
        # the first scan T#0s on any runtime, as here. SEC is the whole nanoseconds over
        # 1e9, as the block computes it: TIME_TO_LREAL (seconds + nanoseconds / 1e9) can
        # differ in the last bit.
        return [("CLOCK", "RTC"), ("START", DT), ("STARTED", BOOL), ("WHOLE", LINT)], """\
CLOCK(IN := FALSE);
IF NOT STARTED THEN
  START := CLOCK.CDT;
  STARTED := TRUE;
END_IF;
OUT := CLOCK.CDT - START;
WHOLE := TIME_TO_LINT(OUT);
SEC := LINT_TO_LREAL(WHOLE * 1000000000
       + LREAL_TO_LINT(TIME_TO_LREAL(OUT - LINT_TO_TIME(WHOLE)) * 1.0E9)) / 1.0E9;"""


@register
class RTC(Block):
    """Real-time clock: CDT is the PLC's date and time, or PDT running on from IN's rising edge.

    matiec's RTC (one of its library's additions to IEC's): with IN FALSE,
    CDT is the PLC clock as a DATE_AND_TIME; the scan that sees IN rise
    stores the offset PDT - clock, and while IN stays TRUE CDT is the clock
    plus that offset, so it starts at PDT and runs on with the clock. PDT is
    read only on the rising edge; Q is a copy of IN. The clock is the
    simulated one the timers read (``io.now``): DT#1970-01-01-00:00:00 on the
    first scan, one cycle later on each scan, unless the PLC was started with
    ``clock_start`` (a wall-clock time, for instance), as matiec's RTC reads
    ``__CURRENT_TIME``, which the oracle's and OpenPLC's loops advance by the
    task's interval.
    """
    family = "timers"
    stateful = True
    inputs = [Port("IN", BOOL, default=False, doc="FALSE: the current time; TRUE: PDT on and on"),
              Port("PDT", DT, default="DT#1970-01-01-00:00:00", doc="preset date and time")]
    outputs = [Port("Q", BOOL, doc="a copy of IN"),
               Port("CDT", DT, doc="the date and time, current or relative to PDT")]
    state = [State("PREV_IN", BOOL, doc="IN of the previous scan"),
             State("OFFSET", TIME, doc="PDT - the clock, at IN's rising edge"),
             State("CURRENT_TIME", DT, doc="the PLC clock on this scan")]

    def code(self, io):
        return [f"{io.CURRENT_TIME} = {io.now}",
                f"if {io.IN}:",
                f"    if not {io.PREV_IN}:",
                f"        {io.OFFSET} = {TIME.wrap(f'{io.PDT} - {io.CURRENT_TIME}')}",
                f"    {io.CDT} = {DT.wrap(f'{io.CURRENT_TIME} + {io.OFFSET}')}",
                "else:",
                f"    {io.CDT} = {io.CURRENT_TIME}",
                f"{io.Q} = {io.IN}",
                f"{io.PREV_IN} = {io.IN}"]
