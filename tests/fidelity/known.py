"""Which known cause a (reduced) difference has: a defect of fbd already
reported, or a difference docs/st.md documents. Each rule looks at the
outcome and at the reduced program's text; a difference no rule claims is
new, and goes to whoever triages the campaign.
"""

from __future__ import annotations

import re

from .runner import DIFFER, FBD_CRASH, FBD_REFUSES
from .scope import LIBRARY_FBS

#: constructs (generator tags) that the front end here refuses or crashes on
#: today, though matiec takes them
KNOWN_REFUSALS = {
    "TRUNC": "TRUNC crashes while its call is compiled",
    "untyped_literal_left_of_bit_operator": "16#30 OR b: the literal is LINT, not typed by b",
    "array_of_time_initialiser": "an ARRAY OF TIME initialiser is refused",
    "time_initialiser_in_type": "a TIME member's initial value in a STRUCT type is refused",
    "LEN": "LEN's result is INT, where matiec types it by its use (any integer)",
    "FIND": "FIND's result is INT, where matiec types it by its use (any integer)",
    "date_arithmetic": "DT + TIME, TOD - TIME, DATE - DATE ... are refused as operators",
    **{fb: f"{fb} is not in the library here" for fb in LIBRARY_FBS},
}
#: constructs that run here but give other values than matiec's today
KNOWN_DIFFERENCES = {
    "REAL": "REAL is computed in double here, in binary32 (C float) by matiec",
    "fb_writes_input": "an FB's write to its own VAR_INPUT is dropped",
    "located_input_write": "a program's write to a located input is not kept until the next latch",
    "pt_not_positive": "TP and TOF with PT <= 0 run otherwise than matiec's",
}
#: a campaign ``--without`` them looks past the known differences
KNOWN_TAGS = frozenset(KNOWN_REFUSALS) | frozenset(KNOWN_DIFFERENCES)

# label -> (outcome kinds, test of (outcome, source))
RULES = {
    "known: REAL computed in double, not binary32":
        ((DIFFER,), lambda o, s: o.type == "REAL" and o.relation == "not a binary32 value here"),
    "known: TRUNC crashes":
        ((FBD_CRASH,), lambda o, s: "TRUNC" in s and "'I'" in o.detail),
    "known: an untyped literal on the left of a bit-string operator is refused":
        ((FBD_REFUSES,), lambda o, s: re.search(r"needs two operands of one bit-string type .*not LINT",
                                                o.detail)),
    "known: ARRAY OF TIME initialisers refused":
        ((FBD_REFUSES,), lambda o, s: re.search(r"value\[\d+\]: -?\d+ is not a TIME", o.detail)),
    "known: an FB's write to its own VAR_INPUT is dropped":
        ((DIFFER,), lambda o, s: writes_own_input(s)),
    "known: a program's write to a located input is not kept until the next latch":
        ((DIFFER,), lambda o, s: writes_located_input(s)),
    "known: TP/TOF with PT <= 0":
        ((DIFFER,), lambda o, s: timer_without_time(s)),
    "known: integer intermediates (matiec computes SINT..UINT in C int, stores truncated)":
        ((DIFFER,), lambda o, s: narrow_intermediate(s)),
    "matiec defect: LIMIT with MN > MX gives MN (IEC: MIN(MAX(IN, MN), MX) = MX)":
        ((DIFFER,), lambda o, s: limit_upside_down(s)),
    "matiec defect: REPLACE inserts only L characters of IN2 (IEC: all of IN2)":
        ((DIFFER,), lambda o, s: o.type == "STRING" and "REPLACE(" in s),
    "documented: TIME here is in µs, matiec's in ns":
        ((DIFFER,), lambda o, s: o.relation == "below 1 µs"),
}


def attribute(outcome, program) -> str | None:
    source = program.source
    for label, (kinds, test) in RULES.items():
        if outcome.kind in kinds and test(outcome, source):
            return label
    return None


def sections(source: str, pou_kind: str, header: str) -> list[tuple[set, str]]:
    """(names declared under ``header``, body text) of every POU of that kind."""
    found = []
    for pou in re.findall(rf"^{pou_kind}\b.*?^END_{pou_kind}\b", source, re.S | re.M):
        names = set()
        for block in re.findall(rf"^{header}\b(.*?)^END_VAR", pou, re.S | re.M):
            names.update(n.lower() for n in re.findall(r"^\s*(\w+)\s*(?:AT\s+\S+\s*)?:", block, re.M))
        body = pou.rsplit("END_VAR", 1)[-1]
        found.append((names, body))
    return found


def assigns(body: str, names: set) -> bool:
    return any(re.search(rf"^\s*{re.escape(n)}\s*:=", body, re.M | re.I) for n in names)


def writes_own_input(source: str) -> bool:
    return any(assigns(body, names) for names, body in sections(source, "FUNCTION_BLOCK", "VAR_INPUT"))


def limit_upside_down(source: str) -> bool:
    number = r"\(?(?:\w+#)?(-?[\d.]+(?:E-?\d+)?)\)?"
    return any(float(lo) > float(hi) for lo, hi in re.findall(rf"LIMIT\({number}, .*?, {number}\)", source))


def timer_without_time(source: str) -> bool:
    """A TP or TOF called with PT <= 0 or without PT (whose initial value is T#0s)."""
    for call in re.findall(r"\b(?:tp|tof)_\d+\((.*?)\);", source, re.I | re.S):
        if "PT :=" not in call or re.search(r"PT := T#(0ms|-)", call):
            return True
    return False


def narrow_intermediate(source: str) -> bool:
    """An operation on 8- or 16-bit integers whose result goes on into another
    operation or comparison without being stored: matiec computes it in C int."""
    narrow = {n.lower() for n in re.findall(r"^\s*(\w+)\s*:\s*U?S?INT\b", source, re.M)}
    operand = r"(?:\(?(?:{})\)?|\(?U?S?INT#-?\d+\)?)".format("|".join(map(re.escape, narrow)) or "^$")
    inner = rf"{operand}\s*(?:[-+*/]|MOD)\s*{operand}"
    then = r"(?:[-+*/<>=]|MOD)"
    used = rf"\(\s*{inner}\s*\)\s*{then}|{then}\s*\(\s*{inner}|{inner}\s*(?:[<>=]|<>)"
    return bool(narrow) and re.search(used, source, re.I) is not None


def writes_located_input(source: str) -> bool:
    located = set(n.lower() for n in re.findall(r"^\s*(\w+)\s+AT\s+%I", source, re.M))
    body = source.rsplit("END_VAR", 1)[-1]
    return assigns(body, located)
