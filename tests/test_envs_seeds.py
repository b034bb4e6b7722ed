"""Seeds line up across the environment forms: every form deals ``Game(seed=s)`` for a chosen game
seed ``s`` (``reset(options={"game_seed": s})`` in the per-game forms, ``dealt_state`` in OpenSpiel,
``VectorGame.seeds()`` naming the batched forms' games), the same seeds give the same trajectories
in the per-game and batched forms, and unknown reset options are refused (PettingZoo: warned of,
as its api_test resets with a made-up one)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
from sequence_game import Game, VectorGame
from sequence_game.envs.gymnasium import SequenceEnv
from sequence_game.envs.vector import SequenceVectorEnv
from sequence_game.vector import seed_dealing

CAP = 200


def _batched_trajectories(opponents, games=6, seed=11, steps=400):
    """Each game's first episode in ``SequenceVectorEnv``: its Game seed, first observation and
    ``[(action, obs, reward, terminated, truncated)]`` up to its end."""
    env = SequenceVectorEnv(games, opponents=opponents, seed=seed, max_turns=CAP)
    obs, _ = env.reset(seed=seed)
    seeds = env.game.seeds().copy()
    first = obs.copy()
    runs = [[] for _ in range(games)]
    done = np.zeros(games, dtype=bool)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = env.sample_actions(rng)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i in np.flatnonzero(~done):
            ended = bool(terminated[i] or truncated[i])
            seen = infos["final_obs"][i] if ended else obs[i]
            runs[i].append((int(actions[i]), seen.copy(), float(rewards[i]), bool(terminated[i]), bool(truncated[i])))
        done |= terminated | truncated
        if done.all():
            break
    assert done.all(), "every first episode ends within the cap"
    return seeds, first, runs


@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_the_per_game_env_replays_a_batched_game_from_its_seed(opponents):
    seeds, first, runs = _batched_trajectories(opponents)
    env = SequenceEnv(opponents=opponents, max_turns=CAP)
    for i, run in enumerate(runs):
        obs, _info = env.reset(options={"game_seed": seeds[i]})  # a numpy uint64, as seeds() gives it
        assert env.game_seed == int(seeds[i])
        np.testing.assert_array_equal(obs, first[i])
        for action, want, reward, terminated, truncated in run:
            got, r, te, tr, _info = env.step(action)
            np.testing.assert_array_equal(got, want)
            assert (r, te, tr) == (reward, terminated, truncated)
        assert te or tr


def test_every_per_game_form_deals_the_chosen_game_seed():
    pz = pytest.importorskip("sequence_game.envs.pettingzoo")
    seed = 2**64 - 5  # the whole range: not only the seeds np_random draws
    want = Game(players=2, seed=seed, max_turns=CAP)
    core = SequenceEnv(opponents="greedy", max_turns=CAP)
    python = SequenceEnv(opponents={1: "mcts:iterations=5"}, max_turns=CAP)  # opponents in Python
    for env in (core, python):
        obs, _info = env.reset(seed=1, options={"game_seed": seed})
        assert env.game_seed == seed
        np.testing.assert_array_equal(obs, want.observation_tensor(0))
        assert env.game.hand(0) == want.hand(0) and env.game.hand(1) == want.hand(1)
    aec = pz.raw_env(players=2, max_turns=CAP)
    aec.reset(seed=3, options={"game_seed": seed})
    assert aec.game_seed == seed and aec.game.to_dict() == want.to_dict()
    aec.reset(seed=seed)  # PettingZoo's seed is the game seed itself
    assert aec.game.to_dict() == want.to_dict()


def test_without_game_seed_the_core_and_python_opponents_deal_the_same_game():
    """``reset(seed=s)`` draws the game seed from ``np_random``; with opponents in the core or in
    Python it is dealt alike (``VectorGame`` is seeded with ``seed_dealing``)."""
    core = SequenceEnv(opponents="random", max_turns=CAP)
    python = SequenceEnv(opponents={1: "mcts:iterations=5"}, max_turns=CAP)
    for s in (0, 9):
        core.reset(seed=s)
        python.reset(seed=s)
        # The seed the game was dealt from (the opponents may have moved since: R4's first seat).
        assert core.game_seed == python.game_seed == core.game.to_dict()["seed"] == python.game.to_dict()["seed"]


def test_vector_game_seed_dealing_inverts_episode_seed():
    from sequence_game import _core

    for game_seed in (0, 1, 12345, 2**63, 2**64 - 1):
        vg = VectorGame(1, seed=seed_dealing(game_seed))
        assert int(vg.seeds()[0]) == game_seed == _core.episode_seed(seed_dealing(game_seed), 0, 0)
    with pytest.raises(ValueError, match="out of range"):
        seed_dealing(2**64)


def test_pettingzoo_self_play_follows_the_batched_self_play_game():
    pz = pytest.importorskip("sequence_game.envs.pettingzoo")
    vg = VectorGame(3, players=2, seed=5, max_turns=CAP)
    seeds = vg.seeds().copy()
    rng = np.random.default_rng(0)
    actions = []
    for _ in range(60):
        a = vg.sample_actions(rng)
        actions.append(a)
        vg.step(a)
    for i in range(3):
        aec = pz.raw_env(players=2, max_turns=CAP)
        aec.reset(options={"game_seed": seeds[i]})
        replay = VectorGame(3, players=2, seed=5, max_turns=CAP)
        for a in actions:
            if aec.game.is_over:
                break
            np.testing.assert_array_equal(aec.observe(aec.agent_selection)["observation"],
                                          replay.observations()[i])
            aec.step(int(a[i]))
            replay.step(a)


def test_openspiel_deals_the_chosen_game_seed():
    pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed")
    import pyspiel
    from sequence_game.envs.openspiel import dealt_state, seed_outcomes

    game = pyspiel.load_game("python_sequence", {"players": 3})
    state = dealt_state(game, 2**64 - 5)
    assert not state.is_chance_node()
    assert state.game.to_dict() == Game(players=3, seed=2**64 - 5, max_turns=1000).to_dict()
    assert seed_outcomes(258) == [2, 1, 0, 0, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="game_seed"):
        seed_outcomes(-1)


def test_unknown_reset_options_are_refused_in_every_form():
    pz = pytest.importorskip("sequence_game.envs.pettingzoo")
    env = SequenceEnv(opponents="random")
    with pytest.raises(ValueError, match=r"unknown reset option.*'gamed_seed'"):
        env.reset(options={"gamed_seed": 3})
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=["game_seed"])
    with pytest.raises(TypeError, match="game_seed"):
        env.reset(options={"game_seed": "7"})
    with pytest.raises(ValueError, match="game_seed"):
        env.reset(options={"game_seed": -1})
    with pytest.warns(UserWarning, match="'opponent' ignored"):  # PettingZoo's api_test resets with one
        pz.raw_env().reset(options={"opponent": "greedy"})
    with pytest.raises(ValueError, match="game_seed"):
        pz.raw_env().reset(options={"game_seed": 2**64})
    with pytest.raises(ValueError, match="takes no options"):
        SequenceVectorEnv(2, seed=0).reset(options={"game_seed": 3})
    env.reset(options={})  # no option: as without options


def test_sb3_vec_env_refuses_reset_options():
    pytest.importorskip("stable_baselines3", reason="the [train] extra is not installed")
    from sequence_game.envs import sb3

    venv = sb3.SequenceVecEnv(2, opponents="random", seed=0)
    venv.set_options({"game_seed": 3})
    with pytest.raises(ValueError, match="takes no options"):
        venv.reset()


# One seed, one deal: each pair of forms below deals the same games from the same seed; where they
# differ (the turn cap of the environments against none for Game and VectorGame), exactly that.


def test_the_gymnasium_env_deals_game_seed_with_the_environments_turn_cap():
    """``SequenceEnv.reset(options={"game_seed": s})`` is ``Game(seed=s, max_turns=1000)``: the
    cards of ``Game(seed=s)`` and its moves; only the cap (1000 turns, every environment's default,
    against none) differs, and with it the observation's ``max_turns`` input."""
    from sequence_game.envs._common import DEFAULT_MAX_TURNS

    # Seeds whose deal has seat 0, the learning seat, move first (R4): the greedy seat has not moved.
    seeds = [s for s in (*range(3, 12), 2**64 - 5) if Game(players=2, seed=s).current_player == 0][:3]
    assert len(seeds) == 3
    for seed in seeds:
        env = SequenceEnv(opponents="greedy")
        obs, _info = env.reset(options={"game_seed": seed})
        capped = Game(players=2, seed=seed, max_turns=DEFAULT_MAX_TURNS)
        uncapped = Game(players=2, seed=seed)
        assert env.game.to_dict() == capped.to_dict()
        np.testing.assert_array_equal(obs, capped.observation_tensor(0))
        plain, cap = uncapped.to_dict(), capped.to_dict()
        assert {k for k in plain if plain[k] != cap.get(k)} | {k for k in cap if k not in plain} == {"max_turns"}
        differs = np.flatnonzero(obs != uncapped.observation_tensor(0))
        from sequence_game.observation import LAYOUT

        start, size = LAYOUT["max_turns"]
        assert len(differs) and set(differs.tolist()) <= set(range(start, start + size))
        env.close()


def test_batched_envs_deal_vector_game_seed_at_reset_and_construction():
    """``SequenceVectorEnv(seed=s)``'s constructor, its first ``reset()``, ``reset(seed=s)`` and
    ``VectorGame(n, seed=s, max_turns=1000)`` deal the same games; later resets without a seed deal
    other games, reproducibly."""
    want = VectorGame(5, seed=3, max_turns=1000, opponents={1: "greedy"})
    seeds = want.seeds()
    env = SequenceVectorEnv(5, opponents="greedy", seed=3)
    np.testing.assert_array_equal(env.game.seeds(), seeds)       # the constructor's deals
    obs, _ = env.reset()                                            # the first reset keeps them
    np.testing.assert_array_equal(env.game.seeds(), seeds)
    np.testing.assert_array_equal(obs, want.observations(players=0))
    env.reset()
    second = env.game.seeds().copy()
    assert not np.array_equal(second, seeds)
    other = SequenceVectorEnv(5, opponents="greedy", seed=99)
    other.reset(seed=3)
    np.testing.assert_array_equal(other.game.seeds(), seeds)      # reset(seed=s) deals s
    other.reset()
    np.testing.assert_array_equal(other.game.seeds(), second)     # then the same stream
    assert env.game.max_turns == 1000 and VectorGame(1).max_turns is None


def test_sb3_first_reset_plays_the_constructors_deals_and_seed_deals_vector_game_seed():
    pytest.importorskip("stable_baselines3", reason="the [train] extra is not installed")
    from sequence_game.envs import sb3

    seeds = VectorGame(4, seed=3, max_turns=1000).seeds()
    venv = sb3.SequenceVecEnv(4, opponents="random", seed=3)
    built = venv.game.seeds().copy()
    venv.reset()  # what SB3's learn() does first
    np.testing.assert_array_equal(built, seeds)
    np.testing.assert_array_equal(venv.game.seeds(), seeds)
    other = sb3.SequenceVecEnv(4, opponents="random", seed=8)
    other.seed(3)
    other.reset()
    np.testing.assert_array_equal(other.game.seeds(), seeds)
