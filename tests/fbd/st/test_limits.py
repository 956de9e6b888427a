"""The limits the semantic layer checks on the declarations (fbd.st.limits): how
deep POUs hold or call one another, how many values a POU instance and a
configuration hold, how deep types nest. At each limit a program loads and runs;
one step past it, it is refused at the place, naming the limit and its value."""

import pytest

import fbd.st
from fbd import types as t
from fbd.library import load_libraries
from fbd.project import MAX_POU_DEPTH
from fbd.st import STANDARD, StSemanticError, compile_unit, parse
from fbd.testing import Harness

load_libraries()


def _compile(text: str):
    return compile_unit(parse(text, "limits.st"))


def _refused(text: str) -> StSemanticError:
    with pytest.raises(StSemanticError) as e:
        _compile(text)
    return e.value


def _nested_fbs(depth: int) -> str:
    """PROGRAM prg holds fb<depth-2>, which holds ... fb0: ``depth`` POUs in a chain."""
    text = "FUNCTION_BLOCK fb0 VAR_OUTPUT q : INT; END_VAR q := q + 1; END_FUNCTION_BLOCK\n"
    for k in range(1, depth - 1):
        text += (f"FUNCTION_BLOCK fb{k} VAR_OUTPUT q : INT; END_VAR VAR f : fb{k - 1}; END_VAR "
                 f"f(); q := f.q; END_FUNCTION_BLOCK\n")
    return text + f"PROGRAM prg VAR f : fb{depth - 2}; y : INT; END_VAR f(); y := f.q; END_PROGRAM\n"


def _called_functions(depth: int) -> str:
    text = "FUNCTION f0 : INT VAR_INPUT x : INT; END_VAR f0 := x + 1; END_FUNCTION\n"
    for k in range(1, depth - 1):
        text += (f"FUNCTION f{k} : INT VAR_INPUT x : INT; END_VAR f{k} := f{k - 1}(x) + 1; "
                 f"END_FUNCTION\n")
    return text + f"PROGRAM prg VAR y : INT; END_VAR y := f{depth - 2}(0); END_PROGRAM\n"


@pytest.mark.parametrize("chain", [_nested_fbs, _called_functions])
def test_pous_as_deep_as_the_limit_run(chain):
    blocks = _compile(chain(MAX_POU_DEPTH))
    h = Harness.block(blocks["prg"]())
    h.scan(3)
    assert h.get("blk.y") == (3 if chain is _nested_fbs else MAX_POU_DEPTH - 1)


@pytest.mark.parametrize("chain, where, names", [
    (_nested_fbs, (MAX_POU_DEPTH + 1, 17), "prg -> fb63 -> fb62 -> fb61 -> ..."),
    (_called_functions, (MAX_POU_DEPTH + 1, 39), "prg -> f63 -> f62 -> f61 -> ..."),
])
def test_pous_one_deeper_are_refused_where_the_chain_passes_the_limit(chain, where, names):
    e = _refused(chain(MAX_POU_DEPTH + 1))
    assert (e.line, e.col, e.pou) == (*where, "PROGRAM prg")
    assert e.message == (f"POUs hold or call one another 65 deep from here ({names}), more than "
                         f"the {MAX_POU_DEPTH} a chain may be")


def test_a_chain_a_thousand_deep_is_one_error_not_a_recursion_error():
    e = _refused(_nested_fbs(1000))
    assert e.pou == "FUNCTION_BLOCK fb64" and e.more == 0


def test_recursion_is_still_named_by_the_compiler():
    e = _refused("FUNCTION f : INT VAR_INPUT x : INT; END_VAR f := g(x); END_FUNCTION\n"
                 "FUNCTION g : INT VAR_INPUT x : INT; END_VAR g := f(x); END_FUNCTION\n"
                 "PROGRAM prg VAR y : INT; END_VAR y := f(1); END_PROGRAM\n")
    assert "uses itself" in e.message


BIG = "ARRAY[0..1048575] OF SINT"


def test_a_pou_may_hold_as_many_values_as_the_limit():
    arrays = " ".join(f"a{k} : {BIG};" for k in range(4))
    blocks = _compile(f"PROGRAM prg VAR {arrays} END_VAR a0[1] := 1; END_PROGRAM")
    assert 4 * t.ARRAY_MAX == t.DATA_MAX and "prg" in blocks


def test_one_value_more_is_refused_at_the_declaration_that_passes_the_limit_naming_the_total():
    arrays = " ".join(f"a{k} : {BIG};" for k in range(4))
    e = _refused(f"PROGRAM prg VAR {arrays}\n  i : INT; END_VAR a0[1] := 1; END_PROGRAM")
    assert (e.line, e.col, e.pou) == (2, 3, "PROGRAM prg")
    assert e.message == ("the variables of PROGRAM prg hold 4,194,305 elementary values in all "
                         "(arrays, structures and FB instances counted whole), more than the "
                         "4,194,304 a POU may hold; i takes them past it")


def test_fb_instances_structures_and_standard_fbs_are_counted_whole():
    ton = STANDARD.lookup("TON")
    e = _refused("TYPE pair : STRUCT a : ARRAY[1..1000] OF INT; b : INT; END_STRUCT; END_TYPE\n"
                 "FUNCTION_BLOCK holder VAR p : ARRAY[1..1000] OF pair; t : TON; END_VAR "
                 "p[1].a[1] := 1; END_FUNCTION_BLOCK\n"
                 "PROGRAM prg VAR h1, h2, h3, h4, h5 : holder; END_VAR h1(); END_PROGRAM")
    held = 1000 * 1001 + len(ton.inputs) + len(ton.outputs) + len(ton.internals)
    assert f"hold {5 * held:,} elementary values" in e.message
    assert e.message.endswith("h5 takes them past it")


def test_a_structure_of_a_thousand_of_the_largest_arrays_is_refused_before_it_is_made():
    members = "".join(f" m{k} : {BIG};\n" for k in range(1000))
    e = _refused(f"TYPE big : STRUCT\n{members}END_STRUCT; END_TYPE\n"
                 "PROGRAM prg VAR b : big; END_VAR b.m0[0] := 1; END_PROGRAM")
    assert "hold 1,048,576,000 elementary values" in e.message and e.line == 1003


def test_a_configuration_counts_its_globals_and_every_program_instance():
    e = _refused(f"PROGRAM prg VAR a, b : {BIG}; END_VAR a[0] := 1; END_PROGRAM\n"
                 f"CONFIGURATION c VAR_GLOBAL g : {BIG}; END_VAR\n"
                 "RESOURCE r ON PLC TASK t(INTERVAL := T#10ms, PRIORITY := 1); PROGRAM i1 WITH t : prg;\n"
                 "  PROGRAM i2 WITH t : prg; END_RESOURCE END_CONFIGURATION")
    assert (e.line, e.pou) == (4, "CONFIGURATION c")
    assert "hold 5,242,880 elementary values" in e.message and "a configuration may hold" in e.message


def _alias_chain(n: int, reverse: bool) -> str:
    order = range(n - 1, 0, -1) if reverse else range(1, n)
    aliases = "".join(f" t{k} : t{k - 1};\n" for k in order)
    return f"TYPE\n t0 : INT;\n{aliases}END_TYPE\nPROGRAM prg VAR x : t{n - 1}; END_VAR x := 1; END_PROGRAM"


def test_types_as_deep_as_the_limit_are_taken():
    _compile(_alias_chain(t.MAX_TYPE_DEPTH - 1, reverse=False))      # INT and 31 aliases


@pytest.mark.parametrize("reverse", [False, True], ids=["declared in order", "in reverse"])
def test_a_chain_of_types_600_deep_is_refused_at_the_type_past_the_limit(reverse):
    e = _refused(_alias_chain(600, reverse))
    if reverse:       # made from the top down: refused where the walk passes the limit
        assert e.message.endswith(f"types defined through one another more than "
                                  f"{t.MAX_TYPE_DEPTH} deep (the most a type may be built on)")
    else:
        assert (e.line, e.message) == (
            33, f"t31: built on 33 types nested in one another (aliases, arrays, structures), "
                f"more than the {t.MAX_TYPE_DEPTH} a type may be")


@pytest.mark.parametrize("kind", ["STRUCT a : {inner}; END_STRUCT", "ARRAY[0..0] OF {inner}"])
def test_structures_and_arrays_nested_600_deep_are_refused_too(kind):
    decls = "".join(f" n{k} : {kind.format(inner=f'n{k - 1}')};\n" for k in range(1, 600))
    e = _refused(f"TYPE\n n0 : INT;\n{decls}END_TYPE\nPROGRAM prg VAR x : n599; END_VAR "
                 f"x := x; END_PROGRAM")
    assert "more than the 32 a type may be" in e.message and e.line == 33


def test_the_limits_are_part_of_the_analysis():
    analysis = fbd.st.analyze(parse(_nested_fbs(MAX_POU_DEPTH + 1)), check=False)
    assert [e.pou for e in analysis.errors] == ["PROGRAM prg"]
