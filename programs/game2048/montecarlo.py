"""The Monte-Carlo study: thousands of random games of 2048 played at once, in blocks.

``python -m programs.game2048.montecarlo --games 10000 --placement smart|article``
``[--processing single_pass|multi_scan] [--seed S] [--batch N] [--reference-games N] [--out DIR]``
``[--engine auto|native|numpy] [--dask local|ADDRESS [--workers N]]``

The block program runs as one :class:`fbd.batch.BatchHarness` of up to
``--batch`` instances (4,096 by default; more games run in further batches
of the same compiled program), on the batch engine ``--engine`` chooses
(:class:`~fbd.batch.BatchHarness`'s: the native one where llvmlite is).
Each instance is its own game: its *Random* macro is seeded through the
``SEED`` input (``build(seed_input=True)``) with ``seed_offset(S + k)`` for
game k, and a random player presses arrows, each direction alike, from the
PLC's inputs (``CMD``, ``CMD_SEQ``) exactly as
:class:`~programs.game2048.Game2048` does: a new press on the scan after the
last command finished, until ``GAME_OVER``. The game logic, the spawns and
game over are the blocks'; the player only chooses directions.

The same games are played by the reference 2048 in Python
(:func:`programs.game2048.reference.play`: the same player, the original
game's spawns), and the two distributions are compared: score, highest
tile, moves per game (presses that moved), with the difference of the means
in standard errors. With ``--dask`` each batch is a
Dask job (:func:`fbd.batch.sweep.sweep`), on a local cluster or any
scheduler's; the games are the same either way. Written to ``--out`` (default ``.``):
``montecarlo-<placement>.txt`` (the table printed), ``.csv`` (one line per
game) and ``.png`` (the three distributions, blocks against reference).
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import math
import random
import sys
import threading
import time
from pathlib import Path

import numpy as np

from fbd.batch import BatchHarness
from fbd.batch.harness import ENGINES
from fbd.compiler import flatten
from fbd.errors import FbdError

from ..common.facade import SEQ_WRAP
from .control import COMMANDS
from .order import SIZE
from .placement import PLACEMENTS
from .plot import Canvas, bars, legend
from .processing import VARIANTS
from .program import build
from .reference import play
from .rng import seed_offset

CELLS = [f"CELL_{r}_{c}" for r in range(SIZE) for c in range(SIZE)]
#: Scans one batch may take before it is called stuck (a game is a few thousand).
MAX_SCANS = 200_000
STATS = ("score", "tile", "moves")
#: Arrows the player draws at a time (a batch presses a few hundred thousand).
ARROW_BLOCK = 1 << 16


def play_blocks(games: int, placement: str, processing: str = "single_pass", seed: int = 1,
                batch: int = 4096, progress=None, first: int = 0, engine: str = "auto") -> dict:
    """Play games ``first`` .. ``first + games - 1`` (random games, see the module
    docstring) in the block program, ``batch`` at a time; per game arrays of
    ``score``, ``tile`` (the highest), ``moves``, ``presses`` and ``scans``.
    Game k is the same game however the games are split into batches of
    ``batch``, here or on Dask (:func:`dask_job`)."""
    say = progress or (lambda text: None)
    size = max(1, min(batch, games))
    h = _harness(processing, placement, size, say, engine)
    out = {k: np.zeros(games, dtype=np.int64) for k in ("score", "tile", "moves", "presses", "scans")}
    for start in range(0, games, size):
        count = min(size, games - start)
        # padding the last batch: its last game again
        lanes = first + np.minimum(np.arange(start, start + size), games - 1)
        part = _play_batch(h, seed, lanes, count, say, games, start)
        for key, values in part.items():
            out[key][start:start + count] = values[:count]
    return out


_COMPILED = threading.local()


def _harness(processing: str, placement: str, size: int, say, engine: str) -> BatchHarness:
    """The batch program of this configuration, compiled once per thread (a
    Dask worker runs many jobs; its threads must not share one harness)."""
    cache = _COMPILED.__dict__.setdefault("harnesses", {})
    key = (processing, placement, size, engine)
    if key not in cache:
        say(f"compiling the program ({processing}, {placement}) for {size} instances")
        cache.clear()   # one at a time: a batch's arrays are the memory that counts
        cache[key] = h = BatchHarness(flatten(build(processing, placement, seed_input=True)),
                                      n=size, engine=engine)
        say(f"the {h.engine} batch engine: {h.engine_reason}")
    return cache[key]


def dask_job(spec: dict) -> dict:
    """One batch of :func:`play_blocks` (``spec``: its keyword arguments), for
    :func:`fbd.batch.sweep.sweep`."""
    return play_blocks(**spec)


def play_blocks_on_dask(games: int, placement: str, processing: str, seed: int, batch: int,
                        scheduler: str | None, workers: int, progress=None,
                        engine: str = "auto") -> dict:
    """:func:`play_blocks`, one Dask job per batch: on a local cluster of
    ``workers`` processes, or on the one whose scheduler is at ``scheduler``."""
    from fbd.batch.sweep import sweep
    # the job by its module's name: run as ``python -m`` this module is __main__,
    # which Dask workers cannot import
    job = importlib.import_module("programs.game2048.montecarlo").dask_job
    specs = [dict(games=min(batch, games - k), placement=placement, processing=processing,
                  seed=seed, batch=batch, first=k, engine=engine)
             for k in range(0, games, batch)]
    parts = sweep(job, specs, scheduler=scheduler, workers=workers, progress=progress)
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _play_batch(h: BatchHarness, seed: int, lanes: np.ndarray, count: int, say,
                games: int, done_before: int) -> dict:
    n = h.n
    arrows = _Arrows(np.random.default_rng([seed, int(lanes[0])]))   # per batch, by its first game
    h.reset()
    h.set(SEED=np.array([seed_offset(seed + int(k)) for k in lanes]))
    cmd = np.full(n, COMMANDS["start"], dtype=np.int16)
    seq = np.ones(n, dtype=np.int16)
    h.set(CMD=cmd, CMD_SEQ=seq)
    playing = np.ones(n, dtype=bool)
    pressed = np.zeros(n, dtype=bool)     # the command in progress is a press, not the start
    res = {k: np.zeros(n, dtype=np.int64) for k in ("score", "tile", "moves", "presses", "scans")}
    left = count                          # games of the batch still playing (not its padding)
    # whole tiles retire, once all their games are over: the scan skips only such
    # a tile, and retiring a game alone would copy its 1,115 values for nothing
    tile = h.tile_width                   # 0 on numpy, where a retire only costs
    tiles = np.arange(0, n, tile) if tile else None
    tiles_out = np.zeros(len(tiles), dtype=bool) if tile else None
    scans, shown = 0, time.monotonic()
    while left:
        h.scan()
        scans += 1
        ready = h.get("TAKEN") == seq     # the last press was taken ...
        ready &= playing
        ready &= ~h.get("BUSY")           # ... and finished
        if ready.any():
            over = h.get("GAME_OVER")
            res["moves"] += ready & pressed & h.get("MOVED")
            ended = ready & over
            if ended.any():
                # the final board stays as it is (no more presses): read at the end
                res["scans"][ended] = scans
                playing &= ~ended
                left -= int(np.count_nonzero(ended[:count]))
                if tile:
                    _retire_tiles_over(h, playing, tiles, tiles_out)
            go = ready & ~over
            press = np.flatnonzero(go)    # indices: a third of the cost of masks, used twice
            cmd[press] = arrows.next(len(press))
            seq[press] = seq[press] % SEQ_WRAP + 1
            pressed |= go
            res["presses"] += go
            h.set(CMD=cmd, CMD_SEQ=seq)
        if scans >= MAX_SCANS:
            raise FbdError(f"{left} games still running after {scans} scans")
        if time.monotonic() - shown > 2:
            shown = time.monotonic()
            say(f"blocks: {done_before + count - left} of {games} games over, scan {scans}")
    res["score"] = h.get("SCORE").astype(np.int64)
    res["tile"] = np.max([h.get(c) for c in CELLS], axis=0).astype(np.int64)
    return res


def _retire_tiles_over(h: BatchHarness, playing: np.ndarray, tiles: np.ndarray,
                       tiles_out: np.ndarray) -> None:
    """Retire the tiles (:attr:`~fbd.batch.BatchHarness.tile_width` games from
    ``tiles``' starts) whose games are all over and that are not retired yet
    (``tiles_out``, updated). A game over keeps its board and score (it gets no
    more presses), which is what the player reads at the end of the batch."""
    out = ~np.logical_or.reduceat(playing, tiles)
    out &= ~tiles_out
    if out.any():
        tiles_out |= out
        h.retire(np.repeat(out, h.tile_width)[:h.n])


class _Arrows:
    """The player's random directions: the values ``rng.integers(up, left + 1, k)``
    gives press round by press round, drawn from ``rng`` in blocks of
    :data:`ARROW_BLOCK`. The same values: numpy's generator hands out a bounded
    integer of a range of 4 as two bits of the next 32-bit half of its stream,
    and keeps the odd half for the next call, so one draw of m values is the
    concatenation of draws of any sizes adding up to m (a test pins the games)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.values = np.empty(0, dtype=np.int16)
        self.used = 0

    def next(self, k: int) -> np.ndarray:
        if self.used + k > len(self.values):
            fresh = self.rng.integers(COMMANDS["up"], COMMANDS["left"] + 1, max(k, ARROW_BLOCK))
            self.values = np.concatenate([self.values[self.used:], fresh.astype(np.int16)])
            self.used = 0
        self.used += k
        return self.values[self.used - k:self.used]


def play_python(games: int, seed: int = 1, progress=None) -> dict:
    """The same random games in the reference 2048 (Python)."""
    say = progress or (lambda text: None)
    out = {k: np.zeros(games, dtype=np.int64) for k in ("score", "tile", "moves", "presses")}
    shown = time.monotonic()
    for k in range(games):
        score, tile, moves, presses = play(random.Random(seed * 1_000_003 + k))
        out["score"][k], out["tile"][k], out["moves"][k], out["presses"][k] = score, tile, moves, presses
        if time.monotonic() - shown > 2:
            shown = time.monotonic()
            say(f"reference: {k + 1} of {games} games")
    return out


def summary(values: np.ndarray) -> dict:
    v = np.asarray(values, dtype=np.float64)
    return {"mean": v.mean(), "sd": v.std(ddof=1) if len(v) > 1 else 0.0, "min": v.min(),
            "p10": np.percentile(v, 10), "median": np.median(v), "p90": np.percentile(v, 90),
            "max": v.max()}


def table(blocks: dict, ref: dict, title: str) -> str:
    lines = [title, "",
             f"{'':26s}{'mean':>10s}{'sd':>9s}{'min':>8s}{'p10':>8s}{'median':>8s}{'p90':>8s}"
             f"{'max':>8s}   difference of the means"]
    names = {"score": "score", "tile": "highest tile", "moves": "moves per game"}
    for key in STATS:
        a, b = summary(blocks[key]), summary(ref[key])
        se = math.sqrt(a["sd"] ** 2 / len(blocks[key]) + b["sd"] ** 2 / len(ref[key])) or 1.0
        for who, s in (("blocks", a), ("reference", b)):
            row = f"{names[key] + ' ' + who:26s}{s['mean']:10.1f}{s['sd']:9.1f}"
            row += "".join(f"{s[q]:8.0f}" for q in ("min", "p10", "median", "p90", "max"))
            if who == "blocks":
                row += f"   {a['mean'] - b['mean']:+.1f} = {(a['mean'] - b['mean']) / se:+.1f} s.e."
            lines.append(row)
    lines += ["", "games reaching a tile     blocks  reference"]
    for tile in _tiles(blocks, ref):
        lines.append(f"  {tile:>6d}              {np.mean(blocks['tile'] >= tile):7.1%}    "
                     f"{np.mean(ref['tile'] >= tile):7.1%}")
    if "scans" in blocks:
        s = summary(blocks["scans"])
        lines += ["", f"scans per game (blocks): mean {s['mean']:.0f}, median {s['median']:.0f}, "
                      f"max {s['max']:.0f}"]
    return "\n".join(lines)


def _tiles(blocks: dict, ref: dict) -> list:
    top = int(max(blocks["tile"].max(), ref["tile"].max()))
    return [1 << k for k in range(5, top.bit_length())]


def figure(blocks: dict, ref: dict, path, title: str) -> None:
    """The three distributions as grouped bars, blocks against reference (PNG)."""
    canvas = Canvas(1500, 520)
    canvas.text(750, 12, title, scale=3, anchor="centre")
    legend(canvas, 1040, 50, [f"blocks ({len(blocks['score'])} games)",
                              f"python reference ({len(ref['score'])} games)"])
    panels = [(0, "score"), (500, "highest tile"), (1000, "moves per game")]
    for (x, name), key in zip(panels, STATS):
        if key == "tile":
            labels = sorted(set(blocks["tile"].tolist()) | set(ref["tile"].tolist()))
            series = [[100 * np.mean(d["tile"] == t) for t in labels] for d in (blocks, ref)]
        else:
            width = _nice(max(blocks[key].max(), ref[key].max()) / 10)
            edges = np.arange(0, 11) * width
            labels = [f"{int(e)}" for e in edges[:-1]]
            series = [list(100 * np.histogram(d[key], edges)[0] / len(d[key])) for d in (blocks, ref)]
        bars(canvas, (x, 110, 500, 400), name, labels, series)
    canvas.save(path)


def _nice(v: float) -> int:
    """A bin width of 1, 2 or 5 times a power of ten, at least ``v``."""
    p = 10 ** max(0, int(math.floor(math.log10(max(v, 1)))))
    return next(m * p for m in (1, 2, 5, 10) if m * p >= v)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m programs.game2048.montecarlo",
                                description="random games of 2048 in blocks, at once, "
                                            "against the Python reference")
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--placement", choices=PLACEMENTS, default="smart")
    p.add_argument("--processing", choices=VARIANTS, default="single_pass")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=4096, help="instances per batch (4096)")
    p.add_argument("--reference-games", type=int, default=None,
                   help="games of the Python reference (default: as many)")
    p.add_argument("--out", default=".", help="directory for the .txt, .csv and .png")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="the batch engine (auto: native where llvmlite is, else numpy)")
    p.add_argument("--dask", metavar="local|ADDRESS", default=None,
                   help="run the batches on Dask: a local cluster, or the scheduler at ADDRESS "
                        "(tcp://host:8786); needs pip install -e '.[dask]'")
    p.add_argument("--workers", type=int, default=2, help="workers of the local Dask cluster (2)")
    args = p.parse_args(argv)

    def say(text):
        print(f"montecarlo: {text}", file=sys.stderr, flush=True)
    try:
        if args.games < 1 or args.batch < 1:
            raise FbdError("--games and --batch must be at least 1")
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        if args.dask:
            blocks = play_blocks_on_dask(args.games, args.placement, args.processing, args.seed,
                                         args.batch, None if args.dask == "local" else args.dask,
                                         args.workers, say, args.engine)
        else:
            blocks = play_blocks(args.games, args.placement, args.processing, args.seed,
                                 args.batch, say, engine=args.engine)
        t_blocks = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref = play_python(args.reference_games or args.games, args.seed, say)
        t_ref = time.perf_counter() - t0
    except FbdError as err:
        print(f"fbd: error: {err}", file=sys.stderr)
        return 2
    title = (f"2048 Monte-Carlo: random play, {args.processing}, {args.placement} placement, "
             f"seed {args.seed}")
    text = table(blocks, ref, title) + (
        f"\n\nblocks: {args.games} games in {t_blocks:.1f} s (batches of {min(args.batch, args.games)}); "
        f"reference: {len(ref['score'])} games in {t_ref:.1f} s")
    stem = out / f"montecarlo-{args.placement}"
    stem.with_suffix(".txt").write_text(text + "\n", encoding="utf-8")
    with open(stem.with_suffix(".csv"), "w", encoding="utf-8") as f:
        f.write("engine,game,score,highest_tile,moves,presses\n")
        for who, d in (("blocks", blocks), ("reference", ref)):
            for k in range(len(d["score"])):
                f.write(f"{who},{k},{d['score'][k]},{d['tile'][k]},{d['moves'][k]},{d['presses'][k]}\n")
    figure(blocks, ref, stem.with_suffix(".png"), title.upper())
    print(text)
    say(f"wrote {stem}.txt, .csv and .png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
