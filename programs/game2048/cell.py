"""The *Cell* macro: one square of the board (16 identical instances).

Inputs, as in the article:

* ``Set``: try to place a new tile here (from *Install*);
* ``Four``: the new tile is a 4, not a 2;
* ``Clear``: zero the cell for a new game (highest priority);
* ``Go``: the processing of a command has finished, write ``In``;
* ``In``: the value processing computed for this cell;
* ``Start``: the first tile of a new game goes here, without the empty check
  (the board was just cleared).

Outputs: ``Value`` (the cell's value, 0 = empty) and ``Done`` (this cell took
the new tile this scan).

Inside: a MEMORY holds the value. The value written is chosen by four SELs in
the article's priority order, lowest first: (1) ``tile``: 2 or 4 by Four;
(2) ``placed``: the tile when the cell is empty and Set, else In; (3)
``started``: the tile, without any check, when Start; (4) ``cleared``: 0 when
Clear. An EQ (``empty``) says the cell holds 0, an AND (``place``) and an OR
(``done``) raise Done when (Set and empty) or Start. One more OR
(``write``: Go, Done or Clear) is the memory's write enable; the article's
figure leaves it implicit (its Memory block is written when any of them
acts).

``empty`` reads the memory through a feedback wire: it is the value at the
start of the scan, before this scan's write.
"""

from __future__ import annotations

from blocks import AND, EQ, MEMORY, OR, SEL
from fbd import BOOL, DINT, Network


def cell_macro() -> Network:
    """Build the *Cell* macro (9 blocks: MEMORY, 4 SEL, EQ, AND, 2 OR)."""
    net = Network("Cell", doc="one square: a Memory, four Selects, Compare, AND, OR")
    set_ = net.input("Set", BOOL, False)
    four = net.input("Four", BOOL, False)
    clear = net.input("Clear", BOOL, False)
    go = net.input("Go", BOOL, False)
    in_ = net.input("In", DINT, 0)
    start = net.input("Start", BOOL, False)

    empty = net.add("empty", EQ(DINT), IN2=0)
    place = net.add("place", AND(), IN1=set_, IN2=empty.OUT)
    done = net.add("done", OR(), IN1=place.OUT, IN2=start)

    tile = net.add("tile", SEL(DINT), G=four, IN0=2, IN1=4)
    placed = net.add("placed", SEL(DINT), G=place.OUT, IN0=in_, IN1=tile.OUT)
    started = net.add("started", SEL(DINT), G=start, IN0=placed.OUT, IN1=tile.OUT)
    cleared = net.add("cleared", SEL(DINT), G=clear, IN0=started.OUT, IN1=0)

    write = net.add("write", OR(n=3), IN1=go, IN2=done.OUT, IN3=clear)
    memory = net.add("memory", MEMORY(DINT), IN=cleared.OUT, SET=write.OUT)
    net.connect(memory.OUT, empty.IN1, feedback=True)

    net.output("Value", memory.OUT)
    net.output("Done", done.OUT)
    return net
