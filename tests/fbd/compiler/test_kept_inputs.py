"""An input a block type keeps (``Block.kept_inputs``, IEC's function block inputs
as instance data): left unwired it reads the instance's value, on every engine."""

import pytest

from fbd import INT, Network
from fbd.block import Block, Port, State
from fbd.compiler.interp import Interpreter
from fbd.testing import Harness


class BUMP(Block):
    """OUT := X + 1, and X keeps OUT: an FB adding one to its own input at every call."""
    stateful = True
    inputs = [Port("X", INT, default=0)]
    outputs = [Port("OUT", INT)]
    state = [State("X__KEPT", INT)]
    kept_inputs = {"X": "X__KEPT"}

    def code(self, io):
        return [f"{io.X__KEPT} = {INT.wrap(f'{io.X} + 1')}", f"{io.OUT} = {io.X__KEPT}"]


def bumps() -> Network:
    net = Network("bumps")
    five = net.input("FIVE", INT, 5)
    net.output("OPEN", net.add("open", BUMP()).OUT)
    net.output("WIRED", net.add("wired", BUMP(), X=five).OUT)
    return net


@pytest.mark.parametrize("engine", ["python", "native"])
def test_an_open_kept_input_reads_the_instance_value_and_a_wired_one_its_wire(engine):
    h = Harness(bumps(), engine=engine)
    seen = [(h.scan().get("OPEN"), h.get("WIRED")) for _ in range(3)]
    assert seen == [(1, 6), (2, 6), (3, 6)]


def test_the_interpreter_agrees():
    h = Harness(bumps())
    it = Interpreter(h.plc.program)
    for _ in range(3):
        h.scan()
        it.scan()
        assert (it.get("OPEN"), it.get("WIRED")) == (h.get("OPEN"), h.get("WIRED"))
