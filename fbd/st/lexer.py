"""The lexer: lark's contextual lexer, with matiec's three pieces of context.

1. **Keywords.** Every word is lexed as ``IDENT``. Reserved words (``IF``,
   ``INT``, ``VAR``, ...) are then always retyped to their keyword, so they can
   never name anything. Contextual words are keywords only where the parser
   state accepts them, and names everywhere else, as matiec's flex states
   make them: the IL operators (``LD``, ``ST``, ``S``, ``R``, ``IN``, ``PT``,
   ``ADD``, ``GT``, ...), the SFC action qualifiers (``N``, ``P``, ``D``, ...)
   the task properties (``PRIORITY``, ``SINGLE``, ``INTERVAL``) and CODESYS's
   ``PERSISTENT`` (right after ``VAR`` it is the qualifier). So a
   variable may be called ``LD`` or ``N`` in ST, and ``ST`` stays an operator
   at the start of an IL line.

2. **Which language a body is in.** Where the grammar accepts the start of a
   POU, action or transition body, the lexer looks ahead the way matiec's
   ``body_state`` does and emits a synthetic ``BODY_ST``, ``BODY_IL`` or
   ``BODY_SFC``: a body starting with ``INITIAL_STEP`` (or ``STEP``,
   ``TRANSITION``, ``ACTION``) is SFC; one that starts with an ST keyword
   (``IF``, ``CASE``, ``FOR``, ``WHILE``, ``REPEAT``, ``EXIT``, ``RETURN``) is
   ST; otherwise it is ST if a ``;`` comes before the ``END_...`` that closes
   it, IL if not. Comments, pragmas and strings are skipped while looking.

3. **Line ends.** IL instructions end at the end of the line; ST, SFC and the
   declarations ignore line ends. ``_NL`` tokens are made only inside an IL
   body (or IL transition condition).

Comments ``(* ... *)`` / ``// ...`` are skipped everywhere; they do not nest
(matiec without its ``-n`` option). A pragma ``{...}`` / ``{{...}}`` is passed
on where a statement or IL instruction may stand (matiec keeps them there:
C code for its back end) and skipped everywhere else.

A token is refused before it is copied when it is longer than its kind may
be (:data:`MAX_NAME`, :data:`MAX_STRING`, :data:`MAX_LITERAL`); every
terminal repeats possessively, so a token a megabyte long is matched in
constant memory (a backtracking repeat of a group keeps a frame per
character: 700 bytes each).
"""

from __future__ import annotations

import re

from lark.lexer import Token

from ..values import MAX_LITERAL
from .firstchar import alternation_by_first_character

#: the longest name (identifier) read, in characters
MAX_NAME = 1024
#: the longest string literal read, quotes included: more than a STRING holds (126
#: characters) even with every character escaped ($hh)
MAX_STRING = 1024
# the longest token of each kind; numbers, durations, dates and addresses: MAX_LITERAL
_LONGEST = {"IDENT": MAX_NAME, "TYPED_ENUM": 2 * MAX_NAME + 1, "SSTRING": MAX_STRING,
            "DSTRING": MAX_STRING, "PRAGMA": None}
_WHAT = {"IDENT": "a name", "TYPED_ENUM": "an enumerated value", "SSTRING": "a string literal",
         "DSTRING": "a string literal", "DIRECT": "a direct address"}
_SHORTEST_LIMIT = min(MAX_LITERAL, MAX_NAME, MAX_STRING)

# Reserved words and the terminal each becomes ("_X" terminals are left out of the tree).
_RESERVED_NAMES = """
TYPE END_TYPE ARRAY OF STRUCT END_STRUCT
BOOL SINT INT DINT LINT USINT UINT UDINT ULINT BYTE WORD DWORD LWORD REAL LREAL
TIME DATE TIME_OF_DAY TOD DATE_AND_TIME DT STRING WSTRING
ANY ANY_DERIVED ANY_ELEMENTARY ANY_MAGNITUDE ANY_NUM ANY_REAL ANY_INT ANY_BIT ANY_STRING ANY_DATE
VAR VAR_INPUT VAR_OUTPUT VAR_IN_OUT VAR_TEMP VAR_GLOBAL VAR_EXTERNAL VAR_ACCESS VAR_CONFIG END_VAR
CONSTANT RETAIN NON_RETAIN R_EDGE F_EDGE AT
FUNCTION END_FUNCTION FUNCTION_BLOCK END_FUNCTION_BLOCK PROGRAM END_PROGRAM
CONFIGURATION END_CONFIGURATION RESOURCE END_RESOURCE ON TASK WITH READ_WRITE READ_ONLY
ACTION END_ACTION TRANSITION END_TRANSITION FROM TO INITIAL_STEP STEP END_STEP
IF THEN ELSIF ELSE END_IF CASE END_CASE FOR BY DO END_FOR WHILE END_WHILE
REPEAT UNTIL END_REPEAT EXIT CONTINUE RETURN
AND OR XOR NOT MOD TRUE FALSE
""".split()

_FILTERED = set("""
THEN DO OF UNTIL FROM TO ON WITH END_IF END_CASE END_FOR END_WHILE END_REPEAT END_VAR END_TYPE
END_STRUCT END_STEP END_TRANSITION END_ACTION END_FUNCTION END_FUNCTION_BLOCK END_PROGRAM
END_CONFIGURATION END_RESOURCE ARRAY STRUCT TYPE AT TASK RESOURCE CONFIGURATION VAR_CONFIG BY
""".split())

RESERVED: dict[str, str] = {w: ("_" + w if w in _FILTERED else w) for w in _RESERVED_NAMES}

CONTEXTUAL = frozenset("""
LD LDN ST STN S R S1 R1 CLK CU CD PV IN PT ANDN ORN XORN ADD SUB MUL DIV
GT GE EQ NE LE LT CAL CALC CALCN RET RETC RETCN JMP JMPC JMPCN
N P P0 P1 L D SD DS SL PRIORITY SINGLE INTERVAL PERSISTENT
""".split())

BODY_TOKENS = ("BODY_ST", "BODY_IL", "BODY_SFC")

# What closes a body: the mode pushed at its start is popped there. A POU's
# and an action's body end at the same words (either is an error in the other).
_BODY_CLOSERS = frozenset({"_END_FUNCTION", "_END_FUNCTION_BLOCK", "_END_PROGRAM", "_END_ACTION"})
_TRANSITION_ENDS = frozenset({"_END_TRANSITION"})

# Looking ahead into a body: skip what the parser skips, find words and ';'.
_SCAN = re.compile(r"""
    (?P<skip>[ \t\f\r\v\n]+ | \(\*[\s\S]*?\*\) | //[^\n]*
             | '(?:[^'$\n]++|\$[^\n])*+' | "(?:[^"$\n]++|\$[^\n])*+")
  | (?P<pragma>\{\{[\s\S]*?\}\} | \{[^}]*\})
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][0-9A-Za-z_]*)
  | (?P<assign>:=)
  | (?P<other>[\s\S])
""", re.X)
_DECLARATION_WORDS = frozenset("""VAR VAR_INPUT VAR_OUTPUT VAR_IN_OUT VAR_TEMP VAR_GLOBAL VAR_EXTERNAL
VAR_ACCESS VAR_CONFIG END_FUNCTION END_FUNCTION_BLOCK END_PROGRAM END_ACTION""".split())
_SFC_WORDS = frozenset({"INITIAL_STEP", "STEP", "TRANSITION", "ACTION"})
_ST_WORDS = frozenset({"IF", "CASE", "FOR", "WHILE", "REPEAT", "EXIT", "CONTINUE", "RETURN"})
_BODY_ENDS = frozenset({"END_FUNCTION", "END_FUNCTION_BLOCK", "END_PROGRAM", "END_ACTION",
                        "END_TRANSITION"})
_LONGEST_WORD = max(map(len, _DECLARATION_WORDS | _SFC_WORDS | _ST_WORDS | _BODY_ENDS))


def detect_body(text: str, pos: int, accepted: frozenset) -> str | None:
    """Which BODY_* token starts a body at ``pos`` (None: no body starts here).

    ``accepted`` are the BODY_* tokens the parser accepts at this point: a
    transition accepts only BODY_IL, and only when no ``:=`` follows.
    """
    scan = _SCAN.match
    first = None
    pragma = False
    while True:
        m = scan(text, pos)
        if m is None:                       # end of text
            if first is None:
                return "BODY_IL" if pragma else None
            break
        pos = m.end()
        kind = m.lastgroup
        if kind == "skip":
            continue
        if kind == "pragma":
            # a body of pragmas only is IL (matiec: an instruction list of pragmas)
            pragma = True
            continue
        # a word longer than every keyword is no keyword: not copied (it may be megabytes)
        value = m.group(kind) if pos - m.start() <= _LONGEST_WORD else ""
        if first is None:
            first = (kind, value.upper())
            if "BODY_ST" not in accepted:   # transition condition: IL unless ':='
                return None if kind == "assign" else "BODY_IL"
            if kind == "number" or kind == "other" and value not in "%&":
                return None                 # no statement or instruction starts so: "STRING[" ...
            if kind == "word":
                word = first[1]
                if word in _DECLARATION_WORDS:
                    return "BODY_IL" if pragma and word in _BODY_ENDS else None
                if word in _SFC_WORDS:
                    return "BODY_SFC"
                if word in _ST_WORDS:
                    return "BODY_ST"
        if kind == "other" and value == ";":
            return "BODY_ST"
        if kind == "word" and value.upper() in _BODY_ENDS:
            return "BODY_IL"
    return "BODY_IL"


def parser_accepts(actions: dict, state_stack: list, terminal: str) -> bool:
    """Whether the parser, with ``state_stack``, would shift ``terminal`` next.

    A state's lookahead set is not enough: LALR merges the lookaheads of
    states with the same items, so a reduce state may list a terminal that
    only follows in another context (a BODY_ST after a FUNCTION's return type
    is listed after every variable's type name). This runs the reductions on
    a copy of the state stack, without values, until the terminal is shifted
    or refused. ``actions`` is the driver's table (see driver.py): a shift is
    the next state, a reduction ``(size, rule name, callback)``.
    """
    stack = list(state_stack)
    while True:
        action = actions[stack[-1]].get(terminal)
        if action is None:
            return False
        if action.__class__ is int:
            return True
        size = action[0]
        if size:
            del stack[-size:]
        stack.append(actions[stack[-1]][action[1]])


_IGNORED = ("WS", "COMMENT", "LINE_COMMENT")
# What lies between tokens, matched possessively (no backtracking into it):
# blanks and comments, with line ends outside IL and without them inside.
_GAP = r"(?:[ \t\f\r\v]++|\(\*[\s\S]*?\*\)|//[^\n]*+)*+"
_GAP_NL = r"(?:[ \t\f\r\v\n]++|\(\*[\s\S]*?\*\)|//[^\n]*+)*+"


# the characters tokens start with, the most frequent first: their groups are tried first
_FREQUENT = "aibcsrtxyz;:0)(1+*=<>,[]-.'"
_SPECIAL = frozenset({"_NL", "PRAGMA", "UNCLOSED", "UNCLOSED_COMMENT"})


def _lark_order(t):
    # the order lark's own lexer tries terminals in: priority, then the longest
    return (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name)


class Scanner:
    """Tokens for the driver, read with the parser's state stack at hand.

    The terminals are the grammar's, tried in lark's order, in one compiled
    expression per mode (IL lines, everything else) rather than one per
    parser state as lark's contextual lexer has them: with every word lexed
    as IDENT and keywords retyped by parser state, no terminal needs the
    state to be told apart, and one match per token is several times faster.
    A text parsed from a start rule that accepts line ends (an IL body
    alone) is in IL mode from its start.
    """

    def __init__(self, terminals, actions: dict, flags: int = 0):
        self.actions = actions
        self._accepts = {s: frozenset(t for t in row if t.isupper()) for s, row in actions.items()}
        self._contextual: dict[int, frozenset] = {}
        self._body_starts: dict[int, frozenset] = {}
        for s, acc in self._accepts.items():
            ctx = CONTEXTUAL.intersection(acc)
            if ctx:
                self._contextual[s] = frozenset(ctx)
            starts = acc.intersection(BODY_TOKENS)
            if starts:
                self._body_starts[s] = frozenset(starts)
        ordered = sorted((t for t in terminals if t.name not in _IGNORED and t.name != "_NL"),
                         key=_lark_order)
        # "(*" left after the blanks and comments is a comment never closed; a
        # quote or brace that no string or pragma took is one never closed
        alternatives = ([("UNCLOSED_COMMENT", r"\(\*")]
                        + [(t.name, t.pattern.to_regexp()) for t in ordered]
                        + [("UNCLOSED", r"""\{|'|\"""")])
        tokens, kinds = alternation_by_first_character(alternatives, flags, _FREQUENT)
        tokens_nl, kinds_nl = alternation_by_first_character(alternatives + [("_NL", "\n")], flags,
                                                             _FREQUENT)
        self._token_nl = re.compile(f"{_GAP}(?:{tokens_nl})", flags)
        self._token = re.compile(f"{_GAP_NL}(?:{tokens})", flags)
        self._kinds = _by_number(kinds)
        self._kinds_nl = _by_number(kinds_nl)
        self._gap_nl = re.compile(_GAP_NL).match
        self._gap = re.compile(_GAP).match

    def tokens(self, text: str, state_stack: list):
        """The tokens of ``text``; ``state_stack`` is the parser's, read (never
        changed) before each token to decide keywords and body starts."""
        actions = self.actions
        reserved = RESERVED
        contextual = self._contextual
        body_starts = self._body_starts
        new = str.__new__
        # the IL flag of each open body, and the words that close it
        il = "_NL" in self._accepts[state_stack[-1]]
        modes: list[tuple[bool, frozenset]] = [(il, frozenset())]
        pos, line, line_start = 0, 1, 0
        match, kinds = self._reader(il, text, pos)
        end = len(text)
        detected_at = -1
        count = text.count
        find = text.find
        # where the next line end is, so that most tokens need no count of the
        # line ends before them (only comments, pragmas and _NL hold one)
        next_nl = find("\n")
        if next_nl < 0:
            next_nl = end
        closers = modes[-1][1]
        words: dict[str, tuple] = {}
        while True:
            state = state_stack[-1]
            starts = body_starts.get(state)
            if starts is not None and pos != detected_at:
                detected_at = pos
                body = detect_body(text, pos, starts)
                if body is not None and parser_accepts(actions, state_stack, body):
                    closers = _BODY_CLOSERS if "BODY_ST" in starts else _TRANSITION_ENDS
                    il = body == "BODY_IL"
                    modes.append((il, closers))
                    match, kinds = self._reader(il, text, pos)
                    # the body starts at its first token, not at the blank before it
                    at = self._gap_nl(text, pos).end() if not il else pos
                    tok = new(Token, "")
                    tok.type, tok.start_pos = body, at
                    tok.line = line + count("\n", pos, at)
                    tok.column = at - (text.rfind("\n", 0, at) + 1) + 1
                    yield tok
                    continue
            m = match()
            if m is None:
                gap = (self._gap if il else self._gap_nl)(text, pos).end()
                if gap >= end:
                    return
                line += count("\n", pos, gap)
                line_start = text.rfind("\n", 0, gap) + 1
                raise LexFailure(gap, line, gap - line_start + 1)
            number = m.lastindex
            kind = kinds[number]
            start, pos = m.span(number)
            if start > next_nl:
                line += count("\n", next_nl, start)
                line_start = text.rfind("\n", next_nl, start) + 1
                next_nl = find("\n", start)
                if next_nl < 0:
                    next_nl = end
            if pos - start > _SHORTEST_LIMIT:
                _check_length(kind, pos - start, line, start - line_start + 1)
            value = m.group(number)
            if kind == "IDENT":
                # a body spells the same few names over and over: each is looked up once
                known = words.get(value)
                if known is None:
                    upper = value.upper()
                    known = words[value] = (reserved.get(upper), upper)
                keyword, upper = known
                if keyword is not None:
                    kind = keyword
                    if kind in closers:
                        modes.pop()
                        il, closers = modes[-1]
                        match, kinds = self._reader(il, text, pos)
                else:
                    ctx = contextual.get(state)
                    if ctx is not None and upper in ctx and parser_accepts(actions, state_stack, upper):
                        kind = upper
            elif kind in _SPECIAL:
                if kind == "_NL":
                    tok = new(Token, value)
                    tok.type, tok.start_pos, tok.line, tok.column = kind, start, line, start - line_start + 1
                    line += 1
                    line_start = pos
                    next_nl = find("\n", pos)
                    if next_nl < 0:
                        next_nl = end
                    yield tok
                    continue
                if kind == "PRAGMA":
                    tok = new(Token, value)
                    tok.type, tok.start_pos, tok.line, tok.column = kind, start, line, start - line_start + 1
                    inside = count("\n", start, pos)
                    if inside:
                        line += inside
                        line_start = text.rfind("\n", start, pos) + 1
                        next_nl = find("\n", pos)
                        if next_nl < 0:
                            next_nl = end
                    if parser_accepts(actions, state_stack, "PRAGMA"):
                        yield tok
                    continue
                raise _unclosed(value, line, start - line_start + 1)
            tok = new(Token, value)
            tok.type, tok.start_pos, tok.line, tok.column = kind, start, line, start - line_start + 1
            yield tok

    def _reader(self, il: bool, text: str, pos: int):
        """(the next token's match from ``pos`` on, its kinds by group number)
        in IL lines or elsewhere."""
        if il:
            return self._token_nl.scanner(text, pos).match, self._kinds_nl
        return self._token.scanner(text, pos).match, self._kinds


def _by_number(kinds: dict[int, str]) -> tuple:
    """The kind of each group number, as a tuple indexed by it."""
    return tuple(kinds.get(number) for number in range(max(kinds) + 1))


def _check_length(kind: str, length: int, line: int, column: int) -> None:
    longest = _LONGEST.get(kind, MAX_LITERAL)
    if longest is not None and length > longest:
        what = _WHAT.get(kind, "a literal")
        raise LexError(f"{what} of {length:,} characters is too long (at most {longest:,})",
                       line, column)


class LexFailure(Exception):
    """No token starts at ``pos`` (line, column)."""

    def __init__(self, pos: int, line: int, column: int):
        super().__init__(pos)
        self.pos = pos
        self.line = line
        self.column = column


class LexError(Exception):
    """A token that cannot be read: never closed, or too long (``message`` says which)."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def _unclosed(value: str, line: int, column: int) -> LexError:
    what = {"(*": "a comment opened here is never closed with *)",
            "{": "a pragma opened here is never closed with }",
            "'": "a string opened here is not closed on this line (write $N for a line break)",
            '"': "a string opened here is not closed on this line (write $N for a line break)",
            }[value]
    return LexError(what, line, column)
