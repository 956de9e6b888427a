"""CommandFacade: the handshake read from the PLC, so other writers can take turns with it."""

import pytest

from blocks import CTU, MEMORY
from fbd import INT, FbdError, Network, Plc
from programs.common.command import command_macro
from programs.common.facade import SEQ_WRAP, CommandFacade, CommandPending, next_seq

COMMANDS = {"a": 1, "b": 2}


def toy() -> Network:
    """The Command selector, a counter per command and the last command's data."""
    net = Network("Toy")
    sel = net.add("control", command_macro(COMMANDS), Cmd=net.input("CMD", INT),
                  Seq=net.input("CMD_SEQ", INT))
    for name in COMMANDS:
        count = net.add(f"count_{name}", CTU(), CU=sel.port(name.capitalize()), PV=32767)
        net.output(f"N_{name.upper()}", count.CV)
    data = net.add("data", MEMORY(INT), IN=net.input("DATA", INT), SET=sel.Issue)
    net.output("LAST_DATA", data.OUT)
    net.output("TAKEN", sel.Taken)
    return net


class Toy(CommandFacade):
    COMMANDS = COMMANDS

    def __init__(self):
        self.plc = Plc(toy())

    def counts(self):
        return self.plc.get("N_A"), self.plc.get("N_B")


def another_writer(plc, cmd: int, seq: int):
    """What a Modbus client (or a debugger) does: write the inputs, keep no facade."""
    plc.set("CMD", cmd)
    plc.set("CMD_SEQ", seq)


def test_submit_posts_waits_for_the_take_and_returns_the_scans():
    g = Toy()
    assert g.ready and g.seq == 0 and g.taken == 0
    assert g.submit("a", DATA=7) == 1
    assert g.taken == g.seq == 1 and g.counts() == (1, 0) and g.plc.get("LAST_DATA") == 7
    assert g.submit("b") == 2                        # the one-scan lock after "a"
    assert g.counts() == (1, 1) and g.taken == 2


def test_the_next_number_follows_the_plcs_not_a_copy():
    g = Toy()
    g.submit("a")                                    # CMD_SEQ 1
    another_writer(g.plc, 2, 500)                    # a client numbers its command its own way
    g.plc.scan(2)                                    # (the lock after "a", then taken)
    assert g.taken == 500 and g.counts() == (1, 1)
    assert g.post("a") == 501                        # a copy would say 2
    g.plc.scan(2)
    assert g.taken == 501 and g.counts() == (2, 1)


def test_post_refuses_to_overwrite_a_command_not_taken_yet():
    g = Toy()
    another_writer(g.plc, 2, 40)                     # written, not latched: visible all the same
    assert g.pending and not g.ready and g.seq == 40
    with pytest.raises(CommandPending, match="not taken"):
        g.post("a")
    g.plc.scan()
    assert g.ready and g.counts() == (0, 1)


def test_submit_lets_a_pending_command_go_first_then_sends_its_own():
    g = Toy()
    another_writer(g.plc, 2, 9)
    g.submit("a")                                    # b (the client's) first, then a
    assert g.counts() == (1, 1) and g.taken == 10


def test_a_command_overwritten_in_the_same_scan_is_reported_not_claimed(monkeypatch):
    g = Toy()
    scan = g.plc.scan

    def a_rival_writes_first(n=1):                   # the same CMD_SEQ, another command
        another_writer(g.plc, 2, g.seq)
        monkeypatch.setattr(g.plc, "scan", scan)
        scan(n)
    monkeypatch.setattr(g.plc, "scan", a_rival_writes_first)
    with pytest.raises(FbdError, match="'a' was overwritten.*CMD 2"):
        g.submit("a")
    assert g.counts() == (0, 1)


def test_a_forced_seq_fails_loudly_and_the_command_is_withdrawn():
    g = Toy()
    g.submit("a")
    g.plc.force("CMD_SEQ", 1)
    with pytest.raises(FbdError, match="did not take.*withdrawn"):
        g.submit("b")
    g.plc.unforce("CMD_SEQ")
    g.plc.scan(3)
    assert g.counts() == (1, 0) and g.ready           # "b" never ran behind the caller's back


def test_seq_wraps_and_always_differs():
    assert next_seq(SEQ_WRAP) == 1 and next_seq(0) == 1 and next_seq(41) == 42
    assert next_seq(-5) > 0 and next_seq(-32768) > 0
    g = Toy()
    another_writer(g.plc, 1, SEQ_WRAP)
    g.plc.scan(2)
    assert g.post("b") == 1


def test_unknown_commands_are_refused_before_anything_is_written():
    g = Toy()
    with pytest.raises(ValueError, match="unknown command 'c'"):
        g.post("c")
    assert g.ready and g.seq == 0
