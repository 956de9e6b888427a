"""One POU's body as one Python function (the scaffolding of the statement and
expression compilers: names, temporaries, indentation, errors)."""

from __future__ import annotations

from .. import types as t
from . import ast as A
from .errors import StSemanticError
from .model import LibraryFb, PouInfo, Var, global_local, local_name
from .stmts import WATCHDOG_ITERATIONS, StmtCompiler


class BodyCompiler(StmtCompiler):
    def __init__(self, ctx, info: PouInfo):
        self.ctx = ctx
        self.info = info
        self.analysis = ctx.analysis
        self.types = ctx.types
        self.variables = info.variables
        self.lines: list[str] = []
        self.indent = 1
        self._n = 0
        self.uses_loops = False
        self.blocks_used: list = []
        self.current_line = info.node.line
        self.inputs_written: set[str] = set()

    # -- scaffolding -------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def tmp(self) -> str:
        self._n += 1
        return f"_t{self._n}"

    def mark(self) -> int:
        return len(self.lines)

    def take(self, mark: int) -> list[str]:
        taken = self.lines[mark:]
        del self.lines[mark:]
        return taken

    def put(self, lines, extra: int = 0) -> None:
        # lines taken at this same indentation: re-indent by what changed since
        pad = "    " * extra
        self.lines.extend(pad + line for line in lines)

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
        for var in self.variables.values():
            loc = getattr(var.node, "location", None)
            if loc is not None and loc.text.upper() == node.text.upper():
                return var
        self.fail(node, f"{node.text} is not located (AT) by a variable of {self.info.label}; "
                        f"name it with AT {node.text} in the POU")

    def member_local(self, var: Var, path: str) -> str:
        return local_name(f"{var.path}.{path}")

    def instance_member(self, var: Var, member: str, node) -> Var:
        fb = var.fb
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

    def global_of(self, name: str, tp, node) -> str:
        mine = self.info.externals.get(name.upper())
        if mine is None:
            self.fail(node, f"global {name} is not reachable from {self.info.label}")
        return global_local(name)

    # -- the function --------------------------------------------------------------
    def returned(self) -> list[str]:
        info = self.info
        if info.kind == "FUNCTION":
            return [local_name(info.name)] + [v.local for v in info.outputs] + \
                   [v.local for v in info.in_outs]
        return [v.local for v in info.kept_inputs] + [v.local for v in info.in_outs] + \
               [global_local(g) for g in info.externals] + [local_name(e.path) for e in info.state]

    def return_statement(self) -> str:
        # what a RETURN hands back depends on the inputs the whole body writes:
        # written out by function_source once the body is compiled
        return f"return {_RETURNED}"

    def _returned_text(self) -> str:
        values = self.returned()
        if self.info.kind == "FUNCTION" and len(values) == 1:
            return values[0]
        return f"({', '.join(values)},)" if values else "()"

    def parameters(self) -> list[str]:
        info = self.info
        params = [v.local for v in info.inputs] + [v.local for v in info.in_outs]
        if info.kind != "FUNCTION":
            params += [global_local(g) for g in info.externals]
            params += [local_name(e.path) for e in info.state]
        return params

    def function_source(self) -> str:
        info = self.info
        if info.kept_inputs is None:
            kept = [] if info.kind == "FUNCTION" else [
                v for v in info.inputs if v.name.upper() in self.inputs_written]
            info.kept_inputs = kept
        body = self.lines
        self.lines = []
        # what each call starts from: copies of array inputs (IEC passes them by
        # value), and the variables a call does not keep
        for v in info.inputs:
            if v.type.canonical.mutable:
                self.emit(f"{v.local} = {self.copied(v.local, v.type)}")
            edge = getattr(v.node, "edge", None)
            if edge is not None:    # R_EDGE / F_EDGE: TRUE in the call that sees the edge
                last = local_name(f"{v.path}__{edge}")
                now_ = "_edge_" + v.local
                self.emit(f"{now_} = {v.local}")
                self.emit(f"{v.local} = {now_} and not {last}" if edge == "R_EDGE"
                          else f"{v.local} = {last} and not {now_}")
                self.emit(f"{last} = {now_}")
        fresh = [v for v in info.variables.values() if v.fb is None and (
            v.section == "VAR_TEMP" or (info.kind == "FUNCTION" and v.section in ("VAR", "VAR_OUTPUT")))]
        for v in fresh:
            self.emit(f"{v.local} = {_fresh_value(v)}")
        if info.kind == "FUNCTION":
            result = Var("", "", "", info.result_type, init=info.result_type.default)
            self.emit(f"{local_name(info.name)} = {_fresh_value(result)}")
        if self.uses_loops:
            self.emit(f"_wd = {WATCHDOG_ITERATIONS}")
        head = self.lines
        self.lines = body
        self.emit(self.return_statement())
        marker, returned = self.return_statement(), f"return {self._returned_text()}"
        body = [line.replace(marker, returned) if line.strip() == marker else line
                for line in self.lines]
        params = ", ".join(["now"] + self.parameters())
        return "\n".join([f"def {info.fn_name}({params}):", *head, *body]) + "\n"


#: stands for what the function returns until the body is compiled (no ST name has it)
_RETURNED = "__st_returned__"


def _fresh_value(v: Var) -> str:
    value = v.init if v.init is not None else v.type.default
    if isinstance(value, list):
        return f"_st_copy({value!r})"
    from ..block import literal
    return literal(value)


__all__ = ["BodyCompiler"]
