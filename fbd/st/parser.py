"""Parsing entry points and the translation of parse failures into StErrors."""

from __future__ import annotations

import gc
import re
import threading
from importlib import resources

from lark import Lark

from . import ast as A
from .driver import Driver, ParseFailure
from .errors import StNestingError, StSyntaxError
from .lexer import _SCAN, RESERVED, LexError, LexFailure, parser_accepts
from .transform import AstBuilder, PositionedError

__all__ = ["parse", "parse_body", "parse_expression", "LANGUAGES"]

LANGUAGES = ("ST", "IL", "SFC")
_STARTS = {"file": "start", "ST": "st_text", "IL": "il_text", "SFC": "sfc_text",
           "expression": "expression_text"}

_lock = threading.Lock()
_driver: Driver | None = None
_builder = AstBuilder()


def grammar_text() -> str:
    return resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


def _parser() -> Driver:
    """The parser, built on first use. lark computes the LALR tables and
    caches them (in the temporary directory, keyed by the grammar), so only
    the first process on a machine pays the full construction."""
    global _driver
    if _driver is None:
        with _lock:
            if _driver is None:
                lark = Lark(grammar_text(), parser="lalr", lexer="basic", transformer=_builder,
                            start=list(_STARTS.values()), maybe_placeholders=False, cache=True)
                _driver = Driver(lark, _builder)
    return _driver


def _run(text: str, start: str, filename: str, pou: str | None):
    if text.startswith("\ufeff"):
        text = text[1:]
    driver = _parser()
    _builder.reset()
    # The tree has no reference cycles: the collector, run again and again
    # over a growing tree, would only make a long parse quadratic.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return driver.parse(text, _STARTS[start])
    except PositionedError as e:
        cls = StNestingError if e.nesting else StSyntaxError
        raise cls(e.message, filename=filename, line=e.line, col=e.col,
                  pou=pou or enclosing_pou(text, _offset(text, e.line, e.col)), source=text) from None
    except LexError as e:
        raise StSyntaxError(e.message, filename=filename, line=e.line, col=e.column,
                            pou=pou or enclosing_pou(text, _offset(text, e.line, e.column)),
                            source=text) from None
    except LexFailure as e:
        raise _character_error(e, text, filename, pou) from None
    except ParseFailure as e:
        raise _token_error(e, driver, text, filename, pou) from None
    finally:
        if collecting:
            gc.enable()
        _builder.reset()


def parse(text: str, filename: str = "<input>") -> A.CompilationUnit:
    """Parse a whole IEC 61131-3 source file (a ``.st`` file as matiec and
    OpenPLC take it): data types, POUs in ST, IL or SFC, configurations.

    Raises :class:`~fbd.st.errors.StSyntaxError` naming file, line, column
    and POU. Only the syntax is checked; :func:`fbd.st.analyze` checks the
    declarations.
    """
    elements = _run(text, "file", filename, None)
    return A.CompilationUnit(filename=filename, elements=elements, source=text, line=1, col=1)


def parse_body(text: str, language: str = "ST", *, filename: str = "<input>", pou: str | None = None,
               line: int = 1, col: int = 1) -> A.StBody | A.IlBody | A.SfcBody:
    """Parse one POU body in ``language`` (ST, IL or SFC), as PLCopen XML
    carries it in ``<ST>``/``<IL>`` elements: statements (or instructions, or
    steps, transitions and actions) without the declarations around them.

    ``line`` and ``col`` say where the text starts in ``filename``, so that
    positions (of nodes and errors) are those of the file; ``pou`` names the
    POU in error messages. An empty or blank text gives an empty body.
    """
    language = language.upper()
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    if _blank(text):
        empty = {"ST": A.StBody(statements=()), "IL": A.IlBody(instructions=()),
                 "SFC": A.SfcBody(steps=(), transitions=(), actions=())}[language]
        return empty
    padded = "\n" * (line - 1) + " " * (col - 1) + text
    return _run(padded, language, filename, pou)


def parse_expression(text: str, *, filename: str = "<input>") -> A.Node:
    """Parse one ST expression (``"a + b * 2"``)."""
    return _run(text, "expression", filename, None)


def _blank(text: str) -> bool:
    pos = 0
    while True:
        m = _SCAN.match(text, pos)
        if m is None:
            return True
        if m.lastgroup != "skip":
            return False
        pos = m.end()


def _offset(text: str, line: int, col: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nxt = text.find("\n", pos)
        if nxt < 0:
            break
        pos = nxt + 1
    return pos + col - 1


_POU_WORDS = {"FUNCTION", "FUNCTION_BLOCK", "PROGRAM", "CONFIGURATION"}
_POU_ENDS = {"END_FUNCTION", "END_FUNCTION_BLOCK", "END_PROGRAM", "END_CONFIGURATION"}


def enclosing_pou(text: str, offset: int) -> str | None:
    """``"PROGRAM main"`` if ``offset`` lies inside that POU (or
    ``"CONFIGURATION c"``), else None; comments and strings are skipped."""
    pos = 0
    current = None
    expect_name = None
    scan = _SCAN.match
    while pos < offset:
        m = scan(text, pos)
        if m is None:
            break
        pos = m.end()
        if m.lastgroup != "word":
            if m.lastgroup != "skip":
                expect_name = None
            continue
        word = m.group("word")
        upper = word.upper()
        if expect_name is not None:
            current = f"{expect_name} {word}"
            expect_name = None
        elif upper in _POU_WORDS and not (upper == "PROGRAM" and current
                                          and current.startswith("CONFIGURATION")):
            expect_name = upper
            current = upper
        elif upper in _POU_ENDS:
            current = None
    return current


# ---------------------------------------------------------------- error messages
_DISPLAY = {
    "IDENT": "a name", "INTEGER": "an integer", "REAL_NUMBER": "a real number", "BASED": "an integer",
    "SSTRING": "a string", "DSTRING": "a string", "DURATION": "a TIME literal", "TYPED_NUMBER": "a literal",
    "TYPED_ENUM": "an enumerated value", "DATE_LIT": "a DATE literal", "TOD_LIT": "a TOD literal",
    "DT_LIT": "a DT literal", "DIRECT": "a direct address (%IX0.0)", "DIRECT_PARTIAL": "%I*, %Q* or %M*",
    "_ASSIGN": "':='", "_SENDTO": "'=>'", "_DOTDOT": "'..'", "POWER": "'**'", "LESS_EQ": "'<='",
    "GREATER_EQ": "'>='", "NOT_EQUAL": "'<>'", "EQUALS": "'='", "LESS": "'<'", "GREATER": "'>'",
    "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "AMP": "'&'", "AMP_N": "'&N'",
    "_LPAR": "'('", "_RPAR": "')'", "_LSQB": "'['", "_RSQB": "']'", "_COMMA": "','", "_SEMI": "';'",
    "_COLON": "':'", "_DOT": "'.'", "_NL": "the end of the line", "$END": "the end of the text",
    "BODY_ST": "a statement", "BODY_IL": "an instruction", "BODY_SFC": "a step",
}
_EXPRESSION_STARTERS = {"IDENT", "INTEGER", "REAL_NUMBER", "BASED", "SSTRING", "DURATION", "_LPAR", "TRUE",
                        "MINUS", "NOT", "DIRECT"}
_BINARY_OPERATORS = {"PLUS", "MINUS", "STAR", "SLASH", "POWER", "MOD", "AND", "AMP", "OR", "XOR",
                     "EQUALS", "NOT_EQUAL", "LESS", "GREATER", "LESS_EQ", "GREATER_EQ"}
_KEYWORD_TERMINALS = set(RESERVED.values())
_LITERALS = {"TYPED_NUMBER", "DURATION", "DATE_LIT", "TOD_LIT", "DT_LIT", "SSTRING", "DSTRING", "BASED",
             "TYPED_ENUM", "DIRECT", "DIRECT_PARTIAL", "REAL_NUMBER", "INTEGER"}


def _name(terminal: str) -> str:
    if terminal in _DISPLAY:
        return _DISPLAY[terminal]
    return terminal.lstrip("_")


def describe_token(token) -> str:
    kind = token.type
    if kind == "$END":
        return "the end of the text"
    if kind in ("BODY_ST", "BODY_IL", "BODY_SFC"):
        return _DISPLAY[kind]
    if kind == "_NL":
        return "the end of the line"
    if kind in _KEYWORD_TERMINALS or kind.isupper() and kind.lstrip("_") == str(token).upper():
        return f"keyword {str(token).upper()}"
    if kind == "IDENT":
        return f"name {str(token)!r}"
    if kind in _LITERALS:
        return f"{str(token)!r}"
    return _DISPLAY.get(kind, repr(str(token)))


def describe_expected(expected) -> str:
    names = set(expected) - {"$END"} if len(expected) > 1 else set(expected)
    parts: list[str] = []
    if "BODY_ST" in names or "BODY_IL" in names or len(names & _STATEMENT_STARTS) >= 4:
        names -= {"BODY_ST", "BODY_IL", "BODY_SFC", "IDENT", "PRAGMA"} | _STATEMENT_STARTS
        parts.append("a statement")
    if len(names & _EXPRESSION_STARTERS) >= 4:
        names -= _EXPRESSION_STARTERS | _LITERALS | {"FALSE", "AND", "OR", "XOR", "MOD", "PLUS"}
        parts.append("an expression")
    if len(names & _BINARY_OPERATORS) >= 4:
        names -= _BINARY_OPERATORS
        parts.append("an operator")
    if len(names & {"LD", "ST", "S", "R", "JMP", "CAL", "RET"}) >= 4:
        names = {n for n in names if n in ("IDENT", "_NL", "_RPAR")}
        parts.append("an IL instruction")
    ordered = sorted(names, key=lambda n: (not n.startswith("_"), n))
    parts += [_name(n) for n in ordered]
    if len(parts) > 8:
        parts = parts[:8] + ["..."]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _previous_significant(text: str, offset: int) -> tuple[int, str] | None:
    """The last non-blank, non-comment character before ``offset`` and its offset."""
    pos = 0
    last = None
    scan = _SCAN.match
    while pos < offset:
        m = scan(text, pos)
        if m is None:
            break
        if m.lastgroup != "skip":
            last = (m.end() - 1, text[m.end() - 1])
        elif m.group(0)[:1] in "'\"":
            last = (m.end() - 1, m.group(0)[-1])
        pos = m.end()
    return last


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _character_error(e: LexFailure, text: str, filename: str, pou: str | None) -> StSyntaxError:
    ch = text[e.pos]
    message = f"unexpected character {ch!r}"
    if ch == "_" or (ch.isalnum() and e.pos > 0 and text[e.pos - 1] == "_"):
        message += " (an IEC identifier has no double underscore and does not end with '_')"
    elif ch in "#%":
        message += " (a malformed literal or address?)"
    elif ord(ch) > 127:
        message += " (outside strings and comments IEC 61131-3 text is ASCII)"
    elif ch == "^":
        message = _UNSUPPORTED["REF_TO"]
    return StSyntaxError(message, filename=filename, line=e.line, col=e.column,
                         pou=pou or enclosing_pou(text, e.pos), source=text)


def _token_error(e: ParseFailure, driver: Driver, text: str, filename: str,
                 pou: str | None) -> StSyntaxError:
    token = e.token
    actions = driver.actions
    # the terminals the parser really accepts here, not the merged LALR lookaheads
    row = actions[e.stack[-1]]
    expected = {t for t in row if t.isupper() and parser_accepts(actions, e.stack, t)} or \
        {t for t in row if t.isupper()}
    offset = token.start_pos
    if token.type == "$END":
        offset = len(text.rstrip())
        line, col = _line_col(text, offset)
    else:
        line, col = token.line, token.column
    message = _token_message(token, expected, text, offset)
    if message.startswith("';' missing"):
        prev = _previous_significant(text, offset)
        if prev is not None:
            offset = prev[0] + 1
            line, col = _line_col(text, offset)
    return StSyntaxError(message, filename=filename, line=line, col=col,
                         pou=pou or enclosing_pou(text, offset), source=text)


_BODY_ENDS = {"_END_FUNCTION", "_END_FUNCTION_BLOCK", "_END_PROGRAM", "_END_ACTION"}
_STATEMENT_STARTS = {"IF", "CASE", "FOR", "WHILE", "REPEAT", "EXIT", "CONTINUE", "RETURN"}
_CLOSERS = {"END_IF", "ELSE", "ELSIF", "END_CASE", "END_FOR", "END_WHILE", "UNTIL", "END_REPEAT"}


_UNSUPPORTED = {
    **dict.fromkeys(("REF_TO", "REF", "DREF", "NULL"),
                    "references (REF_TO, REF(), ^, NULL) are not supported (matiec reads them only with -r)"),
    **dict.fromkeys(("METHOD", "END_METHOD", "INTERFACE", "END_INTERFACE", "PROPERTY", "END_PROPERTY",
                     "EXTENDS", "IMPLEMENTS", "CLASS", "END_CLASS", "NAMESPACE", "END_NAMESPACE", "THIS",
                     "SUPER"),
                    "the object-oriented parts of IEC 61131-3 ed. 3 (METHOD, INTERFACE, CLASS, ...) are "
                    "not supported (matiec has none)"),
}


def _hint(token, expected: set, text: str, offset: int) -> str | None:
    """A message for input that is valid IEC 61131-3 elsewhere, or a
    matiec option, but not read here: better than "unexpected ..."."""
    word = str(token).upper()
    prev = _previous_word(text, offset)
    for w in (word, prev):
        if w in _UNSUPPORTED:
            return _UNSUPPORTED[w]
    if token.type == "INTEGER" and prev == ".":
        return "bit access (w.3, w.%X3) is not supported (matiec has none)"
    if token.type == "IDENT" and prev == ".." and "INTEGER" in expected:
        return f"array bounds are integer literals, not {token} (matiec takes names only with -a)"
    after = text[offset + len(str(token)):offset + len(str(token)) + 20]
    if token.type in ("STRING", "WSTRING", "CHAR") and after.startswith("#"):
        return "typed string literals (STRING#'...') are not supported (matiec has none)"
    if token.type in _TYPE_KEYWORDS and after.lstrip().startswith("#"):
        return f"write a typed literal without blanks around '#' ({word}#...)"
    if expected == {"_COLON"} and _FUNCTION_HEAD.search(text[max(0, offset - 200):offset]):
        return ("a FUNCTION needs a result type (FUNCTION F : INT); matiec refuses one without "
                "it too")
    if word == "STRUCT" and text[:offset].rstrip().endswith(":"):
        return ("a STRUCT declared in a variable's type is refused (matiec refuses it too); "
                "declare it in TYPE ... END_TYPE and name it")
    if word == "(" and prev == "OF":
        return ("an array of an enumeration declared in place is refused (matiec refuses it too); "
                "declare the enumeration in TYPE ... END_TYPE and name it")
    if token.type == "_ASSIGN" and _after_enum_member(text, offset):
        return ("enumerated values take no numbers ((A := 1) is IEC 61131-3 ed. 3; matiec refuses it)")
    return None


_FUNCTION_HEAD = re.compile(r"\bFUNCTION\s+[A-Za-z_]\w*\s*$", re.I)
_TYPE_KEYWORDS = set("""BOOL SINT INT DINT LINT USINT UINT UDINT ULINT BYTE WORD DWORD LWORD REAL LREAL
TIME DATE TIME_OF_DAY TOD DATE_AND_TIME DT""".split())


def _previous_word(text: str, offset: int) -> str | None:
    """The token text just before ``offset`` (a word upper-cased, or '.', '..')."""
    prev = _previous_significant(text, offset)
    if prev is None:
        return None
    end = prev[0] + 1
    if text[prev[0]] == ".":
        return ".." if prev[0] > 0 and text[prev[0] - 1] == "." else "."
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:end].upper() or None


_ENUM_MEMBER_BEFORE = re.compile(r":\s*\(\s*[A-Za-z_]\w*\s*$|,\s*[A-Za-z_]\w*\s*$")


def _after_enum_member(text: str, offset: int) -> bool:
    """Whether ':=' at ``offset`` follows "( A" or ", A" inside a TYPE's parentheses."""
    head = text[max(0, offset - 200):offset].rstrip()
    return bool(_ENUM_MEMBER_BEFORE.search(head)) and "TYPE" in text[max(0, offset - 2000):offset].upper()


def _token_message(token, expected: set, text: str, offset: int) -> str:
    if token.type == "$END":
        return f"the text ends too early; expected {describe_expected(expected)}"
    hint = _hint(token, expected, text, offset)
    if hint is not None:
        return hint
    kind = token.type
    got = describe_token(token)
    if kind in _BODY_ENDS and expected & {"BODY_ST", "BODY_IL", "BODY_SFC"}:
        return (f"no body before {str(token).upper()}: a POU or action needs at least one statement "
                "(matiec refuses an empty body)")
    if kind == "_SEMI":
        prev = _previous_significant(text, offset)
        if prev is not None and prev[1] == ";":
            return "unexpected ';': an empty statement (matiec refuses ';;')"
    if len(expected & _STATEMENT_STARTS) >= 4 and kind.lstrip("_") in _CLOSERS:
        return (f"no statement before {str(token).upper()}: matiec needs at least one "
                "(an empty THEN, ELSE, DO or REPEAT is refused)")
    word = str(token).upper()
    if word in ("END_VAR", "END_TYPE", "END_STRUCT") and "IDENT" in expected:
        block = {"END_VAR": "VAR ... END_VAR", "END_TYPE": "TYPE ... END_TYPE",
                 "END_STRUCT": "STRUCT ... END_STRUCT"}[word]
        return f"nothing declared before {word}: matiec refuses an empty {block}"
    if kind == "_ASSIGN" and {"_COMMA", "_RPAR"} <= expected:
        return ("unexpected ':=': the arguments of a call are either all formal (name := value) "
                "or all positional")
    if (kind in _KEYWORD_TERMINALS and "IDENT" in expected and kind not in expected
            and len(expected & _EXPRESSION_STARTERS) < 3):
        return f"{str(token).upper()} is a reserved keyword and cannot be used as a name"
    if "_SEMI" in expected and kind != "_SEMI":
        prev = _previous_significant(text, offset)
        if prev is not None and text.count("\n", prev[0], offset):
            return f"';' missing at the end of the line (found {got} on the next line)"
    if kind == "BODY_ST" and "IDENT" in expected:
        return "unexpected statement"
    if kind == "BODY_IL" and expected <= {"_ASSIGN"}:
        return "a transition needs ':= condition;' or an IL body after ':'"
    if kind == "_NL" and "_NL" not in expected:
        return f"an IL instruction ends too early; expected {describe_expected(expected)}"
    if kind == "VAR_ACCESS":
        return "VAR_ACCESS is not supported (matiec does not support access paths)"
    return f"unexpected {got}; expected {describe_expected(expected)}"

