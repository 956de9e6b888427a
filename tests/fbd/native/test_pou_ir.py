"""How short a POU's IR is kept (docs/native.md, "ST, IL and SFC POUs"): a
temporary set once is an SSA value, a cell written or read earlier in the
same basic block is not loaded again (and is loaded again after anything
that may change it), and |x| and a REAL division by zero use bit operations
instead of calls; the values stay matiec's and the Python engine's."""

import math

import pytest

import fbd
from fbd.st.project import load as load_st
from tests.fbd.native.agreement import same

pytest.importorskip("llvmlite")

PROGRAM = """FUNCTION_BLOCK Ctr
  VAR_INPUT inc : INT; END_VAR
  VAR_OUTPUT n : INT; END_VAR
  VAR h : ARRAY[1..3] OF INT; i : INT; END_VAR
  h[1] := inc;
  FOR i := 1 TO 3 DO
    h[i] := h[1] + i;
    n := n + h[1];
  END_FOR;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR_INPUT k : INT; END_VAR
  VAR
    a : ARRAY[1..3] OF INT;
    x, y, z : INT;
    ok : BOOL;
    r, q : REAL;
    cnt : Ctr;
  END_VAR
  a[1] := 1;
  a[k] := a[1] + 6;
  x := a[1] + a[2];
  y := cnt.n;
  cnt(inc := k);
  z := cnt.n + y;
  r := (INT_TO_REAL(x) * 0.5 + 1.0) * 2.0;
  q := ABS(r - 20.0) / (INT_TO_REAL(k) - 2.0);
  ok := (k > 1) AND (a[k] > 5);
END_PROGRAM
"""

#: matiec's rows (the oracle, k = scan): x, y, z, r, q, ok. a[k] may be a[1], read before
#: it and after it; h[i] (i known within 1..3: no index check, no new basic block) is
#: h[1] when i = 1, read before it and after it; the call changes cnt.n, read before it
#: and after it; the AND's right side needs an index check first, so its temporary is
#: set in two places
MATIEC = [(7, 0, 6, 9.0, -11.0, False), (8, 6, 21, 10.0, math.inf, True),
          (8, 15, 42, 10.0, 10.0, True)]


def program_function(plc) -> str:
    source = plc.main.program.source()
    start = source.index('define internal i64 @"p0_m1"(')
    return source[start:source.index("\n}", start)]


def test_a_pous_temporaries_and_cells_read_again_stay_out_of_memory_with_matiecs_values():
    net = load_st("prog.st", text=PROGRAM).network("prg")
    py, na = fbd.Plc(net, engine="python"), fbd.Plc(net, engine="native")
    names = ("x", "y", "z", "r", "q", "ok")
    for k, row in enumerate(MATIEC, 1):
        for plc in (py, na):
            plc.write("prg.k", k)
            plc.scan(1)
            assert tuple(plc.get(f"prg.{n}") for n in names) == row
        assert all(same(a, b) for a, b in zip(py.main.s, na.main.s)), k
    body = program_function(na)
    # only the AND's temporary, set in two places, has a stack slot
    assert body.count("alloca") == 1
    # r is stored, then read by q's expression from the register it was stored from
    assert "load double" not in body
    assert "@llvm.copysign" not in body and "@llvm.fabs" not in body


CASE_PROGRAM = """PROGRAM prg
  VAR_INPUT k : LINT; END_VAR
  VAR r : INT; END_VAR
  CASE k OF
    -9223372036854775807: r := 1;
    -5..-2, 7: r := 2;
    0: r := 3;
    1, 2: r := 4;
    10..1000: r := 5;
    9223372036854775807: r := 6;
  ELSE
    r := 7;
  END_CASE;
END_PROGRAM
"""
#: matiec's r for each k (the oracle, one k a scan)
CASE_ROWS = [(-9223372036854775807, 1), (-9223372036854775806, 7), (-6, 7), (-5, 2), (-3, 2),
             (-2, 2), (-1, 7), (0, 3), (1, 4), (2, 4), (3, 7), (6, 7), (7, 2), (8, 7), (9, 7),
             (10, 5), (500, 5), (1000, 5), (1001, 7), (9223372036854775806, 7),
             (9223372036854775807, 6)]


def test_a_case_is_a_binary_search_of_signed_comparisons_with_matiecs_branches():
    """No ``switch`` (LLVM's fast instruction selector hands it, with its whole
    basic block, to the slow one) and no equality test (SimplifyCFG folds those
    back into a switch): each label range, gap and end of LINT goes where matiec
    sends it."""
    net = load_st("case.st", text=CASE_PROGRAM).network("prg")
    py, na = fbd.Plc(net, engine="python"), fbd.Plc(net, engine="native")
    body = program_function(na)
    assert "switch" not in body and "icmp eq" not in body and "icmp slt" in body
    for k, r in CASE_ROWS:
        for plc in (py, na):
            plc.write("prg.k", k)
            plc.scan()
        assert py.get("prg.r") == na.get("prg.r") == r, k


def test_case_segments_cover_the_selectors_range_and_merge_neighbours():
    from fbd.native.pou import case_segments
    intervals = [(0, 0, 0), (1, 2, 1), (3, 9, 1), (20, 30, 0)]
    assert case_segments(intervals, ["a", "b"], "else", -5, 25) == [
        (-5, "else"), (0, "a"), (1, "b"), (10, "else"), (20, "a")]
    assert case_segments(intervals, ["a", "b"], "else", 0, 3) == [(0, "a"), (1, "b")]
    assert case_segments(intervals, ["a", "b"], "else", 40, 50) == [(40, "else")]
