"""Each kind of ST declaration exported to PLCopen: the element TC6 has for it
(as Beremiz writes it), and the declaration the importer reads back from it
is the one written (compared position-free, :func:`fbd.st.dump`)."""

from __future__ import annotations

import pytest
from lxml import etree

import fbd
from fbd.plcopen.textual import PouText
from fbd.st import dump, parse
from tests.fbd.plcopen.roundtrip import export, scans

NS = {"p": "http://www.plcopen.org/xml/tc6_0201"}


def exported(tmp_path, source: str):
    """(the exported file's root, its POUs and data types read back as ST trees),
    each POU's declarations checked to be the ones written."""
    src, out = tmp_path / "prog.st", tmp_path / "prog.xml"
    src.write_text(source)
    export(src, out)                              # valid against the schema
    root = etree.parse(str(out)).getroot()
    pt = PouText(out)
    unit = parse(source)
    for el in root.iterfind(".//p:pou", NS):
        back = pt.pou(el)
        original = unit.pou(back.name)
        assert dump(back.var_blocks) == dump(original.var_blocks)
        assert dump(back.return_type) == dump(original.return_type)
    assert dump(pt.data_types(root)) == dump(unit.types)
    return root


def one(root, path):
    found = root.findall(path, NS)
    assert len(found) == 1, etree.tostring(root)
    return found[0]


def fb(decls: str, body: str = "RETURN;") -> str:
    return f"FUNCTION_BLOCK F\n{decls}\n{body}\nEND_FUNCTION_BLOCK\n"


@pytest.mark.parametrize("section, group", [
    ("VAR_INPUT", "inputVars"), ("VAR_OUTPUT", "outputVars"), ("VAR_IN_OUT", "inOutVars"),
    ("VAR", "localVars"), ("VAR_TEMP", "tempVars")])
def test_each_var_section_is_its_interface_group(tmp_path, section, group):
    root = exported(tmp_path, fb(f"{section} a, b : INT; END_VAR"))
    assert [v.get("name") for v in one(root, f".//p:interface/p:{group}")] == ["a", "b"]


@pytest.mark.parametrize("qualifier, attribute", [
    ("CONSTANT", "constant"), ("RETAIN", "retain"), ("NON_RETAIN", "nonretain"),
    ("PERSISTENT", "persistent"), ("RETAIN PERSISTENT", "persistent")])
def test_a_qualifier_is_its_groups_attribute(tmp_path, qualifier, attribute):
    root = exported(tmp_path, fb(f"VAR {qualifier} a : INT := 1; END_VAR"))
    assert one(root, ".//p:localVars").attrib == {attribute: "true"}


def test_a_located_variable_has_its_address(tmp_path):
    root = exported(tmp_path, "PROGRAM P1\nVAR x AT %IX0.3 : BOOL; w AT %QW2 : WORD; END_VAR\n"
                              "w := BOOL_TO_WORD(x);\nEND_PROGRAM\n")
    assert [v.get("address") for v in root.iterfind(".//p:variable", NS)] == ["%IX0.3", "%QW2"]


@pytest.mark.parametrize("decl, value", [
    ("i : INT := -5", "-5"), ("t : TIME := T#1h2m", "T#1h2m"), ("w : WORD := 16#FF", "16#FF"),
    ("r : REAL := 1.5E3", "1.5E3"), ("s : STRING := 'a$Nb'", "'a$Nb'"),
    ("d : DT := DT#2020-01-02-03:04:05", "DT#2020-01-02-03:04:05"),
    ("b : BOOL := TRUE", "TRUE"), ("n : DINT := DINT#7", "DINT#7")])
def test_an_initial_value_is_written_as_the_source_spells_it(tmp_path, decl, value):
    root = exported(tmp_path, fb(f"VAR {decl}; END_VAR"))
    assert one(root, ".//p:initialValue/p:simpleValue").get("value") == value


def test_an_array_has_its_dimensions_and_repeated_initial_values(tmp_path):
    root = exported(tmp_path, fb("VAR a : ARRAY [1..2, 0..2] OF INT := [2(7), 1, 3(0)]; END_VAR"))
    assert [(d.get("lower"), d.get("upper")) for d in root.iterfind(".//p:dimension", NS)] \
        == [("1", "2"), ("0", "2")]
    assert one(root, ".//p:array/p:baseType/p:INT") is not None
    assert [(v.get("repetitionValue"), v[0].get("value"))
            for v in one(root, ".//p:arrayValue")] == [("2", "7"), (None, "1"), ("3", "0")]


def test_a_structure_type_and_its_initial_value(tmp_path):
    root = exported(tmp_path, "TYPE Point : STRUCT x : INT; y : REAL := 2.5; END_STRUCT; END_TYPE\n"
                    + fb("VAR p : Point := (x := 3); END_VAR"))
    members = one(root, ".//p:dataType[@name='Point']/p:baseType/p:struct")
    assert [v.get("name") for v in members] == ["x", "y"]
    assert one(root, ".//p:structValue/p:value").get("member") == "x"
    assert one(root, ".//p:localVars/p:variable/p:type/p:derived").get("name") == "Point"


def test_an_enumerated_type_and_a_value_of_it(tmp_path):
    root = exported(tmp_path, "TYPE Light : (RED, AMBER, GREEN) := AMBER; END_TYPE\n"
                    + fb("VAR l : Light := Light#GREEN; END_VAR"))
    assert [v.get("name") for v in one(root, ".//p:enum/p:values")] == ["RED", "AMBER", "GREEN"]
    assert one(root, ".//p:dataType/p:initialValue/p:simpleValue").get("value") == "AMBER"
    assert one(root, ".//p:localVars//p:simpleValue").get("value") == "Light#GREEN"


@pytest.mark.parametrize("base, element", [("INT", "subrangeSigned"), ("UINT", "subrangeUnsigned")])
def test_a_subrange_is_signed_or_unsigned_as_its_base(tmp_path, base, element):
    root = exported(tmp_path, f"TYPE Pct : {base} (0..100) := 50; END_TYPE\n"
                    + fb("VAR p : Pct; q : INT (-5..5); END_VAR"))
    rng = one(root, f".//p:dataType/p:baseType/p:{element}/p:range")
    assert (rng.get("lower"), rng.get("upper")) == ("0", "100")


def test_strings_keep_their_length(tmp_path):
    root = exported(tmp_path, fb("VAR s : STRING[20] := 'hi'; u : STRING; END_VAR"))
    types = [next(iter(v.find("p:type", NS))) for v in root.iterfind(".//p:variable", NS)]
    assert [(etree.QName(t).localname, t.get("length")) for t in types] \
        == [("string", "20"), ("string", None)]


def test_a_derived_type_and_an_instance_of_a_function_block(tmp_path):
    root = exported(tmp_path, "TYPE Celsius : INT := 20; END_TYPE\n"
                    + fb("VAR c : Celsius; t : TON; END_VAR")
                    + "PROGRAM P1\nVAR inst : F; END_VAR\ninst();\nEND_PROGRAM\n")
    assert one(root, ".//p:dataType[@name='Celsius']/p:baseType/p:INT") is not None
    assert [d.get("name") for d in root.iterfind(".//p:derived", NS)] == ["Celsius", "TON", "F"]


def test_a_function_has_its_return_type(tmp_path):
    root = exported(tmp_path, "FUNCTION Twice : DINT\nVAR_INPUT i : DINT; END_VAR\n"
                              "Twice := i * 2;\nEND_FUNCTION\n")
    assert one(root, ".//p:pou").get("pouType") == "function"
    assert one(root, ".//p:interface/p:returnType/p:DINT") is not None


CONFIGURED = """PROGRAM P1
VAR_EXTERNAL g : INT; END_VAR
VAR_EXTERNAL CONSTANT k : INT; END_VAR
g := g + k;
END_PROGRAM
CONFIGURATION C
  VAR_GLOBAL g : INT := 1; END_VAR
  RESOURCE R1 ON PLC
    VAR_GLOBAL CONSTANT k : INT := 4; END_VAR
    TASK slow (INTERVAL := T#50ms, PRIORITY := 2);
    PROGRAM a WITH slow : P1;
    PROGRAM b : P1;
  END_RESOURCE
END_CONFIGURATION
"""


def test_externals_globals_tasks_and_instances_of_a_configuration(tmp_path):
    root = exported(tmp_path, CONFIGURED)
    assert [v.get("name") for v in root.iterfind(".//p:externalVars/p:variable", NS)] == ["g", "k"]
    conf = one(root, ".//p:configuration[@name='C']")
    assert one(conf, "p:globalVars/p:variable").get("name") == "g"
    res = one(conf, "p:resource[@name='R1']")
    assert one(res, "p:globalVars[@constant='true']/p:variable").get("name") == "k"
    assert one(res, "p:task[@name='slow']").attrib == {"name": "slow", "interval": "T#50ms",
                                                       "priority": "2"}
    assert one(res, "p:task/p:pouInstance").get("name") == "a"
    assert one(res, "p:pouInstance").attrib == {"name": "b", "typeName": "P1"}
    back = fbd.load(tmp_path / "prog.xml")
    assert [(s.name, s.interval_us) for s in back.configuration.tasks] == [("a", 50_000),
                                                                           ("b", None)]
    assert scans(back) == scans(fbd.load(tmp_path / "prog.st"))


@pytest.mark.parametrize("source, message", [
    (fb("VAR_INPUT x : BOOL R_EDGE; END_VAR"), "prog.st:2:11: FUNCTION_BLOCK F: the edge input x"),
    ("PROGRAM P1\nVAR AT %QX0.0 : BOOL; END_VAR\nRETURN;\nEND_PROGRAM\n",
     "prog.st:2:8: PROGRAM P1: a variable without a name (AT %QX0.0)"),
])
def test_what_tc6_has_no_place_for_is_refused_naming_the_pou_and_line(tmp_path, source, message):
    src = tmp_path / "prog.st"
    src.write_text(source)
    with pytest.raises(fbd.FbdError, match=message.replace("(", r"\(").replace(")", r"\)")):
        export(src, tmp_path / "prog.xml")
