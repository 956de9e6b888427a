"""map_in_two: the same results as a plain map, half of them computed in a forked child."""

import os
import threading

import pytest

from fbd import forkmap
from fbd.forkmap import map_in_two


def _pid_and_code(x):
    return os.getpid(), compile(f"y = {x} * 2", "<test>", "exec")


def test_the_second_half_is_computed_by_a_child_and_results_keep_their_order():
    items = list(range(forkmap.MIN_ITEMS))
    results = map_in_two(_pid_and_code, items)
    pids = [pid for pid, _ in results]
    if threading.active_count() > 1:
        pytest.skip("another Python thread runs in this test process: map_in_two does not fork")
    assert set(pids[:len(items) // 2]) == {os.getpid()}
    assert os.getpid() not in pids[len(items) // 2:]
    for x, (_pid, code) in zip(items, results):
        ns = {}
        exec(code, ns)
        assert ns["y"] == x * 2


def test_short_lists_and_the_off_switch_stay_in_this_process(monkeypatch):
    assert {pid for pid, _ in map_in_two(_pid_and_code, [1, 2, 3])} == {os.getpid()}
    monkeypatch.setenv("FBD_COMPILE_JOBS", "1")
    items = list(range(forkmap.MIN_ITEMS))
    assert {pid for pid, _ in map_in_two(_pid_and_code, items)} == {os.getpid()}


def _fails_on_last(x):
    if x == forkmap.MIN_ITEMS - 1:
        raise ValueError(f"item {x} is bad")
    return x


def _fails_on_first(x):
    if x == 0:
        raise ValueError("item 0 is bad")
    return x


@pytest.mark.parametrize("fn, says", [(_fails_on_last, f"item {forkmap.MIN_ITEMS - 1} is bad"),
                                      (_fails_on_first, "item 0 is bad")])
def test_an_error_in_either_half_is_raised_here_as_a_plain_map_would(fn, says):
    with pytest.raises(ValueError, match=says):
        map_in_two(fn, list(range(forkmap.MIN_ITEMS)))


class Boxed:
    def __init__(self, x):
        self.x = x


def test_a_result_marshal_cannot_carry_is_computed_here_instead():
    items = list(range(forkmap.MIN_ITEMS))
    results = map_in_two(Boxed, items)
    assert [box.x for box in results] == items
