"""The *Control* macro: the command selector, the lock, and the sequence of a command.

The article's control block: a manual "one of N" selector issues six
commands, **1 up, 2 right, 3 down, 4 left, 5 start a new game, 6 reset**, and a
lock ignores new commands while one is being processed.

The selector is the *Command* macro (``command``, :mod:`programs.common.command`):
the PLC input ``Cmd`` is the selector's position (1..6) and a new ``Seq`` (a
command number differing from ``Taken``, the number of the last command
taken) issues it, so pressing the same arrow twice is two commands and a
panel never has to release a button. Its pulses ``Up`` .. ``Reset`` are the
one-of-N outputs, TRUE on the scan a command is taken.

The lock. ``busy`` (an RS, reset-dominant) is set by any command taken and
reset when it finishes: a press that changes nothing on the scan after its
processing is Done (``noop`` read through a feedback wire: two move commands
are never issued on neighbouring scans, so the original *Processing*, which
latches on the rising edge of its Command, sees every one); a move when its
new tile is placed; start when its second tile is placed; reset at once. The
selector's ``Hold`` reads ``busy`` of the previous scan, so a command written
while one is in progress waits, pending, until the lock opens (``Taken``
keeps the number of the last command taken; a sender that must not queue,
such as :meth:`~programs.game2048.Game2048.command`, writes only when the
program is neither busy nor holding a pending command). A selector position
outside 1..6 is taken and does nothing.

A move. ``dir`` latches the direction (1..4) for the multiplexers that pick
that direction's results for the cells, its Worked and its Score. When the
direction's *Move* is Done: ``go`` (Done and Worked) tells the cells to take
the processed values and asks for a new tile; ``noop`` (Done, not Worked)
finishes the command (on the next scan). ``moved`` and ``last_gain`` keep the outcome for the
HMI.

Tile placement. ``placing`` (an SR) is the "work" of the article's
placement: set by ``go`` and by start, reset when a cell reports the tile
placed (``Placed``). A new game places two tiles: ``first`` (an RS) marks the
first, which goes through the cells' Start input (``FirstTile``; no empty
check: the board has just been cleared); when it is placed, ``second`` asks
for one more, placed normally (``Placing``).

Inputs: ``Cmd``, ``Seq`` (INT); ``DoneUp`` .. ``DoneLeft``, ``WorkedUp`` ..
``WorkedLeft`` (BOOL) and ``ScoreUp`` .. ``ScoreLeft`` (DINT) from the four
*Move* macros; ``Placed`` (BOOL: a cell took the new tile this scan).
Outputs: ``Up``, ``Right``, ``Down``, ``Left`` (command pulses to the *Move*
macros), ``Clear`` (start or reset), ``Dir`` (INT 1..4), ``Go``, ``Gain``
(this command's score, for the accumulator), ``Placing`` (a new tile is
being placed), ``Work`` and ``FirstTile`` (the "work" inputs of the two
*Install* macros: a tile through Set, the first tile of a game through
Start), ``Busy``, ``Taken`` (INT), ``Moved`` and ``LastGain`` (the last
command's outcome).
"""

from __future__ import annotations

from blocks import AND, MEMORY, MUX, NOT, OR, RS, SR
from fbd import BOOL, DINT, INT, Network
from programs.common.command import command_macro

COMMANDS = {"up": 1, "right": 2, "down": 3, "left": 4, "start": 5, "reset": 6}
MOVES = ("up", "right", "down", "left")


def control_macro() -> Network:
    """Build the *Control* macro (40 blocks, 16 of them in *Command*)."""
    net = Network("Control", doc="one-of-N selector, lock, move and placement sequence")
    cmd = net.input("Cmd", INT, 0)
    seq = net.input("Seq", INT, 0)
    done_in = {d: net.input(f"Done{d.capitalize()}", BOOL, False) for d in MOVES}
    worked_in = {d: net.input(f"Worked{d.capitalize()}", BOOL, False) for d in MOVES}
    score_in = {d: net.input(f"Score{d.capitalize()}", DINT, 0) for d in MOVES}
    placed = net.input("Placed", BOOL, False)

    # -- selector and lock
    command = net.add("command", command_macro(COMMANDS, lock="input"), Cmd=cmd, Seq=seq)
    pulses = {name: command.port(name.capitalize()) for name in COMMANDS}
    move = net.add("move", OR(n=4), **{f"IN{i}": pulses[d] for i, d in enumerate(MOVES, 1)})
    taken_any = net.add("any", OR(n=3), IN1=move.OUT, IN2=pulses["start"], IN3=pulses["reset"])
    clear = net.add("clear", OR(), IN1=pulses["start"], IN2=pulses["reset"])
    direction = net.add("dir", MEMORY(INT), IN=cmd, SET=move.OUT)

    # -- the move: pick the commanded direction's outcome
    done = net.add("done", OR(n=4), **{f"IN{i}": done_in[d] for i, d in enumerate(MOVES, 1)})
    worked = net.add("worked", MUX(BOOL, n=5), K=direction.OUT, IN0=False,
                     **{f"IN{i}": worked_in[d] for i, d in enumerate(MOVES, 1)})
    gain = net.add("gain", MUX(DINT, n=5), K=direction.OUT, IN0=0,
                   **{f"IN{i}": score_in[d] for i, d in enumerate(MOVES, 1)})
    go = net.add("go", AND(), IN1=done.OUT, IN2=worked.OUT)
    still = net.add("still", NOT(), IN=worked.OUT)
    noop = net.add("noop", AND(), IN1=done.OUT, IN2=still.OUT)
    moved = net.add("moved", MEMORY(BOOL), IN=worked.OUT, SET=done.OUT)
    last_gain = net.add("last_gain", MEMORY(DINT), IN=gain.OUT, SET=done.OUT)

    # -- tile placement: one tile after a move, two for a new game
    first = net.add("first", RS(), S=pulses["start"], R1=placed)
    second = net.add("second", AND(), IN1=placed)
    net.connect(first.Q1, second.IN2, feedback=True)
    request = net.add("request", OR(n=3), IN1=go.OUT, IN2=pulses["start"], IN3=second.OUT)
    placing = net.add("placing", SR(), S1=request.OUT, R=placed)
    not_first = net.add("not_first", NOT(), IN=first.Q1)
    work = net.add("work", AND(), IN1=placing.Q1, IN2=not_first.OUT)
    work_first = net.add("work_first", AND(), IN1=placing.Q1, IN2=first.Q1)
    later_tile = net.add("later_tile", NOT())
    net.connect(first.Q1, later_tile.IN, feedback=True)
    last_tile = net.add("last_tile", AND(), IN1=placed, IN2=later_tile.OUT)

    finish = net.add("finish", OR(n=3), IN2=last_tile.OUT, IN3=pulses["reset"])
    net.connect(noop.OUT, finish.IN1, feedback=True)
    busy = net.add("busy", RS(), S=taken_any.OUT, R1=finish.OUT)
    net.connect(busy.Q1, command.Hold, feedback=True)

    for d in MOVES:
        net.output(d.capitalize(), pulses[d])
    net.output("Clear", clear.OUT)
    net.output("Dir", direction.OUT)
    net.output("Go", go.OUT)
    net.output("Gain", gain.OUT)
    net.output("Placing", placing.Q1)
    net.output("Work", work.OUT)
    net.output("FirstTile", work_first.OUT)
    net.output("Busy", busy.Q1)
    net.output("Taken", command.Taken)
    net.output("Moved", moved.OUT)
    net.output("LastGain", last_gain.OUT)
    return net
