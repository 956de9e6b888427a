"""TRUNC in ST, IL and FBD: matiec has one overload per integer type and picks the
result type from the context, as it types an untyped literal; the values are
the library block's (tests/blocks/test_convert.py pins them beyond the range)."""

import pytest

from fbd.errors import FbdError
from tests.fbd.st import scans

EVERY_TYPE = """
PROGRAM main
VAR
  r : REAL := 2.7; lr : LREAL := -3.9;
  l : LINT; i : INT; d : DINT; s : SINT; us : USINT; ui : UINT; ud : UDINT; ul : ULINT; e : INT;
END_VAR
  l := TRUNC(r);
  i := TRUNC(lr);
  d := TRUNC(IN := r);
  s := TRUNC(lr);
  us := TRUNC(r);
  ui := TRUNC(r);
  ud := TRUNC(r);
  ul := TRUNC(r);
  e := TRUNC(r) + i;
END_PROGRAM
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --scans 1
EVERY_TYPE_ROWS = """
scan,t_ms,l,i,d,s,us,ui,ud,ul,e
1,0,2,-3,2,-3,2,2,2,2,-1
"""


def test_trunc_takes_the_type_it_is_assigned_to_or_computed_with():
    assert scans.rows(EVERY_TYPE, "l i d s us ui ud ul e".split(), 1) == \
        scans.expected(EVERY_TYPE_ROWS)


CONTEXTS = """
PROGRAM main
VAR
  r : REAL := 2.7; lr : LREAL := -3.9; i : INT; j : INT; k : INT; m : INT; n : INT; x : REAL;
  a : ARRAY[0..5] OF INT := [0, 10, 20, 30, 40, 50];
  b1, b2, b3, b4, b5, b6 : BOOL;
END_VAR
  i := MAX(TRUNC(r), 5);
  j := a[TRUNC(r)];
  k := TRUNC(r) - TRUNC(lr) * 2;
  m := -TRUNC(r);
  n := SEL(b6, TRUNC(lr), 1);
  x := INT_TO_REAL(TRUNC(r));
  b1 := 0 < TRUNC(lr);
  b2 := TRUNC(lr) + 1 > 0;
  b3 := TRUNC(lr) > -1;
  b4 := TRUNC(lr) < TRUNC(r);
  b5 := TRUNC(lr) < 0;
END_PROGRAM
"""
# matiec (iec2c 6bb2c339df6f): oracle.py --scans 1. With nothing else to go by
# (b1, b2, b4, b5) it calls TRUNC__ULINT__*, the last overload, so -3.9 is 2**64 - 3;
# a negative literal beside it (b3) makes it TRUNC__LINT__LREAL
CONTEXTS_ROWS = """
scan,t_ms,i,j,k,m,n,x,b1,b2,b3,b4,b5
1,0,5,20,8,-2,-3,2.0,TRUE,TRUE,FALSE,FALSE,FALSE
"""


def test_trunc_without_a_type_from_its_context_is_ulint_as_matiec_picks_it():
    assert scans.rows(CONTEXTS, "i j k m n x b1 b2 b3 b4 b5".split(), 1) == \
        scans.expected(CONTEXTS_ROWS)


IL = """
FUNCTION_BLOCK Fil
VAR_INPUT x : REAL; END_VAR
VAR_OUTPUT i : INT; k : DINT; END_VAR
  LD x
  TRUNC
  ST i
  LD x
  TRUNC
  ADD 1
  ST k
END_FUNCTION_BLOCK

PROGRAM main
VAR f : Fil; END_VAR
  f(x := -2.7);
END_PROGRAM
"""


def test_trunc_as_an_il_operator_takes_the_type_it_is_stored_in():
    # matiec (iec2c 6bb2c339df6f): f.i = -2, f.k = -1
    assert scans.rows(IL, ["f.i", "f.k"], 1) == "1,0,-2,-1"


@pytest.mark.parametrize("statement, message", [
    ("w := TRUNC(r);", "TRUNC gives one of ANY_INT, not WORD"),
    ("x := TRUNC(r);", "TRUNC gives one of ANY_INT, not REAL"),
    ("b := TRUNC(r) > 1.5;", "1.5 is a real literal, not an integer"),
    ("i := TRUNC(i);", "type R must be one of ANY_REAL, not INT"),
])
def test_trunc_into_what_no_overload_gives_is_refused_as_matiec_refuses_it(statement, message):
    # matiec: "Data type incompatibility for value passed in position 1 when invoking
    # function 'TRUNC'" for each
    source = f"""PROGRAM main
VAR r : REAL; x : REAL; i : INT; w : WORD; b : BOOL; END_VAR
  {statement}
END_PROGRAM"""
    with pytest.raises(FbdError, match=message):
        scans.harness(source)


def test_trunc_in_an_fbd_network_takes_the_type_of_the_variable_it_is_wired_to(tmp_path):
    from fbd.plcopen import load_project
    from fbd.testing import Harness
    from tests.fbd.plcopen import files as f
    main = f.pou("Main", f.group("inputVars", f.var("r", "LREAL"))
                 + f.group("outputVars", f.var("u", "USINT"), f.var("d", "DINT")),
                 f.inv(1, "r") + f.block(2, "TRUNC", {"IN": (1, None)}, ["OUT"])
                 + f.outv(3, "u", 2, pin="OUT")
                 + f.block(4, "TRUNC", {"IN": (1, None)}, ["OUT"], y=40)
                 + f.outv(5, "d", 4, pin="OUT", y=40))
    path = tmp_path / "trunc.xml"
    path.write_text(f.HEAD + main + f.TAIL)
    h = Harness(load_project(path).network("Main"))
    h.set(r=-300.7).scan()
    assert (h.get("u"), h.get("d")) == (212, -300)     # matiec: USINT 212, DINT -300
