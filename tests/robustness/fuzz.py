"""A seeded mutation fuzzer of the text front end and the PLCopen loader.

Mutants are made from the real programs of tests/data (ST files, and the ST,
IL and SFC bodies and attributes of PLCopen projects) by a few random edits
each: a span deleted, doubled or moved, a line repeated hundreds of times, a
number made thousands of digits long, a name swapped for another, a hostile
token put in (a megabyte string, 300 open parentheses, ``T#`` of 300 digits,
``%QW`` of thousands, an unclosed comment, a NUL). Each mutant is loaded, its
POUs compiled and its configuration (or program) run for two scans. What may
happen is a project or one :class:`fbd.errors.FbdError`; anything else (a
ValueError, a RecursionError, a MemoryError, a hang) is a defect.

A mutant is named by ``(kind, seed)``: the same pair makes the same mutant on
every machine, so a failure is reproduced by ``python -m tests.robustness.fuzz
st 123`` (which prints the mutant and what it gave), and a campaign by
``python -m tests.robustness.fuzz st 0 5000``.
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
from functools import cache
from pathlib import Path

from fbd.errors import FbdError
from tests.paths import DATA
from tests.robustness.guards import never_hangs

#: tokens put into a mutant: names, keywords, punctuation and hostile literals
SPICE = (
    "x", "y", "i", "IF", "THEN", "ELSIF", "ELSE", "END_IF", "CASE", "OF", "END_CASE", "FOR", "TO",
    "BY", "DO", "END_FOR", "WHILE", "END_WHILE", "REPEAT", "UNTIL", "END_REPEAT", "EXIT", "RETURN",
    "VAR", "END_VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_EXTERNAL", "VAR_GLOBAL",
    "CONSTANT", "AT %QW0", "AT %IX0.0", "STRUCT", "END_STRUCT", "ARRAY[0..3] OF", "TYPE",
    "END_TYPE", "FUNCTION_BLOCK", "FUNCTION", "PROGRAM", "END_PROGRAM", "TON", "R_TRIG", "INT",
    "REAL", "TIME", "STRING[3]", "BOOL", ":=", "=>", ";", ":", ",", ".", "..", "(", ")", "[", "]",
    "+", "-", "*", "/", "**", "MOD", "AND", "OR", "NOT", "=", "<>", "<", ">=", "'", '"', "(*",
    "*)", "{", "}", "$", "#", "%", "\n", "\t", "\x00", "é", "LD", "ST", "JMP", "CAL", "S", "R",
    "INITIAL_STEP", "STEP", "END_STEP", "TRANSITION", "FROM", "END_TRANSITION", "ACTION",
    "END_ACTION", "PRIORITY := ", "INTERVAL := ", "TASK", "RESOURCE", "CONFIGURATION",
    "0", "1", "-1", "32767", "32768", "2147483648", "1.0E38", "1.0E39", "1.0E999", "16#FFFF",
    "2#102", "INT#40000", "T#1h90m", "T#-5s", "T#1000000000d", "D#2024-02-30", "TOD#25:00:00",
    "'$'", "'$Q'", "9" * 5000, "16#" + "F" * 5000, "T#" + "9" * 300 + "d", "%QW" + "9" * 5000,
    "'" + "s" * 300 + "'", "'" + "s" * 1_000_000 + "'", "n" * 2000, "(" * 300, "- " * 300,
    "[" * 100, "x." * 300 + "x", "NOT " * 300, "IF x THEN " * 100,
)
HUGE_NUMBERS = ("0", "-1", "65536", "2147483648", "1048576", "9" * 30, "9" * 5000, "16#FFFFFFFF")


@cache
def st_seeds() -> tuple[str, ...]:
    """The ST programs mutants are made from: tests/data/st's small ones, in a fixed order."""
    paths = sorted(p for p in (DATA / "st").rglob("*.st") if p.stat().st_size < 8000)
    return tuple(p.read_text(encoding="utf-8", errors="replace") for p in paths)


@cache
def plcopen_seeds() -> tuple[bytes, ...]:
    paths = sorted(p for p in (DATA / "plcopen").rglob("*.xml") if p.stat().st_size < 40_000)
    return tuple(p.read_bytes() for p in paths)


#: well-formed pieces put where a declaration or a statement may stand, so that a
#: mutant gets past the parser and into the semantic layer, the compiler and a scan
DECLARATIONS = (
    "big : ARRAY[0..1048575] OF LREAL;", "grid : ARRAY[1..1000, 1..1000] OF INT;",
    "s : STRING[" + "9" * 300 + "];", "t9 : TON;", "k : INT := 32767;", "q AT %QW9999 : WORD;",
    "b AT %IX0.0 : BOOL;", "d : DINT := " + "9" * 30 + ";",
    "w : ARRAY[0..3] OF INT := [" + "9" * 30 + "(1)];",
)
STATEMENTS = (
    "x := x + 1;", "i := 0;", "WHILE TRUE DO i := i + 1; END_WHILE;",
    "FOR i := 0 TO 32767 DO x := x; END_FOR;", "REPEAT x := x; UNTIL FALSE END_REPEAT;",
    "CASE x OF " + " ".join(f"{k}: x := {k};" for k in range(300)) + " END_CASE;",
    "IF x = 0 THEN x := 1; " + " ".join(f"ELSIF x = {k} THEN x := {k};" for k in range(1, 300))
    + " END_IF;", "x := " + " + ".join(["x"] * 3000) + ";", "x := " + "(" * 150 + "x" + ")" * 150 + ";",
    "x := x / 0;", "x := x MOD 0;", "RETURN;", "EXIT;", "t9(IN := TRUE, PT := T#1ms);",
)


def mutate_text(text: str, rng: random.Random, edits: int | None = None) -> str:
    for _ in range(edits or rng.choice((1, 1, 1, 2, 3))):
        text = rng.choices(_EDITS, _WEIGHTS)[0](text, rng)
    return text


def _span(text: str, rng: random.Random) -> tuple[int, int]:
    start = rng.randrange(len(text) + 1)
    return start, min(len(text), start + rng.randint(1, 40))


def _delete(text, rng):
    a, b = _span(text, rng)
    return text[:a] + text[b:]


def _double(text, rng):
    a, b = _span(text, rng)
    return text[:b] + text[a:b] + text[b:]


def _move(text, rng):
    a, b = _span(text, rng)
    piece, rest = text[a:b], text[:a] + text[b:]
    at = rng.randrange(len(rest) + 1)
    return rest[:at] + piece + rest[at:]


def _spice(text, rng):
    at = rng.randrange(len(text) + 1)
    return text[:at] + " " + rng.choice(SPICE) + " " + text[at:]


def _number(text, rng):
    found = list(re.finditer(r"\d+", text))
    if not found:
        return _spice(text, rng)
    m = rng.choice(found)
    return text[:m.start()] + rng.choice(HUGE_NUMBERS) + text[m.end():]


def _rename(text, rng):
    names = re.findall(r"[A-Za-z_]\w*", text)
    if len(names) < 2:
        return _spice(text, rng)
    old, new = rng.choice(names), rng.choice(names)
    return re.sub(rf"\b{re.escape(old)}\b", lambda m: new if rng.random() < 0.5 else m.group(0), text)


def _lines(text, rng):
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    if rng.random() < 0.5:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    else:
        lines[k:k + 1] = [lines[k]] * rng.choice((2, 10, 300, 3000))
    return "\n".join(lines)


def _truncate(text, rng):
    return text[:rng.randrange(len(text) + 1)]


def _after(text, rng, pattern: str, pieces) -> str:
    found = list(re.finditer(pattern, text, re.I))
    if not found:
        return _spice(text, rng)
    at = rng.choice(found).end()
    return text[:at] + " " + rng.choice(pieces) + " " + text[at:]


def _declare(text, rng):
    return _after(text, rng, r"\bVAR(_[A-Z]+)?\b(\s+CONSTANT)?", DECLARATIONS)


def _statement(text, rng):
    return _after(text, rng, r";", STATEMENTS)


_EDITS = (_delete, _double, _move, _spice, _number, _rename, _lines, _truncate, _declare, _statement)
_WEIGHTS = (1, 1, 1, 2, 3, 3, 3, 0.5, 2, 3)


def st_mutant(seed: int) -> str:
    rng = random.Random(f"st {seed}")
    return mutate_text(rng.choice(st_seeds()), rng)


def plcopen_mutant(seed: int) -> bytes:
    """A project with a few of its elements or attributes changed: a value made
    hostile, an element removed or doubled, a text body mutated as ST is."""
    from lxml import etree
    rng = random.Random(f"plcopen {seed}")
    root = etree.fromstring(rng.choice(plcopen_seeds()))
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    for _ in range(rng.randint(1, 3)):
        e = rng.choice(elements)
        what = rng.random()
        if what < 0.35 and e.attrib:
            name = rng.choice(sorted(e.attrib))
            e.set(name, rng.choice((*HUGE_NUMBERS, "", "x" * 2000, "T#" + "9" * 300 + "d",
                                    "%QW" + "9" * 300, "1e999", "-5", "a b", "Main", "INT"))
                  if rng.random() < 0.7 else _xml_text(mutate_text(e.get(name), rng, 1)))
        elif what < 0.6 and e.text and e.text.strip():
            e.text = _xml_text(mutate_text(e.text, rng))
        elif what < 0.8 and e.getparent() is not None:
            e.getparent().remove(e)
            elements = [x for x in root.iter() if isinstance(x.tag, str)]
        elif e.getparent() is not None:
            e.addnext(etree.fromstring(etree.tostring(e)))
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def _xml_text(text: str) -> str:
    # what XML cannot hold at all (a NUL, most control characters) no file can carry
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "", text)


def attempt(path: Path) -> FbdError | None:
    """Load the project at ``path``, build every program and run the configuration
    (or the only program) for two scans: None, or the FbdError that stopped it.
    Any other exception propagates: that is the defect a fuzzer looks for."""
    import fbd
    try:
        with never_hangs():
            project = fbd.load(path)
            for name in project.pous:
                project.network(name)
            if project.configuration is not None or len(project.pous) == 1:
                project.plc().scan(2)
    except FbdError as e:
        return e
    return None


MUTANTS = {"st": (st_mutant, ".st", str.encode), "plcopen": (plcopen_mutant, ".xml", bytes)}


def run(kind: str, seed: int, folder: Path) -> FbdError | None:
    make, suffix, encode = MUTANTS[kind]
    path = folder / f"{kind}-{seed}{suffix}"
    path.write_bytes(encode(make(seed)))
    return attempt(path)


def main(argv=None) -> int:
    """``python -m tests.robustness.fuzz st|plcopen FIRST [LAST]``: run the mutants
    FIRST..LAST (one: show it too), print a line per defect."""
    argv = sys.argv[1:] if argv is None else argv
    kind, first = argv[0], int(argv[1])
    last = int(argv[2]) if len(argv) > 2 else first
    defects = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(first, last + 1):
            if first == last:
                text = MUTANTS[kind][0](seed)
                print(text if isinstance(text, str) else text.decode("utf-8", "replace"))
            try:
                error = run(kind, seed, Path(tmp))
            except Exception as e:  # noqa: BLE001 - a defect: say which and go on
                defects += 1
                print(f"{kind} {seed}: {type(e).__name__}: {str(e)[:200]}")
            else:
                if first == last:
                    print(f"-> {error}" if error else "-> loaded and ran")
    print(f"{last - first + 1} mutants, {defects} defects", file=sys.stderr)
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
