"""The Won macro alone: a 2048 tile anywhere."""

from fbd.testing import Harness
from programs.game2048.won import won_macro


def test_won_while_a_tile_of_2048_or_more_is_on_the_board():
    h = Harness(won_macro())
    board = {f"V_{r}_{c}": 1024 for r in range(4) for c in range(4)}
    h.set(board).scan()
    assert h.get("Won") is False
    for value, won in ((2048, True), (4096, True), (0, False)):
        h.set(V_3_1=value).scan()
        assert h.get("Won") is won
