"""The reducer shrinks a program to what still shows a property, and its cuts
keep a program well-typed: the property checked here only parses, yet the
result still compiles."""

from dataclasses import replace

from fbd.errors import FbdError
from fbd.st import parse
from fbd.st.project import load
from tests.fidelity.generator import generate
from tests.fidelity.reducer import Reducer


def parses_and_divides(program) -> bool:
    try:
        parse(program.source, "reduced.st")
    except FbdError:
        return False
    return " MOD " in program.source


def test_a_program_shrinks_to_a_few_lines_that_still_show_the_property():
    program = next(p for p in map(generate, range(100)) if " MOD " in p.source and p.sets)
    reducer = Reducer(parses_and_divides, budget=400)
    small = reducer.reduce(program)
    assert " MOD " in small.source
    assert small.source.count("\n") <= 12 < program.source.count("\n") // 4, small.source
    assert small.scans == 1 and small.sets == ()
    load("reduced.st", text=small.source)


def test_a_check_that_fails_keeps_the_program_as_it_was():
    program = replace(generate(3), scans=4)
    assert Reducer(lambda p: p == program, budget=20).reduce(program) is program
