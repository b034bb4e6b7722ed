"""Ray on a multi-node cluster (python/sequence_game/arena/ray_runner.py): the scheduling cost per
game against the local pool, what batching games per task saves, and the speed-up from one worker
node to two.

    python -m pytest benchmarks/test_ray_cluster_benchmarks.py -s -p no:cacheprovider

The cluster is ``ray.cluster_utils.Cluster`` on this machine: a head node with no CPUs and worker
nodes of one CPU each, every one its own raylet and object store, as in tests/test_ray_cluster.py.
On one machine "N nodes" are N cores behind Ray's multi-node machinery, not N machines: the
speed-up measures how well the work spreads over nodes and what Ray costs, never network or
machine effects, and on a 2-core machine it cannot go past 2 nodes.
"""

from __future__ import annotations

import os
import statistics
import time

import pytest

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")

TINY = dict(players=2, max_turns=1)  # a 1-turn game: almost all of its cost is the scheduling


def _cluster(workers):
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(workers):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False, include_dashboard=False)
    return cluster


def _stop(cluster):
    ray.shutdown()
    cluster.shutdown()
    record = "/tmp/ray/ray_current_cluster"
    try:
        with open(record) as f:
            if f.read().strip() == cluster.address:
                os.remove(record)
    except OSError:
        pass


def _job(agents, games, seed=2, **kw):
    from sequence_game.arena import MatchJob
    from sequence_game.arena.jobs import normalise_contenders

    return MatchJob(normalise_contenders(agents), games, seed=seed, **kw)


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _on_ray(job, batch):
    from sequence_game.arena.ray_runner import run_ray

    got = []
    run_ray(job, range(job.size), got.append, batch=batch)
    assert sorted(e["index"] for e in got) == list(range(job.size))
    return got


@pytest.mark.benchmark(group="ray-cluster")
def test_scheduling_cost_per_game_and_batching(benchmark):
    """Tiny games (1 turn) in this process, in a 2-process pool and on a 2-node cluster, one game
    per task and batched: the cost per game each adds over playing it in this process."""
    from sequence_game.arena import run_job

    games = 20 if benchmark.disabled else 1000
    job = _job(["random", "random"], games, **TINY)
    cluster = _cluster(2)
    try:
        def run():
            _on_ray(job, batch=1)  # warm: Ray starts its worker processes on first use
            here = _timed(lambda: run_job(job, workers=1))
            pool = _timed(lambda: run_job(job, workers=2))
            single = [_timed(lambda: _on_ray(job, batch=1)) for _ in range(3)]
            batched = [_timed(lambda: _on_ray(job, batch=None)) for _ in range(3)]
            return here, pool, statistics.median(single), statistics.median(batched)

        here, pool, single, batched = benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        _stop(cluster)
    per = {k: 1000 * v / games for k, v in dict(here=here, pool=pool, single=single, batched=batched).items()}
    benchmark.extra_info.update({f"{k}_ms_per_game": v for k, v in per.items()})
    print(f"\n{games} one-turn games, wall ms per game: this process {per['here']:.2f}, pool of 2 "
          f"{per['pool']:.2f}, Ray 2 nodes one game per task {per['single']:.2f}, batched {per['batched']:.2f} "
          f"(Ray's cost per task, one game each: {per['single'] - per['here'] / 2:.2f} ms over half the "
          "in-process time)")


@pytest.mark.benchmark(group="ray-cluster")
def test_speed_up_from_one_to_two_worker_nodes(benchmark):
    """The same match (fixed budgets: the same games) on a cluster of one worker node and of two,
    with the CPU the games themselves took: the rest of the wall time is Ray's and the idle tail."""
    games = 2 if benchmark.disabled else int(os.environ.get("SEQUENCE_RAY_SPEEDUP_GAMES", "16"))
    job = _job(["mcts:iters=5000", "greedy"], games, seed=4)
    walls, cpus, outcomes = {}, {}, {}

    def run():
        for nodes in (1, 2):
            cluster = _cluster(nodes)
            try:
                _on_ray(_job(["random", "random"], 2 * nodes, **TINY), batch=1)  # workers started on every node
                t0 = time.perf_counter()
                got = _on_ray(job, batch=None)
                walls[nodes] = time.perf_counter() - t0
            finally:
                _stop(cluster)
            cpus[nodes] = sum(e["cpu_seconds"] for e in got)
            outcomes[nodes] = sorted((e["index"], e["winner"], e["turns"]) for e in got)

    benchmark.pedantic(run, rounds=1, iterations=1)
    assert outcomes[1] == outcomes[2]
    speed_up = walls[1] / walls[2]
    benchmark.extra_info.update(wall_1=walls[1], wall_2=walls[2], cpu_1=cpus[1], cpu_2=cpus[2], speed_up=speed_up)
    for nodes in (1, 2):
        print(f"\n{nodes} worker node(s): {games} games in {walls[nodes]:.1f} s wall, games' CPU {cpus[nodes]:.1f} s, "
              f"CPU / (wall x nodes) {cpus[nodes] / (walls[nodes] * nodes):.0%}", end="")
    print(f"\nspeed-up 1 -> 2 nodes: {speed_up:.2f}x")
