"""The PettingZoo environment passes PettingZoo's own tests (api_test, seed_test, render_test)
for every player count and team split (R2), and keeps the rules' promises: team rewards to every
member (R8), the turn cap as truncation, the same agent after a trade (R5) or while declaring (R7)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo", reason="the [rl] extra is not installed")
from helpers import CONFIGS, board_rows, position_dict  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402
from sequence_game import IllegalMoveError  # noqa: E402
from sequence_game.actions import CARD_IDS, TRADE_ACTION_BASE  # noqa: E402
from sequence_game.envs.pettingzoo import SequenceAECEnv, env, raw_env  # noqa: E402
from test_actions import CROSS  # noqa: E402


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_pettingzoo_api_test(players, teams):
    api_test(env(players=players, teams=teams), num_cycles=400)
    api_test(raw_env(players=players, teams=teams), num_cycles=400)


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_pettingzoo_seed_test(players, teams):
    seed_test(functools.partial(env, players=players, teams=teams), num_cycles=50)


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_pettingzoo_render_test(players, teams, capsys):
    render_test(functools.partial(env, players=players, teams=teams))
    assert "turn" in capsys.readouterr().out  # "human" printed the board


def _play_out(e, rng):
    for _agent in e.agent_iter():
        obs, _reward, terminated, truncated, _info = e.last()
        e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("players,teams", [(4, 2), (6, 3), (3, 3)])
def test_r8_rewards_per_team_to_every_member(players, teams):
    rng = np.random.default_rng(players)
    for seed in range(6):
        e = raw_env(players=players, teams=teams)
        e.reset(seed=seed)
        game = e.game
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _info = e.last()
            totals[agent] += reward
            e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert game.is_over
        for p, agent in enumerate(e.possible_agents):
            expected = 0.0 if game.winner is None else (1.0 if p % teams == game.winner else -1.0)
            assert totals[agent] == expected


def test_turn_cap_is_truncation_and_a_draw():
    e = raw_env(players=2, max_turns=6)
    e.reset(seed=2)
    steps = 0
    for _agent in e.agent_iter():
        obs, reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            assert truncated and not terminated and reward == 0.0
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert e.agents == [] and steps >= 6


def _from_position(e, d):
    e.reset(seed=0)
    from sequence_game import Game

    e.game = Game.from_dict(d)
    e.agent_selection = e.possible_agents[e.game.current_player]


def test_r5_the_same_agent_moves_again_after_a_dead_card_trade():
    # 2S is dead: both its cells (b1 and g9) are covered.
    d = position_dict(2, board=board_rows(G=["b1", "g9"]), hands=[["2S", "5D"], ["3S"]])
    e = raw_env(players=2)
    _from_position(e, d)
    assert e.agent_selection == "player_0"
    e.step(TRADE_ACTION_BASE + CARD_IDS["2S"])
    assert e.agent_selection == "player_0" and e.game.traded_this_turn
    obs = e.observe("player_0")
    assert obs["action_mask"][TRADE_ACTION_BASE + CARD_IDS["2S"]] == 0


def test_r7_the_same_agent_declares_its_sequences():
    d = position_dict(2, board=board_rows(**CROSS), hands=[["7H", "2S"], ["3S"]])
    e = raw_env(players=2)
    _from_position(e, d)
    e.step(CARD_IDS["7H"] * 100 + 53)
    assert e.agent_selection == "player_0"
    mask = e.observe("player_0")["action_mask"]
    assert mask.sum() == 3 and e.observe("player_1")["action_mask"].sum() == 0
    e.step(int(np.flatnonzero(mask)[0]))
    assert e.agent_selection == "player_0"
    e.step(int(np.flatnonzero(e.observe("player_0")["action_mask"])[0]))
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_illegal_action_raw_raises_and_wrapped_ends_the_game():
    e = raw_env(players=2)
    e.reset(seed=5)
    before = e.game.to_dict()
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalMoveError):
        e.step(bad)
    assert e.game.to_dict() == before
    w = env(players=2)
    w.reset(seed=5)
    agent = w.agent_selection
    with pytest.warns(UserWarning, match="illegal action"):
        w.step(bad)
    assert all(w.terminations.values()) and w.rewards == {agent: -1.0, ("player_1" if agent == "player_0" else "player_0"): 0.0}
    assert w.unwrapped.game.to_dict() == before
    assert not w.observe(agent)["action_mask"].any()
    while w.agents:
        w.step(None)


def test_observation_is_the_seats_tensor_and_only_the_mover_has_a_mask():
    e = raw_env(players=4)
    e.reset(seed=7)
    mover = e.agent_selection
    for agent in e.agents:
        obs = e.observe(agent)
        seat = int(agent.split("_")[1])
        assert np.array_equal(obs["observation"], e.game.observation_tensor(seat))
        assert obs["action_mask"].dtype == np.int8
        assert (obs["action_mask"].sum() > 0) == (agent == mover)
        assert e.observation_space(agent).contains(obs)


def test_ansi_render_is_the_text_board_and_bad_arguments_are_refused():
    e = raw_env(players=2, render_mode="ansi")
    e.reset(seed=1)
    assert e.render() == str(e.game)
    with pytest.raises(ValueError, match="render_mode"):
        SequenceAECEnv(render_mode="video")
    with pytest.raises(ValueError, match="players"):
        SequenceAECEnv(players=5)
    with pytest.raises(ValueError):
        SequenceAECEnv(players=4, teams=3)


# ---------------------------------------------------------------- the ParallelEnv


@pytest.mark.parametrize("players,teams", [(2, 2), (3, 3), (4, 2), (6, 2), (6, 3)])
def test_parallel_env_passes_pettingzoos_parallel_api_test(players, teams):
    from pettingzoo.test import parallel_api_test
    from sequence_game.envs.pettingzoo import parallel_env

    with pytest.warns(UserWarning, match="'options' ignored"):  # the test resets with a made-up option
        parallel_api_test(parallel_env(players=players, teams=teams), num_cycles=400)


@pytest.mark.parametrize("players", [2, 4])
def test_parallel_env_passes_pettingzoos_parallel_seed_test(players):
    from pettingzoo.test import parallel_seed_test
    from sequence_game.envs.pettingzoo import parallel_env

    parallel_seed_test(functools.partial(parallel_env, players=players), num_cycles=50)


def test_parallel_env_plays_the_aec_game_and_ignores_the_others_actions():
    """The same seed and the mover's actions give the AEC env's game, observations and rewards;
    the actions of agents not to move are ignored (any value, or left out)."""
    from sequence_game.envs.pettingzoo import parallel_env

    rng = np.random.default_rng(3)
    par = parallel_env(players=4)
    aec = raw_env(players=4)
    obs, infos = par.reset(seed=7)
    aec.reset(seed=7)
    assert set(obs) == set(infos) == set(par.possible_agents)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    steps = 0
    while par.agents:
        mover = par.agent_selection
        assert mover == aec.agent_selection
        for agent in par.agents:
            np.testing.assert_array_equal(obs[agent]["observation"], aec.observe(agent)["observation"])
            assert obs[agent]["action_mask"].any() == (agent == mover)
        action = int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))
        others = {a: (None if k % 2 else 5252) for k, a in enumerate(par.agents) if a != mover and k != 1}
        obs, rewards, terminated, truncated, _ = par.step({mover: action, **others})
        aec.step(action)
        for agent, r in rewards.items():
            totals[agent] += r
        steps += 1
    game = aec.game
    assert par.game.to_dict() == game.to_dict() and steps >= 4
    assert all(terminated.values()) or all(truncated.values())
    for p, agent in enumerate(par.possible_agents):
        assert totals[agent] == (0.0 if game.winner is None else (1.0 if p % 2 == game.winner else -1.0))
    with pytest.raises(RuntimeError, match="reset"):
        par.step({})


def test_parallel_env_illegal_action_and_missing_mover():
    from sequence_game.envs.pettingzoo import parallel_env

    par = parallel_env(players=2)
    obs, _ = par.reset(seed=1)
    mover = par.agent_selection
    other = next(a for a in par.agents if a != mover)
    with pytest.raises(ValueError, match=f"no action for {mover}"):
        par.step({other: 0})
    with pytest.raises(TypeError, match="dict"):
        par.step([0, 0])
    illegal = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    _obs, rewards, terminated, _truncated, _ = par.step({mover: illegal})
    assert rewards == {mover: -1.0, other: 0.0} and all(terminated.values()) and par.agents == []
    raising = parallel_env(players=2, illegal="raise")
    raising.reset(seed=1)
    with pytest.raises(IllegalMoveError):
        raising.step({raising.agent_selection: illegal})
    assert raising.agents  # nothing changed
