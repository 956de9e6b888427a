"""Boolean and bitwise logic: AND, OR, XOR, NOT on BOOL and on bit strings."""

from fbd.block import Block, Port, extensible, register
from fbd.types import ANY_BIT, BOOL


class _Bitwise(Block):
    family = "logic"
    types = {"T": ANY_BIT}
    inputs = [extensible("IN", "T")]
    outputs = [Port("OUT", "T")]
    op = ""
    bool_op = ""  # the keyword that does the same on BOOLs, where there is one

    def code(self, io):
        # On BOOLs (always real bools in the table) "and"/"or" are jumps, about
        # 3 ns a block faster than the & | calls CPython does not specialise;
        # & | ^ give int on bit strings.
        op = self.bool_op if io.T is BOOL and self.bool_op else self.op
        return f"{io.OUT} = {f' {op} '.join(io.ins('IN'))}"


@register
class AND(_Bitwise):
    """Logical AND of BOOLs, bitwise AND of BYTE/WORD/DWORD/LWORD (extensible)."""
    op = "&"
    bool_op = "and"


@register
class OR(_Bitwise):
    """Logical OR of BOOLs, bitwise OR of bit strings (extensible)."""
    op = "|"
    bool_op = "or"


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
