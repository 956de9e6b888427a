"""ST computes what matiec's C computes: untyped literals take the type of the
other operand wherever they stand; integer operators compute in C's promoted
types and REAL in single precision, except with C's double literals, and a
value is cut to its type where C stores it. Every expected row below is what
the matiec oracle printed for the same program (iec2c 6bb2c339), REALs as the
shortest text of their single-precision value; where IEC and matiec differ
and matiec is defective, the test says so and pins IEC (docs/st.md)."""

import pytest

from fbd.errors import FbdError
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


C_LONG_LITERALS = """
PROGRAM prg
VAR_INPUT
  u : UDINT := 2638498769;
END_VAR
VAR
  below, above, hexed, typed : BOOL;
  product, quarter, remainder : UDINT;
END_VAR
  below := u - 3000000000 < 0;
  above := u + 3000000000 > 4000000000;
  hexed := u + 16#B2D05E00 > 4000000000;
  typed := u + UDINT#3000000000 > 4000000000;
  product := (u * 4294967294) / 4;
  quarter := u * 4294967294 / 4 * 3;
  remainder := (u + 3000000000) MOD 7;
END_PROGRAM
"""


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_udint_beside_an_untyped_decimal_literal_past_int_computes_in_c_long(engine):
    """matiec writes 3000000000 into its C as it is, a C ``long``: the UDINT operation
    and what uses its result are computed in 64 signed bits and cut where stored; the
    same value based or typed is a 32-bit C constant (campaign seed 9111)."""
    columns = "u below above hexed typed product quarter remainder".split()
    assert scans.rows(C_LONG_LITERALS, columns, 3, {2: {"u": 5}, 3: {"u": 4000000000}},
                      program="prg", cycle_ms=20, engine=engine) == scans.expected("""
        scan,t_ms,U,BELOW,ABOVE,HEXED,TYPED,PRODUCT,QUARTER,REMAINDER
        1,0,2638498769,TRUE,TRUE,FALSE,FALSE,4049459736,3558444616,1
        2,20,5,TRUE,FALSE,FALSE,FALSE,1073741821,3221225463,2
        3,40,4000000000,FALSE,TRUE,FALSE,FALSE,2294967296,2589934592,0
    """)


MIXED_CALLS = """
PROGRAM prg
VAR ui1 : UINT := 7; ud1 : UDINT := 4000000000; q : UINT; g : BOOL; END_VAR
q := MAX(1, 3) / ui1 + MIN(10, 1000);
g := (MAX(1000, 1000) / ud1) <= ud1;
END_PROGRAM
"""


def test_a_function_of_untyped_literals_takes_its_type_from_the_context_too():
    assert scans.rows(MIXED_CALLS, ["q", "g"], 1, program="prg") == "1,0,10,TRUE"


SELECTIONS_OF_LITERALS = """
PROGRAM prg
VAR u, v, w : USINT; g : BOOL; k : INT := 1; END_VAR
u := SEL(g, 73, 1);
v := SEL(TRUE, SEL(g, 73, 1), USINT#232);
w := MIN(MUX(k, 3, 7, 9), USINT#200);
END_PROGRAM
"""


def test_a_selection_of_untyped_literals_takes_its_type_from_the_context_not_from_its_selector():
    # matiec: SEL__USINT__BOOL__USINT__USINT; found by the fidelity campaign (SEL(g, 73, 1) was LINT)
    assert scans.rows(SELECTIONS_OF_LITERALS, ["u", "v", "w"], 1, program="prg") == "1,0,73,232,7"


TYPED_CALLS_OF_CONTEXT_TYPED_FUNCTIONS = """
FUNCTION f : DINT
VAR_INPUT x : LINT; END_VAR
f := LINT_TO_DINT(x) * 2;
END_FUNCTION
PROGRAM prg
VAR a, b, c, e : BOOL; s : STRING := 'Hello'; r : REAL := 2.5; END_VAR
a := (LINT_TO_DINT(FIND('Hello', s))) >= ((-100));
b := f(FIND('Hello', s)) >= -100;
c := -100 < f(TRUNC(r));
e := LEN(s) > -1;
END_PROGRAM
"""


def test_a_conversion_or_a_user_function_of_a_find_or_trunc_has_its_own_type_beside_a_literal():
    # found by the fidelity campaign: LINT_TO_DINT(FIND(...)) was taken for an untyped
    # call (FIND's type comes from the context), so -100 beside it was a LINT and the
    # comparison of a DINT with it refused; matiec: TRUE, TRUE, TRUE, TRUE
    assert scans.rows(TYPED_CALLS_OF_CONTEXT_TYPED_FUNCTIONS, ["a", "b", "c", "e"], 1,
                      program="prg") == "1,0,TRUE,TRUE,TRUE,TRUE"


TRUNC_IN_COMPARISON_FUNCTIONS = """
PROGRAM prg
VAR r : REAL := 300.5; a, b, c, d, e, f, g : BOOL; END_VAR
  a := LT(TRUNC(r), -1);
  b := LT(TRUNC(r), 100);
  c := LT(TRUNC(r), 1000);
  d := GT(TRUNC(r), 0);
  e := LT(TRUNC(r), -200);
  f := LT(TRUNC(r), 200);
  g := LT(TRUNC(r), 40000);
END_PROGRAM
"""


def test_a_trunc_in_a_comparison_function_takes_the_first_overload_that_holds_the_literals():
    # matiec (iec2c 6bb2c339df6f): LT__BOOL__SINT for -1, 100 and 0 (TRUNC(300.5) as SINT is 44),
    # INT for -200 and 200, DINT for 40000; the operator form stays ULINT / LINT
    assert scans.rows(TRUNC_IN_COMPARISON_FUNCTIONS, list("abcdefg"), 1, program="prg") \
        == "1,0,FALSE,TRUE,TRUE,TRUE,FALSE,FALSE,TRUE"


LEN_AND_FIND_IN_CONTEXT = """
PROGRAM prg
VAR s : STRING := 'Hello'; d : DINT; u : USINT; m : ULINT; a, b, c : BOOL; i : INT; END_VAR
  d := LEN(s);
  u := FIND(s, 'l');
  m := MAX(ULINT#1, FIND(s, 'o'));
  a := LT(d, LEN(s));
  b := LEN(s) > 3;
  c := LT(LEN(s), 300);
  i := LEN(s) + FIND(s, 'e');
END_PROGRAM
"""


def test_len_and_find_take_their_integer_type_from_their_use_as_trunc_does():
    # matiec: LEN__DINT__STRING, FIND__USINT__..., FIND__ULINT__..., LEN__ULINT__STRING for `> 3`,
    # LT__BOOL__INT for 300; here every one of these was refused (LEN and FIND gave INT)
    assert scans.rows(LEN_AND_FIND_IN_CONTEXT, list("dumabci"), 1, program="prg") \
        == "1,0,5,3,5,FALSE,TRUE,TRUE,7"


DATE_AND_TIME_OPERATORS = """PROGRAM prg
VAR t : TIME := T#1s500ms; a : TIME_OF_DAY := TOD#12:00:01.5; a2 : TIME_OF_DAY := TOD#12:00:00;
  b : DATE_AND_TIME := DT#2024-01-31-06:30:15; b2 : DATE_AND_TIME := DT#2024-01-30-06:30:15;
  c : DATE := D#2024-12-31; c2 : DATE := D#2024-01-31;
  x1, x3, x12 : TIME_OF_DAY; x2, x4 : DATE_AND_TIME; x5, x6, x7, x11 : TIME; END_VAR
  x1 := a + t;
  x2 := b + t;
  x3 := a - t;
  x4 := b - T#1s500ms;
  x5 := c - c2;
  x6 := a - a2;
  x7 := b - b2;
  x11 := a2 - a;
  x12 := a2 - T#13h;
END_PROGRAM
"""


def test_plus_and_minus_on_dates_and_times_of_day_compute_as_matiecs_table_30_functions():
    # matiec (iec2c 6bb2c339df6f): ADD_TOD_TIME, ADD_DT_TIME, SUB_TOD_TIME, SUB_DT_TIME, SUB_DATE_DATE,
    # SUB_TOD_TOD, SUB_DT_DT (TOD#12:00:00 - T#13h is -1 h, which the oracle and a TOD's reading
    # show as its clock, 23:00:00). TIME + TOD and DATE +- TIME it refuses, as here
    assert scans.rows(DATE_AND_TIME_OPERATORS, "x1 x2 x3 x4 x5 x6 x7 x11 x12".split(), 1, program="prg") \
        == ("1,0,12:00:03,DT#2024-01-31-06:30:16.5,12:00:00,DT#2024-01-31-06:30:13.5,"
            "T#28944000000ms,T#1500ms,T#86400000ms,T#-1500ms,23:00:00")


DATE_AND_TIME_FUNCTIONS = """PROGRAM prg
VAR a : TOD := TOD#12:00:00; t : TIME := T#1s; d1 : DT := DT#2024-01-31-06:30:15;
  d2 : DT := DT#2024-01-30-06:30:15; da : DATE := D#2024-12-31; db : DATE := D#2024-01-31;
  x1, x3 : TOD; x2, x4 : DT; x5, x6, x7 : TIME; END_VAR
  x1 := ADD(a, t);
  x2 := ADD(IN2 := t, IN1 := d1);
  x3 := SUB(a, t);
  x4 := SUB(d1, t);
  x5 := SUB(d1, d2);
  x6 := SUB(a, TOD#11:00:00);
  x7 := SUB(da, db);
END_PROGRAM
"""


def test_add_and_sub_of_dates_and_times_of_day_are_the_table_30_functions_as_the_operators():
    # matiec (iec2c 6bb2c339df6f): ADD__TOD__TOD__TIME ... SUB__TIME__DATE__DATE, its overloads of
    # ADD and SUB; ADD(t, tod), ADD(date, t), SUB(dt, tod) it refuses, as here
    assert scans.rows(DATE_AND_TIME_FUNCTIONS, "x1 x2 x3 x4 x5 x6 x7".split(), 1, program="prg") \
        == ("1,0,12:00:01,DT#2024-01-31-06:30:16,11:59:59,DT#2024-01-31-06:30:14,T#86400000ms,"
            "T#3600000ms,T#28944000000ms")


@pytest.mark.parametrize("call", ["ADD(t, a)", "ADD(c, t)", "SUB(c, t)", "SUB(b, a)", "ADD(a, t, t)"])
def test_the_date_functions_matiec_refuses_are_refused(call):
    source = DATE_AND_TIME_OPERATORS.replace("x1 := a + t;", f"x6 := {call};")
    with pytest.raises(FbdError, match="another input makes it"):
        scans.rows(source, ["x6"], 1, program="prg")


TIMES_OF_DAY_PAST_MIDNIGHT = """PROGRAM prg
VAR t1, t2, t6, t7, m : TOD; d1, d4, c1 : DT; b1, b2, b3 : BOOL; tw, tb, dd : TIME;
  s1, s2, s5, s6, s9 : STRING; END_VAR
  t1 := TOD#00:00:00 - T#1s;
  t2 := TOD#23:00:00 + T#2h;
  t6 := TOD#00:00:00 - T#1.5s;
  t7 := TOD#00:00:00 - T#0.5s;
  d1 := DT#1970-01-01-00:00:00 - T#1s;
  d4 := DT#1970-01-01-00:00:00 - T#1.5s;
  b1 := t1 < TOD#00:00:01;
  b2 := t2 > TOD#23:59:59;
  b3 := t2 = TOD#01:00:00;
  m := MAX(t1, TOD#00:00:00);
  tw := t2 - TOD#00:00:00;
  tb := t1 - TOD#00:00:00;
  c1 := CONCAT_DATE_TOD(D#2024-01-31, t2);
  dd := D#1970-01-01 - D#2024-01-01;
  s1 := TOD_TO_STRING(t1);
  s2 := TOD_TO_STRING(t2);
  s5 := TOD_TO_STRING(t6);
  s6 := TOD_TO_STRING(t7);
  s9 := DT_TO_STRING(d4);
END_PROGRAM
"""


def test_a_time_of_day_moved_past_midnight_is_not_wrapped_as_in_matiec():
    # matiec (iec2c 6bb2c339df6f), scan 1: its TOD is a timespec, -1 s and 25 h stay so (the
    # oracle prints their clock, 23:59:59 and 01:00:00), as they compare, subtract and print
    assert scans.rows(TIMES_OF_DAY_PAST_MIDNIGHT, "b1 b2 b3 m tw tb c1 d1 dd s1 s2 s5 s6 s9".split(), 1,
                      program="prg") \
        == ("1,0,TRUE,TRUE,FALSE,00:00:00,T#90000000ms,T#-1000ms,DT#2024-02-01-01:00:00,"
            "DT#1969-12-31-23:59:59,T#-1704067200000ms,TOD#23:59:59,TOD#ERROR,TOD#23:59:58.500000,"
            "TOD#00:00:-0.500000,DT#1969-12-31-23:59:58.500000")


A100, B100, LONG = "'" + "a" * 100 + "'", "'" + "b" * 100 + "'", "'" + "abcdefghij" * 14 + "'"
STRING_LENGTH = f"""PROGRAM prg
VAR c1, c2, sa, ca : STRING; n1, n2, n3, n4, n5 : INT; short : STRING[10]; END_VAR
  c1 := CONCAT({A100}, {B100}, 'c');
  c2 := INSERT({A100}, {B100}, 50);
  sa := {LONG};
  ca := CONCAT(sa, sa);
  short := {LONG};
  n1 := LEN(c1); n2 := LEN(c2); n3 := LEN(CONCAT(ca, 'abc')); n4 := LEN(sa); n5 := LEN(short);
END_PROGRAM
"""


def test_a_string_holds_126_characters_as_matiecs_and_every_string_function_cuts_there():
    # matiec (iec2c 6bb2c339df6f, STR_MAX_LEN): n1..n3 126, c1 100 a's and 26 b's, c2 50 a's and 76 b's;
    # its LEN of a 140-character literal stored is 140 with 126 characters held (a defect): 126 here.
    # STRING[10] it cannot compile (iec2c crashes): IEC's 10 here
    h = scans.harness(STRING_LENGTH, "prg")
    h.scan()
    assert [h.get(f"prg.n{k}") for k in range(1, 6)] == [126, 126, 126, 126, 10]
    assert (h.get("prg.c1"), h.get("prg.c2")) == ("a" * 100 + "b" * 26, "a" * 50 + "b" * 76)
    assert h.get("prg.sa") == ("abcdefghij" * 14)[:126]


@pytest.mark.parametrize("expression", ["t + a", "c + t", "c - t", "b - a"])
def test_the_date_operators_matiec_refuses_are_refused(expression):
    source = DATE_AND_TIME_OPERATORS.replace("x1 := a + t;", f"x6 := {expression};")
    with pytest.raises(FbdError, match="both operands must have one type"):
        scans.rows(source, ["x6"], 1, program="prg")


REALS = """
PROGRAM prg
VAR
  x : REAL := 16777216.0; a : REAL := 0.1; b : REAL := 0.2; inc : REAL := 0.1;
  y, d2, d3, c, k, s, r, q : REAL; acc, acc2 : REAL; acc3 : LREAL; g, h : BOOL; txt : STRING;
END_VAR
y := x + 1.0;
d2 := (x + 1.0) - x;
d3 := (x + REAL#1.0) - x;
c := a + b;
k := a * 3.0;
s := SIN(a);
r := SQRT(x + 1.0) - 4096.0;
q := a ** 2.0;
g := a > 0.1;
h := (x + 1.0) > x;
txt := REAL_TO_STRING(c);
acc := acc + 0.1;
acc2 := acc2 + inc;
acc3 := acc3 + 0.1;
END_PROGRAM
"""


def test_real_is_single_precision_and_an_untyped_real_literal_a_c_double():
    # y: 16777216 + 1 rounds back to 16777216 in a float; d2: x + 1.0 is a double in C
    # (1.0 is a double literal), so the difference is 1.0, while with REAL#1.0 (a float)
    # it is 0.0; s, the float nearest sin(0.1f); q: C's pow of doubles, rounded when stored
    columns = "y d2 d3 c k s r q".split()
    assert scans.rows(REALS, columns, 1, program="prg", cycle_ms=20) == scans.expected("""
        scan,t_ms,Y,D2,D3,C,K,S,R,Q
        1,0,16777216.0,1.0,0.0,0.3,0.3,0.09983342,0.0,0.010000001
    """)
    h = scans.harness(REALS, "prg")
    h.scan()
    assert h.get("prg.txt") == "0.3000000119"      # matiec's TXT: '0.3000000119'
    assert h.get("prg.s") == 0.0998334214091301     # its JSON: the float's exact value


def test_a_real_comparison_compares_real_values_where_matiec_compares_doubles():
    # matiec prints g = TRUE (REAL 0.1 > the double 0.1) and h = TRUE ((x + 1.0) kept a
    # double): its defect; IEC compares two REALs, which are equal, so both are FALSE
    assert scans.rows(REALS, ["g", "h"], 1, program="prg") == "1,0,FALSE,FALSE"


def test_a_real_integrator_drifts_over_100_scans_exactly_as_in_matiec():
    # acc: acc + 0.1 (a double sum, rounded at each store); acc2: acc2 + inc (float
    # arithmetic); acc3: an LREAL, whose drift is a double's
    assert scans.rows(REALS, ["acc", "acc2", "acc3"], 100, program="prg",
                      cycle_ms=20) == scans.expected("""
        scan,t_ms,ACC,ACC2,ACC3
        1,0,0.1,0.1,0.1
        2,20,0.2,0.2,0.2
        3,40,0.3,0.3,0.30000000000000004
        4,60,0.4,0.4,0.4
        5,80,0.5,0.5,0.5
        6,100,0.6,0.6,0.6
        7,120,0.70000005,0.70000005,0.7
        8,140,0.8000001,0.8000001,0.7999999999999999
        9,160,0.9000001,0.9000001,0.8999999999999999
        10,180,1.0000001,1.0000001,0.9999999999999999
        11,200,1.1000001,1.1000001,1.0999999999999999
        12,220,1.2000002,1.2000002,1.2
        13,240,1.3000002,1.3000002,1.3
        14,260,1.4000002,1.4000002,1.4000000000000001
        15,280,1.5000002,1.5000002,1.5000000000000002
        16,300,1.6000003,1.6000003,1.6000000000000003
        17,320,1.7000003,1.7000003,1.7000000000000004
        18,340,1.8000003,1.8000003,1.8000000000000005
        19,360,1.9000003,1.9000003,1.9000000000000006
        20,380,2.0000002,2.0000002,2.0000000000000004
        21,400,2.1000001,2.1000001,2.1000000000000005
        22,420,2.2,2.2,2.2000000000000006
        23,440,2.3,2.3,2.3000000000000007
        24,460,2.3999999,2.3999999,2.400000000000001
        25,480,2.4999998,2.4999998,2.500000000000001
        26,500,2.5999997,2.5999997,2.600000000000001
        27,520,2.6999996,2.6999996,2.700000000000001
        28,540,2.7999995,2.7999995,2.800000000000001
        29,560,2.8999994,2.8999994,2.9000000000000012
        30,580,2.9999993,2.9999993,3.0000000000000013
        31,600,3.0999992,3.0999992,3.1000000000000014
        32,620,3.199999,3.199999,3.2000000000000015
        33,640,3.299999,3.299999,3.3000000000000016
        34,660,3.399999,3.399999,3.4000000000000017
        35,680,3.4999988,3.4999988,3.5000000000000018
        36,700,3.5999987,3.5999987,3.600000000000002
        37,720,3.6999986,3.6999986,3.700000000000002
        38,740,3.7999985,3.7999985,3.800000000000002
        39,760,3.8999984,3.8999984,3.900000000000002
        40,780,3.9999983,3.9999983,4.000000000000002
        41,800,4.0999985,4.0999985,4.100000000000001
        42,820,4.1999984,4.1999984,4.200000000000001
        43,840,4.2999983,4.2999983,4.300000000000001
        44,860,4.399998,4.399998,4.4
        45,880,4.499998,4.499998,4.5
        46,900,4.599998,4.599998,4.6
        47,920,4.699998,4.699998,4.699999999999999
        48,940,4.799998,4.799998,4.799999999999999
        49,960,4.8999977,4.8999977,4.899999999999999
        50,980,4.9999976,4.9999976,4.999999999999998
        51,1000,5.0999975,5.0999975,5.099999999999998
        52,1020,5.1999974,5.1999974,5.1999999999999975
        53,1040,5.2999973,5.2999973,5.299999999999997
        54,1060,5.399997,5.399997,5.399999999999997
        55,1080,5.499997,5.499997,5.4999999999999964
        56,1100,5.599997,5.599997,5.599999999999996
        57,1120,5.699997,5.699997,5.699999999999996
        58,1140,5.799997,5.799997,5.799999999999995
        59,1160,5.8999968,5.8999968,5.899999999999995
        60,1180,5.9999967,5.9999967,5.999999999999995
        61,1200,6.0999966,6.0999966,6.099999999999994
        62,1220,6.1999965,6.1999965,6.199999999999994
        63,1240,6.2999964,6.2999964,6.299999999999994
        64,1260,6.3999963,6.3999963,6.399999999999993
        65,1280,6.499996,6.499996,6.499999999999993
        66,1300,6.599996,6.599996,6.5999999999999925
        67,1320,6.699996,6.699996,6.699999999999992
        68,1340,6.799996,6.799996,6.799999999999992
        69,1360,6.899996,6.899996,6.8999999999999915
        70,1380,6.9999957,6.9999957,6.999999999999991
        71,1400,7.0999956,7.0999956,7.099999999999991
        72,1420,7.1999955,7.1999955,7.19999999999999
        73,1440,7.2999954,7.2999954,7.29999999999999
        74,1460,7.3999953,7.3999953,7.39999999999999
        75,1480,7.499995,7.499995,7.499999999999989
        76,1500,7.599995,7.599995,7.599999999999989
        77,1520,7.699995,7.699995,7.699999999999989
        78,1540,7.799995,7.799995,7.799999999999988
        79,1560,7.899995,7.899995,7.899999999999988
        80,1580,7.9999948,7.9999948,7.999999999999988
        81,1600,8.099995,8.099995,8.099999999999987
        82,1620,8.199995,8.199995,8.199999999999987
        83,1640,8.299995,8.299995,8.299999999999986
        84,1660,8.399996,8.399996,8.399999999999986
        85,1680,8.499996,8.499996,8.499999999999986
        86,1700,8.599997,8.599997,8.599999999999985
        87,1720,8.699997,8.699997,8.699999999999985
        88,1740,8.799997,8.799997,8.799999999999985
        89,1760,8.899998,8.899998,8.899999999999984
        90,1780,8.999998,8.999998,8.999999999999984
        91,1800,9.099998,9.099998,9.099999999999984
        92,1820,9.199999,9.199999,9.199999999999983
        93,1840,9.299999,9.299999,9.299999999999983
        94,1860,9.4,9.4,9.399999999999983
        95,1880,9.5,9.5,9.499999999999982
        96,1900,9.6,9.6,9.599999999999982
        97,1920,9.700001,9.700001,9.699999999999982
        98,1940,9.800001,9.800001,9.799999999999981
        99,1960,9.900002,9.900002,9.89999999999998
        100,1980,10.000002,10.000002,9.99999999999998
    """)


INTERMEDIATES = """
PROGRAM prg
VAR
  i1 : INT := 30000; i2 : INT := 30000; imin : INT := -32768; s1 : SINT := 100;
  u1 : USINT := 0; u2 : USINT := 1; ui : UINT := 65535; d : DINT := 2147483647;
  ud : UDINT := 0; b : BYTE := 16#0F; a : ARRAY[0..20] OF INT;
  avg, dbl, rest, neg, wrapped, viafn, ci, idx : INT; sm : SINT; us : USINT; usq : UINT;
  dd, dw : DINT; u32 : UDINT; gt0, eqw, below0, above200, notb, nb2 : BOOL; nbyte : BYTE;
END_VAR
avg := (i1 + i2) / 2;
dbl := i1 * 2 / 4;
rest := (i1 + i2) MOD 7;
neg := -imin / 2;
sm := (s1 + s1) / 2;
usq := ui * ui / 65535;
us := (u1 - u2) / 2;
dw := (d + 1) / 2;
u32 := (ud - 1) / 2;
gt0 := (i1 + i2) > 0;
eqw := i1 + i2 = -5536;
below0 := (u1 - u2) < 0;
above200 := u1 - u2 > 200;
notb := NOT b = 16#F0;
nbyte := NOT b;
nb2 := (NOT b) > b;
wrapped := ADD(i1, i2) / 2;
dd := INT_TO_DINT(i1 + i2) / 2;
viafn := ABS(i1 + i2);
CASE i1 + i2 OF -5536: ci := 1; ELSE ci := 2; END_CASE;
a[(i1 + i2) / 6000] := 7;
idx := a[10];
END_PROGRAM
"""


def test_integer_operators_compute_in_cs_promoted_types_and_are_cut_where_stored():
    # avg: (30000 + 30000) / 2 in C's int is 30000 (INT arithmetic would give -2768);
    # sq: UINT 65535 * 65535 overflows C's int to -131071, / 65535 = -2, stored 65534;
    # below0: USINT 0 - 1 is the int -1 in C; wrapped: ADD is a function, its result an
    # INT; dd: a conversion's parameter is cut; ci: a CASE selector is stored; idx: an
    # index is not
    columns = ("avg dbl rest neg sm usq us dw u32 gt0 eqw below0 above200 nbyte wrapped dd "
               "viafn ci idx").split()
    assert scans.rows(INTERMEDIATES, columns, 1, program="prg", cycle_ms=20) == scans.expected("""
        scan,t_ms,AVG,DBL,REST,NEG,SM,USQ,US,DW,U32,GT0,EQW,BELOW0,ABOVE200,NBYTE,WRAPPED,DD,VIAFN,CI,IDX
        1,0,30000,15000,3,16384,100,65534,0,-1073741824,2147483647,TRUE,FALSE,TRUE,FALSE,240,-2768,-2768,5536,1,7
    """)


def test_not_of_a_bit_string_stays_within_its_width_where_matiec_promotes_it():
    # matiec prints notb = FALSE and nb2 = FALSE: ~b of the BYTE 16#0F is the int
    # 16#FFFFFFF0, not 16#F0, a defect; IEC's NOT of a BYTE is a BYTE, 16#F0
    assert scans.rows(INTERMEDIATES, ["notb", "nb2"], 1, program="prg") == "1,0,TRUE,TRUE"


WHERE_CUT = """
FUNCTION half : INT
VAR_INPUT v : INT; END_VAR
  half := v / 2;
END_FUNCTION
FUNCTION_BLOCK keep
VAR_INPUT v : INT; r : REAL; END_VAR
VAR_OUTPUT o : INT; ro : REAL; END_VAR
  o := v / 2; ro := r;
END_FUNCTION_BLOCK
PROGRAM prg
VAR
  i1 : INT := 30000; i2 : INT := 30000; x : REAL := 16777216.0; t : TIME := T#1s;
  inst : keep; a : ARRAY[0..20] OF INT; k : INT;
  bycase, byfn, byfb, runs, byindex : INT; byreal : REAL; bytime, byfntime : TIME;
END_VAR
CASE i1 + i2 OF -5536: bycase := 1; ELSE bycase := 2; END_CASE;
byfn := half(i1 + i2);
inst(v := i1 + i2, r := x + 1.0);
byfb := inst.o;
byreal := inst.ro - x;
runs := 0;
FOR k := 0 TO (i1 + i2) / 6000 DO runs := runs + 1; END_FOR;
a[(i1 + i2) / 6000] := 7;
byindex := a[10];
bytime := t * (x + 1.0);
byfntime := MUL(t, x + 1.0);
END_PROGRAM
"""


def test_a_value_is_cut_to_its_type_where_matiecs_c_stores_it_and_nowhere_else():
    # cut: a CASE selector, a function's and an FB's inputs, MUL's REAL parameter (the
    # function); not cut: the FOR end (11 runs, from 0 to (30000 + 30000) / 6000), an
    # index, the factor of the operator TIME * x (C's LREAL)
    columns = "bycase byfn byfb byreal runs byindex bytime byfntime".split()
    assert scans.rows(WHERE_CUT, columns, 1, program="prg", cycle_ms=20) == scans.expected("""
        scan,t_ms,BYCASE,BYFN,BYFB,BYREAL,RUNS,BYINDEX,BYTIME,BYFNTIME
        1,0,1,-2768,-2768,0.0,11,7,T#16777217000ms,T#16777216000ms
    """)


IL_CUTS = """
PROGRAM prg
VAR i1 : INT := 30000; i2 : INT := 30000; i3 : INT; x : REAL := 16777216.0; y : REAL;
    g : BOOL; END_VAR
  LD i1
  ADD i2
  DIV 2
  ST i3
  LD x
  ADD 1.0
  SUB x
  ST y
  LD i1
  ADD i2
  GT 0
  ST g
END_PROGRAM
"""


def test_an_il_instructions_result_is_cut_to_the_current_results_type_at_once():
    # matiec keeps the current result in a variable of its type (INTvar += i2): so IL
    # gives -2768 where the same ST expression gives 30000, and 0.0 for (x + 1.0) - x
    assert scans.rows(IL_CUTS, ["i3", "y", "g"], 1, program="prg") == "1,0,-2768,0.0,FALSE"


def test_untyped_integer_literals_alone_compute_as_lint_where_matiecs_c_int_overflows():
    # matiec prints g = FALSE (2147483647 + 1 in C's int overflows): a defect; IEC
    # computes two untyped literals as LINT, and so does this compiler
    source = """
PROGRAM prg
VAR g : BOOL; l, l1 : LINT; END_VAR
g := 2147483647 + 1 > 0;
l1 := 5;
l := 4000000000 * 4 + l1;
END_PROGRAM
"""
    assert scans.rows(source, ["g", "l"], 1, program="prg") == "1,0,TRUE,16000000005"


BIT_STRINGS = """
PROGRAM prg
VAR b : BYTE := 16#0F; w : WORD := 16#F00F; i1 : INT := 30000; i2 : INT := 30000;
  shl4, orb, andw, shifted : BOOL; rolled : BYTE; END_VAR
shl4 := SHL(b, 4) > 200;
orb := (b OR 16#F0) = 16#FF;
andw := (w AND 16#FF00) > 16#F000;
shifted := SHR(INT_TO_WORD(i1 + i2), 1) = 16#D4C0;
rolled := ROL(b, 6);
END_PROGRAM
"""


def test_bit_strings_keep_their_width_and_shifts_are_functions_whose_values_are_cut():
    # AND/OR/XOR of non-negative values stay within the width in C's int too; SHL, SHR,
    # ROL are functions: their parameters and result are cut to their types
    assert scans.rows(BIT_STRINGS, "shl4 orb andw shifted rolled".split(), 1,
                      program="prg", cycle_ms=20) == scans.expected("""
        scan,t_ms,SHL4,ORB,ANDW,SHIFTED,ROLLED
        1,0,TRUE,TRUE,FALSE,FALSE,195
    """)
