"""The *Move* macro of the Hidato program: enter, clear and undo, and the undo stacks.

A move addresses cell ``Row * cols + Col`` (``index``). It is made only in
``playing``, on a cell inside the rectangle (``in_row``, ``in_col``) that is
empty in the initial board (``free``: ``Given`` = 0; a hole's ``Given`` is
-1, so holes ignore every move, and givens cannot be changed); enter also
needs a number ``first..last`` (``number_ok``). Enter writes ``Number``,
clear writes 0.

The undo stack is two of the library's LIFOs pushed and popped together:
``cells`` holds the index of the cell a move changed, ``olds`` the value it
had before (so any numbering fits, where Sudoku packs both into one INT as
``index * 10 + old``). Undo pops both tops (read through feedback wires,
before the pop) and writes the old value back. Undo on an empty stack does
nothing; ``Restart`` empties both. When the stacks are full a move is
refused (``room`` gates the write; OVERFLOW rises), as in Sudoku, so every
change can be undone.

Inputs: ``Enter``, ``Clear``, ``Undo`` (pulses from *Control*), ``Row``,
``Col``, ``Number`` (INT), ``Playing`` (state of the previous scan),
``Given`` (initial value of the addressed cell, -1 for a hole), ``Current``
(its value at the start of the scan), ``Restart``. Outputs: ``Addr``,
``Write``, ``Value``, ``Moved``, ``Overflow``, ``Count``.
"""

from __future__ import annotations

from blocks import ADD, AND, EQ, LIFO, LIMIT, MUL, NOT, OR, SEL
from fbd import BOOL, INT, Network

#: Default depth of the undo stacks: the LIFO's largest.
UNDO_DEPTH = 32767


def _in_range(net: Network, name: str, value, low: int, high: int):
    """EQ(LIMIT(low, value, high), value): TRUE when low <= value <= high (2 blocks)."""
    limited = net.add(f"{name}_limit", LIMIT(INT), MN=low, IN=value, MX=high)
    return net.add(name, EQ(INT), IN1=limited.OUT, IN2=value).OUT


def move_macro(rows: int, cols: int, first: int, last: int, depth: int = UNDO_DEPTH) -> Network:
    """Build the *Move* macro (27 blocks) for a ``rows`` x ``cols`` board numbered
    ``first..last``, with undo stacks of ``depth`` entries."""
    net = Network("Move", doc=f"enter, clear, undo on {rows}x{cols}, numbers {first}..{last}; "
                              f"LIFO undo stacks of {depth}")
    enter = net.input("Enter", BOOL, False)
    clear = net.input("Clear", BOOL, False)
    undo = net.input("Undo", BOOL, False)
    row = net.input("Row", INT, 0)
    col = net.input("Col", INT, 0)
    number = net.input("Number", INT, 0)
    playing = net.input("Playing", BOOL, False)
    given = net.input("Given", INT, 0)
    current = net.input("Current", INT, 0)
    restart = net.input("Restart", BOOL, False)

    # -- where: the addressed cell, valid for a move?
    in_row = _in_range(net, "in_row", row, 0, rows - 1)
    in_col = _in_range(net, "in_col", col, 0, cols - 1)
    row_start = net.add("row_start", MUL(INT), IN1=row, IN2=cols)
    index = net.add("index", ADD(INT), IN1=row_start.OUT, IN2=col)
    free = net.add("free", EQ(INT), IN1=given, IN2=0)
    cell_ok = net.add("cell_ok", AND(n=4), IN1=playing, IN2=in_row, IN3=in_col, IN4=free.OUT)
    number_ok = _in_range(net, "number_ok", number, first, last)

    # -- the undo stacks (read before this scan's pop)
    cells = net.add("cells", LIFO(INT, depth=depth), RST=restart)
    olds = net.add("olds", LIFO(INT, depth=depth), RST=restart)
    has_moves = net.add("has_moves", NOT())
    net.connect(cells.EMPTY, has_moves.IN, feedback=True)
    room = net.add("room", NOT())
    net.connect(cells.FULL, room.IN, feedback=True)

    # -- the moves
    enter_ok = net.add("enter_ok", AND(n=3), IN1=enter, IN2=cell_ok.OUT, IN3=number_ok)
    clear_ok = net.add("clear_ok", AND(), IN1=clear, IN2=cell_ok.OUT)
    move = net.add("move", OR(), IN1=enter_ok.OUT, IN2=clear_ok.OUT)
    made = net.add("made", AND(), IN1=move.OUT, IN2=room.OUT)
    undo_ok = net.add("undo_ok", AND(n=3), IN1=undo, IN2=playing, IN3=has_moves.OUT)
    write = net.add("write", OR(), IN1=made.OUT, IN2=undo_ok.OUT)
    addr = net.add("addr", SEL(INT), G=undo, IN0=index.OUT)
    net.connect(cells.OUT, addr.IN1, feedback=True)

    # -- the value written
    entered = net.add("entered", SEL(INT), G=enter, IN0=0, IN1=number)
    value = net.add("value", SEL(INT), G=undo, IN0=entered.OUT)
    net.connect(olds.OUT, value.IN1, feedback=True)

    # -- the entry pushed: the cell and its old value
    for stack, entry in ((cells, index.OUT), (olds, current)):
        net.connect(move.OUT, stack.PUSH)
        net.connect(undo_ok.OUT, stack.POP)
        net.connect(entry, stack.IN)

    net.output("Addr", addr.OUT)
    net.output("Write", write.OUT)
    net.output("Value", value.OUT)
    net.output("Moved", made.OUT)
    net.output("Overflow", cells.OVERFLOW)
    net.output("Count", cells.COUNT)
    return net
