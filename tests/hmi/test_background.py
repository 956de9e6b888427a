"""BackgroundJob: slow work off the UI thread, the answer back on it."""

import threading

from PyQt6.QtCore import QTimer

from hmi.background import BackgroundJob


def _spin(n):
    total = 0
    for i in range(n):
        total += i
    return total, threading.current_thread().name


def test_the_result_arrives_on_the_ui_thread_and_the_ui_keeps_running(qtbot):
    job = BackgroundJob()
    got, ticks = [], []
    job.finished.connect(lambda result: got.append((result, threading.current_thread().name)))
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    assert job.start(_spin, 3_000_000)
    assert job.busy
    qtbot.waitUntil(lambda: bool(got), timeout=60_000)
    timer.stop()
    (total, worker), receiver = got[0]
    assert total == sum(range(3_000_000))
    assert worker == "hmi-background-job" and receiver == threading.main_thread().name
    assert ticks, "the event loop ran while the job was working"
    assert not job.busy
    assert threading.active_count() == 1, "the job's thread ends with the job"


def test_one_job_at_a_time(qtbot):
    job = BackgroundJob()
    release = threading.Event()
    done = []
    job.finished.connect(done.append)
    assert job.start(release.wait, 10)
    assert not job.start(_spin, 10)
    release.set()
    qtbot.waitUntil(lambda: bool(done), timeout=60_000)
    assert done == [True]
    assert job.start(_spin, 10)
    qtbot.waitUntil(lambda: len(done) == 2, timeout=60_000)


def test_an_error_is_delivered_not_lost(qtbot):
    job = BackgroundJob()
    errors = []
    job.failed.connect(errors.append)
    job.start(int, "not a number")
    qtbot.waitUntil(lambda: bool(errors), timeout=60_000)
    assert isinstance(errors[0], ValueError) and "not a number" in str(errors[0])
    assert not job.busy
