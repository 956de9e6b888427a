"""Comparison: EQ, NE, GT, GE, LT, LE on any elementary type, giving a BOOL.

All six accept every elementary type (IEC 61131-3 ed. 3, table "comparison
functions": ANY_ELEMENTARY); the inputs of one block share one type, which
is inferred from the wires and literals like any generic block's.

Ordering per type:

* integers, REAL/LREAL, TIME: numeric order (TIME compares durations);
  REAL follows IEEE 754, so any comparison with NaN is FALSE except NE;
* bit strings (BYTE..LWORD): as unsigned numbers;
* BOOL: FALSE < TRUE;
* STRING: lexicographic by character code, a proper prefix first
  (``'AB' < 'ABC'``).

EQ and NE also compare values of one enumeration (``state = RUNNING``), as
ST's ``=`` and ``<>`` do in matiec (whose EQ and NE *functions* refuse
enumerations: a drawing with one compiles here, not in Beremiz).

GT, GE, EQ, LE and LT are extensible and chained, as IEC defines them:
``GT(IN1, IN2, IN3)`` is ``IN1 > IN2 AND IN2 > IN3`` (a monotonic sequence),
``EQ(IN1, IN2, IN3)`` is ``IN1 = IN2 AND IN2 = IN3``. NE is not extensible:
exactly ``IN1`` and ``IN2``.

The generated code is one expression with ``&`` between the pairs (never
``and``/``or`` or a chained ``a > b > c``), so it vectorises unchanged.
"""

from fbd.block import Block, Port, extensible, register
from fbd.types import ANY_ELEMENTARY, BOOL, ELEMENTARY, Generic, Kind


class _EqualityFamily(Generic):
    """ANY_ELEMENTARY and the enumerations: what EQ and NE compare."""

    def __contains__(self, t) -> bool:
        return t in ANY_ELEMENTARY or getattr(t, "kind", None) is Kind.ENUM


ANY_EQUATABLE = _EqualityFamily("ANY_ELEMENTARY or an enumeration", ELEMENTARY)


class _Chained(Block):
    """Shared shape: ``IN1..INn`` of one type, ``OUT`` TRUE when every
    neighbouring pair satisfies ``op``."""
    family = "compare"
    types = {"T": ANY_ELEMENTARY}
    inputs = [extensible("IN", "T", doc="operands, compared pairwise in order")]
    outputs = [Port("OUT", BOOL, doc="TRUE when every neighbouring pair satisfies the comparison")]
    op = ""

    def code(self, io):
        ins = io.ins("IN")
        pairs = [f"{a} {self.op} {b}" for a, b in zip(ins, ins[1:])]
        if len(pairs) == 1:
            return f"{io.OUT} = {pairs[0]}"
        return f"{io.OUT} = " + " & ".join(f"({pair})" for pair in pairs)


@register
class GT(_Chained):
    """Greater than: TRUE when IN1 > IN2 (> IN3 ...), a strictly decreasing sequence.

    Extensible: ``GT(n=3)`` is ``IN1 > IN2 AND IN2 > IN3``.
    """
    op = ">"


@register
class GE(_Chained):
    """Greater or equal: TRUE when IN1 >= IN2 (>= IN3 ...), a non-increasing sequence.

    Extensible: ``GE(n=3)`` is ``IN1 >= IN2 AND IN2 >= IN3``.
    """
    op = ">="


@register
class EQ(_Chained):
    """Equal: TRUE when all inputs are equal (IN1 = IN2 = IN3 ...); enumerations too.

    Extensible: ``EQ(n=3)`` is ``IN1 = IN2 AND IN2 = IN3``. REAL compares
    exactly (no tolerance); NaN equals nothing, not even itself.
    """
    op = "=="
    types = {"T": ANY_EQUATABLE}


@register
class LE(_Chained):
    """Less or equal: TRUE when IN1 <= IN2 (<= IN3 ...), a non-decreasing sequence.

    Extensible: ``LE(n=3)`` is ``IN1 <= IN2 AND IN2 <= IN3``.
    """
    op = "<="


@register
class LT(_Chained):
    """Less than: TRUE when IN1 < IN2 (< IN3 ...), a strictly increasing sequence.

    Extensible: ``LT(n=3)`` is ``IN1 < IN2 AND IN2 < IN3``.
    """
    op = "<"


@register
class NE(Block):
    """Not equal: TRUE when IN1 <> IN2 (exactly two inputs; IEC does not extend NE).

    REAL follows IEEE 754: NaN is unequal to everything, itself included.
    Enumerations compare too.
    """
    family = "compare"
    types = {"T": ANY_EQUATABLE}
    inputs = [Port("IN1", "T"), Port("IN2", "T")]
    outputs = [Port("OUT", BOOL, doc="TRUE when IN1 and IN2 differ")]

    def code(self, io):
        return f"{io.OUT} = {io.IN1} != {io.IN2}"
