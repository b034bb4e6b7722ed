"""``simulate`` thread scaling: random 2-player games per second for 1, 2, 4, ... threads.

    python benchmarks/test_simulate_benchmarks.py --threads 16     # the table, up to 16 threads
    SEQUENCE_BENCH_THREADS=1,2,4,8,16 python -m pytest benchmarks/test_simulate_benchmarks.py --benchmark-only -q -s

The thread counts default to powers of two up to the machine's logical CPUs. Every run plays the
same games (game i depends only on the seed and i), so the totals are checked to be identical for
every thread count; the speed-up is against the 1-thread run of the same invocation.
"""

from __future__ import annotations

import os

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import simulate  # noqa: E402

GAMES = 100_000


def thread_counts(limit=None):
    """``SEQUENCE_BENCH_THREADS`` (comma-separated), else 1, 2, 4, ... up to ``limit`` or the CPUs."""
    env = os.environ.get("SEQUENCE_BENCH_THREADS")
    if env and limit is None:
        return [int(t) for t in env.split(",")]
    limit = limit or os.cpu_count() or 1
    counts, t = [], 1
    while t <= limit:
        counts.append(t)
        t *= 2
    return counts if counts[-1] == limit else counts + [limit]


@pytest.mark.parametrize("threads", thread_counts())
def test_simulate_scaling(benchmark, threads):
    games = 200 if benchmark.disabled else GAMES
    result = benchmark.pedantic(simulate, args=(games,), kwargs={"seed": 1, "threads": threads}, rounds=3, iterations=1)
    one = simulate(games, seed=1, threads=1)
    assert (result["wins"], result["draws"], result["mean_turns"]) == (one["wins"], one["draws"], one["mean_turns"])
    benchmark.extra_info.update(games_per_second=result["games_per_second"])
    print(f"\nsimulate threads={threads}: {result['games_per_second']:,.0f} games/s")


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="largest thread count")
    p.add_argument("--games", type=int, default=GAMES * 3)
    p.add_argument("--repeat", type=int, default=3, help="runs per thread count (the best is reported)")
    args = p.parse_args()
    from test_vector_benchmarks import _cpu

    print(f"CPU: {_cpu()} ({os.cpu_count()} logical CPUs); {args.games:,} random 2-player games")
    base = None
    reference = None
    for threads in thread_counts(args.threads):
        runs = [simulate(args.games, seed=1, threads=threads) for _ in range(args.repeat)]
        totals = (runs[0]["wins"], runs[0]["draws"], runs[0]["mean_turns"])
        reference = reference or totals
        assert totals == reference, "the totals must not depend on the thread count"
        rate = max(r["games_per_second"] for r in runs)
        base = base or rate
        turns = runs[0]["mean_turns"]
        print(f"threads {threads:3d}: {rate:12,.0f} games/s  {1e9 / (rate * turns) * threads:6.1f} ns/turn/thread  "
              f"{rate / base:5.2f}x")


if __name__ == "__main__":
    main()
