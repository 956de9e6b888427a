"""Unregistered stand-ins for library blocks, so tests of the synthetic generator,
the interpreter and the benchmark do not depend on the block library being
finished. Named like the library's blocks; pass ``LIBRARY`` as ``library=``."""

from fbd import ANY, ANY_INT, BOOL, INT, TIME, Block, Port, State, extensible


class AND(Block):
    """OUT = IN1 AND ... (BOOL, extensible)."""
    inputs = [extensible("IN", BOOL)]
    outputs = [Port("OUT", BOOL)]

    def code(self, io):
        return f"{io.OUT} = {' & '.join(io.ins('IN'))}"


class OR(AND):
    """OUT = IN1 OR ... (BOOL, extensible)."""

    def code(self, io):
        return f"{io.OUT} = {' | '.join(io.ins('IN'))}"


class XOR(AND):
    """OUT = IN1 XOR ... (BOOL, extensible)."""

    def code(self, io):
        return f"{io.OUT} = {' ^ '.join(io.ins('IN'))}"


class NOT(Block):
    """OUT = NOT IN."""
    inputs = [Port("IN", BOOL)]
    outputs = [Port("OUT", BOOL)]

    def code(self, io):
        return f"{io.OUT} = not {io.IN}"


class ADD(Block):
    """OUT = IN1 + IN2, wrapping."""
    types = {"T": ANY_INT}
    inputs = [Port("IN1", "T"), Port("IN2", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        return f"{io.OUT} = {io.T.wrap(f'{io.IN1} + {io.IN2}')}"


class SUB(ADD):
    """OUT = IN1 - IN2, wrapping."""

    def code(self, io):
        return f"{io.OUT} = {io.T.wrap(f'{io.IN1} - {io.IN2}')}"


class GT(Block):
    """OUT = IN1 > IN2."""
    types = {"T": ANY_INT}
    inputs = [Port("IN1", "T"), Port("IN2", "T")]
    outputs = [Port("OUT", BOOL)]

    def code(self, io):
        return f"{io.OUT} = {io.IN1} > {io.IN2}"


class EQ(GT):
    """OUT = IN1 = IN2."""

    def code(self, io):
        return f"{io.OUT} = {io.IN1} == {io.IN2}"


class SEL(Block):
    """OUT = IN1 if G else IN0."""
    types = {"T": ANY}
    inputs = [Port("G", BOOL), Port("IN0", "T"), Port("IN1", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        return f"{io.OUT} = {io.IN1} if {io.G} else {io.IN0}"


class MOVE(Block):
    """OUT = IN."""
    types = {"T": ANY}
    inputs = [Port("IN", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        return f"{io.OUT} = {io.IN}"


class SR(Block):
    """Set-dominant flip-flop."""
    stateful = True
    inputs = [Port("S1", BOOL, default=False), Port("R", BOOL, default=False)]
    outputs = [Port("Q1", BOOL)]

    def code(self, io):
        return f"{io.Q1} = {io.S1} or (not {io.R} and {io.Q1})"


class MEMORY(Block):
    """Keeps IN while SET; RST clears."""
    stateful = True
    types = {"T": ANY}
    inputs = [Port("IN", "T"), Port("SET", BOOL, default=False), Port("RST", BOOL, default=False)]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        return [f"if {io.RST}:", f"    {io.OUT} = {io.T.default!r}",
                f"elif {io.SET}:", f"    {io.OUT} = {io.IN}"]


class EDGE(Block):
    """Rising edge of CLK, counted: a state variable, a temporary, a multi-line body."""
    stateful = True
    inputs = [Port("CLK", BOOL)]
    outputs = [Port("Q", BOOL), Port("N", INT)]
    state = [State("M", BOOL)]

    def code(self, io):
        rise = io.tmp()
        return [f"{rise} = {io.CLK} and not {io.M}",
                f"{io.M} = {io.CLK}",
                f"{io.Q} = {rise}",
                f"if {rise}:",
                f"    {io.N} = {INT.wrap(io.N + ' + 1')}"]


class DELAY(Block):
    """A block with a TIME input the generator cannot wire: it must be left out."""
    inputs = [Port("IN", BOOL), Port("PT", TIME)]
    outputs = [Port("Q", BOOL)]

    def code(self, io):
        return f"{io.Q} = {io.IN}"


LIBRARY = {cls.__name__: cls for cls in (AND, OR, XOR, NOT, ADD, SUB, GT, EQ, SEL, MOVE, SR,
                                        MEMORY, EDGE, DELAY)}


class CLOCK(Block):
    """The PLC clock as TIME."""
    outputs = [Port("T", TIME)]

    def code(self, io):
        return f"{io.T} = {io.now}"
