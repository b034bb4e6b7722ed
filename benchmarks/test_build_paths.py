"""The portable build with its instruction-set paths against a -march=native build, side by side.

    python benchmarks/test_build_paths.py --portable DIR --native DIR [--rounds 7]

DIR is a directory that holds a built ``sequence_game`` package (``python/`` of a checkout after
``devbuild.sh``, or a site-packages). Each round runs, in fresh interpreters one after the other,
``simulate`` (30,000 random 2-player games, 1 thread) and an MCTS search (20,000 iterations from the
2-player opening, 1 thread) on: the native build, the portable build on its best path, and the
portable build forced to each lower path this processor runs (``SEQUENCE_CPU``). Interleaving the
builds within each round spreads a shared machine's load over all of them; the table gives the min
and median per build over the rounds and the ratio to native, and checks that every build and path
plays the same games (simulate totals, the search's visit counts).

Under pytest (``--benchmark-disable`` in CI) one short round of the installed package's own paths.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

import pytest

_WORK = r"""
import json, time
import sequence_game as s
from sequence_game.agents import MCTSAgent
games, iterations = {games}, {iterations}
t = time.perf_counter()
r = s.simulate(games, seed=1, threads=1)
sim = time.perf_counter() - t
agent = MCTSAgent(iterations=iterations, threads=1, seed=1)
result = agent.analyze(s.Game(players=2, seed=1))
visits = sorted((str(m.move), m.visits) for m in result.moves)[:8]
print(json.dumps({{"path": s.build_info()["path"], "games_per_s": games / sim,
                   "mcts_per_s": result.iterations / result.seconds,
                   "totals": [r["wins"], r["draws"], r["mean_turns"]], "visits": visits}}))
"""


def run(package_dir: str, cpu: str | None, games: int, iterations: int) -> dict:
    env = dict(os.environ, PYTHONPATH=package_dir)
    env.pop("SEQUENCE_CPU", None)
    if cpu:
        env["SEQUENCE_CPU"] = cpu
    out = subprocess.run([sys.executable, "-c", _WORK.format(games=games, iterations=iterations)], env=env,
                         capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def paths_of(package_dir: str) -> list[str]:
    """The paths of the build in package_dir that this processor runs, best first."""
    code = "import json, sequence_game as s; i = s.build_info(); print(json.dumps(i))"
    info = json.loads(subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=package_dir),
                                     capture_output=True, text=True, check=True).stdout)
    return [p for p in reversed(info["paths"]) if info["native"] or p in info["cpu"]]


def compare(builds: dict[str, tuple[str, str | None]], rounds: int, games: int, iterations: int) -> dict:
    samples: dict[str, list[dict]] = {name: [] for name in builds}
    for _ in range(rounds):
        for name, (package_dir, cpu) in builds.items():
            samples[name].append(run(package_dir, cpu, games, iterations))
    return samples


def test_paths_play_the_same_games_and_report_speed():
    sg = pytest.importorskip("sequence_game")
    package_dir = os.path.dirname(os.path.dirname(sg.__file__))
    builds = {p: (package_dir, p) for p in paths_of(package_dir)}
    samples = compare(builds, rounds=1, games=2000, iterations=2000)
    assert len({json.dumps([s[0]["totals"], s[0]["visits"]]) for s in samples.values()}) == 1
    for name, s in samples.items():
        print(f"\n{name}: simulate {s[0]['games_per_s']:,.0f} games/s, MCTS {s[0]['mcts_per_s']:,.0f} iterations/s")


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--portable", required=True, help="directory holding the portable (dispatching) build")
    p.add_argument("--native", required=True, help="directory holding a SEQUENCE_NATIVE=ON build")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--games", type=int, default=30_000)
    p.add_argument("--iterations", type=int, default=20_000)
    args = p.parse_args()
    import platform

    cpu = platform.processor()
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    builds: dict[str, tuple[str, str | None]] = {"native": (args.native, None)}
    best, *lower = paths_of(args.portable)
    builds[f"portable ({best})"] = (args.portable, None)
    for path in lower:
        builds[f"portable ({path})"] = (args.portable, path)
    print(f"CPU: {cpu} ({os.cpu_count()} logical CPUs); {args.rounds} rounds, builds interleaved in each")
    samples = compare(builds, args.rounds, args.games, args.iterations)
    fingerprints = {json.dumps([s["totals"], s["visits"]]) for runs in samples.values() for s in runs}
    print(f"same games on every build and path: {len(fingerprints) == 1} "
          f"(simulate {args.games}: wins, draws, mean turns = {samples['native'][0]['totals']})")
    nat = {k: statistics.median(s[k] for s in samples["native"]) for k in ("games_per_s", "mcts_per_s")}
    print(f"{'build':24} {'simulate games/s min / median':>32} {'x native':>9} {'MCTS iterations/s min / median':>32} {'x native':>9}")
    for name, runs in samples.items():
        row = []
        for key in ("games_per_s", "mcts_per_s"):
            values = [s[key] for s in runs]
            med = statistics.median(values)
            row.append(f"{min(values):>14,.0f} / {med:>14,.0f} {med / nat[key]:>9.3f}")
        print(f"{name:24} {row[0]} {row[1]}")


if __name__ == "__main__":
    main()
