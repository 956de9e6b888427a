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


def _chain(declaration: str, n: int = 600) -> str:
    """TYPE t1 ... t<n-1>, each declared from the one before; t0 is INT."""
    types = "".join(" " + declaration.format(k=k, j=k - 1) + "\n" for k in range(1, n))
    return f"TYPE\n t0 : INT;\n{types}END_TYPE\n" + _program(f"v : t{n - 1};")


TOO_LONG = "a literal of 5,000 characters is too long (at most 200)"

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
         "a literal of 5,003 characters is too long (at most 200)", "3:6: in PROGRAM prg"),
    Case("typed-integer", _program("", f"x := LINT#{DIGITS};"),
         "a literal of 5,005 characters is too long (at most 200)", "3:6: in PROGRAM prg"),
    Case("duration", _program("t : TIME;", f"t := T#{DIGITS}ms;"),
         "a literal of 5,004 characters is too long (at most 200)", "3:6: in PROGRAM prg"),
    Case("located-address", _program(f"q AT %QW{DIGITS} : INT;"),
         "a direct address of 5,003 characters is too long (at most 200)", "2:20: in PROGRAM prg"),
    Case("date", _program("d : DATE;", f"d := D#{'9' * 190}-01-01;"),
         "invalid date", "3:8: in PROGRAM prg"),
    Case("repetitions-beyond-the-array", _program(f"a : ARRAY[0..1] OF INT := [{'9' * 190}(1)];"),
         f"{'9' * 190} values for ARRAY [0..1] OF INT, which has 2", "2:42: in PROGRAM prg"),
    Case("task-interval-beyond-time",
         _program("", tail=_configuration("INTERVAL := T#1000000000d, PRIORITY := 1")),
         "T#1000000000d is out of range for TIME (about ±106,751 days", "6:20: in CONFIGURATION c"),
    Case("time-beyond-time", _program("t : TIME;", "t := T#200000000d;"),
         "T#200000000d is out of range for TIME", "3:6: in PROGRAM prg"),
    Case("type-aliases-600-deep", _chain("t{k} : t{j};"), "built on 33 types", "33:2"),
    Case("structures-600-deep", _chain("t{k} : STRUCT a : t{j}; END_STRUCT;"), "built on 33 types",
         "33:2"),
    Case("arrays-600-deep", _chain("t{k} : ARRAY[0..0] OF t{j};"), "built on 33 types", "33:14"),
    Case("function-blocks-1000-deep", "FUNCTION_BLOCK fb0 VAR q : INT; END_VAR q := 1; END_FUNCTION_BLOCK\n"
         + "".join(f"FUNCTION_BLOCK fb{k}\nVAR q : INT; f : fb{k - 1}; END_VAR\nf(); q := f.q;\n"
                   f"END_FUNCTION_BLOCK\n" for k in range(1, 1000)) + _program("f : fb999;", "f();"),
         "POUs hold or call one another 65 deep from here (fb64 -> fb63 -> fb62 -> fb61 -> ...), "
         "more than the 64 a chain may be", "255:14: in FUNCTION_BLOCK fb64"),
    Case("calls-3000-deep", "".join(
        f"FUNCTION f{k} : INT\nVAR_INPUT x : INT; END_VAR\nf{k} := f{k - 1}(x);\nEND_FUNCTION\n"
        for k in range(1, 3000)).replace("f1 := f0(x);", "f1 := x;") + _program("", "x := f2999(1);"),
         "65 deep from here (f65 -> f64 -> f63 -> f62 -> ...)", "259:8: in FUNCTION f65"),
    Case("structure-of-a-thousand-largest-arrays", "TYPE big : STRUCT\n" + "".join(
        f"  a{k} : ARRAY[0..1048575] OF INT;\n" for k in range(1000)) + "END_STRUCT; END_TYPE\n"
        + _program("b : big;"), "hold 1,048,576,001 elementary values in all (arrays, structures "
         "and FB instances counted whole), more than the 4,194,304 a POU may hold",
         "1004:15: in PROGRAM prg"),
    Case("name-of-ten-megabytes", _program("", "n" * 10_000_000 + " := 1;"),
         "a name of 10,000,000 characters is too long (at most 1,024)",
         "3:1: in PROGRAM prg"),
    Case("string-of-ten-megabytes", _program("s : STRING;", "s := '" + "s" * 10_000_000 + "';"),
         "a string literal of 10,000,002 characters is too long (at most 1,024)", "3:6: in PROGRAM prg"),
]


def _load_and_run(path):
    fbd.load(path).plc().scan(2)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_api_raises_one_error_naming_the_place_and_the_limit(tmp_path, case):
    path = tmp_path / "case.st"     # short: a long path would be cut in the one line
    path.write_text(case.source)
    with pytest.raises(FbdError) as e:
        _load_and_run(path)
    message = str(e.value)
    assert message.startswith(f"{path}:{case.where}"), message[:300]
    assert case.expect in message and "\n" not in message and len(message) < 1200, message[:300]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path, capsys, case):
    path = tmp_path / "case.st"     # short: a long path would be cut in the one line
    path.write_text(case.source)
    status = cli.main(["run", str(path), "--scans", "2"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err[:500]
    assert lines[0].startswith(f"fbd: error: {path}:{case.where}") and "Traceback" not in err
