"""Sequential Function Charts as Structured Text: steps, transitions and action
qualifiers become ST statements over step and action flags, so one compiler
runs every language.

The contract with :mod:`fbd.st.compile`: ``lower_sfc(pou, unit, filename)``
returns the POU with an :class:`~fbd.st.ast.StBody` and one more ``VAR``
block; no TYPE declarations. The chart's flags are ordinary variables of the
POU whose *names contain a dot*, so they are kept, traced and forced by path
like an FB instance's members (``inst.S1.X``):

===================  =====  ==================================================
``S1.X``             BOOL   step S1 is active (TRUE at start for the INITIAL_STEP)
``S1.T``             TIME   how long it has been active (reset when it activates)
``S1.PREV``          BOOL   ``S1.X`` at the start of the scan (activation edges)
``A1.Q``             BOOL   action A1 runs this scan (IEC ed. 3's ``A1.Q``)
``A1.SET`` ...       BOOL   stored-action flags: ``SET RESET STORED`` and the
                            remaining times ``SET_RT RESET_RT`` (TIME), only
                            for actions with S R SL SD DS associations;
                            ``__SFC_v.SET`` ... for a BOOL variable v used as action
``__SFC_TRANSITIONk`` BOOL  transition k (source order) fires this scan
``__SFC_LAST``       TIME   the PLC clock at the previous scan
``__SFC_ELAPSED``    TIME   the time since then
===================  =====  ==================================================

User code reads ``S1.X``, ``S1.T`` (rewritten to those variables, with their
line and column) and, beyond matiec, ``A1.Q`` or ``A1`` (the action flag);
writing any of them is refused. The PLC clock is the intrinsic
``__CURRENT_TIME`` (TIME) the ST compiler provides.

The order within a scan is matiec's (docs/st.md says why it matters).
"""

from __future__ import annotations

import dataclasses

from . import ast as A
from .errors import StSemanticError
from .il_declarations import Declarations
from .il_instructions import IlLowering
from .lower_il import lower_instructions, temp_block

_TIMED = ("L", "D", "SD", "DS", "SL")
_STORED = ("S", "R", "SL", "SD", "DS")
_QUALIFIERS = ("N", "R", "S", "P", "P0", "P1", "L", "D", "SD", "DS", "SL")


def rewrite(node, replace):
    """``node`` with every sub-node ``replace`` maps to something else rebuilt."""
    new = replace(node)
    if new is not None:
        return new
    changes = {}
    for f in dataclasses.fields(node):
        if f.name in ("line", "col", "source"):
            continue
        value = getattr(node, f.name)
        if isinstance(value, A.Node):
            r = rewrite(value, replace)
            if r is not value:
                changes[f.name] = r
        elif isinstance(value, tuple) and any(isinstance(v, A.Node) for v in value):
            items = tuple(rewrite(v, replace) if isinstance(v, A.Node) else v for v in value)
            if any(a is not b for a, b in zip(items, value)):
                changes[f.name] = items
    return dataclasses.replace(node, **changes) if changes else node


class Chart:
    """One chart's lowering: names, then the statements in matiec's order."""

    def __init__(self, pou: A.Pou, unit: A.CompilationUnit, filename: str):
        self.pou, self.filename = pou, filename
        body: A.SfcBody = pou.body
        self.steps = {s.name.upper(): s for s in body.steps}
        self.actions = {a.name.upper(): a for a in body.actions}
        if not any(s.initial for s in body.steps):
            self.fail(body.steps[0] if body.steps else pou, "a chart needs an INITIAL_STEP")
        self.flags: dict[str, A.TypeSpec] = {}
        self.decls: list[A.VarDecl] = []
        self.plain = Declarations(pou, unit)
        for s in body.steps:
            self.declare(s, f"{s.name}.X", "BOOL", s.initial)
            self.declare(s, f"{s.name}.T", "TIME")
            self.declare(s, f"{s.name}.PREV", "BOOL")
        self.targets: dict[str, tuple[str, bool]] = {}     # NAME -> (prefix, is an ACTION)
        self.qualifiers: dict[str, set] = {}
        for s in body.steps:
            for a in s.actions:
                self.association_target(a)
        for a in body.actions:
            self.targets.setdefault(a.name.upper(), (a.name, True))
            self.qualifiers.setdefault(a.name.upper(), set())
        for key, (prefix, is_action) in self.targets.items():
            used = self.qualifiers[key]
            if is_action:
                self.declare(self.actions[key], f"{prefix}.Q", "BOOL")
            if used & set(_STORED):
                where = self.actions[key] if is_action else pou
                for flag in ("SET", "RESET", "STORED"):
                    self.declare(where, f"{prefix}.{flag}", "BOOL")
                if used & {"SD", "DS"}:
                    self.declare(where, f"{prefix}.SET_RT", "TIME")
                if "SL" in used:
                    self.declare(where, f"{prefix}.RESET_RT", "TIME")
        for k, t in enumerate(body.transitions):
            self.declare(t, f"__SFC_TRANSITION{k}", "BOOL")
        self.declare(pou, "__SFC_LAST", "TIME")
        self.declare(pou, "__SFC_ELAPSED", "TIME")
        self.il = IlLowering(Declarations(pou, unit, self.flags), pou, filename)
        self.body = rewrite(body, self.user_name)

    # -- names ---------------------------------------------------------------------------
    def fail(self, node, message):
        raise StSemanticError(message, filename=self.filename, line=node.line, col=node.col,
                              pou=f"{self.pou.kind} {self.pou.name}")

    def declare(self, node, name, type_name, initial=False):
        spec = A.NamedType(name=type_name, line=node.line, col=node.col)
        init = self.lit(node, True) if initial else None
        self.decls.append(A.VarDecl(name=name, spec=spec, init=init, line=node.line, col=node.col))
        self.flags[name.upper()] = spec

    def association_target(self, a: A.ActionAssociation):
        key = a.action.upper()
        qualifier = a.qualifier or "NONE"
        if key in self.actions:
            self.targets.setdefault(key, (self.actions[key].name, True))
        elif key in self.plain.vars:
            self.targets.setdefault(key, (f"__SFC_{a.action}", False))
        else:
            self.fail(a, f"{a.action} is neither an ACTION of this chart nor a BOOL variable")
        if qualifier in _TIMED and a.time is None:
            self.fail(a, f"qualifier {qualifier} needs a time: {a.action}({qualifier}, T#1s)")
        self.qualifiers.setdefault(key, set()).add(qualifier)

    def user_name(self, node):
        """Step and action flags in user code, as the variables that hold them."""
        w = {"line": node.line, "col": node.col}
        if isinstance(node, A.Member) and isinstance(node.base, A.Name):
            key = node.base.name.upper()
            if key in self.steps:
                if node.member.upper() not in ("X", "T"):
                    self.fail(node, f"a step has the flags .X and .T, not .{node.member}")
                return A.Name(name=f"{self.steps[key].name}.{node.member.upper()}", **w)
            if key in self.actions and node.member.upper() == "Q":
                return A.Name(name=f"{self.actions[key].name}.Q", **w)
        if isinstance(node, A.Name):
            key = node.name.upper()
            if key in self.steps:
                self.fail(node, f"{node.name} is a step, not a value; its flags are {node.name}.X and "
                                f"{node.name}.T")
            if key in self.actions:
                return A.Name(name=f"{self.actions[key].name}.Q", **w)
        target = None
        if isinstance(node, A.Assign):
            target = node.target
        elif isinstance(node, A.IlOp) and node.op in ("ST", "STN", "S", "R") and node.operands:
            target = node.operands[0]
        if target is not None:
            if isinstance(target, A.Member) and isinstance(target.base, A.Name) and \
                    target.base.name.upper() in self.steps:
                self.fail(target, f"the flags of step {target.base.name} are read-only")
            if isinstance(target, (A.Name, A.Member)) and _base_name(target) in self.actions:
                self.fail(target, f"the flag of action {_base_name(target)} is read-only")
        return None

    # -- building blocks -------------------------------------------------------------------
    @staticmethod
    def name(node, text):
        return A.Name(name=text, line=node.line, col=node.col)

    @staticmethod
    def lit(node, value):
        w = {"line": node.line, "col": node.col}
        if isinstance(value, bool):
            return A.Literal(kind="bool", value=value, text="TRUE" if value else "FALSE", **w)
        return A.Literal(kind="time", value=0, type_name="TIME", text="T#0s", **w)

    def set(self, node, target, value):
        target = self.name(node, target) if isinstance(target, str) else target
        return A.Assign(target=target, value=value if isinstance(value, A.Node) else self.lit(node, value),
                        line=node.line, col=node.col)

    @staticmethod
    def when(node, condition, body, otherwise=None):
        w = {"line": node.line, "col": node.col}
        return A.If(branches=(A.Branch(condition=condition, body=tuple(body), **w),),
                    else_body=tuple(otherwise) if otherwise is not None else None, **w)

    def all_of(self, node, names):
        expr = None
        for n in names:
            flag = self.name(node, f"{self.steps[n.upper()].name}.X")
            expr = flag if expr is None else A.Binary(op="AND", left=expr, right=flag, line=node.line,
                                                      col=node.col)
        return expr

    def deactivate(self, t: A.Transition) -> list:
        return [self.set(t, f"{self.steps[n.upper()].name}.X", False) for n in t.sources]

    def binary(self, node, op, left, right):
        return A.Binary(op=op, left=left, right=right, line=node.line, col=node.col)

    def not_(self, node, e):
        return A.Unary(op="NOT", operand=e, line=node.line, col=node.col)

    # -- the scan --------------------------------------------------------------------------
    def lower(self) -> list:
        body, pou = self.body, self.pou
        out = []
        now, last, elapsed = (self.name(pou, n) for n in ("__CURRENT_TIME", "__SFC_LAST", "__SFC_ELAPSED"))
        out += [self.set(pou, "__SFC_ELAPSED", self.binary(pou, "-", now, last)),
                self.set(pou, "__SFC_LAST", now)]
        for s in body.steps:                         # steps: edges and times
            x, t = self.name(s, f"{s.name}.X"), self.name(s, f"{s.name}.T")
            out += [self.set(s, f"{s.name}.PREV", x),
                    self.when(s, x, [self.set(s, t, self.binary(s, "+", t, elapsed))])]
        for key, (prefix, is_action) in self.targets.items():      # actions: this scan's requests
            out += self.action_start(self.actions.get(key, pou), prefix, is_action, self.qualifiers[key])
        order = self.priority_order(body.transitions)
        for k in order:                              # transitions: which fire
            out.append(self.transition_test(k, body.transitions[k]))
        for k, t in enumerate(body.transitions):     # then deactivate their sources
            if t.priority is None:
                out.append(self.when(t, self.name(t, f"__SFC_TRANSITION{k}"),
                                     self.deactivate(t)))
        for k, t in enumerate(body.transitions):     # and activate their targets
            sets = []
            for n in t.targets:
                step = self.steps[n.upper()].name
                sets += [self.set(t, f"{step}.X", True), self.set(t, f"{step}.T", self.lit(t, 0))]
            out.append(self.when(t, self.name(t, f"__SFC_TRANSITION{k}"), sets))
        for s in body.steps:                         # associations of each step
            for a in s.actions:
                out += self.association(s, a)
        for key, (prefix, is_action) in self.targets.items():      # stored actions
            if self.qualifiers[key] & set(_STORED):
                out += self.stored(self.actions.get(key, pou), prefix, is_action, self.qualifiers[key])
        for key, (prefix, is_action) in self.targets.items():      # BOOL variables as actions
            if not is_action and self.qualifiers[key] & set(_STORED):
                var = self.name(pou, self.plain_name(key))
                out.append(A.If(branches=(
                    A.Branch(condition=self.name(pou, f"{prefix}.RESET"), body=(self.set(pou, var, False),),
                             line=pou.line, col=pou.col),
                    A.Branch(condition=self.name(pou, f"{prefix}.SET"), body=(self.set(pou, var, True),),
                             line=pou.line, col=pou.col)), else_body=None, line=pou.line, col=pou.col))
        for a in body.actions:                       # action bodies, in their order
            out.append(self.when(a, self.name(a, f"{a.name}.Q"), self.action_body(a)))
        return out

    def plain_name(self, key):
        return next(d.name for vb in self.pou.var_blocks for d in vb.decls
                    if d.name is not None and d.name.upper() == key)

    @staticmethod
    def priority_order(transitions) -> list[int]:
        """matiec's test order: a transition with a priority goes after those of
        lower or equal priority already listed, one without at the end."""
        order: list[tuple[int, int]] = []
        for k, t in enumerate(transitions):
            if t.priority is None:
                order.append((0, k))
                continue
            at = 0
            while at < len(order) and order[at][0] <= t.priority:
                at += 1
            order.insert(at, (t.priority, k))
        return [k for _p, k in order]

    def action_start(self, node, prefix, is_action, used) -> list:
        out = [self.set(node, f"{prefix}.Q", False)] if is_action else []
        if not used & set(_STORED):
            return out
        out += [self.set(node, f"{prefix}.SET", False), self.set(node, f"{prefix}.RESET", False)]
        elapsed, zero = self.name(node, "__SFC_ELAPSED"), self.lit(node, 0)
        for rt, flag in (("SET_RT", "SET"), ("RESET_RT", "RESET")):
            if f"{prefix}.{rt}".upper() not in self.flags:
                continue
            remaining = self.name(node, f"{prefix}.{rt}")
            out.append(self.when(node, self.binary(node, ">", remaining, zero), [
                self.set(node, remaining, self.binary(node, "-", remaining, elapsed)),
                self.when(node, self.binary(node, "<=", remaining, zero), [
                    self.set(node, remaining, zero), self.set(node, f"{prefix}.{flag}", True)])]))
        return out

    def transition_test(self, k, t: A.Transition):
        flag = f"__SFC_TRANSITION{k}"
        for n in (*t.sources, *t.targets):
            if n.upper() not in self.steps:
                named = t.name + " " if t.name else ""
                self.fail(t, f"transition {named}names step {n}, which is not declared")
        if isinstance(t.condition, A.IlBody):
            statements: list = []
            cr, _ = self.il.run(t.condition.instructions, statements)
            cr = self.il.need(cr, t.condition)
        else:
            statements, cr = [], t.condition
        statements.append(self.set(t, flag, cr))
        if t.priority is not None:
            statements.append(self.when(t, self.name(t, flag),
                                        self.deactivate(t)))
        return self.when(t, self.all_of(t, t.sources), statements, [self.set(t, flag, False)])

    def association(self, step: A.Step, a: A.ActionAssociation) -> list:
        prefix, is_action = self.targets[a.action.upper()]
        q = a.qualifier or "NONE"
        x, prev = self.name(a, f"{step.name}.X"), self.name(a, f"{step.name}.PREV")
        activated = self.binary(a, "AND", x, self.not_(a, prev))
        deactivated = self.binary(a, "AND", self.not_(a, x), prev)
        target = f"{prefix}.Q" if is_action else self.plain_name(a.action.upper())

        def put(value):
            return [self.set(a, target, value)]

        if q == "NONE":
            return [self.when(a, x, put(True))] if is_action else []
        if q == "N":
            return [self.when(a, x, put(True)), self.when(a, deactivated, put(False))]
        if q in ("S", "R"):
            return [self.when(a, x, [self.set(a, f"{prefix}.{'SET' if q == 'S' else 'RESET'}", True)])]
        if q in ("L", "D"):
            elapsed = self.name(a, f"{step.name}.T")
            cond = self.binary(a, "AND", x, self.binary(a, "<" if q == "L" else ">=", elapsed, a.time))
            off = self.binary(a, "OR", deactivated, x) if q == "L" else deactivated
            return [A.If(branches=(A.Branch(condition=cond, body=tuple(put(True)), line=a.line, col=a.col),
                                   A.Branch(condition=off, body=tuple(put(False)), line=a.line, col=a.col)),
                         else_body=None, line=a.line, col=a.col)]
        if q in ("P", "P1", "P0"):
            return [self.when(a, deactivated if q == "P0" else activated, put(True), put(False))]
        if q == "SL":
            return [self.when(a, activated, [self.set(a, f"{prefix}.SET", True),
                                             self.set(a, f"{prefix}.RESET_RT", a.time)])]
        if q in ("SD", "DS"):
            out = [self.when(a, activated, [self.set(a, f"{prefix}.SET_RT", a.time)])]
            if q == "DS":
                out.append(self.when(a, deactivated, [self.set(a, f"{prefix}.SET_RT", self.lit(a, 0))]))
            return out
        self.fail(a, f"{q} is not an action qualifier (IEC: {', '.join(_QUALIFIERS)})")

    def stored(self, node, prefix, is_action, used) -> list:
        zero = self.lit(node, 0)
        on_set = [self.set(node, f"{prefix}.STORED", True)]
        on_reset = [self.set(node, f"{prefix}.STORED", False)]
        if f"{prefix}.SET_RT".upper() in self.flags:
            on_set.insert(0, self.set(node, f"{prefix}.SET_RT", zero))
        if f"{prefix}.RESET_RT".upper() in self.flags:
            on_reset.insert(0, self.set(node, f"{prefix}.RESET_RT", zero))
        out = [self.when(node, self.name(node, f"{prefix}.SET"), on_set),
               self.when(node, self.name(node, f"{prefix}.RESET"), on_reset)]
        if is_action:
            q = self.name(node, f"{prefix}.Q")
            out.append(self.set(node, q, self.binary(node, "OR", q, self.name(node, f"{prefix}.STORED"))))
        return out

    def action_body(self, a: A.Action) -> list:
        if isinstance(a.body, A.StBody):
            return list(a.body.statements)
        if isinstance(a.body, A.IlBody):
            return lower_instructions(self.il, a.body.instructions, a.body)
        self.fail(a, f"action {a.name} is itself a chart; an action in SFC is not supported "
                     f"(matiec parses one, but the C it generates for it does not compile)")


def _base_name(target) -> str | None:
    while isinstance(target, (A.Member, A.Index)):
        target = target.base
    return target.name.upper() if isinstance(target, A.Name) else None


def lower_sfc(pou: A.Pou, unit: A.CompilationUnit, filename: str = "<input>") -> A.Pou:
    """``pou`` (whose body is an :class:`~fbd.st.ast.SfcBody`) with an equivalent
    :class:`~fbd.st.ast.StBody`, and the step and action variables declared."""
    if pou.kind == "FUNCTION":
        raise StSemanticError("a FUNCTION cannot be a chart (SFC is for function blocks and programs)",
                              filename=filename, line=pou.line, col=pou.col, pou=f"{pou.kind} {pou.name}")
    chart = Chart(pou, unit, filename)
    statements = chart.lower()
    extra = (A.VarBlock(kind="VAR", qualifier=None, decls=tuple(chart.decls), line=pou.line, col=pou.col),)
    if any(isinstance(i, A.IlJump) for a in chart.body.actions if isinstance(a.body, A.IlBody)
           for i in a.body.instructions):
        extra += (A.VarBlock(kind="VAR", qualifier=None, decls=(
            A.VarDecl(name="__IL_PC", spec=A.NamedType(name="INT"), line=pou.line, col=pou.col),)),)
    body = A.StBody(statements=tuple(statements), line=pou.body.line, col=pou.body.col)
    return dataclasses.replace(pou, var_blocks=pou.var_blocks + extra + temp_block(chart.il), body=body)


__all__ = ["lower_sfc", "rewrite"]
