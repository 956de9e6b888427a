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
from sys import intern

from lark import Token

from . import ast as A
from . import literals as lit
from .positions import PositionedError, at, direct_var, literal_error, literal_from_token, pos
from .transform_program import ProgramRules

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
_CANONICAL_TYPES = {"TIME_OF_DAY": "TOD", "DATE_AND_TIME": "DT"}
_TYPE_NODES = (A.NamedType, A.StringType, A.SubrangeType, A.EnumType, A.ArrayType, A.StructType)



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
class _Extensible:
    name: Token
    first: int


def _named(n, **fields) -> A.VarDecl:
    if isinstance(n, _Extensible):
        return A.VarDecl(name=str(n.name), extensible=n.first, **fields, **at(n.name))
    return A.VarDecl(name=str(n), **fields, **at(n))


class AstBuilder(ProgramRules):
    """The callbacks lark calls on each reduction (one per grammar rule)."""

    def __init__(self):
        self._local = threading.local()

    def reset(self) -> None:
        """Forget the depths of the last parse (call before each parse)."""
        self._local.depth = {}

    # -- depth bookkeeping ------------------------------------------------------
    def _nested(self, node, kids):
        depth = self._local.depth
        get = depth.get
        d = 0
        for k in kids:
            x = get(id(k), 0)
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
        return A.StBody(statements=stmts, **pos(stmts[0]))

    def il_text(self, ch):
        return A.IlBody(instructions=tuple(ch), **(pos(ch[0]) if ch else {}))

    def sfc_text(self, ch):
        return self._sfc(ch, None)

    def expression_text(self, ch):
        return ch[0]

    # -- data types -------------------------------------------------------------
    def type_block(self, ch):
        return list(ch)

    def type_decl(self, ch):
        return A.TypeDecl(name=str(ch[0]), spec=ch[1], init=ch[2] if len(ch) > 2 else None, **at(ch[0]))

    def elementary_type(self, ch):
        tok = ch[0]
        name = tok.type
        return A.NamedType(name=_CANONICAL_TYPES.get(name, name), **at(tok))

    def named_type(self, ch):
        c = ch[0]
        if isinstance(c, A.NamedType):
            return c
        return A.NamedType(name=str(c), **at(c))

    def subrange_type(self, ch):
        return A.SubrangeType(base=ch[0], range=ch[1], **pos(ch[0]))

    def subrange(self, ch):
        low, high = ch
        return A.Subrange(low=low.value, high=high.value, **pos(low))

    def enum_type(self, ch):
        return A.EnumType(members=tuple(ch), **pos(ch[0]))

    def enum_member(self, ch):
        return A.EnumMember(name=str(ch[0]), **at(ch[0]))

    def array_type(self, ch):
        return A.ArrayType(ranges=tuple(ch[:-1]), element=ch[-1], **pos(ch[0]))

    def string_type(self, ch):
        kw, size = ch
        return A.StringType(wide=kw.type == "WSTRING", length=lit.integer(str(size)), **at(kw))

    def struct_spec(self, ch):
        return A.StructType(members=tuple(ch), **pos(ch[0]))

    def struct_member(self, ch):
        return A.VarDecl(name=str(ch[0]), spec=ch[1], init=ch[2] if len(ch) > 2 else None, **at(ch[0]))

    def array_init(self, ch):
        items = tuple(c if isinstance(c, A.ArrayInitItem)
                      else self._nested(A.ArrayInitItem(count=None, value=c, **pos(c)), (c,)) for c in ch)
        return self._nested(A.ArrayInit(items=items, **pos(items[0])), items)

    def repeated_init(self, ch):
        node = A.ArrayInitItem(count=lit.integer(str(ch[0])), value=ch[1] if len(ch) > 1 else None,
                               **at(ch[0]))
        return self._nested(node, ch[1:])

    def struct_init(self, ch):
        return self._nested(A.StructInit(fields=tuple(ch), **pos(ch[0])), ch)

    def field_init(self, ch):
        return self._nested(A.FieldInit(name=str(ch[0]), value=ch[1], **at(ch[0])), ch[1:])

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
        return A.VarBlock(kind=kind.type, qualifier=qualifier, decls=tuple(decls), **at(kind))

    def var_kind(self, ch):
        return ch[0]

    def var_qualifier(self, ch):
        # RETAIN PERSISTENT is PERSISTENT, as in CODESYS
        return next((c for c in ch if c.type == "PERSISTENT"), ch[0])

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
        spec = A.NamedType(name="BOOL", **at(bool_tok))
        return [_named(n, spec=spec, edge=edge.type) for n in names]

    def located_decl(self, ch):
        name = ch[0] if isinstance(ch[0], Token) else None
        rest = ch[1:] if name is not None else ch
        location, spec = rest[0], rest[1]
        init = rest[2] if len(rest) > 2 else None
        where = at(name) if name is not None else pos(location)
        return [A.VarDecl(name=str(name) if name is not None else None, spec=spec, init=init,
                          location=location, **where)]

    def location(self, ch):
        return direct_var(ch[0])

    # -- POUs ---------------------------------------------------------------------
    def pou(self, ch):
        kw, name = ch[0], ch[1]
        kind = kw.type
        rest = ch[2:]
        return_type = None
        if kind == "FUNCTION":
            return_type, rest = rest[0], rest[1:]
        return A.Pou(kind=kind, name=str(name), return_type=return_type,
                     var_blocks=tuple(rest[:-1]), body=rest[-1], **at(kw))

    def st_body(self, ch):
        stmts = ch[1]
        return self._nested(A.StBody(statements=stmts, **pos(stmts[0])), stmts)

    def il_body(self, ch):
        instructions = tuple(ch[1:])
        return self._nested(A.IlBody(instructions=instructions, **pos(instructions[0])), instructions)

    def sfc_body(self, ch):
        return self._sfc(ch[1:], ch[0])

    def _sfc(self, elements, start):
        steps = tuple(e for e in elements if isinstance(e, A.Step))
        transitions = tuple(e for e in elements if isinstance(e, A.Transition))
        actions = tuple(e for e in elements if isinstance(e, A.Action))
        node = A.SfcBody(steps=steps, transitions=transitions, actions=actions, **pos(elements[0]))
        return self._nested(node, (*transitions, *actions))

    # -- statements ---------------------------------------------------------------
    def statement_list(self, ch):
        return tuple(ch)

    def pragma(self, ch):
        tok = ch[0]
        text = str(tok)
        cut = 2 if text.startswith("{{") else 1
        return A.Pragma(text=text[cut:-cut], **at(tok))

    def assignment(self, ch):
        target, value = ch
        return self._nested(A.Assign(target=target, value=value, line=target.line, col=target.col), ch)

    def invocation(self, ch):
        args = ch[1] if len(ch) > 1 else ()
        node = A.Invoke(name=str(ch[0]), args=args, **at(ch[0]))
        return self._nested(node, args)

    def if_stmt(self, ch):
        kw, cond, body = ch[0], ch[1], ch[2]
        branches = [A.Branch(condition=cond, body=body, **at(kw))]
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
        return self._nested(A.If(branches=tuple(branches), else_body=else_body, **at(kw)), kids)

    def elsif_branch(self, ch):
        return A.Branch(condition=ch[1], body=ch[2], **at(ch[0]))

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
                                   **at(kw)), kids)

    def case_head(self, ch):
        labels = tuple(literal_from_token(c) if isinstance(c, Token) else c for c in ch)
        return _CaseHead(labels, labels[0].line, labels[0].col)

    def case_range(self, ch):
        low, high = ch
        return A.Subrange(low=low.value, high=high.value, **pos(low))

    def enum_label(self, ch):
        return A.Name(name=str(ch[0]), **at(ch[0]))

    def for_stmt(self, ch):
        kw, var = ch[0], ch[1]
        start, end = ch[2], ch[3]
        step = ch[4] if len(ch) == 6 else None
        body = ch[-1]
        node = A.For(variable=A.Name(name=str(var), **at(var)), start=start, end=end, step=step,
                     body=body, **at(kw))
        return self._nested(node, [start, end, step, *body])

    def while_stmt(self, ch):
        kw, cond, body = ch
        return self._nested(A.While(condition=cond, body=body, **at(kw)), [cond, *body])

    def repeat_stmt(self, ch):
        kw, body, cond = ch
        return self._nested(A.Repeat(body=body, condition=cond, **at(kw)), [cond, *body])

    def exit_stmt(self, ch):
        return A.Exit(**at(ch[0]))

    def continue_stmt(self, ch):
        return A.Continue(**at(ch[0]))

    def return_stmt(self, ch):
        return A.Return(**at(ch[0]))

    # -- expressions --------------------------------------------------------------
    def operators(self, ch):
        """``a op b op c ...`` into a tree, by precedence (operator-precedence
        parsing, without recursion)."""
        if len(ch) == 3:        # one operator, most of them: no precedence to settle
            left, op, right = ch
            node = A.Binary(op=_OPERATORS[op.type], left=left, right=right, line=left.line, col=left.col)
            return self._nested(node, (left, right))
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
        return self._nested(A.Unary(op="-", operand=ch[1], **at(ch[0])), ch[1:])

    def complement(self, ch):
        return self._nested(A.Unary(op="NOT", operand=ch[1], **at(ch[0])), ch[1:])

    def call(self, ch):
        name = ch[0]
        args = ch[1] if len(ch) > 1 else ()
        spelled = name.type if name.type != "IDENT" else str(name)
        return self._nested(A.Call(name=spelled, args=args, **at(name)), args)

    def formal_args(self, ch):
        return tuple(ch)

    def positional_args(self, ch):
        return tuple(self._nested(A.Arg(name=None, value=e, **pos(e)), (e,)) for e in ch)

    def input_arg(self, ch):
        name, value = ch
        return self._nested(A.Arg(name=str(name), value=value, **at(name)), (value,))

    def output_arg(self, ch):
        negated = len(ch) == 3
        name, target = ch[-2], ch[-1]
        return self._nested(A.Arg(name=str(name), value=target, output=True, negated=negated,
                                  **at(ch[0])), (target,))

    def name(self, ch):
        tok = ch[0]
        # one string per spelling, not one per use: a long body names the same
        # variables hundreds of thousands of times
        return A.Name(name=intern(str(tok)), line=tok.line, col=tok.column)

    def direct(self, ch):
        return direct_var(ch[0])

    def index(self, ch):
        base = ch[0]
        return self._nested(A.Index(base=base, indices=tuple(ch[1:]), **pos(base)), ch)

    def member(self, ch):
        base, field = ch
        return self._nested(A.Member(base=base, member=str(field), **pos(base)), (base,))

    def signed_int(self, ch):
        tok = ch[-1]
        if len(ch) == 1 and tok.isdigit():      # most integers: no sign, no underscore
            return A.Literal(kind="int", value=int(tok), text=intern(str(tok)), line=tok.line,
                             col=tok.column)
        try:
            value = lit.integer(str(tok))
        except lit.LiteralError as e:
            raise literal_error(e, tok) from None
        first = ch[0]
        if len(ch) == 2 and first.type == "MINUS":
            value = -value
        text = "".join(str(c) for c in ch)
        return A.Literal(kind="int", value=value, text=text, **at(first))

    def signed_real(self, ch):
        tok = ch[-1]
        text = "".join(str(c) for c in ch)
        try:
            value = lit.real(text)
        except lit.LiteralError as e:
            raise literal_error(e, tok) from None
        return A.Literal(kind="real", value=value, text=text, **at(ch[0]))

    def literal(self, ch):
        return literal_from_token(ch[0])
