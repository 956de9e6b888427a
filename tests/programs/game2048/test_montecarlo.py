"""The Monte-Carlo study: random games in one batch of the block program,
the same games on both batch engines and as Dask jobs, the table, the CSV and
the PNG it writes."""

import hashlib

import numpy as np
import pytest

from programs.game2048 import montecarlo
from programs.game2048.montecarlo import main, play_blocks
from programs.game2048.reference import play


def test_every_game_ends_over_with_a_sane_score_and_tile():
    games = play_blocks(16, "smart", seed=3, batch=8)
    assert (games["presses"] >= games["moves"]).all() and (games["moves"] > 10).all()
    assert set(games["tile"].tolist()) <= {1 << k for k in range(3, 12)}
    # every merge scores its tile: a game's score is at least its highest tile
    assert (games["score"] >= games["tile"]).all() and (games["score"] % 4 == 0).all()


def test_both_batch_engines_play_the_same_games():
    pytest.importorskip("llvmlite")
    # 20 games: a native tile of 16 and a padded one; the article's retries too
    for placement in ("smart", "article"):
        native = play_blocks(20, placement, seed=5, engine="native")
        numpy = play_blocks(20, placement, seed=5, engine="numpy")
        for key in native:
            assert native[key].tolist() == numpy[key].tolist(), (placement, key)
        assert len(set(native["scans"].tolist())) > 5    # games of their own lengths


def test_on_dask_each_batch_is_a_job_and_the_games_are_the_same(monkeypatch):
    # the sweep itself is tested on a LocalCluster in tests/fbd/batch/test_sweep.py;
    # here its jobs run in this process, to check the split and the joining
    import fbd.batch.sweep
    specs_seen = []

    def inline(job, specs, **options):
        specs_seen.extend(specs)
        return [job(spec) for spec in specs]
    monkeypatch.setattr(fbd.batch.sweep, "sweep", inline)
    on_dask = montecarlo.play_blocks_on_dask(10, "smart", "single_pass", 9, 5, None, 2)
    here = play_blocks(10, "smart", seed=9, batch=5)
    assert [s["first"] for s in specs_seen] == [0, 5]
    for key in here:
        assert on_dask[key].tolist() == here[key].tolist(), key


def test_the_command_writes_the_table_the_games_and_the_plot(tmp_path, capsys):
    assert main(["--games", "24", "--batch", "12", "--placement", "smart", "--seed", "2",
                 "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "score blocks" in text and "moves per game reference" in text and "s.e." in text
    assert (tmp_path / "montecarlo-smart.txt").read_text().startswith("2048 Monte-Carlo")
    rows = (tmp_path / "montecarlo-smart.csv").read_text().splitlines()
    assert rows[0] == "engine,game,score,highest_tile,moves,presses" and len(rows) == 1 + 2 * 24
    assert (tmp_path / "montecarlo-smart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_arguments_are_one_line(capsys):
    assert main(["--games", "0"]) == 2
    assert capsys.readouterr().err.startswith("fbd: error: --games")


def test_the_reference_plays_to_the_end():
    score, tile, moves, presses = play(__import__("random").Random(1))
    assert moves <= presses and tile >= 16 and score >= tile
    assert montecarlo.summary(np.array([1, 2, 3]))["median"] == 2


def _digest(games: dict) -> str:
    columns = np.stack([games[k] for k in ("score", "tile", "moves", "presses", "scans")])
    return hashlib.sha256(columns.astype("<i8").tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("placement, batch, digest, score, scans", [
    ("smart", 16, "14ff157017f0114c", 39636, 10916),      # three batches, the last one padded
    ("article", 40, "b923f59c6fd862a4", 50712, 30888),
])
def test_the_study_plays_the_games_it_always_played(placement, batch, digest, score, scans):
    # recorded before the player drew its arrows in blocks and read the final
    # boards at the end: its speed must not change the games
    games = play_blocks(40, placement, seed=7, batch=batch)
    assert (int(games["score"].sum()), int(games["scans"].sum())) == (score, scans)
    assert _digest(games) == digest


def test_the_native_study_retires_whole_tiles_once_their_games_are_over(monkeypatch):
    from fbd.batch import BatchHarness
    calls = []

    def retire(h, instances):
        calls.append((h.scans, np.flatnonzero(instances), h.get("GAME_OVER")))
        return real(h, instances)
    real = BatchHarness.retire
    monkeypatch.setattr(BatchHarness, "retire", retire)
    games = play_blocks(64, "smart", seed=7, batch=64, engine="native")
    last_of_tile = games["scans"].reshape(-1, 16).max(axis=1)
    assert len(calls) == 4 and len(set(last_of_tile.tolist())) == 4
    for scans, instances, over in calls:
        tile = instances[0] // 16
        assert instances.tolist() == list(range(16 * tile, 16 * tile + 16))
        assert over[instances].all() and scans == last_of_tile[tile]   # not a scan late


def test_arrows_drawn_in_blocks_are_the_arrows_drawn_press_round_by_round():
    sizes = [3, 0, 5, 1, 4096, 7, 60_000, 33, 9_999]    # odd sizes, and past a block
    one_by_one = np.random.default_rng([7, 0])
    arrows = montecarlo._Arrows(np.random.default_rng([7, 0]))
    for k in sizes:
        assert arrows.next(k).tolist() == one_by_one.integers(1, 5, k).tolist(), k
