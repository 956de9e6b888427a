"""ST computes what matiec's C computes: untyped literals take the type of the
other operand wherever they stand. Every expected row below is what the matiec
oracle printed for the same program (iec2c 6bb2c339)."""

from tests.fbd.st import scans

LITERALS_ON_THE_LEFT = """
PROGRAM prg
VAR
  b : BYTE := 16#05; w : WORD := 16#1234; dw : DWORD := 16#F0F0; i : INT := 7;
  q : DINT := 100000; r : REAL := 2.5; x : BOOL := TRUE;
  d1, d2, d3, d4 : BYTE; w1, w2 : WORD; dw2 : DWORD; j, k, m : INT; q2 : DINT;
  g1, g2, g3, g4, g5, g6, g7, g8 : BOOL;
END_VAR
d1 := 16#30 OR b;
d2 := 16#37 AND b;
d3 := 16#30 XOR b;
g1 := (16#30 OR b) = 16#35;
g2 := 16#35 = (16#30 OR b);
g3 := 16#30 < b;
j := 3 - i;
g4 := 3 < i;
g5 := 3 + i > 9;
g6 := 1.5 < r;
g7 := TRUE AND x;
w1 := 16#FF00 AND w OR 16#000F;
w2 := 16#0F0F XOR w AND 16#FFFF;
k := 100 / i;
m := 100 MOD i;
q2 := 2 * q - 1;
d4 := NOT 16#0F AND b;
g8 := 16#05 = b AND TRUE;
dw2 := 16#FFFF AND dw;
END_PROGRAM
"""


def test_an_untyped_literal_on_the_left_of_any_operator_takes_the_other_operands_type():
    columns = "d1 d2 d3 g1 g2 g3 j g4 g5 g6 g7 w1 w2 k m q2 d4 g8 dw2".split()
    assert scans.rows(LITERALS_ON_THE_LEFT, columns, 1, program="prg") == scans.expected("""
        scan,t_ms,D1,D2,D3,G1,G2,G3,J,G4,G5,G6,G7,W1,W2,K,M,Q2,D4,G8,DW2
        1,0,53,5,53,TRUE,TRUE,FALSE,-4,TRUE,TRUE,TRUE,TRUE,4623,7483,14,2,199999,0,TRUE,61680
    """)


def test_il_loads_an_untyped_literal_before_a_bit_string_operand():
    source = """
PROGRAM prg
VAR b : BYTE := 16#05; d : BYTE; END_VAR
  LD 16#30
  OR b
  ST d
END_PROGRAM
"""
    assert scans.rows(source, ["d"], 1, program="prg") == "1,0,53"
