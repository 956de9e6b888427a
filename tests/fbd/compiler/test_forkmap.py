"""map_in_two: the same results as a plain map, part of them computed in a forked child."""

import os
import threading
import time

import pytest

from fbd.compiler import forkmap
from fbd.compiler.forkmap import map_in_two

PARENT = os.getpid()


@pytest.fixture(autouse=True)
def _fork_whatever_the_load(monkeypatch):
    """A stream forks only where a core is free: these tests fork on a busy machine too."""
    monkeypatch.setenv("FBD_COMPILE_JOBS", "2")


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


def _stream(fn, items) -> list:
    with forkmap.Stream(fn) as stream:
        for x in items:
            stream.put(x)
        return stream.results()


def _no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_stream_hands_items_to_a_child_once_it_is_long_enough_and_keeps_their_order():
    items = list(range(12))
    results = _stream(_pid_and_code, items)
    if threading.active_count() > 1:
        pytest.skip("another Python thread runs in this test process: Stream does not fork")
    pids = [pid for pid, _ in results]
    # the items before the fork are computed here; the first after it is the child's
    assert pids[:forkmap.STREAM_FORK_AT - 1] == [PARENT] * (forkmap.STREAM_FORK_AT - 1)
    assert pids[forkmap.STREAM_FORK_AT - 1] != PARENT
    for x, (_pid, code) in zip(items, results):
        ns = {}
        exec(code, ns)
        assert ns["y"] == x * 2
    assert _no_child_left()


def test_a_short_stream_and_the_off_switch_stay_in_this_process(monkeypatch):
    assert {pid for pid, _ in _stream(_pid_and_code, [1])} == {PARENT}
    monkeypatch.setenv("FBD_COMPILE_JOBS", "1")
    assert {pid for pid, _ in _stream(_pid_and_code, range(12))} == {PARENT}


def test_items_and_results_larger_than_a_pipe_holds_pass_both_ways():
    # 3 MB each way: each side must read while the other writes, or both wait forever
    items = [chr(65 + k) * (3 << 20) for k in range(5)]
    assert _stream(str.lower, items) == [x.lower() for x in items]
    assert _no_child_left()


def test_items_a_dead_child_held_are_computed_here_and_it_is_not_replaced(monkeypatch):
    forks = []
    fork = forkmap._fork
    monkeypatch.setattr(forkmap, "_fork", lambda: forks.append(1) or fork())
    assert _stream(_child_dies, list(range(12))) == list(range(12))
    assert _no_child_left() and len(forks) <= 1


@pytest.mark.parametrize("fn, says", [(_fails_on_last, f"item {forkmap.MIN_ITEMS - 1} is bad"),
                                      (_fails_on_first, "item 0 is bad")])
def test_an_error_in_a_stream_is_raised_here_and_ends_the_child(fn, says):
    with pytest.raises(ValueError, match=says):
        _stream(fn, range(forkmap.MIN_ITEMS))
    assert _no_child_left()


def test_a_stream_result_marshal_cannot_carry_is_computed_here_instead():
    assert [box.x for box in _stream(Boxed, range(12))] == list(range(12))


def _stream_pids(x):
    return os.getpid(), tuple(sorted({pid for pid, _ in _stream(_pid_and_code, range(12))}))


def test_a_stream_inside_a_shared_map_forks_no_third_process():
    for pid, stream_pids in map_in_two(_stream_pids, list(range(forkmap.MIN_ITEMS))):
        assert stream_pids == (pid,)
    assert _no_child_left()


def test_a_stream_stays_in_this_process_where_no_core_is_free(monkeypatch):
    monkeypatch.setattr(forkmap, "core_free", lambda: False)
    assert {pid for pid, _ in _stream(_pid_and_code, range(12))} == {PARENT}


@pytest.mark.parametrize("average, running, free", [
    (1.4, 1, True), (1.6, 1, False),       # the last minute's load leaves no core
    (1.4, 2, False),                       # another task runs now (not yet in the average)
    (0.2, None, True)])                    # a system that does not say what runs now
def test_a_core_is_free_while_the_load_leaves_one_beside_this_process(monkeypatch, average,
                                                                      running, free):
    monkeypatch.delenv("FBD_COMPILE_JOBS")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(forkmap, "_load", lambda: (average, running))
    assert forkmap.core_free() is free
    monkeypatch.setenv("FBD_COMPILE_JOBS", "2")     # whatever the load
    assert forkmap.core_free()


def test_the_load_is_read_as_the_system_gives_it():
    average, running = forkmap._load()
    assert average >= 0.0 and (running is None or running >= 1)      # this process runs
