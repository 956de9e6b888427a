"""One POU's body in the engines' form (:mod:`.ir`): the scaffolding of the
statement and expression compilers (names, temporaries, the list being
written, errors)."""

from __future__ import annotations

from .. import types as t
from . import ast as A
from . import ir
from .errors import StSemanticError
from .model import LibraryFb, PouInfo, Var, eno_path, local_name
from .stmts import StmtCompiler


class BodyCompiler(StmtCompiler):
    def __init__(self, ctx, info: PouInfo):
        self.ctx = ctx
        self.info = info
        self.analysis = ctx.analysis
        self.types = ctx.types
        self.variables = info.variables
        self.lines: list = []          # the statements written so far (ir.Stmt)
        self._n = 0
        self.uses_loops = False
        self.blocks_used: list = []
        self.current_line = info.node.line
        self.inputs_written: set[str] = set()
        self._located: dict[str, Var] | None = None     # location text -> variable
        self._enos: set | None = None     # the paths of the hidden ENOs (eno_path)
        # id(Var) -> its one Ref (which keeps the Var, and so its id, alive)
        self._refs: dict[int, ir.Ref] = {}
        self._consts: dict[tuple[int, int], ir.Const] = {}     # (value, id(type)) -> its one Const
        self._blocks: dict[tuple, tuple] = {}   # see ExprCompiler.block_call

    # -- scaffolding -------------------------------------------------------
    def emit(self, stmt) -> None:
        self.lines.append(stmt)

    def temp(self, tp) -> ir.Temp:
        self._n += 1
        return ir.Temp(f"_t{self._n}", tp)

    def mark(self) -> int:
        return len(self.lines)

    def take(self, mark: int) -> list:
        taken = self.lines[mark:]
        del self.lines[mark:]
        return taken

    def put(self, stmts) -> None:
        self.lines.extend(stmts)

    def fail(self, node, message: str):
        raise StSemanticError(message, filename=self.ctx.filename, line=getattr(node, "line", 0),
                              col=getattr(node, "col", 0), pou=self.info.label,
                              source=self.ctx.unit.source)

    def where(self, node) -> tuple[str, int, str]:
        """(file, line, POU) of ``node``: what a run-time check names when it stops a scan."""
        return self.ctx.filename, getattr(node, "line", 0), self.info.label

    def line_of(self, node) -> None:
        self.current_line = getattr(node, "line", self.current_line)

    def uses(self, block) -> None:
        self.blocks_used.append(block)

    def wrote(self, target) -> None:
        """Note that the body writes ``target`` (a variable, an element, a member)."""
        while isinstance(target, (A.Member, A.Index)):
            target = target.base
        if isinstance(target, A.Name):
            var = self.variables.get(target.name.upper())
            if var is not None and any(var is v for v in self.info.inputs):
                self.inputs_written.add(var.name.upper())

    # -- names -----------------------------------------------------------------
    def lookup(self, node, name: str) -> Var:
        var = self.variables.get(name.upper())
        if var is None:
            if name.upper() == "__CURRENT_TIME":
                return Var("__CURRENT_TIME", "__CURRENT_TIME", "now", t.TIME, constant=True)
            sym = self.analysis.symbol(node) if self.analysis is not None else None
            if sym is not None and sym.kind == "enum_value":
                self.fail(node, f"{name} is an enumerated value, not a variable")
            self.fail(node, f"{name} is not a variable of {self.info.label}")
        return var

    def located(self, node: A.DirectVar) -> Var:
        if self._located is None:     # made once: a scan of the variables per use was quadratic
            self._located = {}
            for var in self.variables.values():
                loc = getattr(var.node, "location", None)
                if loc is not None:
                    self._located.setdefault(loc.text.upper(), var)
        var = self._located.get(node.text.upper())
        if var is not None:
            return var
        self.fail(node, f"{node.text} is not located (AT) by a variable of {self.info.label}; "
                        f"name it with AT {node.text} in the POU")

    def member_var(self, var: Var, path: str, tp, section: str) -> Var:
        """The variable ``path`` of the FB instance ``var``."""
        full = f"{var.path}.{path}"
        return Var(path.rsplit(".", 1)[-1], full, local_name(full), tp, section=section)

    def hidden_eno(self, var: Var) -> Var | None:
        """The BOOL holding the instance's ENO, where this POU reads it."""
        if self._enos is None:      # made once: a scan of the state per call was quadratic
            self._enos = {e.path for e in self.info.state if e.path.endswith("__ENO")}
        path = eno_path(var.path)
        if path not in self._enos:
            return None
        return Var("ENO", path, local_name(path), t.BOOL, section="VAR")

    def instance_member(self, var: Var, member: str, node) -> Var:
        fb = var.fb
        if member.upper() == "ENO":
            hidden = self.hidden_eno(var)
            if hidden is not None:
                return hidden
        if isinstance(fb, LibraryFb):
            pname = fb.member_name(member)
            inner = fb.inner(member) if pname is None else None
            if inner is not None:
                path = f"{var.path}.{member}"
                return Var(member, path, local_name(path), None, fb=inner)
            if pname is None:
                self.fail(node, f"{var.name} is a {fb.name}, which has no variable {member} "
                                f"(it has {', '.join(p for p in fb.ports)})")
            path = f"{var.path}.{pname}"
            return Var(pname, path, local_name(path), fb.member_type(pname),
                       section=fb.ports[member.upper()][0])
        inner = fb.member(member)
        if inner is None or inner.section in ("VAR_TEMP", "VAR_IN_OUT", "VAR_EXTERNAL"):
            self.fail(node, f"{var.name} is a {fb.name}, which has no readable variable {member}")
        path = f"{var.path}.{inner.path}"
        return Var(inner.name, path, local_name(path), inner.type, section=inner.section,
                   fb=inner.fb, constant=inner.constant)

    def global_of(self, name: str, tp, node) -> None:
        """Check that the global ``name`` is reachable here."""
        if self.info.externals.get(name.upper()) is None:
            self.fail(node, f"global {name} is not reachable from {self.info.label}")

    # -- the result ------------------------------------------------------------------
    def finish(self) -> ir.PouCode:
        """The body written, and the inputs its instances keep (``info.kept_inputs``)."""
        info = self.info
        if info.kept_inputs is None:
            info.kept_inputs = [] if info.kind == "FUNCTION" else [
                v for v in info.inputs if v.name.upper() in self.inputs_written]
        return ir.PouCode(info, self.lines, self.uses_loops, self._n)


__all__ = ["BodyCompiler"]
