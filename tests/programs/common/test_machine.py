"""The Machine macro alone: the SCXML states that Sudoku and Hidato share."""

from fbd.testing import Harness
from programs.common.machine import machine_macro


def test_machine_enters_game_with_a_restart_and_follows_the_scxml():
    h = Harness(machine_macro())
    h.scan()
    h.expect(Load=True, Restart=True, Idle=True, Unsolved=True, Playing=False)
    h.scan()
    h.expect(Load=False, Restart=False)
    h.set(Stop=True).scan()                            # stop in idle: nothing
    h.expect(Idle=True, Unsolved=True)
    h.set(Stop=False, Start=True).scan()
    h.expect(Playing=True, Idle=False, Unsolved=False, Restart=True)
    h.set(Start=False, Setup=True).scan()              # setup in playing: ignored
    h.expect(Playing=True, Load=False, Restart=False)
    h.set(Setup=False, Solved=True).scan()             # solved grid, but no move
    h.expect(Playing=True)
    h.set(Moved=True).scan()
    h.expect(Playing=False, SolvedState=True, Idle=True, Unsolved=False)
    h.set(Moved=False, Setup=True).scan()
    h.expect(SolvedState=False, Unsolved=True, Load=True, Restart=True)

