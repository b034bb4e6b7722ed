"""``VectorGame`` throughput: batched steps per second against the one-game Python loop.

    python benchmarks/test_vector_benchmarks.py              # the table of docs/measurements.md
    python benchmarks/test_vector_benchmarks.py --threads 8  # thread scaling: 1, 2, 4, 8 threads
    python benchmarks/test_vector_benchmarks.py --scaling-only --repeat 7  # the tutorial's loop, 1 and 2 threads
    python benchmarks/test_vector_benchmarks.py --net         # + learner steps/s against net opponents
    python -m pytest benchmarks/test_vector_benchmarks.py --benchmark-only -q -s

Random 2-player games, random legal actions chosen in numpy (from the action lists the core writes
with the masks: ``VectorGame.sample_actions``), 256 games per batch. Modes:

* ``obs+masks``: every step writes the observations (docs/observation.md) and the bool masks
  (plus the action lists the random policy picks from) of all games, then steps;
* ``masks``: the same without the observations;
* ``game loop``: one ``Game`` at a time, ``legal_mask()`` + ``play_action()`` per step (the
  fastest masked loop without VectorGame), the random action chosen in numpy as well.

Steps are game-steps: one action played in one game (a declare action of R7 counts as a step).
With ``--net`` (and the ``net opponent`` benchmark) the other seat is the shipped network played
in the core (``opponents={1: "net"}``): a step is one learner action plus the network's replies
(one network evaluation each).

The thread-scaling rows run the VectorGame program of docs/tutorials/rl.md as written there (its
game count, ``threads=`` and step count set; ``tutorial_loop``): observations and masks written
into ``out=`` arrays, actions drawn from the masks in the core (``sample_actions(rng, masks)``), a
greedy opponent in the core; 4,096 and 256 games. Each count runs ``--repeat`` times, interleaved
with the other counts so that a change in the machine's load hits every count alike, and prints
the min and median, the CPU share the process got (process CPU seconds per wall second: near
the thread count when the cores were free, lower when other work held them, as on a shared
machine) and the steps per CPU-second (the median rate over the share).
"""

from __future__ import annotations

import os
import statistics
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
                 seed: int = 1, clock=time.perf_counter, opponents=None) -> float:
    """Game-steps per second of a VectorGame loop (see the module doc), by ``clock``."""
    vg = VectorGame(games, players=2, seed=seed, threads=threads, opponents=opponents)
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


TUTORIAL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "tutorials", "rl.md")


def tutorial_loop(games: int, threads: int, steps: int):
    """The VectorGame program of docs/tutorials/rl.md, as written there, with only its game count
    (the first argument of ``sg.VectorGame``), its ``threads=`` and its step count (``range(...)``)
    set: ``(setup, loop, namespace)``, the statements before its ``for`` loop, the loop itself
    (compiled) and the namespace to run them in. Fails if the tutorial no longer has these."""
    import ast
    import re

    with open(TUTORIAL, encoding="utf-8") as f:
        section = f.read().split("## VectorGame: batches in the core", 1)[1]
    tree = ast.parse(re.findall(r"```python\n(.*?)```", section, re.S)[0])
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "sg.VectorGame"]
    loops = [n for n in tree.body if isinstance(n, ast.For)]
    assert len(calls) == 1 and len(loops) == 1, "the tutorial's program has one VectorGame and one loop"
    call, loop = calls[0], loops[0]
    call.args[0] = ast.Constant(games)
    knob = [k for k in call.keywords if k.arg == "threads"]
    assert knob, "the tutorial's VectorGame names threads="
    knob[0].value = ast.Constant(threads)
    assert ast.unparse(loop.iter).startswith("range("), "the tutorial loops over range(steps)"
    loop.iter = ast.parse(f"range({steps})", mode="eval").body
    where = loops[0].lineno
    setup = ast.Module([n for n in tree.body if n.lineno < where], type_ignores=[])
    namespace: dict = {}
    return (compile(ast.fix_missing_locations(setup), TUTORIAL, "exec"),
            compile(ast.fix_missing_locations(ast.Module([loop], type_ignores=[])), TUTORIAL, "exec"), namespace)


def tutorial_steps(games: int = 4096, threads: int = 1, steps: int = 60, clock=time.perf_counter) -> float:
    """Game-steps per second of the tutorial's loop (``tutorial_loop``), its loop alone timed."""
    setup, loop, namespace = tutorial_loop(games, threads, steps)
    exec(setup, namespace)
    start = clock()
    exec(loop, namespace)
    return games * steps / (clock() - start)


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


def test_vector_game_net_opponent_steps_per_second(benchmark):
    batches = 2 if benchmark.disabled else 40
    rate = benchmark.pedantic(vector_steps, kwargs={"batches": batches, "opponents": {1: "net"}},
                              rounds=3, iterations=1)
    benchmark.extra_info.update(steps_per_second=rate)
    print(f"\nVectorGame obs+masks against the net opponent, 1 thread: {rate:,.0f} learner steps/s")


def test_game_loop_steps_per_second(benchmark):
    steps = 200 if benchmark.disabled else 20_000
    rate = benchmark.pedantic(game_loop_steps, kwargs={"steps": steps}, rounds=3, iterations=1)
    benchmark.extra_info.update(steps_per_second=rate)
    print(f"\nGame legal_mask()+play_action() loop: {rate:,.0f} steps/s")


@pytest.mark.parametrize("games", [256, 4096])
@pytest.mark.parametrize("threads", [1, 2])
def test_tutorial_loop_steps_per_second(benchmark, games, threads):
    """The tutorial's VectorGame loop (docs/tutorials/rl.md) as written, at 256 and 4,096 games on
    1 and 2 threads; the speed-up is the 2-thread rate over the 1-thread rate (``--scaling-only``
    interleaves them, as a speed-up needs on a shared machine)."""
    steps = 2 if benchmark.disabled else (400 if games == 256 else 40)
    rate = benchmark.pedantic(tutorial_steps, kwargs={"games": games, "threads": threads, "steps": steps},
                              rounds=3, iterations=1)
    benchmark.extra_info.update(steps_per_second=rate)
    print(f"\nThe tutorial's loop, {games} games, {threads} thread(s): {rate:,.0f} steps/s")


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
    p.add_argument("--repeat", type=int, default=3, help="runs per number (the best is reported; scaling rows: min and median)")
    p.add_argument("--scaling-only", action="store_true", help="only the tutorial loop's thread-scaling rows")
    p.add_argument("--net", action="store_true", help="also learner steps/s against the net opponent, 1 and 2 threads")
    p.add_argument("--cpu-time", action="store_true",
                   help="1-thread rates per CPU-second of this process (robust on a loaded machine)")
    args = p.parse_args()
    best = lambda f, **kw: max(f(**kw) for _ in range(args.repeat))  # noqa: E731
    clock = time.process_time if args.cpu_time else time.perf_counter
    print(f"CPU: {_cpu()} ({os.cpu_count()} logical CPUs); 1-thread rows per {'CPU' if args.cpu_time else 'wall'} second; "
          f"load average {os.getloadavg()[0]:.2f}")
    if not args.scaling_only:
        loop = best(game_loop_steps, clock=clock)
        with_obs = best(vector_steps, clock=clock)
        without = best(vector_steps, observations=False, clock=clock)
        print(f"Game legal_mask()+play_action() loop     {loop:12,.0f} steps/s")
        print(f"VectorGame({GAMES}), obs + masks, 1 thread   {with_obs:12,.0f} steps/s  ({with_obs / loop:.1f}x the loop)")
        print(f"VectorGame({GAMES}), masks only, 1 thread    {without:12,.0f} steps/s  ({without / loop:.1f}x the loop)")
    if args.net:
        for threads in (1, 2):
            rate = best(vector_steps, batches=40, threads=threads, opponents={1: "net"}, clock=clock)
            print(f"VectorGame({GAMES}) vs net, obs + masks, {threads} thread{'s' if threads > 1 else ' '} "
                  f"{rate:12,.0f} learner steps/s")
    for games, steps in ((4096, 60), (256, 600)):
        results = scaling(thread_counts(args.threads), args.repeat, games=games, steps=steps)
        base = statistics.median(results[0][1])
        for threads, rates, share in results:
            # Steps per CPU-second of the process: what each thread's CPU time bought, whatever the
            # load; equal on every thread count when nothing waits or runs serially.
            print(f"tutorial loop, {games:5d} games, {threads:3d} threads  min {min(rates):12,.0f}  median "
                  f"{statistics.median(rates):12,.0f} steps/s  ({statistics.median(rates) / base:.2f}x)  "
                  f"CPU share {share:.2f}  {statistics.median(rates) / share:12,.0f} steps per CPU-second")


def scaling(counts, repeat: int, games: int = 4096, steps: int = 60):
    """``[(threads, [rates], median CPU share)]`` of the tutorial's loop: ``repeat`` rounds of every
    thread count, the counts interleaved within each round; the rates' ratios are the speed-up
    (module doc)."""
    rates = {t: [] for t in counts}
    shares = {t: [] for t in counts}
    for _ in range(repeat):
        for t in counts:
            wall, cpu = time.perf_counter(), time.process_time()
            rates[t].append(tutorial_steps(games=games, threads=t, steps=steps))
            shares[t].append((time.process_time() - cpu) / (time.perf_counter() - wall))
    return [(t, rates[t], statistics.median(shares[t])) for t in counts]

if __name__ == "__main__":
    main()
