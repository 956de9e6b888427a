"""One regular expression for many ordered alternatives, tried by first character.

Python's ``re`` tries the alternatives of ``a|b|c|...`` one after the other at
each position: with the grammar's forty terminals, a ``;`` was tried against
every literal, number and name pattern before its own. Two alternatives that
cannot start with the same character never compete, so
:func:`alternation_by_first_character` groups the alternatives by the
characters they may start with and guards each group with a look-ahead on its
characters: at a position only one group is tried, its alternatives in their
given order, so the match is the one the plain alternation finds.

The characters an alternative may start with are read from its parsed form
(the ``re`` module's parser, as lark reads widths with it); whatever the reading
is not sure of (a class it does not know, a part that may be empty) counts as
every character, which can only put the alternative in more groups.
"""

from __future__ import annotations

import re

try:
    import re._constants as _c
    import re._parser as _parser
except ImportError:  # pragma: no cover - Python before 3.11
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _parser  # type: ignore[no-redef]

#: stands for every character beyond ASCII (they are told apart only as a whole)
BEYOND_ASCII = "\x80"
_EVERY = frozenset([chr(i) for i in range(128)] + [BEYOND_ASCII])
_DIGITS = frozenset("0123456789" + BEYOND_ASCII)
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# \d, \w and \s of a str pattern match beyond ASCII too
_CATEGORIES = {_c.CATEGORY_DIGIT: _DIGITS, _c.CATEGORY_WORD: _DIGITS | _LETTERS | {"_"},
               _c.CATEGORY_SPACE: frozenset(" \t\n\r\f\v\x1c\x1d\x1e\x1f" + BEYOND_ASCII)}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}


def first_characters(regexp: str, flags: int = 0) -> frozenset:
    """The characters a match of ``regexp`` may start with (a superset), the
    ones beyond ASCII as :data:`BEYOND_ASCII`."""
    found = _sequence(list(_parser.parse(regexp, flags)), bool(flags & re.I))
    return _EVERY if found is None else frozenset(found)


def _sequence(items: list, caseless: bool) -> set | None:
    """The first characters of a sequence; None: any (it may match nothing, or
    it holds what is not read here)."""
    found: set = set()
    for op, arg in items:
        first, may_be_empty = _item(op, arg, caseless)
        if first is None:
            return None
        found |= first
        if not may_be_empty:
            return found
    return None


def _item(op, arg, caseless: bool) -> tuple[set | None, bool]:
    if op is _c.LITERAL:
        return _character(arg, caseless), False
    if op is _c.IN:
        return _class(arg, caseless), False
    if op is _c.SUBPATTERN:
        _group, added, removed, pattern = arg
        caseless = (caseless or bool(added & re.I)) and not removed & re.I
        return _sequence(list(pattern), caseless), False
    if op is _c.BRANCH:
        found: set = set()
        for alternative in arg[1]:
            first = _sequence(list(alternative), caseless)
            if first is None:
                return None, True
            found |= first
        return found, False
    if op in _REPEATS:
        least, _most, pattern = arg
        return _sequence(list(pattern), caseless), least == 0
    return None, True


def _character(code: int, caseless: bool) -> set:
    if code >= 128:
        return {BEYOND_ASCII}
    ch = chr(code)
    # ignoring case, a letter matches some beyond ASCII too (k: the Kelvin sign)
    return {ch.lower(), ch.upper(), BEYOND_ASCII} if caseless and ch.isalpha() else {ch}


def _class(items, caseless: bool) -> set | None:
    found: set = set()
    for op, arg in items:
        if op is _c.LITERAL:
            found |= _character(arg, caseless)
        elif op is _c.RANGE:
            low, high = arg
            for code in range(low, min(high, 127) + 1):
                found |= _character(code, caseless)
            if high >= 128:
                found.add(BEYOND_ASCII)
        elif op is _c.CATEGORY and arg in _CATEGORIES:
            found |= _CATEGORIES[arg]
        else:                           # a negated class, another category
            return set(_EVERY)
    return found


def alternation_by_first_character(alternatives: list[tuple[str, str]], flags: int = 0,
                                   frequent: str = "") -> tuple[str, dict[int, str]]:
    """``(regular expression, {group number: name})`` matching what
    ``(?P<name>regexp)|...`` over ``alternatives`` (``(name, regexp)`` pairs, in
    the order they are to be tried) matches, by its group numbers: a name
    can be in several groups. The groups are tried in the order of their
    characters in ``frequent`` (the most frequent first), the others after."""
    starts = {name: first_characters(regexp, flags) for name, regexp in alternatives}
    groups: dict[tuple, list[str]] = {}
    for ch in sorted(_EVERY):
        names = tuple(name for name, _ in alternatives if ch in starts[name])
        if names:
            groups.setdefault(names, []).append(ch)
    rank = {ch: i for i, ch in enumerate(frequent)}
    ordered = sorted(groups.items(), key=lambda group: min(rank.get(ch, len(rank)) for ch in group[1]))
    regexps = dict(alternatives)
    parts, names_of = [], []
    for names, characters in ordered:
        inner = []
        for name in names:
            names_of.append(name)
            inner.append(f"(?P<g{len(names_of)}>{regexps[name]})")
        parts.append(f"(?={_guard(characters)})(?:{'|'.join(inner)})")
    expression = "|".join(parts)
    numbers = re.compile(expression, flags).groupindex
    return expression, {numbers[f"g{i}"]: name for i, name in enumerate(names_of, 1)}


def _guard(characters: list[str]) -> str:
    if characters == [BEYOND_ASCII]:
        return r"[^\x00-\x7f]"
    ascii_ones = "".join(re.escape(ch) if ch not in "-]^\\" else "\\" + ch
                         for ch in characters if ch != BEYOND_ASCII)
    return f"[{ascii_ones}]" if BEYOND_ASCII not in characters else f"[{ascii_ones}\\x80-\\U0010ffff]"
