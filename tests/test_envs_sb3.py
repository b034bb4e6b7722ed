"""The Stable-Baselines3 ``VecEnv`` over the batched core: SB3's autoreset conventions (terminal
observations, time-limit truncation), rewards (R8), masks for sb3-contrib, seeding, and a short
MaskablePPO training run whose saved model then plays as ``policy:model.zip``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="the [train] extra is not installed")
from sequence_game import IllegalMoveError
from sequence_game.envs.sb3 import SequenceVecEnv
from sequence_game.observation import OBSERVATION_SCALE
from stable_baselines3.common.vec_env import VecEnv, VecMonitor


def _random_actions(venv, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in venv.env_method("action_masks")])


def test_autoreset_terminal_observations_and_rewards():
    venv = SequenceVecEnv(6, players=3, seat=1, opponents={0: "greedy", 2: "random"}, seed=3, max_turns=45)
    assert isinstance(venv, VecEnv) and venv.seat == 1
    obs = venv.reset()
    np.testing.assert_array_equal(obs, venv.game.observations(players=1))
    rng = np.random.default_rng(0)
    ended = truncated = 0
    for _ in range(150):
        assert (venv.game.current_players() == 1).all()
        obs, rewards, dones, infos = venv.step(_random_actions(venv, rng))
        np.testing.assert_array_equal(obs, venv.game.observations(players=1))  # the next episode already
        finals = venv.game.final_observations(players=np.full(6, 1, dtype=np.int32))
        for row, i in enumerate(np.flatnonzero(dones)):
            np.testing.assert_array_equal(infos[i]["terminal_observation"], finals[row])
            final = venv.game.copy_game(i, final=True)
            expected = 0.0 if final.winner is None else (1.0 if final.winner == 1 % 3 else -1.0)
            assert rewards[i] == expected
            assert infos[i]["TimeLimit.truncated"] == (final.winner is None and final.turn >= 45)
            truncated += infos[i]["TimeLimit.truncated"]
        assert all("terminal_observation" not in infos[i] for i in np.flatnonzero(~dones))
        assert not rewards[~dones].any()
        ended += int(dones.sum())
    assert ended > 0 and truncated > 0


def test_seed_reproduces_masks_and_normalize():
    a = SequenceVecEnv(4, opponents="random", seed=1)
    b = SequenceVecEnv(4, opponents="random", seed=2, normalize=True)
    a.seed(7)
    b.seed(7)
    np.testing.assert_allclose(b.reset(), a.reset() / OBSERVATION_SCALE, rtol=1e-6)
    assert all(b.observation_space.contains(row) for row in b.reset())
    masks = a.action_masks()
    assert masks.shape == (4, 5253) and masks.dtype == bool
    np.testing.assert_array_equal(np.stack(a.env_method("action_masks")), masks)
    assert a.has_attr("action_masks") and a.get_attr("render_mode") == [None] * 4
    bad = _random_actions(a, np.random.default_rng(0))
    bad[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(IllegalMoveError, match="game 2"):
        a.step(bad)
    with pytest.raises(ValueError, match="self-play"):
        SequenceVecEnv(2, opponents=None)
    with pytest.raises(ValueError, match="every seat but"):
        SequenceVecEnv(2, players=3, opponents={1: "greedy"})
    with pytest.raises(AttributeError, match="action_masks"):
        a.env_method("render")


def test_maskable_ppo_trains_on_the_batched_env_and_its_model_plays_by_spec(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    from sequence_game.agents import agent_from_spec
    from sequence_game.arena import match

    venv = VecMonitor(SequenceVecEnv(8, opponents="random", seed=0, normalize=True, max_turns=200))
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and len(model.ep_info_buffer) > 0  # episodes ended and were counted
    model.save(tmp_path / "ppo.zip")
    agent = agent_from_spec(f"policy:{tmp_path / 'ppo.zip'}")
    assert agent.policy.normalize  # read from the saved observation space
    result = match([agent, "random"], games=2, seed=1, max_turns=80)
    assert result.games == 2


def test_every_batched_form_has_a_public_sample_actions():
    """``VectorGame``, ``SequenceVectorEnv`` and ``SequenceVecEnv`` draw one legal action per game
    from the caller's generator: the same draws for the same generator seed and the same games."""
    from sequence_game.envs.vector import SequenceVectorEnv

    venv = SequenceVecEnv(16, opponents="random", seed=4)
    venv.reset()
    env = SequenceVectorEnv(16, opponents="random", seed=4)
    env.reset()
    np.testing.assert_array_equal(venv.game.seeds(), env.game.seeds())  # the same games
    for _ in range(30):
        masks = venv.action_masks()
        a = venv.sample_actions(np.random.default_rng(7))
        assert a.dtype == np.int64 and a.shape == (16,)
        assert masks[np.arange(16), a].all()
        np.testing.assert_array_equal(a, env.sample_actions(np.random.default_rng(7)))
        np.testing.assert_array_equal(a, venv.game.sample_actions(np.random.default_rng(7)))
        venv.step(a)
        env.step(a)
    for form in (venv, env, venv.game):
        with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
            form.sample_actions(7)


def test_masks_are_those_of_the_current_step_in_every_reading():
    """The adapter keeps one pass of masks and action lists per step: ``action_masks()``,
    ``env_method`` rows (read-only) and ``sample_actions`` always follow the games, also when they
    are stepped through ``venv.game``."""
    venv = SequenceVecEnv(8, opponents="random", seed=2)
    venv.reset()
    rng = np.random.default_rng(1)
    for k in range(20):
        rows = venv.env_method("action_masks")
        assert not rows[0].flags.writeable
        np.testing.assert_array_equal(np.stack(rows), venv.game.legal_masks())
        np.testing.assert_array_equal(venv.action_masks(), venv.game.legal_masks())
        if k % 2:
            venv.game.step(venv.sample_actions(rng))  # the cache sees the change (VectorGame.version)
        else:
            venv.step(venv.sample_actions(rng))


def test_net_and_callable_opponents():
    """The network (``net``, ``policy:PATH.sqnet``) and a callable over batched observations are
    opponents of the SB3 form too; a callable gets scaled observations with ``normalize=True``."""
    from sequence_game.agents.net import DEFAULT_WEIGHTS

    seen = []

    def opponent(obs, masks):
        seen.append(float(obs.max()))
        return masks.argmax(axis=1)

    for opponents in ("net", f"policy:{DEFAULT_WEIGHTS}", {1: opponent}):
        venv = SequenceVecEnv(3, opponents=opponents, seat=0, seed=2, normalize=True)
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(20):
            assert (venv.game.current_players() == 0).all()
            venv.step(_random_actions(venv, rng))
    assert seen and max(seen) <= 1.0
    with pytest.raises(ValueError, match="core plays only"):
        SequenceVecEnv(2, opponents="level:2")
