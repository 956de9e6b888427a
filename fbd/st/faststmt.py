"""IF, CASE, WHILE, FOR and REPEAT statements read straight into the tree, without the LALR loop.

The expression reader (fastexpr.py) reads expressions and assignments; the
statements around them still cost the LALR loop a shift per keyword and ``;``
and a reduction per list element. Where a statement starts with ``IF``,
``CASE``, ``WHILE``, ``FOR`` or ``REPEAT``, :class:`StatementReader` reads the
whole statement by recursive descent, its statement lists of assignments,
calls, pragmas, ``EXIT``, ``CONTINUE``, ``RETURN`` and such statements nested,
with the transformer's own callbacks, as the expression reader does. It gives
up on anything else (an output argument, a label of a based integer, an
assignment to a direct address, an empty statement list, nesting deeper than
:data:`MAX_NESTING`, a statement longer than :data:`MAX_TOKENS` tokens, a
syntax error...) and the driver hands every token it read to the LALR loop.

The scanner reads the parser's state stack to decide whether a pragma is a
statement (where a statement may start in a list) or skipped (anywhere else):
while reading, the reader keeps on the stack a state that takes a pragma at
each statement start of a list and one that takes none elsewhere, so the
scanner decides as it does under the LALR loop (:func:`statement_states`
checks, from the parse table, that the states so used decide nothing else).
"""

from __future__ import annotations

from .fastexpr import ExpressionReader, _GiveUp
from .lexer import BODY_TOKENS, CONTEXTUAL

#: statements nested deeper than this are left to the LALR loop (no Python recursion limit)
MAX_NESTING = 40
#: a statement longer than this many tokens is left to the LALR loop from there: the reader
#: keeps every token it read until the statement ends (to give them back), and a CASE
#: around a whole program would keep the whole program's tokens (100 bytes each)
MAX_TOKENS = 10_000

#: the first token of a statement the reader reads, and its rule
STATEMENT_RULES = {"IF": "if_stmt", "CASE": "case_stmt", "WHILE": "while_stmt", "FOR": "for_stmt",
                   "REPEAT": "repeat_stmt"}
_SIMPLE = {"EXIT": "exit_stmt", "CONTINUE": "continue_stmt", "RETURN": "return_stmt"}
# what starts a CASE label but no statement
_LABEL_STARTS = frozenset({"INTEGER", "PLUS", "MINUS", "TYPED_ENUM"})
_DECIDED_BY_STATE = CONTEXTUAL | frozenset(BODY_TOKENS)


def statement_states(actions: dict, assignments: dict) -> tuple[dict, int | None, int | None]:
    """(``{state: {first token: state after the statement}}`` where the reader
    may read a statement, a state where a pragma is taken, one where none is).

    The two states stand on top of the stack while the reader reads: the
    scanner then decides a pragma as the LALR loop's states would, and nothing
    else (neither has a contextual keyword or a body start). None of them where
    the table has no such states (the reader then reads no statement)."""
    taking = None
    for start in assignments:
        row = actions[start]
        if row.get("PRAGMA").__class__ is int and not _DECIDED_BY_STATE.intersection(row):
            taking = start
            break
    refusing = None
    for named, _after in assignments.values():
        row = actions[named]
        if "PRAGMA" not in row and not _DECIDED_BY_STATE.intersection(row):
            refusing = named
            break
    if taking is None or refusing is None:
        return {}, None, None
    entries = {}
    for start in assignments:
        row = actions[start]
        after = {word: row[rule] for word, rule in STATEMENT_RULES.items() if rule in row and word in row}
        if after:
            entries[start] = after
    return entries, taking, refusing


class StatementReader(ExpressionReader):
    def __init__(self, builder, actions: dict, taking: int, refusing: int):
        super().__init__(builder, actions)
        b = builder
        self._taking, self._refusing = taking, refusing
        self._list, self._pragma, self._invocation = b.statement_list, b.pragma, b.invocation
        self._if, self._elsif, self._else = b.if_stmt, b.elsif_branch, b.else_branch
        self._while, self._for, self._repeat = b.while_stmt, b.for_stmt, b.repeat_stmt
        self._case, self._case_head, self._case_range = b.case_stmt, b.case_head, b.case_range
        self._enum_label = b.enum_label
        self._simple = {word: getattr(b, rule) for word, rule in _SIMPLE.items()}
        self._readers = {"IF": self._if_stmt, "CASE": self._case_stmt, "WHILE": self._while_stmt,
                         "FOR": self._for_stmt, "REPEAT": self._repeat_stmt}

    def read_statement(self, first, tokens, stack: list, values: list, after: int, feed):
        """As :meth:`ExpressionReader.read`, for the statement starting at ``first``."""
        return self.finish(first, tokens, stack, values, after, feed, self._outer)

    def _outer(self, c):
        c.stack.append(self._refusing)
        try:
            return self._statement(c)
        finally:
            c.stack.pop()

    # -- the grammar's statements, as grammar.lark has them -----------------------
    def _next_statement(self, c):
        """The token after ``;``, a pragma, THEN, ELSE, DO or REPEAT: where a
        statement of a list may start (a pragma is one)."""
        if len(c.seen) > MAX_TOKENS:
            raise _GiveUp
        stack = c.stack
        stack[-1] = self._taking
        try:
            c.advance()
        finally:
            stack[-1] = self._refusing

    def _statement_list(self, c):
        """Statements until a token that starts none (the caller checks it);
        the cursor is at the first one."""
        statements = []
        while True:
            kind = c.kind
            if kind == "PRAGMA":
                statements.append(self._pragma([c.token]))
                self._next_statement(c)
                continue
            if kind == "IDENT":
                statements.append(self._named(c))
            elif kind in self._readers:
                statements.append(self._statement(c))
            elif kind in self._simple:
                statements.append(self._simple[kind]([c.token]))
                c.advance()
            else:
                break
            if c.kind != "_SEMI":
                raise _GiveUp
            self._next_statement(c)
        if not statements:
            raise _GiveUp           # the LALR loop says what an empty list lacks
        return self._list(statements)

    def _named(self, c):
        """An assignment or a call, at its name."""
        name = c.token
        c.advance()
        if c.kind == "_LPAR":
            args = self._arguments(c)
            return self._invocation([name] if args is None else [name, args])
        c.put_back(name)
        return self._assigned(c)

    def _statement(self, c):
        if c.nesting >= MAX_NESTING:
            raise _GiveUp
        c.nesting += 1
        node = self._readers[c.kind](c)
        c.nesting -= 1
        return node

    def _expect(self, c, kind: str):
        if c.kind != kind:
            raise _GiveUp

    def _body(self, c, ending: str):
        """``ending`` then a statement list (THEN ..., DO ..., ELSE ...)."""
        self._expect(c, ending)
        self._next_statement(c)
        return self._statement_list(c)

    def _if_stmt(self, c):
        children = [c.token]
        c.advance()
        children += [self._expression(c), self._body(c, "_THEN")]
        while c.kind == "ELSIF":
            word = c.token
            c.advance()
            children.append(self._elsif([word, self._expression(c), self._body(c, "_THEN")]))
        if c.kind == "ELSE":
            word = c.token
            children.append(self._else([word, self._body(c, "ELSE")]))
        self._expect(c, "_END_IF")
        c.advance()
        return self._if(children)

    def _while_stmt(self, c):
        word = c.token
        c.advance()
        children = [word, self._expression(c), self._body(c, "_DO")]
        self._expect(c, "_END_WHILE")
        c.advance()
        return self._while(children)

    def _for_stmt(self, c):
        children = [c.token]
        c.advance()
        self._expect(c, "IDENT")
        children.append(c.token)
        c.advance()
        self._expect(c, "_ASSIGN")
        c.advance()
        children.append(self._expression(c))
        self._expect(c, "_TO")
        c.advance()
        children.append(self._expression(c))
        if c.kind == "_BY":
            c.advance()
            children.append(self._expression(c))
        children.append(self._body(c, "_DO"))
        self._expect(c, "_END_FOR")
        c.advance()
        return self._for(children)

    def _repeat_stmt(self, c):
        word = c.token
        body = self._body(c, "REPEAT")
        self._expect(c, "_UNTIL")
        c.advance()
        children = [word, body, self._expression(c)]
        self._expect(c, "_END_REPEAT")
        c.advance()
        return self._repeat(children)

    def _case_stmt(self, c):
        children = [c.token]
        c.advance()
        children.append(self._expression(c))
        self._expect(c, "_OF")
        c.advance()                     # a label first: no pragma before it
        children.append(self._head(c))
        while True:                     # labels, statements and pragmas, as they come
            kind = c.kind
            if kind == "PRAGMA":
                children.append(self._pragma([c.token]))
                self._next_statement(c)
                continue
            if kind in _LABEL_STARTS:
                children.append(self._head(c))
                continue
            if kind == "IDENT":
                name = c.token
                c.advance()
                label = c.kind == "_COLON" or c.kind == "_COMMA"
                c.put_back(name)
                if label:               # Red: (an assignment is Red := ...)
                    children.append(self._head(c))
                    continue
                children.append(self._named(c))
            elif kind in self._readers:
                children.append(self._statement(c))
            elif kind in self._simple:
                children.append(self._simple[kind]([c.token]))
                c.advance()
            else:
                break
            self._expect(c, "_SEMI")
            self._next_statement(c)
        if c.kind == "ELSE":
            word = c.token
            children.append(self._else([word, self._body(c, "ELSE")]))
        self._expect(c, "_END_CASE")
        c.advance()
        return self._case(children)

    def _head(self, c):
        """``label, label, ...:`` of a CASE, then where a statement may start."""
        labels = [self._label(c)]
        while c.kind == "_COMMA":
            c.advance()
            labels.append(self._label(c))
        self._expect(c, "_COLON")
        self._next_statement(c)
        return self._case_head(labels)

    def _label(self, c):
        kind = c.kind
        if kind == "IDENT":
            word = c.token
            c.advance()
            return self._enum_label([word])
        if kind == "TYPED_ENUM":        # the token itself, as the LALR loop hands it on
            word = c.token
            c.advance()
            return word
        low = self._label_integer(c)
        if c.kind != "_DOTDOT":
            return low
        c.advance()
        return self._case_range([low, self._label_integer(c)])

    def _label_integer(self, c):
        children = []
        if c.kind == "PLUS" or c.kind == "MINUS":
            children.append(c.token)
            c.advance()
        self._expect(c, "INTEGER")
        children.append(c.token)
        c.advance()
        return self._signed_int(children)
