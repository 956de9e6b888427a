"""The Install macro alone: 16 ANDs of work, row = i, column = j."""

from fbd import compile_network
from fbd.testing import Harness
from programs.game2048.install import install_macro


def test_exactly_the_addressed_cell_while_working():
    h = Harness(install_macro())
    for work in (True, False):
        for row in range(4):
            for col in range(4):
                h.set(Work=work, Row=row, Col=col).scan()
                on = [(i, j) for i in range(4) for j in range(4) if h.get(f"S_{i}_{j}")]
                assert on == ([(row, col)] if work else [])


def test_out_of_range_coordinates_address_nothing():
    h = Harness(install_macro())
    h.set(Work=True, Row=4, Col=0).scan()
    assert not any(h.get(f"S_{i}_{j}") for i in range(4) for j in range(4))


def test_blocks():
    info = compile_network(install_macro()).info()
    assert info["blocks"] == 24 and info["block_types"] == {"AND": 16, "EQ": 8}
