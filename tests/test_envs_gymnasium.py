"""The Gymnasium environment passes Gymnasium's own ``check_env`` for every player count and team
split (R2), is reproducible through ``reset(seed=)``, and does what docs/environments.md says for
masks, illegal actions, opponents, rewards (R8) and the turn cap."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from helpers import CONFIGS  # noqa: E402
from sequence_game import IllegalMoveError  # noqa: E402
from sequence_game.agents import GreedyAgent, RandomAgent  # noqa: E402
from sequence_game.envs.gymnasium import ENV_ID, SequenceEnv  # noqa: E402


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_gymnasium_check_env(players, teams):
    e = gymnasium.make(ENV_ID, players=players, teams=teams, seat=players - 1, opponents="random")
    check_env(e.unwrapped)  # Gymnasium asks for the unwrapped env


def test_registered_and_default_opponents_are_greedy():
    e = gymnasium.make(ENV_ID)
    e.reset(seed=0)
    assert isinstance(e.unwrapped, SequenceEnv)
    assert all(isinstance(a, GreedyAgent) for a in e.unwrapped.opponents.values())


def _episode(e, seed, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    obs, info = e.reset(seed=seed)
    trace = [obs.copy()]
    while True:
        assert np.array_equal(info["action_mask"], e.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        trace.append(obs.copy())
        if terminated or truncated:
            return trace, reward, terminated, truncated


def test_reset_seed_reproduces_the_episode_and_opponents():
    a = gymnasium.make(ENV_ID, players=4, opponents="greedy")
    b = gymnasium.make(ENV_ID, players=4, opponents="greedy")
    ta, ra, *_ = _episode(a, seed=11)
    tb, rb, *_ = _episode(b, seed=11)
    assert ra == rb and len(ta) == len(tb) and all(np.array_equal(x, y) for x, y in zip(ta, tb))
    tc, *_ = _episode(a, seed=12)
    assert len(tc) != len(ta) or not all(np.array_equal(x, y) for x, y in zip(ta, tc))


@pytest.mark.parametrize("players,teams,seat", [(2, None, 1), (6, 3, 2), (4, 2, 3)])
def test_r8_reward_is_the_seats_team_result(players, teams, seat):
    e = SequenceEnv(players=players, teams=teams, seat=seat, opponents="random")
    for seed in range(5):
        _trace, reward, terminated, truncated = _episode(e, seed)
        game = e.game
        assert game.is_over and terminated != truncated
        expected = 0.0 if game.winner is None else (1.0 if seat % game.teams == game.winner else -1.0)
        assert reward == expected
        with pytest.raises(RuntimeError, match="reset"):
            e.step(0)


def test_turn_cap_is_truncation():
    e = SequenceEnv(players=2, opponents="random", max_turns=4)
    _trace, reward, terminated, truncated = _episode(e, seed=3)
    assert truncated and not terminated and reward == 0.0 and e.game.turn == 4


def test_illegal_action_loses_by_default_and_raises_on_request():
    e = SequenceEnv(players=2)
    obs, info = e.reset(seed=4)
    before = e.game.to_dict()
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    _obs, reward, terminated, truncated, info = e.step(bad)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert e.game.to_dict() == before and not info["action_mask"].any()
    strict = SequenceEnv(players=2, illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(IllegalMoveError):
        strict.step(bad)
    assert strict.game.to_dict() == before
    good = int(np.flatnonzero(strict.action_masks())[0])
    strict.step(good)


def test_opponents_as_agents_specs_or_a_list():
    agents = [RandomAgent(seed=1), "greedy:seed=2"]
    e = SequenceEnv(players=3, seat=1, opponents=agents)
    e.reset(seed=0)
    assert e.opponents[0] is agents[0] and isinstance(e.opponents[2], GreedyAgent)
    with pytest.raises(ValueError, match="list of 2"):
        SequenceEnv(players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown agent"):
        SequenceEnv(opponents="alphazero")
    with pytest.raises(TypeError, match="agent"):
        SequenceEnv(opponents=[object()])
    with pytest.raises(ValueError, match="seat"):
        SequenceEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="illegal"):
        SequenceEnv(illegal="ignore")


def test_ansi_render():
    e = SequenceEnv(render_mode="ansi")
    e.reset(seed=1)
    assert e.render() == str(e.game)
