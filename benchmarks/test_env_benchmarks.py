"""Learner steps per second on every path a researcher takes (docs/environments.md), against random
and greedy opponents: the Gymnasium env (opponents in the core, and the same agents in Python), its
synchronous vector form, PettingZoo, the batched ``SequenceVectorEnv``, and the Stable-Baselines3
adapter; and a plain ``legal_mask()`` + ``play_action()`` loop as the floor.

    python -m pytest benchmarks/test_env_benchmarks.py --benchmark-group-by=param:opponent \\
        --benchmark-columns=mean,rounds

The learner plays uniformly random legal actions chosen from the mask; a step is one learner
action (the opponents' moves between two learner actions are part of it). One round plays
``extra_info["steps"]`` learner steps: steps/s = steps / mean. The per-game paths play 2-player
games to the end (seeds 0, 1, ...); the batched ones step 256 games together.
"""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
import sequence_game
from sequence_game.actions import action_of_move
from sequence_game.agents import GreedyAgent, RandomAgent

STEPS = 1000  # learner steps per round, per-game paths
GAMES, BATCH_STEPS = 256, 20  # batched paths: games stepped together, steps per round
OPPONENTS = ["random", "greedy"]


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
    """Every ply a random action (both seats): the floor without an environment."""
    benchmark.extra_info["steps"] = STEPS
    assert benchmark(plain_loop, STEPS) >= 0


def gymnasium_loop(env, steps: int) -> int:
    rng, seed = random.Random(0), 0
    _obs, info = env.reset(seed=seed)
    for _ in range(steps):
        _obs, _reward, terminated, truncated, info = env.step(_choose(rng, info["action_mask"]))
        if terminated or truncated:
            seed += 1
            _obs, info = env.reset(seed=seed)
    return seed


@pytest.mark.benchmark(group="env steps")
@pytest.mark.parametrize("opponent", OPPONENTS)
@pytest.mark.parametrize("where", ["core", "python"])
def test_gymnasium_steps(benchmark, opponent, where):
    """``SequenceEnv``: the spec (played in the core) or the agent object (played in Python)."""
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.gymnasium import SequenceEnv

    agent = opponent if where == "core" else {"random": RandomAgent, "greedy": GreedyAgent}[opponent](seed=1)
    env = SequenceEnv(players=2, opponents=agent)
    assert (env._core_seats is not None) == (where == "core")
    benchmark.extra_info["steps"] = STEPS
    assert benchmark(gymnasium_loop, env, STEPS) >= 0


def vector_loop(env, steps: int) -> None:
    rng = random.Random(0)
    _obs, info = env.reset(seed=0)
    for _ in range(steps):
        # A game that just ended shows no legal action: its next step is the reset (NEXT_STEP
        # autoreset), which ignores the action.
        actions = np.array([_choose(rng, m) if m.any() else 0 for m in info["action_mask"]])
        _obs, _rewards, _terminated, _truncated, info = env.step(actions)


@pytest.mark.benchmark(group="env steps")
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_gymnasium_sync_vector_steps(benchmark, opponent):
    """``gymnasium.make_vec(..., vectorization_mode="sync")``: 8 per-game envs in one process."""
    gymnasium = pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.gymnasium import ENV_ID

    env = gymnasium.make_vec(ENV_ID, num_envs=8, vectorization_mode="sync", opponents=opponent)
    benchmark.extra_info["steps"] = 8 * (STEPS // 8)
    benchmark(vector_loop, env, STEPS // 8)
    env.close()


def pettingzoo_loop(env, opponent, steps: int) -> int:
    """Seat 0 learns (random actions); seat 1 plays random actions from its mask or GreedyAgent's
    move (its first action; declare actions, R7, random from the mask)."""
    rng, seed = random.Random(0), 0
    env.reset(seed=seed)
    done = 0
    while done < steps:
        obs, _reward, terminated, truncated, _info = env.last()
        agent = env.agent_selection
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                seed += 1
                env.reset(seed=seed)
            continue
        game = env.unwrapped.game
        if agent == "player_1" and opponent is not None and game.pending_placement is None:
            env.step(action_of_move(opponent.select_move(game)))
            continue
        env.step(_choose(rng, obs["action_mask"]))
        done += agent == "player_0"
    return seed


@pytest.mark.benchmark(group="env steps")
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_pettingzoo_steps(benchmark, opponent):
    pz = pytest.importorskip("sequence_game.envs.pettingzoo", reason="the [rl] extra is not installed")
    benchmark.extra_info["steps"] = STEPS
    agent = GreedyAgent(seed=1) if opponent == "greedy" else None
    assert benchmark(pettingzoo_loop, pz.raw_env(players=2), agent, STEPS) >= 0


def batched_loop(env, steps: int) -> None:
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(steps):
        env.step(env.sample_actions(rng))


@pytest.mark.benchmark(group="env steps")
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_sequence_vector_env_steps(benchmark, opponent):
    """``SequenceVectorEnv``: observations, masks (in infos) and final observations every step."""
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.vector import SequenceVectorEnv

    env = SequenceVectorEnv(GAMES, opponents=opponent, seed=0)
    benchmark.extra_info["steps"] = GAMES * BATCH_STEPS
    benchmark(batched_loop, env, BATCH_STEPS)


def sb3_loop(venv, steps: int, masks: bool = True) -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks

    rng = np.random.default_rng(0)
    venv.seed(0)
    venv.reset()
    for _ in range(steps):
        if masks:
            get_action_masks(venv)  # what MaskablePPO reads before every step: env_method, stacked
        venv.step(venv.sample_actions(rng))


@pytest.mark.benchmark(group="env steps")
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_sb3_vec_env_steps(benchmark, opponent):
    """``sequence_game.envs.sb3.SequenceVecEnv``: observations, per-game infos, masks."""
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    from sequence_game.envs.sb3 import SequenceVecEnv

    venv = SequenceVecEnv(GAMES, opponents=opponent, seed=0)
    benchmark.extra_info["steps"] = GAMES * BATCH_STEPS
    benchmark(sb3_loop, venv, BATCH_STEPS)


def adapter_ratio(opponent: str, masks: bool, rounds: int = 7, games: int = GAMES,
                  steps: int = BATCH_STEPS) -> float:
    """The SB3 adapter's learner steps per second over ``SequenceVectorEnv``'s, the same opponents
    and game count, both stepping ``sample_actions(rng)``; ``masks``: the adapter's loop also reads
    the masks as sb3-contrib's MaskablePPO does (``env_method`` rows, stacked by sb3-contrib), which
    ``SequenceVectorEnv`` hands over in ``infos``. The fastest of ``rounds`` interleaved rounds of
    each, which other load on the machine slows least."""
    from sequence_game.envs.sb3 import SequenceVecEnv
    from sequence_game.envs.vector import SequenceVectorEnv

    env = SequenceVectorEnv(games, opponents=opponent, seed=0)
    venv = SequenceVecEnv(games, opponents=opponent, seed=0)
    vector, sb3 = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        batched_loop(env, steps)
        vector.append(time.perf_counter() - start)
        start = time.perf_counter()
        sb3_loop(venv, steps, masks)
        sb3.append(time.perf_counter() - start)
    return min(vector) / min(sb3)


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_sb3_adapter_keeps_80_percent_of_the_vector_env(benchmark, opponent):
    """Both forms make the same core calls per step (one pass for masks and action lists); the
    adapter adds SB3's per-game info dicts and keeps at least 80% of ``SequenceVectorEnv``'s rate.
    With MaskablePPO's mask reading, whose per-game rows sb3-contrib stacks, it is printed only
    (docs/measurements.md)."""
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    if benchmark.disabled:  # CI: the loops run once; a ratio of a run this short says nothing
        adapter_ratio(opponent, masks=True, rounds=1, games=8, steps=2)
        return
    ratio = benchmark.pedantic(adapter_ratio, args=(opponent, False), rounds=1, iterations=1)
    with_masks = adapter_ratio(opponent, masks=True)
    benchmark.extra_info.update(ratio=ratio, ratio_with_maskable_ppo_masks=with_masks)
    print(f"\nSequenceVecEnv / SequenceVectorEnv, {opponent} opponents, {GAMES} games: {ratio:.2f} "
          f"({with_masks:.2f} with MaskablePPO's mask reading)")
    assert ratio >= 0.8
