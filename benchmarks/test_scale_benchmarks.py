"""Matches and self-play at scale (python/sequence_game/arena/, selfplay.py): positions per
core-hour, scaling with workers, Ray's overhead per game.

    python -m pytest benchmarks/test_scale_benchmarks.py -s --benchmark-group-by=group

Rates per core are CPU time of the process that plays (``time.process_time``), so other load on
the machine slows the wall clock but not the rate. The scaling benchmark is wall clock by nature:
run it on an idle machine (docs/measurements.md has the published numbers and their hardware).
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from datetime import datetime

import pytest
from sequence_game import Game

needs_observation = pytest.mark.skipif(not hasattr(Game, "observation_tensor"), reason="needs observation_tensor")

SELFPLAY_TARGET = 1_000_000  # positions per core-hour for a cheap policy


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
    """(CPU seconds of this process, of its finished child processes: the pool's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _utc_seconds(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _timed_match(agents, games, workers):
    """One match on ``workers`` processes, and where its time went (every field in seconds)."""
    from sequence_game.arena import MatchJob, run_job
    from sequence_game.arena.jobs import normalise_contenders

    job = MatchJob(normalise_contenders(agents), games, seed=1)
    with tempfile.TemporaryDirectory() as folder:  # a results file, as the command line writes
        cpu0, wall0, t0 = _cpu_seconds(), time.time(), time.perf_counter()
        entries = run_job(job, workers=workers, results=os.path.join(folder, "m.jsonl"))
        wall, wall1 = time.perf_counter() - t0, time.time()
    me, kids = (b - a for a, b in zip(cpu0, _cpu_seconds()))
    game_cpu = sum(e["cpu_seconds"] for e in entries)
    by_worker = {}
    for e in entries:
        by_worker.setdefault(e["pid"], []).append(e)
    first = min(_utc_seconds(e["started"]) for e in entries) - wall0
    tails = [wall1 - max(_utc_seconds(e["finished"]) for e in es) for es in by_worker.values()]
    between = 0.0  # a worker's idle time from the end of one game to the start of its next
    for es in by_worker.values():
        es = sorted(es, key=lambda e: e["started"])
        between += sum(_utc_seconds(b["started"]) - _utc_seconds(a["finished"]) for a, b in zip(es, es[1:]))
    return {
        "entries": entries, "wall": wall, "parent_cpu": me, "worker_cpu": kids, "game_cpu": game_cpu,
        "cores": (me + kids) / wall, "first_game_after": first, "idle_tail": sum(tails),
        "idle_between": between,
        "outside_games_cpu": (me + kids) - game_cpu if workers > 1 else me - game_cpu,
    }


def _scaling_report(agents, games, workers, one, many):
    """Where the N-worker wall time goes, against the ideal of 1/N of the one-worker time."""
    speedup = one["wall"] / many["wall"]
    ideal = one["wall"] / workers
    costlier = (many["game_cpu"] - one["game_cpu"]) / workers  # the same games, more CPU side by side
    tail = many["idle_tail"] / workers
    between = many["idle_between"] / workers
    rest = many["wall"] - ideal - many["first_game_after"] - tail - between - costlier
    return (
        f"\n{games} games {' vs '.join(agents)}, 1 vs {workers} workers "
        f"(load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs):\n"
        f"  wall: 1 worker {one['wall']:.2f} s, {workers} workers {many['wall']:.2f} s: "
        f"speed-up {speedup:.2f}x; cores obtained (CPU time / wall time) {one['cores']:.2f} and {many['cores']:.2f}\n"
        f"  {workers}-worker wall = ideal {ideal:.2f} (1/{workers} of one worker) + first game's start "
        f"{many['first_game_after']:.2f} + idle tail {tail:.2f} ({many['idle_tail']:.2f} worker-seconds / {workers}) "
        f"+ idle between games {between:.2f} ({many['idle_between']:.2f} / {workers}) "
        f"+ games costing more CPU side by side {costlier:.2f} (CPU in games {one['game_cpu']:.2f} vs "
        f"{many['game_cpu']:.2f}) + the rest {rest:.2f} (waiting for a core: other load)\n"
        f"  CPU outside the games: {many['outside_games_cpu']:.2f} s ({one['outside_games_cpu']:.2f} s in one "
        f"process), of it this process {many['parent_cpu']:.2f} s"
    )


@pytest.mark.benchmark(group="arena scaling")
def test_arena_scaling_one_and_n_workers(benchmark):
    """The same match on 1 worker (in this process) and on N worker processes: the speed-up, and
    where the rest of the time goes (CPU time does not depend on the load; wall time needs N free
    cores).

    ``SEQUENCE_SCALING_AGENTS`` (default ``mcts:iters=3000,greedy``; e.g. ``mcts:time=0.05,greedy``),
    ``SEQUENCE_SCALING_GAMES`` (default 20) and ``SEQUENCE_SCALING_WORKERS`` (default: every CPU
    this process may use, at least 2) choose the match. Linux gives every session (autogroup) one
    fair share of a busy machine, however many processes it runs: on cores that other sessions
    keep busy, N workers obtain little more CPU than one (the report's "cores obtained")."""
    from sequence_game.arena import default_workers

    agents = os.environ.get("SEQUENCE_SCALING_AGENTS", "mcts:iters=3000,greedy").split(",")
    games = 2 if benchmark.disabled else int(os.environ.get("SEQUENCE_SCALING_GAMES", "20"))
    workers = int(os.environ.get("SEQUENCE_SCALING_WORKERS", max(2, default_workers())))

    def run():
        one = _timed_match(agents, games, 1)
        many = _timed_match(agents, games, workers)
        if not any("time" in a for a in agents):  # fixed budgets: the same games
            assert [e["moves"] for e in one["entries"]] == [e["moves"] for e in many["entries"]]
        return one, many

    one, many = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(
        workers=workers, one_worker_s=one["wall"], n_workers_s=many["wall"], speedup=one["wall"] / many["wall"],
        cores_one=one["cores"], cores_n=many["cores"], game_cpu_one_s=one["game_cpu"],
        game_cpu_n_s=many["game_cpu"], pool_overhead_cpu_s=many["outside_games_cpu"],
        parent_cpu_s=many["parent_cpu"], first_game_after_s=many["first_game_after"],
        idle_tail_s=many["idle_tail"], idle_between_s=many["idle_between"])
    print(_scaling_report(agents, games, workers, one, many))


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
