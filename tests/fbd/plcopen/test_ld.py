"""Ladder Diagram bodies: rails, contacts, coils and blocks on rungs, run as Beremiz
generates them (each rung's coil is one assignment of what powers it; contacts
read their variable when the coil's statement runs).

Every expected scan here was checked against matiec running the ST that
Beremiz's own PLCGenerator makes of the same file."""

from __future__ import annotations

import pytest

from fbd.plcopen import PlcOpenError, load_project
from fbd.testing import Harness
from tests.fbd.plcopen import files as f

IO = (f.group("inputVars", f.var("A", "BOOL"), f.var("B", "BOOL"), f.var("C", "BOOL"))
      + f.group("outputVars", f.var("Q", "BOOL"), f.var("R", "BOOL"), f.var("S", "BOOL")))


def ld(tmp_path, body, iface=IO, name="Main"):
    return f.net(tmp_path, f.pou(name, iface, body, lang="LD"), name=name)


def test_series_contacts_are_and_and_parallel_branches_are_or(tmp_path):
    """Q := A AND NOT B; R := (A OR B) AND C."""
    body = (f.rail(1) + f.contact(2, "A", 1) + f.contact(3, "B", 2, negated=True)
            + f.coil(4, "Q", 3)
            + f.contact(5, "A", 1, y=40) + f.contact(6, "B", 1, y=80)
            + f.contact(7, "C", [5, 6], x=200, y=40) + f.coil(8, "R", 7, y=40)
            + f.rail(9, x=500, right=True, refs=(4, 8)))
    h = Harness(ld(tmp_path, body))
    for a in (False, True):
        for b in (False, True):
            for c in (False, True):
                h.set(A=a, B=b, C=c).scan()
                h.expect(Q=a and not b, R=(a or b) and c)


def test_negated_set_reset_coils(tmp_path):
    """S coil sets R when A, R coil resets it when B (listed later: reset wins);
    a negated coil writes NOT of its power."""
    body = (f.rail(1) + f.contact(2, "A", 1) + f.coil(3, "R", 2, storage="set")
            + f.contact(4, "B", 1, y=40) + f.coil(5, "R", 4, y=40, storage="reset")
            + f.contact(6, "C", 1, y=80) + f.coil(7, "Q", 6, y=80, negated=True))
    h = Harness(ld(tmp_path, body))
    h.run([({"A": True}, {"R": True, "Q": True}),
           ({"A": False}, {"R": True}),
           ({"B": True}, {"R": False}),
           ({"A": True}, {"R": False}),           # both: the reset coil runs last
           ({"B": False, "C": True}, {"R": True, "Q": False})])


def test_edge_contacts_and_edge_coils_fire_for_one_scan(tmp_path):
    """A rising contact, a falling contact, and a coil with a rising edge; each edge
    is its own R_TRIG/F_TRIG, which fires on the first scan for a falling edge when
    the variable starts FALSE (matiec's F_TRIG)."""
    body = (f.rail(1) + f.contact(2, "A", 1, edge="rising") + f.coil(3, "Q", 2)
            + f.contact(4, "A", 1, y=40, edge="falling") + f.coil(5, "R", 4, y=40)
            + f.contact(6, "B", 1, y=80) + f.coil(7, "S", 6, y=80, edge="rising"))
    h = Harness(ld(tmp_path, body))
    h.run([({}, {"Q": False, "R": True, "S": False}),
           ({"A": True, "B": True}, {"Q": True, "R": False, "S": True}),
           ({}, {"Q": False, "R": False, "S": False}),
           ({"A": False}, {"Q": False, "R": True}),
           ({}, {"R": False})])


def test_power_flows_through_a_coil_to_the_next(tmp_path):
    """A coil passes on what powers it: Q := A; R := A AND B (the contact after Q's
    coil); a negated coil passes on its power, not its negation."""
    body = (f.rail(1) + f.contact(2, "A", 1) + f.coil(3, "S", 2, negated=True)
            + f.coil(4, "Q", 3, x=350) + f.contact(5, "B", 4, x=400)
            + f.coil(6, "R", 5, x=450) + f.rail(7, x=500, right=True, refs=(6,)))
    h = Harness(ld(tmp_path, body))
    h.run([({"A": True, "B": False}, {"S": False, "Q": True, "R": False}),
           ({"B": True}, {"Q": True, "R": True}),
           ({"A": False}, {"S": True, "Q": False, "R": False})])


def test_a_contact_on_a_coil_written_earlier_in_the_scan_sees_this_scan(tmp_path):
    """Rungs run in the order the file lists them: the second rung's contact on M
    reads what the first rung wrote in this scan; the third (listed before the
    first in the file would be the only way to see the previous scan)."""
    iface = IO + f.group("localVars", f.var("M", "BOOL"))
    body = (f.rail(1) + f.contact(2, "M", 1, y=80) + f.coil(3, "R", 2, y=80)   # before M :=
            + f.contact(4, "A", 1) + f.coil(5, "M", 4)
            + f.contact(6, "M", 1, y=40) + f.coil(7, "Q", 6, y=40))           # after M :=
    h = Harness(ld(tmp_path, body, iface))
    h.set(A=True).scan()
    h.expect(M=True, Q=True, R=False)
    h.scan()
    h.expect(R=True)


def test_a_timer_and_a_move_on_rungs_with_en_and_eno(tmp_path):
    """TON powered by A drives Q from its Q pin; MOVE with EN from B copies N into M
    only while B (its ENO powers coil R). With a 20 ms cycle and PT = T#40ms the
    timer's Q rises on the third scan of A."""
    iface = (f.group("inputVars", f.var("A", "BOOL"), f.var("B", "BOOL"), f.var("N", "INT"))
             + f.group("outputVars", f.var("Q", "BOOL"), f.var("R", "BOOL"),
                       f.var("M", "INT"))
             + f.group("localVars", f.var("t0", "@TON")))
    body = (f.rail(1) + f.contact(2, "A", 1)
            + f.inv(3, "T#40ms", y=20)
            + f.block(4, "TON", {"IN": (2, None), "PT": (3, None)}, ["Q", "ET"], inst="t0",
                      x=150)
            + f.coil(5, "Q", [(4, "Q")], x=300)
            + f.contact(6, "B", 1, y=100) + f.inv(7, "N", y=120)
            + f.block(8, "MOVE", {"EN": (6, None), "IN": (7, None)}, ["ENO", "OUT"], y=100,
                      x=150)
            + f.coil(9, "R", [(8, "ENO")], y=100, x=300) + f.outv(10, "M", 8, pin="OUT", y=130))
    h = Harness(ld(tmp_path, body, iface), cycle=0.02)
    h.run([({"A": True, "B": True, "N": 5}, {"Q": False, "R": True, "M": 5}),
           ({"B": False, "N": 7}, {"Q": False, "R": False, "M": 5}),   # M kept: IF ENO
           ({}, {"Q": True, "M": 5}),
           ({"A": False, "B": True}, {"Q": False, "R": True, "M": 7})])


def test_an_ld_pou_is_a_macro_like_any_other(tmp_path):
    """CounterLD-like: an LD function block placed in an FBD program."""
    fb = f.pou("Latch", f.group("inputVars", f.var("SET", "BOOL"), f.var("CLR", "BOOL"))
               + f.group("outputVars", f.var("Q", "BOOL")),
               f.rail(1) + f.contact(2, "SET", 1) + f.coil(3, "Q", 2, storage="set")
               + f.contact(4, "CLR", 1, y=40) + f.coil(5, "Q", 4, y=40, storage="reset"),
               kind="functionBlock", lang="LD")
    prog = f.pou("Main", f.group("inputVars", f.var("A", "BOOL"), f.var("B", "BOOL"))
                 + f.group("outputVars", f.var("O", "BOOL"))
                 + f.group("localVars", f.var("l", "@Latch")),
                 f.inv(1, "A") + f.inv(2, "B")
                 + f.block(3, "Latch", {"SET": (1, None), "CLR": (2, None)}, ["Q"], inst="l")
                 + f.outv(4, "O", 3, pin="Q"))
    project = load_project(f.write(tmp_path, fb, prog))
    assert project.languages == {"Latch": "LD", "Main": "FBD"}
    h = Harness(project.network("Main"))
    h.run([({"A": True}, {"O": True}), ({"A": False}, {"O": True}), ({"B": True}, {"O": False})])


@pytest.mark.parametrize("body, message", [
    (f.contact(2, "A", 99) + f.coil(3, "Q", 2), "element localId 2: connection to unknown localId 99"),
    (f.rail(1) + f.coil(3, "Z", 1), "coil writes 'Z', which is not a declared variable"),
    (f.rail(1) + f.contact(2, "Z", 1) + f.coil(3, "Q", 2), "'Z' is not a declared variable"),
    ('<contact localId="2"><position x="0" y="0"/><connectionPointIn/><variable>A</variable>'
     '</contact>' + f.coil(3, "Q", 2), "contact 'A' is not connected on its left"),
])
def test_ld_errors_name_the_pou_and_the_element(tmp_path, body, message):
    path = f.write(tmp_path, f.pou("Main", IO, body, lang="LD"))
    with pytest.raises(PlcOpenError, match=f"^{path}: POU 'Main'") as e:
        load_project(path).network("Main")
    assert message in str(e.value)


def test_two_coils_joined_into_one_power_it_as_a_wired_or(tmp_path):
    """IEC: wires joined on the left of an element are OR-ed, a coil passing its power
    on included: S := A OR B. (Beremiz's generator ANDs the joined paths when they
    come out of coils, ``S := A AND B``, as it does in idaholab/SPEMMCRA's
    ``LED := TRUE AND TRUE``; we follow the standard there, see docs/plcopen.md.)"""
    body = (f.rail(1) + f.contact(2, "A", 1) + f.coil(3, "Q", 2)
            + f.contact(4, "B", 1, y=40) + f.coil(5, "R", 4, y=40)
            + f.coil(6, "S", [3, 5], x=400))
    h = Harness(ld(tmp_path, body))
    h.run([({"A": True}, {"S": True}), ({"A": False, "B": True}, {"S": True}),
           ({"B": False}, {"S": False})])


def test_the_debugger_lays_out_an_ld_pou_like_any_network():
    """OpenPLC's Blink (LD): its network is drawn by the debugger's layout, boxes apart
    and wires around them; an EN wired to the rail adds no plumbing."""
    from fbd.compiler import compile_network
    from fbd.debug.layout import crossings, layout_level, overlaps
    net = load_project(f.example("openplc_blink")).network("Blink")
    assert {i.element.name for i in net.instances.values()} >= {"TON", "TOF", "NOT"}
    assert not any(name.startswith("_en_") for name in net.instances)
    prog = compile_network(net)
    level = layout_level(net, "", [prog.leaves[i].path for i in prog.order], prog.signals)
    assert overlaps(level) == [] and crossings(level) == []
