"""Real programs (tests/data/st, origins in its README): every file parses, every
ST and IL body of its PLCopen projects parses, and the semantic layer agrees
with matiec on each program (iec2c's verdicts are recorded below)."""

import re
from pathlib import Path

import pytest
from lxml import etree

import fbd.st as st
from fbd.st import ast as A
from fbd.st.stdlib import STANDARD

DATA = Path(__file__).resolve().parents[2] / "data" / "st"
TEXT_SUFFIXES = {".st", ".txt", ".test"}
NOT_SOURCE = {"matiec/tests/syntax/identifier/identifier.txt"}   # the list of names the templates take


def rel(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


SOURCES = sorted(p for p in DATA.rglob("*") if p.suffix in TEXT_SUFFIXES and "LICENSES" not in p.parts
                 and rel(p) not in NOT_SOURCE)
PROJECTS = sorted(DATA.rglob("*.xml"))
LIBRARY = sorted(p for p in SOURCES if rel(p).startswith("matiec/lib/"))


def read(path: Path) -> str:
    return path.read_text(encoding="latin-1")


def instances(path: Path):
    """matiec's syntax tests are templates: XXXX stands for each name listed on
    their '#' lines (its runtests script makes one file per name)."""
    text = read(path)
    if "XXXX" not in text:
        yield rel(path), text
        return
    names = [w for line in text.splitlines() if line.startswith("#") for w in line.split()
             if not w.startswith("#")]
    if not names:   # enumerationvalue.txt lists none: the IL operators, the hardest case
        names = ["ANDN", "CAL", "LD", "ST", "S", "R", "IN", "PT", "N", "P", "PRIORITY", "INTERVAL"]
    for name in names:
        yield f"{rel(path)}[{name}]", text.replace("XXXX", name)


@pytest.mark.parametrize("path", SOURCES, ids=rel)
def test_every_source_file_parses(path):
    for name, text in instances(path):
        unit = st.parse(text, name)
        assert unit.elements or "{#include" in text, name   # ieclib.txt only includes the others


# iec2c (matiec 6bb2c339df6f, -f -l -p as Beremiz runs it) on each program, and
# what the semantic layer says: None for no error, else a part of its first error.
MATIEC_REFUSES = {
    "matiec/tests/syntax/configuration/configuration.txt":
        ("invalid input variable(s) declaration (variables named like the programs)",
         "single names the PROGRAM single"),
    "openplc_samples/RobotStudio/Estun/generated_plc.st":
        ("';' missing at the end of statement (SFUN_... are a robot vendor's functions)",
         "SFUN_SERVO_INPUT_UPDATE is not declared"),
    "openplc_samples/successed_ST/Code_13.st":
        ("Incompatible data types for ':=' operation (a type check, not done here)", None),
    "openplc_samples/successed_ST/cex.st":
        ("standard_functions.txt: invalid input variable(s) declaration (a PROGRAM named P)", None),
    "openplc_samples/successed_ST/struct_embedding.st":
        ("standard_functions.txt: invalid input variable(s) declaration (a FUNCTION named G)", None),
    "openplc_samples/successed_ST/symbextest.st":
        ("bistable.txt: invalid input variable(s) declaration (a TYPE named S)", None),
}
# matiec's syntax tests were written for iec2iec (parsing only): iec2c refuses
# basic_code.test, which they all include, at its type check.
SYNTAX_ONLY = {"matiec/tests/syntax/identifier/", "matiec/tests/syntax/enumeration/", "matiec/lib/"}
PROGRAMS = [p for p in SOURCES if not any(rel(p).startswith(s) for s in SYNTAX_ONLY)]


@pytest.mark.parametrize("path", PROGRAMS, ids=rel)
def test_the_semantic_layer_agrees_with_matiec(path):
    analysis = st.analyze(st.parse(read(path), rel(path)), check=False)
    expected = MATIEC_REFUSES.get(rel(path), (None, None))[1]
    if expected is None:
        assert not analysis.errors, [str(e) for e in analysis.errors[:5]]
    else:
        assert analysis.errors and expected in analysis.errors[0].message, [
            str(e) for e in analysis.errors[:3]]


def test_matiec_library_parameter_clashes_are_warnings():
    for name, word in (("cex.st", "P"), ("struct_embedding.st", "G"), ("symbextest.st", "S")):
        text = read(DATA / "openplc_samples" / "successed_ST" / name)
        warnings = st.analyze(st.parse(text, name)).warnings
        assert any(w.message.startswith(f"{word} is also a parameter name of matiec's") for w in warnings)


def test_matiec_ambiguous_enumerated_values_are_refused_as_matiec_refuses_them():
    # iec2c: "Ambiguous enumerate value or Variable not declared in this scope"
    text = read(DATA / "matiec/tests/syntax/enumeration/enumerationvalue.txt").replace("XXXX", "ANDN")
    errors = st.analyze(st.parse(text), check=False).errors
    assert errors and all("is a value of several enumerated types" in e.message for e in errors)
    assert "ANDN is a value of" in errors[0].message


def test_matiec_function_block_library_is_consistent():
    """matiec's own FBs (timers, counters, PID, ...) analyse cleanly together,
    with the standard functions, and our library table has their interfaces."""
    units = [st.parse(read(p), rel(p)) for p in LIBRARY if p.name != "standard_functions.txt"]
    elements = tuple(e for u in units for e in u.elements)
    joined = A.CompilationUnit(filename="matiec/lib", elements=elements)
    functions = st.Library([STANDARD.lookup(n) for n in STANDARD.names()
                            if STANDARD.lookup(n).kind == "FUNCTION"])
    analysis = st.analyze(joined, library=functions, check=False)
    assert not analysis.errors, [str(e) for e in analysis.errors[:5]]
    blocks = [e for e in elements if isinstance(e, A.Pou) and e.kind == "FUNCTION_BLOCK"]
    assert len(blocks) == 29
    for fb in blocks:
        table = STANDARD.lookup(fb.name)
        sections = {k: tuple(d.name for b in fb.var_blocks if b.kind == k for d in b.decls)
                    for k in ("VAR_INPUT", "VAR_OUTPUT", "VAR")}
        assert (table.inputs, table.outputs, table.internals) == (
            sections["VAR_INPUT"], sections["VAR_OUTPUT"], sections["VAR"]), fb.name


def test_matiec_standard_function_names_are_all_known():
    unit = st.parse(read(DATA / "matiec/lib/standard_functions.txt"))
    names = {p.name for p in unit.pous}
    assert len(names) > 900
    unknown = sorted(n for n in names if STANDARD.lookup(n) is None)
    assert not unknown, unknown[:20]


def bodies(path: Path):
    """(where, language, text, line) of every ST and IL text of a PLCopen file:
    POU bodies, actions, named transitions, and inline conditions and actions."""
    tree = etree.parse(str(path))
    for el in tree.iter():
        if not isinstance(el.tag, str) or etree.QName(el).localname not in ("ST", "IL"):
            continue
        names, up = [], el
        while up is not None:
            if up.get("name"):
                names.append(up.get("name"))
            up = up.getparent()
        parent = el.getparent()
        condition = (etree.QName(parent).localname == "inline"
                     and etree.QName(parent.getparent()).localname == "condition")
        text = "".join(el.itertext())
        language = "expression" if condition else etree.QName(el).localname
        yield "/".join(reversed(names)), language, text, el.sourceline


@pytest.mark.parametrize("path", PROJECTS, ids=rel)
def test_every_st_and_il_body_of_the_plcopen_projects_parses(path):
    count = 0
    for where, language, text, line in bodies(path):
        if language == "expression":
            st.parse_expression(text, filename=rel(path))
        else:
            st.parse_body(text, language, filename=rel(path), pou=where, line=line)
        count += 1
    assert count, "no ST or IL in this project"


def test_the_corpus_readme_names_every_file():
    readme = read(DATA / "README.md")
    folders = {rel(p).split("/")[0] for p in SOURCES + PROJECTS}
    for folder in folders:
        assert f"`{folder}/`" in readme, folder
    assert re.search(r"[0-9a-f]{40}", readme)
