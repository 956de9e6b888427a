"""Declarations: data types, variable sections, POUs."""

import pytest

from fbd.st import StSyntaxError, dump, parse
from fbd.st import ast as A


def unit(text):
    return parse(text, "test.st")


def program_vars(decls: str):
    (pou,) = unit(f"PROGRAM prog\n{decls}\n  x := 1;\nEND_PROGRAM").pous
    return pou.var_blocks


def test_type_declarations_of_every_kind():
    u = unit("""TYPE
      Level : INT := 5;
      Small : INT (0..100) := 10;
      Color : (Red, Green, Blue) := Green;
      Row : ARRAY [1..3, 0..1] OF REAL := [1.0, 2.0, 4(0.0)];
      Text : STRING[20] := 'none';
      Point : STRUCT
        x : REAL := 1.0;
        y : REAL;
        tag : Color := Blue;
        list : ARRAY [0..2] OF INT;
      END_STRUCT;
      Alias : Point := (x := 3.0);
    END_TYPE""")
    types = {t.name: t for t in u.types}
    assert list(types) == ["Level", "Small", "Color", "Row", "Text", "Point", "Alias"]
    assert dump(types["Level"]) == "(TypeDecl Level INT 5)"
    small = types["Small"].spec
    assert isinstance(small, A.SubrangeType) and (small.base.name, small.range.low, small.range.high) == (
        "INT", 0, 100)
    assert [m.name for m in types["Color"].spec.members] == ["Red", "Green", "Blue"]
    assert dump(types["Color"].init) == "Green"
    row = types["Row"].spec
    assert [(r.low, r.high) for r in row.ranges] == [(1, 3), (0, 1)] and row.element.name == "REAL"
    assert [(i.count, dump(i.value)) for i in types["Row"].init.items] == [
        (None, "1.0"), (None, "2.0"), (4, "0.0")]
    assert (types["Text"].spec.wide, types["Text"].spec.length) == (False, 20)
    point = types["Point"].spec
    assert [m.name for m in point.members] == ["x", "y", "tag", "list"]
    assert dump(point.members[2]) == "(VarDecl tag Color Blue)"
    assert dump(types["Alias"].init) == "(StructInit [(FieldInit x 3.0)])"


def test_elementary_type_names_are_canonical():
    u = unit("TYPE a : TIME_OF_DAY; b : DATE_AND_TIME; c : tod; d : bool; END_TYPE")
    assert [t.spec.name for t in u.types] == ["TOD", "DT", "TOD", "BOOL"]


@pytest.mark.parametrize("kind", ["VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_TEMP", "VAR_GLOBAL",
                                  "VAR_EXTERNAL"])
def test_every_section_kind(kind):
    (block,) = program_vars(f"{kind} a, b : INT; END_VAR")
    assert block.kind == kind and block.qualifier is None
    assert [d.name for d in block.decls] == ["a", "b"]
    assert block.decls[0].spec is block.decls[1].spec   # one declaration, shared


@pytest.mark.parametrize("qualifier", ["CONSTANT", "RETAIN", "NON_RETAIN"])
def test_section_qualifiers(qualifier):
    (block,) = program_vars(f"VAR {qualifier} k : INT := 3; END_VAR")
    assert block.qualifier == qualifier and dump(block.decls[0].init) == "3"


def test_located_variables_named_and_anonymous():
    (block,) = program_vars("VAR\n  lamp AT %QX0.1 : BOOL;\n  AT %IW0.0.2 : INT := 5;\n"
                            "  cfg AT %I* : BOOL;\nEND_VAR")
    lamp, anonymous, partial = block.decls
    assert lamp.name == "lamp" and lamp.location.text == "%QX0.1" and lamp.location.address == (0, 1)
    assert anonymous.name is None and anonymous.location.address == (0, 0, 2)
    assert dump(anonymous.init) == "5"
    assert partial.location.partial and partial.location.area == "I"
    assert (lamp.line, lamp.col) == (3, 3)


def test_edge_inputs():
    (block,) = program_vars("VAR_INPUT up : BOOL R_EDGE; down : BOOL F_EDGE; END_VAR")
    assert [(d.name, d.edge) for d in block.decls] == [("up", "R_EDGE"), ("down", "F_EDGE")]


def test_fb_instances_arrays_strings_and_anonymous_enums_in_variables():
    (block,) = program_vars("VAR t1 : TON := (PT := T#1s); m : ARRAY[0..1] OF BOOL := [2(TRUE)];"
                            " s : STRING[8] := 'x'; w : WSTRING; e : (A1, B1) := B1; r : INT (1..9); END_VAR")
    t1, m, s, w, e, r = block.decls
    assert dump(t1) == "(VarDecl t1 TON (StructInit [(FieldInit PT 1000000000ns)]))"
    assert dump(m.init) == "(ArrayInit [(ArrayInitItem 2 TRUE)])"
    assert isinstance(s.spec, A.StringType) and s.spec.length == 8
    assert w.spec.name == "WSTRING"
    assert isinstance(e.spec, A.EnumType)
    assert isinstance(r.spec, A.SubrangeType)


def test_matiec_library_extensible_inputs():
    (pou,) = unit("FUNCTION ADD_INT : INT VAR_INPUT IN 1 .. : INT; END_VAR RETURN; END_FUNCTION").pous
    (decl,) = pou.var_blocks[0].decls
    assert (decl.name, decl.extensible) == ("IN", 1)


def test_pou_kinds_with_their_parts():
    u = unit("""
    FUNCTION Scale : REAL
      VAR_INPUT x : REAL; END_VAR
      Scale := x * 2.0;
    END_FUNCTION
    FUNCTION_BLOCK Counter
      VAR_INPUT up : BOOL; END_VAR
      VAR_OUTPUT n : INT; END_VAR
      IF up THEN n := n + 1; END_IF;
    END_FUNCTION_BLOCK
    PROGRAM Main
      VAR c : Counter; END_VAR
      c(up := TRUE);
    END_PROGRAM
    FUNCTION Name : STRING[10] VAR_INPUT i : INT; END_VAR Name := 'n'; END_FUNCTION
    """)
    f, fb, prog, name = u.pous
    assert (f.kind, f.name, f.return_type.name, f.language) == ("FUNCTION", "Scale", "REAL", "ST")
    assert (fb.kind, [b.kind for b in fb.var_blocks]) == ("FUNCTION_BLOCK", ["VAR_INPUT", "VAR_OUTPUT"])
    assert (prog.kind, prog.return_type) == ("PROGRAM", None)
    assert isinstance(name.return_type, A.StringType)
    assert (fb.line, fb.col) == (6, 5)
    assert u.pou("counter") is fb


def test_a_function_without_variables_is_accepted():
    # matiec refuses it (its lexer waits for a VAR); the grammar has no reason to
    (pou,) = unit("FUNCTION One : INT One := 1; END_FUNCTION").pous
    assert dump(pou.body) == "(StBody [(Assign One 1)])"


@pytest.mark.parametrize("text, problem", [
    ("PROGRAM p VAR END_VAR x := 1; END_PROGRAM", "nothing declared before END_VAR"),
    ("TYPE END_TYPE", "nothing declared before END_TYPE"),
    ("TYPE s : STRUCT END_STRUCT; END_TYPE", "nothing declared before END_STRUCT"),
    ("PROGRAM p VAR a : ARRAY[1..n] OF INT; END_VAR x := 1; END_PROGRAM", "bounds are integer literals"),
    ("PROGRAM p VAR x : INT; END_VAR END_PROGRAM", "no body before END_PROGRAM"),
    ("PROGRAM p VAR IF : INT; END_VAR x := 1; END_PROGRAM", "IF is a reserved keyword"),
    ("PROGRAM p VAR on : BOOL; END_VAR x := 1; END_PROGRAM", "ON is a reserved keyword"),
])
def test_declarations_matiec_refuses(text, problem):
    with pytest.raises(StSyntaxError, match=problem):
        unit(text)


def test_words_that_are_keywords_only_in_il_or_sfc_name_variables_in_st():
    (pou,) = unit("PROGRAM p VAR ld, st, s, r, n, p1, in, pt, priority, interval : BOOL; END_VAR\n"
                  "ld := st AND s OR r; n := in; END_PROGRAM").pous
    assert [d.name for d in pou.var_blocks[0].decls][:4] == ["ld", "st", "s", "r"]
    assert dump(pou.body) == "(StBody [(Assign ld (OR (AND st s) r)) (Assign n in)])"
