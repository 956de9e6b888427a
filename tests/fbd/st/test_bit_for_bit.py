"""An ST operator and the library block of the same name agree bit for bit:
each pair runs side by side in one network on the same inputs."""

import functools
import math

from hypothesis import given, settings
from hypothesis import strategies as st_

import blocks
import fbd
from fbd import types as t
from fbd.st import compile_unit, parse
from fbd.testing import Harness

TYPES = [t.SINT, t.INT, t.DINT, t.LINT, t.USINT, t.UINT, t.UDINT, t.ULINT, t.REAL, t.LREAL]
OPS = {"+": blocks.ADD, "-": blocks.SUB, "*": blocks.MUL, "/": blocks.DIV, "MOD": blocks.MOD}


@functools.lru_cache(maxsize=None)
def pair(op: str, tp: t.DataType) -> Harness:
    text = f"""FUNCTION F : {tp.name}
VAR_INPUT a, b : {tp.name}; END_VAR
  F := a {op} b;
END_FUNCTION"""
    st_block = compile_unit(parse(text, "op.st"))["F"]
    net = fbd.Network("pair")
    a, b = net.input("A", tp, tp.default), net.input("B", tp, tp.default)
    net.output("ST", net.add("st", st_block(), a=a, b=b).OUT)
    net.output("LIB", net.add("lib", OPS[op](tp), IN1=a, IN2=b).OUT)
    return Harness(net)


def values(tp):
    if tp.kind is t.Kind.REAL:
        return st_.floats(allow_nan=True, allow_infinity=True, width=32 if tp is t.REAL else 64)
    return st_.integers(tp.min, tp.max)


def same(x, y) -> bool:
    if isinstance(x, float):
        return (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))
    return x == y


@settings(max_examples=60, deadline=None)
@given(st_.data())
def test_st_arithmetic_equals_the_library_blocks(data):
    tp = data.draw(st_.sampled_from(TYPES))
    op = data.draw(st_.sampled_from([o for o in OPS if o != "MOD" or tp.kind is t.Kind.INT]))
    h = pair(op, tp)
    a, b = data.draw(values(tp)), data.draw(values(tp))
    h.set(A=a, B=b).scan()
    assert same(h.get("ST"), h.get("LIB")), (op, tp, a, b)
