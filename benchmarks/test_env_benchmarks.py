"""Environment steps per second (docs/environments.md): PettingZoo and Gymnasium against a plain
``legal_mask()`` + ``play_action()`` loop, every one choosing a uniformly random legal action from
the mask the same way, over the same 2-player games (seeds 0, 1, ...) played to the end.

    python -m pytest benchmarks/test_env_benchmarks.py --benchmark-group-by=group

One round plays STEPS actions; steps/s = STEPS / mean. The environments' cost over the plain loop
is the ratio of the means (docs/measurements.md). Gymnasium's opponent is ``RandomAgent``
(uniform over ``legal_moves()``), and every ply of the game, the learner's and the opponent's,
counts as a step.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import sequence_game

STEPS = 2000


def _choose(rng: random.Random, mask: np.ndarray) -> int:
    # A 0/1 int8 mask (PettingZoo's) viewed as bool: numpy's nonzero is several times faster on bool.
    legal = np.flatnonzero(mask.view(np.bool_))
    return int(legal[rng.randrange(len(legal))])


def plain_loop(steps: int) -> int:
    rng, seed = random.Random(0), 0
    g = sequence_game.Game(players=2, seed=seed)
    for _ in range(steps):
        if g.is_over:
            seed += 1
            g = sequence_game.Game(players=2, seed=seed)
        g.play_action(_choose(rng, g.legal_mask()))
    return seed


@pytest.mark.benchmark(group="env steps")
def test_plain_legal_mask_play_action_loop(benchmark):
    benchmark.extra_info["steps"] = STEPS
    assert benchmark(plain_loop, STEPS) >= 0


def pettingzoo_loop(make, steps: int) -> int:
    rng, seed = random.Random(0), 0
    e = make(players=2)
    e.reset(seed=seed)
    done = 0
    while done < steps:
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            e.step(None)
            if not e.agents:
                seed += 1
                e.reset(seed=seed)
            continue
        e.step(_choose(rng, obs["action_mask"]))
        done += 1
    return seed


@pytest.mark.benchmark(group="env steps")
@pytest.mark.parametrize("wrapped", [True, False], ids=["env()", "raw_env()"])
def test_pettingzoo_steps(benchmark, wrapped):
    pz = pytest.importorskip("sequence_game.envs.pettingzoo", reason="the [rl] extra is not installed")
    benchmark.extra_info["steps"] = STEPS
    assert benchmark(pettingzoo_loop, pz.env if wrapped else pz.raw_env, STEPS) >= 0


def gymnasium_loop(steps: int) -> int:
    from sequence_game.envs.gymnasium import SequenceEnv

    rng, seed = random.Random(0), 0
    env = SequenceEnv(players=2, opponents="random")
    obs, info = env.reset(seed=seed)
    done = 0
    while done < steps:
        turn = env.game.turn
        obs, _reward, terminated, truncated, info = env.step(_choose(rng, info["action_mask"]))
        done += max(1, env.game.turn - turn)
        if terminated or truncated:
            seed += 1
            _obs, info = env.reset(seed=seed)
    return seed


@pytest.mark.benchmark(group="env steps")
def test_gymnasium_steps(benchmark):
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    benchmark.extra_info["steps"] = STEPS
    assert benchmark(gymnasium_loop, STEPS) >= 0
