"""Character strings: LEN, LEFT, RIGHT, MID, CONCAT, INSERT, DELETE, REPLACE, FIND.

Positions count from 1 (IEC). Each input and result is a STRING of matiec's
126 characters (its C functions' parameters and result): a longer STRING[n]
is read as its first 126 characters, as a call passes it in matiec's C (and
as TwinCAT's string functions see 255 characters of a longer string), and
CONCAT, INSERT and REPLACE cut their results there. IEC calls an out-of-range length or
position an error and PLCs differ on what they return; no block here raises,
and each does the following (close to CODESYS, matiec and most PLCs):

* LEFT / RIGHT: L <= 0 gives ''; L beyond the length gives the whole string.
* MID: L <= 0, P < 1 or P > LEN(IN) give ''; a span past the end stops at the end.
* DELETE: L <= 0, P < 1 or P > LEN(IN) delete nothing; a span past the end
  deletes to the end.
* INSERT: P <= 0 inserts at the front, P >= LEN(IN1) appends.
* REPLACE: as IEC defines it, INSERT(DELETE(IN1, L, P), IN2, P - 1), with the
  two rules above: P < 1 puts IN2 in front, P > LEN(IN1) appends it.
* FIND: 0 when IN2 is not in IN1, and when IN2 is empty.

Lengths and positions are any integer type (each input its own). LEN and FIND
give any integer type, as matiec's library has them once per integer type and
the ST compiler picks one from the use as for TRUNC (``d := LEN(s)`` is DINT);
placed in a network without a type (``LEN()``), they give INT, as in CODESYS.
"""

from fbd.block import Block, Port, extensible, register
from fbd.types import ANY_INT, INT, STRING, STRING_MAX


def _held(name: str) -> str:
    """An input as the function's STRING parameter holds it: a longer STRING[n]'s
    first 126 characters (a slice of a shorter one is the string itself, no copy)."""
    return f"{name}[:{STRING_MAX}]"


class _IntResult(Block):
    """A string function whose integer result type is its type variable, INT
    unless given (``LEN(DINT)``)."""
    types = {"I": ANY_INT}

    def __init__(self, type_=None, **kwargs):
        super().__init__(type_, **kwargs)
        self.bound_types.setdefault("I", INT)

    @staticmethod
    def result(tp, expr: str) -> str:
        """``expr`` (0..STRING_MAX) in ``tp``: cut to a narrow type as matiec's C cast does."""
        return tp.wrap(expr) if tp.max < STRING_MAX else expr


@register
class LEN(_IntResult):
    """Length of a string, in characters."""
    family = "strings"
    inputs = [Port("IN", STRING)]
    outputs = [Port("OUT", "I")]

    def code(self, io):
        return f"{io.OUT} = {self.result(io.I, f'len({_held(io.IN)})')}"


@register
class LEFT(Block):
    """The first L characters of IN ('' for L <= 0, all of IN for L > LEN(IN))."""
    family = "strings"
    types = {"L": ANY_INT}
    inputs = [Port("IN", STRING), Port("L", "L", doc="number of characters")]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        return f"{io.OUT} = {_held(io.IN)}[:{io.L}] if {io.L} > 0 else ''"


@register
class RIGHT(Block):
    """The last L characters of IN ('' for L <= 0, all of IN for L > LEN(IN))."""
    family = "strings"
    types = {"L": ANY_INT}
    inputs = [Port("IN", STRING), Port("L", "L", doc="number of characters")]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        return f"{io.OUT} = {_held(io.IN)}[-({io.L}):] if {io.L} > 0 else ''"


@register
class MID(Block):
    """L characters of IN from position P (1-based); '' when P is outside IN or L <= 0."""
    family = "strings"
    types = {"L": ANY_INT, "P": ANY_INT}
    inputs = [Port("IN", STRING), Port("L", "L", doc="number of characters"),
              Port("P", "P", doc="position of the first, from 1")]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        s, n, p = _held(io.IN), io.L, io.P
        # P past the end slices to '' by itself.
        return f"{io.OUT} = {s}[{p} - 1:{p} - 1 + {n}] if {n} > 0 and {p} >= 1 else ''"


@register
class CONCAT(Block):
    """IN1, IN2, ... joined (extensible), cut at 126 characters (STRING_MAX)."""
    family = "strings"
    inputs = [extensible("IN", STRING)]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        # no input cut: the joined string's first 126 characters are the same with one
        return f"{io.OUT} = ({' + '.join(io.ins('IN'))})[:{STRING_MAX}]"


@register
class INSERT(Block):
    """IN2 inserted into IN1 after its P-th character (P <= 0: in front; past the end: appended)."""
    family = "strings"
    types = {"P": ANY_INT}
    inputs = [Port("IN1", STRING), Port("IN2", STRING, doc="the text to insert"),
              Port("P", "P", doc="characters of IN1 kept before IN2")]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        # no input cut: past the 126th character of IN1, IN2 lands beyond the result's end
        # either way, and the result's first 126 characters are the same with one
        a, b = io.IN1, io.IN2
        at = io.tmp()
        return [f"{at} = min(max({io.P}, 0), len({a}))",
                f"{io.OUT} = ({a}[:{at}] + {b} + {a}[{at}:])[:{STRING_MAX}]"]


def _delete(s: str, n: str, p: str) -> str:
    """The DELETE expression of ``s``'s first 126 characters (what its STRING
    parameter holds), shared with REPLACE: two slices, as without the cut."""
    return (f"{s}[:{p} - 1] + {s}[{p} - 1 + {n}:{STRING_MAX}] if {n} > 0 and 1 <= {p} <= len({s}) "
            f"and {p} <= {STRING_MAX} else {s}[:{STRING_MAX}]")


@register
class DELETE(Block):
    """IN without the L characters from position P (1-based); unchanged when P is outside IN."""
    family = "strings"
    types = {"L": ANY_INT, "P": ANY_INT}
    inputs = [Port("IN", STRING), Port("L", "L", doc="number of characters"),
              Port("P", "P", doc="position of the first, from 1")]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        return f"{io.OUT} = {_delete(io.IN, io.L, io.P)}"


@register
class REPLACE(Block):
    """IN1 with its L characters from position P replaced by IN2: INSERT(DELETE(IN1, L, P), IN2, P-1)."""
    family = "strings"
    types = {"L": ANY_INT, "P": ANY_INT}
    inputs = [Port("IN1", STRING), Port("IN2", STRING, doc="the replacement"),
              Port("L", "L", doc="number of characters replaced"),
              Port("P", "P", doc="position of the first, from 1")]
    outputs = [Port("OUT", STRING)]

    def code(self, io):
        rest, at = io.tmp(), io.tmp()
        return [f"{rest} = {_delete(io.IN1, io.L, io.P)}",
                f"{at} = min(max({io.P} - 1, 0), len({rest}))",
                f"{io.OUT} = ({rest}[:{at}] + {io.IN2} + {rest}[{at}:])[:{STRING_MAX}]"]


@register
class FIND(_IntResult):
    """Position (1-based) of the first IN2 in IN1; 0 when absent or IN2 is empty."""
    family = "strings"
    inputs = [Port("IN1", STRING), Port("IN2", STRING, doc="the text to find")]
    outputs = [Port("OUT", "I")]

    def code(self, io):
        a, b = _held(io.IN1), _held(io.IN2)
        return f"{io.OUT} = {self.result(io.I, f'{a}.find({b}) + 1')} if {io.IN2} else 0"
