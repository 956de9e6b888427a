"""Export to PLCopen TC6 XML (fbd.plcopen.save, fbd export): valid against the
schema, laid out, and importing it back runs identically scan for scan."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from pathlib import Path

import pytest
from lxml import etree

import blocks
from fbd import BOOL, BYTE, DINT, INT, LREAL, LWORD, REAL, STRING, TIME, UINT, WORD, FbdError, Network
from fbd.plcopen import PlcOpenError, load_project, save
from fbd.plcopen.writer import ExportError, native_st, schema_path, validate
from fbd.runtime.plc import Plc
from fbd.tools import cli
from fbd.types import string_of
from tests.fbd.plcopen import files as f
from tests.paths import ROOT

NS = f.NS


@pytest.fixture(scope="module")
def schema():
    return f.schema()


def _export(net, tmp_path, schema=None):
    path = tmp_path / f"{net.name}.xml"
    save(net, path)
    if schema is not None:
        doc = etree.parse(str(path))
        assert schema.validate(doc), schema.error_log
    return path


def _round_trip(net, tmp_path, schema=None):
    path = _export(net, tmp_path, schema)
    project = load_project(path)
    assert not project.errors, project.errors
    assert project.configuration.tasks[0].program == net.name
    return project.network(project.configuration.tasks[0].program)


def assert_same_scans(original: Network, imported: Network, steps):
    """Both networks, fed the same inputs, give the same outputs after every scan."""
    a, b = Plc(original), Plc(imported)
    for i, inputs in enumerate(steps):
        for name, value in inputs.items():
            a.set(name, value)
            b.set(name, value)
        a.scan()
        b.scan()
        for name in original.outputs:
            x, y = a.get(name), b.get(name)
            assert x == y or x != x and y != y, f"scan {i + 1}: {name}"    # NaN is NaN


# -- small networks -------------------------------------------------------------------
def latch_macro(name="Latch", reset_wins=False) -> Network:
    net = Network(name)
    s, r = net.input("S", BOOL), net.input("R", BOOL)
    ff = net.add("ff", blocks.RS() if reset_wins else blocks.SR(),
                 **({"S": s, "R1": r} if reset_wins else {"S1": s, "R": r}))
    net.output("Q", ff.Q1)
    return net


def mixed() -> Network:
    """Feedback loops, literals of each kind, timers, edges, an extensible MUX,
    block parameters, two different macros with one name, a located port."""
    net = Network("Mixed", doc="a bit of everything")
    go = net.input("GO", BOOL, at="%IX0.0")
    k = net.input("K", INT, 1)
    count = net.add("count", blocks.ADD(INT), IN2=1)
    net.connect(count.OUT, count.IN1, feedback=True)          # a counter: a loop
    ton = net.add("ton", blocks.TON(), IN=go, PT=timedelta(milliseconds=20))
    tof = net.add("tof", blocks.TOF(), IN=ton.Q, PT="T#15ms")
    edge = net.add("edge", blocks.F_TRIG(first_scan_pulse=False), CLK=tof.Q)
    mux = net.add("mux", blocks.MUX(n=3), K=k, IN0=1.5, IN1=2.25, IN2=-3.0)
    text = net.add("text", blocks.CONCAT(), IN1="it's ", IN2="$5")
    l1 = net.add("l1", latch_macro(), S=edge.Q, R=go)
    l2 = net.add("l2", latch_macro(reset_wins=True), S=go, R=edge.Q)
    big = net.add("big", blocks.MOVE(DINT), IN=70000)
    net.output("COUNT", count.OUT, at="%QW0")
    net.output("PREV", count.OUT, feedback=True)
    net.output("PULSE", edge.Q, at="%QX0.1")
    net.output("M", mux.OUT)
    net.output("TEXT", text.OUT)
    net.output("L1", l1.Q)
    net.output("L2", l2.Q)
    net.output("BIG", big.OUT)
    net.output("GO_ECHO", go)
    net.output("CONST", 7, INT)
    return net


def interleaved() -> Network:
    """Two macros that feed each other without a feedback mark: legal here (the
    blocks interleave), impossible as IEC calls of whole function blocks."""
    a = Network("A")
    x = a.input("X", INT)
    y = a.input("Y", INT)
    inc = a.add("inc", blocks.ADD(INT), IN1=x, IN2=1)
    dbl = a.add("dbl", blocks.MUL(INT), IN1=y, IN2=2)
    a.output("X1", inc.OUT)
    a.output("Y2", dbl.OUT)
    b = Network("B")
    v = b.input("V", INT)
    neg = b.add("neg", blocks.SUB(INT), IN1=v, IN2=3)
    b.output("W", neg.OUT)
    net = Network("Top")
    n = net.input("N", INT)
    ai = net.add("a", a, X=n)
    bi = net.add("b", b, V=ai.X1)
    net.connect(bi.W, ai.Y)
    net.output("OUT", ai.Y2)
    return net


def test_small_network_exports_valid_xml_and_runs_identically(tmp_path, schema):
    net = mixed()
    imported = _round_trip(net, tmp_path, schema)
    steps = [{"GO": i % 9 < 5, "K": i % 3} for i in range(60)]
    assert_same_scans(net, imported, steps)
    assert {n: str(a) for n, a in imported.addresses.items()} == \
        {"GO": "%IX0.0", "COUNT": "%QW0", "PULSE": "%QX0.1"}
    assert imported.inputs["K"] == (INT, 1)
    assert imported.doc == "a bit of everything"


def test_macros_of_one_name_with_different_bodies_become_two_pous(tmp_path):
    root = etree.parse(str(_export(mixed(), tmp_path))).getroot()
    pous = {p.get("name"): p.get("pouType") for p in root.iter(NS + "pou")}
    # (F_TRIG without its first-scan pulse is not IEC's: an ST function block of its own)
    assert pous == {"Latch": "functionBlock", "Latch_2": "functionBlock", "Mixed": "program",
                    "FBD_F_TRIG_NO_FIRST_PULSE": "functionBlock"}
    task = root.find(f".//{NS}task")
    assert task.get("interval") == "T#5ms"
    assert task.find(NS + "pouInstance").get("typeName") == "Mixed"


def test_macros_on_a_loop_are_inlined_and_behave_the_same(tmp_path, schema):
    net = interleaved()
    imported = _round_trip(net, tmp_path, schema)
    assert_same_scans(net, imported, [{"N": i} for i in range(5)])
    root = etree.parse(str(tmp_path / "Top.xml")).getroot()
    names = {p.get("name") for p in root.iter(NS + "pou")}
    # A's output X1 does not depend on its input Y, so A cannot run as one call on this
    # loop: it is inlined; B (V -> W) is a whole call on the loop and stays a POU
    assert "B" in names and "A" not in names


def test_a_feedback_wire_becomes_a_variable_written_last(tmp_path):
    root = etree.parse(str(_export(mixed(), tmp_path))).getroot()
    pou = next(p for p in root.iter(NS + "pou") if p.get("name") == "Mixed")
    local = [v.get("name") for g in pou.iterfind(f"{NS}interface/{NS}localVars") for v in g]
    assert "fb_1" in local
    orders = {}
    for el in pou.find(f"{NS}body/{NS}FBD"):
        if el.get("executionOrderId"):
            expr = el.find(NS + "expression")
            key = expr.text if expr is not None else el.get("instanceName")
            orders[key] = int(el.get("executionOrderId"))
    assert orders["fb_1"] == max(orders.values())
    # IEC names are case-insensitive: the block "count" is renamed beside the output COUNT
    assert orders["count_2"] < orders["COUNT"]


def test_a_round_trip_gives_back_the_interface_without_the_feedback_variables(tmp_path):
    original = mixed()
    imported = _round_trip(original, tmp_path)
    assert list(imported.outputs) == list(original.outputs)
    assert list(imported.inputs) == list(original.inputs)
    # a variable of the same name that someone else declared is an output as before
    path = tmp_path / "Mixed.xml"
    text = path.read_text().replace("urn:fbd-sim:feedback", "urn:someone-else:note")
    path.write_text(text)
    project = load_project(path)
    assert "fb_1" in project.network("Mixed").outputs


def test_blocks_do_not_overlap_in_the_exported_diagram(tmp_path):
    root = etree.parse(str(_export(mixed(), tmp_path))).getroot()
    for pou in root.iter(NS + "pou"):
        rects = []
        for blk in pou.iter(NS + "block"):
            p = blk.find(NS + "position")
            rects.append((float(p.get("x")), float(p.get("y")), float(blk.get("width")),
                          float(blk.get("height"))))
        for i, (x, y, w, h) in enumerate(rects):
            for (x2, y2, w2, h2) in rects[i + 1:]:
                assert not (x < x2 + w2 and x2 < x + w and y < y2 + h2 and y2 < y + h)


def test_long_wires_are_connector_pairs_and_the_network_runs_the_same(tmp_path):
    """A wire over more than eight columns is drawn as a connector beside its source and
    a continuation beside each target, as the editors draw long wires (routed across, a
    large network's layout would grow with wires x columns)."""
    from fbd.tools.synthetic import random_network
    net = random_network(400, 7)
    imported = _round_trip(net, tmp_path)
    rng = random.Random(3)
    steps = [{name: (rng.random() < 0.5) if tp is BOOL else rng.randint(-50, 50)
              for name, (tp, _d) in net.inputs.items()} for _ in range(60)]
    assert_same_scans(net, imported, steps)
    body = next(p for p in etree.parse(str(tmp_path / f"{net.name}.xml")).getroot().iter(NS + "pou")
                if p.get("name") == net.name).find(f"{NS}body/{NS}FBD")
    connectors = [c.get("name") for c in body.iter(NS + "connector")]
    continuations = [c.get("name") for c in body.iter(NS + "continuation")]
    assert len(continuations) > 20 and len(set(connectors)) == len(connectors)
    assert set(continuations) == set(connectors)
    assert all(re.fullmatch(r"[A-Za-z_]\w*", name) for name in connectors)


def test_a_literal_with_no_iec_spelling_is_refused(tmp_path):
    net = Network("Bad")
    m = net.add("m", blocks.MOVE(REAL), IN=float("inf"))
    net.output("O", m.OUT)
    with pytest.raises(ExportError, match="no IEC spelling"):
        save(net, tmp_path / "bad.xml")


def test_types_of_every_kind_round_trip(tmp_path, schema):
    net = Network("Kinds")
    for i, (tp, value) in enumerate([(BOOL, True), (INT, -5), (DINT, 1 << 20), (REAL, 0.5),
                                     (TIME, timedelta(seconds=1.5)), (STRING, "a'b")]):
        x = net.input(f"I{i}", tp, value)
        m = net.add(f"m{i}", blocks.MOVE(tp), IN=x)
        net.output(f"O{i}", m.OUT)
    imported = _round_trip(net, tmp_path, schema)
    assert imported.inputs == net.inputs
    assert_same_scans(net, imported, [{}] * 2)


# -- the whole 2048 program ------------------------------------------------------------
@pytest.mark.parametrize("variant", [("single_pass", "smart"), ("multi_scan", "article")])
def test_2048_exports_valid_xml_and_runs_identically_scan_for_scan(tmp_path, schema, variant):
    from programs.game2048 import build
    net = build(*variant, seed=3)
    imported = _round_trip(net, tmp_path, schema)
    assert list(imported.outputs) == list(net.outputs)
    assert {k: str(v) for k, v in imported.addresses.items()} == {
        k: str(v) for k, v in net.addresses.items()}   # what fbd serve serves
    rng = random.Random(7)
    steps, seq = [], 0
    for scan in range(300):
        if scan % 6 == 0:        # a command every 6 scans, as a player would press keys
            seq += 1
            cmd = 5 if scan == 0 else rng.choice([1, 2, 3, 4])
            steps.append({"CMD": cmd, "CMD_SEQ": seq})
        else:
            steps.append({})
    assert_same_scans(net, imported, steps)
    h = Plc(imported)
    for step in steps:
        for k, v in step.items():
            h.set(k, v)
        h.scan()
    assert h.get("SCORE") > 0  # the game was really played
    pous = {p.get("name") for p in etree.parse(str(tmp_path / "Game2048.xml")).iter(NS + "pou")}
    # Control feeds the processing that feeds it back within a scan: it is inlined; the
    # other macros stay function blocks (Move is renamed: IEC names ignore case, MOVE exists)
    assert "Control" not in pous and {"Cell", "Processing", "Move_2", "Random"} <= pous


# -- blocks IEC does not have: ST function blocks the editors compile ------------------------------
# The IEC 61131-3 library as Beremiz and OpenPLC Editor know it (Beremiz's plcopen/iec_std.csv and
# Standard_Function_Blocks.xml, matiec's lib/): a block of another type must be a POU of the file.
IEC_FUNCTIONS = set("""TRUNC ABS SQRT LN LOG EXP SIN COS TAN ASIN ACOS ATAN ADD MUL SUB DIV MOD EXPT
    MOVE ADD_TIME SUB_TIME MULTIME DIVTIME SHL SHR ROR ROL AND OR XOR NOT SEL MAX MIN LIMIT MUX
    GT GE EQ LT LE NE LEN LEFT RIGHT MID CONCAT INSERT DELETE REPLACE FIND""".split())
IEC_FUNCTION_BLOCKS = {"SR", "RS", "R_TRIG", "F_TRIG", "CTU", "CTD", "CTUD", "TP", "TON", "TOF"}
CONVERSION = re.compile(r"^[A-Z]+_TO_[A-Z]+$")


def unknown_to_the_editors(root) -> set:
    pous = {p.get("name") for p in root.iter(NS + "pou")}
    return {b.get("typeName") for b in root.iter(NS + "block")
            if b.get("typeName") not in pous | IEC_FUNCTIONS | IEC_FUNCTION_BLOCKS
            and not CONVERSION.match(b.get("typeName"))}


def st_of(root, pou_name) -> str:
    pou = next(p for p in root.iter(NS + "pou") if p.get("name") == pou_name)
    return pou.find(f"{NS}body/{NS}ST/{{http://www.w3.org/1999/xhtml}}p").text


def stores() -> Network:
    """MEMORY on several types, LIFO and FIFO (two configurations, one used twice), NEG,
    F_TRIG without its first-scan pulse, MUL_TIME and DIV_TIME."""
    net = Network("Stores")
    x, push, pop = net.input("X", INT), net.input("PUSH", BOOL), net.input("POP", BOOL)
    rst, set_ = net.input("RST", BOOL), net.input("SET", BOOL)
    conv = {DINT: blocks.INT_TO_DINT(), REAL: blocks.INT_TO_REAL(), TIME: blocks.INT_TO_TIME(),
            STRING: blocks.INT_TO_STRING(), BOOL: blocks.INT_TO_BOOL()}
    for tp, block in conv.items():
        c = net.add(f"to_{tp.name}", block, IN=x)
        m = net.add(f"keep_{tp.name}", blocks.MEMORY(), IN=c.OUT, SET=set_, RST=rst)
        net.output(f"MEM_{tp.name}", m.OUT)
    m = net.add("mem_int", blocks.MEMORY(INT), IN=x, SET=push)
    net.output("MEM_INT", m.OUT)
    for name, block in (("stack", blocks.LIFO(INT, depth=3)), ("stack2", blocks.LIFO(INT, depth=3)),
                        ("queue", blocks.FIFO(INT, depth=4)), ("texts", blocks.FIFO(STRING))):
        value = x if block.bound_types["T"] is INT else net.add(
            f"{name}_text", blocks.INT_TO_STRING(), IN=x).OUT
        st = net.add(name, block, PUSH=push, POP=pop if name != "stack2" else push, IN=value,
                     RST=rst)
        for port in ("OUT", "EMPTY", "FULL", "COUNT", "OVERFLOW", "UNDERFLOW"):
            net.output(f"{name}_{port}".upper(), getattr(st, port))
    neg = net.add("minus", blocks.NEG(INT), IN=x)
    uneg = net.add("uminus", blocks.NEG(UINT), IN=net.add("u", blocks.INT_TO_UINT(), IN=x).OUT)
    fall = net.add("fall", blocks.F_TRIG(first_scan_pulse=False), CLK=push)
    mul = net.add("scale", blocks.MUL_TIME(INT), IN1="T#1s", IN2=x)
    div = net.add("share", blocks.DIV_TIME(LREAL), IN1=mul.OUT, IN2=3.0)
    for name, ref in (("NEGATED", neg.OUT), ("UNEGATED", uneg.OUT), ("FELL", fall.Q), ("DIVIDED", div.OUT)):
        net.output(name, ref)
    return net


def store_steps(n=400, seed=5):
    rng = random.Random(seed)
    return [{"X": rng.choice([-32768, 32767, 1000]) if rng.random() < 0.1 else rng.randint(-9, 9),
             "PUSH": rng.random() < 0.5, "POP": rng.random() < 0.4,
             "RST": rng.random() < 0.05, "SET": rng.random() < 0.5} for _ in range(n)]


def test_library_blocks_become_st_function_blocks_and_round_trip_exactly(tmp_path, schema):
    net = stores()
    imported = _round_trip(net, tmp_path, schema)
    assert_same_scans(net, imported, store_steps())
    root = etree.parse(str(tmp_path / "Stores.xml")).getroot()
    assert unknown_to_the_editors(root) == set()
    pous = {p.get("name") for p in root.iter(NS + "pou")}
    assert pous == {"Stores", "FBD_MEMORY_DINT", "FBD_MEMORY_REAL", "FBD_MEMORY_TIME",
                    "FBD_MEMORY_STRING", "FBD_MEMORY_BOOL", "FBD_MEMORY_INT", "FBD_LIFO_INT_3",
                    "FBD_FIFO_INT_4", "FBD_FIFO_STRING_16", "FBD_NEG_INT", "FBD_NEG_UINT",
                    "FBD_F_TRIG_NO_FIRST_PULSE"}
    types = {b.get("instanceName"): b.get("typeName") for b in root.iter(NS + "block")}
    assert types["stack"] == types["stack2"] == "FBD_LIFO_INT_3"   # one POU per configuration
    assert types["scale"] == "MULTIME" and types["share"] == "DIVTIME"
    # each instance is declared as a variable of its POU, as the editors want
    prog = next(p for p in root.iter(NS + "pou") if p.get("name") == "Stores")
    declared = {v.get("name"): v.find(f"{NS}type/{NS}derived").get("name")
                for v in prog.find(f"{NS}interface/{NS}localVars")}
    assert declared["keep_DINT"] == "FBD_MEMORY_DINT" and declared["minus"] == "FBD_NEG_INT"
    # the array of a stack: its depth, its element type
    lifo = next(p for p in root.iter(NS + "pou") if p.get("name") == "FBD_LIFO_INT_3")
    data = next(v for v in lifo.iter(NS + "variable") if v.get("name") == "DATA")
    dim = data.find(f"{NS}type/{NS}array/{NS}dimension")
    assert (dim.get("lower"), dim.get("upper")) == ("0", "2")
    assert data.find(f"{NS}type/{NS}array/{NS}baseType/{NS}INT") is not None
    # our importer maps each back to the block, from the marker alone
    project = load_project(tmp_path / "Stores.xml")
    assert repr(project.blocks["FBD_FIFO_STRING_16"]) == "FIFO(STRING)"
    assert repr(project.blocks["FBD_LIFO_INT_3"]) == "LIFO(INT, depth=3)"
    kinds = {i.name: repr(i.element) for i in imported.instances.values()}
    assert kinds["keep_DINT"] == "MEMORY(DINT)" and kinds["fall"] == "F_TRIG(first_scan_pulse=False)"
    assert kinds["scale"] == "MUL_TIME(INT)"
    with pytest.raises(PlcOpenError, match="is the library block LIFO"):
        project.network("FBD_LIFO_INT_3")


def test_the_st_of_each_library_block(tmp_path):
    root = etree.parse(str(_export(stores(), tmp_path))).getroot()
    assert st_of(root, "FBD_MEMORY_DINT") == """\
IF RST THEN
  OUT := 0;
ELSIF SET THEN
  OUT := IN;
END_IF;"""
    assert "OUT := '';" in st_of(root, "FBD_MEMORY_STRING")
    assert "OUT := T#0s;" in st_of(root, "FBD_MEMORY_TIME")
    assert "OUT := 0.0;" in st_of(root, "FBD_MEMORY_REAL")
    assert st_of(root, "FBD_NEG_INT") == "OUT := -IN;"
    assert st_of(root, "FBD_NEG_UINT") == "OUT := 0 - IN;"
    assert st_of(root, "FBD_F_TRIG_NO_FIRST_PULSE") == "Q := NOT CLK AND M;\nM := CLK;"
    assert st_of(root, "FBD_LIFO_INT_3") == """\
PUSH_E := PUSH AND NOT PUSH_M;
POP_E := POP AND NOT POP_M;
PUSH_M := PUSH;
POP_M := POP;
IF RST THEN
  COUNT := 0;
  OVERFLOW := FALSE;
  UNDERFLOW := FALSE;
ELSIF PUSH_E OR POP_E THEN
  OVERFLOW := FALSE;
  UNDERFLOW := FALSE;
  IF POP_E THEN
    IF COUNT > 0 THEN
      COUNT := COUNT - 1;
    ELSE
      UNDERFLOW := TRUE;
    END_IF;
  END_IF;
  IF PUSH_E THEN
    IF COUNT < 3 THEN
      DATA[COUNT] := IN;
      COUNT := COUNT + 1;
    ELSE
      OVERFLOW := TRUE;
    END_IF;
  END_IF;
END_IF;
EMPTY := COUNT = 0;
FULL := COUNT >= 3;
IF COUNT > 0 THEN
  OUT := DATA[COUNT - 1];
ELSE
  OUT := 0;
END_IF;"""
    fifo = st_of(root, "FBD_FIFO_INT_4")
    for line in ("DATA[TAIL] := IN;", "IF TAIL >= 4 THEN", "IF HEAD >= 4 THEN", "OUT := DATA[HEAD];",
                 "  COUNT := 0;\n  HEAD := 0;\n  TAIL := 0;"):
        assert line in fifo


class _St:
    """Just enough of ST to run the bodies above: assignments, IF/ELSIF/ELSE, AND/OR/NOT,
    comparisons, arrays indexed from 0, and the literals the bodies use."""

    def __init__(self, st: str):
        out, depth = [], 0
        for line in st.splitlines():
            line = line.strip().rstrip(";")
            if line.startswith("ELSIF ") or line == "ELSE" or line == "END_IF":
                depth -= 1
            if line != "END_IF":
                code = re.sub(r"'[^']*'", lambda m: repr(m.group(0)[1:-1]), line)
                code = code.replace(":=", "<-").replace(">=", "@GE").replace("<=", "@LE")
                code = code.replace("=", "==").replace("<-", "=")
                code = code.replace("@GE", ">=").replace("@LE", "<=").replace("T#0s", "0")
                for st_word, py in (("ELSIF", "elif"), ("IF", "if"), ("ELSE", "else"),
                                    ("AND", "and"), ("OR", "or"), ("NOT", "not"),
                                    ("TRUE", "True"), ("FALSE", "False")):
                    code = re.sub(rf"\b{st_word}\b", py, code)
                code = re.sub(r"\s*THEN$", ":", code)
                out.append("    " * depth + (code + ":" if code == "else" else code))
            if line.endswith("THEN") or line == "ELSE":
                depth += 1
        self.code = compile("\n".join(out), "<st>", "exec")

    def run(self, env: dict) -> None:
        exec(self.code, {}, env)


@pytest.mark.parametrize("block", [blocks.MEMORY(INT), blocks.LIFO(INT, depth=3),
                                   blocks.FIFO(INT, depth=3), blocks.FIFO(INT, depth=1),
                                   blocks.F_TRIG(first_scan_pulse=False)], ids=repr)
def test_the_st_does_what_the_block_does_scan_for_scan(block):
    """The generated ST, run line by line, against the block itself: every output on
    every scan of a random sequence that fills, empties, overflows and resets."""
    types = {var: INT for var in type(block).types}
    net = Network("One")
    ins = {p.name: net.input(p.name, INT if p.type == "T" else p.type) for p in block.input_ports()}
    inst = net.add("b", block, **ins)
    for p in block.output_ports():
        net.output(p.name, getattr(inst, p.name))
    plc = Plc(net)
    st = _St(native_st(block, types))
    env = {p.name: (0 if p.type == "T" else p.type.default) for p in block.output_ports()}
    env.update(M=False, PUSH_M=False, POP_M=False, HEAD=0, TAIL=0,
               DATA=[0] * block.p.get("depth", 0))
    rng = random.Random(11)
    for scan in range(600):
        inputs = {"IN": rng.randint(-99, 99), "SET": rng.random() < 0.5, "CLK": rng.random() < 0.5,
                  "PUSH": rng.random() < 0.5, "POP": rng.random() < 0.45,
                  "RST": rng.random() < 0.04}
        for p in block.input_ports():
            plc.set(p.name, inputs[p.name])
            env[p.name] = inputs[p.name]
        plc.scan()
        st.run(env)
        for p in block.output_ports():
            assert plc.get(p.name) == env[p.name], f"scan {scan + 1}: {p.name}"


def test_the_2048_export_places_no_block_the_editors_do_not_know(tmp_path):
    from programs.game2048 import build
    root = etree.parse(str(_export(build("multi_scan", "article", seed=3), tmp_path))).getroot()
    assert unknown_to_the_editors(root) == set()
    pous = {p.get("name") for p in root.iter(NS + "pou")}
    assert {"FBD_MEMORY_INT", "FBD_MEMORY_DINT", "FBD_NOW"} <= pous
    assert "MEMORY" not in {b.get("typeName") for b in root.iter(NS + "block")}
    # every element and wire point on the editors' canvas, which starts at 0
    positions = list(root.iter(NS + "position"))
    assert positions and min(float(p.get(k)) for p in positions for k in "xy") >= 0


def _edit_marker(path, **attrs):
    tree = etree.parse(str(path))
    marker = next(e for e in tree.iter("{urn:fbd-sim}native")
                  if e.getparent().getparent().getparent().get("name") == "FBD_MEMORY_DINT")
    for k, v in attrs.items():
        marker.set(k, v)
    tree.write(str(path))


@pytest.mark.parametrize("attrs, message", [
    ({"types": "T=INT"}, r"says MEMORY\(INT\), whose inputVars are IN: INT.*but the POU declares "
                         r"IN: DINT"),
    ({"block": "MEMORYX"}, "names the block 'MEMORYX', which this library does not have"),
    ({"block": "LIFO"}, "says LIFO"),
    ({"types": "T=QWORD"}, "binds T to 'QWORD', which is not an elementary type"),
    ({"types": ""}, "leaves the type T of MEMORY unbound"),
    ({"params": "{\"depth\": 3}"}, "does not make a MEMORY: .*no parameter 'depth'"),
    ({"params": "[1"}, "not a JSON object"),
])
def test_a_pou_whose_marker_was_edited_is_refused_with_the_reason(tmp_path, attrs, message):
    path = _export(stores(), tmp_path)
    _edit_marker(path, **attrs)
    project = load_project(path)
    assert "FBD_MEMORY_DINT" not in project.blocks
    assert re.search(message, str(project.errors["FBD_MEMORY_DINT"]))
    with pytest.raises(PlcOpenError, match=r"block 'FBD_MEMORY_DINT' cannot be placed: POU "
                                           r"'FBD_MEMORY_DINT': its fbd-sim marker"):
        project.network("Stores")
    assert "FBD_MEMORY_INT" in project.blocks    # the other POUs still load


def test_a_pou_of_the_same_name_without_our_marker_is_not_taken_for_ours(tmp_path):
    """Someone else's FBD_MEMORY_DINT (no marker) is an ordinary ST POU: compiled from
    its text, not our block."""
    path = _export(stores(), tmp_path)
    tree = etree.parse(str(path))
    pou = next(p for p in tree.iter(NS + "pou") if p.get("name") == "FBD_MEMORY_DINT")
    pou.remove(pou.find(NS + "addData"))
    tree.write(str(path))
    project = load_project(path)
    assert "FBD_MEMORY_DINT" not in project.blocks and "FBD_MEMORY_INT" in project.blocks
    assert project.languages["FBD_MEMORY_DINT"] == "ST"
    kinds = {i.name: type(i.element).__name__ for i in project.network("Stores").instances.values()}
    assert kinds["keep_DINT"] == "FBD_MEMORY_DINT" and kinds["keep_REAL"] == "MEMORY"


def test_the_st_the_export_writes_for_our_blocks_runs_as_the_blocks_do(tmp_path):
    """Without their markers, every POU the export wrote for MEMORY, LIFO, FIFO, NEG and
    F_TRIG is compiled from its ST, as the editors compile it: the same scans."""
    path = _export(stores(), tmp_path)
    tree = etree.parse(str(path))
    for pou in tree.iter(NS + "pou"):
        if pou.get("name").startswith("FBD_"):
            pou.remove(pou.find(NS + "addData"))
    tree.write(str(path))
    project = load_project(path)
    assert not project.blocks and not project.errors, project.errors
    assert_same_scans(stores(), project.network("Stores"), store_steps())


#: matiec's values of the ST the export writes for NOW (FBD_NOW, called by a PROGRAM),
#: scan by scan at a 1001.5 ms cycle: (OUT in ms, SEC), matiec-oracle over iec2c 6bb2c339df6f
NOW_IN_MATIEC = [(0, 0.0), (1001.5, 1.0015), (2003, 2.003), (3004.5, 3.0045), (4006, 4.006),
                 (5007.5, 5.0075), (6009, 6.009), (7010.5, 7.0105)]


def test_now_is_st_reading_the_clock_matiecs_timers_read_and_gives_what_now_gives(tmp_path):
    net = Network("Clock")
    clock = net.add("clock", blocks.NOW())
    net.output("T", clock.OUT)
    net.output("S", clock.SEC)
    root = etree.parse(str(_export(net, tmp_path))).getroot()
    assert unknown_to_the_editors(root) == set()
    assert st_of(root, "FBD_NOW").startswith("CLOCK(IN := FALSE);\nIF NOT STARTED THEN")
    pou = next(p for p in root.iter(NS + "pou") if p.get("name") == "FBD_NOW")
    assert pou.find(f".//{NS}variable[@name='CLOCK']/{NS}type/{NS}derived").get("name") == "RTC"
    plc = Plc(net, cycle=1.0015)
    for t_ms, sec in NOW_IN_MATIEC:
        plc.scan()
        assert (plc.get_raw("T"), plc.get("S")) == (round(t_ms * 1_000_000), sec)


def shifts() -> Network:
    """Shifts and rotations by a count from an input, by literals, of each width."""
    net = Network("Shifts")
    n = net.input("N", INT)
    for name, block, value in (("wide", blocks.SHL(LWORD), 0x8000_0000_0000_0001),
                               ("half", blocks.SHR(WORD), 0x8001),
                               ("turn", blocks.ROL(LWORD), 0x8000_0000_0000_0003),
                               ("octet", blocks.ROR(BYTE), 0x81), ("bit", blocks.SHL(BOOL), True)):
        net.output(f"R_{name}", net.add(name, block, IN=value, N=n).OUT)
    net.output("BY_ONE", net.add("one", blocks.SHL(LWORD), IN=3, N=1).OUT)
    net.output("BY_64", net.add("far", blocks.SHL(LWORD), IN=3, N=64).OUT)
    return net


def test_shifts_by_counts_matiec_leaves_undefined_are_st_that_runs_as_the_blocks(tmp_path):
    """matiec shifts by C's <<, undefined for a negative count or one past the width (x86
    takes it modulo the width): such shifts are written as ST that guards the count."""
    path = _export(shifts(), tmp_path)
    root = etree.parse(str(path)).getroot()
    types = {b.get("instanceName"): b.get("typeName") for b in root.iter(NS + "block")}
    assert types["one"] == types["bit"] == "SHL"        # defined in matiec
    assert types["far"] == types["wide"] == "FBD_SHL_LWORD_INT"
    assert types["octet"] == "FBD_ROR_BYTE_INT"
    assert st_of(root, "FBD_SHL_LWORD_INT") == """\
IF N >= 0 AND N < 64 THEN
  OUT := SHL(IN, N);
ELSE
  OUT := 0;
END_IF;"""
    # without their markers, the POUs are compiled from their ST, as the editors compile them
    tree = etree.parse(str(path))
    for pou in tree.iter(NS + "pou"):
        if pou.get("name").startswith("FBD_"):
            pou.remove(pou.find(NS + "addData"))
    tree.write(str(path))
    project = load_project(path)
    assert not project.blocks and not project.errors, project.errors
    counts = [*range(-70, 71), -32768, 32767, 1000]
    assert_same_scans(shifts(), project.network("Shifts"), [{"N": k} for k in counts])


def test_a_user_macro_named_like_a_generated_pou_keeps_its_own(tmp_path):
    inner = Network("FBD_MEMORY_INT")
    v = inner.input("V", INT)
    inner.output("W", inner.add("m", blocks.MEMORY(INT), IN=v, SET=True).OUT)
    net = Network("Top")
    x = net.input("X", INT)
    net.output("Y", net.add("mac", inner, V=x).W)
    imported = _round_trip(net, tmp_path)
    assert_same_scans(net, imported, [{"X": i} for i in range(5)])
    root = etree.parse(str(tmp_path / "Top.xml")).getroot()
    assert {p.get("name") for p in root.iter(NS + "pou")} == {"Top", "FBD_MEMORY_INT",
                                                               "FBD_MEMORY_INT_2"}


# -- the command line ------------------------------------------------------------------
def test_fbd_export_writes_a_project(tmp_path, capsys, schema):
    out = tmp_path / "latch.xml"
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o", str(out)])
    _, err = capsys.readouterr()
    assert status == 0, err
    assert schema.validate(etree.parse(str(out))), schema.error_log
    assert "wrote latch" in err


def test_fbd_export_validate_checks_the_file_against_the_schema(tmp_path, capsys):
    out = tmp_path / "latch.xml"
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o", str(out), "--validate"])
    _, err = capsys.readouterr()
    assert status == 0, err
    assert "valid against the TC6 v2.01 schema" in err


def test_fbd_export_validate_reports_the_first_schema_error_with_its_line(tmp_path, capsys,
                                                                          monkeypatch):
    from fbd import plcopen

    write_tree = plcopen.write_tree

    def write_without_a_file_header(tree, path):
        write_tree(tree, path)
        text = Path(path).read_text()
        start = text.index("<fileHeader")
        Path(path).write_text(text[:start] + text[text.index("/>", start) + 2:])
    monkeypatch.setattr(plcopen, "write_tree", write_without_a_file_header)
    out = tmp_path / "latch.xml"
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o", str(out), "--validate"])
    _, err = capsys.readouterr()
    assert status == 2 and "Traceback" not in err
    text = out.read_text()
    line = text[:text.index("<contentHeader")].count("\n") + 1
    assert err.splitlines() == [
        f"fbd: error: {out}:{line}: not valid PLCopen TC6 XML v2.01: Element 'contentHeader': "
        "This element is not expected. Expected is ( fileHeader )."]


def test_validate_names_the_line_of_the_first_error(tmp_path):
    path = tmp_path / "bad.xml"
    _export(latch_macro(), tmp_path)
    text = (tmp_path / "Latch.xml").read_text().replace('typeName="SR"', 'typeNam="SR"', 1)
    path.write_text(text)
    line = text[:text.index('typeNam="SR"')].count("\n") + 1
    with pytest.raises(ExportError, match=rf"^{re.escape(str(path))}:{line}: not valid PLCopen "
                                          r"TC6 XML v2\.01: Element 'block', attribute 'typeNam': "
                                          r"The attribute 'typeNam' is not allowed\.$"):
        validate(path)
    validate(tmp_path / "Latch.xml")                # our own export passes


def test_validate_refuses_a_file_that_is_not_xml(tmp_path):
    path = tmp_path / "x.xml"
    path.write_text("<project")
    with pytest.raises(FbdError, match="not well-formed XML"):
        validate(path)


def test_the_schema_is_package_data_declared_in_pyproject():
    import tomllib
    path = schema_path()
    assert path.is_file() and path.parent == ROOT / "fbd" / "data"
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert any(path.match(f"fbd/{pattern}") for pattern in declared["package-data"]["fbd"])
    assert "tc6_xml_v201.xsd" in (path.parent / "README.md").read_text()


def test_fbd_export_user_errors_are_one_line(tmp_path, capsys):
    status = cli.main(["export", "tests.fbd.cli_programs:latch", "-o",
                       str(tmp_path / "no" / "x.xml")])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.strip().splitlines()[-1].startswith("fbd: error: -o ")


# -- real programs from the editors -------------------------------------------------------------
@pytest.mark.parametrize("stem, pou", [("openplc_traffic_light_fbd", "Trafic_light"),
                                       ("beremiz_first_steps", "CounterFBD"),
                                       ("beremiz_svghmi_xy_counter_sincos", "program0")])
def test_real_fbd_programs_export_and_import_back_unchanged(tmp_path, schema, stem, pou):
    net = load_project(f.example(stem)).network(pou)
    imported = _round_trip(net, tmp_path, schema)
    inputs = [n for n, (tp, _d) in net.inputs.items() if tp is BOOL]
    steps = [{n: (i // (k + 3)) % 2 == 0 for k, n in enumerate(inputs)} for i in range(300)]
    assert_same_scans(net, imported, steps)


def test_a_declared_string_length_is_exported_and_read_back(tmp_path, schema):
    net = Network("Texts")
    text = net.input("TEXT", string_of(200))
    net.output("SIZE", net.add("size", blocks.LEN(), IN=text).OUT)
    root = etree.parse(str(_export(net, tmp_path, schema))).getroot()
    (declared,) = [v for v in root.iter(NS + "variable") if v.get("name") == "TEXT"]
    assert declared.find(f"{NS}type/{NS}string").get("length") == "200"
    assert _round_trip(net, tmp_path).inputs["TEXT"][0] is string_of(200)
