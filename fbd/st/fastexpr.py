"""Expressions read straight into the tree, without the LALR loop.

Most of an ST body's tokens are in expressions, and the LALR driver spends
several steps on each operand (a shift, the reduction building the node, then
three or four ``?rule`` pass-throughs and a list rule per operator) before the
transformer's callbacks have built anything. Where the parser is about to read
an expression, :class:`ExpressionReader` reads it by recursive descent over the
scanner's tokens instead, building the nodes with the very callbacks of the
LALR path (:class:`~fbd.st.transform.AstBuilder`), so the tree is the same one.

It reads only what it is sure of, a subset of the grammar's expressions, and
gives up on anything else: a syntax error, a construct it does not read (an
output argument, NOT as the first argument, a parenthesis nested deeper than
:data:`MAX_PARENTHESES`), an error raised while building a node (a literal out
of range, a nesting too deep), the end of the text, or a token after the
expression that the parser would not take there. The driver then hands every
token it read to the LALR loop, which raises the error, with its message and
position, or reads the expression as it always did.

The tokens are read with the parser's state stack left where the expression
starts. That is only the same as the LALR loop's reading where the scanner's
decisions (contextual keywords, body languages, pragmas kept or skipped) do not
depend on the parser's state inside the expression: :func:`entry_states` finds
the states where that holds, from the parse table itself.
"""

from __future__ import annotations

from .lexer import BODY_TOKENS, CONTEXTUAL, parser_accepts
from .positions import PositionedError
from .transform import PRECEDENCE

#: parentheses nested deeper than this are left to the LALR loop (no Python recursion limit)
MAX_PARENTHESES = 40

_LITERALS = frozenset("""BASED TYPED_NUMBER DURATION DATE_LIT TOD_LIT DT_LIT SSTRING DSTRING TRUE FALSE
TYPED_ENUM""".split())
_CALL_WORDS = frozenset({"AND", "OR", "XOR", "MOD"})
STARTERS = frozenset({"IDENT", "DIRECT", "INTEGER", "REAL_NUMBER", "MINUS", "PLUS", "NOT", "_LPAR"}
                     | _LITERALS | _CALL_WORDS)
# every terminal the reader may consume inside an expression
_INSIDE = STARTERS | PRECEDENCE.keys() | {"_RPAR", "_LSQB", "_RSQB", "_COMMA", "_DOT", "_ASSIGN"}
# what makes the scanner's reading depend on the parser's state
_STATE_DEPENDENT = CONTEXTUAL | {"PRAGMA"} | frozenset(BODY_TOKENS)
# where an expression may also be something else: an argument list (name := value,
# name => target) or an initial value (a structure's or an array's)
_NOT_ONLY_EXPRESSIONS = frozenset({"call_args", "formal_args", "input_arg", "output_arg", "initializer",
                                   "array_init", "struct_init", "field_init", "array_item"})


def entry_states(actions: dict) -> dict[int, int]:
    """``{state: state after the expression}`` for the states where an
    expression starts and the reader may read it: the states reached while
    reading it (every shift of a terminal it consumes, every goto but the
    expression's own from the start) have no terminal the scanner decides by
    the parser's state."""
    entries = {}
    for start, row in actions.items():
        after = row.get("expression")
        if after is not None and not _NOT_ONLY_EXPRESSIONS.intersection(row) \
                and _scanned_alike(actions, [start], start, "expression"):
            entries[start] = after
    return entries


def assignment_states(actions: dict) -> dict[int, tuple[int, int]]:
    """``{state: (state after the target's name, state after the assignment)}``
    where a statement starts and the reader may read an assignment there. The
    start accepts a pragma, so the reader puts the state after the name on the
    stack while it reads: the scanner then decides as in the states inside."""
    entries = {}
    for start, row in actions.items():
        after, named = row.get("assignment"), row.get("IDENT")
        if after is None or named is None or "variable" not in row:
            continue
        inside = [named, row["variable"]]
        if _scanned_alike(actions, inside, start, "assignment"):
            entries[start] = (named, after)
    return entries


def _scanned_alike(actions: dict, firsts: list, start: int, read: str) -> bool:
    """Whether no state reached from ``firsts`` while reading (``read``'s goto
    from ``start`` ends it) has a terminal the scanner decides by the state."""
    seen, todo = set(firsts), list(firsts)
    while todo:
        state = todo.pop()
        if _STATE_DEPENDENT.intersection(actions[state]):
            return False
        for symbol, action in actions[state].items():
            if action.__class__ is not int or action in seen:
                continue
            if symbol.isupper() and symbol not in _INSIDE:
                continue
            if state == start and symbol == read:
                continue
            seen.add(action)
            todo.append(action)
    return True


class _GiveUp(Exception):
    """Not read here: the LALR loop reads these tokens again."""


class _Cursor:
    """The token being looked at, the tokens read so far (for the LALR loop,
    should the reader give up), and one token put back."""

    __slots__ = ("tokens", "seen", "token", "kind", "back", "parentheses", "ended", "stack", "inside",
                 "nesting")

    def __init__(self, first, tokens):
        self.tokens = tokens
        self.seen = [first]
        self.token = first
        self.kind = first.type
        self.back = None
        self.parentheses = 0
        self.nesting = 0
        self.ended = False

    def advance(self):
        back = self.back
        if back is not None:
            self.back = None
            token = back
        else:
            token = next(self.tokens, None)
            if token is None:
                self.ended = True
                raise _GiveUp
            self.seen.append(token)
        self.token = token
        self.kind = token.type

    def put_back(self, token):
        """Look at ``token`` again, the current one after it."""
        self.back = self.token
        self.token = token
        self.kind = token.type


class ExpressionReader:
    def __init__(self, builder, actions: dict):
        self.actions = actions
        b = builder
        self._operators, self._negate, self._complement = b.operators, b.negate, b.complement
        self._call, self._formal_args, self._positional_args = b.call, b.formal_args, b.positional_args
        self._input_arg, self._name, self._direct = b.input_arg, b.name, b.direct
        self._index, self._member, self._literal = b.index, b.member, b.literal
        self._signed_int, self._signed_real = b.signed_int, b.signed_real
        self._assignment = b.assignment
        self._builder = builder

    def read(self, first, tokens, stack: list, values: list, after: int, feed, inside=None):
        """Read the expression starting at ``first`` (or, given the state
        ``inside`` an assignment's target, the assignment), then the parser
        state is ``after`` with the node on ``values``; returns (the token
        after it, for the LALR loop, and whether the text ended). Having given
        up, it feeds the tokens it read to ``feed`` (the LALR loop's step) but
        the last, which it returns (all of them if the text ended)."""
        if inside is None:
            return self.finish(first, tokens, stack, values, after, feed, self._expression)
        return self.finish(first, tokens, stack, values, after, feed, self._assignment_inside, inside)

    def finish(self, first, tokens, stack: list, values: list, after: int, feed, reading, inside=None):
        """:meth:`read`'s work, the node read by ``reading(cursor)`` (the
        cursor has the ``stack`` and the state ``inside``)."""
        cursor = _Cursor(first, tokens)
        cursor.stack = stack
        cursor.inside = inside
        depth = self._builder._local.depth
        known = len(depth)
        try:
            node = reading(cursor)
            token = cursor.token
            kind = token.type
            action = self.actions[after].get(kind)
            if action is None:
                raise _GiveUp
            stack.append(after)
            if action.__class__ is not int and not parser_accepts(self.actions, stack, kind):
                stack.pop()
                raise _GiveUp
            values.append(node)
            return token, False
        except (_GiveUp, PositionedError):
            # the nodes made here are gone: their ids may come back on others
            for _ in range(len(depth) - known):
                depth.popitem()
            seen = cursor.seen
            if cursor.ended:
                for token in seen:
                    feed(token, stack, values)
                return seen[-1], True
            for token in seen[:-1]:
                feed(token, stack, values)
            return seen[-1], False

    # -- the grammar's expressions, as grammar.lark has them ---------------------
    def _assignment_inside(self, c):
        c.stack.append(c.inside)
        try:
            return self._assigned(c)
        finally:
            c.stack.pop()

    def _assigned(self, c):
        name = c.token
        c.advance()
        target = self._postfix(c, self._name([name]))
        if c.kind != "_ASSIGN":
            raise _GiveUp
        c.advance()
        return self._assignment([target, self._expression(c)])

    def _expression(self, c):
        node = self._unary(c)
        if c.kind not in PRECEDENCE:
            return node
        run = [node]
        while c.kind in PRECEDENCE:
            run.append(c.token)
            c.advance()
            run.append(self._unary(c))
        return self._operators(run)

    def _unary(self, c):
        kind = c.kind
        if kind == "MINUS":
            sign = c.token
            c.advance()
            if c.kind == "INTEGER" or c.kind == "REAL_NUMBER":
                return self._signed(c, sign)
            return self._negate([sign, self._nonnumeric(c)])
        if kind == "NOT":
            word = c.token
            c.advance()
            return self._complement([word, self._primary(c)])
        return self._primary(c)

    def _primary(self, c):
        kind = c.kind
        if kind == "INTEGER" or kind == "REAL_NUMBER":
            return self._signed(c, None)
        if kind == "PLUS" or kind == "MINUS":
            sign = c.token
            c.advance()
            if c.kind == "INTEGER" or c.kind == "REAL_NUMBER":
                return self._signed(c, sign)
            raise _GiveUp
        return self._nonnumeric(c)

    def _signed(self, c, sign):
        token = c.token
        children = [token] if sign is None else [sign, token]
        node = self._signed_int(children) if c.kind == "INTEGER" else self._signed_real(children)
        c.advance()
        return node

    def _nonnumeric(self, c):
        kind = c.kind
        token = c.token
        if kind == "IDENT":
            c.advance()
            if c.kind == "_LPAR":
                return self._call_of(c, token)
            return self._postfix(c, self._name([token]))
        if kind in _LITERALS:
            c.advance()
            return self._literal([token])
        if kind == "_LPAR":
            if c.parentheses >= MAX_PARENTHESES:
                raise _GiveUp
            c.parentheses += 1
            c.advance()
            node = self._expression(c)
            if c.kind != "_RPAR":
                raise _GiveUp
            c.parentheses -= 1
            c.advance()
            return node
        if kind == "DIRECT":
            c.advance()
            return self._postfix(c, self._direct([token]))
        if kind in _CALL_WORDS:
            c.advance()
            if c.kind == "_LPAR":
                return self._call_of(c, token)
        raise _GiveUp

    def _postfix(self, c, base):
        while True:
            kind = c.kind
            if kind == "_LSQB":
                c.advance()
                children = [base, self._expression(c)]
                while c.kind == "_COMMA":
                    c.advance()
                    children.append(self._expression(c))
                if c.kind != "_RSQB":
                    raise _GiveUp
                c.advance()
                base = self._index(children)
            elif kind == "_DOT":
                c.advance()
                if c.kind != "IDENT":
                    raise _GiveUp
                field = c.token
                c.advance()
                base = self._member([base, field])
            else:
                return base

    def _call_of(self, c, name):
        args = self._arguments(c)
        return self._call([name] if args is None else [name, args])

    def _arguments(self, c):
        """The arguments of a call (None: none), the cursor at its '('."""
        c.advance()                     # the '('
        if c.kind == "_RPAR":
            c.advance()
            return None
        if c.kind == "IDENT":
            first = c.token
            c.advance()
            if c.kind == "_ASSIGN":
                args = self._formal(c, first)
            elif c.kind == "_SENDTO":
                raise _GiveUp
            else:
                c.put_back(first)
                args = self._positional(c)
        elif c.kind == "NOT":           # NOT x => y is an output argument
            raise _GiveUp
        else:
            args = self._positional(c)
        if c.kind != "_RPAR":
            raise _GiveUp
        c.advance()
        return args

    def _formal(self, c, name):
        args = []
        while True:
            c.advance()                 # the ':='
            args.append(self._input_arg([name, self._expression(c)]))
            if c.kind != "_COMMA":
                return self._formal_args(args)
            c.advance()
            if c.kind != "IDENT":
                raise _GiveUp
            name = c.token
            c.advance()
            if c.kind != "_ASSIGN":
                raise _GiveUp

    def _positional(self, c):
        expressions = [self._expression(c)]
        while c.kind == "_COMMA":
            c.advance()
            expressions.append(self._expression(c))
        return self._positional_args(expressions)
