"""The *Move* macro: tap, enter, clear and undo, and the undo stack.

A move addresses cell ``Row * 9 + Col`` (``Index``; Qt's tap has x = row, y =
column). It is made only in ``playing``, only on a cell inside the grid
(``in_row``, ``in_col``: LIMIT(0, v, 8) = v) that is empty in the initial grid
(``free``: ``Given`` = 0), as the example's ``isValidPosition()``; enter
also needs a digit 0..9. Otherwise nothing happens.

New value: a tap adds one, 9 wraps to 0 (``tapped``: (v + 1) MOD 10), enter
writes ``Digit``, clear writes 0.

The undo stack is the library's LIFO (``stack``) of INT entries ``index * 10
+ old value`` (0..809): a move pushes the cell and the value it had before.
Undo pops the top (read through a feedback wire, before the pop) and writes
the old value back into that cell. For a tap that is "step back by one, 0
wraps to 9", exactly the example's ``undo()``; for enter and clear it is
the value they replaced. An undo on an empty stack does nothing (it does not
even pop, so UNDERFLOW stays FALSE). ``Restart`` empties the stack (RST).

Overflow drops nothing silently: when the stack is full (FULL, previous
scan) a move is still pushed, the LIFO refuses it and raises OVERFLOW, and
the move is *not* made (``room`` gates the write): every change on the grid
can be undone. OVERFLOW stays TRUE until the next push or pop.

Inputs: ``Tap``, ``Undo``, ``Enter``, ``Clear`` (pulses from *Control*),
``Row``, ``Col``, ``Digit`` (INT), ``Playing`` (state of the previous scan),
``Given`` (initial value of the addressed cell), ``Current`` (its value at
the start of the scan), ``Restart``.
Outputs: ``Addr`` (the cell to read and write: Index, or the top's cell for
undo), ``Write`` (write ``Value`` into cell ``Addr`` this scan), ``Value``,
``Moved`` (a tap, enter or clear was made), ``Overflow``, ``Count`` (moves
on the stack).
"""

from __future__ import annotations

from blocks import ADD, AND, DIV, EQ, LIFO, LIMIT, MOD, MUL, NOT, OR, SEL
from fbd import BOOL, INT, Network

#: Default depth of the undo stack: the LIFO's largest. 729 (81 cells x 9
#: digits) would be enough if every move set a new digit, but taps cycle
#: 0..9 for ever; entries cost memory only while they are stored.
UNDO_DEPTH = 32767


def _in_range(net: Network, name: str, value, high: int):
    """EQ(LIMIT(0, value, high), value): TRUE when 0 <= value <= high (2 blocks)."""
    limited = net.add(f"{name}_limit", LIMIT(INT), MN=0, IN=value, MX=high)
    return net.add(name, EQ(INT), IN1=limited.OUT, IN2=value).OUT


def move_macro(depth: int = UNDO_DEPTH) -> Network:
    """Build the *Move* macro (30 blocks) with an undo stack of ``depth`` entries."""
    net = Network("Move", doc=f"tap, enter, clear, undo; LIFO undo stack of {depth}")
    tap = net.input("Tap", BOOL, False)
    undo = net.input("Undo", BOOL, False)
    enter = net.input("Enter", BOOL, False)
    clear = net.input("Clear", BOOL, False)
    row = net.input("Row", INT, 0)
    col = net.input("Col", INT, 0)
    digit = net.input("Digit", INT, 0)
    playing = net.input("Playing", BOOL, False)
    given = net.input("Given", INT, 0)
    current = net.input("Current", INT, 0)
    restart = net.input("Restart", BOOL, False)

    # -- where: the addressed cell, valid for a move?
    in_row = _in_range(net, "in_row", row, 8)
    in_col = _in_range(net, "in_col", col, 8)
    row9 = net.add("row9", MUL(INT), IN1=row, IN2=9)
    index = net.add("index", ADD(INT), IN1=row9.OUT, IN2=col)
    free = net.add("free", EQ(INT), IN1=given, IN2=0)
    cell_ok = net.add("cell_ok", AND(n=4), IN1=playing, IN2=in_row, IN3=in_col, IN4=free.OUT)
    digit_ok = _in_range(net, "digit_ok", digit, 9)

    # -- the undo stack (read before this scan's pop)
    stack = net.add("stack", LIFO(INT, depth=depth), RST=restart)
    top_cell = net.add("top_cell", DIV(INT), IN2=10)
    top_old = net.add("top_old", MOD(INT), IN2=10)
    net.connect(stack.OUT, top_cell.IN1, feedback=True)
    net.connect(stack.OUT, top_old.IN1, feedback=True)
    has_moves = net.add("has_moves", NOT())
    net.connect(stack.EMPTY, has_moves.IN, feedback=True)
    room = net.add("room", NOT())
    net.connect(stack.FULL, room.IN, feedback=True)

    # -- the moves
    tap_ok = net.add("tap_ok", AND(), IN1=tap, IN2=cell_ok.OUT)
    enter_ok = net.add("enter_ok", AND(n=3), IN1=enter, IN2=cell_ok.OUT, IN3=digit_ok)
    clear_ok = net.add("clear_ok", AND(), IN1=clear, IN2=cell_ok.OUT)
    move = net.add("move", OR(n=3), IN1=tap_ok.OUT, IN2=enter_ok.OUT, IN3=clear_ok.OUT)
    made = net.add("made", AND(), IN1=move.OUT, IN2=room.OUT)
    undo_ok = net.add("undo_ok", AND(n=3), IN1=undo, IN2=playing, IN3=has_moves.OUT)
    write = net.add("write", OR(), IN1=made.OUT, IN2=undo_ok.OUT)
    addr = net.add("addr", SEL(INT), G=undo, IN0=index.OUT, IN1=top_cell.OUT)

    # -- the value written
    plus_one = net.add("plus_one", ADD(INT), IN1=current, IN2=1)
    tapped = net.add("tapped", MOD(INT), IN1=plus_one.OUT, IN2=10)
    entered = net.add("entered", SEL(INT), G=enter, IN0=tapped.OUT, IN1=digit)
    cleared = net.add("cleared", SEL(INT), G=clear, IN0=entered.OUT, IN1=0)
    value = net.add("value", SEL(INT), G=undo, IN0=cleared.OUT, IN1=top_old.OUT)

    # -- the entry pushed: the cell and its old value
    index10 = net.add("index10", MUL(INT), IN1=index.OUT, IN2=10)
    entry = net.add("entry", ADD(INT), IN1=index10.OUT, IN2=current)
    net.connect(move.OUT, stack.PUSH)
    net.connect(undo_ok.OUT, stack.POP)
    net.connect(entry.OUT, stack.IN)

    net.output("Addr", addr.OUT)
    net.output("Write", write.OUT)
    net.output("Value", value.OUT)
    net.output("Moved", made.OUT)
    net.output("Overflow", stack.OVERFLOW)
    net.output("Count", stack.COUNT)
    return net
