"""Calls in ST bodies: standard functions (the library blocks' code), user
functions (their generated functions), and argument binding, formal or
positional. Mixed into :class:`fbd.st.exprs.ExprCompiler`."""

from __future__ import annotations

from .. import types as t
from ..block import REQUIRED, Extensible
from . import ast as A
from . import ir


def same(a: t.DataType, b: t.DataType) -> bool:
    return a is b or a.canonical is b.canonical


#: the library functions whose result type only the context gives (matiec's TRUNC,
#: LEN and FIND have an overload per integer type, picked as an untyped literal's type)
RESULT_FROM_CONTEXT = frozenset({"TRUNC", "LEN", "FIND"})
#: the input that chooses, not gives, a selection's result (SEL's G, MUX's K)
SELECTOR = {"SEL": "G", "MUX": "K"}
#: IEC's table 30, as the operators and the functions ADD and SUB take it in matiec (ADD(tod, t)
#: is ADD_TOD_TIME); not TIME + TOD, not DATE +- TIME, which matiec refuses in either form
DATE_BLOCKS = {("+", t.Kind.TOD, t.Kind.TIME): "ADD_TOD_TIME", ("+", t.Kind.DT, t.Kind.TIME): "ADD_DT_TIME",
               ("-", t.Kind.TOD, t.Kind.TIME): "SUB_TOD_TIME", ("-", t.Kind.DT, t.Kind.TIME): "SUB_DT_TIME",
               ("-", t.Kind.DATE, t.Kind.DATE): "SUB_DATE_DATE", ("-", t.Kind.TOD, t.Kind.TOD): "SUB_TOD_TOD",
               ("-", t.Kind.DT, t.Kind.DT): "SUB_DT_DT"}
_OPERATOR_OF = {"ADD": "+", "SUB": "-"}
_DATES = (t.Kind.TOD, t.Kind.DT, t.Kind.DATE)


def untyped(e, typed_call=None) -> bool:
    """A literal without a type prefix, a call of TRUNC, or an expression or a
    function call of such only (``MAX(1, 3)``, ``SEL(g, 73, 1)``: a selector
    does not count): its type comes from the context, as matiec types it.
    ``typed_call(name)`` says which functions give a type of their own whatever
    their arguments (a conversion, a user FUNCTION: ``LINT_TO_DINT(FIND(...))``
    is a DINT)."""
    cls = e.__class__
    if cls is A.Name:
        return False
    if cls is A.Literal:
        return e.type_name is None and e.kind in ("int", "real", "bool")
    if cls is A.Unary:
        return untyped(e.operand, typed_call)
    if cls is A.Binary:
        return untyped(e.left, typed_call) and untyped(e.right, typed_call)
    if cls is A.Call:
        name = e.name.upper()
        if name in RESULT_FROM_CONTEXT:
            return True
        if typed_call is not None and typed_call(name):
            return False
        selector = SELECTOR.get(name)
        values = [a for k, a in enumerate(e.args)
                  if not (selector and (a.name.upper() == selector if a.name else k == 0))]
        return bool(values) and all(not a.output and untyped(a.value, typed_call) for a in values)
    return False


def context_free_type(e) -> t.DataType | None:
    """The type matiec gives an untyped expression holding a TRUNC where nothing
    else decides it (``TRUNC(r) > 0``, ``0 < TRUNC(r)``): the last of TRUNC's
    overloads, ULINT, unless a negative literal needs LINT. None without a TRUNC:
    literals alone compute as LINT / LREAL (see the literals' rule)."""
    calls, negative = False, False
    todo = [e]
    while todo:
        node = todo.pop()
        if isinstance(node, A.Call):
            if node.name.upper() in RESULT_FROM_CONTEXT:
                calls = True        # its argument is typed: not part of this expression
            else:
                todo += [a.value for a in node.args if not a.output]
        elif isinstance(node, A.Unary):
            negative = negative or (node.op == "-" and isinstance(node.operand, A.Literal))
            todo.append(node.operand)
        elif isinstance(node, A.Binary):
            todo += [node.left, node.right]
        elif isinstance(node, A.Literal) and isinstance(node.value, int) and node.value < 0:
            negative = True
    return (t.LINT if negative else t.ULINT) if calls else None


#: the integer overloads in matiec's order: an untyped call with nothing to type
#: it takes the first that holds every literal beside it (``LT(TRUNC(r), -1)``)
_INT_OVERLOADS = (t.SINT, t.INT, t.DINT, t.LINT, t.USINT, t.UINT, t.UDINT, t.ULINT)


def first_overload(values, family) -> t.DataType | None:
    """The overload matiec picks for the untyped arguments ``values`` of one
    generic input group holding a TRUNC and nothing typed (``LT(TRUNC(r), -1)``
    is LT__BOOL__SINT, ``LT(TRUNC(r), 200)`` LT__BOOL__INT); None without a TRUNC
    (literals alone compute as LINT / LREAL)."""
    literals, todo, calls = [], list(values), False
    while todo:
        node = todo.pop()
        if isinstance(node, A.Call):
            calls = calls or node.name.upper() in RESULT_FROM_CONTEXT
            if node.name.upper() not in RESULT_FROM_CONTEXT:
                todo += [a.value for a in node.args if not a.output]
        elif isinstance(node, A.Unary):
            if node.op == "-" and isinstance(node.operand, A.Literal) and \
                    isinstance(node.operand.value, int):
                literals.append(-node.operand.value)
            else:
                todo.append(node.operand)
        elif isinstance(node, A.Binary):
            todo += [node.left, node.right]
        elif isinstance(node, A.Literal) and isinstance(node.value, int):
            literals.append(node.value)
    if not calls:
        return None
    return next((tp for tp in _INT_OVERLOADS if tp in family
                 and all(tp.min <= v <= tp.max for v in literals)), None)


def enable_args(args):
    """(EN argument, ENO argument, the others) of a formal call."""
    en = next((a for a in args if a.name is not None and a.name.upper() == "EN" and not a.output), None)
    eno = next((a for a in args if a.name is not None and a.name.upper() == "ENO" and a.output), None)
    return en, eno, tuple(a for a in args if a is not en and a is not eno)


class CallCompiler:
    def untyped(self, e) -> bool:
        """:func:`untyped`, knowing this unit's functions."""
        return untyped(e, self.typed_call)

    def typed_call(self, name: str) -> bool:
        """A user FUNCTION, or a library function whose result type is not one of
        its inputs' (a conversion such as LINT_TO_DINT, LEN of a STRING)."""
        if self.ctx.pou_info(name, None, None) is not None:
            return True
        cls, bound = self.ctx.library_function(name)
        if cls is None:
            return False
        return any(not isinstance(p.type, str) or p.type in bound for p in cls.outputs)

    # -- calls -----------------------------------------------------------------
    def call(self, e: A.Call, expected):
        code, tp = self.function_call(e, e.name, e.args, expected)
        if tp is None:
            self.fail(e, f"{e.name} returns no value")
        return code, tp

    def function_call(self, node, name: str, args, expected):
        en, eno, args = enable_args(args)
        if en is None and eno is None:
            return self.plain_function_call(node, name, args, expected)
        # matiec: EN FALSE skips the call, its result is the type's initial value
        # and its outputs are left alone; ENO is EN
        enabled = self.enable(en)
        mark = self.mark()
        code, tp = self.plain_function_call(node, name, args, expected)
        pre = self.take(mark)
        if tp is not None:
            out = self.temp(tp)
            self.emit(ir.If([([], enabled, pre + [ir.SetTemp(out, code)])],
                            [ir.SetTemp(out, ir.Const(tp.default, tp))]))
        else:
            out = None
            self.emit(ir.If([([], enabled, pre + [ir.Eval(code)])], None))
        if eno is not None:
            self.store(eno.value, enabled, t.BOOL, eno)
        return out, tp

    def enable(self, en) -> ir.Temp:
        """EN's value, computed once into a temporary (TRUE when not given)."""
        enabled = self.temp(t.BOOL)
        self.emit(ir.SetTemp(enabled, self.typed(en.value, t.BOOL, 'EN') if en is not None
                             else ir.Const(True, t.BOOL)))
        return enabled

    def plain_function_call(self, node, name: str, args, expected):
        info = self.ctx.pou_info(name, node, self)
        if info is not None:
            if info.kind != "FUNCTION":
                self.fail(node, f"{name} is a {info.kind}, not a function; call an instance of it")
            return self.user_function(node, info, args)
        name = self.overload(name, args)
        cls, bound = self.ctx.library_function(name)
        if cls is None:
            self.fail(node, f"{name} is not a function this engine has")
        return self.library_function(node, name, cls, bound, args, expected)

    def overload(self, name: str, args) -> str:
        """The block a generic function of dates and times is, as its operator's:
        MUL and DIV of a TIME by a number are matiec's overloads MULTIME and
        DIVTIME (``t * n``, ``t / n``), the library's MUL_TIME and DIV_TIME blocks,
        named by either spelling; ADD and SUB of a TOD, DT or DATE are IEC's
        table 30 functions (:data:`DATE_BLOCKS`: ``ADD(tod, t)`` is ADD_TOD_TIME)."""
        upper = name.upper()
        if upper in ("MULTIME", "DIVTIME"):
            return upper[:3] + "_TIME"
        if upper not in ("MUL", "DIV", "ADD", "SUB") or len(args) != 2 or any(a.output for a in args):
            return name
        ports = [(a.name or f"IN{k}").upper() for k, a in enumerate(args, start=1)]
        if sorted(ports) != ["IN1", "IN2"]:
            return name
        first, second = (args[ports.index(p)].value for p in ("IN1", "IN2"))
        kind = self.kind_only(first)
        if upper in ("MUL", "DIV"):
            return f"{upper}_TIME" if kind is t.Kind.TIME else name
        if kind not in _DATES:
            return name
        return DATE_BLOCKS.get((_OPERATOR_OF[upper], kind, self.kind_only(second)), name)

    def kind_only(self, e) -> t.Kind | None:
        """The kind of ``e``'s type, compiled with nothing expected; its code is
        dropped (the call compiles it again)."""
        mark = self.mark()
        _code, tp = self.expr(e, None)
        self.take(mark)
        return None if tp is None else tp.canonical.kind

    def bind_args(self, node, name, ports: list, args, extensible: Extensible | None):
        """{port NAME: Arg} for formal or positional arguments, outputs apart."""
        given, outs = {}, {}
        port_names = [p.name.upper() for p in ports]
        pos = 0
        for arg in args:
            if arg.name is None:
                if extensible is not None and pos >= len(port_names):
                    port_names.append(f"{extensible.prefix}{extensible.start + pos - len(ports) + 0}")
                if pos >= len(port_names):
                    self.fail(arg, f"{name} takes {len(ports)} argument(s); this is one too many")
                given[port_names[pos]] = arg
                pos += 1
            elif arg.name.upper() in ("EN", "ENO"):
                self.fail(arg, f"{arg.name} is an input EN := ... or an output ENO => ...")
            elif arg.output:
                outs[arg.name.upper()] = arg
            else:
                given[arg.name.upper()] = arg
        return given, outs

    def library_function(self, node, name, cls, bound, args, expected):
        group = next((p for p in cls.inputs if isinstance(p, Extensible)), None)
        fixed = [p for p in cls.inputs if not isinstance(p, Extensible)]
        n = None
        if group is not None:
            n = max(group.min, len([a for a in args if not a.output]) - len(fixed))
        probe = cls.__new__(cls)
        probe.n = n
        probe.bound_types = {}
        ports = cls.input_ports(probe) if group is not None else list(cls.inputs)
        given, outs = self.bind_args(node, name, ports, args, None)
        if outs:
            self.fail(node, f"{name} has no outputs to read with '=>'")
        by_name = {p.name.upper(): p for p in ports}
        for k in given:
            if k not in by_name:
                self.fail(given[k], f"{name} has no input {k} (inputs: "
                                    f"{', '.join(p.name for p in ports)})")
        bound = dict(bound)
        codes, given_types = {}, {}
        order = sorted(ports, key=lambda p: self.untyped(given[p.name.upper()].value)
                       if p.name.upper() in given else True)
        for p in order:
            arg = given.get(p.name.upper())
            if arg is None:
                if p.default is REQUIRED:
                    self.fail(node, f"{name}: input {p.name} is not given")
                continue
            want = bound.get(p.type) if isinstance(p.type, str) else p.type
            if want is None and isinstance(p.type, str) and self.untyped(arg.value) and \
                    expected is not None and _is_result_var(cls, p.type):
                want = expected
            if want is None and isinstance(p.type, str) and self.untyped(arg.value) and \
                    not _is_result_var(cls, p.type):
                want = first_overload([given[q.name.upper()].value for q in ports
                                       if q.type == p.type and q.name.upper() in given],
                                      cls.types[p.type])
            code, tp = self.expr(arg.value, want)
            if isinstance(p.type, str):
                if p.type in bound and not same(bound[p.type], tp):
                    self.fail(arg, f"{name}: {p.name} is {tp.name}, but another input makes "
                                   f"it {bound[p.type].name}")
                bound.setdefault(p.type, tp.canonical)
            elif not same(tp, p.type):
                self.fail(arg, f"{name}: {p.name} must be {p.type.name}, not {tp.name}")
            codes[p.name] = code
            given_types[p.name] = tp
        for p in ports:
            if p.name not in codes:
                tp = bound.get(p.type) if isinstance(p.type, str) else p.type
                codes[p.name] = ir.Const(_port_default(p, bound), tp)
            else:   # a parameter of matiec's C function: cut to its type, as C passes it
                want = bound.get(p.type, p.type) if isinstance(p.type, str) else p.type
                codes[p.name] = self.fitted(self.narrow(codes[p.name], want),
                                            given_types[p.name], want)
        for var in cls.types:
            if var not in bound and _is_result_var(cls, var):   # TRUNC's result type
                want = expected if expected is not None else t.ULINT
                if want.canonical not in cls.types[var]:
                    self.fail(node, f"{name} gives one of {cls.types[var]}, not {want.name} "
                                    f"(matiec has no such overload)")
                bound[var] = want.canonical
        return self.block_call(cls, bound, [codes[p.name] for p in ports], node, n)

    def user_function(self, node, info, args):
        given, outs = self.bind_args(node, info.name, info.inputs + info.in_outs, args, None)
        params = []
        for v in info.inputs:
            arg = given.pop(v.name.upper(), None)
            params.append(self.typed(arg.value, v.type, f"{info.name}.{v.name}") if arg is not None
                          else ir.Const(v.init, v.type))
        inout_targets = []
        for v in info.in_outs:
            arg = given.pop(v.name.upper(), None)
            if arg is None:
                self.fail(node, f"{info.name}: VAR_IN_OUT {v.name} must be given a variable")
            code, tp, _var = self.place(arg.value)
            if tp is None or not same(tp, v.type):
                self.fail(arg, f"{info.name}.{v.name} is {v.type.name}; pass a variable of that type")
            params.append(code)
            inout_targets.append(code)
            self.wrote(arg.value)
        if given:
            k = next(iter(given))
            self.fail(given[k], f"{info.name} has no input {k}")
        self.ctx.need(info, self)
        if not info.outputs and not inout_targets and not outs:
            return ir.FnCall(info, params), info.result_type
        call = ir.CallFunction(info, params, self.temp(None).name)
        self.emit(call)
        k = 1
        by_out = {}
        for v in info.outputs:
            by_out[v.name.upper()] = (ir.Item(call, k, v.type), v.type)
            k += 1
        for target, v in zip(inout_targets, info.in_outs):
            self.emit(ir.Assign(target, ir.Item(call, k, v.type)))
            k += 1
        for oname, arg in outs.items():
            if oname not in by_out:
                self.fail(arg, f"{info.name} has no output {oname}")
            self.store(arg.value, *by_out[oname], arg)
        return ir.Item(call, 0, info.result_type), info.result_type


def _is_result_var(cls, var: str) -> bool:
    return any(p.type == var for p in cls.outputs)


def _port_default(p, bound):
    tp = bound.get(p.type) if isinstance(p.type, str) else p.type
    if tp is None:
        return p.default
    return tp.coerce(p.default)


__all__ = ["CallCompiler", "same", "untyped", "context_free_type"]
