"""The statement reader (fbd/st/faststmt.py) gives the tree and the errors of
the LALR loop it stands in for: each text is parsed with and without it."""

import random
from pathlib import Path

import pytest

from fbd.st import faststmt
from fbd.st import parser as P
from fbd.st.errors import StSyntaxError
from fbd.st.faststmt import MAX_NESTING

DATA = Path(__file__).resolve().parents[2] / "data"


def _outcome(parse, text, monkeypatch, fast):
    driver = P._parser()
    if not fast:
        monkeypatch.setattr(driver, "statement_entries", {})
    try:
        return "tree", repr(parse(text))
    except StSyntaxError as e:
        return "error", str(e)
    finally:
        monkeypatch.undo()


def _same(parse, text, monkeypatch):
    fast = _outcome(parse, text, monkeypatch, True)
    assert fast == _outcome(parse, text, monkeypatch, False)
    return fast[0]


def _body(text):
    return P.parse_body(text, "ST", filename="b.st", pou="P", line=3, col=5)


STATEMENTS = [
    "IF a THEN x := 1; END_IF;",
    "IF a THEN x := 1; ELSIF b THEN y := 2; ELSIF c THEN z := 3; ELSE w := 4; END_IF;",
    "IF a THEN IF b THEN x := 1; END_IF; END_IF;", "WHILE a < 3 DO a := a + 1; EXIT; END_WHILE;",
    "FOR i := 1 TO 10 BY 2 DO x[i] := i; CONTINUE; END_FOR;", "FOR i := 1 TO n DO RETURN; END_FOR;",
    "REPEAT x := x - 1; UNTIL x < 0 END_REPEAT;", "IF a THEN f(); g(1, 2); h(a := 1, b := 2); END_IF;",
    "IF a THEN {pragma} x := 1; {{C code}} END_IF;", "IF a {p} THEN x := 1; END_IF {p};",
    "IF {p} a THEN x {p} := {p} 1 {p}; {p} ELSE {p} y := 2; {p} END_IF; {p}",
    "WHILE a DO (* comment *) x := 1; // line\nEND_WHILE;", "IF a THEN\n  x := 1;\nELSE\n  y := 2;\nEND_IF;",
    "IF a THEN CASE s OF 1: x := 1; END_CASE; END_IF;", "IF a THEN t(IN := x, Q => y); END_IF;",
    "CASE s OF 1: x := 1; 2, 3: y := 2; z := 3; 4..6, -7, +8: EXIT; ELSE w := 0; END_CASE;",
    "CASE s OF Red: x := 1; Red, Green: y := 2; Color#Blue: z := Red; Red := 3; f(1); END_CASE;",
    "CASE s OF 1: {p} x := 1; {p} 2: {p} CASE t OF 3: IF a THEN y := 1; END_IF; END_CASE; END_CASE;",
    "CASE {p} s {p} OF {p} 1 {p} : x := 1; 2 {p}, 3 {p} .. {p} 4: y := 1; END_CASE;",
    "CASE s OF 16#FF: x := 1; END_CASE;", "CASE s OF 1: ; END_CASE;", "CASE s OF 1: END_CASE;",
    "CASE s OF 1: x := 1; 2: END_CASE;", "CASE s OF x := 1; END_CASE;", "CASE s OF 1, : x := 1; END_CASE;",
    "CASE s OF 1..: x := 1; END_CASE;", "CASE s OF 1: x := 1; ELSE END_CASE;", "CASE s 1: x := 1; END_CASE;",
    "CASE s OF 1: x := 1 END_CASE;", "CASE s OF 1: x := 1; END_CASE", "CASE s OF a.b: x := 1; END_CASE;",
    "IF a THEN %QX0.0 := TRUE; END_IF;", "IF a THEN N := 1; S := 2; LD := 3; IN := 4; END_IF;",
    "FOR N := 1 TO 3 DO P := N; END_FOR;",
    # invalid
    "IF a THEN END_IF;", "IF a THEN x := 1; END_IF", "IF a THEN x := 1 END_IF;", "IF a x := 1; END_IF;",
    "IF a THEN x := 1; ELSE END_IF;", "IF a THEN x := 1; ELSIF THEN y := 1; END_IF;", "IF THEN",
    "IF a THEN x := 1;;  END_IF;", "WHILE a DO x := 1; END_FOR;", "FOR := 1 TO 3 DO x := 1; END_FOR;",
    "FOR i := 1 DO x := 1; END_FOR;", "FOR i := 1 TO 3 BY DO x := 1; END_FOR;", "REPEAT x := 1; END_REPEAT;",
    "REPEAT UNTIL a END_REPEAT;", "IF a THEN x := 99999999999999999999999999999999999; END_IF;",
    "IF a THEN x := 1; END_IF; y", "IF a THEN x := 1; (* open", "IF a THEN f(a := 1, 2); END_IF;",
    "IF a THEN x := 'open\n'; END_IF;", "IF a THEN x := 1; END_IF; END_IF;", "IF a THEN EXIT END_IF;",
    "IF " + "a" + " + a" * 300 + " THEN x := 1; END_IF;",
    "IF a THEN " * (MAX_NESTING + 5) + "x := 1; " + "END_IF; " * (MAX_NESTING + 5),
    "WHILE a DO " * 300 + "x := 1; " + "END_WHILE; " * 300,
]


@pytest.mark.parametrize("statements", STATEMENTS)
def test_a_statement_reads_as_the_lalr_loop_reads_it(statements, monkeypatch):
    _same(_body, statements, monkeypatch)
    _same(lambda text: P.parse(text, "f.st"), f"PROGRAM p\n  {statements}\nEND_PROGRAM\n", monkeypatch)
    _same(lambda text: P.parse(text, "f.st"),
          f"FUNCTION_BLOCK b\nVAR x : INT; END_VAR\n{statements}\nEND_FUNCTION_BLOCK\n", monkeypatch)


def test_the_statement_ends_where_the_text_ends(monkeypatch):
    for text in ("IF a THEN x := 1; END_IF", "IF a THEN x := 1;", "WHILE a DO", "IF"):
        _same(_body, text, monkeypatch)


def test_every_st_file_here_reads_as_the_lalr_loop_reads_it(monkeypatch):
    paths = sorted(DATA.rglob("*.st"))
    assert len(paths) > 100
    for path in paths:
        _same(lambda text, name=path.name: P.parse(text, name),
              path.read_text(encoding="utf-8", errors="replace"), monkeypatch)


def test_mutated_statements_read_as_the_lalr_loop_reads_them(monkeypatch):
    pieces = ["IF", "THEN", "ELSIF", "ELSE", "END_IF", "WHILE", "DO", "END_WHILE", "FOR", "TO", "BY",
              "END_FOR", "REPEAT", "UNTIL", "END_REPEAT", "CASE", "OF", "END_CASE", "EXIT", "RETURN", ";",
              ":=", "x", "a", "1", "(", ")", ",", "{p}", "+", "-", "f", "=>", ":", "..", "N", "\n", "(*c*)"]
    seed = ("IF a THEN x := 1; ELSIF b THEN f(a := 1); ELSE WHILE a DO x := x + 1; EXIT; END_WHILE; END_IF; "
            "CASE x OF 1, 2..3: a := 1; Red: f(); ELSE x := 0; END_CASE;")
    words = seed.replace(";", " ; ").replace("(", " ( ").replace(")", " ) ").split()
    rng = random.Random(28)
    outcomes = set()
    for _ in range(1500):
        mutant = list(words)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(mutant) + 1)
            choice = rng.random()
            if choice < 0.4 and mutant:
                del mutant[min(at, len(mutant) - 1)]
            elif choice < 0.8:
                mutant.insert(at, rng.choice(pieces))
            else:
                mutant[min(at, len(mutant) - 1)] = rng.choice(pieces)
        outcomes.add(_same(_body, " ".join(mutant), monkeypatch))
    assert outcomes == {"tree", "error"}


def test_the_reader_reads_the_statements(monkeypatch):
    driver = P._parser()
    read = driver.reader.read_statement
    given_back = []

    def counting(first, tokens, stack, values, after, feed):
        fed = []

        def feeding(token, *args):
            fed.append(token)
            feed(token, *args)
        token, ended = read(first, tokens, stack, values, after, feeding)
        given_back.append(len(fed))
        return token, ended

    monkeypatch.setattr(driver.reader, "read_statement", counting)
    P.parse_body("IF a THEN x := 1; END_IF; WHILE b DO EXIT; END_WHILE; REPEAT y := 2; UNTIL c END_REPEAT;"
                 "IF a THEN t(Q => x); END_IF;", "ST")
    # the three were read whole; the fourth was given back at its output argument: IF, a,
    # THEN, t, ( and Q fed to the LALR loop, => handed to it
    assert given_back == [0, 0, 0, 6]


def test_a_statement_longer_than_the_reader_keeps_is_read_by_the_lalr_loop_from_there(monkeypatch):
    text = "CASE s OF 1: " + "x := x + 1; " * 40 + "2: y := 1; END_CASE; z := 2;"
    expected = _outcome(_body, text, monkeypatch, False)
    driver = P._parser()
    read = driver.reader.read_statement
    fed = []

    def counting(first, tokens, stack, values, after, feed):
        def feeding(token, *args):
            fed.append(token)
            feed(token, *args)
        return read(first, tokens, stack, values, after, feeding)

    monkeypatch.setattr(faststmt, "MAX_TOKENS", 50)
    monkeypatch.setattr(driver.reader, "read_statement", counting)
    assert ("tree", repr(_body(text))) == expected
    # the CASE was given back after about 50 tokens, its assignments after them read one by one
    assert 50 < len(fed) < 60
