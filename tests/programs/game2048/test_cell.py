"""The Cell macro alone: placement, Four, Start, Go/In, Clear, Done."""

from fbd import compile_network
from fbd.testing import Harness
from programs.game2048.cell import cell_macro

IDLE = dict(Set=False, Four=False, Clear=False, Go=False, In=0, Start=False)


def cell(value: int = 0) -> Harness:
    h = Harness(cell_macro())
    h.set(IDLE)
    if value:
        h.write("memory.OUT", value)
    return h


def test_set_places_a_two_in_an_empty_cell_and_raises_done_once():
    h = cell()
    h.set(Set=True).scan()
    h.expect(Value=2, Done=True)
    h.set(Set=False).scan()
    h.expect(Value=2, Done=False)


def test_four_places_a_four():
    h = cell()
    h.set(Set=True, Four=True).scan()
    h.expect(Value=4, Done=True)


def test_set_on_an_occupied_cell_changes_nothing_and_is_not_done():
    h = cell(8)
    h.set(Set=True, Four=True).scan()
    h.expect(Value=8, Done=False)


def test_start_places_without_the_empty_check():
    h = cell(16)
    h.set(Start=True).scan()
    h.expect(Value=2, Done=True)


def test_go_writes_in_and_idle_keeps_it():
    h = cell(2)
    h.set(Go=True, In=64).scan()
    h.expect(Value=64, Done=False)
    h.set(Go=False, In=128).scan(3)
    h.expect(Value=64)
    h.set(Go=True, In=0).scan()
    h.expect(Value=0)


def test_clear_has_the_highest_priority():
    h = cell(32)
    h.set(Clear=True, Go=True, In=8, Start=True, Set=True).scan()
    h.expect(Value=0)
    h.set(IDLE).scan()
    h.expect(Value=0, Done=False)


def test_the_empty_check_reads_the_value_at_the_start_of_the_scan():
    h = cell()
    h.set(Set=True).scan()       # empty: placed
    h.set(Four=True).scan()      # now occupied: Set still high, nothing changes
    h.expect(Value=2, Done=False)


def test_blocks_are_the_articles():
    info = compile_network(cell_macro()).info()
    assert info["blocks"] == 9
    assert info["block_types"] == {"AND": 1, "EQ": 1, "MEMORY": 1, "OR": 2, "SEL": 4}
