"""Networks for the ``fbd`` command's tests: ``fbd run tests.fbd.cli_programs:latch``.

Built from small unregistered blocks so the CLI tests do not depend on the
block library."""

from fbd import BOOL, INT, LREAL, STRING, TIME, WORD, Block, Network, Port


class AND2(Block):
    """OUT = A AND B."""
    inputs = [Port("A", BOOL), Port("B", BOOL)]
    outputs = [Port("OUT", BOOL)]

    def code(self, io):
        return f"{io.OUT} = {io.A} and {io.B}"


class OR2(AND2):
    """OUT = A OR B."""

    def code(self, io):
        return f"{io.OUT} = {io.A} or {io.B}"


class INV(Block):
    """OUT = NOT IN."""
    inputs = [Port("IN", BOOL)]
    outputs = [Port("OUT", BOOL)]

    def code(self, io):
        return f"{io.OUT} = not {io.IN}"


class INC(Block):
    """OUT = IN + 1 on INT, wrapping."""
    inputs = [Port("IN", INT)]
    outputs = [Port("OUT", INT)]

    def code(self, io):
        return f"{io.OUT} = {INT.wrap(io.IN + ' + 1')}"


def latch() -> Network:
    """Q := (S OR Q) AND NOT R: set by S, reset by R (reset wins)."""
    net = Network("latch", doc="A set/reset latch built from AND, OR and NOT.")
    s = net.input("S", BOOL)
    r = net.input("R", BOOL)
    set_or = net.add("set_or", OR2(), A=s)
    inv = net.add("inv", INV(), IN=r)
    hold = net.add("hold", AND2(), A=set_or.OUT, B=inv.OUT)
    net.connect(hold.OUT, set_or.B, feedback=True)
    net.output("Q", hold.OUT)
    return net


LATCH = latch()
NUMBER = 7


def counter() -> Network:
    """N counts scans from 1."""
    net = Network("counter")
    inc = net.add("inc", INC())
    net.connect(inc.OUT, inc.IN, feedback=True)
    net.output("N", inc.OUT)
    return net


def passthrough() -> Network:
    """Each input straight to an output, one of each kind of type."""
    net = Network("passthrough")
    for name, tp in (("B", BOOL), ("N", INT), ("W", WORD), ("T", TIME), ("X", LREAL),
                     ("S", STRING)):
        net.output(f"O{name}", net.input(name, tp))
    return net


def not_a_network():
    return 42


def invalid() -> Network:
    """Two blocks with unconnected inputs: a ValidationError with two problems."""
    net = Network("invalid")
    a = net.add("a", AND2())
    net.add("b", INV(), IN=a.OUT)
    net.output("Q", a.OUT)
    return net


def miswired() -> Network:
    """Raises WiringError while building: AND2 has no port C."""
    net = Network("miswired")
    net.add("a", AND2(), C=True)
    return net


def buggy() -> Network:
    return 1 / 0


def two_latches() -> Network:
    """Two instances of the latch macro in a chain."""
    net = Network("two")
    a = net.add("a", latch(), S=net.input("S", BOOL), R=False)
    b = net.add("b", latch(), S=a.Q, R=False)
    net.output("Q", b.Q)
    return net


def many_problems() -> Network:
    """Ten blocks with an unconnected input each: a long ValidationError."""
    net = Network("many")
    for i in range(10):
        net.add(f"inv{i}", INV())
    return net
