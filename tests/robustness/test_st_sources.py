"""Hostile Structured Text sources: each is refused with one FbdError line naming
file:line:col, the POU and the limit it passes (with the limit's value), from
``fbd.load`` as from ``fbd run``; never another exception, a traceback, a hang or
gigabytes of memory. Each case once raised ValueError, OverflowError,
RecursionError or MemoryError, or ran for minutes."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import fbd
from fbd.errors import FbdError
from fbd.tools import cli

DIGITS = "9" * 5000          # past Python's 4,300-digit limit on int(str)


@dataclass
class Case:
    name: str
    source: str
    expect: str                       # a fragment of the message
    where: str                        # "file:line:col: in POU" as the message starts (after the path)


def _program(declarations: str, body: str = "x := 1;", tail: str = "") -> str:
    return f"PROGRAM prg\nVAR x : LINT; {declarations} END_VAR\n{body}\nEND_PROGRAM\n{tail}"


def _configuration(task: str) -> str:
    return (f"CONFIGURATION c RESOURCE r ON PLC\nTASK t({task});\nPROGRAM i WITH t : prg;\n"
            f"END_RESOURCE END_CONFIGURATION\n")


TOO_LONG = "a literal of 5,000 characters is longer than the 200 characters a token may have"

CASES = [
    Case("integer-in-a-statement", _program("", f"x := {DIGITS};"), TOO_LONG, "3:6: in PROGRAM prg"),
    Case("integer-as-initial-value", _program(f"y : LINT := {DIGITS};"), TOO_LONG,
         "2:27: in PROGRAM prg"),
    Case("integer-as-array-bound", _program(f"a : ARRAY[0..{DIGITS}] OF INT;"), TOO_LONG,
         "2:28: in PROGRAM prg"),
    Case("integer-as-array-index", _program("a : ARRAY[0..3] OF INT;", f"a[{DIGITS}] := 1;"),
         TOO_LONG, "3:3: in PROGRAM prg"),
    Case("integer-as-string-length", _program(f"s : STRING[{DIGITS}];"), TOO_LONG,
         "2:26: in PROGRAM prg"),
    Case("integer-as-case-label", _program("", f"CASE x OF {DIGITS}: x := 1; END_CASE;"),
         TOO_LONG, "3:11: in PROGRAM prg"),
    Case("integer-as-repetition", _program(f"a : ARRAY[0..1] OF INT := [{DIGITS}(1)];"), TOO_LONG,
         "2:42: in PROGRAM prg"),
    Case("integer-in-il", "PROGRAM prg\nVAR x : LINT; END_VAR\n  LD " + DIGITS + "\n  ST x\nEND_PROGRAM\n",
         TOO_LONG, "3:6: in PROGRAM prg"),
    Case("task-priority", _program("", tail=_configuration(f"INTERVAL := T#10ms, PRIORITY := {DIGITS}")),
         TOO_LONG, "6:40: in CONFIGURATION c"),
    Case("transition-priority", "PROGRAM prg\nVAR x : INT; END_VAR\nINITIAL_STEP s0: END_STEP\n"
         "STEP s1: END_STEP\nTRANSITION (PRIORITY := " + DIGITS + ") FROM s0 TO s1 := TRUE;\n"
         "END_TRANSITION\nTRANSITION FROM s1 TO s0 := TRUE; END_TRANSITION\nEND_PROGRAM\n",
         TOO_LONG, "5:25: in PROGRAM prg"),
    Case("subrange-bound", f"TYPE small : LINT (0..{DIGITS}); END_TYPE\n" + _program(""),
         TOO_LONG, "1:23"),
    Case("hexadecimal", _program("w : LWORD;", f"w := 16#{'F' * 5000};"),
         "a literal of 5,003 characters is longer than the 200", "3:6: in PROGRAM prg"),
    Case("typed-integer", _program("", f"x := LINT#{DIGITS};"),
         "a literal of 5,005 characters is longer than the 200", "3:6: in PROGRAM prg"),
    Case("duration", _program("t : TIME;", f"t := T#{DIGITS}ms;"),
         "a literal of 5,004 characters is longer than the 200", "3:6: in PROGRAM prg"),
    Case("located-address", _program(f"q AT %QW{DIGITS} : INT;"),
         "a direct address of 5,003 characters is longer than the 200", "2:20: in PROGRAM prg"),
    Case("date", _program("d : DATE;", f"d := D#{'9' * 190}-01-01;"),
         "invalid date", "3:8: in PROGRAM prg"),
    Case("repetitions-beyond-the-array", _program(f"a : ARRAY[0..1] OF INT := [{'9' * 190}(1)];"),
         f"{'9' * 190} values for ARRAY [0..1] OF INT, which has 2", "2:42: in PROGRAM prg"),
    Case("task-interval-beyond-time",
         _program("", tail=_configuration("INTERVAL := T#1000000000d, PRIORITY := 1")),
         "T#1000000000d is out of range for TIME (about ±106,751,991 days", "6:20: in CONFIGURATION c"),
    Case("time-beyond-time", _program("t : TIME;", "t := T#200000000d;"),
         "T#200000000d is out of range for TIME", "3:6: in PROGRAM prg"),
    Case("name-of-ten-megabytes", _program("", "n" * 10_000_000 + " := 1;"),
         "a name of 10,000,000 characters is longer than the 1,024 characters a token may have",
         "3:1: in PROGRAM prg"),
    Case("string-of-ten-megabytes", _program("s : STRING;", "s := '" + "s" * 10_000_000 + "';"),
         "a string literal of 10,000,002 characters is longer than the 1,024", "3:6: in PROGRAM prg"),
]


def _load_and_run(path):
    fbd.load(path).plc().scan(2)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_api_raises_one_error_naming_the_place_and_the_limit(tmp_path, case):
    path = tmp_path / f"{case.name}.st"
    path.write_text(case.source)
    with pytest.raises(FbdError) as e:
        _load_and_run(path)
    message = str(e.value)
    assert message.startswith(f"{path}:{case.where}"), message[:300]
    assert case.expect in message and "\n" not in message and len(message) < 1200, message[:300]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path, capsys, case):
    path = tmp_path / f"{case.name}.st"
    path.write_text(case.source)
    status = cli.main(["run", str(path), "--scans", "2"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err[:500]
    assert lines[0].startswith(f"fbd: error: {path}:{case.where}") and "Traceback" not in err
