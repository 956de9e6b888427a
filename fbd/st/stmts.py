"""Statements of an ST body in the engines' form (:mod:`.ir`; see :mod:`fbd.st.compile`).

Loops follow matiec's C, checked with it, but for FOR's first test:

* ``FOR i := a TO b BY s``: ``i := a``; the body runs first if ``i <= b``
  (``>=`` for a negative s), then again while ``i + s <= b`` (without BY,
  ``i < b``), ``i`` stepping by s before every run but the first; ``b`` and
  ``s`` are evaluated again at every test. So the body runs for i = a .. b
  (``FOR i := 1 TO 1`` once, as IEC says; matiec's C runs it zero times, a
  defect docs/st.md records), ``i`` ends at the last value the body saw, and
  a loop up to the type's maximum never wraps.
* ``REPEAT ... UNTIL c`` tests after the body (CONTINUE goes to the test);
  ``WHILE`` before; EXIT leaves the innermost loop; RETURN the POU.

Every loop counts its iterations against the POU's budget of
:data:`WATCHDOG_ITERATIONS` per call: past it the scan stops with an
:class:`~fbd.errors.FbdError` naming the POU and the loop's line, as a
PLC's watchdog stops a task that overruns. The budget is a count, not a
clock, so the same program stops at the same place on every machine.
"""

from __future__ import annotations

from .. import types as t
from . import ast as A
from . import ir
from .calls import enable_args
from .exprs import ExprCompiler, same

K = t.Kind

#: loop iterations one call of a POU may run (all its loops together)
WATCHDOG_ITERATIONS = 1_000_000


class StmtCompiler(ExprCompiler):

    def statements(self, stmts) -> None:
        for s in stmts:
            self.statement(s)

    def block(self, stmts) -> list:
        """The statements of a nested list (a branch, a loop's body), compiled."""
        mark = self.mark()
        self.statements(stmts)
        return self.take(mark)

    def statement(self, s) -> None:
        self.line_of(s)
        self.emit(ir.Line(s))
        if isinstance(s, A.Assign):
            self.assign(s)
        elif isinstance(s, A.Invoke):
            self.invoke(s)
        elif isinstance(s, A.If):
            self.if_(s.branches, s.else_body)
        elif isinstance(s, A.Case):
            self.case(s)
        elif isinstance(s, A.For):
            self.for_(s)
        elif isinstance(s, A.While):
            self.while_(s)
        elif isinstance(s, A.Repeat):
            self.repeat(s)
        elif isinstance(s, A.Exit):
            self.emit(ir.Exit())
        elif isinstance(s, A.Continue):
            self.emit(ir.Continue())
        elif isinstance(s, A.Return):
            self.emit(ir.Return())
        elif isinstance(s, A.Pragma):
            pass
        else:
            self.fail(s, f"{type(s).__name__} statements are not supported")

    # -- assignment ---------------------------------------------------------
    def assign(self, s: A.Assign) -> None:
        # the target's type only: store() writes the target's code (an index's
        # calls and bound checks) once, after the value's, as matiec's C runs it
        target = s.target
        if target.__class__ is A.Name:      # most targets: a name has no code to drop
            dtp = self.lookup(target, target.name).type
        else:
            mark = self.mark()
            _dest, dtp, _var = self.place(target)
            self.take(mark)
        if dtp is None:
            self.fail(s, f"{A.dump(s.target)} is an FB instance; it cannot be assigned")
        code, tp = self.expr(s.value, dtp)
        if not same(tp, dtp):
            hint = ""
            if tp.canonical.kind in (K.INT, K.REAL, K.BITS) and dtp.canonical.kind in (
                    K.INT, K.REAL, K.BITS):
                hint = f" (matiec converts nothing implicitly; use {tp.canonical.name}_TO_" \
                       f"{dtp.canonical.name})"
            self.fail(s, f"cannot assign {tp.name} to {A.dump(s.target)}, which is "
                         f"{dtp.name}{hint}")
        self.store(s.target, code, tp, s)

    # -- IF and CASE --------------------------------------------------------
    def condition(self, e):
        code, tp = self.expr(e, t.BOOL)
        if tp.canonical.kind is not K.BOOL:
            self.fail(e, f"a condition must be BOOL, not {tp.name}")
        return code

    def if_(self, branches, else_body) -> None:
        out = []
        for branch in branches:
            mark = self.mark()
            cond = self.condition(branch.condition)
            pre = self.take(mark)
            out.append((pre, cond, self.block(branch.body)))
        self.emit(ir.If(out, self.block(else_body) if else_body is not None else None))

    def case(self, s: A.Case) -> None:
        code, tp = self.expr(s.selector, None)
        c = tp.canonical
        if c.kind not in (K.INT, K.BITS, K.ENUM):
            self.fail(s.selector, f"CASE needs an integer or enumerated selector, not {tp.name}")
        selector = self.narrow(code, tp)    # matiec's C stores it in a variable
        branches = []
        for branch in s.branches:
            labels = []
            for label in branch.labels:
                if isinstance(label, A.Subrange):
                    labels.append((label.low, label.high))
                    continue
                mark = self.mark()
                value, ltp = self.expr(label, tp)
                if not same(ltp, tp):
                    self.fail(label, f"the CASE label is {ltp.name}, the selector {tp.name}")
                if self.take(mark) or not isinstance(value, ir.Const):
                    self.fail(label, "a CASE label must be a constant")
                labels.append((int(value.value), int(value.value)))
            branches.append((labels, self.block(branch.body)))
        self.emit(ir.Case(selector, branches,
                          self.block(s.else_body) if s.else_body is not None else None))

    # -- loops ----------------------------------------------------------------
    def for_(self, s: A.For) -> None:
        var, vtp, _ = self.place(s.variable)
        if vtp is None or vtp.canonical.kind not in (K.INT, K.BITS):
            self.fail(s.variable, "a FOR variable must be an integer")
        start = self.typed(s.start, vtp, 'FOR start')
        self.wrote(s.variable)
        self.uses_loops = True
        mark = self.mark()
        # matiec's C tests the end and adds the step as computed (a store cuts the sum)
        end = self.typed(s.end, vtp, "FOR end", narrow=False)
        end_pre = self.take(mark)
        step = None
        step_pre = []
        if s.step is not None:
            step = self.typed(s.step, vtp, "FOR step", narrow=False)
            step_pre = self.take(mark)
        body = self.block(s.body)
        self.emit(ir.For(var, start, end_pre, end, step_pre, step, body, self.where(s)))

    def while_(self, s: A.While) -> None:
        mark = self.mark()
        cond = self.condition(s.condition)
        pre = self.take(mark)
        self.uses_loops = True
        self.emit(ir.While(pre, cond, self.block(s.body), self.where(s)))

    def repeat(self, s: A.Repeat) -> None:
        self.uses_loops = True
        mark = self.mark()
        cond = self.condition(s.condition)
        pre = self.take(mark)
        self.emit(ir.Repeat(self.block(s.body), pre, cond, self.where(s)))

    # -- calls ------------------------------------------------------------------
    def invoke(self, s: A.Invoke) -> None:
        var = self.variables.get(s.name.upper())
        if var is None or var.fb is None:
            code, _tp = self.function_call(s, s.name, s.args, None)
            if isinstance(code, ir.FnCall):
                self.emit(ir.Eval(code))
            return
        en, eno, args = enable_args(s.args)
        hidden = self.hidden_eno(var)
        if en is None and eno is None and hidden is None:
            return self.fb_call(s, var, args)
        enabled = self.enable(en)     # ENO is EN
        mark = self.mark()
        self.fb_call(s, var, args)
        # matiec copies the inputs in and the outputs out whatever EN: EN FALSE
        # skips the body alone
        for stmt in self.take(mark):
            body = isinstance(stmt, (ir.Code, ir.CallFb))
            self.emit(ir.If([([], enabled, [stmt])], None) if body else stmt)
        if eno is not None:
            self.store(eno.value, enabled, t.BOOL, eno)
        if hidden is not None:
            self.emit(ir.Assign(ir.Ref(hidden), enabled))

    def fb_call(self, node, var, args) -> None:
        from .model import LibraryFb
        fb = var.fb
        if isinstance(fb, LibraryFb):
            return self.library_fb_call(node, var, fb, args)
        info = fb
        given, outs = self.bind_args(node, info.name, info.inputs + info.in_outs, args, None)
        for v in info.inputs:
            arg = given.pop(v.name.upper(), None)
            if arg is not None:
                code = self.typed(arg.value, v.type, f"{var.name}.{v.name}")
                member = self.member_var(var, v.path, v.type, v.section)
                self.emit(ir.Assign(ir.Ref(member), self.copied(code, v.type)))
        inouts = []
        for v in info.in_outs:
            arg = given.pop(v.name.upper(), None)
            if arg is None:
                self.fail(node, f"{var.name}: VAR_IN_OUT {v.name} must be given a variable")
            code, tp, _ = self.place(arg.value)
            if tp is None or not same(tp, v.type):
                self.fail(arg, f"{info.name}.{v.name} is {v.type.name}; pass a variable of that type")
            inouts.append(code)
            self.wrote(arg.value)
        if given:
            k = next(iter(given))
            self.fail(given[k], f"{info.name} has no input {k}")
        self.ctx.need(info, self)
        for g, tp in info.externals.items():
            self.global_of(g, tp, node)         # reachable from here, or an error
        self.emit(ir.CallFb(var, info, inouts))
        # matiec copies the outputs out first and the in-outs back last: where
        # `f(io := v, q => v)` binds one variable to both, the in-out's value stays
        kept = []
        if outs and inouts:
            for place, v in zip(inouts, info.in_outs):
                kept.append((place, self.temp(v.type)))
                self.emit(ir.SetTemp(kept[-1][1], place))
        for oname, arg in outs.items():
            member = info.member(oname)
            if member is None or member.section not in ("VAR_OUTPUT", "VAR_IN_OUT"):
                self.fail(arg, f"{info.name} has no output {oname}")
            ref = ir.Ref(self.member_var(var, member.path, member.type, member.section))
            self.store(arg.value, ref, member.type, arg)
        for place, value in kept:
            self.emit(ir.Assign(place, value))

    def library_fb_call(self, node, var, fb, args) -> None:
        block = fb.block
        ports = block.input_ports()
        given, outs = self.bind_args(node, fb.name, ports, args, None)
        names = {}
        for p in ports:
            ref = ir.Ref(self.member_var(var, p.name, fb.member_type(p.name), "input"))
            names[p.name] = ref
            arg = given.pop(p.name.upper(), None)
            if arg is not None:
                want = fb.member_type(p.name)
                self.emit(ir.Assign(ref, self.typed(arg.value, want, f'{var.name}.{p.name}')))
        if given:
            k = next(iter(given))
            self.fail(given[k], f"{fb.name} has no input {k} (inputs: "
                                f"{', '.join(p.name for p in ports)})")
        for p in block.output_ports():
            names[p.name] = ir.Ref(self.member_var(var, p.name, fb.member_type(p.name), "output"))
        for sv in block.state_vars():
            names[sv.name] = ir.Ref(self.member_var(var, sv.name, fb.member_type(sv.name),
                                                    "state"))
        self.emit(ir.Code(block, names))
        self.uses(block)
        for oname, arg in outs.items():
            pname = fb.member_name(oname)
            if pname is None or fb.ports[oname][0] != "output":
                self.fail(arg, f"{fb.name} has no output {oname}")
            self.store(arg.value, names[pname], fb.member_type(pname), arg)


__all__ = ["StmtCompiler", "WATCHDOG_ITERATIONS"]
