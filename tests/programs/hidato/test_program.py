"""The Hidato program's rule checks (the *Rules* macro) against a Python
reference on random filled and partly filled boards, its other macros, and its
shape (names, block count, scan time at 10x10)."""

import re
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fbd import Plc, compile_network
from fbd.testing import Harness
from programs.hidato import build, bundled, solve
from programs.hidato.control import EVENTS, control_macro
from programs.hidato.program import shape_of
from programs.hidato.rules import NEIGHBOURS, board_cells, rules_macro


def reference(cells, values, first, last):
    """(conflicts, solved) of ``values`` ({cell: 0 or a number}) by the rules, in Python."""
    def next_to(rc, n):
        return any(values.get((rc[0] + dr, rc[1] + dc)) == n for dr, dc in NEIGHBOURS)
    placed = [v for v in values.values() if v]
    conflicts = {}
    for rc in cells:
        v = values[rc]
        conflicts[rc] = bool(v) and (placed.count(v) > 1
                                     or (v + 1 in placed and not next_to(rc, v + 1))
                                     or (v - 1 in placed and not next_to(rc, v - 1)))
    solved = (sorted(placed) == list(range(first, last + 1))
              and all(next_to(rc, values[rc] + 1) for rc in cells if values[rc] != last))
    return conflicts, solved


@lru_cache(maxsize=None)
def harness(rows, cols, holes, first):
    n = rows * cols - len(holes)
    return Harness(rules_macro(rows, cols, holes, first, first + n - 1))


def check(rows, cols, holes, first, values):
    cells = board_cells(rows, cols, holes)
    last = first + len(cells) - 1
    h = harness(rows, cols, tuple(holes), first)
    h.set({f"V_{r}_{c}": values[r, c] for r, c in cells}).scan()
    conflicts, solved = reference(cells, values, first, last)
    assert {rc: h.get(f"C_{rc[0]}_{rc[1]}") for rc in cells} == conflicts
    assert h.get("Solved") == solved


@st.composite
def boards(draw, max_side=4):
    """A shape and values: empty (0) or numbers first..last, duplicates allowed;
    sometimes a permutation, sometimes a snake path (a solution) with a few
    cells cleared or changed."""
    rows, cols = draw(st.integers(1, max_side)), draw(st.integers(2, max_side))
    spots = [(r, c) for r in range(rows) for c in range(cols)]
    holes = sorted(draw(st.sets(st.sampled_from(spots), max_size=len(spots) - 2)))
    cells = board_cells(rows, cols, holes)
    first = draw(st.sampled_from([1, 1, 5, 40]))
    last = first + len(cells) - 1
    kind = draw(st.sampled_from(["random", "permutation", "snake"]))
    if kind == "random":
        vals = draw(st.lists(st.one_of(st.just(0), st.integers(first, last)),
                             min_size=len(cells), max_size=len(cells)))
    elif kind == "permutation":
        vals = draw(st.permutations(range(first, last + 1)))
    else:   # boustrophedon order of the full rectangle, holes skipped: often a path
        order = [(r, c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]
        order = [rc for rc in order if rc not in holes]
        number = {rc: first + k for k, rc in enumerate(order)}
        vals = [number[rc] for rc in cells]
        for _ in range(draw(st.integers(0, 2))):
            k = draw(st.integers(0, len(cells) - 1))
            vals[k] = draw(st.one_of(st.just(0), st.integers(first, last)))
    return rows, cols, holes, first, dict(zip(cells, vals))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_rules_match_the_python_reference(board):
    check(*board)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_rules_at_10x10_against_the_reference(data):
    cells = board_cells(10, 10)
    solution = solve(bundled()["10x10-medium-s11"])
    values = {rc: solution[rc] for rc in cells}
    kind = data.draw(st.sampled_from(["solution", "changed", "partial", "random"]))
    if kind == "changed":
        for _ in range(data.draw(st.integers(1, 3))):
            values[data.draw(st.sampled_from(cells))] = data.draw(st.integers(0, 100))
    elif kind == "partial":
        for rc in data.draw(st.sets(st.sampled_from(cells), min_size=1, max_size=60)):
            values[rc] = 0
    elif kind == "random":
        values = {rc: data.draw(st.integers(0, 100)) for rc in cells}
    check(10, 10, (), 1, values)


def test_rules_on_every_bundled_solution_and_a_swap():
    for board in bundled().values():
        s = shape_of(board)
        solution = solve(board)
        cells = board_cells(s["rows"], s["cols"], s["holes"])
        values = {rc: solution[rc] for rc in cells}
        check(s["rows"], s["cols"], tuple(s["holes"]), s["first"], values)
        a, b = cells[0], cells[-1]
        values[a], values[b] = values[b], values[a]
        check(s["rows"], s["cols"], tuple(s["holes"]), s["first"], values)


def test_duplicates_conflict_and_solved_needs_the_first_number():
    # 1x4: 2 3 4 4 — every v < last has v + 1 next to it, but 1 is missing
    check(1, 4, (), 1, {(0, 0): 2, (0, 1): 3, (0, 2): 4, (0, 3): 4})
    h = harness(1, 4, (), 1)
    assert not h.get("Solved") and h.get("C_0_2") and h.get("C_0_3") and not h.get("C_0_0")
    check(1, 4, (), 1, {(0, 0): 1, (0, 1): 2, (0, 2): 3, (0, 3): 4})
    assert h.get("Solved")
    check(1, 4, (), 1, {(0, 0): 1, (0, 1): 0, (0, 2): 2, (0, 3): 0})   # 2 not next to 1
    assert h.get("C_0_0") and h.get("C_0_2")


def test_control_takes_an_event_when_seq_changes_and_locks_one_scan():
    h = Harness(control_macro())
    pulses = [e.capitalize() for e in EVENTS]
    h.set(Cmd=EVENTS["enter"], Seq=1).scan()
    assert [p for p in pulses if h.get(p)] == ["Enter"] and h.get("Taken") == 1
    h.set(Cmd=EVENTS["undo"], Seq=2).scan()          # locked: pending, not lost
    assert [p for p in pulses if h.get(p)] == [] and h.get("Taken") == 1
    h.scan()
    assert [p for p in pulses if h.get(p)] == ["Undo"] and h.get("Taken") == 2


def test_names_and_block_count_at_10x10():
    net = build(10, 10)
    program = compile_network(net)
    assert len(program.leaves) < 4000          # 3848 blocks, 3193 of them in Rules
    macros = {inst.element.name for inst in net.instances.values() if inst.is_macro}
    assert macros == {"Command", "Machine", "Move", "Cell", "Rules"}

    def instance_names(n):
        for name, inst in n.instances.items():
            yield name
            if inst.is_macro:
                yield from instance_names(inst.element)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in instance_names(net))
    plc = Plc(net)
    plc.scan(5)     # runs; its speed is measured by programs/hidato/bench.py, not here
    assert plc.scans == 5


def test_build_rejects_bad_shapes():
    with pytest.raises(ValueError, match="cells"):
        build(11, 10)
    with pytest.raises(ValueError, match="outside"):
        build(3, 3, holes=[(3, 0)])
    with pytest.raises(ValueError, match="numbers"):
        build(3, 3, first=1, last=10)
