"""The scanner's one expression tried by first character (fbd/st/firstchar.py)
matches what lark's ordered alternation of the grammar's terminals matches,
at every position of every ST file here and of hostile texts."""

import random
import re
from pathlib import Path

import pytest
from lark import Lark

from fbd.st import parser as P
from fbd.st.firstchar import BEYOND_ASCII, alternation_by_first_character, first_characters
from fbd.st.lexer import _IGNORED, _lark_order

DATA = Path(__file__).resolve().parents[2] / "data"


def _terminals():
    grammar = Lark(P.grammar_text(), parser="lalr", lexer="basic", start=list(P._STARTS.values()),
                   maybe_placeholders=False, cache=True)
    ordered = sorted((t for t in grammar.terminals if t.name not in _IGNORED), key=_lark_order)
    return [(t.name, t.pattern.to_regexp()) for t in ordered]


def _same_everywhere(alternatives, texts):
    plain = re.compile("|".join(f"(?P<{name}>{regexp})" for name, regexp in alternatives))
    expression, kinds = alternation_by_first_character(alternatives, 0, "a;")
    grouped = re.compile(expression)
    for text in texts:
        for pos in range(len(text)):
            a, b = plain.match(text, pos), grouped.match(text, pos)
            got_a = a and (a.lastgroup, a.span())
            got_b = b and (kinds[b.lastindex], b.span())
            assert got_a == got_b, (text[pos:pos + 40], got_a, got_b)


def test_every_position_of_every_st_file_matches_as_the_ordered_alternation():
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in sorted(DATA.rglob("*.st"))]
    assert len(texts) > 100
    _same_everywhere(_terminals(), texts)


def test_hostile_texts_match_as_the_ordered_alternation():
    alphabet = list("aAdDtTlLsSkK_#%&'\"{}()*:=<>.;,[]+-/019216eE$\n \t") + ["\u212a", "\u0663", "é", "ſ"]
    words = ["T#", "TIME#", "DT#", "TOD#", "D#", "INT#", "16#", "2#", "%IX", "%QW", "%M*", "&N",
             "Color#Red", "1.5E3", "1_000", "(*", "*)", "//", "{{", "}}", "LTIME#", "\u212aINT#"]
    rng = random.Random(27)
    texts = ["".join(rng.choice(alphabet + words) for _ in range(60)) for _ in range(3000)]
    _same_everywhere(_terminals(), texts)


@pytest.mark.parametrize(("regexp", "starts"), [
    (r"\d+", set("0123456789") | {BEYOND_ASCII}),
    (r"(?i:lt|t)#", set("lLtT") | {BEYOND_ASCII}),
    (r"a?b", {"a", "b"}),
    (r"%[IQM]", {"%"}),
])
def test_the_first_characters_of_an_expression_are_read_from_its_parts(regexp, starts):
    assert first_characters(regexp) == starts


def test_what_may_match_nothing_may_start_with_any_character():
    assert len(first_characters(r"a*")) == 129
    assert len(first_characters(r"[^a]")) == 129
