"""The *Cell* macro: one of the 81 cells (initial and current value).

``initial`` (a MEMORY) holds the cell of the initial grid: ``Init`` is stored
when ``Load`` (setup, or the first scan). ``current`` (a MEMORY) holds the
cell as played: ``Restart`` copies the initial value into it (after this
scan's load, so setup and restart in one scan see the new grid); otherwise a
move writes ``New`` when the move's address ``Addr`` is this cell's
``Index`` (``here``) and ``Write``.

``Mask`` (SHL of WORD 1 by the value: bit v for digit v, bit 0 for an empty
cell) feeds the group checks. ``Conflict``: the cell holds a digit that
another cell of one of its groups holds too: its mask AND ``Peers`` (the OR
of its peers' masks) AND 2#1111111110 (digits only) is not 0.

Inputs: ``Init``, ``New``, ``Addr``, ``Index`` (INT; ``Index`` is the
cell's number row * 9 + col, a literal), ``Load``, ``Restart``, ``Write``
(BOOL), ``Peers`` (WORD). Outputs: ``Value`` (INT, current), ``Given``
(INT, initial), ``Mask`` (WORD), ``Conflict`` (BOOL).
"""

from __future__ import annotations

from blocks import AND, EQ, MEMORY, NE, OR, SEL, SHL
from fbd import BOOL, INT, WORD, Network

#: Bits 1..9: the digits (bit 0 is an empty cell).
DIGITS = 0b11_1111_1110


def cell_macro() -> Network:
    """Build the *Cell* macro (9 blocks: 2 MEMORY, EQ, AND, SEL, OR, SHL, AND, NE)."""
    net = Network("Cell", doc="one cell: initial and current value, mask, conflict")
    init = net.input("Init", INT, 0)
    load = net.input("Load", BOOL, False)
    restart = net.input("Restart", BOOL, False)
    index = net.input("Index", INT, 0)
    addr = net.input("Addr", INT, 0)
    write = net.input("Write", BOOL, False)
    value = net.input("New", INT, 0)
    peers = net.input("Peers", WORD, 0)

    initial = net.add("initial", MEMORY(INT), IN=init, SET=load)
    here = net.add("here", EQ(INT), IN1=addr, IN2=index)
    hit = net.add("hit", AND(), IN1=here.OUT, IN2=write)
    new = net.add("new", SEL(INT), G=restart, IN0=value, IN1=initial.OUT)
    store = net.add("store", OR(), IN1=hit.OUT, IN2=restart)
    current = net.add("current", MEMORY(INT), IN=new.OUT, SET=store.OUT)
    mask = net.add("mask", SHL(WORD, types={"TN": INT}), IN=1, N=current.OUT)
    clash = net.add("clash", AND(WORD, n=3), IN1=mask.OUT, IN2=peers, IN3=DIGITS)
    conflict = net.add("conflict", NE(WORD), IN1=clash.OUT, IN2=0)

    net.output("Value", current.OUT)
    net.output("Given", initial.OUT)
    net.output("Mask", mask.OUT)
    net.output("Conflict", conflict.OUT)
    return net
