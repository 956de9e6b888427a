"""The lexer: lark's contextual lexer, with matiec's three pieces of context.

1. **Keywords.** Every word is lexed as ``IDENT``. Reserved words (``IF``,
   ``INT``, ``VAR``, ...) are then always retyped to their keyword, so they can
   never name anything. Contextual words are keywords only where the parser
   state accepts them, and names everywhere else, as matiec's flex states
   make them: the IL operators (``LD``, ``ST``, ``S``, ``R``, ``IN``, ``PT``,
   ``ADD``, ``GT``, ...), the SFC action qualifiers (``N``, ``P``, ``D``, ...)
   and the task properties (``PRIORITY``, ``SINGLE``, ``INTERVAL``). So a
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
   declarations ignore line ends. ``_NL`` tokens are lexed everywhere and
   passed to the parser only inside an IL body (or IL transition condition).

Comments ``(* ... *)`` / ``// ...`` are skipped everywhere; they do not nest
(matiec without its ``-n`` option). A pragma ``{...}`` / ``{{...}}`` is passed
on where a statement or IL instruction may stand (matiec keeps them there:
C code for its back end) and skipped everywhere else.
"""

from __future__ import annotations

import re

from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import ContextualLexer, Token
from lark.parsers.lalr_analysis import Shift

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
N P P0 P1 L D SD DS SL PRIORITY SINGLE INTERVAL
""".split())

BODY_TOKENS = ("BODY_ST", "BODY_IL", "BODY_SFC")

# What closes a body: the mode pushed at its start is popped there. A POU's
# and an action's body end at the same words (either is an error in the other).
_BODY_CLOSERS = frozenset({"_END_FUNCTION", "_END_FUNCTION_BLOCK", "_END_PROGRAM", "_END_ACTION"})
_TRANSITION_ENDS = frozenset({"_END_TRANSITION"})

# Looking ahead into a body: skip what the parser skips, find words and ';'.
_SCAN = re.compile(r"""
    (?P<skip>[ \t\f\r\v\n]+ | \(\*[\s\S]*?\*\) | //[^\n]* | \{\{[\s\S]*?\}\} | \{[^}]*\}
             | '(?:\$[^\n]|[^'$\n])*' | "(?:\$[^\n]|[^"$\n])*")
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<assign>:=)
  | (?P<other>[\s\S])
""", re.X)
_DECLARATION_WORDS = frozenset("""VAR VAR_INPUT VAR_OUTPUT VAR_IN_OUT VAR_TEMP VAR_GLOBAL VAR_EXTERNAL
VAR_ACCESS VAR_CONFIG END_FUNCTION END_FUNCTION_BLOCK END_PROGRAM END_ACTION""".split())
_SFC_WORDS = frozenset({"INITIAL_STEP", "STEP", "TRANSITION", "ACTION"})
_ST_WORDS = frozenset({"IF", "CASE", "FOR", "WHILE", "REPEAT", "EXIT", "CONTINUE", "RETURN"})
_BODY_ENDS = frozenset({"END_FUNCTION", "END_FUNCTION_BLOCK", "END_PROGRAM", "END_ACTION",
                        "END_TRANSITION"})


def detect_body(text: str, pos: int, accepted: frozenset) -> str | None:
    """Which BODY_* token starts a body at ``pos`` (None: no body starts here).

    ``accepted`` are the BODY_* tokens the parser accepts at this point: a
    transition accepts only BODY_IL, and only when no ``:=`` follows.
    """
    scan = _SCAN.match
    first = None
    while True:
        m = scan(text, pos)
        if m is None:                       # end of text
            if first is None:
                return None
            break
        pos = m.end()
        kind = m.lastgroup
        if kind == "skip":
            continue
        value = m.group(kind)
        if first is None:
            first = (kind, value.upper())
            if "BODY_ST" not in accepted:   # transition condition: IL unless ':='
                return None if kind == "assign" else "BODY_IL"
            if kind == "word":
                word = first[1]
                if word in _DECLARATION_WORDS:
                    return None
                if word in _SFC_WORDS:
                    return "BODY_SFC"
                if word in _ST_WORDS:
                    return "BODY_ST"
        if kind == "other" and value == ";":
            return "BODY_ST"
        if kind == "word" and value.upper() in _BODY_ENDS:
            return "BODY_IL"
    return "BODY_IL"


def parser_accepts(table: dict, state_stack: list, terminal: str) -> bool:
    """Whether the parser, with ``state_stack``, would shift ``terminal`` next.

    A state's lookahead set is not enough: LALR merges the lookaheads of
    states with the same items, so a reduce state may list a terminal that
    only follows in another context (a BODY_ST after a FUNCTION's return type
    is listed after every variable's type name). This runs the reductions on
    a copy of the state stack, without values, until the terminal is shifted
    or refused.
    """
    stack = list(state_stack)
    while True:
        action = table[stack[-1]].get(terminal)
        if action is None:
            return False
        kind, arg = action
        if kind is Shift:
            return True
        size = len(arg.expansion)
        if size:
            del stack[-size:]
        stack.append(table[stack[-1]][arg.origin.name][1])


class IecLexer(ContextualLexer):
    """lark's ContextualLexer plus keyword retyping, body detection and IL line ends.

    A text parsed from a start rule that accepts line ends (an IL body given
    alone) is in IL mode from its first character.
    """

    def __init__(self, conf, states, always_accept=()):
        super().__init__(conf, states, tuple(always_accept) + ("IDENT", "_NL", "UNCLOSED", "PRAGMA"))
        self._accepts = {s: frozenset(a) for s, a in states.items()}
        self._contextual: dict[int, dict[str, str]] = {}
        self._body_starts: dict[int, frozenset] = {}
        for s, acc in self._accepts.items():
            ctx = {w: w for w in CONTEXTUAL if w in acc}
            if ctx:
                self._contextual[s] = ctx
            starts = acc.intersection(BODY_TOKENS)
            if starts:
                self._body_starts[s] = frozenset(starts)

    def lex(self, lexer_state, parser_state):
        # the IL flag of each open body, and what closes it
        modes: list[tuple[bool, frozenset]] = [
            ("_NL" in self._accepts[parser_state.position], frozenset())]
        reserved = RESERVED
        contextual = self._contextual
        body_starts = self._body_starts
        lexers = self.lexers
        text = getattr(lexer_state.text, "text", lexer_state.text)   # a TextSlice from lark 1.3
        line_ctr = lexer_state.line_ctr
        table = parser_state.parse_conf.states
        state_stack = parser_state.state_stack
        detected_at = -1
        try:
            while True:
                state = state_stack[-1]
                starts = body_starts.get(state)
                if starts is not None and line_ctr.char_pos != detected_at:
                    detected_at = line_ctr.char_pos
                    body = detect_body(text, detected_at, starts)
                    if body is not None and parser_accepts(table, state_stack, body):
                        closers = _BODY_CLOSERS if "BODY_ST" in starts else _TRANSITION_ENDS
                        modes.append((body == "BODY_IL", closers))
                        yield Token(body, "", detected_at, line_ctr.line, line_ctr.column)
                        continue
                try:
                    tok = lexers[state].next_token(lexer_state, parser_state)
                except UnexpectedCharacters as e:
                    raise self._unexpected(e, lexer_state, parser_state) from None
                kind = tok.type
                if kind == "IDENT":
                    upper = tok.value.upper()
                    keyword = reserved.get(upper)
                    if keyword is not None:
                        tok.type = kind = keyword
                    else:
                        ctx = contextual.get(state)
                        if ctx is not None and upper in ctx and parser_accepts(table, state_stack, upper):
                            tok.type = kind = upper
                elif kind == "_NL":
                    if not modes[-1][0]:
                        continue
                elif kind == "PRAGMA":
                    if not parser_accepts(table, state_stack, "PRAGMA"):
                        continue
                elif kind == "UNCLOSED":
                    raise _unclosed(tok, lexer_state, parser_state)
                if kind in modes[-1][1]:
                    modes.pop()
                yield tok
        except EOFError:
            pass

    def _unexpected(self, e: UnexpectedCharacters, lexer_state, parser_state):
        """A character no terminal of this state matches: if it starts a token
        valid elsewhere (':=' where an expression ends), report that token as
        unexpected, with what the parser expected instead."""
        try:
            last = lexer_state.last_token
            tok = self.root_lexer.next_token(lexer_state, parser_state)
        except (UnexpectedCharacters, EOFError):
            return e
        if tok.type == "IDENT":
            tok.type = RESERVED.get(tok.value.upper(), "IDENT")
        if tok.type == "UNCLOSED":
            return _unclosed(tok, lexer_state, parser_state)
        expected = {t for t in parser_state.parse_conf.states[parser_state.position] if t.isupper()}
        return UnexpectedToken(tok, expected, state=parser_state, token_history=[last])


class UnclosedError(Exception):
    def __init__(self, what: str, line: int, column: int):
        super().__init__(what)
        self.what = what
        self.line = line
        self.column = column


def _unclosed(tok: Token, lexer_state, parser_state) -> UnclosedError:
    what = {"(*": "a comment opened here is never closed with *)",
            "{": "a pragma opened here is never closed with }",
            "'": "a string opened here is not closed on this line (write $N for a line break)",
            '"': "a string opened here is not closed on this line (write $N for a line break)",
            }[tok.value]
    return UnclosedError(what, tok.line, tok.column)
