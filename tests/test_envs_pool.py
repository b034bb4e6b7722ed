"""``PolicyPool``: snapshots kept on disk (the last ``keep``, found again on reopening), seeded
draws, and its batched opponent, which plays each game with one member of the pool from that
member's seat's observation only (R9)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from sequence_game import VectorGame
from sequence_game.actions import ACTION_COUNT
from sequence_game.envs.pool import PolicyPool
from sequence_game.observation import OBSERVATION_SIZE


def _write_policy(path, prefer: str) -> str:
    """A numpy policy that takes the legal action of lowest (``"low"``) or highest (``"high"``) id."""
    ramp = np.arange(ACTION_COUNT, dtype=np.float32)
    np.savez(path, w0=np.zeros((OBSERVATION_SIZE, 1), np.float32), b0=np.zeros(1, np.float32),
             w1=np.zeros((1, ACTION_COUNT), np.float32), b1=-ramp if prefer == "low" else ramp)
    return str(path)


@pytest.fixture
def files(tmp_path):
    return {k: _write_policy(tmp_path / f"{k}.npz", k) for k in ("low", "high")}


def test_pruning_keeps_the_last_n_and_reopening_finds_them(tmp_path, files):
    pool = PolicyPool(tmp_path / "league", keep=2)
    added = [pool.add(files["low" if k % 2 else "high"]) for k in range(4)]
    assert [os.path.basename(p) for p in added] == [f"snapshot-00000{k}.npz" for k in (1, 2, 3, 4)]
    assert pool.snapshots == added[2:]
    assert sorted(os.listdir(tmp_path / "league")) == ["snapshot-000003.npz", "snapshot-000004.npz"]
    with open(added[3], "rb") as a, open(files["low"], "rb") as b:
        assert a.read() == b.read()
    # A kill during add() leaves a partial file: reopening drops it, finds the snapshots, numbers on.
    (tmp_path / "league" / ".partial-000005.npz").write_bytes(b"cut short")
    again = PolicyPool(tmp_path / "league", keep=2)
    assert again.snapshots == added[2:] and not (tmp_path / "league" / ".partial-000005.npz").exists()
    assert os.path.basename(again.add(files["high"])) == "snapshot-000005.npz"
    assert [os.path.basename(p) for p in again.snapshots] == ["snapshot-000004.npz", "snapshot-000005.npz"]
    # Reopened with a smaller keep, it prunes to it.
    assert [os.path.basename(p) for p in PolicyPool(tmp_path / "league", keep=1).snapshots] == ["snapshot-000005.npz"]


def test_the_weights_follow_the_documented_rules(tmp_path, files):
    pool = PolicyPool(tmp_path / "p", sample="recent", fixed=["random"], fixed_share=0.4)
    np.testing.assert_allclose(pool.weights(), [1.0])  # the fixed members only, while there is no snapshot
    for _ in range(3):
        pool.add(files["low"])
    assert pool.members() == ["snapshot-000001.npz", "snapshot-000002.npz", "snapshot-000003.npz", "random"]
    np.testing.assert_allclose(pool.weights(), [0.1, 0.2, 0.3, 0.4])
    uniform = PolicyPool(tmp_path / "p", sample="uniform")
    np.testing.assert_allclose(uniform.weights(), [1 / 3] * 3)


def test_sampling_is_reproducible_under_a_seed(tmp_path, files):
    pool = PolicyPool(tmp_path / "p", sample="recent", fixed=["random"], seed=5)
    for _ in range(3):
        pool.add(files["high"])
    a, b, c = (pool.sample(400, np.random.default_rng(s)) for s in (7, 7, 8))
    assert a == b and a != c and set(a) == set(pool.members())
    deals = np.arange(1000, 3000, dtype=np.uint64)
    again = PolicyPool(tmp_path / "p", sample="recent", fixed=["random"], seed=5)
    np.testing.assert_array_equal(pool.draw(deals), again.draw(deals))
    other = PolicyPool(tmp_path / "p", sample="recent", fixed=["random"], seed=6)
    assert (pool.draw(deals) != other.draw(deals)).any()
    # The draws follow the weights: 2,000 deals, each share within 4 points of its weight.
    shares = np.bincount(pool.draw(deals), minlength=4) / len(deals)
    np.testing.assert_allclose(shares, pool.weights(), atol=0.04)


def _first_legal(vg: VectorGame) -> np.ndarray:
    return np.argmax(vg.legal_masks(), axis=1)


def test_each_game_plays_one_member_of_the_pool(tmp_path, files):
    """Two distinguishable snapshots: each game of the mixed pool plays exactly as the same deal
    against that game's member alone, and both members play some games."""
    mixed = PolicyPool(tmp_path / "mixed", seed=3)
    for k in ("low", "high"):
        mixed.add(files[k])
    opponent = mixed.opponent()
    games = {"mixed": VectorGame(24, seed=9, opponents={1: opponent})}
    for k in ("low", "high"):
        alone = PolicyPool(tmp_path / k)
        alone.add(files[k])
        games[k] = VectorGame(24, seed=9, opponents={1: alone.opponent()})
    for vg in games.values():  # the opponents first move (seat 1) after the caller's first move
        vg.step(_first_legal(vg))
    who = opponent.assigned(games["mixed"].seeds())
    member = {"snapshot-000001.npz": "low", "snapshot-000002.npz": "high"}
    assert {member[w] for w in who} == {"low", "high"}
    for _ in range(11):  # well inside the first episode of every game
        for vg in games.values():
            vg.step(_first_legal(vg))
    assert opponent.assigned(games["mixed"].seeds()) == who  # one member per game, all game long
    obs = {k: vg.observations(players=0) for k, vg in games.items()}
    differ = (obs["low"] != obs["high"]).any(axis=1)
    assert differ.sum() >= 20  # the two members play distinguishably
    for i, w in enumerate(who):
        np.testing.assert_array_equal(obs["mixed"][i], obs[member[w]][i])


def test_a_new_episode_draws_again_and_the_same_seed_the_same_opponents(tmp_path, files):
    pool = PolicyPool(tmp_path / "p", seed=1, fixed=["random"])
    pool.add(files["low"])
    opponent = pool.opponent()
    vg = VectorGame(32, seed=4, max_turns=6, opponents={1: opponent})
    vg.step(_first_legal(vg))
    first = opponent.assigned(vg.seeds())
    expected = [pool.members()[m] for m in pool.draw(vg.seeds())]
    assert first == expected and None not in first
    for _ in range(3):  # the cap ends every game at its sixth move; the next deal's opponent moves once
        vg.step(_first_legal(vg))
    assert (vg.episodes() == 1).all()
    second = opponent.assigned(vg.seeds())
    assert second == [pool.members()[m] for m in pool.draw(vg.seeds())] and second != first
    vg.reset(seed=4)
    assert opponent.assigned(vg.seeds()) == first


def test_a_snapshot_pruned_mid_game_finishes_its_games(tmp_path, files):
    pool = PolicyPool(tmp_path / "p", keep=1, seed=2)
    pool.add(files["low"])
    opponent = pool.opponent()
    vg = VectorGame(8, seed=5, opponents={1: opponent})
    vg.step(_first_legal(vg))
    pool.add(files["high"])  # prunes snapshot 1, which every game is playing
    assert pool.members() == ["snapshot-000002.npz"]
    for _ in range(5):
        vg.step(_first_legal(vg))
    assert set(opponent.assigned(vg.seeds())) == {"snapshot-000001.npz"}


def test_a_member_sees_only_its_own_seats_observation(tmp_path):
    """R9: a fixed member's rows are the observations of the seat to move, its own, in game order."""
    calls = []
    vg = None

    def recording(observations, masks):
        if vg is None:  # the constructor: the games whose deal has seat 1 moving first
            return np.argmax(masks, axis=1)
        rows = np.flatnonzero(vg.current_players() == 1)
        expected = np.stack([vg.copy_game(int(i)).observation_tensor(1) for i in rows])
        calls.append((observations.copy(), expected, vg.observations(players=0)[rows]))
        return np.argmax(masks, axis=1)

    pool = PolicyPool(tmp_path / "p", fixed=[recording])
    vg = VectorGame(6, seed=2, opponents={1: pool.opponent()})
    for _ in range(4):
        vg.step(_first_legal(vg))
    assert len(calls) == 4
    for seen, own, other in calls:
        np.testing.assert_array_equal(seen, own)
        assert (seen != other).any(axis=1).all()  # not the other seat's (its hand differs)


def test_the_batched_envs_take_the_pool_opponent(tmp_path, files):
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.vector import SequenceVectorEnv

    pool = PolicyPool(tmp_path / "p", fixed=["random"], seed=4)
    pool.add(files["low"])
    runs = []
    for normalize in (False, True):  # the snapshot scales its own observations: the same games
        env = SequenceVectorEnv(16, opponents=pool.opponent(), normalize=normalize, seed=3)
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        runs.append([env.step(env.sample_actions(rng))[1] for _ in range(30)] + [env.game.observations()])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def test_a_normalized_env_still_gives_a_callable_its_deals():
    """The scaling wrapper of ``normalize=True`` keeps ``takes_deals``: the callable gets scaled
    observations and each row's deal seed."""
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.vector import SequenceVectorEnv
    from sequence_game.observation import OBSERVATION_SCALE

    seen, envs = [], []

    def opponent(observations, masks, deals):
        if envs:
            game = envs[0].game
            raw = np.stack([game.copy_game(i).observation_tensor(1) for i in range(4)])
            seen.append((observations.copy(), np.asarray(deals).copy(), raw, game.seeds()))
        return np.argmax(masks, axis=1)

    opponent.takes_deals = True
    envs.append(SequenceVectorEnv(4, opponents=opponent, normalize=True, seed=1))
    envs[0].reset(seed=1)
    seen.clear()
    envs[0].step(np.argmax(envs[0].action_masks(), axis=1))  # every game: seat 0 moves, then seat 1
    (obs, deals, raw, seeds), = seen
    np.testing.assert_array_equal(deals, seeds)
    assert not np.array_equal(obs, raw)
    np.testing.assert_allclose(obs, raw / OBSERVATION_SCALE, rtol=1e-6)


def test_one_pool_opponent_serves_the_async_batches_as_their_seeded_vector_envs(tmp_path, files):
    """The batches of AsyncSequenceVectorEnv call one opponent from threads of their own: each plays
    as a SequenceVectorEnv of its seed with an opponent of its own (random moves included)."""
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.async_vector import AsyncSequenceVectorEnv
    from sequence_game.envs.vector import SequenceVectorEnv
    from sequence_game.seeds import derive_seed

    pool = PolicyPool(tmp_path / "p", fixed=["random"], fixed_share=0.5, seed=6)
    pool.add(files["high"])
    mirrors = [SequenceVectorEnv(8, opponents=pool.opponent(), seed=derive_seed(2, b), max_turns=40) for b in range(2)]
    expected = [m.reset() for m in mirrors]
    with AsyncSequenceVectorEnv(16, batch_size=8, opponents=pool.opponent(), seed=2, max_turns=40) as batches:
        batches.async_reset()
        for _ in range(60):
            obs, *_, infos = batches.recv()
            b = int(infos["env_id"][0]) // 8
            np.testing.assert_array_equal(obs, expected[b][0])
            actions = np.argmax(infos["action_mask"], axis=1)
            batches.send(actions, infos["env_id"])
            expected[b] = mirrors[b].step(actions)
    assert all((m.game.episodes() > 0).all() for m in mirrors)  # every game was re-dealt and drawn again


def test_a_live_sb3_model_joins_the_pool(tmp_path):
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    import sb3_contrib
    from sequence_game.agents.policy import load_policy
    from sequence_game.envs.sb3 import SequenceVecEnv

    pool = PolicyPool(tmp_path / "p", fixed=["random"], keep=2)
    venv = SequenceVecEnv(4, opponents=pool.opponent(), normalize=True, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu")
    model.learn(32)
    path = pool.add(model)
    assert os.path.basename(path) == "snapshot-000001.zip" and pool.members() == ["snapshot-000001.zip", "random"]
    vg = VectorGame(8, seed=1)
    obs, masks = vg.observations(), vg.legal_masks()
    np.testing.assert_array_equal(pool.policy("snapshot-000001.zip")(obs, masks), load_policy(path)(obs, masks))
    model.learn(32, reset_num_timesteps=False)  # now against itself or random
    assert model.num_timesteps >= 64


def test_bad_arguments_are_refused_with_the_right_form(tmp_path, files):
    with pytest.raises(ValueError, match="keep"):
        PolicyPool(tmp_path / "p", keep=0)
    with pytest.raises(ValueError, match="'uniform' or 'recent'"):
        PolicyPool(tmp_path / "p", sample="newest")
    with pytest.raises(ValueError, match="a seat of its own"):
        PolicyPool(tmp_path / "p", fixed=["greedy"])
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        PolicyPool(tmp_path / "file")
    with pytest.raises(TypeError, match="a list of opponents"):
        PolicyPool(tmp_path / "p", fixed="random")
    pool = PolicyPool(tmp_path / "p")
    vg = VectorGame(4, opponents={1: pool.opponent()})
    before = vg.observations()
    with pytest.raises(ValueError, match="empty"):
        vg.step(_first_legal(vg))
    np.testing.assert_array_equal(vg.observations(), before)  # nothing was played
    with pytest.raises(ValueError, match="no model file"):
        pool.add(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"bad\.npz"):
        pool.add(tmp_path / "bad.npz")
    with pytest.raises(TypeError, match="saved policy's path"):
        pool.add(42)
    assert pool.snapshots == [] and os.listdir(tmp_path / "p") == []
    with pytest.raises(ValueError, match="deals="):
        pool.opponent()(np.zeros((1, OBSERVATION_SIZE), np.float32), np.ones((1, ACTION_COUNT), bool))
