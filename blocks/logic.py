"""Boolean and bitwise logic: AND, OR, XOR, NOT on BOOL and on bit strings."""

from fbd.block import Block, Port, extensible, register
from fbd.types import ANY_BIT, BOOL


class _Bitwise(Block):
    family = "logic"
    types = {"T": ANY_BIT}
    inputs = [extensible("IN", "T")]
    outputs = [Port("OUT", "T")]
    op = ""

    def code(self, io):
        # & | ^ give bool on bools and int on ints: one expression for both,
        # and it vectorises unchanged on numpy arrays.
        return f"{io.OUT} = {f' {self.op} '.join(io.ins('IN'))}"


@register
class AND(_Bitwise):
    """Logical AND of BOOLs, bitwise AND of BYTE/WORD/DWORD/LWORD (extensible)."""
    op = "&"


@register
class OR(_Bitwise):
    """Logical OR of BOOLs, bitwise OR of bit strings (extensible)."""
    op = "|"


@register
class XOR(_Bitwise):
    """Exclusive OR (extensible: TRUE when an odd number of inputs are TRUE)."""
    op = "^"


@register
class NOT(Block):
    """Logical negation of a BOOL, bitwise complement of a bit string."""
    family = "logic"
    types = {"T": ANY_BIT}
    inputs = [Port("IN", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        if io.T is BOOL:
            return f"{io.OUT} = not {io.IN}"
        return f"{io.OUT} = {io.IN} ^ {(1 << io.T.bits) - 1}"
