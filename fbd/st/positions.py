"""Where a node of the syntax tree comes from: the token positions every rule
records, and the literal and address nodes made straight from one token."""

from __future__ import annotations

from lark import Token

from .. import address
from ..errors import WiringError
from . import ast as A
from . import literals as lit


class PositionedError(Exception):
    """Raised during the parse; the parser adds file name, POU and excerpt."""

    def __init__(self, message: str, line: int, col: int, nesting: bool = False):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.nesting = nesting


def at(tok: Token) -> dict:
    return {"line": tok.line, "col": tok.column}


def pos(node) -> dict:
    return {"line": node.line, "col": node.col}


def literal_error(e: lit.LiteralError, tok: Token) -> PositionedError:
    return PositionedError(e.message, tok.line, tok.column + e.offset)


def literal_from_token(tok: Token) -> A.Literal | A.EnumLiteral:
    """The literal node of a literal token (TYPED_NUMBER, DURATION, SSTRING, ...)."""
    kind = tok.type
    text = str(tok)
    where = at(tok)
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
        raise literal_error(e, tok) from None
    raise AssertionError(f"not a literal token: {kind}")


def value_of(c):
    return literal_from_token(c) if isinstance(c, Token) else c


def direct_var(tok: Token) -> A.DirectVar:
    text = str(tok)
    body = text[1:].upper()
    area = body[0]
    if body[1:2] == "*":
        return A.DirectVar(text=text, area=area, size="", address=(), partial=True, **at(tok))
    try:        # what a port may be located at (fields and digits bounded), said here with the place
        address.parse(text, "the address")
    except WiringError as e:
        raise PositionedError(str(e), tok.line, tok.column) from None
    size = body[1] if body[1:2].isalpha() else ""
    digits = body[2:] if size else body[1:]
    return A.DirectVar(text=text, area=area, size=size, address=tuple(int(p) for p in digits.split(".")),
                       **at(tok))


__all__ = ["PositionedError", "at", "pos", "literal_error", "literal_from_token",
           "value_of", "direct_var"]
