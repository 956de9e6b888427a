"""The timing study script runs and its figures hold what the design promises."""

import io
from contextlib import redirect_stderr, redirect_stdout

from programs.game2048.timing import main, percentile, play


def test_smart_placement_is_processing_plus_one_scan():
    for processing, most in (("single_pass", 1), ("multi_scan", 4)):
        proc, total, noops, games, _plc = play(processing, "smart", 60, seed=2)
        assert len(proc) == len(total) == 60 and games >= 1
        assert max(proc) <= most
        assert all(t == p + 1 for p, t in zip(proc, total))


def test_article_placement_retries():
    proc, total, _noops, _games, _plc = play("single_pass", "article", 200, seed=2)
    assert set(proc) == {1} and max(total) > 2


def test_the_script_prints_a_table():
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["--moves", "20", "--timed-scans", "100"]) == 0
    text = out.getvalue()
    for label in ("single_pass/article", "single_pass/smart", "multi_scan/article",
                  "multi_scan/smart"):
        assert text.count(label) == 2
    assert "+ placement" in text and "timing:" in err.getvalue()


def test_percentile():
    assert percentile(range(1, 101), 95) == 95
    assert percentile([7], 95) == 7
