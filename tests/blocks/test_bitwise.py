"""SHL, SHR, ROL, ROR: bit-exact at every width, counts out of range, BOOL, typing."""

import pytest

import blocks
import fbd
from fbd import (
    BOOL,
    BYTE,
    DWORD,
    INT,
    LINT,
    LWORD,
    REAL,
    SINT,
    UDINT,
    ULINT,
    USINT,
    WORD,
    Network,
    ValidationError,
    WiringError,
)
from fbd.testing import Harness

WIDTHS = [BYTE, WORD, DWORD, LWORD]
OPS = ("SHL", "SHR", "ROL", "ROR")


def reference(op: str, x: int, n: int, bits: int) -> int:
    """The documented semantics, written the slow obvious way: bit by bit."""
    mask = (1 << bits) - 1
    if op in ("SHL", "SHR"):
        if n < 0 or n >= bits:
            return 0
        for _ in range(n):
            x = (x << 1) & mask if op == "SHL" else x >> 1
        return x
    for _ in range(n % bits):  # Python's % is the mathematical modulo: never negative
        if op == "ROL":
            x = ((x << 1) & mask) | (x >> (bits - 1))
        else:
            x = (x >> 1) | ((x & 1) << (bits - 1))
    return x


def harness(name, tp, count=INT):
    return Harness.block(getattr(blocks, name)(tp, types={"TN": count}))


def outputs(h, pairs):
    got = []
    for x, n in pairs:
        h.set(IN=x, N=n)
        h.scan()
        got.append(h.get("OUT"))
    return got


def run(name, tp, x, n, count=INT):
    return outputs(harness(name, tp, count), [(x, n)])[0]


def compile_net(build):
    net = Network("bitwise_test")
    build(net)
    return Harness(net)


# ------------------------------------------------------------ exact widths
def test_shl_drops_bits_beyond_byte_width():
    assert run("SHL", BYTE, 0b1000_0001, 1) == 0b0000_0010
    assert run("SHL", BYTE, 0xFF, 4) == 0xF0


def test_shl_drops_bits_beyond_word_width():
    assert run("SHL", WORD, 0x8001, 1) == 0x0002
    assert run("SHL", WORD, 0x1234, 8) == 0x3400


def test_shl_keeps_bits_a_wider_type_has_room_for():
    # CODESYS's own example: the same value and count, different widths.
    assert run("SHL", BYTE, 0x45, 2) == 0x14
    assert run("SHL", WORD, 0x45, 2) == 0x0114


def test_shr_is_logical_and_never_extends_the_sign():
    assert run("SHR", BYTE, 0x80, 1) == 0x40
    assert run("SHR", WORD, 0x45, 2) == 0x11
    assert run("SHR", LWORD, 1 << 63, 63) == 1


def test_rol_moves_the_top_bit_to_the_bottom():
    assert run("ROL", BYTE, 0b1000_0001, 1) == 0b0000_0011
    assert run("ROL", WORD, 0x8001, 4) == 0x0018
    assert run("ROL", DWORD, 0x8000_0000, 1) == 1


def test_ror_moves_the_bottom_bit_to_the_top():
    assert run("ROR", BYTE, 0b0000_0001, 1) == 0b1000_0000
    assert run("ROR", WORD, 0x0018, 4) == 0x8001
    assert run("ROR", LWORD, 1, 1) == 1 << 63


@pytest.mark.parametrize("tp", WIDTHS, ids=str)
@pytest.mark.parametrize("name", OPS)
def test_every_shift_and_rotation_matches_the_bitwise_reference(name, tp):
    bits = tp.bits
    top = 1 << (bits - 1)
    values = [0, 1, top, top | 1, tp.max, 0x5A5A_5A5A_5A5A_5A5A & tp.max]
    counts = [-bits - 1, -bits, -3, -1, 0, 1, 2, bits - 1, bits, bits + 1, bits + 7,
              2 * bits + 3, 1000]
    pairs = [(x, n) for x in values for n in counts]
    got = outputs(harness(name, tp), pairs)
    assert got == [reference(name, x, n, bits) for x, n in pairs]
    assert all(0 <= v <= tp.max for v in got)


# ----------------------------------------------------------- count range
@pytest.mark.parametrize("tp", WIDTHS, ids=str)
def test_shift_by_width_or_more_gives_zero(tp):
    h = harness("SHL", tp)
    assert outputs(h, [(tp.max, tp.bits), (tp.max, tp.bits + 1), (1, 32767)]) == [0, 0, 0]
    h = harness("SHR", tp)
    assert outputs(h, [(tp.max, tp.bits), (tp.max, tp.bits + 1), (1, 32767)]) == [0, 0, 0]


@pytest.mark.parametrize("name", ["SHL", "SHR"])
def test_shift_by_a_negative_count_gives_zero(name):
    assert outputs(harness(name, WORD), [(0xFFFF, -1), (0x1234, -16), (1, -32768)]) == [0, 0, 0]


@pytest.mark.parametrize("name", OPS)
def test_count_zero_passes_the_input_unchanged(name):
    assert run(name, DWORD, 0xDEAD_BEEF, 0) == 0xDEAD_BEEF


@pytest.mark.parametrize("tp", WIDTHS, ids=str)
def test_rotation_by_the_width_is_the_identity_and_wraps_modulo_width(tp):
    x = 0x0123_4567_89AB_CDEF & tp.max
    for name in ("ROL", "ROR"):
        h = harness(name, tp)
        got = outputs(h, [(x, tp.bits), (x, 2 * tp.bits), (x, tp.bits + 3), (x, 3)])
        assert got[0] == got[1] == x
        assert got[2] == got[3]


def test_rotation_by_a_negative_count_turns_the_other_way():
    for n in (1, 3, 7, 9):
        assert run("ROL", BYTE, 0b1001_0110, -n) == run("ROR", BYTE, 0b1001_0110, n)
        assert run("ROR", WORD, 0xF00D, -n) == run("ROL", WORD, 0xF00D, n)


def test_huge_counts_of_wide_integer_types_are_cheap_and_safe():
    # A 2**62-bit shift must not be attempted: the guard decides before shifting.
    assert run("SHL", LWORD, 1, LINT.max, LINT) == 0
    assert run("SHR", LWORD, LWORD.max, ULINT.max, ULINT) == 0
    assert run("SHL", LWORD, 1, LINT.min, LINT) == 0
    assert run("ROL", LWORD, 1, LINT.max, LINT) == reference("ROL", 1, LINT.max, 64)
    assert run("ROR", LWORD, 1, LINT.min, LINT) == reference("ROR", 1, LINT.min, 64)


@pytest.mark.parametrize("count", [SINT, USINT, INT, UDINT, LINT, ULINT], ids=str)
def test_the_count_may_be_any_integer_type(count):
    assert run("SHL", WORD, 1, 15, count) == 0x8000
    assert run("ROR", WORD, 1, 1, count) == 0x8000


# ------------------------------------------------------------------ BOOL
@pytest.mark.parametrize("name", ["SHL", "SHR"])
def test_bool_shift_keeps_the_bit_only_for_count_zero(name):
    h = harness(name, BOOL)
    got = outputs(h, [(True, 0), (True, 1), (True, -1), (True, 100), (False, 0)])
    assert got == [True, False, False, False, False]
    assert all(type(v) is bool for v in got)


@pytest.mark.parametrize("name", ["ROL", "ROR"])
def test_bool_rotation_never_changes_the_bit(name):
    h = harness(name, BOOL)
    got = outputs(h, [(True, 0), (True, 1), (True, -5), (False, 3)])
    assert got == [True, True, True, False]
    assert all(type(v) is bool for v in got)


# ----------------------------------------------------------------- typing
def test_shift_types_come_from_the_wires_and_a_literal_count_is_an_int():
    def build(net):
        shl = net.add("shl", blocks.SHL(), IN=net.input("w", WORD), N=4)
        rol = net.add("rol", blocks.ROL(), IN=shl.OUT, N=net.input("n", USINT))
        net.output("y", rol.OUT)
    h = compile_net(build)
    sig = h.plc.program.signal
    assert sig("shl.OUT").type is WORD and sig("y").type is WORD
    assert sig("shl.N").type is INT and sig("rol.N").type is USINT
    # 0x0F01 << 4 = 0xF010 (the top nibble lost), then rotated left by 4: 0x010F
    h.run([({"w": 0x0F01, "n": 4}, {"y": 0x010F}),
           ({"w": 0x0001, "n": 0}, {"y": 0x0010})])


def test_shifting_an_integer_is_an_error_naming_the_family():
    def build(net):
        net.output("y", net.add("shl", blocks.SHL(), IN=net.input("i", INT), N=1).OUT)
    with pytest.raises(ValidationError, match=r"shl \(SHL\): needs ANY_BIT, but is wired to INT"):
        compile_net(build)


def test_the_count_must_be_an_integer():
    def build(net):
        net.output("y", net.add("ror", blocks.ROR(), IN=net.input("w", BYTE),
                                N=net.input("r", REAL)).OUT)
    with pytest.raises(ValidationError, match=r"ror \(ROR\): needs ANY_INT, but is wired to REAL"):
        compile_net(build)


def test_a_count_literal_that_is_not_an_integer_is_reported():
    def untyped(net):
        net.output("y", net.add("shr", blocks.SHR(WORD), IN=net.input("w", WORD), N=1.5).OUT)
    with pytest.raises(ValidationError, match="cannot infer type TN of SHR"):
        compile_net(untyped)

    def typed(net):
        net.output("y", net.add("shr", blocks.SHR(WORD, types={"TN": INT}),
                                IN=net.input("w", WORD), N=1.5).OUT)
    with pytest.raises(ValidationError, match=r"shr\.N: 1\.5 is not an INT"):
        compile_net(typed)


def test_count_type_given_explicitly_must_be_an_integer():
    with pytest.raises(WiringError, match="type TN must be one of ANY_INT"):
        blocks.SHL(WORD, types={"TN": REAL})


def test_shift_ports_are_in_and_n():
    blk = blocks.ROL(LWORD, types={"TN": INT})
    assert [(p.name, p.type) for p in blk.input_ports()] == [("IN", "T"), ("N", "TN")]
    assert [(p.name, p.type) for p in blk.output_ports()] == [("OUT", "T")]


def test_generated_code_is_guarded_conditional_expressions():
    code = harness("SHL", WORD).plc.program.leaf_code(0)
    (line,) = code
    assert " if " in line and " and " not in line and "<<" in line and "& 65535" in line
    code = harness("ROR", LWORD).plc.program.leaf_code(0)
    assert len(code) == 2 and "% 64" in code[0]


# ----------------------------------------------------------- registration
@pytest.mark.parametrize("name", OPS)
def test_every_shift_is_registered_in_its_family_with_a_summary(name):
    cls = fbd.registry()[name]
    assert cls is getattr(blocks, name)
    assert cls.family == "bitwise"
    assert cls.summary() and "\n" not in cls.summary()
    assert "Ports::" in cls.__doc__ and "TN: ANY_INT" in cls.__doc__
