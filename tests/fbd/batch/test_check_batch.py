"""fbd.testing.check_batch and input_product: many cases in one batch against a reference."""

import pytest

import blocks
from fbd import BOOL, INT, Network
from fbd.testing import check_batch, input_product


def adder() -> Network:
    net = Network("Adder")
    a, b, go = net.input("A", INT), net.input("B", INT), net.input("GO", BOOL)
    s = net.add("sum", blocks.ADD(INT), IN1=a, IN2=b)
    ton = net.add("ton", blocks.TON(), IN=go, PT="T#10ms")
    net.output("S", s.OUT)
    net.output("LATE", ton.Q)
    return net


def test_input_product_is_every_combination():
    cases = input_product(A=[1, 2, 3], B=[10, 20])
    assert list(zip(cases["A"].tolist(), cases["B"].tolist())) == [
        (1, 10), (1, 20), (2, 10), (2, 20), (3, 10), (3, 20)]


def test_cases_run_in_chunks_and_wrap_as_the_block_does():
    values = [-32768, -1, 0, 1, 32767]
    n = check_batch(adder(), input_product(A=values, B=values),
                    lambda c: {"S": (c["A"] + c["B"] + 32768) % 65536 - 32768}, chunk=7)
    assert n == 25


def test_until_reads_each_case_when_its_signal_comes_and_fails_when_it_never_does():
    check_batch(adder(), {"A": [1, 2], "B": 3, "GO": True}, lambda c: {"S": c["A"] + 3},
                until="LATE")
    with pytest.raises(AssertionError, match=r"(?s)2 of 2 cases differ.*got \{'never': 'LATE'\}"):
        check_batch(adder(), {"A": [1, 2], "B": 3, "GO": True}, lambda c: {"S": 0},
                    until="LATE", max_scans=2)
