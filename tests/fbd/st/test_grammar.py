"""The grammar builds as LALR(1) without a conflict (lark resolves a
shift/reduce conflict silently, as a shift: that would hide a mistake)."""

import logging

from lark import Lark, logger

from fbd.st.parser import _STARTS, grammar_text


def test_the_grammar_has_no_lalr_conflict(caplog):
    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark(grammar_text(), parser="lalr", lexer="basic", start=list(_STARTS.values()), debug=True)
    finally:
        logger.setLevel(logging.WARNING)
    conflicts = [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()]
    assert not conflicts, conflicts
