"""The LALR driver: lark's parse table and tree callbacks, run in one loop.

lark builds the LALR(1) tables from grammar.lark and wraps the transformer's
methods into its callbacks (the ones that drop filtered tokens and splice
inlined rules). This module runs them the way lark's ``ParserState`` does,
with the tables flattened once into ``{symbol: next state}`` for a shift and
``{symbol: (size, rule name, callback)}`` for a reduction, and the scanner's
tokens pulled in the same loop: the per-token method calls, rule hashing and
attribute lookups of lark's generic loop were half the parse time. Where an
expression or an assignment starts, the loop lets fastexpr.py's reader build
it and takes back what the reader is not sure of.
"""

from __future__ import annotations

from lark import Lark
from lark.lexer import Token
from lark.parsers.lalr_analysis import Shift

from .fastexpr import STARTERS, assignment_states, entry_states
from .faststmt import STATEMENT_RULES, StatementReader, statement_states
from .lexer import Scanner


def _passes_through(rule) -> bool:
    """A ``?rule`` alternative of one kept symbol: lark's callback would only
    hand the child back, so the driver leaves the value where it is."""
    if not rule.options.expand1 or rule.alias or len(rule.expansion) != 1:
        return False
    symbol = rule.expansion[0]
    if symbol.name.startswith("_"):
        return False
    return not (symbol.is_term and symbol.filter_out)


class ParseFailure(Exception):
    """``token`` cannot follow; ``stack`` is the parser's state stack then."""

    def __init__(self, token: Token, stack: list):
        super().__init__(token.type)
        self.token = token
        self.stack = stack


class Driver:
    def __init__(self, lark: Lark, builder=None):
        inner = lark.parser.parser.parser          # ParsingFrontend -> LALR_Parser -> _Parser
        table = inner.parse_table
        callbacks = inner.callbacks
        actions: dict = {}
        for state, row in table.states.items():
            flat = {}
            for symbol, (kind, arg) in row.items():
                if kind is Shift:
                    flat[symbol] = arg
                else:
                    callback = None if _passes_through(arg) else callbacks[arg]
                    flat[symbol] = (len(arg.expansion), arg.origin.name, callback)
            actions[state] = flat
        self.actions = actions
        self.start_states = table.start_states
        self.end_states = table.end_states
        self.scanner = Scanner(lark.terminals, actions, lark.options.g_regex_flags)
        # where an expression is read by the reader (see fastexpr.py), not the loop below
        self.expression_entries = entry_states(actions) if builder is not None else {}
        self.assignment_entries = assignment_states(actions) if builder is not None else {}
        self.statement_entries, taking, refusing = statement_states(actions, self.assignment_entries)
        self.reader = StatementReader(builder, actions, taking, refusing) if builder is not None else None

    def _reduce(self, action: tuple, stack: list, values: list) -> None:
        """One reduction of the LALR loop (the parse's own loop is this, inline)."""
        size, name, callback = action
        if callback is None:
            stack[-1] = self.actions[stack[-2]][name]
            return
        if size:
            children = values[-size:]
            del values[-size:]
            del stack[-size:]
            values.append(callback(children))
        else:
            values.append(callback([]))
        stack.append(self.actions[stack[-1]][name])

    def _feed(self, token, stack: list, values: list) -> None:
        """The LALR loop's step for one token (the parse's own loop is this, inline)."""
        actions = self.actions
        kind = token.type
        while True:
            action = actions[stack[-1]].get(kind)
            if action is None:
                raise ParseFailure(token, list(stack))
            if action.__class__ is int:
                stack.append(action)
                values.append(token)
                return
            size, name, callback = action
            if callback is None:
                stack[-1] = actions[stack[-2]][name]
                continue
            if size:
                children = values[-size:]
                del values[-size:]
                del stack[-size:]
                values.append(callback(children))
            else:
                values.append(callback([]))
            stack.append(actions[stack[-1]][name])

    def parse(self, text: str, start: str):
        actions = self.actions
        stack = [self.start_states[start]]
        values: list = []
        append_state = stack.append
        append_value = values.append
        token = None
        entries = self.expression_entries
        assignments = self.assignment_entries
        readable = STARTERS | STATEMENT_RULES.keys() if self.reader is not None else frozenset()
        read = self.reader.read if self.reader is not None else None
        read_statement = self.reader.read_statement if self.reader is not None else None
        statements = self.statement_entries
        statement_words = STATEMENT_RULES
        feed = self._feed
        tokens = self.scanner.tokens(text, stack)
        for token in tokens:
            kind = token.type
            if kind in readable:
                # the reductions the token makes before it is shifted, as the loop below
                # makes them: after a ';' the statement list is reduced, and then a
                # statement starts (no entry state reduces on the token it reads first)
                action = actions[stack[-1]].get(kind)
                while action is not None and action.__class__ is not int:
                    self._reduce(action, stack, values)
                    action = actions[stack[-1]].get(kind)
                if kind in statement_words:
                    entry = statements.get(stack[-1])
                    if entry is not None:
                        token, ended = read_statement(token, tokens, stack, values, entry[kind], feed)
                        if ended:
                            break
                        kind = token.type
                else:
                    after = entries.get(stack[-1])
                    inside = None
                    if after is None and kind == "IDENT":
                        entry = assignments.get(stack[-1])
                        if entry is not None:
                            inside, after = entry
                    if after is not None:
                        token, ended = read(token, tokens, stack, values, after, feed, inside)
                        if ended:
                            break
                        kind = token.type
            while True:
                action = actions[stack[-1]].get(kind)
                if action is None:
                    raise ParseFailure(token, list(stack))
                if action.__class__ is int:
                    append_state(action)
                    append_value(token)
                    break
                size, name, callback = action
                if callback is None:        # a ?rule passing its one child on: a third of them
                    stack[-1] = actions[stack[-2]][name]
                    continue
                if size:
                    children = values[-size:]
                    del values[-size:]
                    del stack[-size:]
                    append_value(callback(children))
                else:
                    append_value(callback([]))
                append_state(actions[stack[-1]][name])
        end = str.__new__(Token, "")
        end.type = "$END"
        end.start_pos = len(text)
        end.line = token.line if token is not None else 1
        end.column = token.column if token is not None else 1
        end_state = self.end_states[start]
        while True:
            action = actions[stack[-1]].get("$END")
            if action is None or action.__class__ is int:
                raise ParseFailure(end, list(stack))
            size, name, callback = action
            if callback is None:
                del stack[-1]
            elif size:
                children = values[-size:]
                del values[-size:]
                del stack[-size:]
                append_value(callback(children))
            else:
                append_value(callback([]))
            append_state(actions[stack[-1]][name])
            if stack[-1] == end_state:
                return values[-1]
