"""User data types in PLCopen projects: STRUCT, ARRAY (one and more dimensions),
enumerations, subranges and derived types from <dataTypes>, their initial values,
and member and element access on both sides of a block.

The expected scans were checked against matiec running the ST that Beremiz's
generator makes of the same file (with ``state = Mode#RUNNING`` for the EQ block,
which matiec's EQ function refuses for enumerations)."""

from __future__ import annotations

import pytest

from fbd.errors import FbdError
from fbd.plcopen import PlcOpenError, load_project
from fbd.testing import Harness
from tests.fbd.plcopen import files as f


def dtype(name, base, init=None):
    iv = f"<initialValue>{init}</initialValue>" if init else ""
    return f'<dataType name="{name}"><baseType>{base}</baseType>{iv}</dataType>'


def simple(v):
    return f'<simpleValue value="{v}"/>'


TYPES = (
    dtype("Mode", '<enum><values><value name="IDLE"/><value name="RUNNING"/>'
                  '<value name="DONE"/></values></enum>', simple("RUNNING"))
    + dtype("Percent", '<subrangeSigned><range lower="0" upper="100"/><baseType><INT/>'
                       '</baseType></subrangeSigned>', simple("50"))
    + dtype("Count", "<DINT/>", simple("7"))
    + dtype("Point", '<struct><variable name="x"><type><INT/></type></variable>'
                     '<variable name="y"><type><INT/></type><initialValue>'
                     + simple("5") + "</initialValue></variable></struct>")
    + dtype("Line", '<struct><variable name="a"><type><derived name="Point"/></type>'
                    '</variable><variable name="b"><type><derived name="Point"/></type>'
                    "</variable></struct>")
    + dtype("Row", '<array><dimension lower="1" upper="4"/><baseType><INT/></baseType>'
                   "</array>")
    + dtype("Grid", '<array><dimension lower="0" upper="1"/><dimension lower="0" upper="2"/>'
                    "<baseType><INT/></baseType></array>")
    + dtype("Points", '<array><dimension lower="1" upper="2"/><baseType><derived '
                      'name="Point"/></baseType></array>'))

IFACE = (f.group("inputVars", f.var("IN", "INT"), f.var("K", "INT"))
         + f.group("outputVars", f.var("X", "INT"), f.var("Y", "INT"), f.var("E", "INT"),
                   f.var("G", "INT"), f.var("Q", "INT"), f.var("RUN", "BOOL"),
                   f.var("PC", "INT"), f.var("C", "DINT"))
         + f.group("localVars",
                   '<variable name="p"><type><derived name="Point"/></type></variable>',
                   '<variable name="seg"><type><derived name="Line"/></type></variable>',
                   '<variable name="r"><type><derived name="Row"/></type><initialValue>'
                   '<arrayValue><value repetitionValue="2">' + simple("9") + "</value>"
                   "<value>" + simple("3") + "</value></arrayValue></initialValue></variable>",
                   '<variable name="m"><type><derived name="Grid"/></type></variable>',
                   '<variable name="pts"><type><derived name="Points"/></type></variable>',
                   f.var("state", "@Mode"), f.var("pct", "@Percent"), f.var("n", "@Count")))
BODY = (f.inv(1, "IN") + f.outv(2, "p.x", 1)                       # p.x := IN
        + f.inv(3, "p.x") + f.inv(4, "p.y")
        + f.block(5, "ADD", {"IN1": (3, None), "IN2": (4, None)}, ["OUT"], y=40)
        + f.outv(6, "X", 5, pin="OUT", y=40)                       # X := p.x + p.y
        + f.outv(7, "r[3]", 1, y=80)                               # r[3] := IN
        + f.inv(8, "r[K]", y=100) + f.outv(9, "E", 8, y=100)       # E := r[K]
        + f.outv(10, "m[1, 2]", 1, y=120)
        + f.inv(11, "m[1, 2]", y=140) + f.outv(12, "G", 11, y=140)
        + f.outv(13, "seg.b.y", 1, y=160)
        + f.inv(14, "seg.b.y", y=180) + f.outv(15, "Y", 14, y=180)
        + f.outv(16, "pts[2].x", 1, y=200)
        + f.inv(17, "pts[2].x", y=220) + f.inv(18, "pts[1].y", y=240)
        + f.block(19, "ADD", {"IN1": (17, None), "IN2": (18, None)}, ["OUT"], y=220)
        + f.outv(20, "Q", 19, pin="OUT", y=220)
        + f.inv(21, "state", y=260) + f.inv(22, "Mode#RUNNING", y=280)
        + f.block(23, "EQ", {"IN1": (21, None), "IN2": (22, None)}, ["OUT"], y=260)
        + f.outv(24, "RUN", 23, pin="OUT", y=260)
        + f.inv(25, "pct", y=300) + f.outv(26, "PC", 25, y=300)
        + f.inv(27, "n", y=320) + f.outv(28, "C", 27, y=320))


def _project(tmp_path, body=BODY, iface=IFACE):
    path = tmp_path / "types.xml"
    path.write_text(f.HEAD.replace("<dataTypes/>", f"<dataTypes>{TYPES}</dataTypes>")
                    + f.pou("Main", iface, body) + f.TAIL)
    return load_project(path)


def test_members_and_elements_are_read_and_written_on_both_sides_of_blocks(tmp_path):
    """Initial values: Point.y = 5 (a member's), r = [9, 9, 3, 0] (a repetition, the
    rest the element's), state = RUNNING (the enumeration's), pct = 50, n = 7."""
    h = Harness(_project(tmp_path).network("Main"))
    h.set(IN=4, K=3).scan()
    h.expect(X=9, E=4, G=4, Y=4, Q=9, RUN=True, PC=50, C=7)
    assert h.get("p") == {"x": 4, "y": 5}
    assert h.get("r") == [9, 9, 4, 0]
    assert h.get("m") == [[0, 0, 0], [0, 0, 4]]
    assert h.get("seg") == {"a": {"x": 0, "y": 5}, "b": {"x": 0, "y": 4}}
    assert h.get("pts") == [{"x": 0, "y": 5}, {"x": 4, "y": 5}]
    assert h.get("state") == "RUNNING"
    h.set(IN=-2, K=1).scan()
    h.expect(X=3, E=9, G=-2, Q=3)
    h.set(K=9).scan()
    h.expect(E=0)                 # outside 1..4: the element type's initial value


@pytest.mark.parametrize("body, message", [
    (f.inv(1, "p.z") + f.outv(2, "X", 1), "Point has no field 'z' (fields: x, y)"),
    (f.inv(1, "r[1, 2]") + f.outv(2, "X", 1), "Row has 1 dimension(s), not 2"),
    (f.inv(1, "p[1]") + f.outv(2, "X", 1), "Point is a STRUCT, not an ARRAY"),
    (f.inv(1, "IN") + f.outv(2, "X.a", 1), "'X' is INT, which has no members or elements"),
    (f.inv(1, "r[K+1]") + f.outv(2, "X", 1), "only integer literals and variables"),
])
def test_a_bad_access_is_refused_naming_the_element(tmp_path, body, message):
    with pytest.raises(PlcOpenError, match=r"POU 'Main', element localId \d+: .*") as e:
        _project(tmp_path, body).network("Main")
    assert message in str(e.value)


def test_a_type_defined_through_itself_is_refused(tmp_path):
    path = tmp_path / "loop.xml"
    loop = dtype("A", '<derived name="B"/>') + dtype("B", '<derived name="A"/>')
    path.write_text(f.HEAD.replace("<dataTypes/>", f"<dataTypes>{loop}</dataTypes>")
                    + f.pou("Main", f.group("localVars", f.var("v", "@A")), "") + f.TAIL)
    with pytest.raises(PlcOpenError, match="data type 'A' is defined through itself"):
        load_project(path).network("Main")


def test_beremiz_mqtt_project_writes_members_of_nested_structures():
    """tests/projects/mqtt_ssl: ``LocalVar6.kkk := LocalVar7``, ``LocalVar6.complex.c :=
    Stringy``, ``Integery := LocalVar4.dd[1].a`` (a STRUCT at %IX3.0, which Modbus
    does not serve)."""
    net = load_project(f.example("beremiz_mqtt_ssl")).network("program0")
    h = Harness(net)
    h.set(LocalVar7=12, LocalVar4={"aa": 0, "bb": {"a": 1, "b": 2, "c": "hi"}, "cc": 0,
                                   "dd": [{"a": 41, "b": 0, "c": ""},
                                          {"a": 42, "b": 0, "c": ""}]}).scan()
    h.expect(LocalVar5=2, Stringy="hi", Integery=41)
    assert h.get("LocalVar6")["kkk"] == 12 and h.get("LocalVar6")["complex"]["c"] == "hi"
    assert str(net.addresses["LocalVar4"]) == "%IX3.0"


def _string_var(name, length=None, init=None):
    iv = f'<initialValue><simpleValue value="{init}"/></initialValue>' if init else ""
    n = f' length="{length}"' if length is not None else ""
    return f'<variable name="{name}"><type><string{n}/></type>{iv}</variable>'


LONG_KEPT = f.inv(1, "long") + f.outv(2, "long", 1)


def _strings_project(tmp_path, *variables, types="", body=LONG_KEPT):
    path = tmp_path / "strings.xml"
    path.write_text(f.HEAD.replace("<dataTypes/>", f"<dataTypes>{types}</dataTypes>")
                    + f.pou("Main", f.group("localVars", *variables), body) + f.TAIL)
    return load_project(path)


def test_a_string_length_declares_how_many_characters_the_variable_holds(tmp_path):
    long_text = "abcdefghij" * 15
    project = _strings_project(
        tmp_path, _string_var("long", 200, f"'{long_text}'"), _string_var("short", 10, "'abcdefghijkl'"),
        _string_var("plain"), f.var("named", "@Name"),
        types=dtype("Name", '<string length="200"/>'))
    h = Harness(project.network("Main"))
    h.scan()
    assert (h.get("long"), h.get("short")) == (long_text, "abcdefghij")
    h.write("named", "y" * 200)
    with pytest.raises(FbdError, match=r"short: string of 11 characters is longer than STRING\[10\]'s 10"):
        h.write("short", "y" * 11)
    with pytest.raises(FbdError, match="longer than STRING's 126"):
        h.write("plain", "y" * 127)


@pytest.mark.parametrize("length, problem", [
    ("0", "a STRING's length is 1..32,767"), ("40000", "a STRING's length is 1..32,767"),
    ("x", "the string length 'x' is not a count")])
def test_a_string_length_outside_1_to_the_maximum_is_refused_naming_the_variable(
        tmp_path, length, problem):
    with pytest.raises(PlcOpenError, match=rf"strings\.xml.*'short'.*{problem}"):
        _strings_project(tmp_path, _string_var("long", 200), _string_var("short", length)
                         ).network("Main")


def test_a_string_variable_written_in_a_diagram_holds_its_own_capacity(tmp_path):
    """short := long, plain := long, copy := long: each cut to its own type's, as ST's store."""
    long_text = "abcdefghij" * 15
    body = (f.inv(1, "long") + f.outv(2, "short", 1) + f.outv(3, "plain", 1, y=20)
            + f.outv(4, "copy", 1, y=40))
    project = _strings_project(
        tmp_path, _string_var("long", 200, f"'{long_text}'"), _string_var("short", 10),
        _string_var("plain"), _string_var("copy", 200), body=body)
    h = Harness(project.network("Main"))
    h.scan()
    assert [h.get(name) for name in ("short", "plain", "copy")] == [
        long_text[:10], long_text[:126], long_text]
