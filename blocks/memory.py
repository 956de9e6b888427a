"""Memory: MEMORY (a value kept between scans), the SR and RS flip-flops, matiec's
SEMA, and bounded LIFO stacks and FIFO queues.
"""

from fbd.block import Block, Port, State, register
from fbd.errors import WiringError
from fbd.types import ANY, ANY_ELEMENTARY, BOOL, INT, ArrayType
from fbd.values import format_value


@register
class MEMORY(Block):
    """Stores IN while SET is TRUE and keeps it otherwise; RST clears it to the type's default.

    The "Memory" block of the 2048-in-FBD design. SET is level-sensitive: while
    it is TRUE, OUT follows IN on every scan (a transparent latch); when it is
    FALSE, OUT keeps the last value stored. RST has priority over SET and
    clears OUT to the type's initial value (FALSE, 0, 0.0, T#0s, ''), which is
    also what OUT holds before the first write. Generic over every elementary
    type: ``MEMORY(INT)``, or the type of what IN is wired to.
    """
    family = "memory"
    stateful = True
    types = {"T": ANY}
    inputs = [Port("IN", "T", doc="value to store"),
              Port("SET", BOOL, default=False, doc="write enable: store IN while TRUE"),
              Port("RST", BOOL, default=False, doc="clear to the type's default (priority)")]
    outputs = [Port("OUT", "T", doc="the stored value")]

    def code(self, io):
        return f"""\
if {io.RST}:
    {io.OUT} = {io.T.default!r}
elif {io.SET}:
    {io.OUT} = {io.IN}"""

    def st(self, types):
        return [], f"""\
IF RST THEN
  OUT := {format_value(types["T"], types["T"].default)};
ELSIF SET THEN
  OUT := IN;
END_IF;"""


@register
class SR(Block):
    """Set-dominant bistable: Q1 := S1 OR (NOT R AND Q1).

    S1 TRUE sets Q1, R TRUE resets it, both TRUE sets it (set wins); Q1 holds
    while both are FALSE. Q1 starts FALSE.
    """
    family = "memory"
    stateful = True
    inputs = [Port("S1", BOOL, default=False, doc="set (dominant)"),
              Port("R", BOOL, default=False, doc="reset")]
    outputs = [Port("Q1", BOOL, doc="the stored bit")]

    def code(self, io):
        return f"{io.Q1} = {io.S1} or (not {io.R} and {io.Q1})"


@register
class RS(Block):
    """Reset-dominant bistable: Q1 := NOT R1 AND (S OR Q1).

    S TRUE sets Q1, R1 TRUE resets it, both TRUE resets it (reset wins); Q1
    holds while both are FALSE. Q1 starts FALSE.
    """
    family = "memory"
    stateful = True
    inputs = [Port("S", BOOL, default=False, doc="set"),
              Port("R1", BOOL, default=False, doc="reset (dominant)")]
    outputs = [Port("Q1", BOOL, doc="the stored bit")]

    def code(self, io):
        return f"{io.Q1} = not {io.R1} and ({io.S} or {io.Q1})"


@register
class SEMA(Block):
    """Semaphore: CLAIM sets BUSY, RELEASE clears it; a CLAIM wins over a RELEASE.

    matiec's SEMA (one of its library's additions to IEC's): ``Q_INTERNAL :=
    CLAIM OR (Q_INTERNAL AND NOT RELEASE); BUSY := Q_INTERNAL``, the
    set-dominant bistable SR under other names. Both inputs are levels, not
    edges; BUSY starts FALSE.
    """
    family = "memory"
    stateful = True
    inputs = [Port("CLAIM", BOOL, default=False, doc="take the semaphore (dominant)"),
              Port("RELEASE", BOOL, default=False, doc="give it back")]
    outputs = [Port("BUSY", BOOL, doc="the semaphore is taken")]
    state = [State("Q_INTERNAL", BOOL, doc="the stored bit")]

    def code(self, io):
        return [f"{io.Q_INTERNAL} = {io.CLAIM} or ({io.Q_INTERNAL} and not {io.RELEASE})",
                f"{io.BUSY} = {io.Q_INTERNAL}"]


# --------------------------------------------------------------- LIFO and FIFO
def _mem_store_op(data: list, depth: int, pop: bool, push: bool, value, fifo: bool):
    """Apply one scan's POP then PUSH to ``data``; return (OVERFLOW, UNDERFLOW).

    The list's end is the top of a stack and the back of a queue. A refused
    operation leaves ``data`` untouched and raises its flag.
    """
    overflow = underflow = False
    if pop:
        if data:
            data.pop(0 if fifo else -1)
        else:
            underflow = True
    if push:
        if len(data) < depth:
            data.append(value)
        else:
            overflow = True
    return overflow, underflow


def _new_store(block, types) -> list:
    return []


class _Store(Block):
    """A bounded LIFO or FIFO of elements of type T, each PLC with its own storage."""
    family = "memory"
    stateful = True
    fifo = False
    types = {"T": ANY_ELEMENTARY}
    params = {"depth": 16}
    helpers = {"_mem_store_op": _mem_store_op}
    inputs = [Port("PUSH", BOOL, default=False, doc="store IN, on a rising edge"),
              Port("POP", BOOL, default=False, doc="remove OUT's element, on a rising edge"),
              Port("IN", "T", doc="value stored by PUSH"),
              Port("RST", BOOL, default=False, doc="empty it and clear the flags (priority)")]
    outputs = [Port("OUT", "T", doc="top element (stack) / front element (queue), or the "
                                    "type's default when empty"),
               Port("EMPTY", BOOL, doc="no element stored"),
               Port("FULL", BOOL, doc="depth elements stored"),
               Port("COUNT", INT, doc="number of elements stored"),
               Port("OVERFLOW", BOOL, doc="the last PUSH was refused: it was full"),
               Port("UNDERFLOW", BOOL, doc="the last POP was refused: it was empty")]
    state = [State("DATA", None, init=_new_store,
                   doc="the elements, oldest first (a Python list)"),
             State("PUSH_M", BOOL, doc="PUSH of the previous scan"),
             State("POP_M", BOOL, doc="POP of the previous scan")]

    def check_params(self):
        depth = self.p["depth"]
        if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= INT.max:
            raise WiringError(f"{self.name}: depth must be an integer from 1 to {INT.max} "
                              f"(COUNT is an INT), not {depth!r}")

    def code(self, io):
        push, pop = io.tmp(), io.tmp()
        depth = self.p["depth"]
        top = "0" if self.fifo else "-1"
        op = f"_mem_store_op({io.DATA}, {depth}, {pop}, {push}, {io.IN}, {self.fifo})"
        return f"""\
{push} = {io.PUSH} and not {io.PUSH_M}
{pop} = {io.POP} and not {io.POP_M}
{io.PUSH_M} = {io.PUSH}
{io.POP_M} = {io.POP}
if {io.RST}:
    {io.DATA}.clear()
    {io.OVERFLOW} = False
    {io.UNDERFLOW} = False
elif {push} or {pop}:
    {io.OVERFLOW}, {io.UNDERFLOW} = {op}
{io.COUNT} = len({io.DATA})
{io.EMPTY} = not {io.DATA}
{io.FULL} = {io.COUNT} >= {depth}
{io.OUT} = {io.DATA}[{top}] if {io.DATA} else {io.T.default!r}"""

    def st(self, types):
        """The elements in ARRAY[0..depth-1]; a stack grows from DATA[0], a queue is
        a ring from HEAD (its front) to TAIL (where the next PUSH goes)."""
        depth, tp, fifo = self.p["depth"], types["T"], self.fifo
        local = [("DATA", ArrayType.of(tp, [(0, depth - 1)])), ("PUSH_M", BOOL),
                 ("POP_M", BOOL), ("PUSH_E", BOOL), ("POP_E", BOOL)]
        if fifo:
            local += [("HEAD", INT), ("TAIL", INT)]
            clear = "  COUNT := 0;\n  HEAD := 0;\n  TAIL := 0;"
            pop = f"""\
      HEAD := HEAD + 1;
      IF HEAD >= {depth} THEN
        HEAD := 0;
      END_IF;
      COUNT := COUNT - 1;"""
            push = f"""\
      DATA[TAIL] := IN;
      TAIL := TAIL + 1;
      IF TAIL >= {depth} THEN
        TAIL := 0;
      END_IF;
      COUNT := COUNT + 1;"""
            top = "DATA[HEAD]"
        else:
            clear = "  COUNT := 0;"
            pop = "      COUNT := COUNT - 1;"
            push = "      DATA[COUNT] := IN;\n      COUNT := COUNT + 1;"
            top = "DATA[COUNT - 1]"
        return local, f"""\
PUSH_E := PUSH AND NOT PUSH_M;
POP_E := POP AND NOT POP_M;
PUSH_M := PUSH;
POP_M := POP;
IF RST THEN
{clear}
  OVERFLOW := FALSE;
  UNDERFLOW := FALSE;
ELSIF PUSH_E OR POP_E THEN
  OVERFLOW := FALSE;
  UNDERFLOW := FALSE;
  IF POP_E THEN
    IF COUNT > 0 THEN
{pop}
    ELSE
      UNDERFLOW := TRUE;
    END_IF;
  END_IF;
  IF PUSH_E THEN
    IF COUNT < {depth} THEN
{push}
    ELSE
      OVERFLOW := TRUE;
    END_IF;
  END_IF;
END_IF;
EMPTY := COUNT = 0;
FULL := COUNT >= {depth};
IF COUNT > 0 THEN
  OUT := {top};
ELSE
  OUT := {format_value(tp, tp.default)};
END_IF;"""


@register
class LIFO(_Store):
    """Bounded stack (last in, first out) of elements of any elementary type.

    Parameter ``depth`` (default 16, 1..32767) bounds the number of elements;
    ``LIFO(INT, depth=729)``.

    PUSH and POP act on their rising edge, so one press is one operation
    however many scans it lasts (an input already TRUE on the first scan is an
    edge). With edges of both in the same scan, the POP is done first, then
    the PUSH: the top element is replaced, even when the stack is full (an
    empty stack raises UNDERFLOW and stores IN). RST has priority: it empties
    the stack and clears both flags; PUSH or POP edges in that scan are
    dropped, not kept for later.

    Nothing is lost silently: a PUSH when full is refused (the elements stay
    as they are) and raises OVERFLOW; a POP when empty raises UNDERFLOW. Each
    flag stays TRUE until RST or the next scan with a PUSH or POP edge, which
    sets both flags afresh, so a successful operation clears them.

    OUT shows the top (most recently pushed) element after this scan's
    operations, or the type's default when empty: a peek. To use the element
    a POP removes, read OUT before the POP edge (on the previous scan, e.g.
    through a feedback wire).
    """
    fifo = False


@register
class FIFO(_Store):
    """Bounded queue (first in, first out) of elements of any elementary type.

    Parameter ``depth`` (default 16, 1..32767) bounds the number of elements;
    ``FIFO(STRING, depth=32)``.

    PUSH (enqueue at the back) and POP (dequeue from the front) act on their
    rising edge, so one press is one operation however many scans it lasts
    (an input already TRUE on the first scan is an edge). With edges of both
    in the same scan, the POP is done first, then the PUSH: a full queue
    shifts (the front leaves, IN joins the back); an empty one raises
    UNDERFLOW and stores IN. RST has priority: it empties the queue and clears
    both flags; PUSH or POP edges in that scan are dropped, not kept for later.

    Nothing is lost silently: a PUSH when full is refused (the elements stay
    as they are) and raises OVERFLOW; a POP when empty raises UNDERFLOW. Each
    flag stays TRUE until RST or the next scan with a PUSH or POP edge, which
    sets both flags afresh, so a successful operation clears them.

    OUT shows the front (oldest) element after this scan's operations, or the
    type's default when empty: a peek. To use the element a POP removes, read
    OUT before the POP edge (on the previous scan, e.g. through a feedback
    wire).
    """
    fifo = True
