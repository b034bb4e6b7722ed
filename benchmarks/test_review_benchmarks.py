"""The review's cost (pytest-benchmark; not in the default test run): a whole game's win-chance curve
(the public view at every position: the target is under 50 ms a game, so the curve can be a live
evaluation bar) and a whole game's graded review (every legal move of every decision valued).

    python -m pytest benchmarks/test_review_benchmarks.py --benchmark-only -q
    python benchmarks/test_review_benchmarks.py [--games 10]    # a table for docs/review.md
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from typing import List

import pytest

pytest.importorskip("sequence_game._core")

from sequence_game import GameRecord
from sequence_game.agents import GreedyAgent, RandomAgent
from sequence_game.records import play_game
from sequence_game.review import curve, review_game


def records(count: int = 10) -> List[GameRecord]:
    """Whole games: greedy against greedy and random against greedy, alternately."""
    return [play_game([(GreedyAgent if k % 2 else RandomAgent)(seed=k), GreedyAgent(seed=k + 100)], players=2,
                      seed=k) for k in range(count)]


@pytest.fixture(scope="module")
def game() -> GameRecord:
    return records(2)[1]


@pytest.mark.benchmark(group="review")
def test_curve_of_a_whole_game(benchmark, game):
    points = benchmark(curve, game)
    assert len(points) == len(game.moves) + 1


@pytest.mark.benchmark(group="review")
def test_review_of_a_whole_game(benchmark, game):
    review = benchmark.pedantic(review_game, args=(game,), rounds=3, iterations=1)
    assert len(review.moves) == len(game.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    recs = records(args.games)
    rows = []
    for name, fn in (("curve", curve), ("review", review_game)):
        per_game, per_move = [], []
        for rec in recs:
            t = time.process_time()  # CPU time: the machine's other jobs do not count
            fn(rec)
            dt = time.process_time() - t
            per_game.append(1000 * dt)
            per_move.append(1000 * dt / len(rec.moves))
        rows.append((name, statistics.median(per_game), max(per_game), statistics.median(per_move)))
    print(f"{platform.processor() or platform.machine()}; {args.games} games, "
          f"{statistics.mean(len(r.moves) for r in recs):.0f} moves on average")
    print("| work | median CPU ms a game | max CPU ms a game | median CPU ms a move |")
    print("|---|---|---|---|")
    for name, med, worst, move in rows:
        print(f"| {name} | {med:.1f} | {worst:.1f} | {move:.2f} |")


if __name__ == "__main__":
    main()
