"""The *Machine* macro: the SCXML states ``idle`` (``unsolved``, ``solved``) and ``playing``.

Qt's "SCXML Sudoku" machine (``sudoku.scxml``); the Hidato program runs the
same one.

Two bistables hold the configuration: ``playing`` and ``solved`` (both RS,
reset-dominant); ``idle`` is NOT playing and ``unsolved`` is idle and not
solved. The transitions of ``sudoku.scxml``:

* entering ``game`` (the PLC's first scan: ``booted``, a MEMORY that becomes
  TRUE, read through a feedback wire, so ``first`` is TRUE once): ``restart``
  with the grid on the ``INIT_r_c`` inputs (Qt's ``setInitialValues``);
* ``idle`` + start → ``playing``, whose onentry raises ``restart``;
* ``idle`` + setup(initState) → ``unsolved``: store the grid (``Load``) and
  ``restart``;
* ``playing`` + stop → ``idle`` (its initial child, ``unsolved``);
* ``playing`` + a move that leaves the grid solved → ``solved`` (the internal
  ``solved`` event). As in the SCXML, only a move (tap, and our enter and
  clear) raises it; undo and start do not check the grid.

Events in the wrong state do nothing. ``Moved`` only comes in ``playing``
(the *Move* macro checks it), ``Stop`` outside ``playing`` resets an RS that
is already reset.

Inputs: ``Start``, ``Stop``, ``Setup``, ``Moved``, ``Solved`` (BOOL: the grid
after this scan's move is solved). Outputs: ``Playing``, ``Idle``,
``SolvedState``, ``Unsolved`` (the active states after this scan), ``Load``
(store INIT as the initial grid), ``Restart`` (current := initial, empty the
undo stack).
"""

from __future__ import annotations

from blocks import AND, MEMORY, NOT, OR, RS
from fbd import BOOL, Network


def machine_macro() -> Network:
    """Build the *Machine* macro (14 blocks)."""
    net = Network("Machine", doc="SCXML states idle (unsolved, solved) and playing")
    start = net.input("Start", BOOL, False)
    stop = net.input("Stop", BOOL, False)
    setup = net.input("Setup", BOOL, False)
    moved = net.input("Moved", BOOL, False)
    solved_now = net.input("Solved", BOOL, False)

    was_idle = net.add("was_idle", NOT())
    start_ok = net.add("start_ok", AND(), IN1=start, IN2=was_idle.OUT)
    setup_ok = net.add("setup_ok", AND(), IN1=setup, IN2=was_idle.OUT)
    booted = net.add("booted", MEMORY(BOOL), IN=True, SET=True)
    first = net.add("first", NOT())
    net.connect(booted.OUT, first.IN, feedback=True)
    load = net.add("load", OR(), IN1=setup_ok.OUT, IN2=first.OUT)
    restart = net.add("restart", OR(), IN1=start_ok.OUT, IN2=load.OUT)
    win = net.add("win", AND(), IN1=moved, IN2=solved_now)
    leave = net.add("leave", OR(), IN1=stop, IN2=win.OUT)
    playing = net.add("playing", RS(), S=start_ok.OUT, R1=leave.OUT)
    net.connect(playing.Q1, was_idle.IN, feedback=True)
    solved = net.add("solved", RS(), S=win.OUT, R1=restart.OUT)
    idle = net.add("idle", NOT(), IN=playing.Q1)
    not_solved = net.add("not_solved", NOT(), IN=solved.Q1)
    unsolved = net.add("unsolved", AND(), IN1=idle.OUT, IN2=not_solved.OUT)

    net.output("Playing", playing.Q1)
    net.output("Idle", idle.OUT)
    net.output("SolvedState", solved.Q1)
    net.output("Unsolved", unsolved.OUT)
    net.output("Load", load.OUT)
    net.output("Restart", restart.OUT)
    return net
