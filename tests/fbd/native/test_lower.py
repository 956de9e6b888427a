"""The translator from block code to IR: Python's integer and float semantics
on the values it sees, the library's wrap idioms recognised, every operation
total (no input makes the machine code fault), and anything it cannot
translate refused by name."""

import math

import pytest

import blocks
from fbd import BOOL, INT, LINT, LREAL, REAL, ULINT, Network, Plc, real32
from fbd.block import Block, Port, register
from fbd.native.lower import BlockLowering, NoNativeForm, Var, lower
from tests.fbd.native.agreement import same

pytest.importorskip("llvmlite")


def ir(code: str, **types) -> str:
    """The IR of ``code`` over inputs a, b (read-only) and output o."""
    variables = {}
    for k, (name, tp) in enumerate(types.items()):
        variables[name] = Var(name, k + 2, tp, name.startswith("o"))
    return "\n".join(lower(code, variables, {"math": math}).lines)


def test_the_signed_wrap_idiom_becomes_a_truncation():
    code = f"o = {INT.wrap('a * b')}"
    text = ir(code, a=INT, b=INT, o=INT)
    assert "trunc i64" in text and "to i16" in text and "select" not in text


def test_wrap_into_becomes_a_truncation_when_the_sum_is_within_one_width():
    code = "\n".join(INT.wrap_into("o", "a + b"))
    text = ir(code, a=INT, b=INT, o=INT)
    assert "to i16" in text and "icmp" not in text


@pytest.mark.parametrize("code, why", [
    ("o = [a][0]", "the expression"),
    ("o = a if a else 'x'", "constant of type str"),
    ("o.append(a)", "the statement"),
    ("o = a ** b", "integer operator Pow"),
    ("o = undefined", "the name 'undefined'"),
    ("a = 1", "assignment to the input"),
    ("o = round(a)", "the call"),
])
def test_what_cannot_be_translated_is_refused_by_name(code, why):
    with pytest.raises(NoNativeForm, match=why):
        ir(code, a=INT, b=INT, o=INT)


@register
class NATIVE_TEST_ARITH(Block):
    """Python integer semantics the library relies on, in one user block."""
    family = "test"
    inputs = [Port("A", LINT), Port("B", LINT)]
    outputs = [Port("FLOOR", LINT), Port("MOD", LINT), Port("SHR", LINT), Port("AND", LINT),
               Port("CMP", BOOL), Port("HALF", LREAL)]

    def code(self, io):
        a, b = io.A, io.B
        return [f"{io.FLOOR} = {LINT.wrap(f'{a} // {b}')} if {b} else 0",
                f"{io.MOD} = {a} % {b} if {b} else 0",
                f"{io.SHR} = {a} >> ({b} & 127) if {b} >= 0 else 0",
                f"{io.AND} = {a} & ~{b}",
                f"{io.CMP} = {a} * 3 > {b} * 2",
                f"{io.HALF} = {a} / 2"]


def _run(net, values):
    py, na = Plc(net, engine="python"), Plc(net, engine="native")
    out = []
    for a, b in values:
        for plc in (py, na):
            plc.set("A", a)
            plc.set("B", b)
            plc.scan()
        out.append((py, na))
        for port in ("FLOOR", "MOD", "SHR", "AND", "CMP", "HALF"):
            x, y = py.get(f"blk.{port}"), na.get(f"blk.{port}")
            assert same(x, y), (a, b, port, x, y)


def test_floor_division_modulo_shifts_and_big_intermediates_as_python():
    net = Network("arith")
    a, b = net.input("A", LINT), net.input("B", LINT)
    net.add("blk", NATIVE_TEST_ARITH(), A=a, B=b)
    lo, hi = LINT.min, LINT.max
    _run(net, [(7, 2), (-7, 2), (7, -2), (-7, -2), (lo, -1), (lo, 1), (hi, lo), (lo, lo),
               (hi, -1), (5, 0), (0, 0), (-1, 200), (lo, 63), (hi, 64), (2**53 + 1, 3),
               (-(2**53) - 1, 7), (hi, hi)])


def _wide_code(a: str, b: str, o: list, tmp: str) -> list:
    return [f"{o[k]} = ({a} {sign} {b}) {op} {other}" for k, (sign, op, other) in enumerate(
        [("-", ">=", a), ("-", "<", a), ("+", ">", a), ("+", "<=", a), ("-", "==", b),
         ("+", "!=", b)])] + [
        f"{o[6]} = {LINT.wrap(f'{a} + {b}')}", f"{tmp} = {a} - {b}",
        f"{o[7]} = {tmp} if {tmp} < 0 and {tmp} > {a} else 0"]


@register
class NATIVE_TEST_WIDE(Block):
    """Sums and differences of LINTs, which need 65 bits, compared and stored."""
    family = "test"
    inputs = [Port("A", LINT), Port("B", LINT)]
    outputs = [Port(f"O{k}", BOOL) for k in range(6)] + [Port("O6", LINT), Port("O7", LINT)]

    def code(self, io):
        return _wide_code(io.A, io.B, [getattr(io, f"O{k}") for k in range(8)], io.tmp())


def test_a_65_bit_sum_compares_exactly_in_64_bits_with_its_overflow_flag(monkeypatch):
    """``a - b`` and ``a + b`` of LINTs need 65 bits: compared with a 64-bit value,
    wrapped or narrowed into 64 bits they are an overflow intrinsic's low half and
    flag, with no i128 (which LLVM's fast instruction selector cannot take). The ST
    POUs' code asks for that form; here the FBD engine is made to, to run it."""
    monkeypatch.setattr(BlockLowering, "overflow_sums", True)
    types = {"a": LINT, "b": LINT, **{f"o{k}": BOOL for k in range(6)}, "o6": LINT, "o7": LINT}
    assert "i128" not in ir("\n".join(_wide_code("a", "b", [f"o{k}" for k in range(8)], "d")),
                            **types)
    net = Network("wide")
    net.add("blk", NATIVE_TEST_WIDE(), A=net.input("A", LINT), B=net.input("B", LINT))
    py, na = Plc(net, engine="python"), Plc(net, engine="native")
    lo, hi = LINT.min, LINT.max
    for a, b in [(lo, lo), (lo, hi), (hi, lo), (hi, hi), (lo, 1), (lo, -1), (hi, 1), (hi, -1),
                 (0, lo), (-1, lo), (-1, hi), (0, 0), (5, -3), (-(2**62), 2**62 + 1),
                 (lo, 2**62), (hi, -(2**62) - 1)]:
        for plc in (py, na):
            plc.set("A", a)
            plc.set("B", b)
            plc.scan()
        for k in range(8):
            assert same(py.get(f"blk.O{k}"), na.get(f"blk.O{k}")), (a, b, k)


def test_unsigned_64_bit_values_compare_and_convert_exactly():
    net = Network("u64")
    a, b = net.input("A", ULINT), net.input("B", ULINT)
    gt = net.add("gt", blocks.GT(ULINT), IN1=a, IN2=b)
    real = net.add("real", blocks.ULINT_TO_LREAL(), IN=a)
    add = net.add("add", blocks.ADD(ULINT), IN1=a, IN2=b)
    net.output("Q", gt.OUT)
    net.output("R", real.OUT)
    net.output("S", add.OUT)
    py, na = Plc(net, engine="python"), Plc(net, engine="native")
    top = ULINT.max
    for x, y in ((top, 1), (1, top), (2**63, 2**63 - 1), (top, top), (2**53 + 1, 0)):
        for plc in (py, na):
            plc.set("A", x)
            plc.set("B", y)
            plc.scan()
        assert (py.get("Q"), py.get("R"), py.get("S")) == (na.get("Q"), na.get("R"), na.get("S"))
        assert na.get("S") == (x + y) % 2**64 and na.get("Q") == (x > y)


def test_reals_rounding_becomes_fptrunc_to_float_and_back():
    """REAL's rounding (fbd.real32's split, with its fallback for what single
    precision holds with fewer bits) is C's cast: fptrunc, for every value."""
    text = "\n".join(lower(f"o = {REAL.wrap('a + b')}", {
        "a": Var("a", 2, REAL, False), "b": Var("b", 3, REAL, False),
        "o": Var("o", 4, REAL, True)}, dict(real32.NAMES)).lines)
    assert "fptrunc double" in text and "fpext float" in text and "call" not in text
    net = Network("reals")
    x, y = net.input("X", REAL), net.input("Y", LINT)
    net.output("S", net.add("s", blocks.MUL(REAL, n=3), IN1=x, IN2=x, IN3=0.1).OUT)
    net.output("L", net.add("l", blocks.LINT_TO_REAL(), IN=y).OUT)
    py, na = Plc(net, engine="python"), Plc(net, engine="native")
    for value, n in ((0.1, 2**60 + 2**36 + 1), (3e38, -(2**63)), (-1e-30, 16777217),
                     (math.nan, 1), (-math.inf, 0)):
        for plc in (py, na):
            plc.set("X", value)
            plc.set("Y", n)
            plc.scan()
        assert same(py.get("S"), na.get("S")) and py.get("L") == na.get("L"), (value, n)
