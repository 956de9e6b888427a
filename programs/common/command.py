"""The *Command* macro: the command handshake every game program shares.

A panel, a script or a SCADA client drives a program through two INT inputs:
``CMD``, the selector (which command), and ``CMD_SEQ``, a command number.
A command is *pending* while ``Seq`` differs from ``Taken`` (the ``Seq`` of
the last command taken, ``taken``, read through a feedback wire), so writing
the same command twice with two numbers is two commands and nobody has to
release a button. A pending command is taken (``issue``) unless the program is
locked; it is then acknowledged (``Taken`` := ``Seq``) whatever its selector:
an unknown one is taken and does nothing, so a sender is never left waiting.
A command written while the program is locked is not lost: it stays pending
and is taken when the lock opens. Only a command overwritten before it was
taken is lost, which is why a sender writes a new command only once ``Taken``
equals ``CMD_SEQ`` (:class:`programs.common.facade.CommandFacade` does).

The lock, chosen when the macro is built:

* ``lock="scan"`` (Sudoku, Hidato): no command on the scan after one was
  taken (``issue`` itself through a feedback wire into ``free``), so the
  pulses of two commands never come on neighbouring scans (an undo stack, the
  library's LIFO, pushes and pops on *rising* edges);
* ``lock="input"`` (2048): a ``Hold`` input (BOOL) that the program drives
  with its own lock, read through a feedback wire by the caller: 2048 holds
  while a move, its tile placement or a new game is in progress.

Inputs: ``Cmd``, ``Seq`` (INT), and ``Hold`` (BOOL) with ``lock="input"``.
Outputs: one pulse per command, named after it with a capital (``Up``,
``Start``, ...: TRUE on the scan it is taken, at most one TRUE), ``Issue``
(a command was taken this scan, known or not) and ``Taken`` (INT).

Blocks: NE, NOT, AND, MEMORY, and an EQ and an AND per command.
"""

from __future__ import annotations

from collections.abc import Mapping

from blocks import AND, EQ, MEMORY, NE, NOT
from fbd import BOOL, INT, Network

LOCKS = ("scan", "input")


def command_macro(commands: Mapping[str, int], *, lock: str = "scan") -> Network:
    """Build the *Command* macro for ``commands`` (name -> selector value).

    Names become output ports (capitalised), so they must be distinct
    identifiers; selector values must be distinct INTs other than 0 (0 is
    CMD's initial value, "no command").
    """
    if lock not in LOCKS:
        raise ValueError(f"unknown lock {lock!r}; choose one of {', '.join(LOCKS)}")
    if not commands:
        raise ValueError("a command selector needs at least one command")
    values = list(commands.values())
    if len(set(values)) != len(values) or not all(type(v) is int and v != 0 and
                                                   -32768 <= v <= 32767 for v in values):
        raise ValueError(f"selector values must be distinct INTs other than 0, not {values}")
    net = Network("Command", doc="command selector: CMD/CMD_SEQ handshake, "
                                 + ("one-scan lock" if lock == "scan" else "held by the program"))
    cmd = net.input("Cmd", INT, 0)
    seq = net.input("Seq", INT, 0)

    pending = net.add("pending", NE(INT), IN1=seq)
    free = net.add("free", NOT())
    issue = net.add("issue", AND(), IN1=pending.OUT, IN2=free.OUT)
    if lock == "scan":
        net.connect(issue.OUT, free.IN, feedback=True)
    else:
        net.connect(net.input("Hold", BOOL, False), free.IN)
    taken = net.add("taken", MEMORY(INT), IN=seq, SET=issue.OUT)
    net.connect(taken.OUT, pending.IN2, feedback=True)

    for name, k in commands.items():
        selected = net.add(f"is_{name}", EQ(INT), IN1=cmd, IN2=k)
        pulse = net.add(name, AND(), IN1=issue.OUT, IN2=selected.OUT)
        net.output(name.capitalize(), pulse.OUT)
    net.output("Issue", issue.OUT)
    net.output("Taken", taken.OUT)
    return net


__all__ = ["command_macro", "LOCKS"]
