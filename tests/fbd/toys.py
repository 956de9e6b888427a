"""Small unregistered block types, so core tests do not depend on the library."""

from fbd import ANY_INT, BOOL, INT, TIME, Block, Port, State


class INC(Block):
    """OUT = IN + 1, wrapping."""
    types = {"T": ANY_INT}
    inputs = [Port("IN", "T")]
    outputs = [Port("OUT", "T")]

    def code(self, io):
        return f"{io.OUT} = {io.T.wrap(io.IN + ' + 1')}"


class PLUS(Block):
    """OUT = A + B on INT."""
    inputs = [Port("A", INT), Port("B", INT)]
    outputs = [Port("OUT", INT)]

    def code(self, io):
        return f"{io.OUT} = {INT.wrap(f'{io.A} + {io.B}')}"


class TICKS(Block):
    """Counts scans while EN; a stateful block with a state variable and a multi-line body."""
    stateful = True
    inputs = [Port("EN", BOOL, default=True)]
    outputs = [Port("N", INT)]
    state = [State("seen", INT)]

    def code(self, io):
        return [f"if {io.EN}:",
                f"    {io.seen} = {INT.wrap(io.seen + ' + 1')}",
                f"{io.N} = {io.seen}"]


class CLOCK(Block):
    """The PLC clock as TIME."""
    outputs = [Port("T", TIME)]

    def code(self, io):
        return f"{io.T} = {io.now}"
