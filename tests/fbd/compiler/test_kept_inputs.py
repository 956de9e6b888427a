"""Inputs held in a block's slot: an input a block type keeps (``Block.kept_inputs``,
IEC's function block inputs as instance data) and a network input kept in a block
(``Network.store``, a POU writing its own input: a program's located one, a
function block's). Every engine runs them alike; a mistake is one clear error."""

import pytest

import blocks
from fbd import INT, REAL, Network, WiringError
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


def writes_its_input() -> Network:
    """Reads N, then writes N + 10 into it through a generic MOVE kept as N."""
    net = Network("writer")
    n = net.input("N", INT, 1, at="%IW0")
    net.output("BEFORE", net.add("before", blocks.MOVE(INT), IN=n).OUT)
    add = net.add("add", blocks.ADD(INT), IN1=n, IN2=10)
    keep = net.add("keep", blocks.MOVE(), IN=add.OUT)
    net.store("N", keep, "OUT")
    return net


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_stored_input_holds_what_its_block_wrote_until_a_value_is_latched(engine):
    h = Harness(writes_its_input(), engine=engine)
    seen = []
    for sets in ({}, {}, {"N": 3}, {}):
        h.set(sets).scan()
        seen.append((h.get("BEFORE"), h.get("N")))
    assert seen == [(1, 11), (11, 21), (3, 13), (13, 23)]


def test_a_wrong_store_is_refused_when_it_is_made():
    net = writes_its_input()
    net.input("N2", INT)
    real = net.add("real", blocks.MOVE(REAL))
    elsewhere = Network("other").add("other", blocks.MOVE(INT))
    for args, message in [
        (("M", net["keep"], "OUT"), "writer.M: not an input of writer"),
        (("N", elsewhere, "OUT"), "is not a block placed in writer"),
        (("N", net["keep"], "Q"), "keep has no output or state 'Q'"),
        (("N", real, "OUT"), "writer.N is INT, but real.OUT is REAL"),
        (("N2", net["keep"], "OUT"), "keep.OUT keeps another input already"),
    ]:
        with pytest.raises(WiringError, match=message):
            net.store(*args)


def test_a_macro_keeps_an_open_stored_input_and_reads_a_wired_one_from_its_wire():
    top = Network("top")
    top.add("open", writes_its_input())
    top.add("wired", writes_its_input(), N=top.input("A", INT, 5))
    h = Harness(top)
    seen = [(h.scan().get("open.N"), h.get("open.BEFORE"), h.get("wired.BEFORE")) for _ in range(3)]
    assert seen == [(11, 1, 5), (21, 11, 5), (31, 21, 5)]
