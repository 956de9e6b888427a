"""The order converters: the cells as the lines of each direction, and back."""

import pytest

from fbd import Network, compile_network
from fbd.testing import Harness
from programs.game2048.order import DIRECTIONS, cell_of, order_macro, reorder_macro

BOARD = {(r, c): 10 * r + c + 1 for r in range(4) for c in range(4)}


@pytest.mark.parametrize("direction, line0", [
    ("right", [1, 2, 3, 4]),        # row 0, toward column 3
    ("left", [4, 3, 2, 1]),         # row 0, toward column 0
    ("down", [1, 11, 21, 31]),      # column 0, toward row 3
    ("up", [31, 21, 11, 1]),        # column 0, toward row 0
])
def test_order_feeds_each_line_toward_its_far_end(direction, line0):
    h = Harness(order_macro(direction))
    h.set({f"C_{r}_{c}": v for (r, c), v in BOARD.items()}).scan()
    assert [h.get(f"L0_{p}") for p in range(1, 5)] == line0
    for l in range(4):
        for p in range(1, 5):
            assert h.get(f"L{l}_{p}") == BOARD[cell_of(direction, l, p)]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_reorder_undoes_order(direction):
    net = Network("RoundTrip")
    cells = {f"C_{r}_{c}": net.input(f"C_{r}_{c}", *order_macro(direction).inputs["C_0_0"])
             for r in range(4) for c in range(4)}
    order = net.add("order", order_macro(direction), **cells)
    back = net.add("back", reorder_macro(direction),
                   **{f"R{l}_{p}": order.port(f"L{l}_{p}") for l in range(4) for p in range(1, 5)})
    for r in range(4):
        for c in range(4):
            net.output(f"V_{r}_{c}", back.port(f"V_{r}_{c}"))
    h = Harness(net)
    h.set({f"C_{r}_{c}": v for (r, c), v in BOARD.items()}).scan()
    assert {(r, c): h.get(f"V_{r}_{c}") for r in range(4) for c in range(4)} == BOARD


def test_converters_are_wiring_only():
    assert compile_network(order_macro("up")).info()["blocks"] == 0
    assert compile_network(reorder_macro("left")).info()["blocks"] == 0


def test_unknown_direction():
    with pytest.raises(ValueError, match="up, right, down, left"):
        order_macro("north")
