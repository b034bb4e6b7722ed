"""``VectorGame`` throughput: batched steps per second against the one-game Python loop.

    python benchmarks/test_vector_benchmarks.py              # the table of docs/measurements.md
    python benchmarks/test_vector_benchmarks.py --threads 8  # thread scaling: 1, 2, 4, 8 threads
    python -m pytest benchmarks/test_vector_benchmarks.py --benchmark-only -q -s

Random 2-player games, random legal actions chosen in numpy (from the action lists the core writes
with the masks: ``VectorGame.sample_actions``), 256 games per batch. Modes:

* ``obs+masks``: every step writes the observations (docs/observation.md) and the bool masks
  (plus the action lists the random policy picks from) of all games, then steps;
* ``masks``: the same without the observations;
* ``game loop``: one ``Game`` at a time, ``legal_mask()`` + ``play_action()`` per step (the
  fastest masked loop without VectorGame), the random action chosen in numpy as well.

Steps are game-steps: one action played in one game (a declare action of R7 counts as a step).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import Game, VectorGame  # noqa: E402
from test_simulate_benchmarks import thread_counts  # noqa: E402

GAMES = 256
BATCHES = 200


def vector_steps(games: int = GAMES, batches: int = BATCHES, observations: bool = True, threads: int = 1,
                 seed: int = 1, clock=time.perf_counter) -> float:
    """Game-steps per second of a VectorGame loop (see the module doc), by ``clock``."""
    vg = VectorGame(games, players=2, seed=seed, threads=threads)
    rng = np.random.default_rng(seed)
    obs = np.empty((games, 890), dtype=np.float32)
    masks = np.empty((games, 5253), dtype=bool)
    lists = vg.legal_actions()
    start = clock()
    for _ in range(batches):
        if observations:
            vg.observations(out=obs)
        vg.legal_masks(out=masks, lists=lists)
        vg.step(vg.sample_actions(rng, legal=lists))
    return games * batches / (clock() - start)


def game_loop_steps(steps: int = 20_000, seed: int = 1, clock=time.perf_counter) -> float:
    """Steps per second of ``legal_mask()`` + ``play_action()`` on one ``Game`` at a time."""
    rng = np.random.default_rng(seed)
    g = Game(players=2, seed=seed)
    n = 0
    start = clock()
    for n in range(steps):
        g.play_action(int(rng.choice(np.flatnonzero(g.legal_mask()))))
        if g.is_over:
            g = Game(players=2, seed=seed + n)
    return steps / (clock() - start)


@pytest.mark.parametrize("mode", ["obs+masks", "masks"])
def test_vector_game_steps_per_second(benchmark, mode):
    batches = 2 if benchmark.disabled else BATCHES
    rate = benchmark.pedantic(vector_steps, kwargs={"batches": batches, "observations": mode == "obs+masks"},
                              rounds=3, iterations=1)
    benchmark.extra_info.update(steps_per_second=rate)
    print(f"\nVectorGame {mode}, 1 thread: {rate:,.0f} steps/s")


def test_game_loop_steps_per_second(benchmark):
    steps = 200 if benchmark.disabled else 20_000
    rate = benchmark.pedantic(game_loop_steps, kwargs={"steps": steps}, rounds=3, iterations=1)
    benchmark.extra_info.update(steps_per_second=rate)
    print(f"\nGame legal_mask()+play_action() loop: {rate:,.0f} steps/s")


@pytest.mark.parametrize("threads", [1, 2])
def test_vector_game_thread_scaling(benchmark, threads):
    batches = 2 if benchmark.disabled else BATCHES
    rate = benchmark.pedantic(vector_steps, kwargs={"batches": batches, "threads": threads, "games": 4096},
                              rounds=3, iterations=1)
    benchmark.extra_info.update(steps_per_second=rate)
    print(f"\nVectorGame obs+masks, {threads} threads: {rate:,.0f} steps/s")


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover
        pass
    return "unknown CPU"


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                   help="measure thread scaling for 1, 2, 4, ... up to this many threads")
    p.add_argument("--repeat", type=int, default=3, help="runs per number (the best is reported)")
    p.add_argument("--cpu-time", action="store_true",
                   help="1-thread rates per CPU-second of this process (robust on a loaded machine)")
    args = p.parse_args()
    best = lambda f, **kw: max(f(**kw) for _ in range(args.repeat))  # noqa: E731
    clock = time.process_time if args.cpu_time else time.perf_counter
    print(f"CPU: {_cpu()} ({os.cpu_count()} logical CPUs); 1-thread rows per {'CPU' if args.cpu_time else 'wall'} second")
    loop = best(game_loop_steps, clock=clock)
    with_obs = best(vector_steps, clock=clock)
    without = best(vector_steps, observations=False, clock=clock)
    print(f"Game legal_mask()+play_action() loop     {loop:12,.0f} steps/s")
    print(f"VectorGame({GAMES}), obs + masks, 1 thread   {with_obs:12,.0f} steps/s  ({with_obs / loop:.1f}x the loop)")
    print(f"VectorGame({GAMES}), masks only, 1 thread    {without:12,.0f} steps/s  ({without / loop:.1f}x the loop)")
    base = None
    for threads in thread_counts(args.threads):  # 1, 2, 4, ... and args.threads itself
        rate = best(vector_steps, games=4096, batches=60, threads=threads)
        base = base or rate
        print(f"VectorGame(4096), obs + masks, {threads:3d} threads {rate:12,.0f} steps/s  ({rate / base:.2f}x)")


if __name__ == "__main__":
    main()
