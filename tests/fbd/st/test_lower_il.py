"""IL bodies lowered to ST (fbd.st.lower_il): the shape of the lowering, and
programs run scan by scan with the rows matiec (iec2c 6bb2c339df6f, the same
programs at a 5 ms cycle) gives."""

from pathlib import Path

import pytest

from fbd.library import load_libraries
from fbd.st import StSemanticError, compile_unit, dump, parse
from fbd.st import ast as A
from fbd.st.lower_il import lower_il
from fbd.testing import Harness
from tests.fbd.st import scans

EVERY_OPERATOR = """
FUNCTION_BLOCK Cnt
VAR_INPUT inc : INT; END_VAR
VAR_OUTPUT total : INT; END_VAR
  LD total
  ADD inc
  ST total
END_FUNCTION_BLOCK

PROGRAM main
VAR
  a : INT := 3;
  b : INT;
  c : BOOL;
  d : BOOL;
  e : INT;
  n : INT;
  i : INT;
  t1 : TON;
  c1 : Cnt;
  ff : SR;
  w : WORD := 16#00F0;
  m : INT;
  q : BOOL;
END_VAR
  LD a
  ADD 2
  MUL a
  ST b
  GT 20
  ST c
  LDN c
  AND( a
  GT 1
  )
  ORN d
  ST d
  LD b
  SUB 1
  ST b
  ST e
  LD e
  MAX 50, 7
  ST m
  LD 0
  ST n
  ST i
loop:
  LD i
  ADD 1
  ST i
  LD n
  ADD i
  ST n
  LD i
  LT 4
  JMPC loop
  LD c
  IN t1
  LD T#10ms
  PT t1
  CAL c1(a)
  LD t1.Q
  S1 ff
  LD w
  XOR 16#FF
  ST w
  LD ff.Q1
  STN q
END_PROGRAM
"""

# matiec: oracle.py --scans 6 --cycle 5ms --set A=1@4
EVERY_OPERATOR_ROWS = """
scan,t_ms,b,c,d,e,m,n,i,t1.Q,c1.total,ff.Q1,w,q
1,0,14,FALSE,TRUE,14,50,10,4,FALSE,3,FALSE,15,TRUE
2,5,14,FALSE,TRUE,14,50,10,4,FALSE,6,FALSE,240,TRUE
3,10,14,FALSE,TRUE,14,50,10,4,FALSE,9,FALSE,15,TRUE
4,15,2,FALSE,FALSE,2,50,10,4,FALSE,10,FALSE,240,TRUE
5,20,2,FALSE,TRUE,2,50,10,4,FALSE,11,FALSE,15,TRUE
6,25,2,FALSE,FALSE,2,50,10,4,FALSE,12,FALSE,240,TRUE
"""

CALLS_AND_JUMPS = """
FUNCTION Twice : INT
VAR_INPUT v : INT; k : INT; END_VAR
  LD v
  MUL 2
  ADD k
  ST Twice
END_FUNCTION

PROGRAM main
VAR
  x : BOOL;
  y : BOOL;
  q : BOOL;
  rr : BOOL;
  k : INT := 7;
  dv : INT;
  md : INT;
  cmp : BOOL;
  w : WORD := 16#0F0F;
  f : INT;
  lim : INT;
  trig : R_TRIG;
  edges : INT;
  up : CTU;
  down : CTD;
  ff : RS;
  t1 : TON;
  fwd : INT;
  stopped : INT;
  after : INT;
  ptime : TIME := T#10ms;
  off : BOOL;
END_VAR
  LD x
  ST y
  STN q
  S rr
  LD y
  R rr
  LD k
  DIV 2
  ST dv
  LD k
  MOD 4
  ST md
  LD dv
  NE 3
  AND( md
  LE 3
  )
  XORN x
  ST cmp
  LD w
  NOT
  ST w
  LD k
  Twice 5
  ST f
  LIMIT(
    MN := 0,
    IN := k,
    MX := 5
  )
  ST lim
  LD x
  CLK trig
  LD trig.Q
  JMPCN noedge
  LD edges
  ADD 1
  ST edges
noedge:
  LD x
  CU up
  LD 3
  PV up
  LD x
  CD down
  LD 2
  PV down
  LD x
  S ff
  LD up.Q
  R1 ff
  CAL t1(
    IN := x,
    PT := ptime
  )
  LD x
  CALCN t1(off)
  LD fwd
  ADD 1
  ST fwd
  JMP skip
  LD 100
  ST fwd
skip:
  LD k
  EQ 7
  RETC
  LD after
  ADD 1
  ST after
END_PROGRAM
"""

# matiec: --scans 12 --set X=TRUE@2,4,6,7,8 --set X=FALSE@3,5,9 --set K=8@10 --set K=7@12
# (down.CV left out: matiec's own CTD stops at 0, the block library's at -32768 as IEC says)
CALLS_AND_JUMPS_ROWS = """
scan,t_ms,y,q,rr,dv,md,cmp,w,f,lim,edges,up.CV,up.Q,ff.Q1,t1.Q,fwd,after
1,0,FALSE,TRUE,FALSE,3,3,TRUE,61680,19,5,0,0,FALSE,FALSE,FALSE,1,0
2,5,TRUE,FALSE,FALSE,3,3,FALSE,3855,19,5,1,1,FALSE,TRUE,FALSE,2,0
3,10,FALSE,TRUE,FALSE,3,3,TRUE,61680,19,5,1,1,FALSE,TRUE,FALSE,3,0
4,15,TRUE,FALSE,FALSE,3,3,FALSE,3855,19,5,2,2,FALSE,TRUE,FALSE,4,0
5,20,FALSE,TRUE,FALSE,3,3,TRUE,61680,19,5,2,2,FALSE,TRUE,FALSE,5,0
6,25,TRUE,FALSE,FALSE,3,3,FALSE,3855,19,5,3,3,TRUE,FALSE,FALSE,6,0
7,30,TRUE,FALSE,FALSE,3,3,FALSE,61680,19,5,3,3,TRUE,FALSE,FALSE,7,0
8,35,TRUE,FALSE,FALSE,3,3,FALSE,3855,19,5,3,3,TRUE,FALSE,TRUE,8,0
9,40,FALSE,TRUE,FALSE,3,3,TRUE,61680,19,5,3,3,TRUE,FALSE,FALSE,9,0
10,45,FALSE,TRUE,FALSE,4,0,FALSE,3855,21,5,3,3,TRUE,FALSE,FALSE,10,1
11,50,FALSE,TRUE,FALSE,4,0,FALSE,61680,21,5,3,3,TRUE,FALSE,FALSE,11,2
12,55,FALSE,TRUE,FALSE,3,3,TRUE,3855,19,5,3,3,TRUE,FALSE,FALSE,12,2
"""


def lowered(text, name="main"):
    unit = parse(text, "prog.il.st")
    return lower_il(unit.pou(name), unit, "prog.il.st")


def kinds(statements):
    return [type(s).__name__ for s in statements]


def test_every_operator_gives_matiecs_values_scan_by_scan():
    columns = "b c d e m n i t1.Q c1.total ff.Q1 w q".split()
    assert scans.rows(EVERY_OPERATOR, columns, 6, {4: {"a": 1}}) == scans.expected(EVERY_OPERATOR_ROWS)


def test_calls_fb_input_operators_jumps_and_returns_give_matiecs_values():
    sets = {k: {"x": True} for k in (2, 4, 6, 7, 8)} | {k: {"x": False} for k in (3, 5, 9)}
    sets[10] = {"k": 8}
    sets[12] = {"k": 7}
    columns = "y q rr dv md cmp w f lim edges up.CV up.Q ff.Q1 t1.Q fwd after".split()
    assert scans.rows(CALLS_AND_JUMPS, columns, 12, sets) == scans.expected(CALLS_AND_JUMPS_ROWS)


PROGRAM = """PROGRAM main
VAR a, b, z : INT; c, d : BOOL; t1 : TON; END_VAR
{body}
END_PROGRAM
"""


def test_straight_line_il_is_straight_line_st_the_cr_an_expression():
    pou = lowered(PROGRAM.format(body="  LD a\n  ADD 2\n  MUL b\n  ST z\n  GT 10\n  ST c"))
    assert [A.dump(s) for s in pou.body.statements] == [
        "(Assign z (* (+ a 2) b))", "(Assign c (> z 10))"]
    assert len(pou.var_blocks) == 1         # no temporaries, no program counter


def test_a_store_into_what_the_cr_reads_copies_it_first_into_a_typed_temporary():
    pou = lowered(PROGRAM.format(body="  LD a\n  ADD 1\n  STN d\n  LD a\n  ADD 1\n  ST a\n  ST b"))
    assert [A.dump(s) for s in pou.body.statements] == [
        "(Assign d (NOT (+ a 1)))", "(Assign a (+ a 1))", "(Assign b a)"]
    pou = lowered(PROGRAM.format(body="  LD c\n  AND d\n  R c\n  ST d"))
    assert [A.dump(s) for s in pou.body.statements] == [
        "(Assign __IL_CR_BOOL (AND c d))", "(If [(Branch __IL_CR_BOOL [(Assign c FALSE)])])",
        "(Assign d __IL_CR_BOOL)"]
    temps = [d for vb in pou.var_blocks for d in vb.decls if d.name.startswith("__IL_")]
    assert [(d.name, A.dump(d.spec)) for d in temps] == [("__IL_CR_BOOL", "BOOL")]


def test_jumps_become_a_case_state_machine_and_only_then():
    pou = lowered(PROGRAM.format(body="  LD 0\n  ST a\nagain: LD a\n  ADD 1\n  ST a\n  LT 5\n"
                                      "  JMPC again\n  LD a\n  ST b"))
    assert kinds(pou.body.statements) == ["Assign", "While"]
    case = pou.body.statements[1].body[0]
    assert isinstance(case, A.Case) and len(case.branches) == 2
    assert [d.name for vb in pou.var_blocks for d in vb.decls][-1] == "__IL_PC"


def test_the_lowered_statements_carry_the_il_lines():
    pou = lowered(PROGRAM.format(body="  LD a\n  ADD 2\n  ST z"))
    (assign,) = pou.body.statements
    # the store is the ST line, the sum the ADD line, its left operand the LD line
    assert (assign.line, assign.value.line, assign.value.left.line, assign.target.line) == (5, 4, 3, 5)


def test_a_parameter_computed_by_nested_instructions():
    text = PROGRAM.format(body="  CAL t1(\n    IN := (\n      LD c\n      OR d\n    ),\n"
                               "    PT := T#10ms\n  )\n"
                               "  LD t1.Q\n  ST c")
    pou = lowered(text)
    assert A.dump(pou.body.statements[0]) == "(Invoke t1 [IN := (OR c d) PT := 10000000ns])"
    # matiec refuses nested lists ("not yet supported"); here: TON with IN held TRUE
    values = scans.rows(text, ["c", "t1.ET"], 4, {1: {"d": True}})
    assert values.splitlines()[-1] == "4,15,TRUE,T#10ms"


@pytest.mark.parametrize("body, message", [
    ("  JMP nowhere", "no label nowhere"),
    ("  ADD 1\n  ST a", "needs a current result"),
    # matiec: "Data type mismatch for 'ADD' operator" (nothing jumps to l1)
    ("  LD a\n  JMP l2\nl1: ADD 1\n  ST b\nl2: LD 5\n  ST a", "matiec refuses this too"),
    ("  LD a\n  IN a", "takes an FB instance"),
])
def test_what_cannot_be_lowered_is_an_error_at_its_il_line(body, message):
    with pytest.raises(StSemanticError, match=message) as info:
        lowered(PROGRAM.format(body=body))
    assert info.value.line >= 3 and "PROGRAM main" in str(info.value)


UNTYPED_ACROSS_JUMPS = """
PROGRAM main
VAR a : INT := 2; x, y, z : INT; b, c : BOOL; END_VAR
  LD b
  JMPC L1
  LD 7
  JMP L2
L1:
  LD 3
L2:
  ADD a
  ST x
  LD 5
  JMP L3
L3:
  ADD 1
  ST y
  LD 4
  JMP L4
L4:
  MAX a
  ST z
  LD 5
  JMP L5
L5:
  ADD 1
  GT 3
  ST c
END_PROGRAM
"""

# matiec: --cycle 5ms --scans 3 --set B=TRUE@2 --set A=9@3 --watch x --watch y --watch z --watch c
UNTYPED_ACROSS_JUMPS_ROWS = """
scan,t_ms,x,y,z,c
1,0,9,6,4,TRUE
2,5,5,6,4,TRUE
3,10,12,6,9,TRUE
"""


def test_an_untyped_literal_across_a_jump_takes_the_type_the_label_uses_it_as():
    # matiec infers the CR's type across jumps: 7 and 3 reach L2 as ADD a's INT,
    # 5 reaches L3 as ST y's INT (through ADD 1), 4 reaches L4 as MAX a's INT; at L5
    # nothing types 5 + 1 > 3, computed as two untyped literals are (LINT)
    sets = {2: {"b": True}, 3: {"a": 9}}
    rows = scans.rows(UNTYPED_ACROSS_JUMPS, ["x", "y", "z", "c"], 3, sets)
    assert rows == scans.expected(UNTYPED_ACROSS_JUMPS_ROWS)
    temps = {d.name: A.dump(d.spec) for vb in lowered(UNTYPED_ACROSS_JUMPS).var_blocks
             for d in vb.decls if d.name.startswith("__IL_CR")}
    assert temps == {"__IL_CR_INT": "INT", "__IL_CR_LINT": "LINT"}


def test_an_unknown_operand_is_reported_at_its_il_line_by_the_analysis():
    with pytest.raises(StSemanticError) as info:
        scans.harness(PROGRAM.format(body="  LD a\n  ADD nope\n  ST b"))
    assert info.value.line == 4


# --------------------------------------------------------------- a real IL program
ANNEX_F = Path(__file__).resolve().parents[2] / "data" / "st" / "matiec" / "AnnexF" / "cmd_monitor_il.txt"
MONITOR = """
PROGRAM main
VAR
  auto_cmd : BOOL;
  auto_mode : BOOL;
  man_cmd : BOOL;
  man_chk : BOOL;
  fdbk : BOOL;
  ack : BOOL;
  mon : CMD_MONITOR;
  cmd : BOOL;
  alrm : BOOL;
END_VAR
  mon(AUTO_CMD := auto_cmd, AUTO_MODE := auto_mode, MAN_CMD := man_cmd, MAN_CMD_CHK := man_chk,
      T_CMD_MAX := T#20ms, FDBK := fdbk, ACK := ack);
  cmd := mon.CMD;
  alrm := mon.ALRM;
END_PROGRAM
"""

# matiec: the file and MONITOR, --scans 20 --set AUTO_MODE=TRUE@2 --set AUTO_CMD=TRUE@3
# --set FDBK=TRUE@5 --set FDBK=FALSE@7 --set AUTO_CMD=FALSE@9 --set AUTO_CMD=TRUE@10
# --set AUTO_MODE=FALSE@16 --set ACK=TRUE@17 --set MAN_CMD=TRUE@19
MONITOR_ROWS = """
scan,t_ms,cmd,alrm,mon.CMD_TMR.ET,mon.ALRM_FF.Q1
1,0,FALSE,FALSE,T#0ms,FALSE
2,5,FALSE,FALSE,T#0ms,FALSE
3,10,TRUE,FALSE,T#0ms,FALSE
4,15,TRUE,FALSE,T#5ms,FALSE
5,20,TRUE,FALSE,T#10ms,FALSE
6,25,TRUE,FALSE,T#15ms,FALSE
7,30,TRUE,TRUE,T#20ms,TRUE
8,35,TRUE,TRUE,T#20ms,TRUE
9,40,FALSE,TRUE,T#0ms,TRUE
10,45,TRUE,TRUE,T#0ms,TRUE
11,50,TRUE,TRUE,T#5ms,TRUE
12,55,TRUE,TRUE,T#10ms,TRUE
13,60,TRUE,TRUE,T#15ms,TRUE
14,65,TRUE,TRUE,T#20ms,TRUE
15,70,TRUE,TRUE,T#20ms,TRUE
16,75,FALSE,TRUE,T#0ms,TRUE
17,80,FALSE,FALSE,T#0ms,FALSE
18,85,FALSE,FALSE,T#0ms,FALSE
19,90,TRUE,FALSE,T#0ms,FALSE
20,95,TRUE,FALSE,T#5ms,FALSE
"""


def test_annex_f_command_monitor_in_il_gives_matiecs_scans():
    """The command stays on while commanded; feedback that drops before T_CMD_MAX
    raises the alarm (latched in the SR); ACK clears it once the command is off."""
    text = ANNEX_F.read_text() + MONITOR
    sets = {2: {"auto_mode": True}, 3: {"auto_cmd": True}, 5: {"fdbk": True}, 7: {"fdbk": False},
            9: {"auto_cmd": False}, 10: {"auto_cmd": True}, 16: {"auto_mode": False}, 17: {"ack": True},
            19: {"man_cmd": True}}
    rows = scans.rows(text, ["cmd", "alrm", "mon.CMD_TMR.ET", "mon.ALRM_FF.Q1"], 20, sets)
    assert rows == scans.expected(MONITOR_ROWS)


IL_CHAIN = ("PROGRAM main\nVAR x : INT; b : BOOL := TRUE; c : BOOL; END_VAR\n  LD x\n"
            + "  ADD 250\n" * 150 + "  ST x\n  LD b\n" + "  AND b\n  OR c\n" * 60 + "  ST c\nEND_PROGRAM\n")
IL_CHAIN_ROWS = """
scan,t_ms,x,c
1,0,-28036,TRUE
2,5,9464,TRUE
3,10,-18572,TRUE
"""


def test_a_long_run_without_a_store_keeps_the_cr_in_its_temporary_and_matiecs_values():
    # 150 ADDs nest past half of MAX_DEPTH: the CR is kept in __IL_CR_INT there, which
    # cuts it as matiec's CR variable does after each instruction (matiec's rows)
    statements = lowered(IL_CHAIN).body.statements
    assert [dump(s) for s in statements[:1]][0].startswith("(Assign __IL_CR_INT (+ (+")
    assert scans.rows(IL_CHAIN, ["x", "c"], 3, {3: {"b": False}}) == scans.expected(IL_CHAIN_ROWS)


def test_thousands_of_instructions_in_a_row_lower_without_overflowing_the_stack():
    text = "FUNCTION_BLOCK fb VAR_OUTPUT x : INT; END_VAR\n  LD x\n" + "  ADD 1\n" * 3_000 + \
        "  ST x\nEND_FUNCTION_BLOCK\n"
    load_libraries()
    h = Harness.block(compile_unit(parse(text))["fb"]())
    h.scan(2)
    assert h.get("blk.x") == 6_000


def test_a_long_run_of_untyped_literals_says_which_type_to_give():
    text = "PROGRAM main VAR x : INT; END_VAR\n  LD 1\n" + "  ADD 1\n" * 200 + "  ST x\nEND_PROGRAM\n"
    load_libraries()
    with pytest.raises(StSemanticError, match="write the first literal typed, e.g. INT#5") as e:
        compile_unit(parse(text, "lits.st"))
    assert e.value.line == 102
