"""The Score macro alone: accumulate the gains of applied moves, clear for a new game."""

from fbd.testing import Harness
from programs.game2048.score import score_macro


def test_adds_the_gain_on_each_applied_move_and_clears():
    h = Harness(score_macro())
    h.set(Gain=8, Add=True).scan()
    h.expect(Total=8)
    h.set(Gain=16, Add=False).scan(3)       # a gain without Add is not counted
    h.expect(Total=8)
    h.set(Gain=4, Add=True).scan()
    h.set(Add=False).scan()
    h.expect(Total=12)
    h.set(Clear=True).scan()
    h.expect(Total=0)
    h.set(Clear=False, Gain=2, Add=True).scan()
    h.expect(Total=2)
