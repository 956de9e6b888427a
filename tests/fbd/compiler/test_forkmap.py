"""map_in_two: the same results as a plain map, part of them computed in a forked child."""

import os
import threading
import time

import pytest

from fbd.compiler import forkmap
from fbd.compiler.forkmap import map_in_two

PARENT = os.getpid()


def _pid_and_code(x):
    return os.getpid(), compile(f"y = {x} * 2", "<test>", "exec")


def test_this_process_and_a_child_share_the_items_and_results_keep_their_order(tmp_path):
    def pid_and_code_once_both_work(x):
        # Each side holds its first item until the other has taken one too, however
        # long the fork takes on a busy machine: without it either side could take
        # every item before the other runs.
        (tmp_path / ("parent" if os.getpid() == PARENT else "child")).touch()
        deadline = time.monotonic() + 60
        while not ((tmp_path / "parent").exists() and (tmp_path / "child").exists()) \
                and time.monotonic() < deadline:
            time.sleep(0.001)
        return _pid_and_code(x)

    items = list(range(2 * forkmap.MIN_ITEMS))
    results = map_in_two(pid_and_code_once_both_work, items)
    if threading.active_count() > 1:
        pytest.skip("another Python thread runs in this test process: map_in_two does not fork")
    pids = {pid for pid, _ in results}
    assert os.getpid() in pids and len(pids) == 2
    for x, (_pid, code) in zip(items, results):
        ns = {}
        exec(code, ns)
        assert ns["y"] == x * 2


def _double(x):
    return 2 * x


def test_more_items_than_the_queue_has_numbers_are_taken_in_batches():
    items = list(range(5 * forkmap._QUEUE_BYTES))
    assert map_in_two(_double, items) == [2 * x for x in items]



def _child_dies(x):
    if os.getpid() != PARENT:
        os._exit(3)  # the items it took are lost with it
    time.sleep(0.005)
    return x


def test_items_a_dead_child_took_are_computed_here():
    items = list(range(2 * forkmap.MIN_ITEMS))
    assert map_in_two(_child_dies, items) == items


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
