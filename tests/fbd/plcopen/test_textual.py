"""ST, IL and SFC POUs of a PLCopen file as the ST syntax tree (fbd.plcopen.textual, .sfc)."""

from __future__ import annotations

import pytest

from fbd.plcopen import PlcOpenError
from fbd.plcopen.source import parse, tag
from fbd.plcopen.textual import PouText
from fbd.st import ast as A
from fbd.st import dump
from tests.fbd.plcopen import files as f


def _pous(path):
    root, _ = parse(path)
    return root, {p.get("name"): p for p in root.iter() if tag(p) == "pou"}


def _tree(path, name):
    root, pous = _pous(path)
    return PouText(path).pou(pous[name])


def test_first_steps_st_function_and_block_declarations_and_bodies():
    path = f.example("beremiz_first_steps")
    avg = _tree(path, "AverageVal")
    assert avg.kind == "FUNCTION" and dump(avg.return_type) == "REAL"
    assert dump(avg.var_blocks) == ("[(VarBlock VAR_INPUT [(VarDecl Cnt1 INT) (VarDecl Cnt2 INT) "
                                    "(VarDecl Cnt3 INT) (VarDecl Cnt4 INT) (VarDecl Cnt5 INT)]) "
                                    "(VarBlock VAR [(VarDecl InputsNumber REAL 5.0)])]")
    assert dump(avg.body) == ("(StBody [(Assign AverageVal (/ (Call INT_TO_REAL [(+ (+ (+ (+ Cnt1 "
                              "Cnt2) Cnt3) Cnt4) Cnt5)]) InputsNumber))])")
    counter = _tree(path, "CounterST")
    assert counter.kind == "FUNCTION_BLOCK"
    assert [(b.kind, b.qualifier) for b in counter.var_blocks] == [
        ("VAR_INPUT", None), ("VAR", None), ("VAR_OUTPUT", None), ("VAR_EXTERNAL", "CONSTANT")]


def test_body_positions_are_lines_and_columns_of_the_xml_file():
    path = f.example("beremiz_first_steps")
    lines = path.read_text(encoding="utf-8").split("\n")
    il = _tree(path, "CounterIL")
    first = il.body.instructions[0]
    assert lines[first.line - 1][first.col - 1:].startswith("LD Reset")
    st_body = _tree(path, "CounterST").body
    assign = st_body.statements[-1]
    assert lines[assign.line - 1][assign.col - 1:].startswith("Out := Cnt;")
    decl = _tree(path, "CounterST").var_blocks[0].decls[0]
    assert '<variable name="Reset">' in lines[decl.line - 1]


def test_first_steps_chart_in_the_order_beremiz_writes_it():
    sfc = _tree(f.example("beremiz_first_steps"), "CounterSFC").body
    assert [(s.name, s.initial, [(a.action, a.qualifier) for a in s.actions]) for s in sfc.steps] == [
        ("Start", True, []),
        ("ResetCounter", False, [("RESETCOUNTER_INLINE1", "N"), ("RESETCOUNTER_INLINE2", "N")]),
        ("Count", False, [("COUNT_INLINE3", "N"), ("COUNT_INLINE4", "N")])]
    assert [(t.sources, t.targets, dump(t.condition)) for t in sfc.transitions] == [
        (("Start",), ("ResetCounter",), "Reset"), (("ResetCounter",), ("Start",), "(NOT Reset)"),
        (("Start",), ("Count",), "(NOT Reset)"), (("Count",), ("Start",), "Reset")]
    assert [(a.name, dump(a.body)) for a in sfc.actions] == [
        ("RESETCOUNTER_INLINE1", "(StBody [(Assign Cnt ResetCounterValue)])"),
        ("RESETCOUNTER_INLINE2", "(StBody [(Assign OUT Cnt)])"),
        ("COUNT_INLINE3", "(StBody [(Assign Cnt (+ Cnt 1))])"),
        ("COUNT_INLINE4", "(StBody [(Assign OUT Cnt)])")]


# ----------------------------------------------------------------- synthetic charts
def _cpi(*refs):
    return "".join(f'<connectionPointIn><connection refLocalId="{r}"/></connectionPointIn>'
                   for r in refs)


def _step(lid, name, src=None, initial=False):
    return (f'<step localId="{lid}" name="{name}" initialStep="{str(initial).lower()}">'
            f'{_cpi(src) if src else ""}</step>')


def _tr(lid, src, cond, priority=None):
    prio = f' priority="{priority}"' if priority is not None else ""
    return f'<transition localId="{lid}"{prio}>{_cpi(src)}<condition>{cond}</condition></transition>'


def _st(text):
    return f'<inline name=""><ST><xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml"><![CDATA[{text}]]></xhtml:p></ST></inline>'


def _chart_file(tmp_path, chart, extra=""):
    iface = ("<inputVars>" + f.var("a", "BOOL") + f.var("b", "BOOL") + "</inputVars>"
             "<localVars>" + f.var("n", "INT") + "</localVars>")
    text = (f'<pou name="P" pouType="program"><interface>{iface}</interface>{extra}'
            f"<body><SFC>{chart}</SFC></body></pou>")
    path = tmp_path / "p.xml"
    path.write_text(f.HEAD + text + f.TAIL)
    return path


def test_simultaneous_and_selection_branches_named_transitions_actions_and_qualifiers(tmp_path):
    chart = (_step(1, "S0", initial=True)
             + _tr(2, 1, _st("a"))
             + '<simultaneousDivergence localId="3">' + _cpi(2) + "</simultaneousDivergence>"
             + _step(4, "L", 3) + _step(5, "R", 3)
             + '<actionBlock localId="6">' + _cpi(4)
             + '<action localId="0" qualifier="L" duration="T#2s" indicator="b">'
               '<reference name="Count"/></action>'
             + '<action localId="0" qualifier="P1">' + _st("n := 0;") + "</action></actionBlock>"
             + '<simultaneousConvergence localId="7">' + _cpi(4, 5) + "</simultaneousConvergence>"
             + _tr(8, 7, '<reference name="Done"/>', priority=2)
             + '<selectionConvergence localId="9">' + _cpi(8) + "</selectionConvergence>"
             + '<jumpStep localId="10" targetName="S0">' + _cpi(9) + "</jumpStep>")
    extra = ('<actions><action name="Count"><body><IL><xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">'
             "<![CDATA[LD n\nADD 1\nST n]]></xhtml:p></IL></body></action></actions>"
             '<transitions><transition name="Done"><body><ST><xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml">'
             "<![CDATA[:= n > 3;]]></xhtml:p></ST></body></transition></transitions>")
    sfc = _tree(_chart_file(tmp_path, chart, extra), "P").body
    assert [s.name for s in sfc.steps] == ["S0", "L", "R"]
    assert [(t.sources, t.targets, t.priority, dump(t.condition)) for t in sfc.transitions] == [
        (("S0",), ("L", "R"), None, "a"), (("L", "R"), ("S0",), 2, "(> n 3)")]
    (count, inline) = sfc.steps[1].actions
    assert (count.action, count.qualifier, dump(count.time), dump(count.indicators)) == \
        ("Count", "L", "2000000000ns", "[b]")
    assert (inline.action, inline.qualifier) == ("L_INLINE1", "P1")
    assert [a.name for a in sfc.actions] == ["Count", "L_INLINE1"]
    assert isinstance(sfc.actions[0].body, A.IlBody)


def test_a_step_no_initial_step_reaches_is_not_written_as_beremiz_does(tmp_path):
    chart = _step(1, "S0", initial=True) + _tr(2, 1, _st("a")) + _step(3, "S1", 2) \
        + _step(4, "Orphan")
    sfc = _tree(_chart_file(tmp_path, chart), "P").body
    assert [s.name for s in sfc.steps] == ["S0", "S1"]


@pytest.mark.parametrize("chart, message", [
    (_step(1, "S0"), "the chart has no initial step"),
    (_step(1, "S0", initial=True) + '<macroStep localId="2" name="M"/>',
     "<macroStep> localId '2': macro steps are not supported: Beremiz's generator writes no "
     "ST for them"),
    (_step(1, "S0", initial=True) + _tr(2, 1, '<inline name=""><FBD/></inline>') + _step(3, "S1", 2),
     "localId '2': an inline condition in FBD is not supported"),
    (_step(1, "S0", initial=True) + _tr(2, 1, '<reference name="Nope"/>') + _step(3, "S1", 2),
     "refers to the transition 'Nope', which the POU does not declare"),
    (_step(1, "S0", initial=True) + '<block localId="5" typeName="FOO"/>'
     + '<transition localId="2">' + _cpi(1) + "<condition>" + _cpi(5) + "</condition></transition>"
     + _step(3, "S1", 2),
     "element localId '5': unknown block type 'FOO' (neither a standard function"),
    (_step(1, "S0", initial=True) + '<inVariable localId="6"><expression>a</expression>'
     '</inVariable><block localId="5" typeName="NOT"><inputVariables><variable formalParameter="EN">'
     + _cpi(6) + '</variable><variable formalParameter="IN">' + _cpi(6) + '</variable>'
     '</inputVariables></block>'
     + '<transition localId="2">' + _cpi(1) + "<condition>" + _cpi(5) + "</condition></transition>"
     + _step(3, "S1", 2),
     "element localId '5': a function whose EN is wired is not supported"),
    (_step(1, "S0", initial=True) + _tr(2, 1, _st("a")) + '<jumpStep localId="3" targetName="X">'
     + _cpi(2) + "</jumpStep>", "jumps to 'X', which is not a step of the chart"),
    (_step(1, "S0", initial=True) + _tr(2, 1, _st("a +")) + _step(3, "S1", 2),
     "'a +' is not an ST expression"),
    (_step(1, "S0", initial=True) + _tr(2, 1, _st("a")),
     "localId '2': is not connected to a step after it"),
])
def test_what_a_chart_cannot_be_is_refused_naming_the_element(tmp_path, chart, message):
    with pytest.raises(PlcOpenError, match="POU 'P'.*" + _re(message)):
        _tree(_chart_file(tmp_path, chart), "P")


def test_an_action_that_is_itself_a_chart_is_refused_as_beremiz_and_matiec_cannot_run_it(
        tmp_path):
    """Beremiz offers actions in IL, ST, LD and FBD only, its generator cannot write a
    chart inside an action, and matiec's C for one does not compile."""
    chart = (_step(1, "S0", initial=True) + '<actionBlock localId="6">' + _cpi(1)
             + '<action localId="0" qualifier="N"><reference name="Inner"/></action></actionBlock>'
             + _tr(2, 1, _st("a")) + _step(3, "S1", 2))
    extra = ('<actions><action name="Inner"><body><SFC>' + _step(11, "A0", initial=True)
             + "</SFC></body></action></actions>")
    with pytest.raises(PlcOpenError, match=r"action 'Inner' is written in SFC; actions in ST, "
                                           r"IL, FBD and LD are supported \(Beremiz offers no "
                                           r"other.*matiec's C for one does not compile"):
        _tree(_chart_file(tmp_path, chart, extra), "P")


def _re(text):
    import re
    return re.escape(text)


def test_data_types_initial_values_and_locations(tmp_path):
    types = ('<dataType name="Mode"><baseType><enum><values><value name="IDLE"/><value name="RUN"/>'
             '</values></enum></baseType><initialValue><simpleValue value="RUN"/></initialValue></dataType>'
             '<dataType name="Pt"><baseType><struct>' + f.var("x", "INT", -3) + f.var("y", "REAL")
             + "</struct></baseType></dataType>"
             '<dataType name="Row"><baseType><array><dimension lower="1" upper="3"/><baseType><INT/>'
             '</baseType></array></baseType><initialValue><arrayValue><value repetitionValue="2">'
             '<simpleValue value="7"/></value><value><simpleValue value="1"/></value></arrayValue>'
             "</initialValue></dataType>"
             '<dataType name="Pct"><baseType><subrangeSigned><range lower="0" upper="100"/><baseType>'
             "<INT/></baseType></subrangeSigned></baseType></dataType>")
    iface = ("<localVars>" + f.var("p", "@Pt") + f.var("s", "string", "hello")
             + f.var("t", "TIME", "T#1s") + "</localVars>"
             + '<outputVars retain="true">' + f.var("q", "BOOL", at="%QX0.1") + "</outputVars>")
    body = '<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml"><![CDATA[q := TRUE;]]></xhtml:p>'
    text = f.HEAD.replace("<dataTypes/>", f"<dataTypes>{types}</dataTypes>") \
        + f.pou("P", iface, body, lang="ST") + f.TAIL
    path = tmp_path / "t.xml"
    path.write_text(text)
    root, pous = _pous(path)
    decls = PouText(path).data_types(root)
    assert [dump(d) for d in decls] == [
        "(TypeDecl Mode (EnumType [(EnumMember IDLE) (EnumMember RUN)]) RUN)",
        "(TypeDecl Pt (StructType [(VarDecl x INT -3) (VarDecl y REAL)]))",
        "(TypeDecl Row (ArrayType [1..3] INT) (ArrayInit [(ArrayInitItem 2 7) (ArrayInitItem 1)]))",
        "(TypeDecl Pct (SubrangeType INT 0..100))"]
    pou = PouText(path).pou(pous["P"])
    assert dump(pou.var_blocks) == (
        "[(VarBlock VAR [(VarDecl p Pt) (VarDecl s STRING 'hello') (VarDecl t TIME 1000000000ns)]) "
        "(VarBlock VAR_OUTPUT RETAIN [(VarDecl q BOOL %QX0.1)])]")


def test_a_hostile_name_is_refused_not_pasted_into_text(tmp_path):
    iface = "<localVars>" + f.var("x; END_VAR", "INT") + "</localVars>"
    path = tmp_path / "h.xml"
    path.write_text(f.HEAD + f.pou("P", iface, "<xhtml:p xmlns:xhtml='http://www.w3.org/1999/xhtml'>"
                                   "x := 1;</xhtml:p>", lang="ST") + f.TAIL)
    root, pous = _pous(path)
    with pytest.raises(PlcOpenError, match="'x; END_VAR' is not an IEC identifier"):
        PouText(path).pou(pous["P"])


def test_a_syntax_error_in_a_body_names_the_xml_file_line_and_pou(tmp_path):
    path = tmp_path / "e.xml"
    path.write_text(f.HEAD + f.pou("P", "", "\n<xhtml:p xmlns:xhtml='http://www.w3.org/1999/xhtml'>"
                                   "x := ;</xhtml:p>", lang="ST") + f.TAIL)
    root, pous = _pous(path)
    line = next(i for i, s in enumerate(path.read_text().split("\n"), 1) if "x := ;" in s)
    with pytest.raises(PlcOpenError, match=rf"e.xml:{line}:\d+: in PROGRAM P: "):
        PouText(path).pou(pous["P"])



def test_traffic_light_chart_with_graphical_actions_transitions_and_qualifiers():
    """Beremiz's svghmi_traffic_light: R, S, P and D qualifiers, actions naming BOOL
    outputs, an LD action, a named FBD transition used twice, and a condition wired
    from blocks drawn in the chart (computed, as Beremiz does, in
    COMPUTE_FUNCTION_BLOCKS, which the initial step sets)."""
    pou = _tree(f.example("beremiz_svghmi_traffic_light"), "traffic_light_sequence")
    sfc = pou.body
    assert [s.name for s in sfc.steps] == ["Standstill", "ORANGE", "RED", "PEDESTRIAN_GREEN",
                                           "PEDESTRIAN_RED", "GREEN"]
    assert [(a.action, a.qualifier, dump(a.time) if a.time else None)
            for a in sfc.steps[1].actions] == [
        ("GREEN_LIGHT", "R", None), ("ORANGE_LIGHT", "S", None),
        ("PEDESTRIAN_RED_LIGHT", "S", None), ("STOP_CARS", "D", "2000000000ns")]
    assert sfc.steps[0].actions[-1].action == "COMPUTE_FUNCTION_BLOCKS"
    assert sfc.steps[0].actions[-1].qualifier == "S"
    conditions = {(t.sources, t.targets): dump(t.condition) for t in sfc.transitions}
    assert conditions[(("GREEN",), ("ORANGE",))] == "_TMP_OR35_OUT"
    assert conditions[(("RED",), ("Standstill",))] == "_TMP_NOT42_OUT"
    assert conditions[(("ORANGE",), ("Standstill",))] == "_TMP_NOT42_OUT"
    actions = {a.name: dump(a.body) for a in sfc.actions}
    assert actions["BLINK_ORANGE_LIGHT"] == (
        "(StBody [(Invoke TON2 [IN := ORANGE_LIGHT PT := 500000000ns]) "
        "(Invoke R_TRIG0 [CLK := (. TON2 Q)]) (If [(Branch (. R_TRIG0 Q) [(Assign ORANGE_LIGHT "
        "FALSE)])]) (Invoke TON1 [IN := (NOT ORANGE_LIGHT) PT := 500000000ns]) "
        "(Invoke R_TRIG1 [CLK := (. TON1 Q)]) (If [(Branch (. R_TRIG1 Q) [(Assign ORANGE_LIGHT "
        "TRUE)])])])")
    assert actions["COMPUTE_FUNCTION_BLOCKS"] == (
        "(StBody [(Assign _TMP_NOT42_OUT (Call NOT [SWITCH_BUTTON])) "
        "(Invoke SR0 [S1 := PEDESTRIAN_BUTTON R := (. TON3 Q)]) "
        "(Invoke TON3 [IN := (. SR0 Q1) PT := 2000000000ns]) "
        "(Assign _TMP_OR35_OUT (Call OR [(. TON3 Q) WARN_CARS]))])")
    assert dump(pou.var_blocks[-1]) == ("(VarBlock VAR [(VarDecl _TMP_NOT42_OUT BOOL) "
                                        "(VarDecl _TMP_OR35_OUT BOOL)])")


def test_an_edge_coil_in_a_graphical_action_gets_its_own_trigger_instance(tmp_path):
    ld = ('<leftPowerRail localId="1"/>'
          '<contact localId="2">' + _cpi(1) + "<variable>a</variable></contact>"
          '<coil localId="3" edge="rising">' + _cpi(2) + "<variable>b</variable></coil>")
    extra = f'<actions><action name="Act"><body><LD>{ld}</LD></body></action></actions>'
    chart = (_step(1, "S0", initial=True)
             + '<actionBlock localId="4">' + _cpi(1)
             + '<action localId="0"><reference name="Act"/></action></actionBlock>'
             + _tr(5, 1, _st("a")) + _step(6, "S1", 5))
    pou = _tree(_chart_file(tmp_path, chart, extra), "P")
    assert dump(pou.body.actions[0].body) == ("(StBody [(Invoke _TMP_R_TRIG1 [CLK := a]) "
                                              "(Assign b (. _TMP_R_TRIG1 Q))])")
    assert dump(pou.var_blocks[-1]) == "(VarBlock VAR [(VarDecl _TMP_R_TRIG1 R_TRIG)])"


def test_a_chain_of_a_thousand_functions_in_an_action_is_refused_not_a_crash(tmp_path):
    blocks = ['<inVariable localId="1"><expression>a</expression></inVariable>']
    for k in range(2, 1002):
        blocks.append(f'<block localId="{k}" typeName="NOT"><inputVariables><variable '
                      f'formalParameter="IN">{_cpi(k - 1)}</variable></inputVariables>'
                      f'<outputVariables><variable formalParameter="OUT"/></outputVariables>'
                      f"</block>")
    blocks.append(f'<outVariable localId="2000">{_cpi(1001)}<expression>b</expression>'
                  f"</outVariable>")
    extra = f'<actions><action name="Act"><body><FBD>{"".join(blocks)}</FBD></body></action></actions>'
    chart = (_step(1, "S0", initial=True)
             + '<actionBlock localId="4">' + _cpi(1)
             + '<action localId="0"><reference name="Act"/></action></actionBlock>'
             + _tr(5, 1, _st("a")) + _step(6, "S1", 5))
    with pytest.raises(PlcOpenError, match="functions feed one another more than 200 deep"):
        _tree(_chart_file(tmp_path, chart, extra), "P")
