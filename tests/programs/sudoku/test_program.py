"""The Sudoku program's macros alone, and its shape (names, block count)."""

import re

from fbd import compile_network
from fbd.testing import Harness
from programs.sudoku import build
from programs.sudoku.control import EVENTS, control_macro
from programs.sudoku.groups import groups, peers

PULSES = [e.capitalize() for e in EVENTS]


def pulses(h):
    return [p for p in PULSES if h.get(p)]


def test_control_takes_an_event_when_seq_changes_and_locks_one_scan():
    h = Harness(control_macro())
    h.set(Cmd=EVENTS["tap"], Seq=1).scan()
    assert pulses(h) == ["Tap"] and h.get("Issue") and h.get("Taken") == 1
    h.set(Cmd=EVENTS["undo"], Seq=2).scan()          # locked: pending, not lost
    assert pulses(h) == [] and not h.get("Issue") and h.get("Taken") == 1
    h.scan()
    assert pulses(h) == ["Undo"] and h.get("Taken") == 2
    h.scan(3)                                          # Seq unchanged: nothing more
    assert pulses(h) == [] and h.get("Taken") == 2
    h.set(Cmd=99, Seq=3).scan()                        # an unknown selector: taken, no pulse
    assert pulses(h) == [] and h.get("Taken") == 3


def test_group_map_classic_and_jigsaw():
    gs = groups()
    assert len(gs) == 27 and all(len(g) == 9 for g in gs)
    assert gs[18] == [(r, c) for r in range(3) for c in range(3)]
    assert all(len(m) == 20 for m in peers().values())
    rows_as_regions = [[r] * 9 for r in range(9)]
    assert groups(rows_as_regions)[18] == gs[0]        # allowed: 9 cells each


def test_names_and_block_count():
    net = build()
    program = compile_network(net)
    assert len(program.leaves) < 1000
    macros = {inst.element.name for inst in net.instances.values() if inst.is_macro}
    assert macros == {"Command", "Machine", "Move", "Cell", "Peers", "Groups"}
    assert all(re.fullmatch(r"[A-Z][A-Za-z]*", m) for m in macros)

    def instance_names(n):
        for name, inst in n.instances.items():
            yield name
            if inst.is_macro:
                yield from instance_names(inst.element)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in instance_names(net))
