"""Search and simulation throughput (pytest-benchmark; not part of the default test run).

    python -m pytest benchmarks/test_search_benchmarks.py --benchmark-only -q -s

Reports MCTS iterations per second from the 2-player opening (threads 1 and 2), random-game
simulation throughput (threads 1 and 2) and the tree's bytes per node; ``extra_info`` of each
benchmark carries the rates. ``test_mcts_inference_iterations_per_second`` compares the search with
and without inference of hidden cards from a mid-game position. The search defaults (short informed
playouts scored by the static evaluation, ``cpp/include/sequence/search/evaluate.hpp``) are measured, plus the old configuration
(uniformly random playouts to the end of the game) for comparison. A strength check of MCTSAgent and RolloutAgent
against GreedyAgent/RandomAgent at a fixed iteration budget is in ``test_strength`` (slow: run it
with ``-k strength``).
"""

from __future__ import annotations

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import Game, simulate  # noqa: E402
from sequence_game.agents import MCTSAgent  # noqa: E402
from sequence_game.agents.search import NODE_BYTES  # noqa: E402

ITERATIONS = 50_000
GAMES = 20_000


OLD_PLAYOUTS = {"evaluate": False, "playout": "random", "playout_turns": 200, "exploration": 0.7}
# The search guided by the move heuristic (search/heuristic.hpp): prior in the tree, greedy playouts.
GUIDED = {"playout": "greedy", "prior_weight": 0.5, "ordered_expansion": True, "widen_base": 2.0}
# The pinned yardstick (registry.MCTS_V1: the hand-set evaluation), the learned evaluation at the
# leaves, and the learned evaluation as an expansion prior (search/features.hpp, the packaged model).
CONFIGS = {"default": {}, "mcts-v1-handset": {"evaluation": "handset"}, "learned-evaluation": {"evaluation": "learned"},
           "learned-expansion-prior": {"expansion_candidates": 8},
           "heuristic-guided": GUIDED, "old-random-playouts": OLD_PLAYOUTS}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_mcts_iterations_per_second(benchmark, threads, config):
    game = Game(players=2, seed=1)
    options = CONFIGS[config]
    agent = MCTSAgent(iterations=ITERATIONS, threads=threads, seed=1, **options)
    result = benchmark.pedantic(agent.analyze, args=(game,), rounds=3, iterations=1)
    rate = result.iterations / result.seconds
    benchmark.extra_info.update(iterations_per_second=rate, bytes_per_node=NODE_BYTES, nodes=result.nodes)
    print(f"\nMCTS {config} threads={threads}: {rate:,.0f} iterations/s, {NODE_BYTES} bytes/node")


@pytest.mark.parametrize("inference", ["off", "recent"])
def test_mcts_inference_iterations_per_second(benchmark, inference):
    """The cost of inference of hidden cards (search/inference.hpp): the same search with and
    without it, from a 2-player position 20 GreedyAgent plies in (so that there is evidence)."""
    from sequence_game.agents import GreedyAgent

    game = Game(players=2, seed=21)
    greedy = GreedyAgent(seed=1)
    for _ in range(20):
        game.play(greedy.select_move(game))
    agent = MCTSAgent(iterations=ITERATIONS, seed=1, inference=inference)
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
    # measurement (200 games at time_limit=1) is in benchmarks/README.md, "Strength".
    result = benchmark.pedantic(
        match, args=([agent, opponent],), kwargs={"games": games, "seed": 1},
        rounds=1, iterations=1)
    benchmark.extra_info.update(wins=list(result.wins), draws=result.draws)
    print(f"\n{agent} vs {opponent}: {result}")


def test_learned_evaluation_cost(benchmark):
    """Iterations per second of the learned evaluation (leaves, expansion prior) relative to the
    hand-set one (mcts-v1), the settings alternated in rounds in one process so that a machine's
    changing load falls on all of them alike; medians over the rounds."""
    import statistics

    from sequence_game import _core
    from sequence_game.agents.learned import load_eval_model

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
