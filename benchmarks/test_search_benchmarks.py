"""Search and simulation throughput (pytest-benchmark; not part of the default test run).

    python -m pytest benchmarks/test_search_benchmarks.py --benchmark-only -q -s
    python benchmarks/test_search_benchmarks.py --threads 16      # MCTSAgent thread scaling table
    SEQUENCE_BENCH_THREADS=1,2,4,8,16 python -m pytest benchmarks/test_search_benchmarks.py -k scaling --benchmark-only -q -s

Reports MCTS iterations per second from the 2-player opening (threads 1 and 2), random-game
simulation throughput (threads 1 and 2) and the tree's bytes per node; ``extra_info`` of each
benchmark carries the rates. The search (short informed playouts scored by the static evaluation,
``cpp/include/sequence/search/evaluate.hpp``) is measured; in a research build (CMake
SEQUENCE_RESEARCH) so are the learned evaluation's settings, ``test_learned_evaluation_cost``, and
``test_mcts_inference_iterations_per_second``, the search with and without inference of hidden
cards from a mid-game position. A strength check of MCTSAgent and RolloutAgent
against GreedyAgent/RandomAgent at a fixed iteration budget is in ``test_strength`` (slow: run it
with ``-k strength``).

Thread scaling (``scaling()``, ``test_mcts_scaling`` and the command line): MCTSAgent
iterations per second per thread count, time-limited, with the cores obtained (CPU seconds per wall
second), the CPU time per iteration and the system time's share (flat CPU per iteration: the
threads do not slow each other down), and an
agent's search of 10,000 iterations in all with its page faults and worker thread starts per
search (``_core.worker_threads_started()``: 0 once the core's worker pool has the threads).
"""

from __future__ import annotations

import os
import resource
import time

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import Game, _core, simulate  # noqa: E402
from sequence_game.agents import MCTSAgent  # noqa: E402
from sequence_game.agents.search import NODE_BYTES  # noqa: E402

ITERATIONS = 50_000
GAMES = 20_000


#: A research build's options (CMake SEQUENCE_RESEARCH): its benchmarks are skipped in a product build.
RESEARCH = bool(sequence_game.build_info().get("research"))
research_only = pytest.mark.skipif(not RESEARCH, reason="a research build's option (SEQUENCE_RESEARCH)")
# The search as every preset plays it, and (research build) the learned evaluation at the leaves and
# as an expansion prior (search/features.hpp, the packaged model).
CONFIGS = {"default": {}, "learned-evaluation": {"evaluation": "learned"},
           "learned-expansion-prior": {"expansion_candidates": 8}}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("config", [pytest.param(k, marks=() if not v else research_only) for k, v in CONFIGS.items()])
def test_mcts_iterations_per_second(benchmark, threads, config):
    game = Game(players=2, seed=1)
    options = CONFIGS[config]
    agent = MCTSAgent(iterations=ITERATIONS, threads=threads, seed=1, options=options)
    result = benchmark.pedantic(agent.analyze, args=(game,), rounds=3, iterations=1)
    rate = result.iterations / result.seconds
    benchmark.extra_info.update(iterations_per_second=rate, bytes_per_node=NODE_BYTES, nodes=result.nodes)
    print(f"\nMCTS {config} threads={threads}: {rate:,.0f} iterations/s, {NODE_BYTES} bytes/node")


@research_only
@pytest.mark.parametrize("inference", ["off", "recent"])
def test_mcts_inference_iterations_per_second(benchmark, inference):
    """The cost of inference of hidden cards (search/inference.hpp): the same search with and
    without it, from a 2-player position 20 GreedyAgent plies in (so that there is evidence)."""
    from sequence_game.agents import GreedyAgent

    game = Game(players=2, seed=21)
    greedy = GreedyAgent(seed=1)
    for _ in range(20):
        game.play(greedy.select_move(game))
    agent = MCTSAgent(iterations=ITERATIONS, seed=1, options={"inference": inference})
    result = benchmark.pedantic(agent.analyze, args=(game,), rounds=3, iterations=1)
    rate = result.iterations / result.seconds
    benchmark.extra_info.update(iterations_per_second=rate)
    print(f"\nMCTS inference={inference}: {rate:,.0f} iterations/s")


@pytest.mark.parametrize("threads", [1, 2])
def test_simulate_games_per_second(benchmark, threads):
    result = benchmark.pedantic(simulate, args=(GAMES,), kwargs={"seed": 1, "threads": threads}, rounds=3, iterations=1)
    benchmark.extra_info.update(games_per_second=result["games_per_second"], mean_turns=result["mean_turns"])
    print(f"\nsimulate threads={threads}: {result['games_per_second']:,.0f} games/s, "
          f"mean {result['mean_turns']:.1f} turns")


@pytest.mark.parametrize("agent", ["mcts:iterations=3000", "rollout:iterations=2000"])
@pytest.mark.parametrize("opponent", ["greedy", "random"])
def test_strength(benchmark, agent, opponent):
    from sequence_game.arena import match

    games = 2 if benchmark.disabled else 20  # CI's untimed smoke run only checks that it runs
    # A fixed iteration budget: reproducible, and independent of the machine's load. The full
    # measurements are in docs/measurements.md.
    result = benchmark.pedantic(
        match, args=([agent, opponent],), kwargs={"games": games, "seed": 1},
        rounds=1, iterations=1)
    benchmark.extra_info.update(wins=list(result.wins), draws=result.draws)
    print(f"\n{agent} vs {opponent}: {result}")


@research_only
def test_learned_evaluation_cost(benchmark):
    """Iterations per second of the learned evaluation (leaves, expansion prior) relative to the
    hand-set one (mcts-v1), the settings alternated in rounds in one process so that a machine's
    changing load falls on all of them alike; medians over the rounds."""
    import statistics

    from sequence_game import _core
    from sequence_game.research.learned_eval import load_eval_model

    weights = load_eval_model().learned_weights()
    game = Game(players=2, seed=1)
    configs = {"handset": {}, "learned leaves": {"evaluation": "learned"}, "expansion prior K=8": {"expansion_candidates": 8}}
    rounds = 1 if benchmark.disabled else 7
    rates = {k: [] for k in configs}

    def run():
        for r in range(rounds):
            for k, o in configs.items():
                opts = _core.SearchOptions(iterations=30_000, seed=r, learned_weights=weights, **o)
                res = _core.mcts_search(game._state, opts, r)
                rates[k].append(res.iterations / res.seconds)

    benchmark.pedantic(run, rounds=1, iterations=1)
    base = statistics.median(rates["handset"])
    for k, v in rates.items():
        benchmark.extra_info[k] = statistics.median(v)
        print(f"\n{k}: {statistics.median(v):,.0f} iterations/s ({statistics.median(v) / base:.2f}x the hand-set)")


# --------------------------------------------------------------------------- thread scaling


def _thread_counts(limit=None):
    from test_simulate_benchmarks import thread_counts

    return thread_counts(limit)


def _usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt


def _measure(agent, game, searches):
    """Wall, CPU and system seconds, minor faults, worker thread starts and iterations of
    ``searches`` analyses of ``game`` by ``agent``."""
    started = _core.worker_threads_started()
    user0, sys0, faults0 = _usage()
    t0 = time.perf_counter()
    iterations = sum(agent.analyze(game).iterations for _ in range(searches))
    wall = time.perf_counter() - t0
    user1, sys1, faults1 = _usage()
    return {"wall": wall, "cpu": user1 - user0 + sys1 - sys0, "sys": sys1 - sys0, "faults": faults1 - faults0,
            "starts": _core.worker_threads_started() - started, "iterations": iterations, "searches": searches}


def scaling(threads, seconds=1.0, agent_iterations=10_000, agent_searches=10):
    """One row of the scaling table: MCTSAgent (default options) from the 2-player opening with
    ``threads`` threads, time-limited (``seconds``) and with an agent's budget of
    ``agent_iterations`` in all (``agent_searches`` searches)."""
    game = Game(players=2, seed=1)
    MCTSAgent(iterations=100 * threads, threads=threads, seed=1).analyze(game)  # warm-up: the pool's threads
    timed = _measure(MCTSAgent(time_limit=seconds, threads=threads, seed=1), game, 1)
    agent = _measure(MCTSAgent(iterations=agent_iterations, threads=threads, seed=1), game, agent_searches)
    return {
        "threads": threads,
        "iterations_per_second": timed["iterations"] / timed["wall"],
        "cores": timed["cpu"] / timed["wall"],
        "cpu_us_per_iteration": 1e6 * timed["cpu"] / timed["iterations"],
        "sys_share": timed["sys"] / timed["cpu"] if timed["cpu"] > 0 else 0.0,
        "agent_ms_per_search": 1e3 * agent["wall"] / agent["searches"],
        "agent_cpu_us_per_iteration": 1e6 * agent["cpu"] / agent["iterations"],
        "agent_sys_share": agent["sys"] / agent["cpu"] if agent["cpu"] > 0 else 0.0,
        "faults_per_search": agent["faults"] / agent["searches"],
        "thread_starts_per_search": agent["starts"] / agent["searches"],
    }


@pytest.mark.parametrize("threads", _thread_counts())
def test_mcts_scaling(benchmark, threads):
    quick = benchmark.disabled  # CI's untimed run: only that it works
    row = benchmark.pedantic(scaling, args=(threads,),
                             kwargs={"seconds": 0.05 if quick else 1.0, "agent_iterations": 200 if quick else 10_000,
                                     "agent_searches": 2 if quick else 10}, rounds=1, iterations=1)
    assert row["thread_starts_per_search"] == 0  # the warm-up left the pool with the threads
    benchmark.extra_info.update(row)
    print(f"\nMCTS threads={threads}: {row['iterations_per_second']:,.0f} iterations/s, "
          f"{row['cpu_us_per_iteration']:.2f} CPU us/iteration, sys {100 * row['sys_share']:.1f}%; "
          f"10,000-iteration search {row['agent_ms_per_search']:.2f} ms")


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description="MCTSAgent thread scaling: iterations/s, CPU and system time per iteration")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="largest thread count (1, 2, 4, ... up to it)")
    p.add_argument("--seconds", type=float, default=1.0, help="time limit of the time-limited search")
    p.add_argument("--repeat", type=int, default=3, help="rows per thread count (the fastest is reported)")
    args = p.parse_args()
    from test_vector_benchmarks import _cpu

    print(f"CPU: {_cpu()} ({os.cpu_count()} logical CPUs, {len(os.sched_getaffinity(0))} usable); "
          f"MCTSAgent default options, 2-player opening; best of {args.repeat}")
    print(f"{'':7} | {'time-limited search (' + str(args.seconds) + ' s)':<44} | {'agent search, 10,000 iterations':<52}")
    print(f"{'threads':>7} | {'iter/s':>10} {'x1':>5} {'cores':>5} {'cpu us/it':>9} {'sys':>6} | {'ms/search':>9} {'x1':>5} "
          f"{'cpu us/it':>9} {'sys':>6} {'faults/s.':>9} {'starts/s.':>9}")
    first = None
    for threads in _thread_counts(args.threads):
        rows = [scaling(threads, seconds=args.seconds) for _ in range(args.repeat)]
        row = dict(max(rows, key=lambda r: r["iterations_per_second"]))
        fastest = min(rows, key=lambda r: r["agent_ms_per_search"])
        for k in ("agent_ms_per_search", "agent_cpu_us_per_iteration", "agent_sys_share", "faults_per_search",
                  "thread_starts_per_search"):
            row[k] = fastest[k]
        first = first or row
        print(f"{threads:7d} | {row['iterations_per_second']:10,.0f} "
              f"{row['iterations_per_second'] / first['iterations_per_second']:5.2f} {row['cores']:5.2f} "
              f"{row['cpu_us_per_iteration']:9.2f} {100 * row['sys_share']:5.1f}% | "
              f"{row['agent_ms_per_search']:9.2f} {first['agent_ms_per_search'] / row['agent_ms_per_search']:5.2f} "
              f"{row['agent_cpu_us_per_iteration']:9.2f} {100 * row['agent_sys_share']:5.1f}% "
              f"{row['faults_per_search']:9.1f} {row['thread_starts_per_search']:9.2f}", flush=True)


if __name__ == "__main__":
    main()
