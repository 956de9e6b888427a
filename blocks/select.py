"""Selection: SEL, MUX, MAX, MIN, LIMIT and MOVE on any elementary type.

Every block here is a pure function whose inputs and output share one type
``T``; MUX's selector ``K`` has a type of its own (any integer). The order
used by MAX, MIN and LIMIT is the one the comparison blocks use (see
:mod:`blocks.compare`): numeric for numbers and TIME, unsigned for bit
strings, FALSE < TRUE for BOOL, lexicographic by character code for STRING.

Semantics are written as conditional expressions (``a if c else b``), one
per statement, so a vectorising engine can turn each into a ``where``.
"""

from fbd.block import Block, Port, extensible, register
from fbd.types import ANY, ANY_ELEMENTARY, ANY_INT, BOOL


@register
class SEL(Block):
    """Binary selection: OUT is IN0 while G is FALSE, IN1 while G is TRUE."""
    family = "select"
    types = {"T": ANY}
    inputs = [Port("G", BOOL, doc="selector: FALSE picks IN0, TRUE picks IN1"),
              Port("IN0", "T"), Port("IN1", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        return f"{io.OUT} = {io.IN1} if {io.G} else {io.IN0}"


@register
class MUX(Block):
    """Multiplexer: OUT is input number K of IN0..INn-1 (K clamped into 0..n-1).

    ``MUX(n=4)`` has inputs ``IN0, IN1, IN2, IN3`` (numbered from 0, as IEC
    numbers them; ``n`` is how many there are). ``K`` may be any integer
    type, independent of the data type ``T``: ``MUX(REAL, types={"TK": USINT})``.

    K out of range never stops the scan: K >= n selects the last input
    IN(n-1), as CODESYS and TwinCAT document; a negative K selects IN0.
    (matiec instead returns the type's default and clears ENO; this
    simulator has no ENO, and a clamped value is the safer of the two.)
    """
    family = "select"
    types = {"T": ANY, "TK": ANY_INT}
    inputs = [Port("K", "TK", doc="index of the input to pass, 0-based"),
              extensible("IN", "T", doc="the values to choose from, numbered from 0", start=0)]
    outputs = [Port("OUT", "T", doc="IN<K>")]

    def code(self, io):
        ins = io.ins("IN")
        k = io.K
        # IN0 if K <= 0 else IN1 if K == 1 else ... else IN(n-1)
        expr = ins[-1]
        for i in range(self.n - 2, 0, -1):
            expr = f"{ins[i]} if {k} == {i} else {expr}"
        return f"{io.OUT} = {ins[0]} if {k} <= 0 else {expr}"


class _Extreme(Block):
    """Shared shape of MAX and MIN: fold the inputs left to right, keeping the
    running value unless the next input is strictly ``better``."""
    family = "select"
    types = {"T": ANY_ELEMENTARY}
    inputs = [extensible("IN", "T")]
    outputs = [Port("OUT", "T")]
    better = ""

    def code(self, io):
        ins = io.ins("IN")
        lines, acc = [], ins[0]
        for i, nxt in enumerate(ins[1:], start=2):
            target = io.OUT if i == len(ins) else io.tmp()
            lines.append(f"{target} = {nxt} if {nxt} {self.better} {acc} else {acc}")
            acc = target
        return lines


@register
class MAX(_Extreme):
    """Maximum of IN1..INn (extensible); on ties the earliest input is kept."""
    better = ">"


@register
class MIN(_Extreme):
    """Minimum of IN1..INn (extensible); on ties the earliest input is kept."""
    better = "<"


@register
class LIMIT(Block):
    """Limit IN to the range MN..MX: OUT = MIN(MAX(IN, MN), MX), exactly as IEC defines it.

    If MN > MX (an empty range) the formula gives MX whatever IN is: the
    upper limit wins. CODESYS defines LIMIT by the same formula; matiec
    differs there (it returns MN when IN <= MN). Elsewhere each comparison is
    matiec's ``IN > MN ? (IN < MX ? IN : MX) : MN``, so a NaN gives MN and
    LIMIT(-0.0, 0.0, 0.0) -0.0, as there.
    """
    family = "select"
    types = {"T": ANY_ELEMENTARY}
    inputs = [Port("MN", "T", doc="lower limit"), Port("IN", "T", doc="the value"),
              Port("MX", "T", doc="upper limit")]
    outputs = [Port("OUT", "T", doc="IN, clamped into MN..MX")]

    def code(self, io):
        inside = f"{io.IN} if {io.IN} < {io.MX} else {io.MX}"      # MIN(IN, MX) when IN > MN
        below = f"{io.MX} if {io.MN} > {io.MX} else {io.MN}"       # IEC's MX for an empty range
        return f"{io.OUT} = ({inside}) if {io.IN} > {io.MN} else ({below})"


@register
class MOVE(Block):
    """Assignment: OUT is IN, of any type (IEC's MOVE / ``:=``); a string cut to
    T's capacity as a store cuts it (a longer STRING[n] into a STRING[10]: 10)."""
    family = "select"
    types = {"T": ANY}
    inputs = [Port("IN", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        capacity = io.T.capacity
        return f"{io.OUT} = {io.IN}" if capacity is None else f"{io.OUT} = {io.IN}[:{capacity}]"
