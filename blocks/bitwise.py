"""Bit shifts and rotations: SHL, SHR, ROL, ROR on BOOL and BYTE/WORD/DWORD/LWORD.

``IN`` and ``OUT`` share the bit-string type ``T``; the count ``N`` is any
integer type, a type variable of its own (``TN``):
``SHL(WORD, types={"TN": INT})``, or inferred from the wire or literal.

Every result is exact at the width of ``T`` (8, 16, 32 or 64 bits): bits
shifted or rotated past the top of a BYTE are gone or wrap around within
those 8 bits, never into a ninth.

Counts outside ``0..width-1`` are defined, never an error:

* SHL/SHR: ``N >= width`` gives 0 (every bit shifted out, zeros shifted in),
  as CODESYS's static analysis describes it ("a constant 0 is generated") and
  as matiec's C code yields for BYTE and WORD (where it is defined at all; a
  C shift by the register width or more is undefined). A negative ``N`` also
  gives 0, as if the count were read as an unsigned (huge) number, and as
  matiec's BOOL shift does (``N = 0 ? IN : FALSE``). ``N = 0`` passes IN.
* ROL/ROR: the count is taken modulo the width (``ROL(b, 9)`` on a BYTE is
  ``ROL(b, 1)``), as matiec does; the modulo is the mathematical one, so a
  negative ``N`` rotates the other way: ``ROL(x, -1) = ROR(x, 1)``.
* BOOL is a 1-bit string: SHL/SHR give IN when ``N = 0`` and FALSE
  otherwise; ROL/ROR give IN for every N (as in matiec).

The generated code is guarded conditional expressions over plain integer
operators (``<<``, ``>>``, ``&``, ``|``, ``%``); Python's conditional
expression never evaluates a shift by a negative or huge count.

matiec's C leaves those counts undefined (``IN << N`` with N negative or not
below the C type's width; ``ROL`` takes C's remainder, negative for a
negative N): on x86 the count is taken modulo the register's width, so
``SHL(LWORD#1, -1)`` gives bit 63 there. The PLCopen export therefore writes
a shift or rotation of a bit string whose count is not a literal it defines
as an ST function block (``FBD_SHL_LWORD_INT``) that guards the count as
above and calls matiec's function only where it is defined (``Block.st``).
"""

from fbd.block import Block, Port, register
from fbd.types import ANY_BIT, ANY_INT, BOOL


class _Shift(Block):
    family = "bitwise"
    types = {"T": ANY_BIT, "TN": ANY_INT}
    inputs = [Port("IN", "T", doc="the bit string"),
              Port("N", "TN", doc="number of bit positions")]
    outputs = [Port("OUT", "T")]
    #: the lowest count matiec's function computes as this block does (the highest is
    #: the width less one)
    lowest_defined = 0

    def st(self, types):
        if types["T"] is BOOL:
            return None         # matiec's BOOL shift is this block's
        bits = types["T"].bits
        return [], f"""\
IF N >= 0 AND N < {bits} THEN
  OUT := {self.name}(IN, N);
ELSE
  OUT := 0;
END_IF;"""

    def st_needed(self, types, literals):
        n = literals.get("N")
        return not (type(n) is int and self.lowest_defined <= n < types["T"].bits)


@register
class SHL(_Shift):
    """Shift left by N bits, filling with zeros; bits past the type's width are lost.

    N >= width or N < 0 gives 0 (see the module notes).
    """

    def code(self, io):
        if io.T is BOOL:
            return f"{io.OUT} = {io.IN} if {io.N} == 0 else False"
        shifted = io.T.wrap(f"{io.IN} << {io.N}")
        return f"{io.OUT} = {shifted} if ({io.N} >= 0) & ({io.N} < {io.T.bits}) else 0"


@register
class SHR(_Shift):
    """Shift right by N bits, filling with zeros from the top (a logical shift).

    N >= width or N < 0 gives 0 (see the module notes).
    """

    def code(self, io):
        if io.T is BOOL:
            return f"{io.OUT} = {io.IN} if {io.N} == 0 else False"
        return (f"{io.OUT} = {io.IN} >> {io.N} "
                f"if ({io.N} >= 0) & ({io.N} < {io.T.bits}) else 0")


class _Rotate(_Shift):
    left = True
    lowest_defined = 1        # matiec's rotation by 0 shifts by the full width

    def st(self, types):
        if types["T"] is BOOL:
            return None
        bits = types["T"].bits
        # MOD keeps the dividend's sign, as C's %: a negative count rotates the other way
        return [("R", types["TN"])], f"""\
R := N MOD {bits};
IF R < 0 THEN
  R := R + {bits};
END_IF;
IF R = 0 THEN
  OUT := IN;
ELSE
  OUT := {self.name}(IN, R);
END_IF;"""

    def code(self, io):
        if io.T is BOOL:
            return f"{io.OUT} = {io.IN}"
        bits = io.T.bits
        r = io.tmp()
        up, down = (r, f"({bits} - {r})") if self.left else (f"({bits} - {r})", r)
        rotated = io.T.wrap(f"({io.IN} << {up}) | ({io.IN} >> {down})")
        return [f"{r} = {io.N} % {bits}",
                f"{io.OUT} = {rotated}"]


@register
class ROL(_Rotate):
    """Rotate left by N bits within the type's width: bits leaving the top re-enter at the bottom.

    N is taken modulo the width; negative N rotates right (see the module notes).
    """
    left = True


@register
class ROR(_Rotate):
    """Rotate right by N bits within the type's width: bits leaving the bottom re-enter at the top.

    N is taken modulo the width; negative N rotates left (see the module notes).
    """
    left = False
