"""The *Control* macro: the command selector, the lock, and the sequence of a command.

The article's control block: a manual "one of N" selector issues six
commands, **1 up, 2 right, 3 down, 4 left, 5 start a new game, 6 reset**, and a
lock ignores new commands while one is being processed.

The selector. The PLC input ``Cmd`` is the selector's position (1..6) and
``Seq`` a command number: a command is issued on a scan in which ``Seq``
differs from its value on the previous scan (``seq_prev``, a MEMORY read
through a feedback wire; ``new``), so pressing the same arrow twice is two
commands and a panel never has to release a button. ``is_up`` .. ``is_reset``
(six EQ) are the one-of-N outputs; ``up`` .. ``reset`` (six AND) pass the one
selected when a command is issued and the lock is open.

The lock. ``busy`` (an RS, reset-dominant) is set by any command taken and
reset when it finishes: a press that changes nothing on the scan after its
processing is Done (``noop`` read through a feedback wire: two move commands
are never issued on neighbouring scans, so the original *Processing*, which
latches on the rising edge of its Command, sees every one); a move when its
new tile is placed; start when its second tile is placed; reset at once. ``issue`` reads ``busy`` of the
previous scan, so a command arriving while one is in progress is ignored
(``Taken`` keeps the number of the last command taken).

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

from blocks import AND, EQ, MEMORY, MUX, NE, NOT, OR, RS, SR
from fbd import BOOL, DINT, INT, Network

COMMANDS = {"up": 1, "right": 2, "down": 3, "left": 4, "start": 5, "reset": 6}
MOVES = ("up", "right", "down", "left")


def control_macro() -> Network:
    """Build the *Control* macro (40 blocks)."""
    net = Network("Control", doc="one-of-N selector, lock, move and placement sequence")
    cmd = net.input("Cmd", INT, 0)
    seq = net.input("Seq", INT, 0)
    done_in = {d: net.input(f"Done{d.capitalize()}", BOOL, False) for d in MOVES}
    worked_in = {d: net.input(f"Worked{d.capitalize()}", BOOL, False) for d in MOVES}
    score_in = {d: net.input(f"Score{d.capitalize()}", DINT, 0) for d in MOVES}
    placed = net.input("Placed", BOOL, False)

    # -- selector and lock
    seq_prev = net.add("seq_prev", MEMORY(INT), IN=seq, SET=True)
    new = net.add("new", NE(INT), IN1=seq)
    net.connect(seq_prev.OUT, new.IN2, feedback=True)
    idle = net.add("idle", NOT())
    issue = net.add("issue", AND(), IN1=new.OUT, IN2=idle.OUT)
    pulses = {}
    for name, k in COMMANDS.items():
        selected = net.add(f"is_{name}", EQ(INT), IN1=cmd, IN2=k)
        pulses[name] = net.add(name, AND(), IN1=issue.OUT, IN2=selected.OUT).OUT
    move = net.add("move", OR(n=4), **{f"IN{i}": pulses[d] for i, d in enumerate(MOVES, 1)})
    taken_any = net.add("any", OR(n=3), IN1=move.OUT, IN2=pulses["start"], IN3=pulses["reset"])
    clear = net.add("clear", OR(), IN1=pulses["start"], IN2=pulses["reset"])
    taken = net.add("taken", MEMORY(INT), IN=seq, SET=taken_any.OUT)
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
    net.connect(busy.Q1, idle.IN, feedback=True)

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
    net.output("Taken", taken.OUT)
    net.output("Moved", moved.OUT)
    net.output("LastGain", last_gain.OUT)
    return net
