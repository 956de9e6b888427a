"""A STRING holds matiec's 126 characters, a declared STRING[n] n (IEC): each
place a string goes (a variable, an array element, a structure member, an FB's
input or output, a function's parameter or result) cuts it to its own type's
capacity, and a write from outside longer than it is refused.

matiec cannot compile STRING[n] (iec2c 6bb2c339df6f crashes), so only IEC
speaks for declared lengths; the default-capacity rows are matiec's."""

import pytest

from fbd import Network
from fbd.batch import BatchHarness
from fbd.compiler.interp import Interpreter
from fbd.errors import FbdError
from fbd.st.project import load
from fbd.testing import Harness
from fbd.types import STRING_DECLARED_MAX, string_of

from . import scans

L140, L150 = "abcdefghij" * 14, "abcdefghij" * 15

DEFAULT = f"""FUNCTION takes : INT
VAR_INPUT s : STRING; END_VAR
  takes := LEN(s);
END_FUNCTION

FUNCTION_BLOCK holder
VAR_INPUT s : STRING; END_VAR
VAR_OUTPUT n : INT; o : STRING; END_VAR
  n := LEN(s); o := s;
END_FUNCTION_BLOCK

PROGRAM prg
VAR
  plain : STRING := '{L140}';
  other : STRING;
  h : holder;
  nInit, nLit, nFn, nFb, nOut, nCat, nLeft : INT;
  arr : ARRAY[1..2] OF STRING;
END_VAR
  nInit := LEN(plain);
  other := '{L140}';
  nLit := LEN(other);
  nFn := takes('{L140}');
  h(s := '{L140}');
  nFb := h.n; nOut := LEN(h.o);
  arr[2] := CONCAT(other, other);
  nCat := LEN(arr[2]);
  nLeft := LEN(LEFT(CONCAT(other, other), 200));
END_PROGRAM
"""


def test_a_default_string_holds_126_characters_wherever_it_goes_as_in_matiec():
    # matiec 6bb2c339df6f: nCat and nLeft 126, `other` and arr[2] the first 126
    # characters; its nInit, nLit, nFn, nFb and nOut are 140, the length of the
    # literal it keeps in a STRING holding 126 of them (the documented defect): 126 here
    got = scans.rows(DEFAULT, "nInit nLit nFn nFb nOut nCat nLeft".split(), 1, program="prg")
    assert got == "1,0,126,126,126,126,126,126,126"
    h = scans.harness(DEFAULT, "prg")
    h.scan()
    assert h.get("prg.other") == h.get("prg.arr")[1] == L140[:126]


SIZED = f"""TYPE
  Text : STRING[200];
  Rec : STRUCT name : STRING[200]; tag : STRING[10]; END_STRUCT;
END_TYPE

FUNCTION echo : STRING[200]
VAR_INPUT s : STRING[200]; END_VAR
  echo := s;
END_FUNCTION

FUNCTION_BLOCK holder
VAR_INPUT s : STRING[200]; cut : STRING; END_VAR
VAR_OUTPUT o : STRING[200]; short : STRING[10]; END_VAR
  o := s; short := s;
END_FUNCTION_BLOCK

PROGRAM prg
VAR
  init : STRING[200] := '{L150}';
  initShort : STRING[10] := '{L150}';
  alias : Text := '{L150}';
  lit, viaFn, viaFb, fromCut, joined : STRING[200];
  plain : STRING;
  short : STRING[10];
  r : Rec;
  arr : ARRAY[1..2] OF STRING[200] := ['{L150}'];
  h : holder;
  n : INT;
  same : BOOL;
END_VAR
  lit := '{L150}';
  plain := lit;
  short := lit;
  viaFn := echo(lit);
  h(s := lit, cut := lit);
  viaFb := h.o;
  fromCut := h.cut;
  r.name := lit; r.tag := lit;
  arr[2] := arr[1];
  joined := CONCAT(lit, 'x');
  n := LEN(lit);
  same := lit = '{L150}';
END_PROGRAM
"""


@pytest.fixture(scope="module")
def sized():
    h = scans.harness(SIZED, "prg")
    h.scan()
    return h


def value(h, name: str):
    """``r.name``, ``arr[2]`` or a variable's name: the value held there."""
    if "[" in name:
        var, k = name.rstrip("]").split("[")
        return h.get(f"prg.{var}")[int(k) - 1]
    if name.startswith("r."):
        return h.get("prg.r")[name[2:]]
    return h.get(f"prg.{name}")


@pytest.mark.parametrize("name, held", [
    ("init", L150), ("alias", L150), ("lit", L150), ("viaFn", L150), ("viaFb", L150),
    ("r.name", L150), ("arr[1]", L150), ("arr[2]", L150),
    ("initShort", L150[:10]), ("short", L150[:10]), ("h.short", L150[:10]), ("r.tag", L150[:10]),
    ("plain", L150[:126]), ("fromCut", L150[:126])])
def test_each_place_holds_its_own_types_capacity(sized, name, held):
    assert value(sized, name) == held


def test_a_string_function_takes_and_gives_a_string_of_126_as_matiecs_c_passes_it(sized):
    # CONCAT's parameters and result are STRINGs: 126 characters of the 150, stored whole
    assert sized.get("prg.joined") == L150[:126]
    assert sized.get("prg.n") == 126


def test_a_comparison_reads_the_whole_strings(sized):
    assert sized.get("prg.same") is True


def test_a_write_from_outside_is_refused_over_the_places_capacity():
    sized = scans.harness(SIZED, "prg")
    sized.write("prg.lit", "y" * 200)
    assert sized.get("prg.lit") == "y" * 200
    with pytest.raises(FbdError, match=r"prg.short: string of 11 characters is longer than "
                                       r"STRING\[10\]'s 10"):
        sized.write("prg.short", "y" * 11)
    with pytest.raises(FbdError, match=r"longer than STRING\[200\]'s 200"):
        sized.write("prg.r", {"name": "y" * 201})
    with pytest.raises(FbdError, match=r"longer than STRING's 126"):
        sized.write("prg.plain", "y" * 127)


@pytest.mark.parametrize("declared", ["STRING[0]", f"STRING[{STRING_DECLARED_MAX + 1}]"])
def test_a_length_outside_1_to_the_maximum_is_refused_at_its_place(declared):
    source = f"PROGRAM prg\nVAR\n  s : {declared};\nEND_VAR\n  s := 'a';\nEND_PROGRAM\n"
    with pytest.raises(FbdError, match=r"big\.st:3:7: .*a STRING's length is 1\.\.32,767"):
        load("big.st", text=source).network("prg")


def test_the_longest_declared_string_holds_its_length():
    source = (f"PROGRAM prg\nVAR\n  s : STRING[{STRING_DECLARED_MAX}];\nEND_VAR\n"
              f"  s := s;\nEND_PROGRAM\n")
    h = scans.harness(source, "prg")
    h.write("prg.s", "z" * STRING_DECLARED_MAX)
    h.scan()
    assert len(h.get("prg.s")) == STRING_DECLARED_MAX


IL = f"""PROGRAM prg
VAR long : STRING[200] := '{L150}'; short : STRING[10]; copy : STRING[200]; plain : STRING; END_VAR
  LD long
  ST short
  ST copy
  ST plain
  LD '{L150}'
  ST long
END_PROGRAM
"""


def test_an_il_store_cuts_to_its_places_capacity_as_st_does():
    h = scans.harness(IL, "prg")
    h.scan()
    assert [h.get(f"prg.{name}") for name in ("short", "copy", "plain", "long")] == [
        L150[:10], L150, L150[:126], L150]


def test_a_wire_into_an_fbs_string_input_is_cut_to_its_capacity_as_a_call_is():
    text = ("FUNCTION_BLOCK Fb\nVAR_INPUT s : STRING[10]; plain : STRING; END_VAR\n"
            "VAR_OUTPUT o : STRING[200]; p : STRING[200]; END_VAR\n  o := s; p := plain;\n"
            "END_FUNCTION_BLOCK\n")
    net = Network("wired")
    long_text = net.input("LONG", string_of(200))
    inst = net.add("f", load("fb.st", text=text).blocks["Fb"](), s=long_text, plain=long_text)
    net.output("O", inst.o)
    net.output("P", inst.p)
    h = Harness(net)
    h.set(LONG=L150).scan()
    assert (h.get("O"), h.get("P")) == (L150[:10], L150[:126])
    reference = Interpreter(h.plc.program)     # the block's code by values, as the batch runs it
    reference.set("LONG", L150)
    reference.scan()
    assert (reference.get("O"), reference.get("P")) == (L150[:10], L150[:126])
    batch = BatchHarness(net, n=2, engine="numpy")
    batch.set(LONG=L150).scan()
    assert batch.get("O").tolist() == [L150[:10]] * 2
