"""Matches and self-play at scale (python/sequence_game/arena/, selfplay.py): positions per
core-hour, scaling with workers, Ray's overhead per game.

    python -m pytest benchmarks/test_scale_benchmarks.py -s --benchmark-group-by=group

Rates per core are CPU time of the process that plays (``time.process_time``), so other load on
the machine slows the wall clock but not the rate. The scaling benchmark is wall clock by nature:
run it on an idle machine (benchmarks/README.md says how noisy the published numbers are).
"""

from __future__ import annotations

import os
import resource
import tempfile
import time

import pytest
from sequence_game import Game

needs_observation = pytest.mark.skipif(not hasattr(Game, "observation_tensor"), reason="needs observation_tensor")

SELFPLAY_TARGET = 1_000_000  # positions per core-hour for a cheap policy (issue 16)


def _selfplay_rate(agents, games):
    from sequence_game.selfplay import selfplay

    with tempfile.TemporaryDirectory() as out:
        cpu = time.process_time()
        manifest = selfplay(agents, games=games, out=out, seed=1, shard_games=games)
        cpu = time.process_time() - cpu
    return manifest["positions"], manifest["positions"] / cpu * 3600


@needs_observation
@pytest.mark.benchmark(group="selfplay")
def test_selfplay_greedy_positions_per_core_hour(benchmark):
    games = 2 if benchmark.disabled else 200
    positions, rate = benchmark.pedantic(_selfplay_rate, args=(["greedy"], games), rounds=1, iterations=1)
    benchmark.extra_info.update(positions=positions, positions_per_core_hour=rate)
    print(f"\nselfplay greedy: {positions} positions, {rate:,.0f} positions per core-hour "
          f"(target {SELFPLAY_TARGET:,})")
    assert benchmark.disabled or rate >= SELFPLAY_TARGET


@needs_observation
@pytest.mark.benchmark(group="selfplay")
@pytest.mark.parametrize("iters", [200, 1000])
def test_selfplay_mcts_positions_per_core_hour(benchmark, iters):
    games = 1 if benchmark.disabled else 4
    positions, rate = benchmark.pedantic(_selfplay_rate, args=([f"mcts:iters={iters}"], games), rounds=1,
                                         iterations=1)
    benchmark.extra_info.update(positions=positions, positions_per_core_hour=rate)
    print(f"\nselfplay mcts:iters={iters}: {positions} positions, {rate:,.0f} positions per core-hour")


def _cpu_seconds():
    """CPU seconds of this process and of its finished child processes (the pool's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _match_wall(agents, games, workers):
    """(wall seconds, CPU seconds, result) of one match."""
    from sequence_game.arena import match

    t, cpu = time.perf_counter(), _cpu_seconds()
    r = match(agents, games=games, seed=1, workers=workers)
    return time.perf_counter() - t, _cpu_seconds() - cpu, r


@pytest.mark.benchmark(group="arena scaling")
def test_arena_scaling_one_and_two_workers(benchmark):
    """The same match on 1 and on 2 worker processes: wall time (the speed-up, which needs two
    free cores) and CPU time (the pool's overhead, which does not depend on the load).

    ``SEQUENCE_SCALING_AGENTS`` (default ``mcts:iters=3000,greedy``; e.g. ``mcts:time=0.05,greedy``)
    and ``SEQUENCE_SCALING_GAMES`` (default 20) choose the match."""
    agents = os.environ.get("SEQUENCE_SCALING_AGENTS", "mcts:iters=3000,greedy").split(",")
    games = 2 if benchmark.disabled else int(os.environ.get("SEQUENCE_SCALING_GAMES", "20"))

    def run():
        one, cpu1, r1 = _match_wall(agents, games, 1)
        two, cpu2, r2 = _match_wall(agents, games, 2)
        if not any("time" in a for a in agents):
            assert r1.outcomes == r2.outcomes  # fixed budgets: the same games
        return one, two, cpu1, cpu2

    one, two, cpu1, cpu2 = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(one_worker_s=one, two_workers_s=two, speedup=one / two, cpu_one_s=cpu1,
                                cpu_two_s=cpu2)
    print(f"\n{games} games {' vs '.join(agents)}: 1 worker {one:.1f} s wall ({cpu1:.1f} s CPU), "
          f"2 workers {two:.1f} s wall ({cpu2:.1f} s CPU): speed-up {one / two:.2f}x, "
          f"CPU overhead of the pool {100 * (cpu2 / cpu1 - 1):+.0f}% (load average {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} cores)")


@pytest.mark.benchmark(group="ray")
def test_ray_overhead_per_game(benchmark):
    """Trivial games (a 1-turn cap) as Ray tasks against the same games in this process: what Ray
    adds per game, once the local instance is up (its start-up is reported separately)."""
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    from sequence_game.arena import match
    from sequence_game.arena.ray_runner import connect

    games = 20 if benchmark.disabled else 400
    t = time.perf_counter()
    ray = connect(num_cpus=2)
    startup = time.perf_counter() - t
    try:
        def run():
            t0 = time.perf_counter()
            match(["random", "random"], games=games, max_turns=1, seed=2)
            t1 = time.perf_counter()
            match(["random", "random"], games=games, max_turns=1, seed=2, ray=True)
            t2 = time.perf_counter()
            return (t2 - t1 - (t1 - t0)) / games, startup

        per_game, startup = benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        ray.shutdown()
    benchmark.extra_info.update(overhead_ms_per_game=1000 * per_game, startup_s=startup)
    print(f"\nRay: {1000 * per_game:.2f} ms overhead per game ({games} games), local start-up {startup:.1f} s")
