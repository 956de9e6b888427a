"""Parse-time construction of the syntax tree (lark calls these at each reduction).

Every rule of grammar.lark that is not inlined has a method here, which gets
the rule's children (tokens and nodes already built) and returns a node. The
parser runs these while it parses, so no parse tree is ever built. Nodes that
nest (expressions, statements with bodies, deferred IL) have their depth
recorded, and a node deeper than :data:`~fbd.st.ast.MAX_DEPTH` stops the
parse with a clear error instead of a RecursionError later.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from lark import Token

from . import ast as A
from . import literals as lit

#: binding strength of the binary operators; all are left-associative (** too, as in matiec)
PRECEDENCE = {
    "POWER": 8, "STAR": 7, "SLASH": 7, "MOD": 7, "PLUS": 6, "MINUS": 6,
    "LESS": 5, "GREATER": 5, "LESS_EQ": 5, "GREATER_EQ": 5, "EQUALS": 4, "NOT_EQUAL": 4,
    "AND": 3, "AMP": 3, "XOR": 2, "OR": 1,
}
_OPERATORS = {
    "OR": "OR", "XOR": "XOR", "AND": "AND", "AMP": "AND", "EQUALS": "=", "NOT_EQUAL": "<>",
    "LESS": "<", "GREATER": ">", "LESS_EQ": "<=", "GREATER_EQ": ">=", "PLUS": "+",
    "MINUS": "-", "STAR": "*", "SLASH": "/", "MOD": "MOD", "POWER": "**",
}
_IL_OPERATORS = {"AMP": "AND", "AMP_N": "ANDN"}
_CANONICAL_TYPES = {"TIME_OF_DAY": "TOD", "DATE_AND_TIME": "DT"}
_IL_NODES = (A.IlLabel, A.IlOp, A.IlDeferred, A.IlFunction, A.IlFormalCall, A.IlCall,
             A.IlJump, A.IlReturn, A.Pragma)
_TYPE_NODES = (A.NamedType, A.StringType, A.SubrangeType, A.EnumType, A.ArrayType, A.StructType)


class PositionedError(Exception):
    """Raised during the parse; the parser adds file name, POU and excerpt."""

    def __init__(self, message: str, line: int, col: int, nesting: bool = False):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.nesting = nesting


# Markers that only live until their parent rule is reduced.
@dataclass(frozen=True, slots=True)
class _Else:
    body: tuple


@dataclass(frozen=True, slots=True)
class _CaseHead:
    labels: tuple
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class _Qualifier:
    name: str
    time: object


@dataclass(frozen=True, slots=True)
class _Priority:
    value: int


@dataclass(frozen=True, slots=True)
class _Steps:
    names: tuple


@dataclass(frozen=True, slots=True)
class _TaskValue:
    which: str
    value: object


@dataclass(frozen=True, slots=True)
class _VarConfig:
    inits: tuple


@dataclass(frozen=True, slots=True)
class _Extensible:
    name: Token
    first: int


def _named(n, **fields) -> A.VarDecl:
    if isinstance(n, _Extensible):
        return A.VarDecl(name=str(n.name), extensible=n.first, **fields, **_at(n.name))
    return A.VarDecl(name=str(n), **fields, **_at(n))


def _at(tok: Token) -> dict:
    return {"line": tok.line, "col": tok.column}


def _pos(node) -> dict:
    return {"line": node.line, "col": node.col}


def _literal_error(e: lit.LiteralError, tok: Token) -> PositionedError:
    return PositionedError(e.message, tok.line, tok.column + e.offset)


def literal_from_token(tok: Token) -> A.Literal | A.EnumLiteral:
    """The literal node of a literal token (TYPED_NUMBER, DURATION, SSTRING, ...)."""
    kind = tok.type
    text = str(tok)
    where = _at(tok)
    try:
        if kind == "BASED":
            return A.Literal(kind="int", value=lit.based(text), text=text, **where)
        if kind == "TYPED_NUMBER":
            type_name, value_kind, value = lit.typed_number(text)
            return A.Literal(kind=value_kind, value=value, type_name=type_name, text=text, **where)
        if kind == "DURATION":
            type_name, ns = lit.duration(text)
            return A.Literal(kind=type_name.lower(), value=ns, type_name=type_name, text=text, **where)
        if kind == "DATE_LIT":
            return A.Literal(kind="date", value=lit.date(text), type_name="DATE", text=text, **where)
        if kind == "TOD_LIT":
            return A.Literal(kind="tod", value=lit.time_of_day(text), type_name="TOD", text=text, **where)
        if kind == "DT_LIT":
            return A.Literal(kind="dt", value=lit.date_and_time(text), type_name="DT", text=text, **where)
        if kind == "SSTRING":
            return A.Literal(kind="string", value=lit.string(text), text=text, **where)
        if kind == "DSTRING":
            return A.Literal(kind="wstring", value=lit.string(text), text=text, **where)
        if kind in ("TRUE", "FALSE"):
            return A.Literal(kind="bool", value=kind == "TRUE", text=text, **where)
        if kind == "TYPED_ENUM":
            type_name, _, value = text.partition("#")
            return A.EnumLiteral(type_name=type_name, value=value, **where)
    except lit.LiteralError as e:
        raise _literal_error(e, tok) from None
    raise AssertionError(f"not a literal token: {kind}")


class AstBuilder:
    """The callbacks lark calls on each reduction (one per grammar rule)."""

    def __init__(self):
        self._local = threading.local()

    def reset(self) -> None:
        """Forget the depths of the last parse (call before each parse)."""
        self._local.depth = {}

    # -- depth bookkeeping ------------------------------------------------------
    def _nested(self, node, kids):
        depth = self._local.depth
        d = 0
        for k in kids:
            x = depth.get(id(k), 0)
            if x > d:
                d = x
        d += 1
        if d > A.MAX_DEPTH:
            raise PositionedError(f"nested more than {A.MAX_DEPTH} levels deep; split the expression "
                                  "or statement (use intermediate variables)",
                                  node.line, node.col, nesting=True)
        depth[id(node)] = d
        return node

    # -- texts ------------------------------------------------------------------
    def start(self, ch):
        out = []
        for c in ch:
            if isinstance(c, list):
                out.extend(c)
            else:
                out.append(c)
        return tuple(out)

    def st_text(self, ch):
        stmts = ch[0]
        return A.StBody(statements=stmts, **_pos(stmts[0]))

    def il_text(self, ch):
        return A.IlBody(instructions=tuple(ch), **(_pos(ch[0]) if ch else {}))

    def sfc_text(self, ch):
        return self._sfc(ch, None)

    def expression_text(self, ch):
        return ch[0]

    # -- data types -------------------------------------------------------------
    def type_block(self, ch):
        return list(ch)

    def type_decl(self, ch):
        return A.TypeDecl(name=str(ch[0]), spec=ch[1], init=ch[2] if len(ch) > 2 else None, **_at(ch[0]))

    def elementary_type(self, ch):
        tok = ch[0]
        name = tok.type
        return A.NamedType(name=_CANONICAL_TYPES.get(name, name), **_at(tok))

    def named_type(self, ch):
        c = ch[0]
        if isinstance(c, A.NamedType):
            return c
        return A.NamedType(name=str(c), **_at(c))

    def subrange_type(self, ch):
        return A.SubrangeType(base=ch[0], range=ch[1], **_pos(ch[0]))

    def subrange(self, ch):
        low, high = ch
        return A.Subrange(low=low.value, high=high.value, **_pos(low))

    def enum_type(self, ch):
        return A.EnumType(members=tuple(ch), **_pos(ch[0]))

    def enum_member(self, ch):
        return A.EnumMember(name=str(ch[0]), **_at(ch[0]))

    def array_type(self, ch):
        return A.ArrayType(ranges=tuple(ch[:-1]), element=ch[-1], **_pos(ch[0]))

    def string_type(self, ch):
        kw, size = ch
        return A.StringType(wide=kw.type == "WSTRING", length=lit.integer(str(size)), **_at(kw))

    def struct_spec(self, ch):
        return A.StructType(members=tuple(ch), **_pos(ch[0]))

    def struct_member(self, ch):
        return A.VarDecl(name=str(ch[0]), spec=ch[1], init=ch[2] if len(ch) > 2 else None, **_at(ch[0]))

    def array_init(self, ch):
        items = tuple(c if isinstance(c, A.ArrayInitItem)
                      else self._nested(A.ArrayInitItem(count=None, value=c, **_pos(c)), (c,)) for c in ch)
        return self._nested(A.ArrayInit(items=items, **_pos(items[0])), items)

    def repeated_init(self, ch):
        node = A.ArrayInitItem(count=lit.integer(str(ch[0])), value=ch[1] if len(ch) > 1 else None,
                               **_at(ch[0]))
        return self._nested(node, ch[1:])

    def struct_init(self, ch):
        return self._nested(A.StructInit(fields=tuple(ch), **_pos(ch[0])), ch)

    def field_init(self, ch):
        return self._nested(A.FieldInit(name=str(ch[0]), value=ch[1], **_at(ch[0])), ch[1:])

    # -- variables ----------------------------------------------------------------
    def var_block(self, ch):
        kind = ch[0]
        qualifier = None
        decls: list = []
        for c in ch[1:]:
            if isinstance(c, Token):
                qualifier = c.type
            else:
                decls.extend(c)
        return A.VarBlock(kind=kind.type, qualifier=qualifier, decls=tuple(decls), **_at(kind))

    def var_kind(self, ch):
        return ch[0]

    def var_qualifier(self, ch):
        return ch[0]

    def var_names(self, ch):
        return ch

    def extensible_name(self, ch):
        return _Extensible(ch[0], lit.integer(str(ch[1])))

    def var_decl(self, ch):
        names, spec = ch[0], ch[1]
        init = ch[2] if len(ch) > 2 else None
        return [_named(n, spec=spec, init=init) for n in names]

    def edge_decl(self, ch):
        names, bool_tok, edge = ch
        spec = A.NamedType(name="BOOL", **_at(bool_tok))
        return [_named(n, spec=spec, edge=edge.type) for n in names]

    def located_decl(self, ch):
        name = ch[0] if isinstance(ch[0], Token) else None
        rest = ch[1:] if name is not None else ch
        location, spec = rest[0], rest[1]
        init = rest[2] if len(rest) > 2 else None
        where = _at(name) if name is not None else _pos(location)
        return [A.VarDecl(name=str(name) if name is not None else None, spec=spec, init=init,
                          location=location, **where)]

    def location(self, ch):
        return _direct(ch[0])

    # -- POUs ---------------------------------------------------------------------
    def pou(self, ch):
        kw, name = ch[0], ch[1]
        kind = kw.type
        rest = ch[2:]
        return_type = None
        if kind == "FUNCTION":
            return_type, rest = rest[0], rest[1:]
        return A.Pou(kind=kind, name=str(name), return_type=return_type,
                     var_blocks=tuple(rest[:-1]), body=rest[-1], **_at(kw))

    def st_body(self, ch):
        stmts = ch[1]
        return self._nested(A.StBody(statements=stmts, **_pos(stmts[0])), stmts)

    def il_body(self, ch):
        instructions = tuple(ch[1:])
        return self._nested(A.IlBody(instructions=instructions, **_pos(instructions[0])), instructions)

    def sfc_body(self, ch):
        return self._sfc(ch[1:], ch[0])

    def _sfc(self, elements, start):
        steps = tuple(e for e in elements if isinstance(e, A.Step))
        transitions = tuple(e for e in elements if isinstance(e, A.Transition))
        actions = tuple(e for e in elements if isinstance(e, A.Action))
        node = A.SfcBody(steps=steps, transitions=transitions, actions=actions, **_pos(elements[0]))
        return self._nested(node, (*transitions, *actions))

    # -- statements ---------------------------------------------------------------
    def statement_list(self, ch):
        return tuple(ch)

    def pragma(self, ch):
        tok = ch[0]
        text = str(tok)
        cut = 2 if text.startswith("{{") else 1
        return A.Pragma(text=text[cut:-cut], **_at(tok))

    def assignment(self, ch):
        target, value = ch
        return self._nested(A.Assign(target=target, value=value, **_pos(target)), ch)

    def invocation(self, ch):
        args = ch[1] if len(ch) > 1 else ()
        node = A.Invoke(name=str(ch[0]), args=args, **_at(ch[0]))
        return self._nested(node, args)

    def if_stmt(self, ch):
        kw, cond, body = ch[0], ch[1], ch[2]
        branches = [A.Branch(condition=cond, body=body, **_at(kw))]
        else_body = None
        kids = [cond, *body]
        for c in ch[3:]:
            if isinstance(c, _Else):
                else_body = c.body
                kids.extend(c.body)
            else:
                branches.append(c)
                kids.append(c.condition)
                kids.extend(c.body)
        return self._nested(A.If(branches=tuple(branches), else_body=else_body, **_at(kw)), kids)

    def elsif_branch(self, ch):
        return A.Branch(condition=ch[1], body=ch[2], **_at(ch[0]))

    def else_branch(self, ch):
        return _Else(ch[1])

    def case_stmt(self, ch):
        kw, selector = ch[0], ch[1]
        branches = []
        else_body = None
        head = None
        body: list = []
        kids = [selector]

        def close():
            if not body:
                raise PositionedError("a CASE label needs at least one statement after its ':'",
                                      head.line, head.col)
            branches.append(A.CaseBranch(labels=head.labels, body=tuple(body), line=head.line,
                                         col=head.col))

        for c in ch[2:]:
            if isinstance(c, _CaseHead):
                if head is not None:
                    close()
                head, body = c, []
            elif isinstance(c, _Else):
                else_body = c.body
                kids.extend(c.body)
            else:
                body.append(c)
                kids.append(c)
        close()
        return self._nested(A.Case(selector=selector, branches=tuple(branches), else_body=else_body,
                                   **_at(kw)), kids)

    def case_head(self, ch):
        labels = tuple(literal_from_token(c) if isinstance(c, Token) else c for c in ch)
        return _CaseHead(labels, labels[0].line, labels[0].col)

    def case_range(self, ch):
        low, high = ch
        return A.Subrange(low=low.value, high=high.value, **_pos(low))

    def enum_label(self, ch):
        return A.Name(name=str(ch[0]), **_at(ch[0]))

    def for_stmt(self, ch):
        kw, var = ch[0], ch[1]
        start, end = ch[2], ch[3]
        step = ch[4] if len(ch) == 6 else None
        body = ch[-1]
        node = A.For(variable=A.Name(name=str(var), **_at(var)), start=start, end=end, step=step,
                     body=body, **_at(kw))
        return self._nested(node, [start, end, step, *body])

    def while_stmt(self, ch):
        kw, cond, body = ch
        return self._nested(A.While(condition=cond, body=body, **_at(kw)), [cond, *body])

    def repeat_stmt(self, ch):
        kw, body, cond = ch
        return self._nested(A.Repeat(body=body, condition=cond, **_at(kw)), [cond, *body])

    def exit_stmt(self, ch):
        return A.Exit(**_at(ch[0]))

    def continue_stmt(self, ch):
        return A.Continue(**_at(ch[0]))

    def return_stmt(self, ch):
        return A.Return(**_at(ch[0]))

    # -- expressions --------------------------------------------------------------
    def operators(self, ch):
        """``a op b op c ...`` into a tree, by precedence (operator-precedence
        parsing, without recursion)."""
        operands = [ch[0]]
        pending: list = []
        precedence = PRECEDENCE

        def reduce():
            op = pending.pop()
            right = operands.pop()
            left = operands.pop()
            node = A.Binary(op=_OPERATORS[op.type], left=left, right=right, line=left.line, col=left.col)
            operands.append(self._nested(node, (left, right)))

        for i in range(1, len(ch), 2):
            op = ch[i]
            strength = precedence[op.type]
            while pending and precedence[pending[-1].type] >= strength:
                reduce()
            pending.append(op)
            operands.append(ch[i + 1])
        while pending:
            reduce()
        return operands[0]

    def negate(self, ch):
        return self._nested(A.Unary(op="-", operand=ch[1], **_at(ch[0])), ch[1:])

    def complement(self, ch):
        return self._nested(A.Unary(op="NOT", operand=ch[1], **_at(ch[0])), ch[1:])

    def call(self, ch):
        name = ch[0]
        args = ch[1] if len(ch) > 1 else ()
        spelled = name.type if name.type != "IDENT" else str(name)
        return self._nested(A.Call(name=spelled, args=args, **_at(name)), args)

    def formal_args(self, ch):
        return tuple(ch)

    def positional_args(self, ch):
        return tuple(self._nested(A.Arg(name=None, value=e, **_pos(e)), (e,)) for e in ch)

    def input_arg(self, ch):
        name, value = ch
        return self._nested(A.Arg(name=str(name), value=value, **_at(name)), (value,))

    def output_arg(self, ch):
        negated = len(ch) == 3
        name, target = ch[-2], ch[-1]
        return self._nested(A.Arg(name=str(name), value=target, output=True, negated=negated,
                                  **_at(ch[0])), (target,))

    def name(self, ch):
        tok = ch[0]
        return A.Name(name=str(tok), line=tok.line, col=tok.column)

    def direct(self, ch):
        return _direct(ch[0])

    def index(self, ch):
        base = ch[0]
        return self._nested(A.Index(base=base, indices=tuple(ch[1:]), **_pos(base)), ch)

    def member(self, ch):
        base, field = ch
        return self._nested(A.Member(base=base, member=str(field), **_pos(base)), (base,))

    def signed_int(self, ch):
        tok = ch[-1]
        try:
            value = lit.integer(str(tok))
        except lit.LiteralError as e:
            raise _literal_error(e, tok) from None
        first = ch[0]
        if len(ch) == 2 and first.type == "MINUS":
            value = -value
        text = "".join(str(c) for c in ch)
        return A.Literal(kind="int", value=value, text=text, **_at(first))

    def signed_real(self, ch):
        tok = ch[-1]
        text = "".join(str(c) for c in ch)
        try:
            value = lit.real(text)
        except lit.LiteralError as e:
            raise _literal_error(e, tok) from None
        return A.Literal(kind="real", value=value, text=text, **_at(ch[0]))

    def literal(self, ch):
        return literal_from_token(ch[0])

    # -- IL ---------------------------------------------------------------------
    def il_label(self, ch):
        return A.IlLabel(name=str(ch[0]), **_at(ch[0]))

    def il_op(self, ch):
        op = ch[0]
        return A.IlOp(op=_IL_OPERATORS.get(op.type, op.type), operands=tuple(ch[1:]), **_at(op))

    def il_deferred(self, ch):
        op = ch[0]
        operand = None
        rest = ch[1:]
        if rest and not isinstance(rest[0], _IL_NODES):
            operand, rest = rest[0], rest[1:]
        node = A.IlDeferred(op=_IL_OPERATORS.get(op.type, op.type), operand=operand,
                            body=tuple(rest), **_at(op))
        return self._nested(node, rest)

    def il_function(self, ch):
        return A.IlFunction(name=str(ch[0]), operands=tuple(ch[1:]), **_at(ch[0]))

    def il_formal_call(self, ch):
        name = ch[0]
        spelled = str(name) if name.type == "IDENT" else _IL_OPERATORS.get(name.type, name.type)
        args = tuple(ch[1:])
        return self._nested(A.IlFormalCall(name=spelled, args=args, **_at(name)), args)

    def il_call(self, ch):
        op, fb = ch[0], ch[1]
        args: list = []
        for c in ch[2:]:
            if isinstance(c, tuple):
                args.extend(c)
            else:
                args.append(c)
        return self._nested(A.IlCall(op=op.type, fb=str(fb), args=tuple(args), **_at(op)), args)

    def il_operands(self, ch):
        return tuple(A.IlArg(name=None, value=c, **_pos(c)) for c in ch)

    def il_input(self, ch):
        name = ch[0]
        rest = ch[1:]
        if len(rest) == 1 and not isinstance(rest[0], _IL_NODES):
            return A.IlArg(name=str(name), value=rest[0], **_at(name))
        node = A.IlArg(name=str(name), value=None, body=tuple(rest), **_at(name))
        return self._nested(node, rest)

    def il_output(self, ch):
        negated = len(ch) == 3
        name, target = ch[-2], ch[-1]
        return A.IlArg(name=str(name), value=target, output=True, negated=negated, **_at(ch[0]))

    def il_jump(self, ch):
        return A.IlJump(op=ch[0].type, label=str(ch[1]), **_at(ch[0]))

    def il_return(self, ch):
        return A.IlReturn(op=ch[0].type, **_at(ch[0]))

    # -- SFC ----------------------------------------------------------------------
    def step(self, ch):
        kw, name = ch[0], ch[1]
        return A.Step(name=str(name), initial=kw.type == "INITIAL_STEP", actions=tuple(ch[2:]), **_at(kw))

    def action_association(self, ch):
        name = ch[0]
        qualifier = None
        time = None
        rest = ch[1:]
        if rest and isinstance(rest[0], _Qualifier):
            qualifier, time = rest[0].name, rest[0].time
            rest = rest[1:]
        return A.ActionAssociation(action=str(name), qualifier=qualifier, time=time,
                                   indicators=tuple(rest), **_at(name))

    def plain_qualifier(self, ch):
        return _Qualifier(ch[0].type, None)

    def timed_qualifier(self, ch):
        qualifier, time = ch
        if isinstance(time, Token):
            time = literal_from_token(time)
        return _Qualifier(qualifier.type, time)

    def transition(self, ch):
        kw = ch[0]
        name = None
        priority = None
        steps = []
        condition = None
        for c in ch[1:]:
            if isinstance(c, Token):
                name = str(c)
            elif isinstance(c, _Priority):
                priority = c.value
            elif isinstance(c, _Steps):
                steps.append(c.names)
            else:
                condition = c
        node = A.Transition(name=name, priority=priority, sources=steps[0], targets=steps[1],
                            condition=condition, **_at(kw))
        return self._nested(node, (condition,))

    def transition_priority(self, ch):
        return _Priority(lit.integer(str(ch[1])))

    def steps(self, ch):
        return _Steps(tuple(str(c) for c in ch))

    def il_condition(self, ch):
        instructions = tuple(ch[1:])
        return self._nested(A.IlBody(instructions=instructions, **_pos(instructions[0])), instructions)

    def action(self, ch):
        kw, name, body = ch
        return self._nested(A.Action(name=str(name), body=body, **_at(kw)), (body,))

    # -- configuration ------------------------------------------------------------
    def configuration(self, ch):
        name = ch[0]
        blocks, resources, tasks, programs, var_config = [], [], [], [], ()
        for c in ch[1:]:
            if isinstance(c, A.VarBlock):
                blocks.append(c)
            elif isinstance(c, A.Resource):
                resources.append(c)
            elif isinstance(c, A.Task):
                tasks.append(c)
            elif isinstance(c, A.ProgramInstance):
                programs.append(c)
            elif isinstance(c, _VarConfig):
                var_config = c.inits
        if programs:   # the single-resource form: tasks and programs directly in the configuration
            resources.append(A.Resource(name=None, processor=None, var_blocks=(), tasks=tuple(tasks),
                                        programs=tuple(programs), **_pos(tasks[0] if tasks else programs[0])))
        return A.Configuration(name=str(name), var_blocks=tuple(blocks), resources=tuple(resources),
                               var_config=var_config, **_at(name))

    def resource(self, ch):
        name, processor = ch[0], ch[1]
        blocks = tuple(c for c in ch[2:] if isinstance(c, A.VarBlock))
        tasks = tuple(c for c in ch[2:] if isinstance(c, A.Task))
        programs = tuple(c for c in ch[2:] if isinstance(c, A.ProgramInstance))
        return A.Resource(name=str(name), processor=str(processor), var_blocks=blocks, tasks=tasks,
                          programs=programs, **_at(name))

    def task(self, ch):
        name = ch[0]
        single = interval = None
        for c in ch[1:]:
            if isinstance(c, _TaskValue):
                if c.which == "SINGLE":
                    single = c.value
                else:
                    interval = c.value
        priority = lit.integer(str(ch[-1]))
        return A.Task(name=str(name), single=single, interval=interval, priority=priority, **_at(name))

    def task_single(self, ch):
        return _TaskValue("SINGLE", _value(ch[1]))

    def task_interval(self, ch):
        return _TaskValue("INTERVAL", _value(ch[1]))

    def program_config(self, ch):
        retain = None
        names = []
        connections, fb_tasks = [], []
        for c in ch[1:]:
            if isinstance(c, Token):
                if c.type in ("RETAIN", "NON_RETAIN"):
                    retain = c.type
                else:
                    names.append(c)
            elif isinstance(c, A.FbTask):
                fb_tasks.append(c)
            else:
                connections.append(c)
        name, type_name = names[0], names[-1]
        task = str(names[1]) if len(names) == 3 else None
        return A.ProgramInstance(name=str(name), type_name=str(type_name), task=task, retain=retain,
                                 connections=tuple(connections), fb_tasks=tuple(fb_tasks), **_at(name))

    def fb_task(self, ch):
        return A.FbTask(fb=str(ch[0]), task=str(ch[1]), **_at(ch[0]))

    def connection_in(self, ch):
        return A.Connection(parameter=ch[0], value=_value(ch[1]), **_pos(ch[0]))

    def connection_out(self, ch):
        return A.Connection(parameter=ch[0], value=ch[1], output=True, **_pos(ch[0]))

    def var_config(self, ch):
        return _VarConfig(tuple(ch))

    def config_init(self, ch):
        path = []
        i = 0
        while isinstance(ch[i], Token):
            path.append(str(ch[i]))
            i += 1
        location = None
        if isinstance(ch[i], A.DirectVar):
            location = ch[i]
            i += 1
        spec = ch[i]
        init = ch[i + 1] if len(ch) > i + 1 else None
        return A.ConfigInit(path=tuple(path), location=location, spec=spec, init=init, **_at(ch[0]))


def _value(c):
    return literal_from_token(c) if isinstance(c, Token) else c


def _direct(tok: Token) -> A.DirectVar:
    text = str(tok)
    body = text[1:].upper()
    area = body[0]
    if body[1:2] == "*":
        return A.DirectVar(text=text, area=area, size="", address=(), partial=True, **_at(tok))
    size = body[1] if body[1:2].isalpha() else ""
    digits = body[2:] if size else body[1:]
    return A.DirectVar(text=text, area=area, size=size, address=tuple(int(p) for p in digits.split(".")),
                       **_at(tok))
