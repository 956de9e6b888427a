"""Which known cause a (reduced) difference has: a defect of fbd already
reported, or a difference docs/st.md documents. Each rule looks at the
outcome and at the reduced program's text; a difference no rule claims is
new, and goes to whoever triages the campaign.
"""

from __future__ import annotations

import re

from .runner import DIFFER

#: constructs (generator tags) that the front end here refuses or crashes on
#: today, though matiec takes them
KNOWN_REFUSALS = {
}
#: constructs that run here but give other values than matiec's today (REAL,
#: FB input, located input and timer ones are fixed: their tags are generated
#: again)
KNOWN_DIFFERENCES: dict[str, str] = {}
#: a campaign ``--without`` them looks past the known differences
KNOWN_TAGS = frozenset(KNOWN_REFUSALS) | frozenset(KNOWN_DIFFERENCES)

# label -> (outcome kinds, test of (outcome, source))
RULES = {
    "matiec defect: LIMIT with MN > MX gives MN (IEC: MIN(MAX(IN, MN), MX) = MX)":
        ((DIFFER,), lambda o, s: limit_upside_down(s)),
    "matiec defect: REPLACE inserts only L characters of IN2 (IEC: all of IN2)":
        ((DIFFER,), lambda o, s: o.type == "STRING" and "REPLACE(" in s),
    "matiec defect: STRING_TO_TIME/DATE/TOD/DT read their own literals ('T#1s500ms') as the number "
    "they start with, as seconds (zero); a literal is its value here (docs/plcopen.md)":
        ((DIFFER,), lambda o, s: re.search(r"\bSTRING_TO_(TIME|DATE|TOD|DT)\('[^']*#", s)),
    "matiec defect: a TIME sum whose fractions make a whole second stays unnormalised (0 s and 10**9 ns) "
    "and compares below it (T#500ms + T#500ms < T#1s), so RAMP's T reaches TR a CYCLE late":
        ((DIFFER,), lambda o, s: "RAMP" in s and str(o.column).upper().endswith(".BUSY")
         and o.theirs is True and o.mine is False),
    "matiec defect: DT_TO_DATE and DT_TO_TOD of a DT less than a second before 1970 (or whole days before "
    "it) give the next day's date, a negative TOD, TOD#24:00:00":
        ((DIFFER,), lambda o, s: o.type in ("DATE", "DT", "TOD")
         and re.search(r"\b(DT_TO_(DATE|TOD)|DATE_AND_TIME_TO_(DATE|TIME_OF_DAY))\(", s)),
    "matiec defect: an untyped decimal literal past LINT's range (u + 18446744073709551614) is a 128-bit "
    "C constant for gcc, so the operation and what uses its result are computed in 128 bits; a ULINT "
    "here, as IEC types it (docs/st.md)":
        ((DIFFER,), lambda o, s: past_lint_literal(s)),
    "matiec defect: a DT below 1970 whose subtracted fractions make a whole second is left unnormalised "
    "(its seconds one short, -10**9 ns beside them), so its conversion to an integer is a second off":
        ((DIFFER,), lambda o, s: o.type in INTEGER_TYPES and one_apart(o.mine, o.theirs)
         and re.search(r"\b(DT|DATE_AND_TIME)_TO_\w+\(", s) and re.search(r"#[\d:-]*\.\d", s)),
    "documented: a TIME times or over a number is exact here (a REAL factor's product rounded to the "
    "ns), through doubles in matiec (docs/st.md)":
        ((DIFFER,), lambda o, s: o.relation == "below 1 µs"),
}


def attribute(outcome, program) -> str | None:
    source = program.source
    for label, (kinds, test) in RULES.items():
        if outcome.kind in kinds and test(outcome, source):
            return label
    return None




def limit_upside_down(source: str) -> bool:
    number = r"\(?(?:\w+#)?(-?[\d.]+(?:E-?\d+)?)\)?"
    return any(float(lo) > float(hi) for lo, hi in re.findall(rf"LIMIT\({number}, .*?, {number}\)", source))


def past_lint_literal(source: str) -> bool:
    """An untyped decimal literal of 19 or 20 digits above LINT's largest value
    (a typed one, ``ULINT#...``, and a based one, ``16#...``, are 64-bit C)."""
    return any(int(digits) > 2**63 - 1
               for digits in re.findall(r"(?<![#\w.])(\d{19,20})(?![\w.#])", source))


INTEGER_TYPES = ("SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT")


def one_apart(mine, theirs) -> bool:
    try:
        return abs(int(mine) - int(theirs)) == 1
    except (TypeError, ValueError):
        return False
