"""String blocks: IEC 1-based positions, the 126-character cap (matiec's), out-of-range arguments.

Expected values are worked out by hand (the IEC standard's own examples where
it has them); the out-of-range rules are the ones documented in blocks.strings.
"""

import itertools
from datetime import date, timedelta

import pytest

import blocks
from fbd.block import registry
from fbd.compiler.interp import Interpreter
from fbd.errors import ValidationError
from fbd.network import Network
from fbd.st.project import load as load_st
from fbd.testing import Harness
from fbd.types import DINT, INT, LINT, SINT, STRING, STRING_MAX, UDINT, UINT, ULINT, USINT, string_of

ABC = "ABCDE"


def out(block, **inputs):
    h = Harness.block(block)
    return h.set(**inputs).scan().get("OUT")


def left(s, n):
    return out(blocks.LEFT(INT), IN=s, L=n)


def right(s, n):
    return out(blocks.RIGHT(INT), IN=s, L=n)


def mid(s, n, p):
    return out(blocks.MID(types={"L": INT, "P": INT}), IN=s, L=n, P=p)


def insert(a, b, p):
    return out(blocks.INSERT(INT), IN1=a, IN2=b, P=p)


def delete(s, n, p):
    return out(blocks.DELETE(types={"L": INT, "P": INT}), IN=s, L=n, P=p)


def replace(a, b, n, p):
    return out(blocks.REPLACE(types={"L": INT, "P": INT}), IN1=a, IN2=b, L=n, P=p)


def find(a, b):
    return out(blocks.FIND(), IN1=a, IN2=b)


# -------------------------------------------------------------------- LEN
@pytest.mark.parametrize("s, want", [("", 0), ("ASTRING", 7), ("x" * 126, 126)])
def test_len_counts_characters(s, want):
    assert out(blocks.LEN(), IN=s) == want


def test_len_and_find_give_int_unless_given_another_integer_type():
    assert blocks.LEN().bound_types == {"I": INT} and blocks.FIND().bound_types == {"I": INT}
    assert blocks.LEN(DINT).bound_types == {"I": DINT} and blocks.FIND(USINT).bound_types == {"I": USINT}
    assert out(blocks.LEN(ULINT), IN="abc") == 3


# ----------------------------------------------------------- LEFT, RIGHT
@pytest.mark.parametrize("n, want", [(3, "AST"), (0, ""), (-1, ""), (4, "ASTR"), (10, "ASTR")])
def test_left_takes_the_first_l_characters(n, want):
    assert left("ASTR", n) == want


@pytest.mark.parametrize("n, want", [(3, "STR"), (0, ""), (-2, ""), (4, "ASTR"), (10, "ASTR")])
def test_right_takes_the_last_l_characters(n, want):
    assert right("ASTR", n) == want


def test_left_and_right_of_the_empty_string():
    assert left("", 3) == "" and right("", 3) == ""


# -------------------------------------------------------------------- MID
@pytest.mark.parametrize("s, n, p, want", [
    ("ASTR", 2, 2, "ST"),        # IEC's example
    (ABC, 1, 1, "A"),
    (ABC, 5, 1, ABC),
    (ABC, 1, 5, "E"),
    (ABC, 10, 3, "CDE"),         # a span past the end stops at the end
    (ABC, 1, 6, ""),             # P past the end
    (ABC, 2, 0, ""),             # P before the start: nothing (not from position 1)
    (ABC, 2, -3, ""),
    (ABC, 0, 2, ""),
    (ABC, -1, 2, ""),
    ("", 1, 1, ""),
])
def test_mid_counts_positions_from_one(s, n, p, want):
    assert mid(s, n, p) == want


# ----------------------------------------------------------------- CONCAT
def test_concat_joins_in_order():
    assert out(blocks.CONCAT(), IN1="AB", IN2="CD") == "ABCD"


def test_concat_is_extensible():
    assert out(blocks.CONCAT(n=4), IN1="A", IN2="", IN3="BC", IN4="D") == "ABCD"


def test_concat_cuts_at_126_characters_as_matiec():
    # matiec (iec2c 6bb2c339df6f): CONCAT of 100 a's, 100 b's and 'c' is 100 a's and 26 b's
    got = out(blocks.CONCAT(n=3), IN1="a" * 100, IN2="b" * 100, IN3="c")
    assert got == "a" * 100 + "b" * 26


# ----------------------------------------------------------------- INSERT
@pytest.mark.parametrize("p, want", [
    (2, "ABXYC"),                # IEC's example: after the 2nd character
    (0, "XYABC"),
    (-5, "XYABC"),               # before the start: in front
    (1, "AXYBC"),
    (3, "ABCXY"),
    (99, "ABCXY"),               # past the end: appended
])
def test_insert_puts_in2_after_the_p_th_character(p, want):
    assert insert("ABC", "XY", p) == want


def test_insert_cuts_at_126_characters_as_matiec():
    # matiec: INSERT(100 a's, 100 b's, 50) is 50 a's and 76 b's
    assert insert("a" * 100, "b" * 100, 50) == "a" * 50 + "b" * 76


# ----------------------------------------------------------------- DELETE
@pytest.mark.parametrize("s, n, p, want", [
    ("ABXYC", 2, 3, "ABC"),      # IEC's example
    (ABC, 1, 1, "BCDE"),
    (ABC, 1, 5, "ABCD"),
    (ABC, 10, 4, "ABC"),         # a span past the end deletes to the end
    (ABC, 5, 1, ""),
    (ABC, 1, 6, ABC),            # P past the end: nothing to delete
    (ABC, 2, 0, ABC),            # P before the start: nothing deleted
    (ABC, 2, -1, ABC),
    (ABC, 0, 2, ABC),
    (ABC, -1, 2, ABC),
    ("", 1, 1, ""),
])
def test_delete_removes_l_characters_from_position_p(s, n, p, want):
    assert delete(s, n, p) == want


# ---------------------------------------------------------------- REPLACE
@pytest.mark.parametrize("a, b, n, p, want", [
    ("ABCDE", "X", 2, 3, "ABXE"),        # IEC's example
    ("SUXYSI", "K", 2, 3, "SUKSI"),
    (ABC, "XYZ", 1, 1, "XYZBCDE"),       # a longer replacement
    (ABC, "X", 0, 3, "ABXCDE"),          # L = 0: a pure insertion before P
    (ABC, "X", -2, 3, "ABXCDE"),         # L < 0 deletes nothing
    (ABC, "X", 10, 4, "ABCX"),           # replaces to the end
    (ABC, "", 2, 2, "ADE"),              # an empty IN2: a deletion
    (ABC, "X", 1, 5, "ABCDX"),
    (ABC, "X", 1, 6, "ABCDEX"),          # P past the end: appended
    (ABC, "X", 1, 99, "ABCDEX"),
    (ABC, "X", 2, 0, "XABCDE"),          # P before the start: in front
    (ABC, "X", 2, -3, "XABCDE"),
    ("", "X", 1, 1, "X"),
])
def test_replace_substitutes_l_characters_at_position_p(a, b, n, p, want):
    assert replace(a, b, n, p) == want


def test_replace_cuts_at_126_characters():
    assert replace("a" * 126, "bb", 1, 1) == "bb" + "a" * 124


# ------------------------------------------------------------------- FIND
@pytest.mark.parametrize("a, b, want", [
    ("ABCBC", "BC", 2),          # IEC's example
    ("ABC", "ABC", 1),
    ("ABC", "C", 3),
    ("ABC", "D", 0),
    ("AB", "ABC", 0),
    ("aA", "A", 2),              # case matters
    ("ABC", "", 0),              # nothing to find
    ("", "A", 0),
    ("", "", 0),
])
def test_find_gives_the_first_position_or_zero(a, b, want):
    assert find(a, b) == want


# ---------------------------------------------------- types of L and P
def test_lengths_take_any_integer_type_each_its_own():
    net = Network("mixed")
    s = net.input("s", STRING)
    n = net.input("n", UINT)
    p = net.input("p", DINT)
    m = net.add("m", blocks.MID(), IN=s, L=n, P=p)
    net.output("y", m.OUT)
    h = Harness(net)
    assert h.set(s=ABC, n=2, p=2).scan().get("y") == "BC"


def test_literal_lengths_default_to_int():
    net = Network("lits")
    s = net.input("s", STRING)
    m = net.add("m", blocks.LEFT(), IN=s, L=2)
    net.output("y", m.OUT)
    h = Harness(net)
    assert h.plc.program.signal("m.L").type is INT
    assert h.set(s=ABC).scan().get("y") == "AB"


def test_a_string_cannot_be_used_as_a_length():
    net = Network("bad")
    s = net.input("s", STRING)
    m = net.add("m", blocks.LEFT(), IN=s, L=s)
    net.output("y", m.OUT)
    with pytest.raises(ValidationError, match="ANY_INT"):
        Harness(net)


def test_len_feeds_left_through_inference():
    net = Network("chain")
    s = net.input("s", STRING)
    n = net.add("n", blocks.LEN(), IN=s)
    r = net.add("r", blocks.RIGHT(), IN=s, L=n.OUT)
    net.output("y", r.OUT)
    h = Harness(net)
    assert h.set(s=ABC).scan().get("y") == ABC


@pytest.mark.parametrize("tp, big", [(ULINT, 18446744073709551615), (LINT, -9223372036854775808),
                                     (UDINT, 4294967295), (SINT, -128)])
def test_huge_lengths_and_positions_do_not_raise(tp, big):
    h = Harness.block(blocks.MID(types={"L": tp, "P": tp}))
    assert h.set(IN=ABC, L=big, P=big).scan().get("OUT") == ""
    h = Harness.block(blocks.LEFT(tp))
    assert h.set(IN=ABC, L=big).scan().get("OUT") == (ABC if big > 0 else "")


# ------------------------------------- identities and never an exception
STRINGS = ["", "A", "ABCDE", "x" * 126]
NUMBERS = [-32768, -1, 0, 1, 2, 3, 5, 6, 253, 254, 255, 32767]


def test_replace_is_insert_of_delete_as_iec_defines_it():
    """REPLACE(IN1, IN2, L, P) = INSERT(DELETE(IN1, L, P), IN2, P - 1), built from blocks."""
    net = Network("same")
    a, b = net.input("a", STRING), net.input("b", STRING)
    n, p = net.input("n", INT), net.input("p", DINT)  # DINT: P - 1 must not wrap
    rep = net.add("rep", blocks.REPLACE(), IN1=a, IN2=b, L=n, P=p)
    dele = net.add("dele", blocks.DELETE(), IN=a, L=n, P=p)
    p1 = net.add("p1", blocks.SUB(), IN1=p, IN2=1)
    ins = net.add("ins", blocks.INSERT(), IN1=dele.OUT, IN2=b, P=p1.OUT)
    net.output("replaced", rep.OUT)
    net.output("composed", ins.OUT)
    h = Harness(net)
    for a_, b_, n_, p_ in itertools.product(STRINGS, ["", "XY"], NUMBERS, NUMBERS):
        h.set(a=a_, b=b_, n=n_, p=p_).scan()
        assert h.get("replaced") == h.get("composed"), (a_, b_, n_, p_)


def test_mid_and_delete_split_a_string_in_two():
    """Where P is a position in IN, DELETE keeps exactly the characters MID takes out."""
    net = Network("split")
    s, n, p = net.input("s", STRING), net.input("n", INT), net.input("p", INT)
    net.output("taken", net.add("m", blocks.MID(), IN=s, L=n, P=p).OUT)
    net.output("kept", net.add("d", blocks.DELETE(), IN=s, L=n, P=p).OUT)
    h = Harness(net)
    for s_, n_, p_ in itertools.product(STRINGS, NUMBERS, NUMBERS):
        if n_ > 0 and 1 <= p_ <= len(s_):
            h.set(s=s_, n=n_, p=p_).scan()
            kept = h.get("kept")
            assert kept[:p_ - 1] + h.get("taken") + kept[p_ - 1:] == s_, (s_, n_, p_)


STRING_BLOCKS = [n for n, c in registry().items() if c.family == "strings"]


def test_the_family_is_complete():
    assert sorted(STRING_BLOCKS) == sorted(
        ["LEN", "LEFT", "RIGHT", "MID", "CONCAT", "INSERT", "DELETE", "REPLACE", "FIND"])


@pytest.mark.parametrize("name", STRING_BLOCKS)
def test_no_block_raises_and_results_fit_a_string(name):
    """And the block-by-block interpreter, running the same code, agrees."""
    cls = registry()[name]
    block = cls(types={v: INT for v in cls.types})
    h = Harness.block(block)
    ports = block.input_ports()
    choices = [STRINGS if p.type is STRING else NUMBERS for p in ports]
    ref = Interpreter(h.plc.program)  # the same code text, run object by object
    for values in itertools.product(*choices):
        for p, v in zip(ports, values):
            h.set({p.name: v})
            ref.set(p.name, v)
        got = h.scan().get("OUT")
        ref.scan()
        assert ref.get("OUT") == got, (name, values)
        if block.output_ports()[0].type is STRING:
            assert isinstance(got, str) and len(got) <= STRING_MAX, (name, values)
        else:
            assert isinstance(got, int) and 0 <= got <= STRING_MAX, (name, values)


def test_every_block_has_a_one_line_summary():
    for name in STRING_BLOCKS:
        summary = registry()[name].summary()
        assert summary and len(summary) < 110, name


# ------------------------------------------- a longer STRING[n] as an argument
LONG = "abcdefghij" * 15


@pytest.mark.parametrize("block, inputs, want", [
    (blocks.LEN(), {"IN": LONG}, 126),
    (blocks.LEFT(), {"IN": LONG, "L": 200}, LONG[:126]),
    (blocks.RIGHT(), {"IN": LONG, "L": 3}, LONG[123:126]),
    (blocks.MID(), {"IN": LONG, "L": 10, "P": 120}, LONG[119:126]),
    (blocks.CONCAT(), {"IN1": LONG, "IN2": "x"}, LONG[:126]),
    (blocks.INSERT(), {"IN1": LONG, "IN2": "xy", "P": 0}, ("xy" + LONG)[:126]),
    (blocks.DELETE(), {"IN": LONG, "L": 1, "P": 1}, LONG[1:126]),
    (blocks.REPLACE(), {"IN1": LONG, "IN2": "xy", "L": 2, "P": 1}, "xy" + LONG[2:126]),
    (blocks.FIND(), {"IN1": LONG, "IN2": LONG[130:133]}, 1),   # 'abc' first at 1
    (blocks.FIND(), {"IN1": "x" * 130 + "y", "IN2": "y"}, 0),  # past the 126th: not seen
])
def test_a_longer_declared_string_is_read_as_its_first_126_characters(block, inputs, want):
    """As matiec's C passes it to a STRING parameter, and as the ST call does."""
    net = Network("longer")
    ports = {name: net.input(name, string_of(200) if isinstance(v, str) else INT)
             for name, v in inputs.items()}
    net.output("OUT", net.add("f", block, **ports).OUT)
    h = Harness(net)
    h.set(**inputs).scan()
    assert h.get("OUT") == want


@pytest.mark.parametrize("conversion, read", [
    ("STRING_TO_INT", 0), ("STRING_TO_DINT", 0), ("STRING_TO_REAL", 0.0),
    ("STRING_TO_BOOL", False), ("STRING_TO_TIME", timedelta(0)),
    ("STRING_TO_DATE", date(1970, 1, 1)),
])
def test_a_conversion_reads_a_longer_string_as_its_first_126_characters_in_a_diagram_as_in_st(
        conversion, read):
    """The 127th character is past what the STRING parameter holds: a diagram's
    conversion sees the ST call's text, not the whole STRING[200]."""
    text = "0" * 126 + "7"
    net = Network("longer")
    block = registry()[conversion]()
    net.output("OUT", net.add("c", block, IN=net.input("IN", string_of(200))).OUT)
    h = Harness(net)
    h.set(IN=text).scan()
    out_type = block.output_ports()[0].type
    st = load_st("x.st", text=f"PROGRAM prg VAR s : STRING[200]; r : {out_type}; END_VAR\n"
                              f"r := {conversion}(s); END_PROGRAM")
    hs = Harness(st.network("prg"))
    hs.write("prg.s", text)
    hs.scan()
    assert h.get("OUT") == hs.get("prg.r") == read  # the whole text would read 7 (s)
