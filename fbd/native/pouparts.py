"""A long POU body as native functions of a bounded size (a mixin of
:class:`~.pou.PouLowering`).

LLVM's passes and its code generation hold a whole function at a time; one
function of 100,000 ST statements took gigabytes. A body longer than
:data:`~fbd.st.pyemit.PART_STATEMENTS` statements is cut as the Python
engine cuts it (:func:`fbd.st.ir.pieces`): each piece a function taking the
instance's parameters, called in turn by the POU's own, which hands a fault
up. A RETURN ends its part with :data:`RETURNED`, on which the POU's
function returns too. Parts share nothing but the table: a body stays whole
where a value lives in the call's registers across statements (a loop's
variables and the watchdog's count, an edge input's value this call, an
input the prologue widened).
"""

from __future__ import annotations

from ..st import ir, pyemit
from .values import B

#: what a part returns when a RETURN ended it (a fault's site is positive)
RETURNED = -1


class PouParts:

    def body(self, params: list[str]) -> None:
        """The statements of the body, in the function or in parts of its own."""
        body, size = self.code.body, pyemit.PART_STATEMENTS     # one size for both engines
        if len(body) <= size or not self.splittable(params):
            self.statements(body)
            return
        for k, piece in enumerate(ir.pieces(body, size)):
            name = self.part(k, piece, params)
            code = self.emit(f"call i64 {name}({', '.join(params)})")
            if any(type(s) is ir.Return for s in ir.walk(piece)):
                out, on = self.label("returned"), self.label("part")
                self.branch(B(self.emit(f"icmp eq i64 {code}, {RETURNED}")), out, on)
                self.start(out)
                self.leave("0")
                self.start(on)
            self.returned(code)

    def splittable(self, params: list[str]) -> bool:
        frame = self.frame
        if frame is None or self.code.loops or self.edges or self.cached:
            return False
        names = {p.split()[-1] for p in params}
        return all((v.ptr if hasattr(v, "ptr") else v.ref) in names
                   for v in frame.args.values())

    def part(self, k: int, piece: list, params: list[str]) -> str:
        """Part ``k`` of the body as a function of its own; its LLVM name."""
        name = f"{self.name[:-1]}.part{k}\"" if self.name.endswith('"') else \
            f"{self.name}.part{k}"
        outer = (self.lines, self.allocas, self.temps, self.items, self.terminated,
                 self.returning)
        self.forget()
        self.lines, self.allocas, self.temps, self.items = [], [], {}, {}
        self.terminated, self.returning = False, str(RETURNED)
        try:
            self.statements(piece)
            if not self.terminated:
                self.leave("0")
            self.module.declare(name, params)
            self.module.define(name, "\n".join(
                [f"define internal i64 {name}({', '.join(params)}) {{", "entry:",
                 f"  %trap = getelementptr i64, ptr %s, i64 {self.module.trap_cell}"]
                + self.allocas + self.lines + ["}"]))
        finally:
            (self.lines, self.allocas, self.temps, self.items, self.terminated,
             self.returning) = outer
            self.forget()       # the outer function's block goes on, its values unknown here
        return name


__all__ = ["PouParts", "RETURNED"]
