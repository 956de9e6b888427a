"""Statements of an ST body as Python statements (see :mod:`fbd.st.compile`).

Loops follow matiec's C, checked with it:

* ``FOR i := a TO b BY s``: ``i := a``, then while ``i + s <= b`` (``>=`` for
  a negative s; without BY, ``i < b``) the body runs, ``i`` stepping by s before
  every run but the first; ``b`` and ``s`` are evaluated again at every test.
  So the body runs for i = a .. b, but not at all when ``a + s > b``
  (``FOR i := 1 TO 1`` runs nothing, as in matiec), ``i`` ends at the last value
  the body saw, and a loop up to the type's maximum never wraps.
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
from ..block import code_lines
from . import ast as A
from .calls import enable_args
from .exprs import ExprCompiler, same

K = t.Kind

#: loop iterations one call of a POU may run (all its loops together)
WATCHDOG_ITERATIONS = 1_000_000


class StmtCompiler(ExprCompiler):

    def statements(self, stmts) -> None:
        start = len(self.lines)
        for s in stmts:
            self.statement(s)
        if len(self.lines) == start:
            self.emit("pass")

    def block(self, stmts) -> None:
        self.indent += 1
        self.statements(stmts)
        self.indent -= 1

    def statement(self, s) -> None:
        self.line_of(s)
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
            self.emit("break")
        elif isinstance(s, A.Continue):
            self.emit("continue")
        elif isinstance(s, A.Return):
            self.emit(self.return_statement())
        elif isinstance(s, A.Pragma):
            pass
        else:
            self.fail(s, f"{type(s).__name__} statements are not supported")

    # -- assignment ---------------------------------------------------------
    def assign(self, s: A.Assign) -> None:
        _dest, dtp, _var = self.place(s.target)
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
    def condition(self, e) -> str:
        code, tp = self.expr(e, t.BOOL)
        if tp.canonical.kind is not K.BOOL:
            self.fail(e, f"a condition must be BOOL, not {tp.name}")
        return code

    def if_(self, branches, else_body) -> None:
        first, rest = branches[0], branches[1:]
        self.emit(f"if {self.condition(first.condition)}:")
        self.block(first.body)
        if rest:
            mark = self.mark()
            cond = self.condition(rest[0].condition)
            pre = self.take(mark)
            if not pre:
                self.emit(f"elif {cond}:")
                self.block(rest[0].body)
                if len(rest) > 1 or else_body is not None:
                    self.emit("else:")
                    self.indent += 1
                    if len(rest) > 1:
                        self.if_(rest[1:], else_body)
                    else:
                        self.statements(else_body)
                    self.indent -= 1
                return
            self.emit("else:")
            self.indent += 1
            self.put(pre, 1)
            self.emit(f"if {cond}:")
            self.block(rest[0].body)
            if len(rest) > 1 or else_body is not None:
                self.emit("else:")
                self.indent += 1
                if len(rest) > 1:
                    self.if_(rest[1:], else_body)
                else:
                    self.statements(else_body)
                self.indent -= 1
            self.indent -= 1
        elif else_body is not None:
            self.emit("else:")
            self.block(else_body)

    def case(self, s: A.Case) -> None:
        code, tp = self.expr(s.selector, None)
        c = tp.canonical
        if c.kind not in (K.INT, K.BITS, K.ENUM):
            self.fail(s.selector, f"CASE needs an integer or enumerated selector, not {tp.name}")
        sel = self.tmp()
        self.emit(f"{sel} = {self.narrow(code, tp)}")   # matiec's C stores it in a variable
        word = "if"
        for branch in s.branches:
            tests = []
            for label in branch.labels:
                if isinstance(label, A.Subrange):
                    tests.append(f"{label.low} <= {sel} <= {label.high}")
                else:
                    value, ltp = self.expr(label, tp)
                    if not same(ltp, tp):
                        self.fail(label, f"the CASE label is {ltp.name}, the selector {tp.name}")
                    tests.append(f"{sel} == {value}")
            self.emit(f"{word} {' or '.join(tests)}:")
            self.block(branch.body)
            word = "elif"
        if s.else_body is not None:
            if word == "if":
                self.statements(s.else_body)
                return
            self.emit("else:")
            self.block(s.else_body)

    # -- loops ----------------------------------------------------------------
    def watchdog(self, node) -> None:
        self.uses_loops = True
        self.emit("_wd -= 1")
        self.emit(f"if _wd < 0: _st_watchdog({self.where(node)!r})")

    def for_(self, s: A.For) -> None:
        var, vtp, _ = self.place(s.variable)
        if vtp is None or vtp.canonical.kind not in (K.INT, K.BITS):
            self.fail(s.variable, "a FOR variable must be an integer")
        self.emit(f"{var} = {self.typed(s.start, vtp, 'FOR start')}")
        self.wrote(s.variable)
        first = self.tmp()
        self.emit(f"{first} = True")
        mark = self.mark()
        # matiec's C tests the end and adds the step as computed (a store cuts the sum)
        end = self.typed(s.end, vtp, "FOR end", narrow=False)
        step = None
        if s.step is not None:
            step = self.typed(s.step, vtp, "FOR step", narrow=False)
        pre = self.take(mark)
        # IEC: the body runs while the variable has not passed the end, so
        # FOR i := 1 TO 1 runs once (matiec's C runs it zero times: its first test
        # is the later ones' "is there a next value"). Later tests ask whether a next
        # value exists before stepping, so a loop up to the type's limit never wraps.
        if step is None:
            first_test, next_test = f"{var} <= {end}", f"{var} < {end}"
        elif step.lstrip("-").isdigit():
            up = int(step) > 0
            first_test = f"{var} {'<=' if up else '>='} {end}"
            next_test = f"{var} + {step} {'<=' if up else '>='} {end}"
        else:
            first_test = f"({var} <= {end} if {step} > 0 else {var} >= {end})"
            next_test = f"({var} + {step} <= {end} if {step} > 0 else {var} + {step} >= {end})"
        test = f"(({first_test}) if {first} else ({next_test}))"
        if pre:
            self.emit("while True:")
            self.indent += 1
            self.put(pre, 1)
            self.emit(f"if not ({test}): break")
        else:
            self.emit(f"while {test}:")
            self.indent += 1
        self.watchdog(s)
        self.emit(f"if {first}: {first} = False")
        self.emit(f"else: {var} = {vtp.canonical.wrap(f'{var} + {step or 1}')}")
        self.statements(s.body)
        self.indent -= 1

    def while_(self, s: A.While) -> None:
        mark = self.mark()
        cond = self.condition(s.condition)
        pre = self.take(mark)
        if pre:
            self.emit("while True:")
            self.indent += 1
            self.put(pre, 1)
            self.emit(f"if not {cond}: break")
        else:
            self.emit(f"while {cond}:")
            self.indent += 1
        self.watchdog(s)
        self.statements(s.body)
        self.indent -= 1

    def repeat(self, s: A.Repeat) -> None:
        mark = self.mark()
        cond = self.condition(s.condition)
        pre = self.take(mark)
        if not _continues(s.body):
            self.emit("while True:")
            self.indent += 1
            self.watchdog(s)
            self.statements(s.body)
            self.put(pre, 1)
            self.emit(f"if {cond}: break")
            self.indent -= 1
            return
        # CONTINUE goes to the UNTIL test (matiec's too): the test is at the top of
        # the Python loop, skipped on the first pass, so `continue` reaches it
        first = self.tmp()
        self.emit(f"{first} = True")
        if pre:     # the test needs statements (a block's code) before it
            self.emit("while True:")
            self.indent += 1
            self.emit(f"if not {first}:")
            self.put(pre, 2)
            self.emit(f"    if {cond}: break")
        else:
            self.emit(f"while {first} or not {cond}:")
            self.indent += 1
        self.emit(f"{first} = False")
        self.watchdog(s)
        self.statements(s.body)
        self.indent -= 1

    # -- calls ------------------------------------------------------------------
    def invoke(self, s: A.Invoke) -> None:
        var = self.variables.get(s.name.upper())
        if var is None or var.fb is None:
            code, _tp = self.function_call(s, s.name, s.args, None)
            if "(" in code and not code.startswith("_t"):
                self.emit(code)
            return
        en, eno, args = enable_args(s.args)
        if en is None and eno is None:
            return self.fb_call(s, var, args)
        enabled = self.enable(en)     # matiec: EN FALSE skips the call; ENO is EN
        mark = self.mark()
        self.fb_call(s, var, args)
        pre = self.take(mark)
        self.emit(f"if {enabled}:")
        self.put(pre or ["    " * self.indent + "pass"], 1)
        if eno is not None:
            self.store(eno.value, enabled, t.BOOL, eno)

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
                self.emit(f"{self.member_local(var, v.path)} = {self.copied(code, v.type)}")
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
        params = [self.member_local(var, v.path) for v in info.inputs] + inouts
        params += [self.global_of(g, tp, node) for g, tp in info.externals.items()]
        state = [self.member_local(var, e.path) for e in info.state]
        kept = [self.member_local(var, v.path) for v in info.kept_inputs]  # what its body wrote
        back = kept + inouts + [self.global_of(g, tp, node) for g, tp in info.externals.items()] \
            + state
        call = f"{info.fn_name}(now{''.join(', ' + p for p in params + state)})"
        self.emit(f"{', '.join(back)}, = {call}" if back else call)
        for oname, arg in outs.items():
            member = info.member(oname)
            if member is None or member.section not in ("VAR_OUTPUT", "VAR_IN_OUT"):
                self.fail(arg, f"{info.name} has no output {oname}")
            self.store(arg.value, self.member_local(var, member.path), member.type, arg)

    def library_fb_call(self, node, var, fb, args) -> None:
        block = fb.block
        ports = block.input_ports()
        given, outs = self.bind_args(node, fb.name, ports, args, None)
        names = {}
        for p in ports:
            local = self.member_local(var, p.name)
            names[p.name] = local
            arg = given.pop(p.name.upper(), None)
            if arg is not None:
                want = fb.member_type(p.name)
                self.emit(f"{local} = {self.typed(arg.value, want, f'{var.name}.{p.name}')}")
        if given:
            k = next(iter(given))
            self.fail(given[k], f"{fb.name} has no input {k} (inputs: "
                                f"{', '.join(p.name for p in ports)})")
        for p in block.output_ports():
            names[p.name] = self.member_local(var, p.name)
        for sv in block.state_vars():
            names[sv.name] = self.member_local(var, sv.name)
        for line in code_lines(block, names, block.bound_types, self.tmp):
            self.emit(line)
        self.uses(block)
        for oname, arg in outs.items():
            pname = fb.member_name(oname)
            if pname is None or fb.ports[oname][0] != "output":
                self.fail(arg, f"{fb.name} has no output {oname}")
            self.store(arg.value, names[pname], fb.member_type(pname), arg)


def _continues(stmts) -> bool:
    """Whether a CONTINUE of this loop (not of an inner one) is in ``stmts``."""
    for s in stmts:
        if isinstance(s, A.Continue):
            return True
        if isinstance(s, A.If):
            if any(_continues(b.body) for b in s.branches) or _continues(s.else_body or ()):
                return True
        elif isinstance(s, A.Case):
            if any(_continues(b.body) for b in s.branches) or _continues(s.else_body or ()):
                return True
    return False


__all__ = ["StmtCompiler", "WATCHDOG_ITERATIONS"]
