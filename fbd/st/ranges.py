"""What the engines may leave out of a POU's code because it cannot act.

(Filled in by the range analysis; until then nothing is left out.)
"""

from __future__ import annotations

from . import ir


class Ranges:
    def __init__(self, code: ir.PouCode):
        self.code = code
        self._aliases: dict = {}

    def plain_arith(self, s: ir.Code):
        return None

    def within(self, e, lo: int, hi: int) -> bool:
        return False

    def alias(self, temp: ir.Temp, value) -> None:
        self._aliases[temp.name] = value

    def aliased(self, temp: ir.Temp, emitter) -> str:
        return temp.name

    def range_loop(self, s: ir.For):
        return None


__all__ = ["Ranges"]
